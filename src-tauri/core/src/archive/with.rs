//! [`WithArchives`] as a [`Source`]: each folder and file is either the
//! wrapped source's own or one inside an archive.
#![forbid(unsafe_code)]

use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use super::{named_like_archive, sniff, ArchiveEntries, ArchiveFolder, Blob, Member, WithArchives};
use crate::error::{CanopyError, ErrorCode};
use crate::ignore_pattern::Meter;
use crate::ignore_rules::IgnoreRules;
use crate::limits::ARCHIVE_SNIFF_BYTES;
use crate::source::{
    EntryNote, EntryStream, Identity, Meta, RawEntry, Source, SourceFile, SourceFolder,
};
use crate::wire::{ArchiveFormat, EntryKind};

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

    fn stat_child(&self, name: &[u8], follow: bool) -> io::Result<Meta> {
        match self {
            Folder::Plain(d) => d.stat_child(name, follow),
            Folder::Inside(d) => d.stat_child(name, follow),
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
                    (super::Hit::Folder(_), _) => {
                        Err(CanopyError::new(ErrorCode::NotAFile, "this is a folder"))
                    }
                    (super::Hit::Record(r), _) if r.is_raw() => Err(super::unsafe_error(name)),
                    (super::Hit::Record(r), _) => {
                        found.archive.member(r).map(File::Inside).map_err(opening)
                    }
                }
            }
            Err(e) => Err(e),
        }
    }

    fn ignore_rules(
        &self,
        path: &Path,
        meter: &mut Meter<'_>,
    ) -> (IgnoreRules, Option<CanopyError>) {
        self.inner.ignore_rules(path, meter)
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
