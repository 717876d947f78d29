//! Where a listing comes from: the seam every place Canopy lists sits behind.
//!
//! The walk, the selection of a page, the order, the filter, the rest
//! groups, the cursors and the budgets run over any [`Source`] and know
//! nothing of how its folders are read. The local filesystem
//! ([`crate::LocalFs`]) is the first source; an archive or a server's
//! folders are others, each in a module or crate of its own.
//!
//! Rules every source keeps:
//! - **Reads are batched.** A folder is read as a stream of batches
//!   ([`EntryStream::next_batch`]); the engine checks its deadline and its
//!   cancel token between batches, so a slow remote batch costs one batch of
//!   waiting, and the engine never holds all of a folder's names. A source
//!   read over a link ([`Source::paced`]) gives each batch its own deadline.
//! - **Calls may hang.** Every call is made on a worker of
//!   [`crate::bounded`], as a step with a deadline, at the places the step
//!   names (the folder's [`Identity`]: its device and inode, or what a
//!   source uses for them). A source never times itself out silently: a call
//!   that is late is given up by the engine, and its place is marked stuck.
//! - **No random access is assumed.** A folder is read from its start each
//!   time ([`SourceFolder::entries`]); a deep page reads it two or three
//!   times, a cursor once. A source that cannot re-read cheaply (a stream)
//!   should keep what it read of a folder.
//! - **The `lstat` facts are lazy.** An entry comes with its name bytes and,
//!   when the source knows it for free, its kind; size and time are asked
//!   ([`SourceFolder::stat_child`]) only for entries shown, or for every
//!   entry under the size and modified orders.
//! - **Read-only.** Nothing a source offers writes.
#![forbid(unsafe_code)]

use std::io;
use std::path::Path;

use crate::error::CanopyError;
pub use crate::ignore_pattern::Meter;
pub use crate::ignore_rules::{IgnoreRules, RuleText};
use crate::wire::{ArchiveFormat, EntryKind, LinkTarget};

/// Which object a folder is, for the dead-mount rules: a device (a mount,
/// an archive, a server connection) and a number unique on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Identity {
    pub dev: u64,
    pub ino: u64,
}

/// What an entry's `lstat` says, reduced to what listings show.
#[derive(Debug, Clone, Copy)]
pub struct Meta {
    pub kind: EntryKind,
    pub size: u64,
    /// Milliseconds since the epoch; `None` when the time lies outside what
    /// a date can hold (`MAX_TIME_MS` either way), which tmpfs and tar allow.
    pub modified_ms: Option<i64>,
}

/// What one entry occupies, for folder sizes: one `lstat` (a link is never
/// followed). A source without blocks (an archive) says its apparent size
/// for both, and that nothing is hard-linked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Usage {
    pub kind: EntryKind,
    /// `st_size`.
    pub apparent: u64,
    /// `st_blocks` x 512.
    pub disk: u64,
    pub dev: u64,
    pub ino: u64,
    /// `st_nlink`: above 1, the same inode may be met under another name.
    pub links: u64,
}

impl Usage {
    /// The usage of an entry of a source without blocks or links.
    pub fn apparent_only(meta: &Meta) -> Usage {
        Usage {
            kind: meta.kind,
            apparent: meta.size,
            disk: meta.size,
            dev: 0,
            ino: 0,
            links: 1,
        }
    }
}

/// One raw entry of a folder: its name bytes (never `.` or `..`), its
/// kind when the source says it without a `stat`, and its whole `lstat`
/// facts when the source reads them with the name (an archive's directory,
/// an SFTP `readdir`): the engine then never asks [`SourceFolder::stat_child`].
#[derive(Debug, Clone, Copy)]
pub struct RawEntry<'a> {
    pub name: &'a [u8],
    pub kind: Option<EntryKind>,
    pub meta: Option<Meta>,
}

/// What a source says of one shown entry besides its `lstat`: that it is an
/// archive Canopy can open like a folder, or what is wrong with its name.
#[derive(Debug, Default)]
pub struct EntryNote {
    pub archive: Option<ArchiveFormat>,
    pub problem: Option<CanopyError>,
    /// It may be an archive: ask [`SourceFolder::archive_format`], a call
    /// that reads the entry and may block (the engine makes it a step of
    /// its own, so a file that never answers costs only its own entry).
    pub examine: bool,
    /// A hard link inside an archive (a file that is another entry): the
    /// path of the entry it names, as written, and what that entry is
    /// (`Dangling` or `Loop` when it leads nowhere; `problem` says why).
    pub hard_link: Option<(Vec<u8>, LinkTarget)>,
}

