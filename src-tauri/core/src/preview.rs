//! The bounded preview: a chunk of one regular file, decoded and classified,
//! and whole images up to a cap.
//!
//! Promises:
//! - nothing but a regular file is ever opened. The path is opened `O_PATH |
//!   O_NOFOLLOW` (which runs no driver and releases no fifo writer), checked
//!   with `fstat`, and only a regular file is reopened for reading through
//!   `/proc/self/fd/N` (`O_RDONLY | O_NONBLOCK | O_NOCTTY`) and checked again.
//!   Without `/proc` nothing is read (`IO`): the path is never opened twice.
//!   A symlink is followed only by resolving it first, then the same checks.
//! - at most the requested length is read, whatever the file's size; a
//!   larger request is clamped to `MAX_PREVIEW_CHUNK` and the reply says so.
//! - a text chunk never ends inside a character: the tail is left for the
//!   next chunk, whose offset is `offset + length`.
#![forbid(unsafe_code)]

use std::io;
use std::path::Path;

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;

use crate::bounded::{self, Place};
use crate::error::{CanopyError, ErrorCode};
use crate::limits::{HEX_VIEW_BYTES, IMAGE_CAP, MAX_PREVIEW_CHUNK, SNIFF_BYTES, TIME_BUDGET};
use crate::names::decode_handle;
use crate::source::{Source, SourceFile};
pub use crate::wire::{
    FileRequest, ImageFormat, PreviewChunk, PreviewContent, PreviewRequest, TextEncoding,
};

/// Reads up to `len` bytes at `offset`, retrying short reads until EOF.
pub(crate) fn read_at(
    file: &impl SourceFile,
    offset: u64,
    len: usize,
) -> Result<Vec<u8>, CanopyError> {
    let mut buf = vec![0u8; len];
    let mut got = 0;
    while got < len {
        match file.read_at(&mut buf[got..], offset + got as u64) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
            Err(e) => return Err(CanopyError::from_io(&e, "cannot read file")),
        }
    }
    buf.truncate(got);
    Ok(buf)
}

/// Recognizes an image by its first bytes.
pub fn sniff_image(head: &[u8]) -> Option<ImageFormat> {
    let starts = |m: &[u8]| head.starts_with(m);
    if starts(b"\x89PNG\r\n\x1a\n") {
        Some(ImageFormat::Png)
    } else if starts(b"\xff\xd8\xff") {
        Some(ImageFormat::Jpeg)
    } else if starts(b"GIF87a") || starts(b"GIF89a") {
        Some(ImageFormat::Gif)
    } else if head.len() >= 12 && &head[..4] == b"RIFF" && &head[8..12] == b"WEBP" {
        Some(ImageFormat::Webp)
    } else if starts(b"BM") && head.len() >= 26 {
        Some(ImageFormat::Bmp)
    } else if starts(b"\x00\x00\x01\x00") && head.len() >= 6 {
        Some(ImageFormat::Ico)
    } else if looks_like_svg(head) {
        Some(ImageFormat::Svg)
    } else {
        None
    }
}

fn looks_like_svg(head: &[u8]) -> bool {
    let text = String::from_utf8_lossy(&head[..head.len().min(SNIFF_BYTES)]);
    let t = text.trim_start_matches('\u{feff}').trim_start();
    (t.starts_with("<?xml")
        || t.starts_with("<svg")
        || t.starts_with("<!--")
        || t.starts_with("<!DOCTYPE svg"))
        && t.contains("<svg")
}

/// Encoding from the file's first bytes: BOM, else UTF-8 if the sniffed
/// bytes are valid UTF-8 (an incomplete character at the end is fine), else
/// Windows-1252. `None` means binary (a NUL without a UTF-16 BOM).
pub(crate) fn sniff_encoding(head: &[u8]) -> Option<TextEncoding> {
    if head.starts_with(&[0xef, 0xbb, 0xbf]) {
        return Some(TextEncoding::Utf8);
    }
    if head.starts_with(&[0xff, 0xfe]) {
        return Some(TextEncoding::Utf16Le);
    }
    if head.starts_with(&[0xfe, 0xff]) {
        return Some(TextEncoding::Utf16Be);
    }
    if head.contains(&0) {
        return None;
    }
    match std::str::from_utf8(head) {
        Ok(_) => Some(TextEncoding::Utf8),
        Err(e) if e.error_len().is_none() => Some(TextEncoding::Utf8),
        Err(_) => Some(TextEncoding::Windows1252),
    }
}

