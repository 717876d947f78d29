//! Archives opened like folders: a zip or a tar (plain, gzip, bzip2, xz,
//! zstd) is a [`Source`] of its own, read in place and never extracted.
//!
//! [`WithArchives`] wraps another source (the local disk) and continues a
//! path through a regular file that is an archive inside it:
//! `/dl/site.zip/assets/logo.png`. The real filesystem wins where both could
//! match (the wrapped source is asked first). An archive is told by its
//! first bytes, never by its name alone; a listing looks only at the shown
//! files whose names say archive (`EntryNote::archive`), and opens none.
//!
//! Inside an archive every promise of a folder holds: the engine's walk,
//! caps, orders and budgets run unchanged over [`ArchiveFolder`]. Names are
//! untrusted: one that would climb out or merge (`names::unsafe_reason`)
//! is listed whole, in the archive's top folder, marked `UNSAFE_NAME`, and
//! never opened. Symlink entries are shown with their target and never
//! followed. Decompression is bounded by the preview's chunk and the ratio
//! guard (`decode::RatioGuard`).
#![forbid(unsafe_code)]

mod decode;
mod names;
mod tar;
mod tree;
mod with;
mod zip;

use std::collections::HashMap;
use std::io::{self, Read};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use self::decode::{Codec, Range, RatioGuard};
use self::tree::{Tree, RAW_NAME};
use crate::error::{CanopyError, ErrorCode};
use crate::limits::{
    ARCHIVE_CACHE, ARCHIVE_LINK_MAX, ARCHIVE_RATIO_MAX, ARCHIVE_RATIO_SLACK, ARCHIVE_SKIP_MAX,
    ARCHIVE_SNIFF_BYTES,
};
use crate::source::{
    EntryNote, EntryStream, FileStamp, Identity, Meta, RawEntry, Source, SourceFile, SourceFolder,
};
use crate::wire::{ArchiveFormat, ArchiveSummary, EntryKind};

/// Names whose ending says "archive": only such files of a listing are
/// looked at (their first bytes decide).
const ZIP_ENDINGS: [&[u8]; 11] = [
    b".zip", b".jar", b".war", b".ear", b".apk", b".aar", b".whl", b".xpi", b".nupkg", b".vsix",
    b".cbz",
];
const TAR_ENDINGS: [&[u8]; 11] = [
    b".tar",
    b".tgz",
    b".tbz",
    b".tbz2",
    b".txz",
    b".tzst",
    b".tar.gz",
    b".tar.bz2",
    b".tar.xz",
    b".tar.zst",
    b".taz",
];

/// Whether a file named `name` may be an archive (its bytes decide).
pub(crate) fn named_like_archive(name: &[u8]) -> bool {
    let lower = name.to_ascii_lowercase();
    ZIP_ENDINGS
        .iter()
        .chain(TAR_ENDINGS.iter())
        .any(|end| lower.ends_with(end) && lower.len() > end.len())
}

/// The archive format of a file named `name` whose first bytes are `head`,
/// if it is one Canopy reads. A compressed file is an archive when what its
/// first bytes decompress to starts with a tar header, or, when they are too
/// few to decompress a whole block, when its name says it is a tar of that
/// compression (`.tar.zst`, `.tgz` ...): then its first header is checked
/// when it is opened.
pub(crate) fn sniff(head: &[u8], name: &[u8]) -> Option<ArchiveFormat> {
    if head.len() >= 4
        && &head[..2] == b"PK"
        && matches!(&head[2..4], b"\x03\x04" | b"\x05\x06" | b"\x07\x08")
    {
        return Some(ArchiveFormat::Zip);
    }
    if tar::is_header(head) {
        return Some(ArchiveFormat::Tar);
    }
    let (format, codec) = if head.starts_with(&[0x1f, 0x8b]) {
        (ArchiveFormat::TarGz, Codec::Gzip)
    } else if head.starts_with(b"BZh") {
        (ArchiveFormat::TarBz2, Codec::Bzip2)
    } else if head.starts_with(&[0xFD, b'7', b'z', b'X', b'Z', 0]) {
        (ArchiveFormat::TarXz, Codec::Xz)
    } else if head.starts_with(&[0x28, 0xB5, 0x2F, 0xFD]) {
        (ArchiveFormat::TarZst, Codec::Zstd)
    } else {
        return None;
    };
    let mut first = [0u8; 512];
    let n = decode::decoder(codec, io::Cursor::new(head.to_vec()))
        .and_then(|mut d| decode::fill(&mut d, &mut first));
    match n {
        Ok(512) => tar::is_header(&first).then_some(format),
        // A first block larger than the head: the name decides, the open checks.
        _ if head.len() >= ARCHIVE_SNIFF_BYTES => named_as(name, format).then_some(format),
        _ => None,
    }
}

