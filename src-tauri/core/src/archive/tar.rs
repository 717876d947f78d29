//! Tar archives, plain or compressed as a whole (gzip, bzip2, xz, zstd).
//!
//! A tar is a stream of 512-byte headers, each followed by its entry's data
//! padded to 512. A compressed one can only be read front to back, so its
//! index is read once and kept: per entry its name (the last segment, or
//! the whole raw path when unsafe), kind, size, time, link target and where
//! its data starts in the uncompressed stream. Headers in the ustar, v7,
//! GNU (`L`/`K` long names, `S` sparse files, `V` volume labels, `D`
//! dumpdirs) and pax (`x`, and Solaris `X`, records: path, linkpath, size,
//! mtime, GNU sparse 0.0, 0.1 and 1.0) forms are read, signed checksums
//! too; global pax records are skipped: each entry is listed as bsdtar and
//! GNU tar list it.
//!
//! A sparse file is listed with its real size and reads with its holes as
//! zeros (`sparse`); a hard link names the entry it links to and reads as
//! that entry (`links`); an entry a header gets wrong (a pax number past 64
//! bits, a sparse map that lies) is listed with its error. In a compressed
//! tar, each entry named like an archive is told by its first bytes in the
//! indexing pass, and a small archive kept whole (`Nested`), so that neither
//! listing nor opening it decompresses the tar again from its start.
//! Reading the headers is held to an [`IndexBudget`] (time, and memory:
//! names' bytes count).
#![forbid(unsafe_code)]

use std::io::{self, Read};
use std::sync::Arc;
use std::time::Instant;

mod header;
mod links;
mod sparse;
#[cfg(test)]
mod tests;

use self::header::{checksum_ok, cstr, octal, PaxSparse, Pending};
use super::budget::{Cut, IndexBudget};
use super::decode::{self, Codec, Range, RatioGuard};
use super::names::unsafe_reason;
use super::sniff::{named_like_archive, sniff};
use super::tree::{Tree, TreeBuilder};
use super::{corrupt, corrupt_error, Summary};
use crate::error::{code_of, CanopyError, ErrorCode};
use crate::limits::{
    ARCHIVE_LINK_MAX, ARCHIVE_NESTED_KEEP_MAX, ARCHIVE_NESTED_KEPT_MAX, ARCHIVE_SNIFF_BYTES,
    MAX_TIME_MS,
};
use crate::wire::ArchiveFormat;

pub(crate) use self::header::is_header;
pub(crate) use self::links::HardLink;
use self::links::Resolved;
pub(crate) use self::sparse::{stored_before, Holes};

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

/// What a few members have besides the facts every member has.
#[derive(Debug, Default)]
pub(crate) struct Extra {
    /// What its headers get wrong: it is listed, never read.
    pub problem: Option<CanopyError>,
    /// A sparse file: its runs, a range of [`TarIndex::runs`].
    sparse: Option<(usize, usize)>,
    /// An entry of a compressed tar named like an archive.
    pub nested: Option<Nested>,
}

/// An entry of a compressed tar named like an archive, as the indexing
/// pass found it.
#[derive(Debug, Clone)]
pub(crate) struct Nested {
    /// What its first bytes say.
    pub format: Option<ArchiveFormat>,
    /// Its bytes, when it is an archive small enough to keep
    /// (`ARCHIVE_NESTED_KEEP_MAX`, `ARCHIVE_NESTED_KEPT_MAX` in all).
    pub bytes: Option<Arc<[u8]>>,
}

#[derive(Debug, Default)]
pub(crate) struct TarIndex {
    pub members: Vec<Member>,
    names: Vec<u8>,
    /// Why the index stops before the archive's end, if it does.
    pub stopped: Option<CanopyError>,
    /// The members that have an [`Extra`], by member number (ascending).
    extras: Vec<(u32, Extra)>,
    /// The sparse files' runs: (logical offset, length) of each run of data.
    runs: Vec<(u64, u64)>,
    /// The hard links (member numbers, ascending) and what each leads to,
    /// once the whole index is read: 12 bytes a link.
    hard: Vec<(u32, Resolved)>,
    /// The files some hard link links to (member numbers, ascending).
    linked: Vec<u32>,
}

