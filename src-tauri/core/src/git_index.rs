//! The paths a repository tracks, read from its index (`$GIT_DIR/index`),
//! for the ignore rules: git never ignores a tracked path, and never hides
//! a folder that holds one ([`crate::ignore_rules`]).
//!
//! What is read, as git's `read-cache.c` and `split-index.c` read it:
//! index versions 2, 3 and 4 (v4's names compressed against the name
//! before), with SHA-1 or SHA-256 object names (told apart by which of the
//! two layouts the file follows end to end, since the repository's config
//! is not read); a split index (the `link` extension: the shared index
//! `sharedindex.<hash>` beside it, minus its deleted entries, plus the
//! split file's own); a sparse index (the `sdir` extension: an entry
//! `dir/` stands for everything git tracks below it, so everything below
//! counts as tracked). Optional extensions (an upper-case first letter:
//! the cache tree, the untracked cache, ...) are skipped; another required
//! one is refused as git refuses it (`UNSUPPORTED`), as is another version.
//! The checksum at the end is not verified (no hash is computed); an index
//! that does not follow the format is `CORRUPT`, never half used.
//!
//! Bounds: the file is at most `MAX_GIT_INDEX_BYTES` (a larger one is
//! `TOO_LARGE`, unread); it is read in windows of `INDEX_READ_WINDOW`
//! bytes, never whole; the names kept (v4's can be far longer than the file)
//! are at most the `room` the caller gives, past which it is `TOO_LARGE`;
//! every entry and name byte is a step on the caller's [`Meter`], so the
//! read stops at the folder's deadline (`TIMEOUT`) or a cancel. A stated
//! count or length is checked against the bytes left before it is used:
//! nothing is allocated from it. The names are kept sorted, once each, in
//! one buffer, and looked up by binary search.
//!
//! A hostile index can only make entries count as tracked, so shown: it can
//! never hide one.
#![forbid(unsafe_code)]

use std::io;
use std::ops::Range;
use std::os::unix::fs::FileExt;

use crate::error::{CanopyError, ErrorCode};
use crate::ignore_pattern::{Halt, Meter};

mod format;

use format::{corrupt, ewah_bits, parse, parse_either, Allowance, Link, Parsed};

/// What a [`Span`]'s `len` holds besides the length: the entry is a submodule.
const SPAN_GITLINK: u32 = 1 << 31;

/// Where one name lies in [`Tracked::names`].
#[derive(Debug, Clone, Copy)]
struct Span {
    start: u32,
    /// Its length, with `SPAN_GITLINK` set for a submodule.
    len: u32,
}

/// The paths an index holds, sorted by their bytes (git's order), each once.
#[derive(Debug, Default)]
pub(crate) struct Tracked {
    names: Vec<u8>,
    spans: Vec<Span>,
}

/// Where a read index comes from: positioned reads of its bytes.
pub(crate) trait ReadAt {
    /// As [`FileExt::read_at`].
    ///
    /// # Errors
    /// The source's.
    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize>;
}

impl ReadAt for std::fs::File {
    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        FileExt::read_at(self, buf, offset)
    }
}

impl ReadAt for Vec<u8> {
    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        self.as_slice().read_at(buf, offset)
    }
}

impl ReadAt for [u8] {
    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        let start = usize::try_from(offset)
            .unwrap_or(usize::MAX)
            .min(self.len());
        let n = buf.len().min(self.len() - start);
        buf[..n].copy_from_slice(&self[start..start + n]);
        Ok(n)
    }
}

/// Why an index was not used.
#[derive(Debug)]
pub(crate) enum Fault {
    /// Not in git's format (the message says where).
    Corrupt(String),
    Unsupported(String),
    /// Larger than read, or its names larger than the room given.
    TooLarge(String),
    /// A file in its place is not a regular file (it is never opened).
    NotAFile(String),
    Halted(Halt),
    Io(io::Error),
}

impl From<Halt> for Fault {
    fn from(h: Halt) -> Fault {
        Fault::Halted(h)
    }
}

impl From<io::Error> for Fault {
    fn from(e: io::Error) -> Fault {
        Fault::Io(e)
    }
}

