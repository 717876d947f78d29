//! Zip archives, read from their central directory as a stream.
//!
//! The format (PKWARE's APPNOTE): entries' data first, each after a local
//! header; then the central directory, one record per entry; then the end
//! record (and, for zip64, its own end record and locator before it). A
//! listing reads the end record, then the directory front to back in
//! windows (twice: see `tree`), keeping 4 bytes an entry; a folder's entries are
//! read again from the directory when it is listed. A preview reads one
//! entry's local header and decompresses from its data. Reading the
//! directory is held to its [`IndexBudget`]: past it the index keeps the
//! records read before, and says why it stops there.
#![forbid(unsafe_code)]

use std::io;
use std::sync::Arc;

use super::budget::{Cut, IndexBudget};
use super::decode::Codec;
use super::names::{cp437_to_utf8, unsafe_reason};
use super::tree::{Tree, TreeBuilder, MAX_LOC};
use super::{corrupt, Summary};
use crate::cpu_work::blocking;
use crate::error::{CanopyError, ErrorCode};
use crate::limits::{ARCHIVE_DIRECTORY_MAX, ARCHIVE_WINDOW, MAX_TIME_MS};
use crate::source::{Meta, SourceFile};
use crate::wire::EntryKind;

const END: u32 = 0x0605_4b50;
const END64: u32 = 0x0606_4b50;
const LOCATOR64: u32 = 0x0706_4b50;
const CENTRAL: u32 = 0x0201_4b50;
const LOCAL: u32 = 0x0403_4b50;
const CENTRAL_FIXED: usize = 46;
/// The share of the index's time (percent) its first pass may take: the
/// second places what the first counted, at about the same cost.
const COUNTING_SHARE_PERCENT: u32 = 50;

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

fn read_exact_at<F: SourceFile>(file: &F, buf: &mut [u8], at: u64) -> io::Result<()> {
    // A read may block (a dead mount): not CPU work (see `cpu_work`).
    if blocking(|| file.read_full_at(buf, at))? < buf.len() {
        return Err(corrupt("the archive ends before a record it points to"));
    }
    Ok(())
}

/// Where the central directory is, and what the end record says.
#[derive(Debug)]
pub(crate) struct Directory {
    /// The directory's first byte in the file.
    pub start: u64,
    pub len: u64,
    /// Bytes before the first entry that the offsets do not count (a
    /// self-extracting stub): added to every local header's offset.
    pub shift: u64,
    pub claimed_entries: u64,
    pub comment: Vec<u8>,
}