const CP1252_HIGH: [u32; 32] = [
    0x20ac, 0xfffd, 0x201a, 0x0192, 0x201e, 0x2026, 0x2020, 0x2021, 0x02c6, 0x2030, 0x0160, 0x2039,
    0x0152, 0xfffd, 0x017d, 0xfffd, 0xfffd, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014,
    0x02dc, 0x2122, 0x0161, 0x203a, 0x0153, 0xfffd, 0x017e, 0x0178,
];

/// Decodes `bytes`; returns (text, bytes consumed, lossy). `at_end` says no
/// more bytes follow, so an incomplete character is decoded (lossily) rather
/// than left for the next chunk.
pub(crate) fn decode(bytes: &[u8], enc: TextEncoding, at_end: bool) -> (String, usize, bool) {
    match enc {
        TextEncoding::Utf8 => {
            let mut text = String::with_capacity(bytes.len());
            let mut lossy = false;
            let mut pos = 0;
            loop {
                match std::str::from_utf8(&bytes[pos..]) {
                    Ok(s) => {
                        text.push_str(s);
                        return (text, bytes.len(), lossy);
                    }
                    Err(e) => {
                        let good = pos + e.valid_up_to();
                        // SAFETY-free: from_utf8 just validated this prefix.
                        text.push_str(std::str::from_utf8(&bytes[pos..good]).unwrap_or_default());
                        match e.error_len() {
                            Some(n) => {
                                text.push(char::REPLACEMENT_CHARACTER);
                                lossy = true;
                                pos = good + n;
                            }
                            None if !at_end => return (text, good, lossy),
                            None => {
                                text.push(char::REPLACEMENT_CHARACTER);
                                return (text, bytes.len(), true);
                            }
                        }
                    }
                }
            }
        }
        TextEncoding::Utf16Le | TextEncoding::Utf16Be => {
            let even = bytes.len() & !1;
            let units: Vec<u16> = bytes[..even]
                .chunks_exact(2)
                .map(|p| {
                    if enc == TextEncoding::Utf16Le {
                        u16::from_le_bytes([p[0], p[1]])
                    } else {
                        u16::from_be_bytes([p[0], p[1]])
                    }
                })
                .collect();
            // Leave a lone high surrogate at the end for the next chunk.
            let mut n = units.len();
            if !at_end && n > 0 && (0xd800..0xdc00).contains(&units[n - 1]) {
                n -= 1;
            }
            let mut lossy = false;
            let text: String = char::decode_utf16(units[..n].iter().copied())
                .map(|r| {
                    r.unwrap_or_else(|_| {
                        lossy = true;
                        char::REPLACEMENT_CHARACTER
                    })
                })
                .collect();
            let consumed = if at_end { bytes.len() } else { n * 2 };
            (text, consumed, lossy || (at_end && even != bytes.len()))
        }
        TextEncoding::Windows1252 => {
            let mut lossy = false;
            let text = bytes
                .iter()
                .map(|&b| match b {
                    0x80..=0x9f => {
                        let cp = CP1252_HIGH[(b - 0x80) as usize];
                        lossy |= cp == 0xfffd;
                        char::from_u32(cp).unwrap_or(char::REPLACEMENT_CHARACTER)
                    }
                    _ => b as char,
                })
                .collect();
            (text, bytes.len(), lossy)
        }
    }
}

/// Reads one bounded chunk of a regular file.
///
/// # Errors
/// `INVALID_ARGUMENT` for a bad handle or a zero length; `NOT_A_FILE` for
/// folders and special files (never opened); the OS code otherwise.
pub fn read_preview(req: &PreviewRequest) -> Result<PreviewChunk, CanopyError> {
    if req.length == 0 {
        return Err(CanopyError::invalid("length must be at least 1"));
    }
    let path = decode_handle(&req.handle)?;
    read_chunk(
        &crate::LocalFs::new().open_file(&path)?,
        req.offset,
        req.length,
    )
}

