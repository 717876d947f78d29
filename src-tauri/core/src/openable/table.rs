//! The allowlist: each row names its extensions, the family of thing a
//! person opens, the types the system may read for it, and the content its
//! bytes must start with (magic numbers, UTF-8 text, a zip without macros).
//! What is not a row here never opens.

use std::os::unix::ffi::OsStrExt;
use std::path::Path;

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
/// the macro types (see `zip::OOXML_MACRO_TYPES`) are looked for in `[Content_Types].xml` too.
const OOXML_MACROS: &[ZipName] = &[ZipName::EndsWith("vbaproject.bin")];
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

/// The allowlist row for a file name, by its last extension (ASCII case ignored).
pub fn rule_for(path: &Path) -> Option<&'static Openable> {
    let ext = path.extension()?.as_bytes().to_ascii_lowercase();
    OPENABLE
        .iter()
        .find(|o| o.extensions.iter().any(|e| e.as_bytes() == ext.as_slice()))
}