/// Finds the end record (searching back over a comment of up to 64 KiB) and,
/// for zip64, the zip64 end record.
pub(crate) fn directory<F: SourceFile>(file: &F) -> io::Result<Directory> {
    let size = file.size();
    let tail_len = size.min(22 + 65_535) as usize;
    if tail_len < 22 {
        return Err(corrupt("the file is too short to be a zip"));
    }
    let tail_start = size - tail_len as u64;
    let mut tail = vec![0; tail_len];
    read_exact_at(file, &mut tail, tail_start)?;
    // The last end record whose comment reaches exactly to the file's end;
    // failing that, the last one at all (a zip with bytes appended).
    let candidates = (0..=tail_len - 22)
        .rev()
        .filter(|&i| u32_at(&tail, i) == END);
    let mut found = None;
    for i in candidates {
        let comment_len = usize::from(u16_at(&tail, i + 20));
        if i + 22 + comment_len == tail_len {
            found = Some(i);
            break;
        }
        found.get_or_insert(i);
    }
    let Some(i) = found else {
        return Err(corrupt(
            "no end-of-directory record: the zip is truncated or not a zip",
        ));
    };
    let end_at = tail_start + i as u64;
    let comment_len = usize::from(u16_at(&tail, i + 20)).min(tail_len - i - 22);
    let comment = tail[i + 22..i + 22 + comment_len].to_vec();
    let mut claimed = u64::from(u16_at(&tail, i + 10));
    let mut len = u64::from(u32_at(&tail, i + 12));
    let mut start = u64::from(u32_at(&tail, i + 16));
    let mut end64_at = None;
    if (claimed == 0xFFFF || len == 0xFFFF_FFFF || start == 0xFFFF_FFFF) && end_at >= 20 {
        let mut locator = [0u8; 20];
        read_exact_at(file, &mut locator, end_at - 20)?;
        if u32_at(&locator, 0) == LOCATOR64 {
            let at = u64_at(&locator, 8);
            let mut end64 = [0u8; 56];
            read_exact_at(file, &mut end64, at)
                .map_err(|_| corrupt("the zip64 end record lies outside the file"))?;
            if u32_at(&end64, 0) != END64 {
                return Err(corrupt("the zip64 locator points at no zip64 end record"));
            }
            claimed = u64_at(&end64, 32);
            len = u64_at(&end64, 40);
            start = u64_at(&end64, 48);
            end64_at = Some(at);
        }
    }
    if len > ARCHIVE_DIRECTORY_MAX {
        return Err(CanopyError::new(
            ErrorCode::TooLarge,
            format!(
                "the zip's directory is {len} bytes; Canopy reads at most {ARCHIVE_DIRECTORY_MAX}"
            ),
        )
        .into_io());
    }
    // Where the directory really ends: just before the end record (or the zip64 one).
    let dir_end = end64_at.unwrap_or(end_at);
    let mut shift = 0;
    let starts_right = |at: u64| -> io::Result<bool> {
        if len == 0 {
            return Ok(at <= dir_end);
        }
        if at.checked_add(len).is_none_or(|e| e > dir_end) {
            return Ok(false);
        }
        let mut sig = [0u8; 4];
        read_exact_at(file, &mut sig, at)?;
        Ok(u32::from_le_bytes(sig) == CENTRAL)
    };
    if !starts_right(start)? {
        // A stub before the zip moves everything by the same amount.
        let real = dir_end
            .checked_sub(len)
            .ok_or_else(|| corrupt("the directory's size is larger than the file"))?;
        if real < start || !starts_right(real)? {
            return Err(corrupt("the directory is not where the end record says"));
        }
        shift = real - start;
        start = real;
    }
    Ok(Directory {
        start,
        len,
        shift,
        claimed_entries: claimed,
        comment,
    })
}

/// One central directory record, parsed.
#[derive(Debug, Clone)]
pub(crate) struct Record<'a> {
    pub made_by: u16,
    pub flags: u16,
    pub method: u16,
    pub dos_time: u32,
    pub compressed: u64,
    pub size: u64,
    pub local: u64,
    pub external: u32,
    pub raw_name: &'a [u8],
    pub extra: &'a [u8],
}