/// Reads one chunk of the regular file at `path` in `source`, on a bounded
/// worker: the preview's front door. A file on a mount that never answers
/// costs `TIME_BUDGET`, then `TIMEOUT`; a path at or below one already
/// stuck fails at once. Only a regular file is opened for reading
/// ([`Source::open_file`]); a confined source follows no link on the way.
///
/// # Errors
/// `INVALID_ARGUMENT` for a zero length or an offset past the end;
/// `NOT_A_FILE` for anything but a regular file (never opened for reading);
/// `TIMEOUT` when the file does not answer; the source's code otherwise.
pub fn preview<S: Source>(
    source: &S,
    path: &Path,
    offset: u64,
    length: u64,
) -> Result<PreviewChunk, CanopyError> {
    if length == 0 {
        return Err(CanopyError::invalid("length must be at least 1"));
    }
    let (owned, source) = (path.to_path_buf(), source.clone());
    bounded::call(Place::path(path), TIME_BUDGET, move |_| {
        read_chunk(&source.open_file(&owned)?, offset, length)
    })?
}

/// Reads the whole image at `path` in `source` (up to `IMAGE_CAP`) and its
/// format, on a bounded worker, as [`preview`].
///
/// # Errors
/// `TOO_LARGE` past the cap; `INVALID_ARGUMENT` when the bytes are not an
/// image Canopy shows; as [`preview`] otherwise.
pub fn preview_image<S: Source>(
    source: &S,
    path: &Path,
) -> Result<(Vec<u8>, ImageFormat), CanopyError> {
    let (owned, source) = (path.to_path_buf(), source.clone());
    bounded::call(Place::path(path), TIME_BUDGET, move |_| {
        read_whole_image(&source.open_file(&owned)?)
    })?
}

/// Reads and classifies one chunk of an opened regular file.
fn read_chunk(
    file: &impl SourceFile,
    offset: u64,
    length: u64,
) -> Result<PreviewChunk, CanopyError> {
    let req = PreviewRequest {
        handle: String::new(),
        offset,
        length,
    };
    let size = file.size();
    let clamped = req.length > MAX_PREVIEW_CHUNK;
    let requested = req.length.min(MAX_PREVIEW_CHUNK);
    if size > 0 && req.offset > size {
        return Err(CanopyError::invalid(format!(
            "offset {} is past the end of the file ({size} bytes)",
            req.offset
        )));
    }
    // The encoding is a property of the file: sniff its start.
    let head = read_at(file, 0, SNIFF_BYTES)?;
    let encoding = sniff_encoding(&head);
    let image = sniff_image(&head);
    // A binary file is shown as hex, 4 KiB at a time: read no more than that.
    let want = if encoding.is_none() {
        requested.min(HEX_VIEW_BYTES)
    } else {
        requested
    };
    let chunk = read_at(file, req.offset, want as usize)?;
    let filled = chunk.len() as u64 == want;
    // A read that stops short has met the file's end (`read_at` reads on
    // until it is filled or a read returns nothing): where the size said
    // there was more, the file ended early. Nothing past that end is
    // offered, or the next chunk would start where this one did.
    let read_to = req.offset + chunk.len() as u64;
    let ended_at = (size > 0 && !filled && read_to < size).then_some(read_to);
    let at_end = if size > 0 {
        read_to >= size || ended_at.is_some()
    } else {
        !filled
    };
    // A chunk whose own first bytes hold a NUL is binary (UTF-16 excepted).
    let chunk_is_binary = match encoding {
        None => true,
        Some(TextEncoding::Utf16Le | TextEncoding::Utf16Be) => false,
        Some(_) => chunk[..chunk.len().min(SNIFF_BYTES)].contains(&0),
    };
    let (content, length) = if chunk_is_binary {
        let n = chunk.len().min(HEX_VIEW_BYTES as usize);
        (
            PreviewContent::Binary {
                base64: STANDARD.encode(&chunk[..n]),
            },
            n,
        )
    } else {
        let enc = encoding.unwrap_or(TextEncoding::Utf8);
        // A NUL later in the chunk turns the rest binary: stop the text there.
        let (body, cut_at_nul) = match enc {
            TextEncoding::Utf16Le | TextEncoding::Utf16Be => (&chunk[..], false),
            _ => match chunk.iter().position(|&b| b == 0) {
                Some(i) => (&chunk[..i], true),
                None => (&chunk[..], false),
            },
        };
        let skip_bom = if req.offset == 0 {
            match enc {
                TextEncoding::Utf8 if body.starts_with(&[0xef, 0xbb, 0xbf]) => 3,
                TextEncoding::Utf16Le | TextEncoding::Utf16Be => 2.min(body.len()),
                _ => 0,
            }
        } else {
            0
        };
        let (text, consumed, lossy) = decode(&body[skip_bom..], enc, at_end && !cut_at_nul);
        (
            PreviewContent::Text {
                text,
                encoding: enc,
                lossy,
            },
            skip_bom + consumed,
        )
    };
    let end = req.offset + length as u64;
    let more = if ended_at.is_some() {
        // Only what was read and not shown (text stopped at a NUL).
        end < read_to
    } else if size > 0 {
        end < size
    } else {
        filled || (length as u64) < chunk.len() as u64
    };
    let image_mime = image.map(|f| f.mime().to_string());
    Ok(PreviewChunk {
        offset: req.offset,
        length: length as u64,
        requested,
        clamped,
        size,
        more,
        ended_at,
        image,
        image_mime,
        media: crate::media::sniff_media(&head),
        content,
    })
}

