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

mod blob;
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
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

pub use self::blob::Blob;
use self::decode::{Codec, Range, RatioGuard};
use self::tree::Tree;
use crate::error::{code_of, CanopyError, ErrorCode};
use crate::limits::{
    ARCHIVE_CACHE, ARCHIVE_LINK_MAX, ARCHIVE_NESTED_MEMORY_MAX, ARCHIVE_NESTING_MAX,
    ARCHIVE_RATIO_MAX, ARCHIVE_RATIO_SLACK, ARCHIVE_SKIP_MAX, ARCHIVE_SNIFF_BYTES,
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
    let input = HeadReader {
        bytes: head.to_vec(),
        at: 0,
        ran_out: Arc::new(AtomicBool::new(false)),
    };
    let ran_out = input.ran_out.clone();
    let n = decode::decoder(codec, input).and_then(|mut d| decode::fill(&mut d, &mut first));
    match n {
        Ok(512) => tar::is_header(&first).then_some(format),
        // The first block is larger than the head: the name decides, and
        // opening the archive checks its first header.
        _ if ran_out.load(Ordering::Relaxed) && head.len() >= ARCHIVE_SNIFF_BYTES => {
            named_as(name, format).then_some(format)
        }
        // Data no decoder makes sense of: not an archive, whatever its name.
        _ => None,
    }
}

/// A file's first bytes, read by a decoder; notes when it asked for more.
struct HeadReader {
    bytes: Vec<u8>,
    at: usize,
    ran_out: Arc<AtomicBool>,
}