impl Record<'_> {
    pub fn encrypted(&self) -> bool {
        self.flags & 1 != 0 || self.method == 99
    }

    /// The entry's path as UTF-8 when the archive says how (the UTF-8 flag,
    /// or Info-ZIP's Unicode path field); CP437 otherwise.
    pub fn path_into(&self, out: &mut Vec<u8>) {
        out.clear();
        if self.flags & (1 << 11) != 0 {
            out.extend_from_slice(self.raw_name);
            return;
        }
        if let Some(field) = extra_field(self.extra, 0x7075) {
            // Version 1, the CRC-32 of the header's name, then the UTF-8 name.
            if field.len() > 5
                && field[0] == 1
                && u32_at(field, 1) == crc32fast::hash(self.raw_name)
            {
                out.extend_from_slice(&field[5..]);
                return;
            }
        }
        if self.raw_name.is_ascii() {
            out.extend_from_slice(self.raw_name);
        } else {
            cp437_to_utf8(self.raw_name, out);
        }
    }

    /// What kind of entry it is: from its Unix mode when a Unix writer
    /// made it, else a folder when its name ends in `/` or its DOS
    /// attributes say so, else a file.
    pub fn kind(&self, path: &[u8]) -> EntryKind {
        let mode = self.external >> 16;
        if self.made_by >> 8 == 3 && mode != 0 {
            return match mode & 0o170_000 {
                0o040_000 => EntryKind::Folder,
                0o120_000 => EntryKind::Symlink,
                0o010_000 => EntryKind::Fifo,
                0o020_000 => EntryKind::CharDevice,
                0o060_000 => EntryKind::BlockDevice,
                0o140_000 => EntryKind::Socket,
                _ if path.ends_with(b"/") => EntryKind::Folder,
                _ => EntryKind::File,
            };
        }
        if path.ends_with(b"/") || self.external & 0x10 != 0 {
            EntryKind::Folder
        } else {
            EntryKind::File
        }
    }

    /// Its modification time: the extended timestamp field when present
    /// (UTC seconds), else the DOS date and time, read as UTC.
    pub fn modified_ms(&self) -> Option<i64> {
        if let Some(field) = extra_field(self.extra, 0x5455) {
            if field.len() >= 5 && field[0] & 1 != 0 {
                let secs = i64::from(u32_at(field, 1) as i32);
                return Some(secs * 1000).filter(|ms| ms.abs() <= MAX_TIME_MS);
            }
        }
        dos_time_ms(self.dos_time)
    }

    pub fn meta(&self, path: &[u8]) -> Meta {
        let kind = self.kind(path);
        Meta {
            kind,
            size: if kind == EntryKind::Folder {
                0
            } else {
                self.size
            },
            modified_ms: self.modified_ms(),
        }
    }

    pub fn codec(&self) -> io::Result<Codec> {
        Ok(match self.method {
            0 => Codec::Stored,
            8 => Codec::Deflate,
            9 => Codec::Deflate64,
            12 => Codec::Bzip2,
            14 => Codec::ZipLzma {
                size: if self.flags & 2 != 0 {
                    u64::MAX
                } else {
                    self.size
                },
            },
            93 => Codec::Zstd,
            95 => Codec::Xz,
            other => {
                return Err(CanopyError::new(
                    ErrorCode::Unsupported,
                    format!(
                        "the entry is compressed with method {other}, which Canopy does not decode"
                    ),
                )
                .into_io())
            }
        })
    }
}

fn dos_time_ms(dos: u32) -> Option<i64> {
    let (date, time) = (dos >> 16, dos & 0xFFFF);
    let (year, month, day) = (
        1980 + i64::from(date >> 9),
        i64::from((date >> 5) & 0xF),
        i64::from(date & 0x1F),
    );
    let (hour, minute, second) = (
        i64::from(time >> 11),
        i64::from((time >> 5) & 0x3F),
        i64::from((time & 0x1F) * 2),
    );
    if !(1..=12).contains(&month) || day == 0 {
        return None;
    }
    // Days since the epoch (Howard Hinnant's days_from_civil).
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000)
}

fn extra_field(mut extra: &[u8], id: u16) -> Option<&[u8]> {
    while extra.len() >= 4 {
        let (tag, len) = (u16_at(extra, 0), usize::from(u16_at(extra, 2)));
        let body = extra.get(4..4 + len)?;
        if tag == id {
            return Some(body);
        }
        extra = &extra[4 + len..];
    }
    None
}

