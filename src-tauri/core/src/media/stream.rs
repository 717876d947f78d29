//! Byte ranges of one already-opened file, for the window's `<audio>` and
//! `<video>`: the
//! media a page plays is fetched from the app's `canopy-media:` protocol
//! (see the shell's `media_stream.rs`) range by range, never from a
//! `file://` URL. (WebKitGTK's media player reads no custom protocol
//! itself, so the page joins the ranges into a `blob:`, up to
//! `MEDIA_PLAY_CAP`.)
//!
//! Promises: a range is parsed from an HTTP `Range` header (one
//! `bytes=START-END`, `bytes=START-` or `bytes=-SUFFIX`), clamped to the
//! file and to `MEDIA_RANGE_CAP` bytes a request; anything else (several
//! ranges, another unit, a start past the end) is refused. Reads go through
//! the file opened when the stream was (a rename or a swapped link later
//! changes nothing), on a bounded worker.
#![forbid(unsafe_code)]

use std::path::Path;
use std::sync::Arc;

use crate::bounded::{self, Place};
use crate::error::{CanopyError, ErrorCode};
use crate::limits::{
    MEDIA_PLAY_CAP, MEDIA_RANGE_CAP, TIME_BUDGET, VIDEO_HEAD_BYTES, VIDEO_PLAY_CAP,
};
use crate::source::{Source, SourceFile};

/// One answered range: bytes `start..=end` of a file of `total` bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RangeReply {
    pub start: u64,
    pub end: u64,
    pub total: u64,
    pub bytes: Vec<u8>,
}

/// The regular file at `path`, opened (on a bounded worker) to be streamed,
/// and the MIME type its first bytes say.
///
/// # Errors
/// `NOT_A_FILE` for anything but a regular file (never opened); `TIMEOUT`;
/// `UNSUPPORTED` when its first bytes are neither audio nor video;
/// `TOO_LARGE` past `MEDIA_PLAY_CAP` (audio) or `VIDEO_PLAY_CAP` (video).
pub fn open_stream<S: Source>(
    source: &S,
    path: &Path,
) -> Result<(Arc<S::File>, &'static str), CanopyError> {
    let (file, head) = super::open_with_head(source, path, VIDEO_HEAD_BYTES)?;
    let mime = media_mime(&head).ok_or_else(|| {
        CanopyError::new(
            ErrorCode::Unsupported,
            "this file is not audio or video Canopy plays",
        )
    })?;
    let (cap, what) = if mime.starts_with("video/") {
        (VIDEO_PLAY_CAP, "videos")
    } else {
        (MEDIA_PLAY_CAP, "audio files")
    };
    if file.size() > cap {
        return Err(CanopyError::new(
            ErrorCode::TooLarge,
            format!("{what} over {} MiB are not played here", cap >> 20),
        ));
    }
    Ok((file, mime))
}

/// The MIME type of the audio or video whose first bytes are `head`.
pub fn media_mime(head: &[u8]) -> Option<&'static str> {
    if let Some(video) = super::container::video_container(head) {
        Some(video.mime)
    } else if head.starts_with(b"ID3")
        || (head.len() >= 2 && head[0] == 0xff && head[1] & 0xe0 == 0xe0 && head[1] & 0x06 != 0)
    {
        Some("audio/mpeg")
    } else if head.starts_with(b"fLaC") {
        Some("audio/flac")
    } else if head.starts_with(b"OggS") {
        Some("audio/ogg")
    } else if head.len() >= 12 && &head[..4] == b"RIFF" && &head[8..12] == b"WAVE" {
        Some("audio/wav")
    } else if head.len() >= 12
        && &head[4..8] == b"ftyp"
        && matches!(&head[8..12], b"M4A " | b"M4B ")
    {
        Some("audio/mp4")
    } else {
        None
    }
}

