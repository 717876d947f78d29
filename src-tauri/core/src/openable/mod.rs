//! What "Open…" may hand to the system's default application: documents,
//! and exactly the file that was checked.
//!
//! The policy is an allowlist, [`OPENABLE`]: a file opens only when
//! - it is a regular file (opened as `file::open_regular` opens
//!   one: never a fifo or device) with no execute bit;
//! - its extension is in the table, and its content starts the way that
//!   extension's family must (magic bytes, or UTF-8 without NUL for text);
//! - its content carries no program, script or shortcut signature (`#!`, ELF,
//!   `MZ`, a Windows shortcut, a desktop entry, a Java class) whatever its name;
//! - a zip-based document holds no macro project (for OOXML, no part that
//!   `[Content_Types].xml` declares as VBA, macro-enabled, a macro sheet or
//!   ActiveX, whatever the part is called), and a zip no Java manifest;
//! - through a symlink, the file reached has an allowed name of the same row;
//! - the type the system reads from its content (`xdg-mime query filetype`,
//!   the type `xdg-open` goes by) belongs to the same family as its name, and
//!   is never PostScript, HTML, XHTML, SVG, XML, RTF or script
//!   ([`REFUSED_TYPES`]): a `notes.txt` that starts `%!PS` is not handed to a
//!   PostScript viewer;
//! - the application the system would start for it is not an interpreter,
//!   Wine, Java or a terminal emulator (see [`crate::default_app`]); without
//!   `xdg-mime` nothing can be vetted, so nothing opens.
//!
//! The opener is still handed a path, not the file checked: a file swapped
//! for another after the check is the one opened.
//!
//! Anything else is `NOT_OPENABLE`. What is deliberately *not* in the table,
//! and why:
//! - installers and launchers (`.desktop`, `.AppImage`, `.jar`, `.deb`,
//!   `.rpm`, `.run`, `.msi`, `.exe`, `.lnk`, `.url`, `.flatpakref`, ...) and
//!   scripts of every shell and interpreter: opening them runs them;
//! - macro-enabled Office files (`.docm`, `.xlsm`, `.pptm`, ...);
//! - legacy OLE Office files (`.doc`, `.xls`, `.ppt`): any of them may carry
//!   VBA macros and nothing short of parsing the OLE container tells; and
//!   `.rtf`, which embeds OLE objects, a long-standing exploit carrier;
//! - HTML, SVG, XML and EPUB: they open in a browser or a web view, where
//!   they can run script with access to local files;
//! - PostScript (`.ps`, `.eps`): a programming language, run by its viewer.
#![forbid(unsafe_code)]

use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use crate::default_app::Desktop;
use crate::error::{CanopyError, ErrorCode};
use crate::file::open_regular;
use crate::limits::{CONTENT_TYPES_CAP, OPEN_SNIFF_BYTES, ZIP_DIRECTORY_CAP};
use crate::local::LocalFile;
use crate::names::decode_handle;
use crate::preview::{read_at, FileRequest};

/// The kind of thing a person opens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    Document,
    Image,
    Audio,
    Video,
    Text,
    Archive,
}