/// Reads a whole image (up to `IMAGE_CAP`) and its format.
///
/// # Errors
/// `TOO_LARGE` past the cap; `INVALID_ARGUMENT` when the bytes are not an
/// image Canopy shows; as [`read_preview`] otherwise.
pub fn read_image(req: &FileRequest) -> Result<(Vec<u8>, ImageFormat), CanopyError> {
    let path = decode_handle(&req.handle)?;
    read_whole_image(&crate::LocalFs::new().open_file(&path)?)
}

/// Reads a whole opened image (up to `IMAGE_CAP`) and its format.
fn read_whole_image(file: &impl SourceFile) -> Result<(Vec<u8>, ImageFormat), CanopyError> {
    let size = file.size();
    if size > IMAGE_CAP {
        return Err(CanopyError::new(
            ErrorCode::TooLarge,
            format!("the image is {size} bytes; images over {IMAGE_CAP} bytes are not shown"),
        ));
    }
    // Read one byte past the cap to notice a file that grew.
    let bytes = read_at(file, 0, (size.max(1) + 1).min(IMAGE_CAP + 1) as usize)?;
    if bytes.len() as u64 > IMAGE_CAP {
        return Err(CanopyError::new(
            ErrorCode::TooLarge,
            "the image grew past the size Canopy shows",
        ));
    }
    let format = sniff_image(&bytes)
        .ok_or_else(|| CanopyError::invalid("this file is not an image Canopy can show"))?;
    Ok((bytes, format))
}

/// [`read_preview`] on a bounded worker (see [`crate::bounded`]): a file on a
/// mount that never answers costs `TIME_BUDGET`, then `TIMEOUT`; a path at or
/// below one already stuck fails at once.
///
/// # Errors
/// As [`read_preview`], and `TIMEOUT` ("not responding").
pub fn read_preview_bounded(req: &PreviewRequest) -> Result<PreviewChunk, CanopyError> {
    preview(
        &crate::LocalFs::new(),
        &decode_handle(&req.handle)?,
        req.offset,
        req.length,
    )
}

/// [`read_image`] on a bounded worker, as [`read_preview_bounded`].
///
/// # Errors
/// As [`read_image`], and `TIMEOUT` ("not responding").
pub fn read_image_bounded(req: &FileRequest) -> Result<(Vec<u8>, ImageFormat), CanopyError> {
    preview_image(&crate::LocalFs::new(), &decode_handle(&req.handle)?)
}
