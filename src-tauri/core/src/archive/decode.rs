//! Reading compressed bytes: a file range as a stream, the decoders, and
//! the ratio guard that stops a bomb. Decoding is CPU work (`cpu_work`):
//! each read of the input and each piece of output looks at the step's
//! deadline and the request's cancel, and a read of the file is a call
//! that may block.
#![forbid(unsafe_code)]

use std::io::{self, BufRead, BufReader, Read};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use crate::cpu_work::{self, blocking};
use crate::error::{CanopyError, ErrorCode};
use crate::limits::{ARCHIVE_DICT_MAX, ARCHIVE_RATIO_MAX, ARCHIVE_RATIO_SLACK};
use crate::source::SourceFile;

/// The bytes `[start, end)` of a file, read front to back; counts what it
/// read, for the ratio guard.
pub(crate) struct Range<F: SourceFile> {
    file: Arc<F>,
    at: u64,
    end: u64,
    read: Arc<AtomicU64>,
    /// Reads fail with `TIMEOUT` past this.
    deadline: Option<Instant>,
}

impl<F: SourceFile> Range<F> {
    pub fn new(file: Arc<F>, start: u64, end: u64) -> Self {
        Range {
            file,
            at: start,
            end,
            read: Arc::new(AtomicU64::new(0)),
            deadline: None,
        }
    }

    /// The same range, whose reads fail with `TIMEOUT` once `deadline` passes.
    pub fn until(self, deadline: Option<Instant>) -> Self {
        Range { deadline, ..self }
    }

    /// Where the next read starts, in the file.
    pub fn position(&self) -> u64 {
        self.at
    }

    /// Moves `n` bytes on without reading them; `false` when that passes the end.
    pub fn advance(&mut self, n: u64) -> bool {
        self.at = self.at.saturating_add(n);
        self.at <= self.end
    }

    /// A counter of the bytes read so far, shared with whoever guards the output.
    pub fn counter(&self) -> Arc<AtomicU64> {
        self.read.clone()
    }
}

impl<F: SourceFile> Read for Range<F> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.deadline.is_some_and(|d| Instant::now() > d) {
            return Err(CanopyError::new(
                ErrorCode::Timeout,
                "the time to read the archive ran out",
            )
            .into_io());
        }
        stop_if_halted()?;
        let left = self.end.saturating_sub(self.at);
        if left == 0 || buf.is_empty() {
            return Ok(0);
        }
        let want = buf.len().min(usize::try_from(left).unwrap_or(usize::MAX));
        let n = loop {
            match blocking(|| self.file.read_at(&mut buf[..want], self.at)) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                other => break other?,
            }
        };
        self.at += n as u64;
        self.read.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// How a stream of bytes is compressed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Codec {
    Stored,
    Deflate,
    Deflate64,
    Gzip,
    Bzip2,
    Xz,
    Zstd,
    /// Zip's LZMA: a 4-byte version and size, the 5-byte properties, then raw LZMA.
    ZipLzma {
        size: u64,
    },
}

/// The data a decoder reads is damaged.
fn damaged_data(what: impl std::fmt::Display) -> io::Error {
    super::corrupt(format!("the compressed data is damaged: {what}"))
}

/// Decodes `input` with `codec`, as a stream.
///
/// # Errors
/// `UNSUPPORTED` for a dictionary or window larger than `ARCHIVE_DICT_MAX`;
/// `CORRUPT` when the stream's header is damaged.
pub(crate) fn decoder<R: Read + Send + 'static>(
    codec: Codec,
    input: R,
) -> io::Result<Box<dyn Read + Send>> {
    let buffered = BufReader::with_capacity(64 * 1024, input);
    Ok(match codec {
        Codec::Stored => Box::new(buffered),
        Codec::Deflate => Box::new(flate2::bufread::DeflateDecoder::new(buffered)),
        Codec::Deflate64 => Box::new(deflate64::Deflate64Decoder::with_buffer(buffered)),
        Codec::Gzip => Box::new(flate2::bufread::MultiGzDecoder::new(buffered)),
        Codec::Bzip2 => Box::new(bzip2::bufread::MultiBzDecoder::new(buffered)),
        // The limit is in KiB; twice the dictionary leaves room for the decoder's own state.
        Codec::Xz => Box::new(lzma_rust2::XzReader::new_mem_limit(
            buffered,
            true,
            ARCHIVE_DICT_MAX / 1024 * 2,
        )),
        Codec::Zstd => Box::new(ZstdFrames {
            input: Some(buffered),
            frame: None,
        }),
        Codec::ZipLzma { size } => {
            let mut input = buffered;
            let mut header = [0u8; 9];
            input
                .read_exact(&mut header)
                .map_err(|_| damaged_data("the LZMA header is cut short"))?;
            if u16::from_le_bytes([header[2], header[3]]) != 5 {
                return Err(damaged_data("the LZMA properties are not 5 bytes"));
            }
            let props = header[4];
            let dict = u32::from_le_bytes([header[5], header[6], header[7], header[8]]);
            if dict > ARCHIVE_DICT_MAX {
                return Err(too_big_window(u64::from(dict)));
            }
            let reader = lzma_rust2::LzmaReader::new_with_props(input, size, props, dict, None)
                .map_err(damaged_data)?;
            Box::new(reader)
        }
    })
}

/// A decoder's own complaint (not the disk's, not Canopy's) means damaged data.
fn damaged(e: io::Error) -> io::Error {
    let ours = e.get_ref().is_some_and(|inner| inner.is::<CanopyError>());
    if ours || e.raw_os_error().is_some() || e.kind() == io::ErrorKind::Interrupted {
        return e;
    }
    damaged_data(e)
}