/// Whether `name` ends like a tar compressed as `format`.
fn named_as(name: &[u8], format: ArchiveFormat) -> bool {
    let lower = name.to_ascii_lowercase();
    let endings: &[&[u8]] = match format {
        ArchiveFormat::TarGz => &[b".tar.gz", b".tgz", b".taz"],
        ArchiveFormat::TarBz2 => &[b".tar.bz2", b".tbz", b".tbz2"],
        ArchiveFormat::TarXz => &[b".tar.xz", b".txz"],
        ArchiveFormat::TarZst => &[b".tar.zst", b".tzst"],
        ArchiveFormat::Zip | ArchiveFormat::Tar => &[],
    };
    endings.iter().any(|end| lower.ends_with(end))
}

fn codec_of(format: ArchiveFormat) -> Codec {
    match format {
        ArchiveFormat::Zip | ArchiveFormat::Tar => Codec::Stored,
        ArchiveFormat::TarGz => Codec::Gzip,
        ArchiveFormat::TarBz2 => Codec::Bzip2,
        ArchiveFormat::TarXz => Codec::Xz,
        ArchiveFormat::TarZst => Codec::Zstd,
    }
}

/// What an archive holds, as its index counted it.
#[derive(Debug, Default, Clone)]
pub(crate) struct Summary {
    pub files: u64,
    pub folders: u64,
    pub links: u64,
    pub others: u64,
    pub size: u64,
    pub compressed: u64,
    pub encrypted: u64,
    pub unsafe_names: u64,
    pub comment: Vec<u8>,
    pub claimed_entries: Option<u64>,
    /// For a tar: how far into the uncompressed stream the index read.
    pub read_bytes: Option<u64>,
}

impl Summary {
    fn count(&mut self, kind: EntryKind, size: u64, compressed: u64, encrypted: bool) {
        match kind {
            EntryKind::File => self.files += 1,
            EntryKind::Folder => self.folders += 1,
            EntryKind::Symlink => self.links += 1,
            _ => self.others += 1,
        }
        self.size = self.size.saturating_add(size);
        self.compressed = self.compressed.saturating_add(compressed);
        self.encrypted += u64::from(encrypted);
    }
}

enum Body {
    Zip(zip::Directory),
    Tar(tar::TarIndex),
}

/// An opened archive: its file, its tree of folders, and what its format
/// needs to find an entry again.
pub(crate) struct Archive<F: SourceFile> {
    file: Arc<F>,
    format: ArchiveFormat,
    tree: Tree,
    body: Body,
    summary: Summary,
    stamp: Option<FileStamp>,
}

impl<F: SourceFile> Archive<F> {
    /// Reads `file`'s index as `format`.
    ///
    /// # Errors
    /// `CORRUPT` for a zip whose directory cannot be found or read; the
    /// file's read errors. A tar's damage past its first header is not an
    /// error: the index stops there and says why.
    fn open(file: F, format: ArchiveFormat) -> io::Result<Archive<F>> {
        let stamp = file.stamp();
        let file = Arc::new(file);
        let (tree, body, summary) = match format {
            ArchiveFormat::Zip => {
                let dir = zip::directory(&*file)?;
                let (tree, summary) = zip::index(&*file, &dir)?;
                (tree, Body::Zip(dir), summary)
            }
            _ => {
                let (tree, idx, summary) = tar::index(tar::Stream::open(&file, codec_of(format))?);
                (tree, Body::Tar(idx), summary)
            }
        };
        Ok(Archive {
            file,
            format,
            tree,
            body,
            summary,
            stamp,
        })
    }

