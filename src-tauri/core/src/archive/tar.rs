//! Tar archives, plain or compressed as a whole (gzip, bzip2, xz, zstd).
//!
//! A tar is a stream of 512-byte headers, each followed by its entry's data
//! padded to 512. A compressed one can only be read front to back, so its
//! index is read once and kept: per entry its name (the last segment, or
//! the whole raw path when unsafe), kind, size, time, link target and where
//! its data starts in the uncompressed stream. Headers in the ustar, GNU
//! (`L`/`K` long names) and pax (`x` records: path, linkpath, size, mtime)
//! forms are read; global pax records are skipped. Reading the headers is
//! held to an [`IndexBudget`] (time, and memory: names' bytes count).
#![forbid(unsafe_code)]

use std::io::{self, Read};
use std::sync::Arc;
use std::time::Instant;

use super::budget::{Cut, IndexBudget};
use super::decode::{self, Codec, Range, RatioGuard};
use super::names::unsafe_reason;
use super::tree::{Tree, TreeBuilder};
use super::{corrupt_error, Summary};
use crate::error::{code_of, CanopyError, ErrorCode};
use crate::limits::{ARCHIVE_LINK_MAX, MAX_TIME_MS};

/// The largest pax or GNU long-name header read (its value is a path).
const EXTENDED_HEADER_MAX: u64 = 1024 * 1024;
/// Decompressed bytes asked of a decoder at a time.
const PACKED_BUFFER: usize = 256 * 1024;
use crate::source::{Meta, SourceFile};
use crate::wire::EntryKind;

/// One entry of a tar.
#[derive(Debug, Clone)]
pub(crate) struct Member {
    /// Its listed name: a range of [`TarIndex::names`].
    name: (u32, u32),
    /// Its link target (a symlink's or a hard link's), a range of the names.
    link: Option<(u32, u32)>,
    pub kind: EntryKind,
    pub hard_link: bool,
    pub size: u64,
    pub modified_ms: Option<i64>,
    /// Where its data starts in the uncompressed stream.
    pub data: u64,
}

#[derive(Debug, Default)]
pub(crate) struct TarIndex {
    pub members: Vec<Member>,
    names: Vec<u8>,
    /// Why the index stops before the archive's end, if it does.
    pub stopped: Option<CanopyError>,
}

impl TarIndex {
    pub fn name(&self, m: &Member) -> &[u8] {
        &self.names[m.name.0 as usize..m.name.1 as usize]
    }

    pub fn link(&self, m: &Member) -> Option<&[u8]> {
        m.link.map(|(a, b)| &self.names[a as usize..b as usize])
    }

    pub fn meta(m: &Member) -> Meta {
        Meta {
            kind: m.kind,
            size: m.size,
            modified_ms: m.modified_ms,
        }
    }

    /// The memory it holds, in bytes (its tree's apart).
    pub fn held(&self) -> u64 {
        (self.members.len() * std::mem::size_of::<Member>() + self.names.len()) as u64
    }

    fn push_name(&mut self, bytes: &[u8]) -> (u32, u32) {
        let start = self.names.len() as u32;
        self.names.extend_from_slice(bytes);
        (start, self.names.len() as u32)
    }
}

/// The uncompressed stream of a tar: read block by block, skipping data
/// without reading it when the tar is not compressed.
pub(crate) enum Stream<F: SourceFile> {
    Plain(Range<F>),
    /// Buffered: headers are read 512 bytes at a time, a decoder is asked for more.
    Packed(io::BufReader<RatioGuard<Box<dyn Read + Send>>>),
}

impl<F: SourceFile> Stream<F> {
    /// The stream of the whole file `file` under `codec`; reading it fails
    /// with `TIMEOUT` once `deadline` passes (checked at each read of the
    /// file, so no decoder can spin past it on input that yields nothing).
    pub fn open(file: &Arc<F>, codec: Codec, deadline: Option<Instant>) -> io::Result<Stream<F>> {
        let range = Range::new(file.clone(), 0, file.size()).until(deadline);
        if codec == Codec::Stored {
            return Ok(Stream::Plain(range));
        }
        let counter = range.counter();
        let guarded = RatioGuard::new(decode::decoder(codec, range)?, counter);
        Ok(Stream::Packed(io::BufReader::with_capacity(
            PACKED_BUFFER,
            guarded,
        )))
    }