/// Bytes that must appear at an offset of the file.
pub type Magic = (usize, &'static [u8]);
/// All of its magics must match.
pub type Signature = &'static [Magic];

/// What an entry's content must be.
#[derive(Debug, Clone, Copy)]
pub enum Content {
    /// Starts with one of these signatures.
    Magic(&'static [Signature]),
    /// UTF-8 without NUL, and not markup or a shortcut in disguise.
    Text,
    /// A zip archive starting with one of these signatures, none of whose
    /// entries is named in `forbidden` (see [`ZipName`]).
    Zip(&'static [Signature], &'static [ZipName]),
    /// An Office Open XML package: a zip as above, with no VBA project by
    /// name, whose `[Content_Types].xml` declares no macro-bearing part.
    Ooxml(&'static [Signature], &'static [ZipName]),
}

/// An entry name that makes a zip refused.
#[derive(Debug, Clone, Copy)]
pub enum ZipName {
    /// The name ends with this (ASCII case ignored).
    EndsWith(&'static str),
    /// The name starts with this (ASCII case ignored).
    StartsWith(&'static str),
}

/// One row of the allowlist.
#[derive(Debug, Clone, Copy)]
pub struct Openable {
    /// Lowercase extensions, without the dot.
    pub extensions: &'static [&'static str],
    pub family: Family,
    /// The MIME types the system may file it under; the default application
    /// of each is checked.
    pub mime: &'static [&'static str],
    pub content: Content,
}

const ZIP: Signature = &[(0, b"PK\x03\x04")];
const EMPTY_ZIP: Signature = &[(0, b"PK\x05\x06")];
/// ISO base media files (MP4, QuickTime, M4A, AVIF): a box of type `ftyp`.
const FTYP: Signature = &[(4, b"ftyp")];
/// OOXML keeps its VBA project in this part by convention; a `.docx` holding
/// it is a `.docm` under another name. The part may have any name, so
/// [`OOXML_MACRO_TYPES`] are looked for in `[Content_Types].xml` too.
const OOXML_MACROS: &[ZipName] = &[ZipName::EndsWith("vbaproject.bin")];
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
/// OpenDocument keeps Basic macros and scripts in these folders.
const ODF_MACROS: &[ZipName] = &[
    ZipName::StartsWith("basic/"),
    ZipName::StartsWith("scripts/"),
    ZipName::EndsWith("vbaproject.bin"),
];
/// A zip with a Java manifest is a `.jar` under another name.
const JAVA_ARCHIVE: &[ZipName] = &[ZipName::StartsWith("meta-inf/manifest.mf")];

/// The allowlist: extension -> family -> the content it must have.
pub static OPENABLE: &[Openable] = &[
    // Documents.
    Openable {
        extensions: &["pdf"],
        family: Family::Document,
        mime: &["application/pdf"],
        content: Content::Magic(&[&[(0, b"%PDF-")]]),
    },
    Openable {
        extensions: &["docx"],
        family: Family::Document,
        mime: &["application/vnd.openxmlformats-officedocument.wordprocessingml.document"],
        content: Content::Ooxml(&[ZIP], OOXML_MACROS),
    },
    Openable {
        extensions: &["xlsx"],
        family: Family::Document,
        mime: &["application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"],
        content: Content::Ooxml(&[ZIP], OOXML_MACROS),
    },
    Openable {
        extensions: &["pptx"],
        family: Family::Document,
        mime: &["application/vnd.openxmlformats-officedocument.presentationml.presentation"],
        content: Content::Ooxml(&[ZIP], OOXML_MACROS),
    },
    Openable {
        extensions: &["odt"],
        family: Family::Document,
        mime: &["application/vnd.oasis.opendocument.text"],
        content: Content::Zip(
            &[&[
                (0, b"PK\x03\x04"),
                (30, b"mimetypeapplication/vnd.oasis.opendocument.text"),
            ]],
            ODF_MACROS,
        ),
    },
    Openable {
        extensions: &["ods"],
        family: Family::Document,
        mime: &["application/vnd.oasis.opendocument.spreadsheet"],
        content: Content::Zip(
            &[&[
                (0, b"PK\x03\x04"),
                (
                    30,
                    b"mimetypeapplication/vnd.oasis.opendocument.spreadsheet",
                ),
            ]],
            ODF_MACROS,
        ),
    },
    Openable {
        extensions: &["odp"],
        family: Family::Document,
        mime: &["application/vnd.oasis.opendocument.presentation"],
        content: Content::Zip(
            &[&[
                (0, b"PK\x03\x04"),
                (
                    30,
                    b"mimetypeapplication/vnd.oasis.opendocument.presentation",
                ),
            ]],
            ODF_MACROS,
        ),
    },
    // Images (no SVG: it is a web document that can run script).
    Openable {
        extensions: &["png"],
        family: Family::Image,
        mime: &["image/png"],
        content: Content::Magic(&[&[(0, b"\x89PNG\r\n\x1a\n")]]),
    },
    Openable {
        extensions: &["jpg", "jpeg"],
        family: Family::Image,
        mime: &["image/jpeg"],
        content: Content::Magic(&[&[(0, b"\xff\xd8\xff")]]),
    },
    Openable {
        extensions: &["gif"],
        family: Family::Image,
        mime: &["image/gif"],
        content: Content::Magic(&[&[(0, b"GIF87a")], &[(0, b"GIF89a")]]),
    },
    Openable {
        extensions: &["webp"],
        family: Family::Image,
        mime: &["image/webp"],
        content: Content::Magic(&[&[(0, b"RIFF"), (8, b"WEBP")]]),
    },
    Openable {
        extensions: &["bmp"],
        family: Family::Image,
        mime: &["image/bmp", "image/x-ms-bmp"],
        content: Content::Magic(&[&[(0, b"BM")]]),
    },
    Openable {
        extensions: &["tif", "tiff"],
        family: Family::Image,
        mime: &["image/tiff"],
        content: Content::Magic(&[&[(0, b"II*\0")], &[(0, b"MM\0*")]]),
    },
    Openable {
        extensions: &["avif"],
        family: Family::Image,
        mime: &["image/avif"],
        content: Content::Magic(&[&[(4, b"ftypavif")], &[(4, b"ftypavis")]]),
    },
    // Audio.
    Openable {
        extensions: &["mp3"],
        family: Family::Audio,
        mime: &["audio/mpeg"],
        content: Content::Magic(&[
            &[(0, b"ID3")],
            &[(0, b"\xff\xfb")],
            &[(0, b"\xff\xf3")],
            &[(0, b"\xff\xf2")],
        ]),
    },
    Openable {
        extensions: &["flac"],
        family: Family::Audio,
        mime: &["audio/flac", "audio/x-flac"],
        content: Content::Magic(&[&[(0, b"fLaC")]]),
    },
    Openable {
        extensions: &["ogg", "oga", "opus"],
        family: Family::Audio,
        mime: &["audio/ogg"],
        content: Content::Magic(&[&[(0, b"OggS")]]),
    },
    Openable {
        extensions: &["wav"],
        family: Family::Audio,
        mime: &["audio/x-wav", "audio/wav", "audio/vnd.wave"],
        content: Content::Magic(&[&[(0, b"RIFF"), (8, b"WAVE")]]),
    },
    Openable {
        extensions: &["m4a"],
        family: Family::Audio,
        mime: &["audio/mp4", "audio/x-m4a"],
        content: Content::Magic(&[FTYP]),
    },
    // Video.
    Openable {
        extensions: &["mp4", "m4v"],
        family: Family::Video,
        mime: &["video/mp4"],
        content: Content::Magic(&[FTYP]),
    },
    Openable {
        extensions: &["mov"],
        family: Family::Video,
        mime: &["video/quicktime"],
        content: Content::Magic(&[FTYP, &[(4, b"moov")], &[(4, b"wide")], &[(4, b"mdat")]]),
    },
    Openable {
        extensions: &["mkv"],
        family: Family::Video,
        mime: &["video/x-matroska"],
        content: Content::Magic(&[&[(0, b"\x1a\x45\xdf\xa3")]]),
    },
    Openable {
        extensions: &["webm"],
        family: Family::Video,
        mime: &["video/webm"],
        content: Content::Magic(&[&[(0, b"\x1a\x45\xdf\xa3")]]),
    },
    Openable {
        extensions: &["avi"],
        family: Family::Video,
        mime: &["video/x-msvideo"],
        content: Content::Magic(&[&[(0, b"RIFF"), (8, b"AVI ")]]),
    },
    Openable {
        extensions: &["ogv"],
        family: Family::Video,
        mime: &["video/ogg"],
        content: Content::Magic(&[&[(0, b"OggS")]]),
    },
    // Text (plain text that a text viewer shows; no HTML, XML or scripts).
    Openable {
        extensions: &["txt", "text", "log"],
        family: Family::Text,
        mime: &["text/plain"],
        content: Content::Text,
    },
    Openable {
        extensions: &["md", "markdown"],
        family: Family::Text,
        mime: &["text/markdown", "text/plain"],
        content: Content::Text,
    },
    Openable {
        extensions: &["csv"],
        family: Family::Text,
        mime: &["text/csv", "text/plain"],
        content: Content::Text,
    },
    Openable {
        extensions: &["tsv"],
        family: Family::Text,
        mime: &["text/tab-separated-values", "text/plain"],
        content: Content::Text,
    },
    Openable {
        extensions: &["json"],
        family: Family::Text,
        mime: &["application/json", "text/plain"],
        content: Content::Text,
    },
    Openable {
        extensions: &["yaml", "yml"],
        family: Family::Text,
        mime: &["application/yaml", "application/x-yaml", "text/plain"],
        content: Content::Text,
    },
    Openable {
        extensions: &["toml"],
        family: Family::Text,
        mime: &["application/toml", "text/plain"],
        content: Content::Text,
    },
    // Archives (an archive manager lists them; nothing inside runs).
    Openable {
        extensions: &["zip"],
        family: Family::Archive,
        mime: &["application/zip"],
        content: Content::Zip(&[ZIP, EMPTY_ZIP], JAVA_ARCHIVE),
    },
    Openable {
        extensions: &["tar"],
        family: Family::Archive,
        mime: &["application/x-tar"],
        content: Content::Magic(&[&[(257, b"ustar")]]),
    },
    Openable {
        extensions: &["gz", "tgz"],
        family: Family::Archive,
        mime: &["application/gzip", "application/x-gzip"],
        content: Content::Magic(&[&[(0, b"\x1f\x8b")]]),
    },
    Openable {
        extensions: &["bz2"],
        family: Family::Archive,
        mime: &["application/x-bzip2"],
        content: Content::Magic(&[&[(0, b"BZh")]]),
    },
    Openable {
        extensions: &["xz"],
        family: Family::Archive,
        mime: &["application/x-xz"],
        content: Content::Magic(&[&[(0, b"\xfd7zXZ\0")]]),
    },
    Openable {
        extensions: &["zst"],
        family: Family::Archive,
        mime: &["application/zstd", "application/x-zstd"],
        content: Content::Magic(&[&[(0, b"\x28\xb5\x2f\xfd")]]),
    },
    Openable {
        extensions: &["7z"],
        family: Family::Archive,
        mime: &["application/x-7z-compressed"],
        content: Content::Magic(&[&[(0, b"7z\xbc\xaf\x27\x1c")]]),
    },
];

/// Content that is a program, script or shortcut whatever the file is called.
const NEVER: &[(&[u8], &str)] = &[
    (b"#!", "a script"),
    (b"\x7fELF", "a program"),
    (b"MZ", "a Windows program"),
    (b"\xca\xfe\xba\xbe", "a Java class or program"),
    (b"L\0\0\0\x01\x14\x02\0", "a Windows shortcut"),
];

/// Text that a desktop treats as a launcher or a web page, whatever its name.
/// Compared after a BOM and leading whitespace, ASCII case ignored.
const NEVER_TEXT: &[(&str, &str)] = &[
    ("[desktop entry]", "a desktop launcher"),
    ("[internetshortcut]", "an Internet shortcut"),
    ("<!doctype html", "a web page"),
    ("<html", "a web page"),
    ("<?xml", "an XML document"),
    ("<svg", "an SVG image"),
    ("<script", "a web page"),
];

/// Types the system may read from a file's content that are refused whatever
/// the file is called: each opens in a program that runs what it reads
/// (PostScript is a language; HTML, XHTML, SVG and XML open in a browser or a
/// web view, with script; RTF embeds OLE objects; scripts run).
pub const REFUSED_TYPES: &[(&str, &str)] = &[
    ("application/postscript", "a PostScript program"),
    ("application/x-postscript", "a PostScript program"),
    ("application/eps", "a PostScript program"),
    ("application/x-eps", "a PostScript program"),
    ("image/eps", "a PostScript program"),
    ("image/x-eps", "a PostScript program"),
    ("text/html", "a web page"),
    ("application/xhtml+xml", "a web page (XHTML)"),
    ("application/vnd.wap.xhtml+xml", "a web page (XHTML)"),
    ("image/svg+xml", "an SVG image"),
    ("image/svg+xml-compressed", "an SVG image"),
    ("text/xml", "an XML document"),
    ("application/xml", "an XML document"),
    ("text/rtf", "an RTF document"),
    ("application/rtf", "an RTF document"),
    ("text/javascript", "a script"),
    ("application/javascript", "a script"),
    ("text/ecmascript", "a script"),
    ("text/vbscript", "a script"),
    ("text/x-shellscript", "a script"),
    ("application/x-shellscript", "a script"),
];

/// Whether `mime` (lowercase, no parameters) is a type of `family`: one its
/// rows name, or for text any `text/` type (source code reads as
/// `text/x-c` and the like) that is not refused.
pub fn family_has_type(family: Family, mime: &str) -> bool {
    if REFUSED_TYPES.iter().any(|(t, _)| *t == mime) {
        return false;
    }
    OPENABLE
        .iter()
        .any(|r| r.family == family && r.mime.contains(&mime))
        || (family == Family::Text && mime.starts_with("text/"))
}

/// Whether `mime` is a type of one of the allowlist's families.
pub fn is_allowed_type(mime: &str) -> bool {
    [
        Family::Document,
        Family::Image,
        Family::Audio,
        Family::Video,
        Family::Text,
        Family::Archive,
    ]
    .into_iter()
    .any(|f| family_has_type(f, &mime.to_ascii_lowercase()))
}

fn family_words(family: Family) -> &'static str {
    match family {
        Family::Document => "a document",
        Family::Image => "an image",
        Family::Audio => "audio",
        Family::Video => "a video",
        Family::Text => "plain text",
        Family::Archive => "an archive",
    }
}

/// Checks the type the system reads from the file's content (what
/// `xdg-open` goes by) against the family its name promises.
///
/// # Errors
/// `NOT_OPENABLE` for a refused type, or one of another family.
pub fn check_system_type(rule: &Openable, mime: &str) -> Result<(), CanopyError> {
    let mime = mime.to_ascii_lowercase();
    if let Some((_, what)) = REFUSED_TYPES.iter().find(|(t, _)| *t == mime) {
        return Err(not_openable(format!(
            "the system reads its content as {mime}, {what}"
        )));
    }
    if !family_has_type(rule.family, &mime) {
        return Err(not_openable(format!(
            "the system reads its content as {mime}, which is not {} as its name says",
            family_words(rule.family)
        )));
    }
    Ok(())
}

fn not_openable(why: impl std::fmt::Display) -> CanopyError {
    CanopyError::new(ErrorCode::NotOpenable, format!("not opened: {why}"))
}

/// The allowlist row for a file name, by its last extension (ASCII case ignored).
pub fn rule_for(path: &Path) -> Option<&'static Openable> {
    let ext = path.extension()?.as_bytes().to_ascii_lowercase();
    OPENABLE
        .iter()
        .find(|o| o.extensions.iter().any(|e| e.as_bytes() == ext.as_slice()))
}