    fn identity(&self, folder: u32) -> Identity {
        let (dev, ino) = self.stamp.map_or((0, 0), |s| (s.dev, s.ino));
        Identity {
            dev,
            ino: (ino.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ u64::from(folder)) | 1 << 63,
        }
    }

    /// Why the index stops short of the archive's end, if it does.
    fn stopped(&self) -> Option<&CanopyError> {
        match &self.body {
            Body::Tar(idx) => idx.stopped.as_ref(),
            Body::Zip(_) => None,
        }
    }

    fn summary(&self) -> ArchiveSummary {
        let s = &self.summary;
        let entries = s.files + s.folders + s.links + s.others;
        ArchiveSummary {
            format: self.format,
            entries,
            files: s.files,
            folders: s.folders,
            links: s.links,
            size: s.size,
            archive_size: self.file.size(),
            encrypted: s.encrypted,
            unsafe_names: s.unsafe_names,
            comment: (!s.comment.is_empty())
                .then(|| String::from_utf8_lossy(&s.comment).into_owned()),
            claimed_entries: s.claimed_entries.filter(|&c| c != entries),
            read_bytes: s.read_bytes,
            problem: self.stopped().cloned(),
        }
    }
}

/// One entry found by name in a folder of an archive.
enum Hit {
    Folder(u32),
    Record(tree::Record),
}

/// A folder inside an archive.
pub struct ArchiveFolder<F: SourceFile> {
    archive: Arc<Archive<F>>,
    id: u32,
    /// What was learnt of shown entries while reading (encrypted ones).
    notes: Mutex<HashMap<Box<[u8]>, CanopyError>>,
}

/// At most this many encrypted names are remembered per folder for their
/// note; past it, a name is looked up again.
const NOTES_MAX: usize = 10_000;

impl<F: SourceFile> ArchiveFolder<F> {
    fn new(archive: Arc<Archive<F>>, id: u32) -> Self {
        ArchiveFolder {
            archive,
            id,
            notes: Mutex::new(HashMap::new()),
        }
    }

    /// The listed name and facts of record `r` (its name into `path`).
    fn record(
        &self,
        r: tree::Record,
        window: &mut zip::Window,
        path: &mut Vec<u8>,
    ) -> io::Result<(Meta, bool)> {
        let a = &*self.archive;
        match &a.body {
            Body::Zip(dir) => {
                let found = zip::entry_at(&a.file, dir, window, r.loc, path)?;
                if r.folder & RAW_NAME == 0 {
                    let trimmed = path.strip_suffix(b"/").unwrap_or(path).len();
                    path.truncate(trimmed);
                    let cut = path.iter().rposition(|&b| b == b'/').map_or(0, |i| i + 1);
                    path.drain(..cut);
                }
                Ok((found.meta, found.encrypted))
            }
            Body::Tar(idx) => {
                let m = &idx.members[r.loc as usize];
                path.clear();
                path.extend_from_slice(idx.name(m));
                Ok((tar::TarIndex::meta(m), false))
            }
        }
    }

    /// The facts of folder `sub`: its own entry's, when it has one.
    fn folder_meta(&self, sub: u32, window: &mut zip::Window, scratch: &mut Vec<u8>) -> Meta {
        let plain = Meta {
            kind: EntryKind::Folder,
            size: 0,
            modified_ms: None,
        };
        let Some(loc) = self.archive.tree.node(sub).explicit else {
            return plain;
        };
        let rec = tree::Record {
            folder: RAW_NAME,
            loc,
        };
        match self.record(rec, window, scratch) {
            Ok((meta, _)) => Meta {
                kind: EntryKind::Folder,
                size: 0,
                modified_ms: meta.modified_ms,
            },
            Err(_) => plain,
        }
    }

