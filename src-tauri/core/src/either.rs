//! [`Either`]: one of two sources, chosen when a face starts (the local disk
//! or a server's folders): a [`Source`] whose folders and files are the
//! chosen source's own. A face that serves either kind holds one type and
//! calls the same front door; nothing of either source leaks into the other.
#![forbid(unsafe_code)]

use std::io;
use std::path::{Path, PathBuf};

use crate::error::CanopyError;
use crate::ignore_pattern::Meter;
use crate::ignore_rules::IgnoreRules;
use crate::source::{
    EntryNote, EntryStream, FileStamp, Identity, Meta, RawEntry, Source, SourceFile, SourceFolder,
    Usage,
};
use crate::wire::{ArchiveFormat, EntryKind};

/// One of two sources. Everything read through it comes from that one.
#[derive(Debug, Clone)]
pub enum Either<A: Source, B: Source> {
    Left(A),
    Right(B),
}

/// A folder of one of the two sources.
pub enum EitherFolder<A: Source, B: Source> {
    Left(A::Folder),
    Right(B::Folder),
}

/// A file of one of the two sources.
pub enum EitherFile<A: Source, B: Source> {
    Left(A::File),
    Right(B::File),
}

pub enum EitherEntries<'a, A: Source + 'a, B: Source + 'a> {
    Left(<A::Folder as SourceFolder>::Entries<'a>),
    Right(<B::Folder as SourceFolder>::Entries<'a>),
}

pub enum EitherFound<A: Source, B: Source> {
    Left(<A::Folder as SourceFolder>::Found),
    Right(<B::Folder as SourceFolder>::Found),
}

/// Runs the same call on whichever side `$value` is (both sides share the
/// method's name and signature).
macro_rules! both {
    ($value:expr, $side:ident => $call:expr) => {
        match $value {
            Self::Left($side) => $call,
            Self::Right($side) => $call,
        }
    };
}

impl<A: Source, B: Source> EntryStream for EitherEntries<'_, A, B> {
    fn next_batch(&mut self, each: &mut dyn FnMut(RawEntry<'_>)) -> io::Result<bool> {
        both!(self, e => e.next_batch(each))
    }

    fn into_buffer(self) -> Vec<u8> {
        both!(self, e => e.into_buffer())
    }
}

impl<A: Source, B: Source> SourceFile for EitherFile<A, B> {
    fn size(&self) -> u64 {
        both!(self, f => f.size())
    }

    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        both!(self, f => f.read_at(buf, offset))
    }

    fn read_full_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        both!(self, f => f.read_full_at(buf, offset))
    }

    fn stamp(&self) -> Option<FileStamp> {
        both!(self, f => f.stamp())
    }

    fn descriptor(&self) -> Option<&std::fs::File> {
        both!(self, f => f.descriptor())
    }
}

impl<A: Source, B: Source> SourceFolder for EitherFolder<A, B> {
    type Entries<'a> = EitherEntries<'a, A, B>;
    type Found = EitherFound<A, B>;

    fn identity(&self) -> io::Result<(Identity, Meta)> {
        both!(self, d => d.identity())
    }

