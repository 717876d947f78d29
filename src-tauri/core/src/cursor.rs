//! Cursors: where the next page of a folder starts, as an opaque token.
//!
//! A cursor names the last entry of a page by its full position in the
//! order (its group, its primary value under the size or modified order, and
//! its raw name bytes) and carries the settings its page was made under: the
//! order, the reverse flag, the filter text, and whether dotfiles and ignored
//! entries were shown. The next page is the `limit` entries strictly after
//! that position, so a folder that gains or loses entries between pages
//! neither repeats nor skips one that was there throughout (under the size
//! or modified order: one whose size or time did not change either).
//!
//! Layout, base64url without padding: version byte, order byte (0 name,
//! 1 size, 2 modified, 3 type), flags byte (bit 0 reverse, bit 1 dotfiles
//! shown, bit 2 ignored hidden, bit 3 the filter a whole-name glob), filter length (u16 little-endian) and
//! filter bytes, group byte, then under the size and modified orders a
//! primary byte (0 none, 1 missing, 2 a value) and, for a value, 8 bytes
//! (i64 little-endian), then the name's bytes.
//! Anything that does not decode, or whose settings differ from the
//! request's, is `INVALID_ARGUMENT`: a cursor is never reinterpreted.
#![forbid(unsafe_code)]

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;

use crate::error::CanopyError;
use crate::names::{unescape_line, NamePart};
use crate::order::{Group, Order, Primary};
use crate::wire::{ListSettings, Listing, SortBy};

const VERSION: u8 = 1;
const REVERSE: u8 = 1;
const DOTFILES_SHOWN: u8 = 2;
const IGNORED_HIDDEN: u8 = 4;
const GLOB_FILTER: u8 = 8;

/// An entry's place in a folder's order, owned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SortPosition {
    pub group: Group,
    /// Its value under the size or modified order; `Primary::None` otherwise.
    pub primary: Primary,
    /// The raw name bytes (the last tie-break).
    pub name: Box<[u8]>,
}

fn order_byte(by: SortBy) -> u8 {
    match by {
        SortBy::Name => 0,
        SortBy::Size => 1,
        SortBy::Modified => 2,
        SortBy::Type => 3,
    }
}

/// The longest cursor [`encode`] makes for a filter of `filter_bytes`:
/// version, order, flags, filter length (2), the filter, group, primary
/// (1 + 8) and a name of at most 255 bytes, in base64url. A face that
/// prints cursors reserves this much.
pub fn max_len(filter_bytes: usize) -> usize {
    (3 + 2 + filter_bytes.min(crate::limits::MAX_FILTER_BYTES) + 1 + 9 + 255).div_ceil(3) * 4
}

/// Encodes the cursor that follows `last` under `settings`.
pub fn encode(settings: &ListSettings, last: &SortPosition) -> String {
    let order = Order {
        by: settings.sort,
        reverse: settings.reverse,
    };
    let filter = settings.filter.as_deref().unwrap_or("").as_bytes();
    let mut bytes = Vec::with_capacity(16 + filter.len() + last.name.len());
    bytes.push(VERSION);
    bytes.push(order_byte(settings.sort));
    let mut flags = 0;
    if settings.reverse {
        flags |= REVERSE;
    }
    if settings.show_dotfiles {
        flags |= DOTFILES_SHOWN;
    }
    if settings.hide_ignored {
        flags |= IGNORED_HIDDEN;
    }
    if settings.glob_filter {
        flags |= GLOB_FILTER;
    }
    bytes.push(flags);
    // A filter is at most MAX_FILTER_BYTES (checked when parsed): it fits.
    bytes.extend_from_slice(&(filter.len() as u16).to_le_bytes());
    bytes.extend_from_slice(filter);
    bytes.push(match last.group {
        Group::Folder => 0,
        Group::Other => 1,
    });
    if order.needs_stat() {
        match last.primary {
            Primary::None => bytes.push(0),
            Primary::Missing => bytes.push(1),
            Primary::Value(v) => {
                bytes.push(2);
                bytes.extend_from_slice(&v.to_le_bytes());
            }
        }
    }
    bytes.extend_from_slice(&last.name);
    URL_SAFE_NO_PAD.encode(bytes)
}