fn matches(head: &[u8], sig: Signature) -> bool {
    sig.iter()
        .all(|(at, bytes)| head.get(*at..at + bytes.len()) == Some(*bytes))
}

/// Checks a file's first bytes against its row and the signatures no file
/// may carry. `head` holds up to `OPEN_SNIFF_BYTES`; `whole` says it is the
/// entire file (text may then end anywhere).
///
/// # Errors
/// `NOT_OPENABLE`, saying which rule refused.
pub fn check_content(rule: &Openable, head: &[u8], whole: bool) -> Result<(), CanopyError> {
    for (magic, what) in NEVER {
        if head.starts_with(magic) {
            return Err(not_openable(format!("its content is {what}")));
        }
    }
    let mismatch = || {
        not_openable(format!(
            "its content is not what a .{} file holds",
            rule.extensions[0]
        ))
    };
    match rule.content {
        Content::Magic(sigs) | Content::Zip(sigs, _) | Content::Ooxml(sigs, _) => {
            if !sigs.iter().any(|s| matches(head, s)) {
                return Err(mismatch());
            }
        }
        Content::Text => check_text(head, whole)?,
    }
    Ok(())
}

fn check_text(head: &[u8], whole: bool) -> Result<(), CanopyError> {
    if head.contains(&0) {
        return Err(not_openable("it holds a NUL byte, so it is not text"));
    }
    if let Err(e) = std::str::from_utf8(head) {
        // A character cut by the end of the sniffed bytes is fine.
        if e.error_len().is_some() || whole {
            return Err(not_openable("it is not UTF-8 text"));
        }
    }
    let start = head.strip_prefix(b"\xef\xbb\xbf").unwrap_or(head);
    let start = &start[start
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(start.len())..];
    for (sig, what) in NEVER_TEXT {
        if start.len() >= sig.len() && start[..sig.len()].eq_ignore_ascii_case(sig.as_bytes()) {
            return Err(not_openable(format!("its content is {what}")));
        }
    }
    Ok(())
}

