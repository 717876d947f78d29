//! An audio file's tags (title, artist, album, track), its properties
//! (duration, codec, bit rate) and its cover art, read by a pure-Rust tag
//! reader (`lofty`) through a budget: at most `AUDIO_READ_BUDGET` bytes of
//! the file are read, whatever its tags claim (a corrupt MP3 claiming a
//! 1 GB tag stops there), no allocation past `AUDIO_ALLOCATION_LIMIT`, and
//! a cover over `COVER_ART_CAP` is left out and said.
#![forbid(unsafe_code)]

use std::io::{self, Read, Seek, SeekFrom};
use std::path::Path;

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use lofty::file::{AudioFile, TaggedFileExt};
use lofty::tag::Accessor;

use super::open;
use crate::bounded::{self, Place};
use crate::error::{CanopyError, ErrorCode};
use crate::limits::{
    AUDIO_ALLOCATION_LIMIT, AUDIO_READ_BUDGET, COVER_ART_CAP, EXIF_FIELD_CHARS, TIME_BUDGET,
};
use crate::source::{Source, SourceFile};
use crate::wire::{AudioCover, AudioDetails};

/// A source file read as a stream, refusing to read past a budget.
struct Budgeted<F> {
    file: F,
    pos: u64,
    read: u64,
    budget: u64,
}

impl<F: SourceFile> Read for Budgeted<F> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let left = self.budget.saturating_sub(self.read);
        if left == 0 && !buf.is_empty() {
            return Err(io::Error::other("the read budget for tags was spent"));
        }
        let want = buf.len().min(left.min(usize::MAX as u64) as usize);
        let n = self.file.read_at(&mut buf[..want], self.pos)?;
        self.pos += n as u64;
        self.read += n as u64;
        Ok(n)
    }
}

impl<F: SourceFile> Seek for Budgeted<F> {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        let size = self.file.size() as i128;
        let target = match to {
            SeekFrom::Start(n) => i128::from(n),
            SeekFrom::End(d) => size + i128::from(d),
            SeekFrom::Current(d) => i128::from(self.pos) + i128::from(d),
        };
        if target < 0 {
            return Err(io::Error::from(io::ErrorKind::InvalidInput));
        }
        self.pos =
            u64::try_from(target).map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))?;
        Ok(self.pos)
    }
}

/// An audio file's tags, properties and cover art, from at most
/// `AUDIO_READ_BUDGET` of its bytes, on a bounded worker.
///
/// # Errors
/// `NOT_A_FILE` for anything but a regular file (never opened); `TIMEOUT`;
/// `CORRUPT` when the reader refuses the file (its message says why:
/// past the budget, a lying size ...).
pub fn audio_details<S: Source>(source: &S, path: &Path) -> Result<AudioDetails, CanopyError> {
    let file = open(source, path)?;
    bounded::call(Place::path(path), TIME_BUDGET, move |_| read_details(file))?
}

fn limit_allocations() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        lofty::config::apply_global_options(
            lofty::config::GlobalOptions::new().allocation_limit(AUDIO_ALLOCATION_LIMIT),
        );
    });
}

fn clean(s: &str) -> Option<String> {
    let s: String = s
        .chars()
        .filter(|c| !c.is_control())
        .take(EXIF_FIELD_CHARS)
        .collect();
    let s = s.trim().to_string();
    (!s.is_empty()).then_some(s)
}

fn read_details(file: impl SourceFile) -> Result<AudioDetails, CanopyError> {
    limit_allocations();
    let mut reader = Budgeted {
        file,
        pos: 0,
        read: 0,
        budget: AUDIO_READ_BUDGET,
    };
    let corrupt = |e: &dyn std::fmt::Display| {
        CanopyError::new(
            ErrorCode::Corrupt,
            format!("the audio file's tags cannot be read: {e}"),
        )
    };
    let probe = lofty::probe::Probe::new(&mut reader)
        .options(lofty::config::ParseOptions::new().read_cover_art(true))
        .guess_file_type()
        .map_err(|e| corrupt(&e))?;
    let tagged = probe.read().map_err(|e| corrupt(&e))?;
    let props = tagged.properties();
    let tag = tagged.primary_tag().or_else(|| tagged.first_tag());
    let text = |f: fn(&lofty::tag::Tag) -> Option<std::borrow::Cow<'_, str>>| {
        tag.and_then(f).and_then(|s| clean(&s))
    };
    let mut cover = None;
    let mut cover_too_large = false;
    if let Some(pic) = tag.and_then(|t| t.pictures().first()) {
        let mime = pic.mime_type().map(|m| m.as_str().to_string());
        let sniffed = crate::preview::sniff_image(pic.data());
        match (sniffed, mime) {
            _ if pic.data().len() as u64 > COVER_ART_CAP => cover_too_large = true,
            // Only an image the window shows, named by its own bytes.
            (Some(format), _) if format != crate::wire::ImageFormat::Svg => {
                cover = Some(AudioCover {
                    mime: format.mime().to_string(),
                    base64: STANDARD.encode(pic.data()),
                });
            }
            _ => {}
        }
    }
    let duration = props.duration();
    Ok(AudioDetails {
        title: text(|t| t.title()),
        artist: text(|t| t.artist()),
        album: text(|t| t.album()),
        track: tag.and_then(|t| t.track()),
        track_total: tag.and_then(|t| t.track_total()),
        duration_ms: (!duration.is_zero()).then_some(duration.as_millis() as u64),
        codec: codec_name(tagged.file_type()).to_string(),
        bit_rate_kbps: props.audio_bitrate().or(props.overall_bitrate()),
        sample_rate: props.sample_rate(),
        channels: props.channels(),
        cover,
        cover_too_large,
    })
}

fn codec_name(t: lofty::file::FileType) -> &'static str {
    use lofty::file::FileType as F;
    match t {
        F::Aac => "AAC",
        F::Aiff => "AIFF",
        F::Ape => "Monkey's Audio",
        F::Flac => "FLAC",
        F::Mpeg => "MPEG audio (MP3)",
        F::Mp4 => "MP4 audio",
        F::Mpc => "Musepack",
        F::Opus => "Opus",
        F::Vorbis => "Ogg Vorbis",
        F::Speex => "Speex",
        F::Wav => "WAV",
        F::WavPack => "WavPack",
        _ => "audio",
    }
}