    fn find(&self, name: &[u8]) -> io::Result<(Hit, Meta)> {
        let tree = &self.archive.tree;
        let mut window = zip::Window::new();
        let mut path = Vec::new();
        if let Some(sub) = tree.subfolder(self.id, name) {
            return Ok((
                Hit::Folder(sub),
                self.folder_meta(sub, &mut window, &mut path),
            ));
        }
        for &r in tree.records(self.id) {
            let (meta, _) = self.record(r, &mut window, &mut path)?;
            if path == name {
                return Ok((Hit::Record(r), meta));
            }
        }
        Err(io::Error::from_raw_os_error(libc::ENOENT))
    }
}

/// A folder of an archive being read: its subfolders, then its other entries.
pub struct ArchiveEntries<'a, F: SourceFile> {
    folder: &'a ArchiveFolder<F>,
    next: usize,
    window: zip::Window,
    path: Vec<u8>,
}

/// Entries given per batch (the engine checks its deadline between batches).
const BATCH: usize = 512;

impl<F: SourceFile> EntryStream for ArchiveEntries<'_, F> {
    fn next_batch(&mut self, each: &mut dyn FnMut(RawEntry<'_>)) -> io::Result<bool> {
        let f = self.folder;
        let tree = &f.archive.tree;
        let subs = tree.subfolders(f.id);
        let recs = tree.records(f.id);
        let end = (self.next + BATCH).min(subs.len() + recs.len());
        while self.next < end {
            let i = self.next;
            self.next += 1;
            if let Some(&sub) = subs.get(i) {
                let meta = f.folder_meta(sub, &mut self.window, &mut self.path);
                each(RawEntry {
                    name: tree.name(sub),
                    kind: Some(EntryKind::Folder),
                    meta: Some(meta),
                });
                continue;
            }
            let (meta, encrypted) =
                f.record(recs[i - subs.len()], &mut self.window, &mut self.path)?;
            if encrypted {
                let mut notes = f.notes.lock().unwrap_or_else(|e| e.into_inner());
                if notes.len() < NOTES_MAX {
                    notes.insert(self.path.clone().into(), encrypted_error());
                }
            }
            each(RawEntry {
                name: &self.path,
                kind: Some(meta.kind),
                meta: Some(meta),
            });
        }
        if self.next < subs.len() + recs.len() {
            return Ok(true);
        }
        match f.archive.stopped() {
            Some(why) => Err(why.clone().into_io()),
            None => Ok(false),
        }
    }

    fn into_buffer(self) -> Vec<u8> {
        Vec::new()
    }
}

fn encrypted_error() -> CanopyError {
    CanopyError::new(
        ErrorCode::Encrypted,
        "the entry is encrypted: its name is listed, its content is not read",
    )
}

fn unsafe_error(name: &[u8]) -> CanopyError {
    let why = names::unsafe_reason(name.strip_suffix(b"/").unwrap_or(name))
        .unwrap_or("the name holds a / (it names a path, not an entry)");
    CanopyError::new(
        ErrorCode::UnsafeName,
        format!("{why}; listed as written, never opened"),
    )
}

fn not_followed() -> io::Error {
    CanopyError::new(
        ErrorCode::NotAFile,
        "links inside an archive are shown, never followed",
    )
    .into_io()
}

impl<F: SourceFile> SourceFolder for ArchiveFolder<F> {
    type Entries<'a> = ArchiveEntries<'a, F>;
    type Found = Identity;

    fn identity(&self) -> io::Result<(Identity, Meta)> {
        let mut window = zip::Window::new();
        let meta = self.folder_meta(self.id, &mut window, &mut Vec::new());
        Ok((self.archive.identity(self.id), meta))
    }