/// One entry of a zip's central directory.
struct ZipEntry {
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
fn zip_directory(file: &LocalFile, size: u64) -> Result<Vec<ZipEntry>, CanopyError> {
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
fn check_zip_names(entries: &[ZipEntry], forbidden: &[ZipName]) -> Result<(), CanopyError> {
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
fn check_ooxml_types(file: &LocalFile, size: u64, entries: &[ZipEntry]) -> Result<(), CanopyError> {
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

/// Decides whether "Open…" may hand this file to the default application,
/// and returns the exact path that was checked (its bytes, for the opener).
///
/// # Errors
/// `INVALID_ARGUMENT` for a bad handle; `NOT_A_FILE` for anything but a
/// regular file (never opened); `NOT_OPENABLE` when a rule of the module
/// docs refuses; the OS code when it cannot be read.
pub fn check_openable(req: &FileRequest, desktop: &Desktop) -> Result<PathBuf, CanopyError> {
    let path = decode_handle(&req.handle)?;
    let (file, st) = open_regular(&path)?;
    if st.st_mode & 0o111 != 0 {
        return Err(not_openable("it is marked executable"));
    }
    let unknown = || {
        not_openable("Canopy opens only the documents, images, audio, video, text and archives it knows by name")
    };
    let rule = rule_for(&path).ok_or_else(unknown)?;
    // Through a link, the file reached must bear an allowed name of the same
    // row too: an application may go by the target's name.
    if std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink()) {
        let target = std::fs::canonicalize(&path)
            .map_err(|e| CanopyError::from_io(&e, "cannot follow the link"))?;
        if !rule_for(&target).is_some_and(|r| std::ptr::eq(r, rule)) {
            return Err(not_openable(
                "the link leads to a file whose name is not of the same kind",
            ));
        }
    }
    let size = st.st_size.max(0) as u64;
    let file = LocalFile::new(file, size);
    let head = read_at(&file, 0, OPEN_SNIFF_BYTES)?;
    check_content(rule, &head, head.len() as u64 >= size)?;
    match rule.content {
        Content::Zip(_, forbidden) => check_zip_names(&zip_directory(&file, size)?, forbidden)?,
        Content::Ooxml(_, forbidden) => {
            let entries = zip_directory(&file, size)?;
            check_zip_names(&entries, forbidden)?;
            check_ooxml_types(&file, size, &entries)?;
        }
        Content::Magic(_) | Content::Text => {}
    }
    // `xdg-open` goes by the type the system reads from the content, which
    // may not be the name's: it must be of the same family, and its
    // application is vetted too.
    let mime = desktop
        .filetype(&path)?
        .ok_or_else(|| not_openable("the system cannot tell what its content is"))?;
    check_system_type(rule, &mime)?;
    for mime in rule.mime.iter().copied().chain([mime.as_str()]) {
        desktop.check_default_for(mime)?;
    }
    Ok(path)
}

/// [`check_openable`] on a bounded worker (see [`crate::bounded`]): a file on
/// a mount that never answers costs the folder budget plus the handler query's,
/// then `TIMEOUT`; a path at or below one already stuck fails at once.
///
/// # Errors
/// As [`check_openable`], and `TIMEOUT` ("not responding").
pub fn check_openable_bounded(req: &FileRequest, desktop: Desktop) -> Result<PathBuf, CanopyError> {
    let path = decode_handle(&req.handle)?;
    let req = req.clone();
    let budget = crate::limits::TIME_BUDGET + crate::limits::HANDLER_QUERY_TIMEOUT;
    crate::bounded::call(crate::bounded::Place::path(&path), budget, move |_| {
        check_openable(&req, &desktop)
    })?
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_extension_is_lowercase_and_in_one_row_only() {
        let mut seen = std::collections::BTreeSet::new();
        for row in OPENABLE {
            assert!(
                !row.mime.is_empty(),
                "{:?} names its MIME types",
                row.extensions
            );
            for ext in row.extensions {
                assert_eq!(
                    *ext,
                    ext.to_ascii_lowercase(),
                    "extensions are compared lowercased"
                );
                assert!(seen.insert(*ext), ".{ext} is in two rows");
            }
        }
    }

    #[test]
    fn launchers_installers_macros_scripts_and_web_documents_are_not_in_the_table() {
        for ext in [
            "desktop",
            "appimage",
            "jar",
            "deb",
            "rpm",
            "run",
            "msi",
            "msp",
            "exe",
            "com",
            "scr",
            "lnk",
            "url",
            "hta",
            "wsf",
            "vbs",
            "vbe",
            "js",
            "jse",
            "inf",
            "reg",
            "jnlp",
            "flatpakref",
            "flatpakrepo",
            "pyz",
            "docm",
            "xlsm",
            "pptm",
            "dotm",
            "xltm",
            "potm",
            "ppsm",
            "doc",
            "xls",
            "ppt",
            "rtf",
            "html",
            "htm",
            "xhtml",
            "mht",
            "svg",
            "xml",
            "epub",
            "ps",
            "eps",
            "sh",
            "bash",
            "zsh",
            "fish",
            "csh",
            "ksh",
            "py",
            "pyw",
            "pl",
            "rb",
            "php",
            "mjs",
            "cjs",
            "lua",
            "tcl",
            "ps1",
            "psm1",
            "bat",
            "cmd",
            "command",
            "tool",
            "scpt",
            "apk",
            "bin",
            "elf",
            "so",
            "ko",
            "swf",
            "class",
            "applescript",
            "workflow",
            "kdesktop",
            "service",
        ] {
            assert!(
                rule_for(Path::new(&format!("x.{ext}"))).is_none(),
                ".{ext} must never be openable"
            );
        }
    }

    #[test]
    fn extension_case_is_ignored() {
        assert_eq!(
            rule_for(Path::new("A.PDF")).map(|r| r.family),
            Some(Family::Document)
        );
        assert!(rule_for(Path::new("no-extension")).is_none());
    }
}