    /// How far into the uncompressed stream it is.
    pub fn position(&self) -> u64 {
        match self {
            Stream::Plain(r) => r.position(),
            Stream::Packed(g) => g.get_ref().produced() - g.buffer().len() as u64,
        }
    }

    /// Fills `buf`; the count read (short only at the end).
    pub fn read_full(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Stream::Plain(r) => decode::fill(r, buf),
            Stream::Packed(g) => decode::fill(g, buf),
        }
    }

    /// Skips `n` bytes; `Ok(false)` when the stream ended first.
    pub fn skip(&mut self, n: u64) -> io::Result<bool> {
        match self {
            Stream::Plain(r) => Ok(r.advance(n)),
            Stream::Packed(g) => {
                // Passed over in the buffer: no copy, no sink.
                let mut left = n;
                while left > 0 {
                    let have = io::BufRead::fill_buf(g)?.len() as u64;
                    if have == 0 {
                        return Ok(false);
                    }
                    let step = have.min(left);
                    io::BufRead::consume(g, step as usize);
                    left -= step;
                }
                Ok(true)
            }
        }
    }
}

fn octal(field: &[u8]) -> Option<u64> {
    if field.first().is_some_and(|b| b & 0x80 != 0) {
        // Base-256 (GNU): big-endian, the first byte's top bit a marker.
        let mut v: u64 = u64::from(field[0] & 0x7F);
        for &b in &field[1..] {
            v = v.checked_mul(256)?.checked_add(u64::from(b))?;
        }
        return Some(v);
    }
    // Octal digits after leading spaces, up to the first other byte (NUL or space).
    let mut digits = field
        .iter()
        .skip_while(|&&b| b == b' ')
        .take_while(|b| (b'0'..=b'7').contains(b));
    digits.try_fold(0u64, |v, &d| {
        v.checked_mul(8)?.checked_add(u64::from(d - b'0'))
    })
}

/// `size` rounded up to whole blocks, if that is a number.
fn padded(size: u64) -> Option<u64> {
    size.checked_next_multiple_of(BLOCK)
}

/// A tar's block: every header and every entry's data fills whole ones.
const BLOCK: u64 = 512;

/// A path as tar writers give it, without the `./` that `tar -C dir .`
/// puts before every name (`None` for the top folder's own entry).
fn without_dot_slash(mut path: &[u8]) -> Option<&[u8]> {
    while let Some(rest) = path.strip_prefix(b"./") {
        path = rest;
    }
    (!path.is_empty() && path != b".").then_some(path)
}

fn cstr(field: &[u8]) -> &[u8] {
    &field[..field.iter().position(|&b| b == 0).unwrap_or(field.len())]
}

fn checksum_ok(h: &[u8; 512]) -> bool {
    let Some(want) = octal(&h[148..156]) else {
        return false;
    };
    // The checksum field itself counts as eight spaces.
    let sum = h.iter().map(|&b| u64::from(b)).sum::<u64>()
        - h[148..156].iter().map(|&b| u64::from(b)).sum::<u64>()
        + 8 * 32;
    sum == want
}

/// Whether `block` is a tar header (its checksum holds).
pub(crate) fn is_header(block: &[u8]) -> bool {
    block.len() >= 512
        && block[..512].iter().any(|&b| b != 0)
        && checksum_ok(block[..512].try_into().expect("512"))
}

/// What pax and GNU long-name headers say of the next entry.
#[derive(Default)]
struct Pending {
    path: Option<Vec<u8>>,
    link: Option<Vec<u8>>,
    size: Option<u64>,
    mtime_ms: Option<i64>,
}

fn read_data<F: SourceFile>(
    s: &mut Stream<F>,
    size: u64,
    max: u64,
) -> Result<Vec<u8>, CanopyError> {
    if size > max {
        return Err(corrupt_error(
            "an extended header is larger than Canopy reads",
        ));
    }
    let padded =
        padded(size).ok_or_else(|| corrupt_error("an extended header's size overflows"))?;
    let mut data = vec![0; padded as usize];
    let n = s
        .read_full(&mut data)
        .map_err(|e| CanopyError::from_io(&e, "reading the archive failed"))?;
    if n < data.len() {
        return Err(corrupt_error("the archive ends inside an extended header"));
    }
    data.truncate(size as usize);
    Ok(data)
}