    fn entries(&self, buffer: Vec<u8>) -> Result<Self::Entries<'_>, (io::Error, Vec<u8>)> {
        match self {
            Self::Left(d) => d.entries(buffer).map(EitherEntries::Left),
            Self::Right(d) => d.entries(buffer).map(EitherEntries::Right),
        }
    }

    fn stat_child(&self, name: &[u8], follow: bool) -> io::Result<Meta> {
        both!(self, d => d.stat_child(name, follow))
    }

    fn read_link(&self, name: &[u8]) -> io::Result<Vec<u8>> {
        both!(self, d => d.read_link(name))
    }

    fn look_up(&self, name: &[u8]) -> io::Result<Self::Found> {
        match self {
            Self::Left(d) => d.look_up(name).map(EitherFound::Left),
            Self::Right(d) => d.look_up(name).map(EitherFound::Right),
        }
    }

    fn found_identity(found: &Self::Found) -> io::Result<Identity> {
        match found {
            EitherFound::Left(f) => <A::Folder as SourceFolder>::found_identity(f),
            EitherFound::Right(f) => <B::Folder as SourceFolder>::found_identity(f),
        }
    }

    fn open_child(&self, name: &[u8]) -> io::Result<Self> {
        match self {
            Self::Left(d) => d.open_child(name).map(Self::Left),
            Self::Right(d) => d.open_child(name).map(Self::Right),
        }
    }

    fn open_child_here(&self, name: &[u8]) -> io::Result<Option<Self>> {
        match self {
            Self::Left(d) => d.open_child_here(name).map(|o| o.map(Self::Left)),
            Self::Right(d) => d.open_child_here(name).map(|o| o.map(Self::Right)),
        }
    }

    fn note_child(&self, name: &[u8], kind: EntryKind) -> EntryNote {
        both!(self, d => d.note_child(name, kind))
    }

    fn archive_format(&self, name: &[u8]) -> io::Result<Option<ArchiveFormat>> {
        both!(self, d => d.archive_format(name))
    }

    fn read_head(&self, name: &[u8], len: usize) -> io::Result<Vec<u8>> {
        both!(self, d => d.read_head(name, len))
    }

    fn usage_child(&self, name: &[u8]) -> io::Result<Usage> {
        both!(self, d => d.usage_child(name))
    }

    fn usage_self(&self) -> io::Result<Usage> {
        both!(self, d => d.usage_self())
    }

    fn in_archive(&self) -> bool {
        both!(self, d => d.in_archive())
    }
}

impl<A: Source, B: Source> Source for Either<A, B> {
    type Folder = EitherFolder<A, B>;
    type File = EitherFile<A, B>;

    fn open_folder(&self, path: &Path) -> io::Result<Self::Folder> {
        match self {
            Self::Left(s) => s.open_folder(path).map(EitherFolder::Left),
            Self::Right(s) => s.open_folder(path).map(EitherFolder::Right),
        }
    }

    fn open_file(&self, path: &Path) -> Result<Self::File, CanopyError> {
        match self {
            Self::Left(s) => s.open_file(path).map(EitherFile::Left),
            Self::Right(s) => s.open_file(path).map(EitherFile::Right),
        }
    }

    fn archive_file_of(&self, path: &Path) -> Option<(PathBuf, ArchiveFormat)> {
        both!(self, s => s.archive_file_of(path))
    }

    fn paced(&self) -> bool {
        both!(self, s => s.paced())
    }

    fn resolve(&self, spec: &crate::wire::RootSpec) -> Result<PathBuf, CanopyError> {
        both!(self, s => s.resolve(spec))
    }

    fn shown_path(&self, path: &Path) -> String {
        both!(self, s => s.shown_path(path))
    }

    fn is_crumb(&self, ancestor: &Path) -> bool {
        both!(self, s => s.is_crumb(ancestor))
    }

    fn ignore_rules(
        &self,
        path: &Path,
        meter: &mut Meter<'_>,
    ) -> (IgnoreRules, Option<CanopyError>) {
        both!(self, s => s.ignore_rules(path, meter))
    }

    fn child_ignore_rules(
        &self,
        parent: &IgnoreRules,
        name: &[u8],
        folder: &Self::Folder,
        path: &Path,
    ) -> (IgnoreRules, Option<CanopyError>) {
        match (self, folder) {
            (Self::Left(s), EitherFolder::Left(d)) => s.child_ignore_rules(parent, name, d, path),
            (Self::Right(s), EitherFolder::Right(d)) => s.child_ignore_rules(parent, name, d, path),
            // A folder of the other source: never made by this one.
            _ => (IgnoreRules::none(), None),
        }
    }
}