/// Parses the record at the start of `b`; the record and its length.
pub(crate) fn parse_record(b: &[u8]) -> io::Result<(Record<'_>, usize)> {
    if b.len() < CENTRAL_FIXED || u32_at(b, 0) != CENTRAL {
        return Err(corrupt("a central directory record is damaged"));
    }
    let (n, m, k) = (
        usize::from(u16_at(b, 28)),
        usize::from(u16_at(b, 30)),
        usize::from(u16_at(b, 32)),
    );
    let len = CENTRAL_FIXED + n + m + k;
    if b.len() < len {
        return Err(corrupt(
            "a central directory record runs past the directory",
        ));
    }
    let mut rec = Record {
        made_by: u16_at(b, 4),
        flags: u16_at(b, 8),
        method: u16_at(b, 10),
        dos_time: u32_at(b, 12),
        compressed: u64::from(u32_at(b, 20)),
        size: u64::from(u32_at(b, 24)),
        local: u64::from(u32_at(b, 42)),
        external: u32_at(b, 38),
        raw_name: &b[CENTRAL_FIXED..CENTRAL_FIXED + n],
        extra: &b[CENTRAL_FIXED + n..CENTRAL_FIXED + n + m],
    };
    if rec.size == 0xFFFF_FFFF || rec.compressed == 0xFFFF_FFFF || rec.local == 0xFFFF_FFFF {
        // The zip64 field holds, in order, only the values that overflowed.
        let field = extra_field(rec.extra, 0x0001).unwrap_or(&[]);
        let mut at = 0;
        let mut next = |v: &mut u64| {
            if *v == 0xFFFF_FFFF {
                if let Some(bytes) = field.get(at..at + 8) {
                    *v = u64::from_le_bytes(bytes.try_into().expect("8 bytes"));
                }
                at += 8;
            }
        };
        next(&mut rec.size);
        next(&mut rec.compressed);
        next(&mut rec.local);
    }
    Ok((rec, len))
}

/// A window onto the central directory: records are read from it, and it
/// moves when one is not wholly inside.
pub(crate) struct Window {
    buf: Vec<u8>,
    /// The window's first byte, as an offset into the directory.
    start: u64,
}

impl Window {
    pub fn new() -> Window {
        Window {
            buf: Vec::new(),
            start: 0,
        }
    }

    /// The bytes of the record at `at` (an offset into the directory).
    pub fn record_at<F: SourceFile>(
        &mut self,
        file: &F,
        dir: &Directory,
        at: u64,
    ) -> io::Result<&[u8]> {
        let have = |w: &Window, len: usize| {
            at >= w.start && at + len as u64 <= w.start + w.buf.len() as u64
        };
        if !have(self, CENTRAL_FIXED) || {
            let i = (at - self.start) as usize;
            let b = &self.buf[i..];
            u32_at(b, 0) != CENTRAL
                || !have(
                    self,
                    CENTRAL_FIXED
                        + usize::from(u16_at(b, 28))
                        + usize::from(u16_at(b, 30))
                        + usize::from(u16_at(b, 32)),
                )
        } {
            let len = (dir.len.saturating_sub(at)).min(ARCHIVE_WINDOW as u64) as usize;
            self.buf.resize(len, 0);
            read_exact_at(file, &mut self.buf, dir.start + at)?;
            self.start = at;
        }
        Ok(&self.buf[(at - self.start) as usize..])
    }
}