fn apply_pax(records: &[u8], p: &mut Pending) {
    let mut rest = records;
    while !rest.is_empty() {
        let Some(space) = rest.iter().position(|&b| b == b' ') else {
            return;
        };
        let Some(len) = std::str::from_utf8(&rest[..space])
            .ok()
            .and_then(|t| t.parse::<usize>().ok())
        else {
            return;
        };
        if len <= space + 1 || len > rest.len() {
            return;
        }
        let record = &rest[space + 1..len - 1];
        if let Some(eq) = record.iter().position(|&b| b == b'=') {
            let (key, value) = (&record[..eq], &record[eq + 1..]);
            match key {
                b"path" => p.path = Some(value.to_vec()),
                b"linkpath" => p.link = Some(value.to_vec()),
                b"size" => p.size = std::str::from_utf8(value).ok().and_then(|t| t.parse().ok()),
                b"mtime" => {
                    p.mtime_ms = std::str::from_utf8(value)
                        .ok()
                        .and_then(|t| t.parse::<f64>().ok())
                        .map(|s| (s * 1000.0).floor() as i64);
                }
                _ => {}
            }
        }
        rest = &rest[len..];
    }
}

/// Reads every header of `stream` until its end, an error, or its
/// [`IndexBudget`] runs out: the tree, the index and the summary.
pub(crate) fn index<F: SourceFile>(
    file: &Arc<F>,
    codec: Codec,
) -> io::Result<(Tree, TarIndex, Summary)> {
    let mut budget = IndexBudget::new();
    let mut stream = Stream::open(file, codec, Some(budget.deadline()))?;
    let mut tree = TreeBuilder::default();
    let mut idx = TarIndex::default();
    let mut summary = Summary::default();
    let mut pending = Pending::default();
    let mut header = [0u8; 512];
    let stop = loop {
        let cut = |c: Cut, idx: &TarIndex, stream: &Stream<F>| {
            c.error(&format!(
                "the {} entries in its first {} MiB",
                idx.members.len(),
                stream.position() >> 20
            ))
        };
        let timeout = |idx: &TarIndex, stream: &Stream<F>| cut(Cut::Time, idx, stream);
        let failed = |e: io::Error, idx: &TarIndex, stream: &Stream<F>| {
            if code_of(&e) == ErrorCode::Timeout {
                timeout(idx, stream)
            } else {
                CanopyError::from_io(&e, "reading the archive failed")
            }
        };
        if let Err(c) = budget.work(512) {
            break Some(cut(c, &idx, &stream));
        }
        match stream.read_full(&mut header) {
            Ok(512) => {}
            Ok(0) => break None,
            Ok(_) => {
                break Some(corrupt_error(
                    "the archive ends inside a header (it is truncated)",
                ))
            }
            Err(e) => break Some(failed(e, &idx, &stream)),
        }
        if header.iter().all(|&b| b == 0) {
            break None;
        }
        if !checksum_ok(&header) {
            break Some(corrupt_error(
                "a header's checksum does not match (the archive is damaged or not a tar)",
            ));
        }
        let Some(mut size) = octal(&header[124..136]) else {
            break Some(corrupt_error("a header's size is not a number"));
        };
        let flag = header[156];
        match flag {
            b'L' | b'K' | b'x' | b'g' => {
                let data = match read_data(&mut stream, size, EXTENDED_HEADER_MAX) {
                    Ok(d) => d,
                    Err(e) if e.code == ErrorCode::Timeout => break Some(timeout(&idx, &stream)),
                    Err(e) => break Some(e),
                };
                if let Err(c) = budget.work(data.len() as u64) {
                    break Some(cut(c, &idx, &stream));
                }
                match flag {
                    b'L' => pending.path = Some(cstr(&data).to_vec()),
                    b'K' => pending.link = Some(cstr(&data).to_vec()),
                    b'x' => apply_pax(&data, &mut pending),
                    _ => {}
                }
                continue;
            }
            _ => {}
        }
        let p = std::mem::take(&mut pending);
        if let Some(s) = p.size {
            size = s;
        }
        let ustar = &header[257..263] == b"ustar\0";
        let path = p.path.unwrap_or_else(|| {
            let name = cstr(&header[0..100]);
            let prefix = if ustar { cstr(&header[345..500]) } else { &[] };
            if prefix.is_empty() {
                name.to_vec()
            } else {
                [prefix, b"/", name].concat()
            }
        });
        let link = p.link.unwrap_or_else(|| cstr(&header[157..257]).to_vec());
        let (kind, hard_link) = match flag {
            b'1' => (EntryKind::File, true),
            b'2' => (EntryKind::Symlink, false),
            b'3' => (EntryKind::CharDevice, false),
            b'4' => (EntryKind::BlockDevice, false),
            b'5' => (EntryKind::Folder, false),
            b'6' => (EntryKind::Fifo, false),
            _ if path.ends_with(b"/") => (EntryKind::Folder, false),
            _ => (EntryKind::File, false),
        };
        let mtime_ms = p
            .mtime_ms
            .or_else(|| {
                octal(&header[136..148]).and_then(|s| i64::try_from(s).ok()?.checked_mul(1000))
            })
            .filter(|ms| (-MAX_TIME_MS..=MAX_TIME_MS).contains(ms));
        // Hard links, links and folders carry no data whatever the size field says.
        let data_len = if matches!(flag, b'1' | b'2' | b'3' | b'4' | b'5' | b'6') {
            0
        } else {
            size
        };
        let Some(data_blocks) = padded(data_len) else {
            break Some(corrupt_error(
                "an entry's size is larger than any archive (the header lies)",
            ));
        };
        let data = stream.position();
        let Some(path) = without_dot_slash(&path) else {
            // The top folder's own entry (`./`): it is the archive itself.
            match stream.skip(data_blocks) {
                Ok(true) => continue,
                Ok(false) => {
                    break Some(corrupt_error(
                        "the archive ends inside an entry's data (it is truncated)",
                    ))
                }
                Err(e) => break Some(failed(e, &idx, &stream)),
            }
        };
        let trimmed = path.strip_suffix(b"/").unwrap_or(path);
        let loc = idx.members.len() as u32;
        let is_unsafe = unsafe_reason(trimmed).is_some();
        let listed: &[u8] = if is_unsafe {
            path
        } else {
            trimmed.rsplit(|&b| b == b'/').next().unwrap_or(trimmed)
        };
        // Its folders, its member and its names must fit, before it is filed.
        let adds = TreeBuilder::most_added(trimmed, kind == EntryKind::Folder)
            + std::mem::size_of::<Member>() as u64
            + (listed.len() + link.len().min(ARCHIVE_LINK_MAX)) as u64;
        let afford = budget
            .work(path.len() as u64)
            .and_then(|()| budget.fits(tree.held() + idx.held(), adds));
        if let Err(c) = afford {
            break Some(cut(c, &idx, &stream));
        }
        let name = idx.push_name(listed);
        let link = (matches!(kind, EntryKind::Symlink) || hard_link)
            .then(|| idx.push_name(&link[..link.len().min(ARCHIVE_LINK_MAX)]));
        idx.members.push(Member {
            name,
            link,
            kind,
            hard_link,
            size: if kind == EntryKind::File && !hard_link {
                size
            } else {
                0
            },
            modified_ms: mtime_ms,
            data,
        });
        summary.count(kind, if hard_link { 0 } else { data_len }, 0, false);
        summary.unsafe_names += u64::from(is_unsafe);
        tree.add(trimmed, kind == EntryKind::Folder, is_unsafe, loc);
        match stream.skip(data_blocks) {
            Ok(true) => {}
            Ok(false) => {
                break Some(corrupt_error(
                    "the archive ends inside an entry's data (it is truncated)",
                ))
            }
            Err(e) => break Some(failed(e, &idx, &stream)),
        }
    };
    summary.read_bytes = Some(stream.position());
    idx.stopped = stop;
    idx.members.shrink_to_fit();
    idx.names.shrink_to_fit();
    Ok((tree.finish(), idx, summary))
}
