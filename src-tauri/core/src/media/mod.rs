//! The files people actually open, previewed as they are: a PDF's pages and
//! facts through the sandboxed renderer (`sys::sandbox`), a photo's EXIF
//! details read with a budget, an audio file's tags, a video's facts
//! (`ffprobe`) and poster frame (`ffmpegthumbnailer`) through the renderer,
//! a photo the window cannot decode (TIFF, HEIF, AVIF: `vips`) and a font's
//! facts (`fc-query`) and sample line (`hb-view`) through it too.
//!
//! The front door for each: [`pdf_document`], [`pdf_page`], [`photo_details`],
//! [`photo_render`], [`audio_details`], [`video_details`], [`video_poster`],
//! [`font_preview`],
//! over any [`Source`] whose files are on the local disk. Each opens the
//! file with the source's one regular-file open on a bounded worker (a fifo
//! or a device is never opened; a dead mount costs `TIME_BUDGET`), so the
//! renderer's child is handed a descriptor, never a path.
#![forbid(unsafe_code)]

mod audio;
mod container;
mod font;
mod pdf;
mod photo;
mod picture;
mod stream;
mod video;

use std::path::Path;
use std::sync::Arc;

use crate::bounded::{self, Place};
use crate::error::{CanopyError, ErrorCode};
use crate::limits::TIME_BUDGET;
use crate::source::{Source, SourceFile};
use crate::sys::sandbox::{self, RenderOutcome, Rendered};

pub use audio::audio_details;
pub use container::{video_container, Container};
pub use font::{font_container, font_preview, PANGRAM};
pub use pdf::{pdf_document, pdf_page};
pub use photo::photo_details;
pub use picture::{photo_render, undecoded_photo};
pub use stream::{media_mime, open_stream, parse_range, read_range, RangeReply};
pub use video::{video_details, video_poster};

/// Which media a file's first bytes say it is, if any.
pub fn sniff_media(head: &[u8]) -> Option<crate::wire::MediaKind> {
    use crate::wire::MediaKind;
    // A PDF may have junk before its header; readers look in its first KiB.
    let window = &head[..head.len().min(1024)];
    if window.windows(5).any(|w| w == b"%PDF-") {
        return Some(MediaKind::Pdf);
    }
    if container::video_container(head).is_some() {
        return Some(MediaKind::Video);
    }
    if font::font_container(head).is_some() {
        return Some(MediaKind::Font);
    }
    let jpeg = head.starts_with(b"\xff\xd8\xff");
    let tiff = head.starts_with(b"II*\0") || head.starts_with(b"MM\0*");
    let heif = head.len() >= 12
        && &head[4..8] == b"ftyp"
        && matches!(
            &head[8..12],
            b"heic" | b"heix" | b"mif1" | b"msf1" | b"avif"
        );
    if jpeg || tiff || heif {
        return Some(MediaKind::Photo);
    }
    let wave = head.len() >= 12 && &head[..4] == b"RIFF" && &head[8..12] == b"WAVE";
    let m4a =
        head.len() >= 12 && &head[4..8] == b"ftyp" && matches!(&head[8..12], b"M4A " | b"M4B ");
    // An MPEG audio frame's sync: 11 set bits, then layer III or II. Layer I
    // (`FF FE`, `FF FF`) is left out: `FF FE` is also UTF-16LE text's mark.
    let mpeg = head.len() >= 2
        && head[0] == 0xff
        && head[1] & 0xe0 == 0xe0
        && matches!(head[1] & 0x06, 0x02 | 0x04);
    let audio = head.starts_with(b"ID3")
        || head.starts_with(b"fLaC")
        || head.starts_with(b"OggS")
        || wave
        || m4a
        || mpeg;
    audio.then_some(MediaKind::Audio)
}

/// Opens the regular file at `path` on a bounded worker.
fn open<S: Source>(source: &S, path: &Path) -> Result<S::File, CanopyError> {
    let (owned, source) = (path.to_path_buf(), source.clone());
    bounded::call(Place::path(path), TIME_BUDGET, move |_| {
        source.open_file(&owned)
    })?
}

/// Opens the regular file at `path` and reads its first `len` bytes (what
/// tells its kind), each on a bounded worker.
fn open_with_head<S: Source>(
    source: &S,
    path: &Path,
    len: usize,
) -> Result<(Arc<S::File>, Vec<u8>), CanopyError> {
    let file = Arc::new(open(source, path)?);
    let f = file.clone();
    let head = bounded::call(Place::path(path), TIME_BUDGET, move |_| {
        crate::preview::read_at(&*f, 0, len)
    })??;
    Ok((file, head))
}

/// The program `tool` of the Debian package `package`, or `TOOL_MISSING`.
fn tool(tool: &str, package: &str) -> Result<std::path::PathBuf, CanopyError> {
    sandbox::find_tool(tool).ok_or_else(|| {
        CanopyError::new(
            ErrorCode::ToolMissing,
            format!("{tool} is not installed: install the Debian package {package} (sudo apt-get install {package})"),
        )
    })
}

/// The open file's descriptor for the renderer: files on the local disk only.
fn descriptor(file: &impl SourceFile) -> Result<&std::fs::File, CanopyError> {
    file.descriptor().ok_or_else(|| {
        CanopyError::new(
            ErrorCode::Unsupported,
            "only a file on the disk is rendered (not an archive's entry or a remote file)",
        )
    })
}