/// Decodes a cursor and checks it was made under `settings`.
///
/// # Errors
/// `INVALID_ARGUMENT` when the text is not a cursor Canopy issued, or when it
/// was made for another order, filter, dotfile or ignore setting.
pub fn decode(text: &str, settings: &ListSettings) -> Result<SortPosition, CanopyError> {
    let want = Order {
        by: settings.sort,
        reverse: settings.reverse,
    };
    let foreign = || {
        CanopyError::invalid(
            "the cursor is not one Canopy issued; list again without it (or from an offset)",
        )
    };
    let bytes = URL_SAFE_NO_PAD
        .decode(text.as_bytes())
        .map_err(|_| foreign())?;
    let [version, order, flags, f0, f1, rest @ ..] = bytes.as_slice() else {
        return Err(foreign());
    };
    if *version != VERSION {
        return Err(foreign());
    }
    if flags & !(REVERSE | DOTFILES_SHOWN | IGNORED_HIDDEN | GLOB_FILTER) != 0 || *order > 3 {
        return Err(foreign());
    }
    let filter_len = u16::from_le_bytes([*f0, *f1]) as usize;
    if rest.len() < filter_len {
        return Err(foreign());
    }
    let (filter, rest) = rest.split_at(filter_len);
    let want_filter = settings.filter.as_deref().unwrap_or("").as_bytes();
    if *order != order_byte(want.by)
        || (flags & REVERSE != 0) != want.reverse
        || filter != want_filter
        || (flags & GLOB_FILTER != 0) != settings.glob_filter
    {
        return Err(CanopyError::invalid(
            "the cursor was made for another order or filter than this request's",
        ));
    }
    if (flags & IGNORED_HIDDEN != 0) != settings.hide_ignored {
        return Err(CanopyError::invalid(
            "the cursor was made with another ignore setting than this request's",
        ));
    }
    let shown = flags & DOTFILES_SHOWN != 0;
    if shown != settings.show_dotfiles {
        return Err(CanopyError::invalid(format!(
            "the cursor was made with dotfiles {}, and this request {} them",
            if shown { "shown" } else { "hidden" },
            if settings.show_dotfiles {
                "shows"
            } else {
                "hides"
            }
        )));
    }
    let [group, rest @ ..] = rest else {
        return Err(foreign());
    };
    let group = match group {
        0 => Group::Folder,
        1 => Group::Other,
        _ => return Err(foreign()),
    };
    let (primary, name) = if want.needs_stat() {
        match rest {
            [0, name @ ..] => (Primary::None, name),
            [1, name @ ..] => (Primary::Missing, name),
            [2, a, b, c, d, e, f, g, h, name @ ..] => (
                Primary::Value(i64::from_le_bytes([*a, *b, *c, *d, *e, *f, *g, *h])),
                name,
            ),
            _ => return Err(foreign()),
        }
    } else {
        (Primary::None, rest)
    };
    // No real name is empty or holds a NUL or a slash.
    if name.is_empty() || name.iter().any(|&b| b == 0 || b == b'/') {
        return Err(foreign());
    }
    Ok(SortPosition {
        group,
        primary,
        name: name.into(),
    })
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
    let Some(folder) = listing.root.folder.as_deref() else {
        return Ok(None);
    };
    let Some(entry) = folder.entries.get(index) else {
        return Ok(None);
    };
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
    let group = Group::of(entry.kind);
    let order = Order {
        by: listing.settings.sort,
        reverse: listing.settings.reverse,
    };
    // The value the entry was placed by (a listing under these orders always
    // carries the size and time it read, whatever its details setting).
    let primary = match order.by {
        SortBy::Size if group == Group::Other => {
            entry.size.map_or(Primary::Missing, Primary::of_size)
        }
        SortBy::Modified => entry.modified.map_or(Primary::Missing, Primary::Value),
        _ => Primary::None,
    };
    Ok(Some(encode(
        &listing.settings,
        &SortPosition {
            group,
            primary,
            name: name.into(),
        },
    )))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;

    fn shown() -> ListSettings {
        ListSettings::default()
    }

    #[test]
    fn a_cursor_continues_only_the_reading_of_the_filter_it_was_made_under() {
        let last = SortPosition {
            group: Group::Other,
            primary: Primary::None,
            name: b"Cargo.toml".as_slice().into(),
        };
        let substring = ListSettings {
            filter: Some("cargo".into()),
            ..shown()
        };
        let glob = ListSettings {
            glob_filter: true,
            ..substring.clone()
        };
        assert_eq!(decode(&encode(&glob, &last), &glob).unwrap(), last);
        for (made, asked) in [(&substring, &glob), (&glob, &substring)] {
            let err = decode(&encode(made, &last), asked).unwrap_err();
            assert_eq!(err.code, ErrorCode::InvalidArgument);
            assert!(
                err.message.contains("another order or filter"),
                "{}",
                err.message
            );
        }
    }

    #[test]
    fn a_cursor_round_trips_its_exact_name_bytes() {
        let last = SortPosition {
            group: Group::Folder,
            primary: Primary::None,
            name: b"caf\xe9 \n/x"[..5].into(),
        };
        assert_eq!(decode(&encode(&shown(), &last), &shown()).unwrap(), last);
    }

    #[test]
    fn a_cursor_carries_the_order_its_value_and_the_filter() {
        let by_size = ListSettings {
            sort: SortBy::Size,
            reverse: true,
            filter: Some("*.jpg".into()),
            hide_ignored: true,
            ..shown()
        };
        for primary in [
            Primary::Value(-5),
            Primary::Value(1 << 40),
            Primary::Missing,
        ] {
            let last = SortPosition {
                group: Group::Other,
                primary,
                name: b"a.jpg".as_slice().into(),
            };
            assert_eq!(decode(&encode(&by_size, &last), &by_size).unwrap(), last);
        }
        let c = encode(
            &by_size,
            &SortPosition {
                group: Group::Other,
                primary: Primary::Value(3),
                name: b"a".as_slice().into(),
            },
        );
        for other in [
            ListSettings {
                reverse: false,
                ..by_size.clone()
            },
            ListSettings {
                sort: SortBy::Modified,
                ..by_size.clone()
            },
            ListSettings {
                filter: Some("*.png".into()),
                ..by_size.clone()
            },
            ListSettings {
                filter: None,
                ..by_size.clone()
            },
            ListSettings {
                hide_ignored: false,
                ..by_size.clone()
            },
        ] {
            assert_eq!(
                decode(&c, &other).unwrap_err().code,
                ErrorCode::InvalidArgument,
                "{other:?}"
            );
        }
    }

    #[test]
    fn foreign_and_mismatched_cursors_are_invalid_argument() {
        let c = encode(
            &shown(),
            &SortPosition {
                group: Group::Other,
                primary: Primary::None,
                name: b"a".as_slice().into(),
            },
        );
        let hidden = ListSettings {
            show_dotfiles: false,
            ..ListSettings::default()
        };
        let err = decode(&c, &hidden).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidArgument);
        assert!(err.message.contains("dotfiles shown"), "{}", err.message);
        for bad in [
            "",
            "%%",
            "AQ",
            &URL_SAFE_NO_PAD.encode([1, 0, 2, 0, 0, 1]),
            &URL_SAFE_NO_PAD.encode([1, 0, 2, 0, 0, 9, b'a']),
            &URL_SAFE_NO_PAD.encode([1, 0, 2, 0, 0, 1, b'a', b'/', b'b']),
            &URL_SAFE_NO_PAD.encode([2, 0, 2, 0, 0, 1, b'a']),
            &URL_SAFE_NO_PAD.encode([1, 0, 2, 9, 0, 1, b'a']),
            &URL_SAFE_NO_PAD.encode([1, 7, 2, 0, 0, 1, b'a']),
        ] {
            assert_eq!(
                decode(bad, &shown()).unwrap_err().code,
                ErrorCode::InvalidArgument,
                "{bad:?}"
            );
        }
        let reversed = URL_SAFE_NO_PAD.encode([1, 0, 3, 0, 0, 1, b'a']);
        assert!(decode(&reversed, &shown())
            .unwrap_err()
            .message
            .contains("another order"));
        let by_size = ListSettings {
            sort: SortBy::Size,
            ..shown()
        };
        let short_value = URL_SAFE_NO_PAD.encode([1, 1, 2, 0, 0, 1, 2, 1, 2]);
        assert_eq!(
            decode(&short_value, &by_size).unwrap_err().code,
            ErrorCode::InvalidArgument
        );
    }

    #[test]
    fn a_cursor_after_any_shown_entry_continues_right_after_it() {
        use std::os::unix::ffi::OsStrExt;
        let dir = tempfile::tempdir().unwrap();
        let names: [&[u8]; 8] = [
            b"b",
            b"a\\x",
            b"new\nline",
            b"caf\xe9",
            "rtl\u{202e}x".as_bytes(),
            b"file10",
            b"file9",
            b".dot",
        ];
        for n in names {
            std::fs::write(dir.path().join(std::ffi::OsStr::from_bytes(n)), b"").unwrap();
        }
        std::fs::create_dir(dir.path().join("zdir")).unwrap();
        std::os::unix::fs::symlink("zdir", dir.path().join("alink")).unwrap();
        let fs = crate::LocalFs::new();
        let settings = ListSettings {
            depth: 1,
            ..ListSettings::default()
        };
        let call = crate::ListCall {
            details: false,
            handles: false,
            ..crate::ListCall::default()
        };
        let all = crate::list(&fs, dir.path(), &settings, &call).unwrap();
        let names_of = |l: &Listing| {
            l.root
                .folder
                .as_ref()
                .unwrap()
                .entries
                .iter()
                .map(|e| (e.name.clone(), e.name_parts.clone()))
                .collect::<Vec<_>>()
        };
        let every = names_of(&all);
        assert_eq!(every.len(), 10);
        for i in 0..every.len() {
            let c = after_entry(&all, i)
                .unwrap()
                .expect("a cursor for every shown entry");
            let rest = crate::list(
                &fs,
                dir.path(),
                &settings,
                &crate::ListCall {
                    after: Some(c),
                    ..call.clone()
                },
            )
            .unwrap();
            assert_eq!(
                names_of(&rest),
                every[i + 1..].to_vec(),
                "the page after entry {i} starts right after it"
            );
            assert_eq!(
                rest.root.folder.as_ref().unwrap().offset,
                i as u64 + 1,
                "and knows its position"
            );
        }
        assert_eq!(
            after_entry(&all, every.len()).unwrap(),
            None,
            "no cursor after an entry that is not there"
        );
    }

    #[test]
    fn a_cursor_after_a_shown_entry_keeps_the_order_filter_and_values() {
        let dir = tempfile::tempdir().unwrap();
        for (i, n) in ["a.jpg", "b.jpg", "c.png", "d.jpg", "e.jpg", "f.jpg"]
            .iter()
            .enumerate()
        {
            std::fs::write(dir.path().join(n), vec![b'x'; (i * 7) % 5]).unwrap();
        }
        for by in [SortBy::Size, SortBy::Modified, SortBy::Type, SortBy::Name] {
            // Text mode's settings: no details, no handles.
            let fs = crate::LocalFs::new();
            let settings = ListSettings {
                depth: 1,
                sort: by,
                reverse: true,
                filter: Some("*.JPG".into()),
                ..ListSettings::default()
            };
            let call = crate::ListCall {
                details: false,
                handles: false,
                ..crate::ListCall::default()
            };
            let all = crate::list(&fs, dir.path(), &settings, &call).unwrap();
            let every: Vec<String> = all
                .root
                .folder
                .as_ref()
                .unwrap()
                .entries
                .iter()
                .map(|e| e.name.clone())
                .collect();
            assert_eq!(every.len(), 5);
            for i in 0..every.len() {
                let c = after_entry(&all, i).unwrap().expect("a cursor");
                let rest = crate::list(
                    &fs,
                    dir.path(),
                    &settings,
                    &crate::ListCall {
                        after: Some(c),
                        ..call.clone()
                    },
                )
                .unwrap();
                let got: Vec<String> = rest
                    .root
                    .folder
                    .as_ref()
                    .unwrap()
                    .entries
                    .iter()
                    .map(|e| e.name.clone())
                    .collect();
                assert_eq!(
                    got,
                    every[i + 1..].to_vec(),
                    "{by:?}: the page after entry {i}"
                );
            }
        }
    }

    #[test]
    fn the_widest_cursor_is_max_len() {
        for filter_bytes in [0, 1, 7, crate::limits::MAX_FILTER_BYTES] {
            let settings = ListSettings {
                sort: SortBy::Modified,
                reverse: true,
                filter: (filter_bytes > 0)
                    .then(|| "\u{ff}".repeat(filter_bytes / 2) + &"x".repeat(filter_bytes % 2)),
                hide_ignored: true,
                ..ListSettings::default()
            };
            let last = SortPosition {
                group: Group::Other,
                primary: Primary::Value(i64::MIN),
                name: vec![0xffu8; 255].into(),
            };
            let len = encode(&settings, &last).len();
            assert!(
                len <= max_len(filter_bytes) && len + 4 > max_len(filter_bytes),
                "{filter_bytes}: {len}"
            );
        }
    }
}