/// A folder being read, batch by batch, from its first entry.
pub trait EntryStream {
    /// Reads the next batch, calling `each` for every entry in it. Returns
    /// `Ok(false)` once the folder is exhausted.
    ///
    /// # Errors
    /// The source's error; the entries given before it stand.
    fn next_batch(&mut self, each: &mut dyn FnMut(RawEntry<'_>)) -> io::Result<bool>;

    /// Gives the batch buffer back, for the next folder.
    fn into_buffer(self) -> Vec<u8>;
}

/// A folder opened by a [`Source`]. It stays the same folder when its path
/// is renamed, and can be shared between threads (its children are opened
/// from it while another thread reads the next folder), but is read by one
/// at a time.
pub trait SourceFolder: Send + Sync + Sized + 'static {
    /// A stream over the folder's entries.
    type Entries<'a>: EntryStream
    where
        Self: 'a;
    /// A child folder found but not opened (see [`SourceFolder::look_up`]).
    type Found: Send;

    /// The folder's identity, with what its own `stat` says of it.
    ///
    /// # Errors
    /// The source's error.
    fn identity(&self) -> io::Result<(Identity, Meta)>;

    /// Starts reading the folder from its first entry. `buffer` is the
    /// batch buffer of the last folder this thread read (empty at first);
    /// the source may use it or not, and gives it back with the stream.
    ///
    /// # Errors
    /// The source's error, with the buffer.
    fn entries(&self, buffer: Vec<u8>) -> Result<Self::Entries<'_>, (io::Error, Vec<u8>)>;

    /// Whether [`SourceFolder::resume_entries`] can go on where a stream
    /// over this folder stopped.
    fn can_resume(&self) -> bool {
        false
    }

    /// Goes on reading the folder after the last batch that a stream over
    /// it read (a stream dropped between batches leaves its place), so a
    /// reader can stop part way and another go on later without holding
    /// the names in between.
    ///
    /// # Errors
    /// `Unsupported` unless [`SourceFolder::can_resume`]; the source's error.
    fn resume_entries(&self, buffer: Vec<u8>) -> Result<Self::Entries<'_>, (io::Error, Vec<u8>)> {
        Err((io::Error::from(io::ErrorKind::Unsupported), buffer))
    }

    /// What the child `name`'s `lstat` says (its target's, when `follow`
    /// and the source follows links).
    ///
    /// # Errors
    /// The source's error (`ENOENT` when it vanished).
    fn stat_child(&self, name: &[u8], follow: bool) -> io::Result<Meta>;

    /// The target text of the symlink `name`.
    ///
    /// # Errors
    /// The source's error (`EINVAL` when it is not a symlink any more).
    fn read_link(&self, name: &[u8]) -> io::Result<Vec<u8>>;

    /// Finds the child folder `name` without opening it, asking only this
    /// folder's device (a hang here is this folder's).
    ///
    /// # Errors
    /// The source's error; `ENOTDIR` or `ELOOP` when it is no folder.
    fn look_up(&self, name: &[u8]) -> io::Result<Self::Found>;

    /// The identity of a folder [`SourceFolder::look_up`] found, asked of
    /// its own device (which may be another one: a mount point).
    ///
    /// # Errors
    /// The source's error.
    fn found_identity(found: &Self::Found) -> io::Result<Identity>;

    /// Opens the child folder `name` (never through a symlink).
    ///
    /// # Errors
    /// The source's error; `ENOTDIR` or `ELOOP` when it is no folder.
    fn open_child(&self, name: &[u8]) -> io::Result<Self>;

    /// Opens the child folder `name` in one call when it lies on this
    /// folder's own device, asking nothing of any other; `Ok(None)` when it
    /// does not (a mount point), or when the source cannot tell without
    /// asking (the default): the walk then looks it up first.
    ///
    /// # Errors
    /// As [`SourceFolder::open_child`].
    fn open_child_here(&self, name: &[u8]) -> io::Result<Option<Self>> {
        let _ = name;
        Ok(None)
    }