impl TarIndex {
    /// The memory it holds, in bytes (its tree's apart): members, names,
    /// extras, sparse runs, hard links and the archives kept inside it.
    pub fn held(&self) -> u64 {
        let kept: usize = self
            .extras
            .iter()
            .filter_map(|(_, e)| e.nested.as_ref()?.bytes.as_ref().map(|b| b.len()))
            .sum();
        (self.members.len() * std::mem::size_of::<Member>()
            + self.names.len()
            + self.extras.len() * std::mem::size_of::<(u32, Extra)>()
            + self.runs.len() * std::mem::size_of::<(u64, u64)>()
            + self.hard.len() * std::mem::size_of::<(u32, Resolved)>()
            + self.linked.len() * std::mem::size_of::<u32>()
            + kept) as u64
    }

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

    /// What member `loc` has besides the common facts, if anything.
    pub fn extra(&self, loc: u32) -> Option<&Extra> {
        let i = self.extras.binary_search_by_key(&loc, |e| e.0).ok()?;
        Some(&self.extras[i].1)
    }

    /// The file whose bytes member `loc` has, when that file has more than
    /// one name (a hard link, or a file a hard link links to): one file,
    /// met under each name.
    pub fn one_file(&self, loc: u32) -> Option<u32> {
        match self.resolved(loc) {
            Some(Resolved::To(to)) => Some(to),
            Some(_) => None,
            None => self.linked.binary_search(&loc).is_ok().then_some(loc),
        }
    }

    fn resolved(&self, loc: u32) -> Option<Resolved> {
        let i = self.hard.binary_search_by_key(&loc, |h| h.0).ok()?;
        Some(self.hard[i].1)
    }

    /// What hard link `loc` leads to (`None` when it is no hard link).
    pub fn hard_link(&self, loc: u32) -> Option<HardLink> {
        let target = self.link(&self.members[loc as usize]).unwrap_or_default();
        let resolved = self.resolved(loc)?;
        Some(resolved.told(target, |to| self.members[to as usize].kind))
    }

    /// What the indexing pass found of the file member `loc` has (a hard
    /// link: the file it links to), when it is named like an archive.
    pub fn nested(&self, loc: u32) -> Option<&Nested> {
        let file = self.one_file(loc).unwrap_or(loc);
        self.extra(file)?.nested.as_ref()
    }