impl Fault {
    /// The error of a folder whose repository's index is `what` and was not used.
    pub(crate) fn error(self, what: &str) -> CanopyError {
        let then = "so which of its files are tracked is not known, and nothing in it is hidden";
        match self {
            Fault::Corrupt(why) => CanopyError::new(
                ErrorCode::Corrupt,
                format!("{what} is not a git index as git writes one ({why}); {then}"),
            ),
            Fault::Unsupported(why) => CanopyError::new(
                ErrorCode::Unsupported,
                format!("{what} {why}, which Canopy does not read; {then}"),
            ),
            Fault::TooLarge(why) => {
                CanopyError::new(ErrorCode::TooLarge, format!("{what} {why}; {then}"))
            }
            Fault::NotAFile(why) => {
                CanopyError::new(ErrorCode::NotAFile, format!("{what}: {why}; {then}"))
            }
            Fault::Halted(Halt::Cancelled) => CanopyError::cancelled(),
            Fault::Halted(Halt::Deadline) => CanopyError::new(
                ErrorCode::Timeout,
                format!("reading {what} took longer than this folder's time budget; {then}"),
            ),
            Fault::Io(e) => CanopyError::from_io(&e, &format!("cannot read {what}; {then}")),
        }
    }
}

/// How an index file is opened: its bytes, or none (no such file).
pub(crate) trait IndexFiles {
    type File: ReadAt;
    /// Opens `name` (`index`, or `sharedindex.<hash>`), with its size, or
    /// `None` when there is none.
    ///
    /// # Errors
    /// Why it could not be opened (not a regular file, denied ...).
    fn open(&self, name: &[u8]) -> Result<Option<(Self::File, u64)>, Fault>;
}

impl Tracked {
    /// Reads the index `index` of `files` (and its shared index, for a
    /// split one), keeping at most `room` bytes of paths. A repository
    /// without an index tracks nothing.
    ///
    /// # Errors
    /// Why the index cannot be used (see [`Fault`]).
    pub(crate) fn read<F: IndexFiles>(
        files: &F,
        room: usize,
        meter: &mut Meter<'_>,
    ) -> Result<Tracked, Fault> {
        let Some((file, size)) = files.open(b"index")? else {
            return Ok(Tracked::default());
        };
        let mut a = Allowance { room, meter };
        let (own, hash) = parse_either(&file, size, &mut a)?;
        let Some(link) = own.link.as_ref().filter(|l| l.base.iter().any(|&b| b != 0)) else {
            if own.spans.iter().any(|s| s.len & !SPAN_GITLINK == 0) {
                return corrupt("an entry has no name");
            }
            return Ok(Tracked::from_sorted(own.names, own.spans));
        };
        let shared_name = format!("sharedindex.{}", hex(&link.base));
        let Some((shared_file, shared_size)) = files.open(shared_name.as_bytes())? else {
            return corrupt(format!(
                "it is split, and its shared index {shared_name} is missing"
            ));
        };
        let room_left = room.saturating_sub(own.names.len() + own.spans.len() * size_of::<Span>());
        let mut b = Allowance {
            room: room_left,
            meter: a.meter,
        };
        let shared = parse(&shared_file, shared_size, hash, &mut b)?;
        if shared.link.is_some() {
            return corrupt(format!("its shared index {shared_name} is split too"));
        }
        if shared.trailer != link.base {
            return corrupt(format!(
                "its shared index {shared_name} is not the one it names"
            ));
        }
        merge(&own, link, &shared, b.meter)
    }

    /// A `Tracked` from names already in git's order (equal ones are kept once).
    fn from_sorted(names: Vec<u8>, spans: Vec<Span>) -> Tracked {
        let mut t = Tracked {
            names,
            spans: Vec::with_capacity(spans.len()),
        };
        for s in spans {
            t.push_unique(s);
        }
        t.names.shrink_to_fit();
        t.spans.shrink_to_fit();
        t
    }