/// The inclusive range a `Range` header asks of a file of `total` bytes,
/// clamped to `MEDIA_RANGE_CAP`; the whole file's first bytes without one.
///
/// # Errors
/// `INVALID_ARGUMENT` for a header Canopy does not serve (HTTP 416).
pub fn parse_range(header: Option<&str>, total: u64) -> Result<(u64, u64), CanopyError> {
    let bad = || CanopyError::invalid("unsupported or unsatisfiable range");
    if total == 0 {
        return Err(bad());
    }
    let (start, end) = match header {
        None => (0, total - 1),
        Some(h) => {
            let spec = h.trim().strip_prefix("bytes=").ok_or_else(bad)?;
            if spec.contains(',') {
                return Err(bad());
            }
            let (a, b) = spec.split_once('-').ok_or_else(bad)?;
            let (a, b) = (a.trim(), b.trim());
            if a.is_empty() {
                let suffix: u64 = b.parse().map_err(|_| bad())?;
                if suffix == 0 {
                    return Err(bad());
                }
                (total.saturating_sub(suffix), total - 1)
            } else {
                let start: u64 = a.parse().map_err(|_| bad())?;
                let end = if b.is_empty() {
                    total - 1
                } else {
                    b.parse::<u64>().map_err(|_| bad())?.min(total - 1)
                };
                if start > end || start >= total {
                    return Err(bad());
                }
                (start, end)
            }
        }
    };
    Ok((start, end.min(start + MEDIA_RANGE_CAP - 1)))
}

/// Reads the range `header` asks of the opened `file` (opened at `path`:
/// the place a dead mount is remembered by), on a bounded worker.
///
/// # Errors
/// As [`parse_range`]; `TIMEOUT` when the file does not answer; the
/// source's code when a read fails.
pub fn read_range<F: SourceFile>(
    file: &Arc<F>,
    path: &Path,
    header: Option<&str>,
) -> Result<RangeReply, CanopyError> {
    let total = file.size();
    let (start, end) = parse_range(header, total)?;
    let f = file.clone();
    let bytes = bounded::call(Place::path(path), TIME_BUDGET, move |_| {
        crate::preview::read_at(&*f, start, (end - start + 1) as usize)
    })??;
    if bytes.is_empty() {
        return Err(CanopyError::invalid("the file is shorter than it was"));
    }
    let end = start + bytes.len() as u64 - 1;
    Ok(RangeReply {
        start,
        end,
        total,
        bytes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_are_parsed_clamped_and_refused() {
        let mib = MEDIA_RANGE_CAP;
        assert_eq!(parse_range(None, 10).unwrap(), (0, 9));
        assert_eq!(parse_range(Some("bytes=2-5"), 10).unwrap(), (2, 5));
        assert_eq!(parse_range(Some("bytes=2-"), 10).unwrap(), (2, 9));
        assert_eq!(parse_range(Some("bytes=-3"), 10).unwrap(), (7, 9));
        assert_eq!(
            parse_range(Some("bytes=5-100"), 10).unwrap(),
            (5, 9),
            "clamped to the file"
        );
        assert_eq!(
            parse_range(Some("bytes=0-"), 10 * mib).unwrap(),
            (0, mib - 1),
            "at most the cap a request"
        );
        assert_eq!(parse_range(None, 10 * mib).unwrap(), (0, mib - 1));
        for bad in [
            "bytes=10-",
            "bytes=5-2",
            "bytes=0-1,3-4",
            "items=0-1",
            "bytes=-0",
            "bytes=x-1",
            "0-1",
        ] {
            assert!(parse_range(Some(bad), 10).is_err(), "{bad} is refused");
        }
        assert!(parse_range(None, 0).is_err());
    }

    #[test]
    fn audio_is_told_by_its_first_bytes() {
        assert_eq!(media_mime(b"ID3\x04"), Some("audio/mpeg"));
        assert_eq!(media_mime(b"RIFF\0\0\0\0WAVEfmt "), Some("audio/wav"));
        assert_eq!(media_mime(b"fLaC"), Some("audio/flac"));
        assert_eq!(media_mime(b"\xff\xd8\xff\xe0"), None, "a JPEG is no MP3");
        assert_eq!(media_mime(b"%PDF-1.4"), None);
        assert_eq!(media_mime(b"RIFF\0\0\0\0AVI LIST"), Some("video/x-msvideo"));
        assert_eq!(
            media_mime(b"\0\0\0\x18ftypisom\0\0\x02\0"),
            Some("video/mp4"),
            "a video is played too"
        );
    }
}