fn too_big_window(bytes: u64) -> io::Error {
    CanopyError::new(
        ErrorCode::Unsupported,
        format!(
            "the data asks for a {} MiB decoding window; Canopy allocates at most {} MiB",
            bytes >> 20,
            ARCHIVE_DICT_MAX >> 20
        ),
    )
    .into_io()
}

/// A zstd stream of one or more frames (ruzstd decodes one frame at a time).
struct ZstdFrames<R: BufRead> {
    input: Option<R>,
    frame: Option<ruzstd::decoding::StreamingDecoder<R, ruzstd::decoding::FrameDecoder>>,
}

impl<R: BufRead> Read for ZstdFrames<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            if let Some(frame) = &mut self.frame {
                let n = frame.read(buf)?;
                if n > 0 || buf.is_empty() {
                    return Ok(n);
                }
                self.input = self.frame.take().map(|f| f.into_inner());
            }
            let Some(mut input) = self.input.take() else {
                return Ok(0);
            };
            let peek = input.fill_buf()?;
            if peek.is_empty() {
                self.input = Some(input);
                return Ok(0);
            }
            // A skippable frame (pzstd's index, user data): its length, then bytes to pass over.
            if let Some(len) = skippable_frame(peek) {
                input.consume(8);
                let passed = io::copy(&mut (&mut input).take(len), &mut io::sink())?;
                if passed < len {
                    return Err(damaged_data("a skippable frame is cut short"));
                }
                self.input = Some(input);
                continue;
            }
            let mut decoder = ruzstd::decoding::FrameDecoder::new();
            decoder.set_max_window_size(u64::from(ARCHIVE_DICT_MAX));
            match ruzstd::decoding::StreamingDecoder::new_with_decoder(input, decoder) {
                Ok(frame) => self.frame = Some(frame),
                Err(ruzstd::decoding::errors::FrameDecoderError::WindowSizeTooBig {
                    requested,
                    ..
                }) => {
                    return Err(too_big_window(requested));
                }
                Err(e) => return Err(damaged_data(e)),
            }
        }
    }
}

/// The length of the skippable zstd frame `head` starts with, if it does
/// (magic 0x184D2A50 to 0x184D2A5F, then a 32-bit length).
pub(super) fn skippable_frame(head: &[u8]) -> Option<u64> {
    let magic = u32::from_le_bytes(head.get(..4)?.try_into().ok()?);
    let len = u32::from_le_bytes(head.get(4..8)?.try_into().ok()?);
    (magic & 0xFFFF_FFF0 == 0x184D_2A50).then_some(u64::from(len))
}

/// Stops a decoder whose output passes [`ARCHIVE_RATIO_MAX`] times the
/// compressed bytes it read (plus [`ARCHIVE_RATIO_SLACK`]) with `RATIO`.
pub(crate) struct RatioGuard<R> {
    inner: R,
    input: Arc<AtomicU64>,
    /// The bytes given out so far.
    output: u64,
}

impl<R: Read> RatioGuard<R> {
    pub fn new(inner: R, input: Arc<AtomicU64>) -> Self {
        RatioGuard {
            inner,
            input,
            output: 0,
        }
    }

    /// The bytes given out so far.
    pub fn produced(&self) -> u64 {
        self.output
    }
}

/// `TIMEOUT` (or `CANCELLED`) when this thread's job must stop decoding.
fn stop_if_halted() -> io::Result<()> {
    match cpu_work::halted() {
        Some(halt) => Err(halt.error("decompressing").into_io()),
        None => Ok(()),
    }
}

impl<R: Read> Read for RatioGuard<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        // One piece of output can cost far more than its input's read
        // (up to the ratio): look again before each.
        stop_if_halted()?;
        let n = self.inner.read(buf).map_err(damaged)?;
        self.output += n as u64;
        let input = self.input.load(Ordering::Relaxed);
        if past_ratio(self.output, input) {
            return Err(ratio_error("decompressing stopped", self.output, input));
        }
        Ok(n)
    }
}

/// Whether `output` bytes from `input` compressed ones pass the ratio
/// guard: more than `ARCHIVE_RATIO_MAX` times, past `ARCHIVE_RATIO_SLACK`.
pub(crate) fn past_ratio(output: u64, input: u64) -> bool {
    output
        > input
            .saturating_mul(ARCHIVE_RATIO_MAX)
            .saturating_add(ARCHIVE_RATIO_SLACK)
}

/// The guard's `RATIO` error, `what` happening, for `output` bytes from `input`.
pub(crate) fn ratio_error(what: &str, output: u64, input: u64) -> io::Error {
    CanopyError::new(
        ErrorCode::Ratio,
        format!("{what}: {output} bytes from {input} compressed bytes, more than {ARCHIVE_RATIO_MAX}x (a zip bomb, or data Canopy will not inflate)"),
    )
    .into_io()
}

/// Reads and drops `n` bytes of `r`; `Ok(false)` when it ended first.
pub(crate) fn skip(r: &mut dyn Read, mut n: u64) -> io::Result<bool> {
    if n == 0 {
        return Ok(true);
    }
    let mut sink = [0u8; 64 * 1024];
    while n > 0 {
        let want = sink.len().min(usize::try_from(n).unwrap_or(usize::MAX));
        match r.read(&mut sink[..want]) {
            Ok(0) => return Ok(false),
            Ok(k) => n -= k as u64,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(true)
}

/// Fills `buf` as far as `r` goes; the count read.
pub(crate) fn fill(r: &mut dyn Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match r.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(k) => got += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}
