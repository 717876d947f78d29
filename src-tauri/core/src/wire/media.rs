//! What the window is told of the files people actually open: a PDF's
//! facts and pages, a photo's EXIF details, a font's facts and sample. Rendered by the sandboxed
//! renderer (`sys::sandbox`) or read with a budget (`media`).
#![forbid(unsafe_code)]

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// What a file is besides its bytes, told by its first bytes: the preview
/// pane shows these with a view of their own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub enum MediaKind {
    /// A PDF document (`%PDF-`): pages rendered by the sandboxed renderer.
    Pdf,
    /// A photo format that carries EXIF details (JPEG, TIFF, HEIF).
    Photo,
    /// An audio file whose tags Canopy reads (MP3, FLAC, Ogg, WAV, M4A).
    Audio,
    /// A video (MP4, QuickTime, WebM, Matroska, AVI, Ogg Theora...): its
    /// facts and a poster frame by the sandboxed renderer.
    Video,
    /// A font (TrueType, OpenType, a collection, WOFF, WOFF2), told by its
    /// first bytes: its facts and a sample line by the sandboxed renderer,
    /// never loaded into the window.
    Font,
}

/// A request about one media file: its handle, a page (from 1) and the
/// width in pixels the pane shows it at, and an id to cancel it by.
#[derive(Debug, Clone, Deserialize, TS)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[ts(export)]
pub struct MediaRequest {
    pub handle: String,
    #[serde(default = "first_page")]
    pub page: u32,
    #[serde(default = "default_width")]
    pub width: u32,
    /// Given to `cancel_render` to stop the job (its child is killed).
    #[serde(default)]
    #[ts(type = "number")]
    pub request_id: u64,
}

fn first_page() -> u32 {
    1
}

fn default_width() -> u32 {
    800
}

/// Stops a render job in flight: it answers `CANCELLED`.
#[derive(Debug, Clone, Deserialize, TS)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[ts(export)]
pub struct RenderCancel {
    #[ts(type = "number")]
    pub request_id: u64,
}

/// A PDF's facts, as `pdfinfo` tells them.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct PdfDocument {
    pub title: Option<String>,
    pub author: Option<String>,
    pub pages: u32,
    /// "1.7"...
    pub version: Option<String>,
    pub encrypted: bool,
    /// The renderer ran with no network (a namespace of its own); false
    /// where the kernel allows none, and the pane says so.
    pub network_isolated: bool,
}

/// One rendered page of a PDF: a PNG Canopy encoded itself at the pane's
/// width, and the page's text.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct PdfPage {
    pub page: u32,
    pub width: u32,
    pub height: u32,
    /// The page as a PNG, base64 (decoded and encoded again by the app:
    /// the window never decodes the renderer's own bytes).
    pub png_base64: String,
    /// The page's text (at most `PDF_PAGE_TEXT_CAP` bytes).
    pub text: String,
    /// The text was longer and was cut.
    pub text_cut: bool,
    /// Why the text is missing, when the page rendered but its text did not.
    pub text_problem: Option<String>,
    pub network_isolated: bool,
}

/// A photo's details, from its EXIF (each `None` when the photo does not say).
#[derive(Debug, Clone, PartialEq, Default, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct PhotoDetails {
    /// The photo carries EXIF details at all.
    pub has_exif: bool,
    /// "Canon EOS 5D Mark IV".
    pub camera: Option<String>,
    pub lens: Option<String>,
    /// "1/125 s · f/2.8 · ISO 100 · 35 mm".
    pub exposure: Option<String>,
    /// As the camera wrote it, "2024-05-01 14:03:22" (+ its offset when given).
    pub taken_at: Option<String>,
    pub width: Option<u32>,
    pub height: Option<u32>,
    /// EXIF orientation 1..8 (the preview applies it), and in words.
    pub orientation: Option<u16>,
    pub orientation_label: Option<String>,
    /// Where the photo was taken, when it says.
    pub gps: Option<GpsPosition>,
}

/// A position in decimal degrees (north and east positive).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct GpsPosition {
    pub latitude: f64,
    pub longitude: f64,
    /// Metres above sea level.
    pub altitude: Option<f64>,
}

