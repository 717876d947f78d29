//! Cursors: where the next page of a folder starts, as an opaque token.
//!
//! A cursor names the last entry of a page by its full sort key (its group
//! and its raw name bytes; under later orders, the primary value too) and
//! carries the settings its page was made under: the order, the reverse flag,
//! the filter text, and whether dotfiles and ignored entries were shown. The
//! next page is the `limit` entries strictly after that key, so a folder that
//! gains or loses entries between pages neither repeats nor skips one that
//! was there throughout.
//!
//! Layout, base64url without padding: version byte, order byte, flags byte
//! (bit 0 reverse, bit 1 dotfiles shown, bit 2 ignored hidden), filter length
//! (u16 little-endian) and filter bytes, group byte, then the name's bytes.
//! Anything that does not decode, or whose settings differ from the
//! request's, is `INVALID_ARGUMENT`: a cursor is never reinterpreted.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;

use crate::error::CanopyError;
use crate::names::{unescape_line, NamePart};
use crate::order::Group;
use crate::wire::{EntryKind, Listing};

const VERSION: u8 = 1;
/// The only order today: natural name (folders first).
const ORDER_NAME: u8 = 0;
const REVERSE: u8 = 1;
const DOTFILES_SHOWN: u8 = 2;
const IGNORED_HIDDEN: u8 = 4;

/// An entry's place in a folder's order, owned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SortPosition {
    pub group: Group,
    pub name: Box<[u8]>,
}

/// The settings a page was listed under; a cursor only continues a page made
/// under the same ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageSettings {
    pub show_dotfiles: bool,
}

/// Encodes the cursor that follows `last` under `settings`.
pub fn encode(settings: PageSettings, last: &SortPosition) -> String {
    let mut bytes = Vec::with_capacity(7 + last.name.len());
    bytes.push(VERSION);
    bytes.push(ORDER_NAME);
    bytes.push(if settings.show_dotfiles { DOTFILES_SHOWN } else { 0 });
    bytes.extend_from_slice(&0u16.to_le_bytes()); // no filter
    bytes.push(match last.group {
        Group::Folder => 0,
        Group::Other => 1,
    });
    bytes.extend_from_slice(&last.name);
    URL_SAFE_NO_PAD.encode(bytes)
}

/// Decodes a cursor and checks it was made under `settings`.
///
/// # Errors
/// `INVALID_ARGUMENT` when the text is not a cursor Canopy issued, or when it
/// was made for another order, filter or dotfile setting.
pub fn decode(text: &str, settings: PageSettings) -> Result<SortPosition, CanopyError> {
    let foreign = || CanopyError::invalid("the cursor is not one Canopy issued; list from an offset instead");
    let bytes = URL_SAFE_NO_PAD.decode(text.as_bytes()).map_err(|_| foreign())?;
    let [version, order, flags, f0, f1, rest @ ..] = bytes.as_slice() else { return Err(foreign()) };
    if *version != VERSION {
        return Err(foreign());
    }
    let filter_len = u16::from_le_bytes([*f0, *f1]) as usize;
    if *order != ORDER_NAME || flags & (REVERSE | IGNORED_HIDDEN) != 0 || filter_len != 0 {
        return Err(CanopyError::invalid("the cursor was made for another order or filter than this request's"));
    }
    let shown = flags & DOTFILES_SHOWN != 0;
    if flags & !(REVERSE | DOTFILES_SHOWN | IGNORED_HIDDEN) != 0 {
        return Err(foreign());
    }
    if shown != settings.show_dotfiles {
        return Err(CanopyError::invalid(format!(
            "the cursor was made with dotfiles {}, and this request {} them",
            if shown { "shown" } else { "hidden" },
            if settings.show_dotfiles { "shows" } else { "hides" }
        )));
    }
    let [group, name @ ..] = rest else { return Err(foreign()) };
    let group = match group {
        0 => Group::Folder,
        1 => Group::Other,
        _ => return Err(foreign()),
    };
    // No real name is empty or holds a NUL or a slash.
    if name.is_empty() || name.iter().any(|&b| b == 0 || b == b'/') {
        return Err(foreign());
    }
    Ok(SortPosition { group, name: name.into() })
}

