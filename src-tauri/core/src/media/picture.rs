//! A photo the window cannot decode (TIFF, HEIF/HEIC, AVIF) through
//! libvips in the sandbox: `vips thumbnail` decodes it (libtiff, libheif
//! with libde265, dav1d or aom), shrinks it on load to the pane's width and
//! turns it as its EXIF orientation says; its PNG is decoded and encoded
//! again here, so the window only ever decodes Canopy's own PNG. The
//! format is told by the file's first bytes; the tool gets its `/dev/fd/N`
//! and writes to a name in its private folder that leads to its pipe
//! (`sandbox::run_writing_to`), so it still writes no byte to a file.
#![forbid(unsafe_code)]

use std::ffi::OsString;
use std::path::Path;

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;

use super::{descriptor, finished, open_with_head, reencode, start_error, tool};
use crate::cancel::CancelToken;
use crate::error::{CanopyError, ErrorCode};
use crate::limits::{
    MAX_RENDER_WIDTH, MIN_RENDER_WIDTH, PHOTO_RENDER_TALL, RENDER_DEADLINE, RENDER_OUTPUT_CAP,
};
use crate::source::Source;
use crate::sys::sandbox::{self, RenderJob, RenderOutcome, FILE_ARG};
use crate::wire::PhotoRender;

/// The Debian package with `vips`.
const VIPS: &str = "libvips-tools";

/// The photo formats the window cannot decode that the renderer draws,
/// told by their first bytes.
pub fn undecoded_photo(head: &[u8]) -> Option<&'static str> {
    if head.starts_with(b"II*\0") || head.starts_with(b"MM\0*") {
        return Some("TIFF");
    }
    if head.len() >= 12 && &head[4..8] == b"ftyp" {
        return match &head[8..12] {
            b"avif" | b"avis" => Some("AVIF"),
            b"heic" | b"heix" | b"heim" | b"heis" | b"mif1" | b"msf1" => Some("HEIF"),
            _ => None,
        };
    }
    None
}

/// A TIFF, HEIF or AVIF photo drawn by `vips` in the sandbox, `width`
/// pixels wide at most (clamped to `MIN_RENDER_WIDTH..=MAX_RENDER_WIDTH`;
/// never enlarged), its EXIF orientation applied.
///
/// # Errors
/// `TOOL_MISSING` without libvips-tools; `NOT_A_FILE` for anything but a
/// regular file (never opened); `UNSUPPORTED` when its first bytes are no
/// such photo (the window shows the others itself); `RENDER_FAILED` when
/// `vips` has no decoder for it or cannot read it (cut, damaged, claiming
/// more pixels than its memory holds) or crashes, or its PNG does not
/// decode; `TIMEOUT`; `TOO_LARGE` past `RENDER_OUTPUT_CAP`; `CANCELLED`.
pub fn photo_render<S: Source>(
    source: &S,
    path: &Path,
    width: u32,
    cancel: Option<&CancelToken>,
) -> Result<PhotoRender, CanopyError> {
    let width = width.clamp(MIN_RENDER_WIDTH, MAX_RENDER_WIDTH);
    let program = tool("vips", VIPS)?;
    let (file, head) = open_with_head(source, path, 16)?;
    let format = undecoded_photo(&head).ok_or_else(|| {
        CanopyError::new(
            ErrorCode::Unsupported,
            "this file's first bytes are no TIFF, HEIF or AVIF photo",
        )
    })?;
    let w = width.to_string();
    let h = (width * PHOTO_RENDER_TALL).to_string();
    let job = RenderJob {
        program: &program,
        args: [
            "thumbnail",
            FILE_ARG,
            "photo.png",
            w.as_str(),
            "--height",
            h.as_str(),
            "--size",
            "down",
        ]
        .iter()
        .map(OsString::from)
        // One worker thread: the child's address space is bounded. No
        // vector code: liborc writes the code it makes to a file, which the
        // renderer's `RLIMIT_FSIZE` 0 refuses (the child would die of SIGXFSZ).
        .chain([
            OsString::from("--vips-concurrency=1"),
            OsString::from("--vips-novector"),
        ])
        .collect(),
        file: Some(descriptor(&*file)?),
        max_output: RENDER_OUTPUT_CAP,
        deadline: RENDER_DEADLINE,
        cancel,
    };
    let done = sandbox::run_writing_to(&job, "photo.png").map_err(|e| start_error("vips", e))?;
    let done = match done.outcome {
        RenderOutcome::Exited(code) if code != 0 => {
            let said = String::from_utf8_lossy(&done.stderr);
            let line: String = said
                .lines()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("")
                .chars()
                .filter(|c| !c.is_control())
                .take(200)
                .collect();
            return Err(CanopyError::new(
                ErrorCode::RenderFailed,
                format!("vips cannot draw this {format} photo: it has no decoder for it here, or the file is cut or damaged (it said: {line})"),
            ));
        }
        _ => finished("vips", done)?,
    };
    if done.stdout.is_empty() {
        return Err(CanopyError::new(
            ErrorCode::RenderFailed,
            format!("vips drew nothing for this {format} photo"),
        ));
    }
    let (png, out_w, out_h) = reencode(&done.stdout, width, "photo")?;
    Ok(PhotoRender {
        format: format.to_string(),
        width: out_w,
        height: out_h,
        png_base64: STANDARD.encode(png),
        network_isolated: done.network_isolated,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn undecoded_photos_are_told_by_their_first_bytes() {
        assert_eq!(undecoded_photo(b"II*\0\x08\0\0\0"), Some("TIFF"));
        assert_eq!(undecoded_photo(b"MM\0*\0\0\0\x08"), Some("TIFF"));
        assert_eq!(undecoded_photo(b"\0\0\0\x1cftypheic\0\0\0\0"), Some("HEIF"));
        assert_eq!(undecoded_photo(b"\0\0\0\x1cftypavif\0\0\0\0"), Some("AVIF"));
        assert_eq!(
            undecoded_photo(b"\0\0\0\x1cftypisom\0\0\0\0"),
            None,
            "an MP4"
        );
        assert_eq!(
            undecoded_photo(b"\xff\xd8\xff\xe0"),
            None,
            "the window shows a JPEG"
        );
    }
}