    /// A sparse file's runs: (logical offset, length), in order.
    pub fn runs(&self, extra: &Extra) -> Option<&[(u64, u64)]> {
        extra.sparse.map(|(a, b)| &self.runs[a..b])
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

/// `size` rounded up to whole blocks, if that is a number.
fn padded(size: u64) -> Option<u64> {
    size.checked_next_multiple_of(BLOCK)
}

/// A tar's block: every header and every entry's data fills whole ones.
const BLOCK: u64 = 512;

/// A path as tar writers give it, without the `./` that `tar -C dir .`
/// puts before every name (`None` for the top folder's own entry).
pub(super) fn without_dot_slash(mut path: &[u8]) -> Option<&[u8]> {
    while let Some(rest) = path.strip_prefix(b"./") {
        path = rest;
    }
    (!path.is_empty() && path != b".").then_some(path)
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
    // Bytes of archives inside this one kept so far (`Nested`).
    let mut kept = 0u64;
    let mut header = [0u8; 512];
    let stop = loop {
        let budget_cut = |c: Cut, idx: &TarIndex, stream: &Stream<F>| {
            c.error(&format!(
                "the {} entries in its first {} MiB",
                idx.members.len(),
                stream.position() >> 20
            ))
        };
        let timeout = |idx: &TarIndex, stream: &Stream<F>| budget_cut(Cut::Time, idx, stream);
        let failed = |e: io::Error, idx: &TarIndex, stream: &Stream<F>| {
            if code_of(&e) == ErrorCode::Timeout {
                timeout(idx, stream)
            } else {
                CanopyError::from_io(&e, "reading the archive failed")
            }
        };
        if let Err(c) = budget.work(512) {
            break Some(budget_cut(c, &idx, &stream));
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
            // `g`: global pax records; `V`: a GNU volume label (no entry, as bsdtar).
            b'L' | b'K' | b'x' | b'X' | b'g' | b'V' => {
                let data = match read_data(&mut stream, size, EXTENDED_HEADER_MAX) {
                    Ok(d) => d,
                    Err(e) if e.code == ErrorCode::Timeout => break Some(timeout(&idx, &stream)),
                    Err(e) => break Some(e),
                };
                if let Err(c) = budget.work(data.len() as u64) {
                    break Some(budget_cut(c, &idx, &stream));
                }
                match flag {
                    b'L' => pending.path = Some(cstr(&data).to_vec()),
                    b'K' => pending.link = Some(cstr(&data).to_vec()),
                    b'x' | b'X' => header::apply_pax(&data, &mut pending),
                    _ => {}
                }
                continue;
            }
            _ => {}
        }
        let mut p = std::mem::take(&mut pending);
        if let Some(s) = p.size {
            size = s;
        }
        let ustar = &header[257..263] == b"ustar\0";
        let named = p.sparse.name.take().or(p.path.take());
        let path = named.unwrap_or_else(|| {
            let name = cstr(&header[0..100]);
            let prefix = if ustar { cstr(&header[345..500]) } else { &[] };
            if prefix.is_empty() {
                name.to_vec()
            } else {
                [prefix, b"/", name].concat()
            }
        });
        let link = p
            .link
            .take()
            .unwrap_or_else(|| cstr(&header[157..257]).to_vec());
        let (kind, hard_link) = match flag {
            b'1' => (EntryKind::File, true),
            b'2' => (EntryKind::Symlink, false),
            b'3' => (EntryKind::CharDevice, false),
            b'4' => (EntryKind::BlockDevice, false),
            // `D`: a GNU dumpdir, a folder whose data lists its names.
            b'5' | b'D' => (EntryKind::Folder, false),
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
        let regular = kind == EntryKind::File && !hard_link;
        let mut extra = Extra {
            problem: p.problem.take(),
            ..Extra::default()
        };
        let mut shown = if regular { size } else { 0 };
        // Bytes of the entry's data read here (a 1.0 sparse map, or a look
        // inside it), and why the archive is cut there if it is.
        let mut consumed = 0u64;
        let mut cut = None;
        if regular {
            match read_sparse(&mut stream, &header, &p.sparse, data_len) {
                Ok(None) => {}
                Ok(Some(sparse)) => {
                    shown = sparse.real;
                    consumed = sparse.map_bytes;
                    match sparse.runs {
                        Ok(runs) => {
                            let start = idx.runs.len();
                            idx.runs.extend(runs);
                            extra.sparse = Some((start, idx.runs.len()));
                        }
                        Err(problem) => {
                            extra.problem.get_or_insert(problem);
                        }
                    }
                }
                Err(e) => cut = Some(e),
            }
        }
        let data = stream.position();
        let Some(path) = without_dot_slash(&path) else {
            if let Some(e) = cut {
                break Some(failed(e, &idx, &stream));
            }
            // The top folder's own entry (`./`): it is the archive itself.
            match stream.skip(data_blocks - consumed) {
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
            break Some(budget_cut(c, &idx, &stream));
        }
        // Only a whole regular file's bytes are what they are (a sparse one's
        // stored runs are not its first bytes).
        let plain = regular && extra.sparse.is_none() && extra.problem.is_none() && consumed == 0;
        let packed = matches!(stream, Stream::Packed(_));
        if plain && packed && !is_unsafe && cut.is_none() && named_like_archive(listed) {
            match look_inside(&mut stream, listed, size, &mut kept) {
                Ok((nested, read)) => {
                    extra.nested = Some(nested);
                    consumed = read;
                }
                Err(e) => cut = Some(e),
            }
        }
        let name = idx.push_name(listed);
        let link = (matches!(kind, EntryKind::Symlink) || hard_link)
            .then(|| idx.push_name(&link[..link.len().min(ARCHIVE_LINK_MAX)]));
        idx.members.push(Member {
            name,
            link,
            kind,
            hard_link,
            size: shown,
            modified_ms: mtime_ms,
            data,
        });
        let has_extra = extra.problem.is_some() || extra.sparse.is_some() || extra.nested.is_some();
        if has_extra {
            idx.extras.push((loc, extra));
        }
        let claimed = match (regular, hard_link) {
            (true, _) => shown,
            (_, true) => 0,
            _ => data_len,
        };
        summary.count(kind, claimed, 0, false);
        summary.unsafe_names += u64::from(is_unsafe);
        tree.add(trimmed, kind == EntryKind::Folder, is_unsafe, loc);
        if let Some(e) = cut {
            break Some(failed(e, &idx, &stream));
        }
        match stream.skip(data_blocks - consumed) {
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
    idx.extras.shrink_to_fit();
    idx.runs.shrink_to_fit();
    let tree = tree.finish();
    links::resolve(&tree, &mut idx);
    Ok((tree, idx, summary))
}

/// A sparse entry's map, as read: its real size, the bytes of its data the
/// map took (1.0), and its runs or why they cannot be trusted.
struct SparseRead {
    real: u64,
    map_bytes: u64,
    runs: Result<Vec<(u64, u64)>, CanopyError>,
}

/// Reads the map of the entry whose header is `header`, if it is a sparse
/// file: from the extension blocks after the header (old GNU) or from the
/// start of its data (pax 1.0), or from its pax records (0.0, 0.1).
///
/// # Errors
/// The stream's: it ends or fails inside the map (the archive is cut there).
fn read_sparse<F: SourceFile>(
    stream: &mut Stream<F>,
    header: &[u8; 512],
    pax: &PaxSparse,
    data_len: u64,
) -> io::Result<Option<SparseRead>> {
    let mut block = [0u8; 512];
    if header[156] == b'S' {
        let mut runs = Vec::new();
        let (real, mut extended) = sparse::old_gnu_header(header, &mut runs);
        let (real, mut problem) = match real {
            Ok(real) => (real, None),
            Err(e) => (0, Some(e)),
        };
        // Every extension block is passed over, whatever the map holds.
        let mut blocks = 0u64;
        while extended {
            if stream.read_full(&mut block)? < block.len() {
                return Err(corrupt(
                    "the archive ends inside a sparse map (it is truncated)",
                ));
            }
            blocks += 1;
            extended = sparse::extension_continues(&block);
            if problem.is_none() {
                problem =
                    sparse::old_gnu_extension(&block, &mut runs, blocks, EXTENDED_HEADER_MAX).err();
            }
        }
        let runs = match problem {
            Some(e) => Err(e),
            None => sparse::check(&runs, real, data_len).map(|()| runs),
        };
        return Ok(Some(SparseRead {
            real,
            map_bytes: 0,
            runs,
        }));
    }
    if !pax.any() {
        return Ok(None);
    }
    let (mut map_bytes, mut failed) = (0u64, None);
    let runs = if pax.major == Some(1) {
        let next = |b: &mut [u8; 512]| match stream.read_full(b) {
            Ok(512) => {
                map_bytes += 512;
                Ok(())
            }
            Ok(_) => {
                failed = Some(corrupt(
                    "the archive ends inside a sparse map (it is truncated)",
                ));
                Err(corrupt_error("cut"))
            }
            Err(e) => {
                failed = Some(e);
                Err(corrupt_error("cut"))
            }
        };
        sparse::map_in_data(next, data_len, EXTENDED_HEADER_MAX).map(|(runs, _)| runs)
    } else {
        sparse::pax_runs(&pax.map, pax.blocks)
    };
    if let Some(e) = failed {
        return Err(e);
    }
    let stored = data_len - map_bytes;
    let real = pax.real_size.unwrap_or(stored);
    let runs = match (runs, pax.real_size) {
        (Err(e), _) => Err(e),
        (Ok(_), None) => Err(corrupt_error("its sparse records give no real size")),
        (Ok(runs), Some(_)) => sparse::check(&runs, real, stored).map(|()| runs),
    };
    Ok(Some(SparseRead {
        real,
        map_bytes,
        runs,
    }))
}

/// The first bytes of an entry named like an archive in a compressed tar,
/// told while the indexing pass goes by (as `sniff::head_of` would read
/// them), and the whole entry when it is an archive small enough to keep.
/// The bytes of the entry it read.
///
/// # Errors
/// The stream's; `CORRUPT` when it ends inside the entry.
fn look_inside<F: SourceFile>(
    stream: &mut Stream<F>,
    name: &[u8],
    size: u64,
    kept: &mut u64,
) -> io::Result<(Nested, u64)> {
    let head = size.min(ARCHIVE_SNIFF_BYTES as u64) as usize;
    let mut bytes = vec![0; head];
    let truncated = || corrupt("the archive ends inside an entry's data (it is truncated)");
    if stream.read_full(&mut bytes)? < head {
        return Err(truncated());
    }
    let format = sniff(&bytes, name);
    let fits = size <= ARCHIVE_NESTED_KEEP_MAX && *kept + size <= ARCHIVE_NESTED_KEPT_MAX;
    if format.is_none() || !fits {
        let nested = Nested {
            format,
            bytes: None,
        };
        return Ok((nested, head as u64));
    }
    bytes.resize(size as usize, 0);
    if stream.read_full(&mut bytes[head..])? < bytes.len() - head {
        return Err(truncated());
    }
    *kept += size;
    let nested = Nested {
        format,
        bytes: Some(bytes.into()),
    };
    Ok((nested, size))
}