/// Reads the directory (twice, see `tree`): the tree of folders, the
/// summary, and why the index stops before the directory's end if it does
/// (its [`IndexBudget`] ran out: it holds the records read before).
///
/// # Errors
/// `CORRUPT` for a damaged record; the file's read errors.
pub(crate) fn index<F: SourceFile>(
    file: &F,
    dir: &Directory,
) -> io::Result<(Tree, Summary, Option<CanopyError>)> {
    let mut budget = IndexBudget::new();
    let mut tree = TreeBuilder::default();
    let mut summary = Summary {
        comment: dir.comment.clone(),
        claimed_entries: Some(dir.claimed_entries),
        ..Summary::default()
    };
    let mut window = Window::new();
    let mut path = Vec::new();
    let mut cut = None;
    let full = budget.deadline();
    budget.until_share(COUNTING_SHARE_PERCENT);
    // Counting: as far as the budget goes; placing then files exactly those.
    let (mut at, mut counted) = (0u64, 0u64);
    while at < dir.len {
        let (rec, len) = parse_record(window.record_at(file, dir, at)?)?;
        rec.path_into(&mut path);
        let loc = u32::try_from(at)
            .ok()
            .filter(|&l| l <= MAX_LOC)
            .ok_or_else(|| corrupt("the directory is too large"))?;
        let kind = rec.kind(&path);
        let trimmed = path.strip_suffix(b"/").unwrap_or(&path);
        let afford = budget.work(len as u64).and_then(|()| {
            budget.fits(
                tree.held(),
                TreeBuilder::most_added(trimmed, kind == EntryKind::Folder),
            )
        });
        if let Err(c) = afford {
            cut = Some(c);
            break;
        }
        let raw = unsafe_reason(trimmed).is_some();
        summary.count(kind, rec.size, rec.compressed, rec.encrypted());
        summary.unsafe_names += u64::from(raw);
        tree.count(trimmed, kind == EntryKind::Folder, raw, loc);
        at += len as u64;
        counted += 1;
    }
    let end = at;
    budget.until_share(100);
    debug_assert_eq!(budget.deadline(), full);
    tree.start_placing();
    let (mut at, mut placed) = (0u64, 0u64);
    while at < end {
        let (rec, len) = parse_record(window.record_at(file, dir, at)?)?;
        // Past the budget the tree stays whole: a folder's records are
        // those placed so far (see `TreeBuilder::place`).
        if let Err(c) = budget.work(len as u64) {
            cut = cut.or(Some(c));
            break;
        }
        rec.path_into(&mut path);
        let kind = rec.kind(&path);
        let trimmed = path.strip_suffix(b"/").unwrap_or(&path);
        let raw = unsafe_reason(trimmed).is_some();
        // `at` was checked to fit a record's loc while counting.
        tree.place(trimmed, kind == EntryKind::Folder, raw, at as u32);
        at += len as u64;
        placed += 1;
    }
    debug_assert!(placed <= counted);
    let stopped = cut.map(|c: Cut| {
        c.error(&format!(
            "the {placed} entries in the first {} KiB of its directory",
            at >> 10
        ))
    });
    Ok((tree.finish(), summary, stopped))
}

/// Where an entry's compressed bytes are: `[start, start + compressed)`.
pub(crate) fn data_range<F: SourceFile>(
    file: &F,
    dir: &Directory,
    rec: &Record<'_>,
) -> io::Result<(u64, u64)> {
    let local = rec
        .local
        .checked_add(dir.shift)
        .filter(|&at| at < file.size())
        .ok_or_else(|| corrupt("an entry's local header lies outside the file"))?;
    let mut header = [0u8; 30];
    read_exact_at(file, &mut header, local)?;
    if u32_at(&header, 0) != LOCAL {
        return Err(corrupt("an entry's local header is missing"));
    }
    let start = local + 30 + u64::from(u16_at(&header, 26)) + u64::from(u16_at(&header, 28));
    let end = start
        .checked_add(rec.compressed)
        .ok_or_else(|| corrupt("an entry's size overflows"))?;
    if end > file.size() {
        return Err(corrupt("an entry's data runs past the end of the file"));
    }
    Ok((start, end))
}

/// A record's facts for the listing, read at `loc`.
pub(crate) struct Found {
    pub meta: Meta,
    pub encrypted: bool,
}

/// Reads the record at `loc` into `path` and returns its facts.
pub(crate) fn entry_at<F: SourceFile>(
    file: &Arc<F>,
    dir: &Directory,
    window: &mut Window,
    loc: u32,
    path: &mut Vec<u8>,
) -> io::Result<Found> {
    let (rec, _) = parse_record(window.record_at(&**file, dir, u64::from(loc))?)?;
    rec.path_into(path);
    let meta = rec.meta(path);
    Ok(Found {
        meta,
        encrypted: rec.encrypted(),
    })
}