    /// Adds a span of `names` after the last, unless it names the same path
    /// (a conflict's stages): then a submodule's mark is kept.
    fn push_unique(&mut self, s: Span) {
        if let Some(last) = self.spans.last_mut() {
            let name = |x: Span| {
                &self.names[x.start as usize..(x.start + (x.len & !SPAN_GITLINK)) as usize]
            };
            if name(*last) == name(s) {
                last.len |= s.len & SPAN_GITLINK;
                return;
            }
        }
        self.spans.push(s);
    }

    /// How many paths it holds.
    pub(crate) fn len(&self) -> usize {
        self.spans.len()
    }

    /// The bytes it holds (what a listing is charged for it).
    pub(crate) fn held_bytes(&self) -> usize {
        self.names.capacity() + self.spans.capacity() * size_of::<Span>()
    }

    /// The path at `i`, in git's order.
    pub(crate) fn path(&self, i: usize) -> &[u8] {
        let s = self.spans[i];
        &self.names[s.start as usize..(s.start + (s.len & !SPAN_GITLINK)) as usize]
    }

    /// The paths of `within` that start with `prefix`.
    pub(crate) fn under(&self, prefix: &[u8], within: Range<usize>) -> Range<usize> {
        let slice = &self.spans[within.clone()];
        let name =
            |s: &Span| &self.names[s.start as usize..(s.start + (s.len & !SPAN_GITLINK)) as usize];
        let lo = slice.partition_point(|s| name(s) < prefix);
        let n = slice[lo..].partition_point(|s| name(s).starts_with(prefix));
        within.start + lo..within.start + lo + n
    }

    /// Where `path` is among `within`, if it is there.
    fn find(&self, path: &[u8], within: Range<usize>) -> Option<usize> {
        let r = self.under(path, within);
        (r.start < r.end && self.path(r.start) == path).then_some(r.start)
    }

    /// Whether `path` is tracked (an entry of it, of any kind), among `within`.
    pub(crate) fn has(&self, path: &[u8], within: Range<usize>) -> bool {
        self.find(path, within).is_some()
    }

    /// Whether `path` is a submodule (a gitlink entry), among `within`.
    pub(crate) fn is_submodule(&self, path: &[u8], within: Range<usize>) -> bool {
        self.find(path, within)
            .is_some_and(|i| self.spans[i].len & SPAN_GITLINK != 0)
    }
}

/// A split index read over its shared index: the shared entries less those
/// deleted, and the split file's own after its replacements (git's
/// `merge_base_index`; a replacement keeps its entry's name).
fn merge(
    own: &Parsed,
    link: &Link,
    shared: &Parsed,
    meter: &mut Meter<'_>,
) -> Result<Tracked, Fault> {
    let n = shared.spans.len();
    let mut gone = vec![false; n];
    let mut replaced = vec![false; n];
    let mut replacements = 0usize;
    ewah_bits(&link.replace, n, meter, |p| {
        replaced[p] = true;
        replacements += 1;
        Ok(())
    })?;
    ewah_bits(&link.delete, n, meter, |p| {
        if replaced[p] {
            return corrupt("an entry is both replaced and deleted");
        }
        gone[p] = true;
        Ok(())
    })?;
    if replacements > own.spans.len() {
        return corrupt("it replaces more entries than it holds");
    }
    let (swaps, added) = own.spans.split_at(replacements);
    if swaps.iter().any(|s| s.len & !SPAN_GITLINK != 0) {
        return corrupt("a replacement has a name");
    }
    if added.iter().any(|s| s.len & !SPAN_GITLINK == 0) {
        return corrupt("an entry has no name");
    }
    if shared.spans.iter().any(|s| s.len & !SPAN_GITLINK == 0) {
        return corrupt("an entry of its shared index has no name");
    }
    // A replacement's mode may make it a submodule (or no longer one).
    let mut swapped = swaps.iter();
    let kept: Vec<(usize, u32)> = (0..n)
        .filter(|&i| !gone[i])
        .map(|i| {
            let mark = if replaced[i] {
                swapped.next().map_or(0, |s| s.len & SPAN_GITLINK)
            } else {
                shared.spans[i].len & SPAN_GITLINK
            };
            (i, mark)
        })
        .collect();
    let mut t = Tracked {
        names: Vec::with_capacity(shared.names.len() + own.names.len()),
        spans: Vec::with_capacity(kept.len() + added.len()),
    };
    let push = |t: &mut Tracked, name: &[u8], mark: u32| {
        let start = t.names.len() as u32;
        t.names.extend_from_slice(name);
        t.push_unique(Span {
            start,
            len: name.len() as u32 | mark,
        });
    };
    let (mut i, mut j) = (0, 0);
    while i < kept.len() || j < added.len() {
        meter.spend(1)?;
        let left = kept
            .get(i)
            .map(|&(k, mark)| (shared.name(shared.spans[k]), mark));
        let right = added.get(j).map(|&s| (own.name(s), s.len & SPAN_GITLINK));
        match (left, right) {
            (Some(l), Some(r)) if l.0 <= r.0 => {
                push(&mut t, l.0, l.1);
                i += 1;
            }
            (Some(l), None) => {
                push(&mut t, l.0, l.1);
                i += 1;
            }
            (_, Some(r)) => {
                if t.spans.last().is_some_and(|&s| {
                    t.names[s.start as usize..(s.start + (s.len & !SPAN_GITLINK)) as usize] > *r.0
                }) {
                    return corrupt("its entries are not in git's order");
                }
                push(&mut t, r.0, r.1);
                j += 1;
            }
            (None, None) => break,
        }
    }
    t.names.shrink_to_fit();
    t.spans.shrink_to_fit();
    Ok(t)
}

