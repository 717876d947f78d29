//! [`WithArchives`]: a source and the archives in it. It finds where a path
//! enters an archive (and archives inside it), keeps the last archives'
//! indexes, and is a [`Source`] whose folders and files are either the
//! wrapped source's own or ones inside an archive.
//!
//! Only a complete index is kept (`Archive::complete`: one its budget cut
//! is read again next time, as if new), and the kept ones hold at most
//! `ARCHIVE_CACHE` indexes and `ARCHIVE_CACHE_BYTES` in all.
#![forbid(unsafe_code)]

use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use super::blob::Blob;
use super::folder::{unsafe_error, ArchiveEntries, ArchiveFolder, Hit};
use super::member::Member;
use super::sniff::{head_of, named_like_archive, sniff};
use super::Archive;
use crate::error::{CanopyError, ErrorCode};
use crate::ignore_pattern::Meter;
use crate::ignore_rules::IgnoreRules;
use crate::limits::{ARCHIVE_CACHE, ARCHIVE_CACHE_BYTES, ARCHIVE_SNIFF_BYTES};
use crate::source::{
    EntryNote, EntryStream, FileStamp, Identity, Meta, RawEntry, Source, SourceFile, SourceFolder,
    Usage,
};
use crate::wire::{ArchiveFormat, ArchiveSummary, EntryKind};

/// An archive read from a file of the source.
type Opened<S> = Arc<Archive<Blob<<S as Source>::File>>>;
/// The archives opened last, with what their (outermost) file was then.
type Cache<S> = Arc<Mutex<Vec<(PathBuf, FileStamp, Opened<S>)>>>;
/// A path split where it enters an archive: the innermost archive, the
/// outermost archive file's path, and the names inside.
type Split<'p, S> = (Opened<S>, PathBuf, Vec<&'p [u8]>);

/// A source and the archives inside it (see the module docs).
pub struct WithArchives<S: Source> {
    inner: S,
    /// The archives used last, with what their (outermost) file was then.
    cache: Cache<S>,
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

    /// `inner` and the archives in it, keeping their indexes with those
    /// `kept` keeps: one cache for every place a registry hands out.
    pub fn sharing(inner: S, kept: &WithArchives<S>) -> Self {
        WithArchives {
            inner,
            cache: kept.cache.clone(),
        }
    }

    /// The wrapped source.
    pub fn inner(&self) -> &S {
        &self.inner
    }

    /// The archive kept for `path` as it is now, if any. A hit makes it the
    /// last used, so that opening the archives inside one (each kept in
    /// turn) never pushes out the one they are in.
    fn cached(&self, path: &Path, stamp: Option<FileStamp>) -> Option<Arc<Archive<Blob<S::File>>>> {
        let stamp = stamp?;
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        let at = cache
            .iter()
            .position(|(p, s, _)| p == path && *s == stamp)?;
        let hit = cache.remove(at);
        let archive = hit.2.clone();
        cache.push(hit);
        Some(archive)
    }

    fn keep(&self, path: &Path, stamp: Option<FileStamp>, archive: &Arc<Archive<Blob<S::File>>>) {
        let Some(stamp) = stamp else { return };
        if !archive.complete() {
            return;
        }
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        cache.retain(|(p, _, _)| p != path);
        let mut held: u64 = cache.iter().map(|(_, _, a)| a.held()).sum();
        while !cache.is_empty()
            && (cache.len() >= ARCHIVE_CACHE || held + archive.held() > ARCHIVE_CACHE_BYTES)
        {
            held -= cache.remove(0).2.held();
        }
        cache.push((path.to_path_buf(), stamp, archive.clone()));
    }