    fn entries(&self, buffer: Vec<u8>) -> Result<ArchiveEntries<'_, F>, (io::Error, Vec<u8>)> {
        drop(buffer);
        Ok(ArchiveEntries {
            folder: self,
            next: 0,
            window: zip::Window::new(),
            path: Vec::new(),
        })
    }

    fn stat_child(&self, name: &[u8], follow: bool) -> io::Result<Meta> {
        let (_, meta) = self.find(name)?;
        if follow && meta.kind == EntryKind::Symlink {
            return Err(not_followed());
        }
        Ok(meta)
    }

    fn read_link(&self, name: &[u8]) -> io::Result<Vec<u8>> {
        let (hit, meta) = self.find(name)?;
        let Hit::Record(r) = hit else {
            return Err(io::Error::from_raw_os_error(libc::EINVAL));
        };
        if meta.kind != EntryKind::Symlink {
            return Err(io::Error::from_raw_os_error(libc::EINVAL));
        }
        match &self.archive.body {
            Body::Tar(idx) => Ok(idx
                .link(&idx.members[r.loc as usize])
                .unwrap_or_default()
                .to_vec()),
            Body::Zip(_) => {
                // A zip keeps a link's target as its content.
                let member = Member::of_zip(&self.archive, r.loc, true)?;
                let mut target = vec![0; ARCHIVE_LINK_MAX];
                let n = member.read_at(&mut target, 0)?;
                target.truncate(n);
                Ok(target)
            }
        }
    }

    fn look_up(&self, name: &[u8]) -> io::Result<Identity> {
        match self.find(name)? {
            (Hit::Folder(sub), _) => Ok(self.archive.identity(sub)),
            _ => Err(io::Error::from_raw_os_error(libc::ENOTDIR)),
        }
    }

    fn found_identity(found: &Identity) -> io::Result<Identity> {
        Ok(*found)
    }

    fn open_child(&self, name: &[u8]) -> io::Result<Self> {
        match self.archive.tree.subfolder(self.id, name) {
            Some(sub) => Ok(ArchiveFolder::new(self.archive.clone(), sub)),
            None => match self.find(name) {
                Ok(_) => Err(io::Error::from_raw_os_error(libc::ENOTDIR)),
                Err(e) => Err(e),
            },
        }
    }

    fn open_child_here(&self, name: &[u8]) -> io::Result<Option<Self>> {
        self.open_child(name).map(Some)
    }

    fn note_child(&self, name: &[u8], kind: EntryKind) -> EntryNote {
        let _ = kind;
        let raw = self.id == 0 && (name.contains(&b'/') || names::unsafe_reason(name).is_some());
        if raw {
            return EntryNote {
                archive: None,
                problem: Some(unsafe_error(name)),
            };
        }
        let problem = self
            .notes
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(name)
            .cloned();
        EntryNote {
            archive: None,
            problem,
        }
    }
}

/// A regular file inside an archive, read by decompressing from its start
/// (a read that continues where the last one ended goes on from there).
pub struct Member<F: SourceFile> {
    archive: Arc<Archive<F>>,
    size: u64,
    how: MemberData,
    /// The stream being read and how far it is, kept between reads.
    open: Mutex<Option<(u64, Box<dyn Read + Send>)>>,
}

enum MemberData {
    /// A zip entry's compressed bytes and their codec.
    Zip { start: u64, end: u64, codec: Codec },
    /// A plain tar entry's bytes, read in place.
    TarPlain { start: u64 },
    /// A compressed tar entry: its bytes start this far into the stream.
    TarPacked { data: u64 },
}

impl<F: SourceFile> Member<F> {
    fn of_zip(archive: &Arc<Archive<F>>, loc: u32, links_too: bool) -> io::Result<Member<F>> {
        let Body::Zip(dir) = &archive.body else {
            unreachable!("a zip member of a zip")
        };
        let mut window = zip::Window::new();
        let (rec, _) = zip::parse_record(window.record_at(&*archive.file, dir, u64::from(loc))?)?;
        let mut path = Vec::new();
        rec.path_into(&mut path);
        let kind = rec.kind(&path);
        if !(kind == EntryKind::File || links_too && kind == EntryKind::Symlink) {
            return Err(
                CanopyError::new(ErrorCode::NotAFile, "this entry is not a regular file").into_io(),
            );
        }
        if rec.encrypted() {
            return Err(encrypted_error().into_io());
        }
        let codec = rec.codec()?;
        let (start, end) = zip::data_range(&*archive.file, dir, &rec)?;
        // The archive's own claim already passes the ratio guard: refuse before inflating.
        if codec != Codec::Stored
            && rec.size
                > rec
                    .compressed
                    .saturating_mul(ARCHIVE_RATIO_MAX)
                    .saturating_add(ARCHIVE_RATIO_SLACK)
        {
            return Err(CanopyError::new(
                ErrorCode::Ratio,
                format!(
                    "the entry claims {} bytes from {} compressed bytes, more than {}x: a zip bomb, or data Canopy will not inflate",
                    rec.size, rec.compressed, ARCHIVE_RATIO_MAX
                ),
            )
            .into_io());
        }
        Ok(Member {
            archive: archive.clone(),
            size: rec.size,
            how: MemberData::Zip { start, end, codec },
            open: Mutex::new(None),
        })
    }

