//! Zip-based documents opened just far enough to refuse the ones that carry
//! code: the central directory read within `ZIP_DIRECTORY_CAP` (a zip Canopy
//! cannot read is not opened), forbidden entry names, and for OOXML the
//! content types `[Content_Types].xml` declares, whatever the parts are called.

use super::not_openable;
use super::table::ZipName;
use crate::error::CanopyError;
use crate::limits::{CONTENT_TYPES_CAP, ZIP_DIRECTORY_CAP};
use crate::local::LocalFile;
use crate::preview::read_at;

/// Words of the content types (lowercased) that Office gives the parts that
/// carry code: `application/vnd.ms-office.vbaProject`, the
/// `...macroEnabled.main+xml` documents, Excel 4 macro sheets, Word's
/// `vbaData`, and ActiveX controls.
const OOXML_MACRO_TYPES: &[&str] = &[
    "vbaproject",
    "macroenabled",
    "macrosheet",
    "vbadata",
    "activex",
];
/// The part of an OOXML package that names the type of every other part.
const CONTENT_TYPES_PART: &str = "[content_types].xml";

/// One entry of a zip's central directory.
pub(super) struct ZipEntry {
    /// As stored, lowercased.
    name: Vec<u8>,
    method: u16,
    compressed: u64,
    size: u64,
    local_offset: u64,
}

fn zip_unreadable() -> CanopyError {
    not_openable("its zip directory cannot be checked")
}

/// Reads a zip's central directory (a zip Canopy cannot read is not opened).
pub(super) fn zip_directory(file: &LocalFile, size: u64) -> Result<Vec<ZipEntry>, CanopyError> {
    // The end record is 22 bytes plus a comment of at most 65535.
    let tail_len = size.min(22 + 65_535);
    let tail = read_at(file, size - tail_len, tail_len as usize)?;
    let eocd = tail
        .windows(4)
        .rposition(|w| w == b"PK\x05\x06")
        .ok_or_else(zip_unreadable)?;
    let rec = &tail[eocd..];
    if rec.len() < 22 {
        return Err(zip_unreadable());
    }
    let (dir_size, dir_offset) = (u32_at(rec, 12), u32_at(rec, 16));
    if dir_offset == 0xffff_ffff || dir_size > ZIP_DIRECTORY_CAP || dir_offset + dir_size > size {
        return Err(zip_unreadable());
    }
    let dir = read_at(file, dir_offset, dir_size as usize)?;
    let mut entries = Vec::new();
    let mut pos = 0;
    while pos < dir.len() {
        if dir.len() < pos + 46 || &dir[pos..pos + 4] != b"PK\x01\x02" {
            return Err(zip_unreadable());
        }
        let (name_len, extra_len, comment_len) = (
            u16_at(&dir, pos + 28),
            u16_at(&dir, pos + 30),
            u16_at(&dir, pos + 32),
        );
        let name = dir
            .get(pos + 46..pos + 46 + name_len)
            .ok_or_else(zip_unreadable)?
            .to_ascii_lowercase();
        entries.push(ZipEntry {
            name,
            method: u16_at(&dir, pos + 10) as u16,
            compressed: u32_at(&dir, pos + 20),
            size: u32_at(&dir, pos + 24),
            local_offset: u32_at(&dir, pos + 42),
        });
        pos += 46 + name_len + extra_len + comment_len;
    }
    Ok(entries)
}

fn u16_at(b: &[u8], i: usize) -> usize {
    u16::from_le_bytes([b[i], b[i + 1]]) as usize
}

fn u32_at(b: &[u8], i: usize) -> u64 {
    u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]) as u64
}

/// Refuses a zip that names a forbidden entry.
pub(super) fn check_zip_names(
    entries: &[ZipEntry],
    forbidden: &[ZipName],
) -> Result<(), CanopyError> {
    for entry in entries {
        let name = &entry.name;
        let refused = forbidden.iter().any(|f| match f {
            ZipName::EndsWith(s) => name.ends_with(s.as_bytes()),
            ZipName::StartsWith(s) => name.starts_with(s.as_bytes()),
        });
        if refused {
            return Err(not_openable(format!(
                "it holds {}, which makes it a program or a document with macros",
                String::from_utf8_lossy(name)
            )));
        }
    }
    Ok(())
}