    /// What to say of the shown entry `name` of kind `kind` besides its
    /// `lstat` (see [`EntryNote`]); nothing by default. Called only for
    /// entries shown, on the engine's workers, under the folder's deadline.
    fn note_child(&self, name: &[u8], kind: EntryKind) -> EntryNote {
        let _ = (name, kind);
        EntryNote::default()
    }

    /// Whether the entry `name` is an archive Canopy opens, by its first
    /// bytes (asked only when [`SourceFolder::note_child`] said `examine`).
    ///
    /// # Errors
    /// The source's error reading it.
    fn archive_format(&self, name: &[u8]) -> io::Result<Option<ArchiveFormat>> {
        let _ = name;
        Ok(None)
    }

    /// The first `len` bytes (or fewer) of the regular file `name`, never
    /// following a link and never opening anything else (a fifo, a device):
    /// enough to tell an archive by its magic bytes.
    ///
    /// # Errors
    /// The source's error; `Unsupported` when the source cannot (the default).
    fn read_head(&self, name: &[u8], len: usize) -> io::Result<Vec<u8>> {
        let _ = (name, len);
        Err(io::ErrorKind::Unsupported.into())
    }

    /// What the child `name` occupies (its `lstat`, never following a link),
    /// for folder sizes. By default, its apparent size for both
    /// ([`Usage::apparent_only`]), from [`SourceFolder::stat_child`].
    ///
    /// # Errors
    /// The source's error (`ENOENT` when it vanished).
    fn usage_child(&self, name: &[u8]) -> io::Result<Usage> {
        self.stat_child(name, false)
            .map(|meta| Usage::apparent_only(&meta))
    }

    /// What the folder itself occupies (its own `fstat`), for folder sizes;
    /// by default its apparent size, from [`SourceFolder::identity`].
    ///
    /// # Errors
    /// The source's error.
    fn usage_self(&self) -> io::Result<Usage> {
        self.identity().map(|(id, meta)| Usage {
            dev: id.dev,
            ino: id.ino,
            ..Usage::apparent_only(&meta)
        })
    }

    /// Whether this folder lies inside an archive (then the source's
    /// [`Source::archive_file_of`] says which).
    fn in_archive(&self) -> bool {
        false
    }
}

/// What a file was when it was opened, to tell whether what was learnt of
/// it (an archive's index) still holds: it is the same object, unchanged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileStamp {
    pub dev: u64,
    pub ino: u64,
    pub size: u64,
    /// Last status change and modification, nanoseconds since the epoch.
    pub changed_ns: i128,
    pub modified_ns: i128,
}

/// A regular file opened by a [`Source`] for a bounded read: the preview
/// reads a chunk at an offset, never the whole of a large file. A source
/// whose files are streams (a compressed archive member) reads forward to
/// the offset and says so in its costs, not in this interface.
pub trait SourceFile: Send + Sync + 'static {
    /// Its size in bytes when it was opened.
    fn size(&self) -> u64;

    /// Reads into `buf` from `offset`; `Ok(0)` at the end.
    ///
    /// # Errors
    /// The source's error (`WouldBlock` ends the read where it is).
    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize>;

    /// Reads into `buf` from `offset` until it is full or the file ends;
    /// the count read.
    ///
    /// # Errors
    /// The source's error.
    fn read_full_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        let mut got = 0;
        while got < buf.len() {
            match self.read_at(&mut buf[got..], offset + got as u64) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(got)
    }

    /// What the file was when it was opened, when the source can say
    /// (`None`, the default, means never reuse what was learnt of it).
    fn stamp(&self) -> Option<FileStamp> {
        None
    }

    /// The open file itself, when it is one on the local disk: the
    /// sandboxed renderer hands it to its child as an inherited, read-only
    /// descriptor. `None` (the default) for a file with no descriptor of
    /// its own (an archive's member, a remote file).
    fn descriptor(&self) -> Option<&std::fs::File> {
        None
    }
}