    fn of_tar(archive: &Arc<Archive<F>>, loc: u32) -> io::Result<Member<F>> {
        let Body::Tar(idx) = &archive.body else {
            unreachable!("a tar member of a tar")
        };
        let m = &idx.members[loc as usize];
        if m.kind != EntryKind::File || m.hard_link {
            let what = if m.hard_link {
                "this entry is a hard link to another entry"
            } else {
                "this entry is not a regular file"
            };
            return Err(CanopyError::new(ErrorCode::NotAFile, what).into_io());
        }
        let how = if archive.format == ArchiveFormat::Tar {
            MemberData::TarPlain { start: m.data }
        } else {
            MemberData::TarPacked { data: m.data }
        };
        Ok(Member {
            archive: archive.clone(),
            size: m.size,
            how,
            open: Mutex::new(None),
        })
    }

    /// A stream of the entry's bytes from `offset`.
    fn stream_from(&self, offset: u64) -> io::Result<Box<dyn Read + Send>> {
        let file = self.archive.file.clone();
        let mut stream: Box<dyn Read + Send> = match self.how {
            MemberData::Zip { start, end, codec } => {
                let range = Range::new(file, start, end);
                let counter = range.counter();
                Box::new(RatioGuard::new(decode::decoder(codec, range)?, counter).take(self.size))
            }
            MemberData::TarPlain { start } => {
                return Ok(Box::new(Range::new(
                    file,
                    start + offset,
                    start + self.size,
                )));
            }
            MemberData::TarPacked { data } => {
                if data > ARCHIVE_SKIP_MAX {
                    return Err(CanopyError::new(
                        ErrorCode::TooLarge,
                        format!(
                            "this entry starts {} MiB into the compressed stream; a preview decompresses at most {} MiB to reach it",
                            data >> 20,
                            ARCHIVE_SKIP_MAX >> 20
                        ),
                    )
                    .into_io());
                }
                let mut s = tar::Stream::open(&file, codec_of(self.archive.format))?;
                if !s.skip(data, None)? {
                    return Err(zip::corrupt("the archive ends before this entry's data"));
                }
                Box::new(StreamTake {
                    stream: s,
                    left: self.size,
                })
            }
        };
        if offset > ARCHIVE_SKIP_MAX {
            return Err(CanopyError::new(
                ErrorCode::TooLarge,
                format!(
                    "a preview decompresses at most {} MiB to reach its offset",
                    ARCHIVE_SKIP_MAX >> 20
                ),
            )
            .into_io());
        }
        if !decode::skip(&mut stream, offset)? {
            return Err(zip::corrupt("the entry's data ends before its stated size"));
        }
        Ok(stream)
    }
}

/// The first `left` bytes of a tar stream.
struct StreamTake<F: SourceFile> {
    stream: tar::Stream<F>,
    left: u64,
}

impl<F: SourceFile> Read for StreamTake<F> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let want = buf
            .len()
            .min(usize::try_from(self.left).unwrap_or(usize::MAX));
        if want == 0 {
            return Ok(0);
        }
        let n = self.stream.read_full(&mut buf[..want])?;
        self.left -= n as u64;
        Ok(n)
    }
}

impl<F: SourceFile> SourceFile for Member<F> {
    fn size(&self) -> u64 {
        self.size
    }

    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        let mut stream = match open.take() {
            Some((at, s)) if at == offset => s,
            _ => self.stream_from(offset)?,
        };
        let n = decode::fill(&mut stream, buf)?;
        *open = Some((offset + n as u64, stream));
        Ok(n)
    }
}

/// A source and the archives inside it (see the module docs).
pub struct WithArchives<S: Source> {
    inner: S,
    /// The archives opened last, with what their file was then.
    cache: Arc<Mutex<Vec<(PathBuf, FileStamp, Arc<Archive<S::File>>)>>>,
}