/// An audio file's tags and properties (each `None` when it does not say).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct AudioDetails {
    pub title: Option<String>,
    pub artist: Option<String>,
    pub album: Option<String>,
    pub track: Option<u32>,
    pub track_total: Option<u32>,
    #[ts(type = "number | null")]
    pub duration_ms: Option<u64>,
    /// "FLAC", "MPEG audio (MP3)"...
    pub codec: String,
    pub bit_rate_kbps: Option<u32>,
    pub sample_rate: Option<u32>,
    pub channels: Option<u8>,
    /// The embedded cover, when it is an image the window shows (told by
    /// its own bytes) of at most `COVER_ART_CAP`.
    pub cover: Option<AudioCover>,
    /// A cover was there but larger than `COVER_ART_CAP`: left out.
    pub cover_too_large: bool,
}

/// Where the window's `<audio>` plays the selected file from: a
/// `canopy-media:` URL naming the one stream open.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct MediaStreamUrl {
    pub url: String,
}

/// An embedded cover image.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct AudioCover {
    pub mime: String,
    pub base64: String,
}

/// A video's facts, as `ffprobe` tells them in the sandbox (each `None`
/// when the file does not say).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct VideoDetails {
    /// The container, told by the file's first bytes: "MP4", "WebM"...
    pub container: String,
    #[ts(type = "number | null")]
    pub duration_ms: Option<u64>,
    /// The picture as shown (a rotation of 90° swaps width and height).
    pub width: Option<u32>,
    pub height: Option<u32>,
    /// "H.264 (High)", "VP9"...; `None` when there is no video stream.
    pub video_codec: Option<String>,
    /// "25 fps".
    pub frame_rate: Option<String>,
    /// "AAC · 48 kHz · stereo"; `None` when there is no sound.
    pub audio_codec: Option<String>,
    pub bit_rate_kbps: Option<u32>,
    /// The container's MIME type with the codecs (RFC 6381 names), for the
    /// window to ask its player whether it can play them (`canPlayType`):
    /// `video/mp4; codecs="avc1.64000c, mp4a.40.2"`. Without `codecs` when
    /// a codec has no such name.
    pub play_mime: String,
    /// The renderer ran with no network (see `PdfDocument`).
    pub network_isolated: bool,
}

/// A video's poster frame: a PNG Canopy encoded itself at the pane's width
/// from the frame `ffmpegthumbnailer` picked in the sandbox.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct VideoPoster {
    pub width: u32,
    pub height: u32,
    pub png_base64: String,
    pub network_isolated: bool,
}

/// A photo the window cannot decode (TIFF, HEIF, AVIF), rendered by the
/// sandboxed renderer (`vips`) and encoded again by Canopy as a PNG at the
/// pane's width, its EXIF orientation applied.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct PhotoRender {
    /// The format its first bytes say: "TIFF", "HEIF", "AVIF".
    pub format: String,
    pub width: u32,
    pub height: u32,
    pub png_base64: String,
    pub network_isolated: bool,
}

/// A font's facts as `fc-query` (fontconfig) reads them in the sandbox,
/// and a sample line `hb-view` (HarfBuzz) drew with it there: the window
/// never loads the font itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct FontPreview {
    /// What its first bytes say: "TrueType", "OpenType (CFF)", "WOFF2",
    /// "TrueType collection"...
    pub container: String,
    /// The family of its first face, as fontconfig names it.
    pub family: String,
    /// "Bold Italic"...
    pub style: Option<String>,
    pub full_name: Option<String>,
    /// Its weight on the OpenType scale (400 regular, 700 bold); for a
    /// variable font, the lightest it goes.
    pub weight: Option<u16>,
    /// For a variable font, the heaviest it goes.
    pub weight_to: Option<u16>,
    /// "italic" or "oblique"; `None` for upright.
    pub slant: Option<String>,
    pub monospaced: bool,
    /// A variable font (its design axes can be set).
    pub variable: bool,
    /// A variable font's named instances ("Light", "Bold"...) seen.
    pub named_instances: u32,
    /// The faces in the file (more than 1 for a collection).
    pub faces: u32,
    /// The characters its first face covers (fontconfig's charset).
    pub characters: Option<u32>,
    /// "2.370": its own version (the `head` table's revision).
    pub version: Option<String>,
    /// The text of the sample: a pangram and the digits, or the first
    /// characters the font has when it has no Latin letters.
    pub sample_text: String,
    /// The sample as drawn, when it could be.
    pub sample: Option<FontSample>,
    /// Why there is no sample (the renderer crashed, hung, is missing).
    pub sample_error: Option<crate::wire::CanopyError>,
    pub network_isolated: bool,
}

/// A font's sample line: a PNG Canopy encoded itself from `hb-view`'s.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct FontSample {
    pub width: u32,
    pub height: u32,
    pub png_base64: String,
}