/// The job's output when it did its job, or why not.
fn finished(what: &str, done: Rendered) -> Result<Rendered, CanopyError> {
    let said = || {
        let tail = String::from_utf8_lossy(&done.stderr);
        let line = tail
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("");
        let line: String = line.chars().take(200).collect();
        if line.is_empty() {
            String::new()
        } else {
            format!(" (it said: {line})")
        }
    };
    match done.outcome {
        RenderOutcome::Exited(0) => Ok(done),
        RenderOutcome::Exited(code) => Err(CanopyError::new(
            ErrorCode::RenderFailed,
            format!("{what} failed with status {code}{}", said()),
        )),
        RenderOutcome::Signalled(sig) if sig == libc::SIGXCPU => Err(CanopyError::new(
            ErrorCode::RenderFailed,
            format!("{what} used up its CPU time and was stopped"),
        )),
        RenderOutcome::Signalled(sig)
            if sig == libc::SIGKILL || sig == libc::SIGSEGV || sig == libc::SIGABRT =>
        {
            Err(CanopyError::new(
                ErrorCode::RenderFailed,
                format!(
                    "{what} crashed or ran out of its memory (signal {sig}){}",
                    said()
                ),
            ))
        }
        RenderOutcome::Signalled(sig) => Err(CanopyError::new(
            ErrorCode::RenderFailed,
            format!("{what} was ended by signal {sig}"),
        )),
        RenderOutcome::TimedOut => Err(CanopyError::new(
            ErrorCode::Timeout,
            format!(
                "{what} took longer than {} s and was stopped",
                crate::limits::RENDER_DEADLINE.as_secs()
            ),
        )),
        RenderOutcome::TooMuchOutput => Err(CanopyError::new(
            ErrorCode::TooLarge,
            format!(
                "{what} wrote more than {} MiB and was stopped",
                crate::limits::RENDER_OUTPUT_CAP >> 20
            ),
        )),
        RenderOutcome::Cancelled => Err(CanopyError::cancelled()),
    }
}

fn start_error(what: &str, e: std::io::Error) -> CanopyError {
    CanopyError::new(ErrorCode::RenderFailed, format!("cannot start {what}: {e}"))
}

/// Decodes the renderer's PNG (a page, a poster frame, a photo, a font's
/// sample) (within `RENDER_DECODE_BYTES`) and encodes it
/// again, no wider than `width`: the window decodes only this.
pub(super) fn reencode(
    png: &[u8],
    width: u32,
    what: &str,
) -> Result<(Vec<u8>, u32, u32), CanopyError> {
    let bad = |e: image::ImageError| {
        CanopyError::new(
            ErrorCode::RenderFailed,
            format!("the renderer's {what} does not decode: {e}"),
        )
    };
    let mut reader =
        image::ImageReader::with_format(std::io::Cursor::new(png), image::ImageFormat::Png);
    let mut limits = image::Limits::default();
    limits.max_alloc = Some(crate::limits::RENDER_DECODE_BYTES);
    limits.max_image_width = Some(crate::limits::MAX_RENDER_WIDTH * 4);
    limits.max_image_height = Some(crate::limits::MAX_RENDER_WIDTH * 16);
    reader.limits(limits);
    let mut img = reader.decode().map_err(bad)?;
    if img.width() > width {
        img = img.resize(width, u32::MAX, image::imageops::FilterType::Triangle);
    }
    let rgba = img.to_rgba8();
    let mut out = Vec::new();
    // Fast deflate: the PNG crosses IPC once and is decoded once; a smaller
    // file is not worth the time on the way to the screen.
    image::codecs::png::PngEncoder::new_with_quality(
        &mut out,
        image::codecs::png::CompressionType::Fast,
        image::codecs::png::FilterType::Adaptive,
    )
    .write_image(
        rgba.as_raw(),
        rgba.width(),
        rgba.height(),
        image::ExtendedColorType::Rgba8,
    )
    .map_err(bad)?;
    Ok((for_window(out, what)?, rgba.width(), rgba.height()))
}

/// The PNG Canopy encoded for the window, or `TOO_LARGE` past
/// `WINDOW_IMAGE_CAP` (a tall, noisy page or photo would otherwise cross IPC
/// whole, however large).
pub(super) fn for_window(png: Vec<u8>, what: &str) -> Result<Vec<u8>, CanopyError> {
    if png.len() > crate::limits::WINDOW_IMAGE_CAP {
        return Err(CanopyError::new(
            ErrorCode::TooLarge,
            format!(
                "this {what}'s image takes {} MiB, more than the {} MiB shown",
                png.len() >> 20,
                crate::limits::WINDOW_IMAGE_CAP >> 20
            ),
        ));
    }
    Ok(png)
}

use image::ImageEncoder as _;

#[cfg(test)]
mod sniff_tests {
    use super::sniff_media;
    use crate::wire::MediaKind;

    #[test]
    fn utf16le_text_is_not_taken_for_mpeg_audio() {
        // "Grüße" in UTF-16LE with its byte order mark: FF FE looks like a frame sync.
        let text: Vec<u8> = [0xff, 0xfe]
            .into_iter()
            .chain("Grüße".encode_utf16().flat_map(u16::to_le_bytes))
            .collect();
        assert_eq!(sniff_media(&text), None);
        // An MP3 frame (MPEG-1 layer III) still is audio.
        assert_eq!(
            sniff_media(&[0xff, 0xfb, 0x90, 0x64]),
            Some(MediaKind::Audio)
        );
    }
}