impl<S: Source> Clone for WithArchives<S> {
    fn clone(&self) -> Self {
        WithArchives {
            inner: self.inner.clone(),
            cache: self.cache.clone(),
        }
    }
}

impl<S: Source + std::fmt::Debug> std::fmt::Debug for WithArchives<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WithArchives")
            .field("inner", &self.inner)
            .finish_non_exhaustive()
    }
}

impl<S: Source> WithArchives<S> {
    pub fn new(inner: S) -> Self {
        WithArchives {
            inner,
            cache: Arc::new(Mutex::new(Vec::new())),
        }
    }

    /// The wrapped source.
    pub fn inner(&self) -> &S {
        &self.inner
    }

    /// The archive `file` (at `path`) as `format`, from the cache when the
    /// file is unchanged.
    fn archive(
        &self,
        path: &Path,
        file: S::File,
        format: ArchiveFormat,
    ) -> io::Result<Arc<Archive<S::File>>> {
        let stamp = file.stamp();
        if let Some(stamp) = stamp {
            let cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
            if let Some((_, _, a)) = cache.iter().find(|(p, s, _)| p == path && *s == stamp) {
                return Ok(a.clone());
            }
        }
        let archive = Arc::new(Archive::open(file, format)?);
        if let Some(stamp) = stamp {
            let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
            cache.retain(|(p, _, _)| p != path);
            if cache.len() >= ARCHIVE_CACHE {
                cache.remove(0);
            }
            cache.push((path.to_path_buf(), stamp, archive.clone()));
        }
        Ok(archive)
    }

    /// Splits `path` at the archive it runs through: the archive, and the
    /// path's segments inside it.
    ///
    /// # Errors
    /// `ENOTDIR` when no regular file on the way is an archive; the source's
    /// error when one cannot be opened.
    fn split<'p>(&self, path: &'p Path) -> io::Result<(Arc<Archive<S::File>>, Vec<&'p [u8]>)> {
        for prefix in path.ancestors().take(64) {
            match self.inner.open_file(prefix) {
                Ok(file) => {
                    let name = prefix.file_name().map_or(&b""[..], |n| n.as_bytes());
                    let Some(format) = sniff(&read_head(&file)?, name) else {
                        return Err(io::Error::from_raw_os_error(libc::ENOTDIR));
                    };
                    let archive = self.archive(prefix, file, format)?;
                    let rest = path
                        .strip_prefix(prefix)
                        .map_err(|_| io::Error::from_raw_os_error(libc::ENOENT))?;
                    let segments = rest.iter().map(|s| s.as_bytes()).collect();
                    return Ok((archive, segments));
                }
                Err(e) if e.code == ErrorCode::NotADirectory || e.code == ErrorCode::NotFound => {
                    continue
                }
                // A folder, fifo or device on the way: no archive, and nothing was opened.
                Err(e) if e.code == ErrorCode::NotAFile => break,
                Err(e) => return Err(e.into_io()),
            }
        }
        Err(io::Error::from_raw_os_error(libc::ENOTDIR))
    }

    /// What the archive at `path` is (the preview pane of an archive).
    ///
    /// # Errors
    /// `NOT_A_FILE` when `path` is no archive; the archive's own errors.
    pub fn summary(&self, path: &Path) -> Result<ArchiveSummary, CanopyError> {
        let (archive, rest) = self
            .split(path)
            .map_err(|e| CanopyError::from_io(&e, "cannot open the archive"))?;
        if !rest.is_empty() {
            return Err(CanopyError::new(
                ErrorCode::NotAFile,
                "this is not an archive (it is an entry inside one)",
            ));
        }
        Ok(archive.summary())
    }
}

/// The first bytes of `file`, enough to tell an archive.
fn read_head<F: SourceFile>(file: &F) -> io::Result<Vec<u8>> {
    let mut head = vec![0; ARCHIVE_SNIFF_BYTES];
    let mut got = 0;
    while got < head.len() {
        match file.read_at(&mut head[got..], got as u64) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    head.truncate(got);
    Ok(head)
}