/// A place listings come from.
pub trait Source: Clone + Send + Sync + 'static {
    /// A folder of this source.
    type Folder: SourceFolder;
    /// A regular file of this source, opened for a bounded read.
    type File: SourceFile;

    /// Opens the folder at `path` (a path in this source; absolute).
    ///
    /// # Errors
    /// The source's error: `ENOTDIR` for anything that is not a folder
    /// (never opened), `ENOENT`, `EACCES`, `ELOOP`, `ENAMETOOLONG` ...
    fn open_folder(&self, path: &Path) -> io::Result<Self::Folder>;

    /// Opens the regular file at `path` for reading. Nothing else is ever
    /// opened for reading: a folder, fifo, socket or device is refused
    /// (`NOT_A_FILE`) without being opened, so no read can block on one.
    ///
    /// # Errors
    /// `NOT_A_FILE`, or the source's code (`NOT_FOUND`, `DENIED`, `LOOP` ...).
    fn open_file(&self, path: &Path) -> Result<Self::File, CanopyError>;

    /// Opens the regular file `name` of `folder` (at `path`) for reading, as
    /// [`Source::open_file`] does but from the folder already open, never
    /// following a link: a search opens each file it reads this way. By
    /// default, by its path.
    ///
    /// # Errors
    /// As [`Source::open_file`].
    fn open_child_file(
        &self,
        folder: &Self::Folder,
        name: &[u8],
        path: &Path,
    ) -> Result<Self::File, CanopyError> {
        let _ = (folder, name);
        self.open_file(path)
    }

    /// The archive file on the wrapped disk that `path` runs through (or
    /// is), and its format: the file the window's file actions act on for
    /// everything inside it. `None` for a path in no archive (the default).
    fn archive_file_of(&self, path: &Path) -> Option<(std::path::PathBuf, ArchiveFormat)> {
        let _ = path;
        None
    }

    /// Whether this source's folders arrive at a link's pace (a server's):
    /// then each batch of names, and each shown entry's details, has the
    /// folder time budget of its own (a batch that does not come in time is
    /// a dead link, `TIMEOUT`), and a folder is read for as long as the
    /// request's time lasts, so a large folder that streams steadily gets
    /// its exact count. A local disk (the default) gives each folder one
    /// budget for all of it.
    fn paced(&self) -> bool {
        false
    }

    /// The rules that hide what git would ignore in the folder at `path`,
    /// and why some of them could not be read. A source without
    /// repositories hides nothing (the default).
    fn ignore_rules(
        &self,
        path: &Path,
        meter: &mut Meter<'_>,
    ) -> (IgnoreRules, Option<CanopyError>) {
        let _ = (path, meter);
        (IgnoreRules::none(), None)
    }

    /// The path a request's root names in this source: by default a local
    /// one ([`resolve_root`](crate::resolve_root)). A source whose paths are
    /// not the local disk's (a server's, in the window) resolves its own.
    ///
    /// # Errors
    /// As [`resolve_root`](crate::resolve_root), or the source's own.
    fn resolve(&self, spec: &crate::wire::RootSpec) -> Result<std::path::PathBuf, CanopyError> {
        crate::root::resolve_root(spec)
    }

    /// `path` as a person reads it (a listing's `path`, lossy).
    fn shown_path(&self, path: &Path) -> String {
        path.to_string_lossy().into_owned()
    }

    /// Whether the path bar shows `ancestor` (of a listed folder) as a
    /// step: every ancestor by default; a source whose paths start with a
    /// server's name leaves out what lies above the server.
    fn is_crumb(&self, ancestor: &Path) -> bool {
        let _ = ancestor;
        true
    }

    /// The rules for the child folder `name` (opened as `folder`, at
    /// `path`) of a folder whose rules are `parent`.
    fn child_ignore_rules(
        &self,
        parent: &IgnoreRules,
        name: &[u8],
        folder: &Self::Folder,
        path: &Path,
    ) -> (IgnoreRules, Option<CanopyError>) {
        let _ = (parent, name, folder, path);
        (IgnoreRules::none(), None)
    }
}

/// What the engine tells whoever watches a listing: progress, as it
/// happens, on the engine's workers (keep each call short).
pub trait Observer: Send + Sync {
    /// A folder's names were read (`names` of them, all kinds), before its
    /// shown entries are examined.
    fn folder_read(&self, path: &Path, names: u64);
}

/// Any `Fn(&Path, u64)` observes.
impl<F: Fn(&Path, u64) + Send + Sync> Observer for F {
    fn folder_read(&self, path: &Path, names: u64) {
        self(path, names);
    }
}
