//! The grid view's thumbnails.
#![forbid(unsafe_code)]

use serde::Serialize;
use ts_rs::TS;

/// `thumbnail`'s answer: a small picture of an image file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct Thumbnail {
    /// `image/png`, or `image/svg+xml` for an SVG handed back as it is
    /// (drawn by an `<img>`, where none of its scripts runs).
    pub mime: String,
    /// The picture's bytes, base64.
    pub data: String,
    /// Taken from the freedesktop thumbnail cache (made earlier, by Canopy
    /// or another application), not made now.
    pub reused: bool,
}