    /// Splits `path` at the archive it runs through: the archive, and the
    /// path's segments inside it.
    ///
    /// # Errors
    /// `ENOTDIR` when no regular file on the way is an archive; the source's
    /// error when one cannot be opened.
    fn split<'p>(&self, path: &'p Path) -> io::Result<Split<'p, S>> {
        // From the top down: the first prefix that is a regular file ends the
        // real filesystem's part (however deep the path runs inside it).
        let mut prefix = PathBuf::new();
        for component in path.components() {
            prefix.push(component);
            // Above a place's own root (`sftp:` of a server's window path)
            // there is nothing to open.
            if !self.inner.is_crumb(&prefix) {
                continue;
            }
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
                    let Some(format) = sniff(&head_of(&file)?, name) else {
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

/// A folder of the wrapped source, or one inside an archive.
pub enum Folder<S: Source> {
    Plain(S::Folder),
    Inside(ArchiveFolder<Blob<S::File>>),
}

/// A regular file of the wrapped source, or an entry of an archive.
pub enum File<S: Source> {
    Plain(S::File),
    Inside(Member<Blob<S::File>>),
}

pub enum Entries<'a, S: Source + 'a> {
    Plain(<S::Folder as SourceFolder>::Entries<'a>),
    Inside(ArchiveEntries<'a, Blob<S::File>>),
}

pub enum Found<S: Source> {
    Plain(<S::Folder as SourceFolder>::Found),
    Inside(Identity),
}

impl<S: Source> EntryStream for Entries<'_, S> {
    fn next_batch(&mut self, each: &mut dyn FnMut(RawEntry<'_>)) -> io::Result<bool> {
        match self {
            Entries::Plain(e) => e.next_batch(each),
            Entries::Inside(e) => e.next_batch(each),
        }
    }

    fn into_buffer(self) -> Vec<u8> {
        match self {
            Entries::Plain(e) => e.into_buffer(),
            Entries::Inside(e) => e.into_buffer(),
        }
    }
}

impl<S: Source> SourceFile for File<S> {
    fn size(&self) -> u64 {
        match self {
            File::Plain(f) => f.size(),
            File::Inside(f) => f.size(),
        }
    }

    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        match self {
            File::Plain(f) => f.read_at(buf, offset),
            File::Inside(f) => f.read_at(buf, offset),
        }
    }

    fn stamp(&self) -> Option<crate::source::FileStamp> {
        match self {
            File::Plain(f) => f.stamp(),
            File::Inside(_) => None,
        }
    }

    fn descriptor(&self) -> Option<&std::fs::File> {
        match self {
            File::Plain(f) => f.descriptor(),
            File::Inside(_) => None,
        }
    }
}

impl<S: Source> SourceFolder for Folder<S> {
    type Entries<'a> = Entries<'a, S>;
    type Found = Found<S>;

    fn identity(&self) -> io::Result<(Identity, Meta)> {
        match self {
            Folder::Plain(d) => d.identity(),
            Folder::Inside(d) => d.identity(),
        }
    }

    fn entries(&self, buffer: Vec<u8>) -> Result<Entries<'_, S>, (io::Error, Vec<u8>)> {
        match self {
            Folder::Plain(d) => d.entries(buffer).map(Entries::Plain),
            Folder::Inside(d) => d.entries(buffer).map(Entries::Inside),
        }
    }

    fn can_resume(&self) -> bool {
        match self {
            Folder::Plain(d) => d.can_resume(),
            Folder::Inside(d) => d.can_resume(),
        }
    }

    fn resume_entries(&self, buffer: Vec<u8>) -> Result<Entries<'_, S>, (io::Error, Vec<u8>)> {
        match self {
            Folder::Plain(d) => d.resume_entries(buffer).map(Entries::Plain),
            Folder::Inside(d) => d.resume_entries(buffer).map(Entries::Inside),
        }
    }

    fn stat_child(&self, name: &[u8], follow: bool) -> io::Result<Meta> {
        match self {
            Folder::Plain(d) => d.stat_child(name, follow),
            Folder::Inside(d) => d.stat_child(name, follow),
        }
    }

    fn usage_child(&self, name: &[u8]) -> io::Result<Usage> {
        match self {
            Folder::Plain(d) => d.usage_child(name),
            Folder::Inside(d) => d.usage_child(name),
        }
    }

    fn usage_self(&self) -> io::Result<Usage> {
        match self {
            Folder::Plain(d) => d.usage_self(),
            Folder::Inside(d) => d.usage_self(),
        }
    }

    fn read_link(&self, name: &[u8]) -> io::Result<Vec<u8>> {
        match self {
            Folder::Plain(d) => d.read_link(name),
            Folder::Inside(d) => d.read_link(name),
        }
    }

    fn look_up(&self, name: &[u8]) -> io::Result<Found<S>> {
        match self {
            Folder::Plain(d) => d.look_up(name).map(Found::Plain),
            Folder::Inside(d) => d.look_up(name).map(Found::Inside),
        }
    }

    fn found_identity(found: &Found<S>) -> io::Result<Identity> {
        match found {
            Found::Plain(f) => <S::Folder as SourceFolder>::found_identity(f),
            Found::Inside(id) => Ok(*id),
        }
    }

    fn open_child(&self, name: &[u8]) -> io::Result<Self> {
        match self {
            Folder::Plain(d) => d.open_child(name).map(Folder::Plain),
            Folder::Inside(d) => d.open_child(name).map(Folder::Inside),
        }
    }

    fn open_child_here(&self, name: &[u8]) -> io::Result<Option<Self>> {
        match self {
            Folder::Plain(d) => d.open_child_here(name).map(|o| o.map(Folder::Plain)),
            Folder::Inside(d) => d.open_child_here(name).map(|o| o.map(Folder::Inside)),
        }
    }

    fn note_child(&self, name: &[u8], kind: EntryKind) -> EntryNote {
        match self {
            Folder::Plain(d) => {
                let mut note = d.note_child(name, kind);
                // Only files named like archives are looked at, by their first bytes.
                note.examine |=
                    kind == EntryKind::File && note.archive.is_none() && named_like_archive(name);
                note
            }
            Folder::Inside(d) => d.note_child(name, kind),
        }
    }

    fn archive_format(&self, name: &[u8]) -> io::Result<Option<ArchiveFormat>> {
        match self {
            Folder::Plain(d) => Ok(sniff(&d.read_head(name, ARCHIVE_SNIFF_BYTES)?, name)),
            Folder::Inside(d) => d.archive_format(name),
        }
    }

    fn in_archive(&self) -> bool {
        matches!(self, Folder::Inside(_))
    }

    fn read_head(&self, name: &[u8], len: usize) -> io::Result<Vec<u8>> {
        match self {
            Folder::Plain(d) => d.read_head(name, len),
            Folder::Inside(_) => Err(io::ErrorKind::Unsupported.into()),
        }
    }
}

impl<S: Source> Source for WithArchives<S> {
    type Folder = Folder<S>;
    type File = File<S>;

    fn open_folder(&self, path: &Path) -> io::Result<Folder<S>> {
        match self.inner.open_folder(path) {
            Ok(d) => Ok(Folder::Plain(d)),
            Err(e) if matches!(e.raw_os_error(), Some(libc::ENOTDIR | libc::ENAMETOOLONG)) => {
                let found = self.locate(path)?;
                match found.rest.first() {
                    None => Ok(Folder::Inside(ArchiveFolder::new(
                        found.archive,
                        found.folder,
                    ))),
                    // An entry that is no folder and no archive, or none.
                    Some(name) => {
                        let dir = ArchiveFolder::new(found.archive, found.folder);
                        let errno = match dir.record_named(name)? {
                            Some(_) => libc::ENOTDIR,
                            None => libc::ENOENT,
                        };
                        Err(io::Error::from_raw_os_error(errno))
                    }
                }
            }
            Err(e) => Err(e),
        }
    }

    fn open_file(&self, path: &Path) -> Result<File<S>, CanopyError> {
        match self.inner.open_file(path) {
            Ok(f) => Ok(File::Plain(f)),
            Err(e) if matches!(e.code, ErrorCode::NotADirectory | ErrorCode::NameTooLong) => {
                let opening = |e: io::Error| CanopyError::from_io(&e, "cannot open file");
                let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
                    return Err(e);
                };
                let found = self.locate(parent).map_err(opening)?;
                if !found.rest.is_empty() {
                    return Err(CanopyError::new(
                        ErrorCode::NotFound,
                        "no such entry in the archive",
                    ));
                }
                let dir = ArchiveFolder::new(found.archive.clone(), found.folder);
                let name = name.as_bytes();
                match dir.find(name).map_err(opening)? {
                    (Hit::Folder(_), _) => {
                        Err(CanopyError::new(ErrorCode::NotAFile, "this is a folder"))
                    }
                    (Hit::Record(r), _) if r.is_raw() => Err(unsafe_error(name)),
                    (Hit::Record(r), _) => {
                        found.archive.member(r).map(File::Inside).map_err(opening)
                    }
                }
            }
            Err(e) => Err(e),
        }
    }

    fn open_child_file(
        &self,
        folder: &Folder<S>,
        name: &[u8],
        path: &Path,
    ) -> Result<File<S>, CanopyError> {
        match folder {
            Folder::Plain(d) => self.inner.open_child_file(d, name, path).map(File::Plain),
            Folder::Inside(_) => self.open_file(path),
        }
    }

    fn archive_file_of(&self, path: &Path) -> Option<(PathBuf, ArchiveFormat)> {
        self.split(path)
            .ok()
            .map(|(archive, outer, _)| (outer, archive.format))
    }

    fn ignore_rules(
        &self,
        path: &Path,
        meter: &mut Meter<'_>,
    ) -> (IgnoreRules, Option<CanopyError>) {
        self.inner.ignore_rules(path, meter)
    }

    fn paced(&self) -> bool {
        self.inner.paced()
    }

    fn resolve(&self, spec: &crate::wire::RootSpec) -> Result<PathBuf, CanopyError> {
        self.inner.resolve(spec)
    }

    fn shown_path(&self, path: &Path) -> String {
        self.inner.shown_path(path)
    }

    fn is_crumb(&self, ancestor: &Path) -> bool {
        self.inner.is_crumb(ancestor)
    }

    fn child_ignore_rules(
        &self,
        parent: &IgnoreRules,
        name: &[u8],
        folder: &Folder<S>,
        path: &Path,
    ) -> (IgnoreRules, Option<CanopyError>) {
        match folder {
            Folder::Plain(d) => self.inner.child_ignore_rules(parent, name, d, path),
            Folder::Inside(_) => (IgnoreRules::none(), None),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;
    use crate::LocalFs;

    #[test]
    fn only_a_complete_index_is_kept_never_one_its_budget_cut() {
        let source = WithArchives::new(LocalFs::new());
        let stamp = FileStamp {
            dev: 1,
            ino: 2,
            size: 1024,
            changed_ns: 3,
            modified_ns: 4,
        };
        let path = Path::new("/a.tar");
        let opened = |stopped: Option<ErrorCode>| {
            // An empty tar (two zero blocks), as if cut for `stopped`.
            let bytes: Arc<[u8]> = vec![0; 1024].into();
            let mut a = Archive::open_at(
                Arc::new(Blob::Memory(bytes)),
                ArchiveFormat::Tar,
                Some(stamp),
                1,
                0,
            )
            .unwrap();
            a.stopped = stopped.map(|code| CanopyError::new(code, "cut"));
            Arc::new(a)
        };
        for (stopped, kept) in [
            (Some(ErrorCode::TooLarge), false),
            (Some(ErrorCode::Timeout), false),
            (Some(ErrorCode::Cancelled), false),
            (Some(ErrorCode::Corrupt), true),
            (None, true),
        ] {
            source.cache.lock().unwrap().clear();
            source.keep(path, Some(stamp), &opened(stopped));
            assert_eq!(
                source.cached(path, Some(stamp)).is_some(),
                kept,
                "{stopped:?}"
            );
        }
    }

    #[test]
    fn the_archive_a_path_runs_through_stays_kept_while_the_archives_in_it_are_opened() {
        let t = tempfile::tempdir().unwrap();
        let outer = t.path().join("outer.tar.gz");
        let zip = [&b"PK\x05\x06"[..], &[0; 18]].concat();
        let mut tar = Vec::new();
        for i in 0..2 * ARCHIVE_CACHE {
            let mut h = [0u8; 512];
            let name = format!("a{i}.zip");
            h[..name.len()].copy_from_slice(name.as_bytes());
            h[100..108].copy_from_slice(b"0000644\0");
            h[124..136].copy_from_slice(format!("{:011o}\0", zip.len()).as_bytes());
            h[136..148].copy_from_slice(b"00000000000\0");
            h[156] = b'0';
            h[257..265].copy_from_slice(b"ustar\x0000");
            h[148..156].copy_from_slice(b"        ");
            let sum: u32 = h.iter().map(|&b| u32::from(b)).sum();
            h[148..156].copy_from_slice(format!("{sum:06o}\0 ").as_bytes());
            tar.extend_from_slice(&h);
            tar.extend_from_slice(&zip);
            tar.resize(tar.len().next_multiple_of(512), 0);
        }
        tar.extend_from_slice(&[0; 1024]);
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(&tar).unwrap();
        std::fs::write(&outer, gz.finish().unwrap()).unwrap();
        let source = WithArchives::new(LocalFs::new());
        let stamp = source.inner().open_file(&outer).unwrap().stamp();
        for i in 0..2 * ARCHIVE_CACHE {
            let inner = outer.join(format!("a{i}.zip"));
            let found = source.locate(&inner).unwrap();
            assert_eq!(
                found.archive.format,
                ArchiveFormat::Zip,
                "{}",
                inner.display()
            );
            assert!(
                source.cached(&outer, stamp).is_some(),
                "after opening {} archives inside it, the tar.gz is still kept (not indexed again)",
                i + 1
            );
        }
    }
}