/// The cursor that continues a listing's top level after its shown entry
/// `index` (0-based in the root's `entries`), as if the page had ended there:
/// a caller that shows only part of a page (`canopy-mcp` cuts pages to its
/// reply budget) continues from the last entry it showed.
///
/// `None` when there is no such entry, or when the root's read was cut short
/// (its order is partial, and [`crate::list`] issues no cursor either).
///
/// # Errors
/// `INVALID_ARGUMENT` when the entry's name parts do not read back to bytes
/// (never for a listing Canopy made).
pub fn after_entry(listing: &Listing, index: usize) -> Result<Option<String>, CanopyError> {
    let Some(folder) = listing.root.folder.as_deref() else { return Ok(None) };
    let Some(entry) = folder.entries.get(index) else { return Ok(None) };
    if folder.partial_order || folder.count_is_lower_bound {
        return Ok(None);
    }
    let name = match &entry.name_parts {
        None => entry.name.as_bytes().to_vec(),
        Some(parts) => {
            let mut raw = Vec::with_capacity(entry.name.len());
            for part in parts {
                match part {
                    NamePart::Text(t) => raw.extend_from_slice(t.as_bytes()),
                    NamePart::Escape(e) => raw.extend_from_slice(&unescape_line(e)?),
                }
            }
            raw
        }
    };
    let group = if entry.kind == EntryKind::Folder { Group::Folder } else { Group::Other };
    let settings = PageSettings { show_dotfiles: listing.show_dotfiles };
    Ok(Some(encode(settings, &SortPosition { group, name: name.into() })))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;

    const SHOWN: PageSettings = PageSettings { show_dotfiles: true };

    #[test]
    fn a_cursor_round_trips_its_exact_name_bytes() {
        let last = SortPosition { group: Group::Folder, name: b"caf\xe9 \n/x"[..5].into() };
        assert_eq!(decode(&encode(SHOWN, &last), SHOWN).unwrap(), last);
    }

    #[test]
    fn foreign_and_mismatched_cursors_are_invalid_argument() {
        let c = encode(SHOWN, &SortPosition { group: Group::Other, name: b"a".as_slice().into() });
        let hidden = PageSettings { show_dotfiles: false };
        let err = decode(&c, hidden).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidArgument);
        assert!(err.message.contains("dotfiles shown"), "{}", err.message);
        for bad in ["", "%%", "AQ", &URL_SAFE_NO_PAD.encode([1, 0, 2, 0, 0, 1]), &URL_SAFE_NO_PAD.encode([1, 0, 2, 0, 0, 9, b'a']),
            &URL_SAFE_NO_PAD.encode([1, 0, 2, 0, 0, 1, b'a', b'/', b'b']), &URL_SAFE_NO_PAD.encode([2, 0, 2, 0, 0, 1, b'a'])]
        {
            assert_eq!(decode(bad, SHOWN).unwrap_err().code, ErrorCode::InvalidArgument, "{bad:?}");
        }
        let reversed = URL_SAFE_NO_PAD.encode([1, 0, 3, 0, 0, 1, b'a']);
        assert!(decode(&reversed, SHOWN).unwrap_err().message.contains("another order"));
    }

    #[test]
    fn a_cursor_after_any_shown_entry_continues_right_after_it() {
        use std::os::unix::ffi::OsStrExt;
        let dir = tempfile::tempdir().unwrap();
        let names: [&[u8]; 8] = [b"b", b"a\\x", b"new\nline", b"caf\xe9", "rtl\u{202e}x".as_bytes(), b"file10", b"file9", b".dot"];
        for n in names {
            std::fs::write(dir.path().join(std::ffi::OsStr::from_bytes(n)), b"").unwrap();
        }
        std::fs::create_dir(dir.path().join("zdir")).unwrap();
        std::os::unix::fs::symlink("zdir", dir.path().join("alink")).unwrap();
        let opts = crate::ListOptions { depth: 1, details: false, handles: false, ..crate::ListOptions::default() };
        let all = crate::list(dir.path(), &opts).unwrap();
        let names_of = |l: &Listing| l.root.folder.as_ref().unwrap().entries.iter().map(|e| (e.name.clone(), e.name_parts.clone())).collect::<Vec<_>>();
        let every = names_of(&all);
        assert_eq!(every.len(), 10);
        for i in 0..every.len() {
            let c = after_entry(&all, i).unwrap().expect("a cursor for every shown entry");
            let rest = crate::list(dir.path(), &crate::ListOptions { after: Some(c), ..opts.clone() }).unwrap();
            assert_eq!(names_of(&rest), every[i + 1..].to_vec(), "the page after entry {i} starts right after it");
            assert_eq!(rest.root.folder.as_ref().unwrap().offset, i as u64 + 1, "and knows its position");
        }
        assert_eq!(after_entry(&all, every.len()).unwrap(), None, "no cursor after an entry that is not there");
    }
}