/// Reads one entry's bytes (stored or deflated), at most `CONTENT_TYPES_CAP`.
fn zip_entry_bytes(file: &LocalFile, size: u64, entry: &ZipEntry) -> Result<Vec<u8>, CanopyError> {
    let unreadable = || not_openable("its [Content_Types].xml cannot be checked");
    if entry.compressed > CONTENT_TYPES_CAP as u64 || entry.size > CONTENT_TYPES_CAP as u64 {
        return Err(unreadable());
    }
    let local = read_at(file, entry.local_offset, 30)?;
    if local.len() < 30 || &local[..4] != b"PK\x03\x04" {
        return Err(unreadable());
    }
    let start = entry.local_offset + 30 + u16_at(&local, 26) as u64 + u16_at(&local, 28) as u64;
    if start + entry.compressed > size {
        return Err(unreadable());
    }
    let data = read_at(file, start, entry.compressed as usize)?;
    match entry.method {
        0 => Ok(data),
        8 => miniz_oxide::inflate::decompress_to_vec_with_limit(&data, CONTENT_TYPES_CAP)
            .map_err(|_| unreadable()),
        _ => Err(unreadable()),
    }
}

/// Replaces XML character references (`&#118;`, `&#x76;`) and the five
/// named entities, so that a content type cannot hide behind them.
fn xml_unescape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        rest = &rest[amp..];
        // A reference is short; `;` is ASCII, so its index is a char boundary.
        let Some(semi) = rest.bytes().take(16).position(|b| b == b';') else {
            out.push('&');
            rest = &rest[1..];
            continue;
        };
        let name = &rest[1..semi];
        let decoded = match name {
            "amp" => Some('&'),
            "lt" => Some('<'),
            "gt" => Some('>'),
            "quot" => Some('"'),
            "apos" => Some('\''),
            _ => name
                .strip_prefix("#x")
                .or_else(|| name.strip_prefix("#X"))
                .map(|h| u32::from_str_radix(h, 16))
                .or_else(|| name.strip_prefix('#').map(str::parse::<u32>))
                .and_then(Result::ok)
                .and_then(char::from_u32),
        };
        match decoded {
            Some(c) => {
                out.push(c);
                rest = &rest[semi + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// Refuses an OOXML package whose `[Content_Types].xml` declares a part that
/// carries code (the part's own name proves nothing), or that has no such
/// file, or more than one, or one that cannot be read.
pub(super) fn check_ooxml_types(
    file: &LocalFile,
    size: u64,
    entries: &[ZipEntry],
) -> Result<(), CanopyError> {
    let mut parts = entries
        .iter()
        .filter(|e| e.name == CONTENT_TYPES_PART.as_bytes());
    let (Some(part), None) = (parts.next(), parts.next()) else {
        return Err(not_openable(
            "it does not hold exactly one [Content_Types].xml, so its parts cannot be checked",
        ));
    };
    let bytes = zip_entry_bytes(file, size, part)?;
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(&bytes);
    // UTF-16 or anything else that is not UTF-8 would hide the words looked for.
    let text = std::str::from_utf8(bytes)
        .ok()
        .filter(|t| !t.contains('\0'))
        .ok_or_else(|| {
            not_openable("its [Content_Types].xml is not UTF-8, so its parts cannot be checked")
        })?;
    let types = xml_unescape(text).to_ascii_lowercase();
    if let Some(word) = OOXML_MACRO_TYPES.iter().find(|w| types.contains(*w)) {
        return Err(not_openable(format!(
            "its [Content_Types].xml declares a part of a {word} type, which makes it a document with macros"
        )));
    }
    Ok(())
}