/// The paths of an index given as bytes (`index`, and the shared index a
/// split one names, by its file name), read within `room` bytes of paths,
/// each once in git's order (the `e2e` build only: the reader's attack
/// tests).
///
/// # Errors
/// Why the index cannot be used.
#[cfg(feature = "e2e")]
pub fn paths_of_bytes(
    index: &[u8],
    shared: Option<(&[u8], &[u8])>,
    room: usize,
) -> Result<Vec<Vec<u8>>, CanopyError> {
    struct Given<'a>(&'a [u8], Option<(&'a [u8], &'a [u8])>);
    impl IndexFiles for Given<'_> {
        type File = Vec<u8>;
        fn open(&self, name: &[u8]) -> Result<Option<(Vec<u8>, u64)>, Fault> {
            let bytes = match self.1 {
                _ if name == b"index" => self.0,
                Some((n, b)) if n == name => b,
                _ => return Ok(None),
            };
            Ok(Some((bytes.to_vec(), bytes.len() as u64)))
        }
    }
    let t = Tracked::read(&Given(index, shared), room, &mut Meter::new(None, None))
        .map_err(|f| f.error("the index"))?;
    Ok((0..t.len()).map(|i| t.path(i).to_vec()).collect())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::format::{NAME_MASK, STAT_BYTES};
    use super::*;

    /// Files held in memory, by name.
    struct InMemory(Vec<(&'static [u8], Vec<u8>)>);

    impl IndexFiles for InMemory {
        type File = Vec<u8>;
        fn open(&self, name: &[u8]) -> Result<Option<(Vec<u8>, u64)>, Fault> {
            Ok(self
                .0
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, b)| (b.clone(), b.len() as u64)))
        }
    }

    /// An index of `version` holding `names` (in the order given), SHA-1.
    fn index(version: u32, names: &[&[u8]]) -> Vec<u8> {
        let mut out = b"DIRC".to_vec();
        out.extend_from_slice(&version.to_be_bytes());
        out.extend_from_slice(&(names.len() as u32).to_be_bytes());
        let mut prev: &[u8] = b"";
        for name in names {
            let mut e = vec![0u8; STAT_BYTES + 20];
            e[24..28].copy_from_slice(&0o100_644u32.to_be_bytes());
            e.extend_from_slice(&(name.len().min(NAME_MASK) as u16).to_be_bytes());
            if version == 4 {
                let common = prev
                    .iter()
                    .zip(name.iter())
                    .take_while(|(a, b)| a == b)
                    .count();
                e.push((prev.len() - common) as u8);
                e.extend_from_slice(&name[common..]);
                e.push(0);
            } else {
                e.extend_from_slice(name);
                let padded = (STAT_BYTES + 22 + name.len() + 8) & !7;
                e.resize(padded, 0);
            }
            out.extend_from_slice(&e);
            prev = name;
        }
        out.extend_from_slice(&[0; 20]);
        out
    }

    fn read(bytes: Vec<u8>) -> Result<Tracked, Fault> {
        Tracked::read(
            &InMemory(vec![(b"index", bytes)]),
            usize::MAX,
            &mut Meter::unbounded(),
        )
    }

    fn paths(t: &Tracked) -> Vec<Vec<u8>> {
        (0..t.len()).map(|i| t.path(i).to_vec()).collect()
    }

    #[test]
    fn every_version_reads_the_same_paths() {
        let names: &[&[u8]] = &[b"a", b"a.b/c", b"a/b", b"a/bc", b"b\xff", b"z"];
        for v in 2..=4 {
            let t = read(index(v, names)).unwrap_or_else(|e| panic!("v{v}: {e:?}"));
            assert_eq!(paths(&t), names, "version {v}");
        }
    }

    #[test]
    fn a_folder_and_its_paths_are_found_by_prefix() {
        let t = read(index(2, &[b"a/b", b"a/c/d", b"ab", b"sub"])).unwrap();
        let all = 0..t.len();
        assert_eq!(t.under(b"a/", all.clone()), 0..2);
        assert!(t.has(b"ab", all.clone()) && !t.has(b"a", all.clone()));
        assert_eq!(t.under(b"a/c/", 0..2), 1..2);
        assert!(t.under(b"b/", all).is_empty());
    }

    #[test]
    fn a_count_past_the_files_bytes_is_corrupt_before_anything_is_allocated() {
        let mut bytes = index(2, &[b"a"]);
        bytes[8..12].copy_from_slice(&u32::MAX.to_be_bytes());
        assert!(matches!(read(bytes), Err(Fault::Corrupt(_))));
    }

    #[test]
    fn v4_names_longer_than_the_room_given_are_too_large_not_kept() {
        // Each name adds one byte to the one before: the file grows by n,
        // the names by n^2/2.
        let names: Vec<Vec<u8>> = (1..=600).map(|n| vec![b'a'; n]).collect();
        let refs: Vec<&[u8]> = names.iter().map(Vec::as_slice).collect();
        let bytes = index(4, &refs);
        let r = Tracked::read(
            &InMemory(vec![(b"index", bytes)]),
            100_000,
            &mut Meter::unbounded(),
        );
        assert!(matches!(r, Err(Fault::TooLarge(_))), "{r:?}");
    }

    #[test]
    fn a_bitmap_claiming_billions_of_entries_is_refused_without_visiting_them() {
        // One run-length word: a run of 2^32 - 1 words of ones, for a
        // shared index of 10 entries.
        let mut bitmap = Vec::new();
        bitmap.extend_from_slice(&u32::MAX.to_be_bytes());
        bitmap.extend_from_slice(&1u32.to_be_bytes());
        bitmap.extend_from_slice(&((u64::from(u32::MAX) << 1) | 1).to_be_bytes());
        bitmap.extend_from_slice(&0u32.to_be_bytes());
        let mut visited = 0u64;
        let r = ewah_bits(&bitmap, 10, &mut Meter::unbounded(), |_| {
            visited += 1;
            Ok(())
        });
        assert!(matches!(r, Err(Fault::Corrupt(_))), "{r:?}");
        assert_eq!(visited, 0, "refused before any bit is visited");
    }

    #[test]
    fn reading_stops_at_the_folders_deadline() {
        let names: Vec<Vec<u8>> = (0..5_000)
            .map(|i| format!("f{i:05}").into_bytes())
            .collect();
        let refs: Vec<&[u8]> = names.iter().map(Vec::as_slice).collect();
        let past = std::time::Instant::now() - std::time::Duration::from_secs(1);
        let r = Tracked::read(
            &InMemory(vec![(b"index", index(2, &refs))]),
            usize::MAX,
            &mut Meter::new(Some(past), None),
        );
        assert!(matches!(r, Err(Fault::Halted(Halt::Deadline))), "{r:?}");
    }
}