impl Read for HeadReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = buf.len().min(self.bytes.len() - self.at);
        buf[..n].copy_from_slice(&self.bytes[self.at..self.at + n]);
        self.at += n;
        if n == 0 && !buf.is_empty() {
            self.ran_out.store(true, Ordering::Relaxed);
        }
        Ok(n)
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
    /// 1 for an archive on the wrapped source, 2 inside it, ...
    level: u8,
    /// Tells this archive's folders from those of archives nested in the
    /// same file (they share its stamp).
    salt: u64,
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
        Archive::open_at(Arc::new(file), format, stamp, 1, 0)
    }

    fn open_at(
        file: Arc<F>,
        format: ArchiveFormat,
        stamp: Option<FileStamp>,
        level: u8,
        salt: u64,
    ) -> io::Result<Archive<F>> {
        let (tree, body, summary) = match format {
            ArchiveFormat::Zip => {
                let dir = zip::directory(&*file)?;
                let (tree, summary) = zip::index(&*file, &dir)?;
                (tree, Body::Zip(dir), summary)
            }
            _ => {
                let (tree, idx, summary) = tar::index(&file, codec_of(format))?;
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
            level,
            salt,
        })
    }

    /// The regular file of record `r`.
    fn member(self: &Arc<Self>, r: tree::Record) -> io::Result<Member<F>> {
        match &self.body {
            Body::Zip(_) => Member::of_zip(self, r.loc(), false),
            Body::Tar(_) => Member::of_tar(self, r.loc()),
        }
    }

    fn identity(&self, folder: u32) -> Identity {
        let (dev, ino) = self.stamp.map_or((0, 0), |s| (s.dev, s.ino));
        Identity {
            dev,
            ino: (ino.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ self.salt ^ u64::from(folder))
                | 1 << 63,
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
    /// Files read that are named like archives, and where they are (to look
    /// at their first bytes if shown).
    archive_like: Mutex<HashMap<Box<[u8]>, tree::Record>>,
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
            archive_like: Mutex::new(HashMap::new()),
        }
    }

    /// The record `name` of this folder, if it is one.
    fn record_named(&self, name: &[u8]) -> io::Result<Option<tree::Record>> {
        if let Some(&r) = self
            .archive_like
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(name)
        {
            return Ok(Some(r));
        }
        match self.find(name) {
            Ok((Hit::Record(r), _)) => Ok(Some(r)),
            Ok((Hit::Folder(_), _)) => Ok(None),
            Err(e) if e.raw_os_error() == Some(libc::ENOENT) => Ok(None),
            Err(e) => Err(e),
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
                let found = zip::entry_at(&a.file, dir, window, r.loc(), path)?;
                if !r.is_raw() {
                    let trimmed = path.strip_suffix(b"/").unwrap_or(path).len();
                    path.truncate(trimmed);
                    let cut = path.iter().rposition(|&b| b == b'/').map_or(0, |i| i + 1);
                    path.drain(..cut);
                }
                Ok((found.meta, found.encrypted))
            }
            Body::Tar(idx) => {
                let m = &idx.members[r.loc() as usize];
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
        let rec = tree::Record::raw(loc);
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
    /// The names given so far, to tell duplicates (in folders of at most
    /// `DUPLICATES_CHECKED` entries; `None` past that).
    seen: Option<std::collections::HashSet<Box<[u8]>>>,
    next: usize,
    window: zip::Window,
    path: Vec<u8>,
}

/// Entries given per batch (the engine checks its deadline between batches).
const BATCH: usize = 512;

/// Folders of at most this many entries say which names occur twice
/// (`DUPLICATE`); a larger one lists both silently (telling would hold
/// every name of the folder).
const DUPLICATES_CHECKED: usize = 4096;

impl<F: SourceFile> ArchiveEntries<'_, F> {
    /// Notes `name` as a duplicate when it was given before.
    fn seen_again(&mut self, name: &[u8]) {
        let Some(seen) = &mut self.seen else { return };
        if !seen.insert(name.into()) {
            let mut notes = self.folder.notes.lock().unwrap_or_else(|e| e.into_inner());
            if notes.len() < NOTES_MAX {
                notes.entry(name.into()).or_insert_with(|| {
                    CanopyError::new(
                        ErrorCode::Duplicate,
                        "another entry of the archive has this path; both are listed",
                    )
                });
            }
        }
    }
}

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
                self.seen_again(tree.name(sub));
                each(RawEntry {
                    name: tree.name(sub),
                    kind: Some(EntryKind::Folder),
                    meta: Some(meta),
                });
                continue;
            }
            let r = recs[i - subs.len()];
            let (meta, encrypted) = f.record(r, &mut self.window, &mut self.path)?;
            if meta.kind == EntryKind::File && !r.is_raw() && named_like_archive(&self.path) {
                let mut like = f.archive_like.lock().unwrap_or_else(|e| e.into_inner());
                if like.len() < NOTES_MAX {
                    like.insert(self.path.clone().into(), r);
                }
            }
            let path = std::mem::take(&mut self.path);
            self.seen_again(&path);
            self.path = path;
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
        let tree = &self.archive.tree;
        let small =
            tree.subfolders(self.id).len() + tree.records(self.id).len() <= DUPLICATES_CHECKED;
        Ok(ArchiveEntries {
            folder: self,
            seen: small.then(std::collections::HashSet::new),
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
                .link(&idx.members[r.loc() as usize])
                .unwrap_or_default()
                .to_vec()),
            Body::Zip(_) => {
                // A zip keeps a link's target as its content.
                let member = Member::of_zip(&self.archive, r.loc(), true)?;
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
        let raw = self.id == 0 && (name.contains(&b'/') || names::unsafe_reason(name).is_some());
        if raw {
            return EntryNote {
                archive: None,
                problem: Some(unsafe_error(name)),
                examine: false,
            };
        }
        let problem = self
            .notes
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(name)
            .cloned();
        // An archive inside this one is told by its first bytes too (at most
        // a few KiB decompressed), and listed as one; opening it is bounded
        // by nesting and size (`Archive::open_nested`).
        let examine = kind == EntryKind::File && problem.is_none() && named_like_archive(name);
        EntryNote {
            archive: None,
            problem,
            examine,
        }
    }

    fn archive_format(&self, name: &[u8]) -> io::Result<Option<ArchiveFormat>> {
        let Some(record) = self.record_named(name)? else {
            return Ok(None);
        };
        let member = self.archive.member(record)?;
        Ok(sniff(&member_head(&member)?, name))
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
        let truncated = m
            .data
            .checked_add(m.size)
            .is_none_or(|end| end > archive.file.size());
        if archive.format == ArchiveFormat::Tar && truncated {
            return Err(zip::corrupt(
                "the entry's data is cut short (the archive is truncated)",
            ));
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

    /// Where its bytes lie unchanged in the archive's file (stored), if they do.
    fn in_place(&self) -> Option<u64> {
        match self.how {
            MemberData::Zip {
                start,
                codec: Codec::Stored,
                ..
            }
            | MemberData::TarPlain { start } => Some(start),
            _ => None,
        }
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
                let mut s = tar::Stream::open(&file, codec_of(self.archive.format), None)?;
                if !s.skip(data)? {
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
        if n == 0 && !buf.is_empty() && offset < self.size {
            return Err(zip::corrupt(
                "the entry's data ends before its stated size (the archive is damaged)",
            ));
        }
        *open = Some((offset + n as u64, stream));
        Ok(n)
    }
}

/// The first bytes of a member (decompressed, bounded by the ratio guard).
fn member_head<F: SourceFile>(m: &Member<F>) -> io::Result<Vec<u8>> {
    let mut head = vec![0; ARCHIVE_SNIFF_BYTES];
    let n = m.read_at(&mut head, 0)?;
    head.truncate(n);
    Ok(head)
}

impl<X: SourceFile> Archive<Blob<X>> {
    /// The archive that record `r` (named `name`) of this one holds, if it
    /// holds one: read in place when stored, else into memory once (at most
    /// `ARCHIVE_NESTED_MEMORY_MAX`), and never deeper than `ARCHIVE_NESTING_MAX`.
    ///
    /// # Errors
    /// `ENOTDIR` when the entry is no archive; `TOO_DEEP`, `TOO_LARGE`; the
    /// entry's own errors (`ENCRYPTED`, `RATIO` ...).
    fn open_nested(
        self: &Arc<Self>,
        r: tree::Record,
        name: &[u8],
    ) -> io::Result<Arc<Archive<Blob<X>>>> {
        let member = self.member(r).map_err(|e| {
            if code_of(&e) == ErrorCode::NotAFile {
                io::Error::from_raw_os_error(libc::ENOTDIR)
            } else {
                e
            }
        })?;
        let Some(format) = sniff(&member_head(&member)?, name) else {
            return Err(io::Error::from_raw_os_error(libc::ENOTDIR));
        };
        if self.level >= ARCHIVE_NESTING_MAX {
            return Err(CanopyError::new(
                ErrorCode::TooDeep,
                format!("an archive inside {ARCHIVE_NESTING_MAX} levels of archives is listed, not opened"),
            )
            .into_io());
        }
        let size = member.size();
        let blob = match member.in_place() {
            Some(start) => Blob::Window { outer: self.file.clone(), start, len: size },
            None if size <= ARCHIVE_NESTED_MEMORY_MAX => {
                let mut bytes = vec![0; size as usize];
                let mut got = 0;
                while got < bytes.len() {
                    match member.read_at(&mut bytes[got..], got as u64)? {
                        0 => return Err(zip::corrupt("the inner archive ends before its stated size")),
                        n => got += n,
                    }
                }
                Blob::Memory(bytes.into())
            }
            None => {
                return Err(CanopyError::new(
                    ErrorCode::TooLarge,
                    format!(
                        "this compressed archive inside an archive holds {} MiB; Canopy opens one of at most {} MiB (a stored one, any size)",
                        size >> 20,
                        ARCHIVE_NESTED_MEMORY_MAX >> 20
                    ),
                )
                .into_io())
            }
        };
        let salt = (self.salt ^ u64::from(r.loc()).wrapping_mul(0xA24B_AED4_963E_E407))
            .rotate_left(17)
            ^ u64::from(self.level);
        Ok(Arc::new(Archive::open_at(
            Arc::new(blob),
            format,
            self.stamp,
            self.level + 1,
            salt,
        )?))
    }
}

/// A source and the archives inside it (see the module docs).
pub struct WithArchives<S: Source> {
    inner: S,
    /// The archives opened last, with what their (outermost) file was then.
    cache: Arc<Mutex<Vec<(PathBuf, FileStamp, Arc<Archive<Blob<S::File>>>)>>>,
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

/// Where a path inside archives leads: the innermost archive it runs
/// through, the deepest folder of it the path names, and the segments left.
pub(crate) struct Located<'p, F: SourceFile> {
    pub archive: Arc<Archive<F>>,
    pub folder: u32,
    pub rest: Vec<&'p [u8]>,
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

    fn cached(&self, path: &Path, stamp: Option<FileStamp>) -> Option<Arc<Archive<Blob<S::File>>>> {
        let stamp = stamp?;
        let cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        cache
            .iter()
            .find(|(p, s, _)| p == path && *s == stamp)
            .map(|(_, _, a)| a.clone())
    }

    fn keep(&self, path: &Path, stamp: Option<FileStamp>, archive: &Arc<Archive<Blob<S::File>>>) {
        let Some(stamp) = stamp else { return };
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        cache.retain(|(p, _, _)| p != path);
        if cache.len() >= ARCHIVE_CACHE {
            cache.remove(0);
        }
        cache.push((path.to_path_buf(), stamp, archive.clone()));
    }

    /// Splits `path` at the archive it runs through: the archive, and the
    /// path's segments inside it.
    ///
    /// # Errors
    /// `ENOTDIR` when no regular file on the way is an archive; the source's
    /// error when one cannot be opened.
    fn split<'p>(
        &self,
        path: &'p Path,
    ) -> io::Result<(Arc<Archive<Blob<S::File>>>, PathBuf, Vec<&'p [u8]>)> {
        // From the top down: the first prefix that is a regular file ends the
        // real filesystem's part (however deep the path runs inside it).
        let mut prefix = PathBuf::new();
        for component in path.components() {
            prefix.push(component);
            match self.inner.open_file(&prefix) {
                Ok(file) => {
                    let rest = path
                        .strip_prefix(&prefix)
                        .map_err(|_| io::Error::from_raw_os_error(libc::ENOENT))?;
                    let segments = rest.iter().map(|s| s.as_bytes()).collect();
                    let stamp = file.stamp();
                    if let Some(archive) = self.cached(&prefix, stamp) {
                        return Ok((archive, prefix, segments));
                    }
                    let name = prefix.file_name().map_or(&b""[..], |n| n.as_bytes());
                    let Some(format) = sniff(&read_head(&file)?, name) else {
                        return Err(io::Error::from_raw_os_error(libc::ENOTDIR));
                    };
                    let archive = Arc::new(Archive::open(Blob::Whole(file), format)?);
                    self.keep(&prefix, stamp, &archive);
                    return Ok((archive, prefix, segments));
                }
                // A folder (or a fifo or device, never opened): go on down.
                Err(e) if e.code == ErrorCode::NotAFile => continue,
                Err(e) if e.code == ErrorCode::NotADirectory => break,
                Err(e) => return Err(e.into_io()),
            }
        }
        Err(io::Error::from_raw_os_error(libc::ENOTDIR))
    }

    /// Follows `path` into the archive it runs through, and into the
    /// archives inside that one: the innermost archive, its deepest folder
    /// on the path, and the segments left (an entry that is no folder and no
    /// archive, or nothing).
    ///
    /// # Errors
    /// As [`WithArchives::split`]; `TOO_DEEP`, `TOO_LARGE` and an entry's own
    /// errors for an archive inside one that cannot be opened.
    pub(crate) fn locate<'p>(&self, path: &'p Path) -> io::Result<Located<'p, Blob<S::File>>> {
        let (mut archive, outer, segments) = self.split(path)?;
        let stamp = archive.stamp;
        let mut folder = 0;
        let mut at = outer;
        let mut i = 0;
        while i < segments.len() {
            let segment = segments[i];
            if let Some(sub) = archive.tree.subfolder(folder, segment) {
                folder = sub;
                at.push(std::ffi::OsStr::from_bytes(segment));
                i += 1;
                continue;
            }
            // The entry is no folder: the path goes on inside it only if it is an archive.
            let dir = ArchiveFolder::new(archive.clone(), folder);
            let Some(record) = dir.record_named(segment)? else {
                break;
            };
            if record.is_raw() {
                return Err(unsafe_error(segment).into_io());
            }
            at.push(std::ffi::OsStr::from_bytes(segment));
            archive = match self.cached(&at, stamp) {
                Some(a) => a,
                None => {
                    let inner = archive.open_nested(record, segment)?;
                    self.keep(&at, stamp, &inner);
                    inner
                }
            };
            folder = 0;
            i += 1;
        }
        Ok(Located {
            archive,
            folder,
            rest: segments[i..].to_vec(),
        })
    }

    /// What the archive at `path` is (the preview pane of an archive).
    ///
    /// # Errors
    /// `NOT_A_FILE` when `path` is no archive; the archive's own errors.
    pub fn summary(&self, path: &Path) -> Result<ArchiveSummary, CanopyError> {
        let found = self
            .locate(path)
            .map_err(|e| CanopyError::from_io(&e, "cannot open the archive"))?;
        if !found.rest.is_empty() || found.folder != 0 {
            return Err(CanopyError::new(
                ErrorCode::NotAFile,
                "this is not an archive (it is an entry inside one)",
            ));
        }
        Ok(found.archive.summary())
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
