//! Archives opened like folders: a zip or a tar (plain, gzip, bzip2, xz,
//! zstd) is a [`Source`] of its own, read in place and never extracted.
//!
//! [`WithArchives`] wraps another source (the local disk) and continues a
//! path through a regular file that is an archive inside it:
//! `/dl/site.zip/assets/logo.png`. The real filesystem wins where both could
//! match (the wrapped source is asked first). An archive is told by its
//! first bytes, never by its name alone; a listing looks only at the shown
//! files whose names say archive (`EntryNote::examine`), and opens none.
//!
//! Inside an archive every promise of a folder holds: the engine's walk,
//! caps, orders and budgets run unchanged over [`ArchiveFolder`]. Names are
//! untrusted: one that would climb out or merge (`names::unsafe_reason`)
//! is listed whole, in the archive's top folder, marked `UNSAFE_NAME`, and
//! never opened. Symlink entries are shown with their target and never
//! followed. Decompression is bounded by the preview's chunk and the ratio
//! guard (`decode::RatioGuard`).
//!
//! Reading an index and decoding are CPU work (`cpu_work`): they look at
//! their step's deadline and the request's cancel after a bounded amount
//! of work and stop there, so a hostile archive costs its own listing's
//! time and never marks its folder (or its siblings) as not responding.
//! An index that its budget cut (`budget`) lists what it read, says why on
//! every folder of the archive, answers that same error (never
//! `NOT_FOUND`) for a name it did not reach, and is never kept.
#![forbid(unsafe_code)]

mod blob;
mod budget;
mod decode;
mod folder;
mod member;
mod names;
mod sniff;
mod tar;
mod tree;
mod with;
mod zip;

pub use self::with::WithArchives;

use std::io;
use std::sync::Arc;

use self::member::Member;
use self::sniff::codec_of;
use self::tree::Tree;
use crate::error::{CanopyError, ErrorCode};
use crate::source::{FileStamp, Identity, SourceFile};
use crate::wire::{ArchiveFormat, ArchiveSummary, EntryKind};

/// The archive format of the regular file at `path` in `source`, by its
/// first bytes; `None` for anything else (never opened when not a file).
pub(crate) fn archive_file_format<S: crate::source::Source>(
    source: &S,
    path: &std::path::Path,
) -> Option<ArchiveFormat> {
    let file = source.open_file(path).ok()?;
    let name = path
        .file_name()
        .map_or(&b""[..], |n| std::os::unix::ffi::OsStrExt::as_bytes(n));
    sniff::sniff(&sniff::head_of(&file).ok()?, name)
}

/// `CORRUPT`: the archive is truncated or its records contradict each other.
pub(super) fn corrupt_error(what: impl std::fmt::Display) -> CanopyError {
    CanopyError::new(crate::error::ErrorCode::Corrupt, what.to_string())
}

/// [`corrupt_error`] inside an `io::Error`, for the sources' calls.
pub(super) fn corrupt(what: impl std::fmt::Display) -> io::Error {
    corrupt_error(what).into_io()
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
    /// Why the index stops short of the archive's end, if it does.
    stopped: Option<CanopyError>,
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
        let (tree, body, summary, stopped) = match format {
            ArchiveFormat::Zip => {
                let dir = zip::directory(&*file)?;
                let (tree, summary, stopped) = zip::index(&*file, &dir)?;
                (tree, Body::Zip(dir), summary, stopped)
            }
            _ => {
                let (tree, mut idx, summary) = tar::index(&file, codec_of(format))?;
                let stopped = idx.stopped.take();
                (tree, Body::Tar(idx), summary, stopped)
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
            stopped,
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

    /// The identity of member `loc` (a file under more than one name),
    /// apart from every folder's.
    fn member_identity(&self, loc: u32) -> Identity {
        let folder = self.identity(0);
        Identity {
            dev: folder.dev,
            // Folders' have the top bit set.
            ino: (folder.ino.rotate_left(29) ^ u64::from(loc).wrapping_mul(0xD6E8_FEB8_6659_FD93))
                & !(1 << 63),
        }
    }

    /// Why the index stops short of the archive's end, if it does.
    fn stopped(&self) -> Option<&CanopyError> {
        self.stopped.as_ref()
    }

    /// Whether the index holds all the archive will ever give: it was read
    /// to its end, or to damage that reading again meets again. An index
    /// its budget (time, memory, the request) cut is not, and is not kept.
    fn complete(&self) -> bool {
        self.stopped.as_ref().is_none_or(|e| {
            matches!(
                e.code,
                ErrorCode::Corrupt | ErrorCode::Ratio | ErrorCode::Unsupported
            )
        })
    }

    /// Memory the index holds, in bytes (as `tree` counts it), for the cache's bound.
    fn held(&self) -> u64 {
        let tar = match &self.body {
            Body::Tar(idx) => idx.held(),
            Body::Zip(_) => 0,
        };
        self.tree.held() + tar
    }

    fn summary(&self) -> ArchiveSummary {
        let s = &self.summary;
        let entries = s.files + s.folders + s.links + s.others;
        ArchiveSummary {
            format: self.format,
            entries,
            files: s.files,
            // Every folder a listing shows, those only implied by a path too.
            folders: s.folders.max(self.tree.folder_count() as u64 - 1),
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
