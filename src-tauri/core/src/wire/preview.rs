//! A bounded read of a file, as the preview pane asks for it and gets it.
#![forbid(unsafe_code)]

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// `read_preview`'s request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[ts(export)]
pub struct PreviewRequest {
    pub handle: String,
    #[serde(default)]
    pub offset: u64,
    #[serde(default = "default_length")]
    pub length: u64,
}

/// `read_image`'s (and the file actions') request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[ts(export)]
pub struct FileRequest {
    pub handle: String,
}

/// Image formats recognized by their magic bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub enum ImageFormat {
    Png,
    Jpeg,
    Gif,
    Webp,
    Bmp,
    Ico,
    Svg,
}

impl ImageFormat {
    pub fn mime(self) -> &'static str {
        match self {
            ImageFormat::Png => "image/png",
            ImageFormat::Jpeg => "image/jpeg",
            ImageFormat::Gif => "image/gif",
            ImageFormat::Webp => "image/webp",
            ImageFormat::Bmp => "image/bmp",
            ImageFormat::Ico => "image/x-icon",
            ImageFormat::Svg => "image/svg+xml",
        }
    }
}

/// The text encodings a preview decodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
pub enum TextEncoding {
    #[serde(rename = "utf-8")]
    Utf8,
    #[serde(rename = "utf-16le")]
    Utf16Le,
    #[serde(rename = "utf-16be")]
    Utf16Be,
    /// Bytes that are not UTF-8 and have no BOM are read as Windows-1252.
    #[serde(rename = "windows-1252")]
    Windows1252,
}

/// A chunk's content, classified.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(tag = "type", rename_all = "camelCase")]
#[ts(export)]
pub enum PreviewContent {
    /// Decoded text.
    #[serde(rename_all = "camelCase")]
    Text {
        text: String,
        encoding: TextEncoding,
        /// Some bytes could not be decoded and were replaced by U+FFFD.
        lossy: bool,
    },
    /// Bytes for the hex view (at most `HEX_VIEW_BYTES`), base64.
    #[serde(rename_all = "camelCase")]
    Binary { base64: String },
}

/// A bounded chunk of one file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct PreviewChunk {
    pub offset: u64,
    /// Bytes of the file this chunk covers; the next chunk starts at `offset + length`.
    pub length: u64,
    /// The length asked for after clamping to `MAX_PREVIEW_CHUNK`.
    pub requested: u64,
    /// True when the request asked for more than `MAX_PREVIEW_CHUNK`.
    pub clamped: bool,
    /// The file's size as `fstat` reports it (0 for many `/proc` files).
    pub size: u64,
    /// There is more after this chunk.
    pub more: bool,
    /// The file ended at this byte, before the `size` it reports (it shrank
    /// while it was read, or its server's size is wrong): nothing past it
    /// is offered, whatever `size` says.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub ended_at: Option<u64>,
    /// The file's magic bytes say it is an image the UI can show.
    pub image: Option<ImageFormat>,
    /// That image's MIME type (`image/png`...), for the UI's image element.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub image_mime: Option<String>,
    /// The file's first bytes say it is a PDF or a photo: the pane asks
    /// for its pages or details too.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub media: Option<crate::wire::MediaKind>,
    pub content: PreviewContent,
}

fn default_length() -> u64 {
    crate::limits::PREVIEW_CHUNK
}

/// What an archive is, for its preview pane: as its index counted it, and
/// as it claims (sizes are what the archive says its entries hold).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ArchiveSummary {
    pub format: crate::wire::ArchiveFormat,
    /// Entries in the archive's directory (or read of a tar's stream).
    #[ts(type = "number")]
    pub entries: u64,
    #[ts(type = "number")]
    pub files: u64,
    /// Folders, those only implied by an entry's path included.
    #[ts(type = "number")]
    pub folders: u64,
    #[ts(type = "number")]
    pub links: u64,
    /// The total uncompressed size the archive claims for its entries.
    #[ts(type = "number")]
    pub size: u64,
    /// The archive file's own size.
    #[ts(type = "number")]
    pub archive_size: u64,
    /// Entries whose content is encrypted (their names are listed).
    #[ts(type = "number")]
    pub encrypted: u64,
    /// Entries listed as `UNSAFE_NAME`.
    #[ts(type = "number")]
    pub unsafe_names: u64,
    /// The archive's comment, as text (a zip's).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub comment: Option<String>,
    /// What the end record claims when it disagrees with the entries found.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "number")]
    pub claimed_entries: Option<u64>,
    /// For a tar: how many uncompressed bytes the index read.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "number")]
    pub read_bytes: Option<u64>,
    /// Why the index stops short of the archive's end (damage, time, the ratio guard).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub problem: Option<crate::wire::CanopyError>,
}
