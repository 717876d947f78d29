//! The engine's I/O boundary: directories opened as directories, read in
//! batches with `getdents64`, and entries examined relative to their folder.
//!
//! Promises: nothing but a directory is ever opened here (`O_DIRECTORY` makes the
//! kernel refuse anything else during lookup, before any driver is touched);
//! children are opened with `O_NOFOLLOW`, so symlinks are never descended; the
//! entry type comes from `d_type`, and only an entry the filesystem reports as
//! `DT_UNKNOWN` costs a `stat`.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path};

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use super::anchor::Anchor;
use super::file::{open_regular_at, RegularOpen};
use super::local::IoHooks;
use super::{check, cstr, kind_of_mode, read_link_at};
use crate::limits::MAX_TIME_MS;
use crate::source::{EntryStream, SourceFolder};
pub use crate::source::{Identity, Meta, RawEntry, Usage};
use crate::wire::EntryKind;

/// Bytes asked of `getdents64` at a time: large batches mean few syscalls.
const BATCH_BYTES: usize = 64 * 1024;
/// A path longer than this is opened one component at a time.
const PATH_MAX: usize = libc::PATH_MAX as usize;

const DIR_FLAGS: libc::c_int =
    libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC | libc::O_NONBLOCK | libc::O_NOCTTY;
/// A folder opened only to look names up in it: searching it needs no read right.
const SEARCH_FLAGS: libc::c_int = libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC;

/// An open directory. It can be shared between threads (a folder's children
/// are opened relative to it while the folder is released by its reader),
/// but is read by one at a time.
#[derive(Debug)]
pub struct Dir {
    fd: OwnedFd,
    delay: Option<Duration>,
    /// Test hook: each `stat_child` sleeps this long first.
    stat_delay: Option<Duration>,
    /// Read before: the next read must rewind first.
    read_before: AtomicBool,
    /// No symlink is followed from it (see [`LocalFs::confined`]).
    confined: bool,
    /// The test seams its children inherit (only when a folder is slowed).
    seams: Option<std::sync::Arc<IoHooks>>,
}

impl Meta {
    fn from_stat(st: &libc::stat) -> Self {
        Meta {
            kind: kind_of_mode(st.st_mode),
            size: st.st_size as u64,
            modified_ms: st
                .st_mtime
                .checked_mul(1000)
                .and_then(|ms| ms.checked_add(st.st_mtime_nsec / 1_000_000))
                .filter(|ms| ms.abs() <= MAX_TIME_MS),
        }
    }
}

impl Usage {
    fn from_stat(st: &libc::stat) -> Self {
        Usage {
            kind: kind_of_mode(st.st_mode),
            apparent: st.st_size as u64,
            disk: (st.st_blocks as u64).saturating_mul(512),
            dev: st.st_dev,
            ino: st.st_ino,
            // `nlink_t` is 32 bits on some targets.
            #[allow(clippy::unnecessary_cast)]
            links: st.st_nlink as u64,
        }
    }
}

fn kind_of_dtype(d_type: u8) -> Option<EntryKind> {
    Some(match d_type {
        libc::DT_DIR => EntryKind::Folder,
        libc::DT_REG => EntryKind::File,
        libc::DT_LNK => EntryKind::Symlink,
        libc::DT_FIFO => EntryKind::Fifo,
        libc::DT_SOCK => EntryKind::Socket,
        libc::DT_CHR => EntryKind::CharDevice,
        libc::DT_BLK => EntryKind::BlockDevice,
        _ => return None,
    })
}

impl Dir {
    /// Opens `path` as a directory, following symlinks (a symlink given as the
    /// root is followed). Paths longer than `PATH_MAX` are walked one
    /// component at a time.
    ///
    /// # Errors
    /// The OS error: `ENOTDIR` for anything that is not a directory (never
    /// opened), `ENOENT`, `EACCES`, `ELOOP`, `ENAMETOOLONG` ...
    pub fn open_path(path: &Path, hooks: &IoHooks, confined: bool) -> io::Result<Dir> {
        let delay = path.file_name().and_then(|n| hooks.delay_for(n.as_bytes()));
        let stat_delay = path
            .file_name()
            .and_then(|n| hooks.stat_delay_for(n.as_bytes()));
        let bytes = path.as_os_str().as_bytes();
        if bytes.len() < PATH_MAX {
            let c = cstr(bytes)?;
            // SAFETY: `c` is a valid NUL-terminated string for the call's duration.
            let fd = check(unsafe { libc::open(c.as_ptr(), DIR_FLAGS) })?;
            // SAFETY: `fd` was just returned by open and is owned by nobody else.
            let fd = unsafe { OwnedFd::from_raw_fd(fd) };
            return Ok(Dir {
                fd,
                delay,
                stat_delay,
                read_before: AtomicBool::new(false),
                confined,
                seams: hooks.seams(),
            });
        }
        let mut dir = Dir::walk(path, DIR_FLAGS)?;
        dir.delay = delay;
        dir.stat_delay = stat_delay;
        dir.confined = confined;
        dir.seams = hooks.seams();
        Ok(dir)
    }

    /// Opens the folder `name` of the folder `held` without following a
    /// link (a confined source's root).
    pub(super) fn open_real_child(held: &Anchor, name: &[u8], hooks: &IoHooks) -> io::Result<Dir> {
        let mut dir = Dir::open_at(held.raw_fd(), name, DIR_FLAGS | libc::O_NOFOLLOW)?;
        dir.delay = hooks.delay_for(name);
        dir.stat_delay = hooks.stat_delay_for(name);
        dir.confined = true;
        dir.seams = hooks.seams();
        Ok(dir)
    }

    /// Opens `path` one component at a time, each with `flags` relative to
    /// the folder before it: a path longer than `PATH_MAX` still opens.
    fn walk(path: &Path, flags: libc::c_int) -> io::Result<Dir> {
        let mut current: Option<Dir> = None;
        for comp in path.components() {
            let name: &[u8] = match comp {
                Component::RootDir => b"/",
                Component::CurDir => continue,
                Component::ParentDir => b"..",
                Component::Normal(n) => n.as_bytes(),
                Component::Prefix(_) => return Err(io::Error::from_raw_os_error(libc::EINVAL)),
            };
            let at = current
                .as_ref()
                .map_or(libc::AT_FDCWD, |d| d.fd.as_raw_fd());
            current = Some(Dir::open_at(at, name, flags)?);
        }
        current.ok_or_else(|| io::Error::from_raw_os_error(libc::ENOENT))
    }

    fn open_at(at: RawFd, name: &[u8], flags: libc::c_int) -> io::Result<Dir> {
        let c = cstr(name)?;
        // SAFETY: valid C string; `at` is a live directory fd or AT_FDCWD.
        let fd = check(unsafe { libc::openat(at, c.as_ptr(), flags) })?;
        // SAFETY: fresh fd, owned here.
        Ok(Dir {
            fd: unsafe { OwnedFd::from_raw_fd(fd) },
            delay: None,
            stat_delay: None,
            read_before: AtomicBool::new(false),
            confined: false,
            seams: None,
        })
    }

    /// Opens the folder `path` (following links) only to look names up in
    /// it (`O_PATH`): it needs the right to search the folder, not to read
    /// it, as a `stat` of a path through it does. Its entries cannot be read;
    /// `stat_child`, `read_small_file`, `read_link` and [`Dir::search_child`]
    /// work. Paths longer than `PATH_MAX` are walked one component at a time.
    ///
    /// # Errors
    /// The OS error: `ENOTDIR`, `ENOENT`, `EACCES`, `ELOOP` ...
    pub fn search_path(path: &Path, confined: bool) -> io::Result<Dir> {
        let bytes = path.as_os_str().as_bytes();
        let mut dir = if bytes.len() < PATH_MAX {
            Dir::open_at(libc::AT_FDCWD, bytes, SEARCH_FLAGS)?
        } else {
            Dir::walk(path, SEARCH_FLAGS)?
        };
        dir.confined = confined;
        Ok(dir)
    }

    /// Opens the folder at `rel` (a name, or a path relative to this folder;
    /// an absolute one is taken as it is) only to look names up in it, as
    /// [`Dir::search_path`] does. A final symlink is followed only when
    /// `follow` and links may be followed.
    ///
    /// # Errors
    /// The OS error; `ENOTDIR` or `ELOOP` when it is not a folder.
    pub fn search_child(&self, rel: &[u8], follow: bool) -> io::Result<Dir> {
        let flags = if follow && !self.confined {
            SEARCH_FLAGS
        } else {
            SEARCH_FLAGS | libc::O_NOFOLLOW
        };
        let mut dir = Dir::open_at(self.fd.as_raw_fd(), rel, flags)?;
        dir.confined = self.confined;
        Ok(dir)
    }

    /// Looks the child folder `name` up without opening it (`O_PATH`,
    /// without following a symlink): the lookup is answered by this folder's
    /// filesystem alone, even when the child is a mount point, so a hang here
    /// is this folder's device's. [`LookedUp::identity`] then asks the child's.
    ///
    /// # Errors
    /// The OS error; `ENOTDIR` or `ELOOP` if the entry is no longer a folder.
    pub fn look_up(&self, name: &[u8]) -> io::Result<LookedUp> {
        let c = cstr(name)?;
        let flags = libc::O_PATH | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC;
        // SAFETY: valid C string; `self.fd` is a live directory fd.
        let fd = check(unsafe { libc::openat(self.fd.as_raw_fd(), c.as_ptr(), flags) })?;
        // SAFETY: fresh fd, owned here.
        Ok(LookedUp(unsafe { OwnedFd::from_raw_fd(fd) }))
    }

    /// Opens the child folder `name` without following a symlink.
    ///
    /// # Errors
    /// The OS error; `ENOTDIR` or `ELOOP` if the entry is no longer a folder.
    pub fn open_child(&self, name: &[u8]) -> io::Result<Dir> {
        let mut dir = Dir::open_at(self.fd.as_raw_fd(), name, DIR_FLAGS | libc::O_NOFOLLOW)?;
        if let Some(hooks) = &self.seams {
            dir.delay = hooks.delay_for(name);
            dir.stat_delay = hooks.stat_delay_for(name);
            dir.seams = Some(hooks.clone());
        }
        dir.confined = self.confined;
        Ok(dir)
    }

    /// Opens the child folder `name` as [`Dir::open_child`] does, but only
    /// if it lies on this folder's own mount (`openat2` with
    /// `RESOLVE_NO_XDEV`): the lookup and the open then ask nothing of any
    /// filesystem but this folder's, so a hang in them is this folder's
    /// device's. `Ok(None)`, having asked nothing of the filesystem mounted
    /// there, when `name` is a mount point (`EXDEV`), and when `openat2` is
    /// not available: then look it up first ([`Dir::look_up`]).
    ///
    /// # Errors
    /// As [`Dir::open_child`].
    pub fn open_child_on_this_mount(&self, name: &[u8]) -> io::Result<Option<Dir>> {
        let c = cstr(name)?;
        // SAFETY: all zeroes is a valid `open_how` (no mode, no resolve flags).
        let mut how: libc::open_how = unsafe { std::mem::zeroed() };
        how.flags = (DIR_FLAGS | libc::O_NOFOLLOW) as u64;
        how.resolve = libc::RESOLVE_NO_XDEV;
        // SAFETY: valid C string, a live directory fd, and `how` with its size.
        let fd = unsafe {
            libc::syscall(
                libc::SYS_openat2,
                self.fd.as_raw_fd(),
                c.as_ptr(),
                &how as *const libc::open_how,
                std::mem::size_of::<libc::open_how>(),
            )
        };
        if fd < 0 {
            let err = io::Error::last_os_error();
            return match err.raw_os_error() {
                // A mount point; or no openat2 (before Linux 5.6, or refused
                // by a seccomp filter): the caller's fallback asks again.
                Some(libc::EXDEV | libc::ENOSYS | libc::EPERM | libc::EINVAL | libc::E2BIG) => {
                    Ok(None)
                }
                _ => Err(err),
            };
        }
        // SAFETY: fresh fd, owned here.
        let fd = unsafe { OwnedFd::from_raw_fd(fd as RawFd) };
        let mut dir = Dir {
            fd,
            delay: None,
            stat_delay: None,
            read_before: AtomicBool::new(false),
            confined: self.confined,
            seams: None,
        };
        if let Some(hooks) = &self.seams {
            dir.delay = hooks.delay_for(name);
            dir.stat_delay = hooks.stat_delay_for(name);
            dir.seams = Some(hooks.clone());
        }
        Ok(Some(dir))
    }

    fn stat_raw(&self, name: &[u8], follow: bool) -> io::Result<libc::stat> {
        if follow && self.confined {
            return Err(io::Error::from_raw_os_error(libc::EXDEV));
        }
        let c = cstr(name)?;
        let flags = if follow { 0 } else { libc::AT_SYMLINK_NOFOLLOW };
        // SAFETY: zeroed stat is a valid out-buffer; valid C string and fd.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        check(unsafe { libc::fstatat(self.fd.as_raw_fd(), c.as_ptr(), &mut st, flags) })?;
        Ok(st)
    }

    /// `stat`s the child `name` (following a symlink when `follow`).
    ///
    /// # Errors
    /// The OS error (`ENOENT` when it vanished, `EACCES` when the folder is not searchable).
    pub fn stat_child(&self, name: &[u8], follow: bool) -> io::Result<Meta> {
        if let Some(delay) = self.stat_delay {
            std::thread::sleep(delay);
        }
        self.stat_raw(name, follow).map(|st| Meta::from_stat(&st))
    }

    /// Reads the child `name` if it is a regular file of at most `max`
    /// bytes, through [`open_regular_at`]: never a fifo or a device, a
    /// symlink only when `follow` (and then only to a regular file), and
    /// never more than `max + 1` bytes read.
    ///
    /// # Errors
    /// The OS error of opening or reading it.
    pub fn read_small_file(&self, name: &[u8], max: u64, follow: bool) -> io::Result<SmallFile> {
        let c = cstr(name)?;
        let (file, st) = match open_regular_at(self.fd.as_raw_fd(), &c, follow) {
            Ok(opened) => opened,
            Err(RegularOpen::Io(e)) if e.raw_os_error() == Some(libc::ENOENT) => {
                return Ok(SmallFile::Missing)
            }
            Err(RegularOpen::Io(e)) => return Err(e),
            Err(RegularOpen::NotRegular(mode)) => {
                return Ok(SmallFile::NotRegular(kind_of_mode(mode)))
            }
            Err(RegularOpen::Changed) => return Ok(SmallFile::NotRegular(EntryKind::Unknown)),
        };
        let size = st.st_size.max(0) as u64;
        if size > max {
            return Ok(SmallFile::TooLarge(size));
        }
        let mut bytes = Vec::with_capacity(size as usize);
        // One byte past the cap notices a file that grew since the fstat.
        io::Read::read_to_end(&mut io::Read::take(&file, max + 1), &mut bytes)?;
        if bytes.len() as u64 > max {
            return Ok(SmallFile::TooLarge(bytes.len() as u64));
        }
        Ok(SmallFile::Read(bytes))
    }

    /// Opens the child `name` for reading if it is a regular file, through
    /// [`open_regular_at`] (never a fifo or a device; a final symlink only
    /// when `follow` and links may be followed from this folder, and then
    /// only to a regular file), with its size. Nothing is read.
    ///
    /// # Errors
    /// The OS error of opening it (`ENOENT` is [`Opened::Missing`]).
    pub fn open_regular(&self, name: &[u8], follow: bool) -> io::Result<Opened> {
        let c = cstr(name)?;
        match open_regular_at(self.fd.as_raw_fd(), &c, follow && !self.confined) {
            Ok((file, st)) => Ok(Opened::File(file, st.st_size.max(0) as u64)),
            Err(RegularOpen::Io(e)) if e.raw_os_error() == Some(libc::ENOENT) => {
                Ok(Opened::Missing)
            }
            Err(RegularOpen::Io(e)) => Err(e),
            Err(RegularOpen::NotRegular(mode)) => Ok(Opened::NotRegular(kind_of_mode(mode))),
            Err(RegularOpen::Changed) => Ok(Opened::NotRegular(EntryKind::Unknown)),
        }
    }

    /// Where this folder really is (the kernel's name for its descriptor,
    /// every link resolved).
    ///
    /// # Errors
    /// The OS error (`/proc` not mounted, the folder removed).
    pub fn real_path(&self) -> io::Result<std::path::PathBuf> {
        let path = std::fs::read_link(format!("/proc/self/fd/{}", self.fd.as_raw_fd()))?;
        // A removed folder's name ends in " (deleted)": it is nowhere.
        if path.as_os_str().as_bytes().ends_with(b" (deleted)") {
            return Err(io::Error::from_raw_os_error(libc::ENOENT));
        }
        Ok(path)
    }

    /// The first `len` bytes (or fewer) of the child `name` if it is a
    /// regular file, through [`open_regular_at`] (no link followed, nothing
    /// but a regular file opened).
    ///
    /// # Errors
    /// The OS error; `EINVAL` for anything but a regular file.
    pub fn read_head(&self, name: &[u8], len: usize) -> io::Result<Vec<u8>> {
        let c = cstr(name)?;
        let (file, _) = match open_regular_at(self.fd.as_raw_fd(), &c, false) {
            Ok(opened) => opened,
            Err(RegularOpen::Io(e)) => return Err(e),
            Err(RegularOpen::NotRegular(_) | RegularOpen::Changed) => {
                return Err(io::Error::from_raw_os_error(libc::EINVAL))
            }
        };
        let mut head = vec![0; len];
        let mut got = 0;
        while got < len {
            match std::os::unix::fs::FileExt::read_at(&file, &mut head[got..], got as u64) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        head.truncate(got);
        Ok(head)
    }

    /// Opens the regular file `name` in this folder for reading, never
    /// following a link (see [`super::file::open_regular_child`]).
    ///
    /// # Errors
    /// `NOT_A_FILE`, or the OS code.
    pub fn open_file_child(
        &self,
        name: &[u8],
    ) -> Result<(std::fs::File, libc::stat), crate::error::CanopyError> {
        super::file::open_regular_child(self.fd.as_raw_fd(), name)
    }

    /// `stat`s the directory itself.
    ///
    /// # Errors
    /// The OS error.
    pub fn stat_self(&self) -> io::Result<Meta> {
        self.fstat().map(|st| Meta::from_stat(&st))
    }

    /// The directory's device and inode, with what `stat` says of it.
    ///
    /// # Errors
    /// The OS error.
    pub fn identity(&self) -> io::Result<(Identity, Meta)> {
        let st = self.fstat()?;
        Ok((
            Identity {
                dev: st.st_dev,
                ino: st.st_ino,
            },
            Meta::from_stat(&st),
        ))
    }

    fn fstat(&self) -> io::Result<libc::stat> {
        // SAFETY: zeroed stat is a valid out-buffer; fd is open.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        check(unsafe { libc::fstat(self.fd.as_raw_fd(), &mut st) })?;
        Ok(st)
    }

    /// Reads the target text of the symlink `name`.
    ///
    /// # Errors
    /// The OS error (`EINVAL` when it is not a symlink any more).
    pub fn read_link(&self, name: &[u8]) -> io::Result<Vec<u8>> {
        read_link_at(self.fd.as_raw_fd(), &cstr(name)?)
    }

    /// Starts reading the directory from its first entry, in `buffer`
    /// (grown as needed; pass an empty one, and take it back with
    /// [`Entries::into_buffer`] to reuse it).
    ///
    /// # Errors
    /// The OS error of rewinding, with the buffer.
    pub fn entries(&self, buffer: Vec<u8>) -> Result<Entries<'_>, (io::Error, Vec<u8>)> {
        // A fresh descriptor starts at the beginning; a second pass rewinds.
        // SAFETY: lseek on an owned directory fd; rewinds the getdents position.
        if self.read_before.swap(true, Ordering::Relaxed)
            && unsafe { libc::lseek(self.fd.as_raw_fd(), 0, libc::SEEK_SET) } < 0
        {
            return Err((io::Error::last_os_error(), buffer));
        }
        Ok(self.stream(buffer))
    }

    /// Goes on reading the directory where the last stream over it stopped
    /// (after its last batch: the descriptor keeps the place).
    pub fn resume_entries(&self, buffer: Vec<u8>) -> Entries<'_> {
        self.read_before.store(true, Ordering::Relaxed);
        self.stream(buffer)
    }

    fn stream(&self, mut buffer: Vec<u8>) -> Entries<'_> {
        if buffer.len() < BATCH_BYTES {
            buffer.resize(BATCH_BYTES, 0);
        }
        // A slow folder reads small batches, so its reader is slow often.
        let size = if self.delay.is_some() {
            512
        } else {
            BATCH_BYTES
        };
        Entries {
            dir: self,
            buf: buffer,
            size,
            done: false,
        }
    }
}

/// What [`Dir::open_regular`] found.
#[derive(Debug)]
pub enum Opened {
    /// A regular file, open for reading, and its size then.
    File(std::fs::File, u64),
    /// No such entry.
    Missing,
    /// Something other than a regular file: not opened.
    NotRegular(EntryKind),
}

/// What [`Dir::read_small_file`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SmallFile {
    /// No such entry.
    Missing,
    Read(Vec<u8>),
    /// Something other than a regular file (a symlink is not followed): not opened.
    NotRegular(EntryKind),
    /// Larger than the cap (the size seen): not read past it.
    TooLarge(u64),
}

/// A child folder found but not opened (an `O_PATH` descriptor).
#[derive(Debug)]
pub struct LookedUp(OwnedFd);

impl LookedUp {
    /// The folder's device and inode (a `stat` answered by its own filesystem).
    ///
    /// # Errors
    /// The OS error.
    pub fn identity(&self) -> io::Result<Identity> {
        // SAFETY: zeroed stat is a valid out-buffer; fstat accepts an O_PATH fd.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        check(unsafe { libc::fstat(self.0.as_raw_fd(), &mut st) })?;
        Ok(Identity {
            dev: st.st_dev,
            ino: st.st_ino,
        })
    }
}

/// A directory being read, batch by batch.
pub struct Entries<'d> {
    dir: &'d Dir,
    buf: Vec<u8>,
    size: usize,
    done: bool,
}

impl Entries<'_> {
    /// Gives the buffer back for the next folder.
    pub fn into_buffer(self) -> Vec<u8> {
        self.buf
    }

    /// Reads the next batch, calling `each` for every entry but `.` and `..`.
    /// Returns `Ok(false)` once the directory is exhausted.
    ///
    /// # Errors
    /// The OS error of `getdents64` (e.g. `EIO`; a deleted directory reads as empty).
    pub fn next_batch(&mut self, each: &mut dyn FnMut(RawEntry<'_>)) -> io::Result<bool> {
        if self.done {
            return Ok(false);
        }
        if let Some(delay) = self.dir.delay {
            std::thread::sleep(delay);
        }
        // SAFETY: buf is writable for size <= buf.len() bytes; fd is an open directory.
        let n = unsafe {
            libc::syscall(
                libc::SYS_getdents64,
                self.dir.fd.as_raw_fd(),
                self.buf.as_mut_ptr(),
                self.size,
            )
        };
        if n < 0 {
            return Err(io::Error::last_os_error());
        }
        if n == 0 {
            self.done = true;
            return Ok(false);
        }
        let data = &self.buf[..n as usize];
        let mut pos = 0;
        // struct linux_dirent64 { u64 d_ino; i64 d_off; u16 d_reclen; u8 d_type; char d_name[]; }
        while pos + 19 < data.len() {
            let reclen = u16::from_ne_bytes([data[pos + 16], data[pos + 17]]) as usize;
            if reclen == 0 || pos + reclen > data.len() {
                break;
            }
            let d_type = data[pos + 18];
            let raw_name = &data[pos + 19..pos + reclen];
            let len = raw_name
                .iter()
                .position(|&b| b == 0)
                .unwrap_or(raw_name.len());
            let name = &raw_name[..len];
            pos += reclen;
            if name == b"." || name == b".." {
                continue;
            }
            each(RawEntry {
                name,
                kind: kind_of_dtype(d_type),
                meta: None,
            });
        }
        Ok(true)
    }
}

impl EntryStream for Entries<'_> {
    fn next_batch(&mut self, each: &mut dyn FnMut(RawEntry<'_>)) -> io::Result<bool> {
        Entries::next_batch(self, each)
    }

    fn into_buffer(self) -> Vec<u8> {
        self.buf
    }
}

impl SourceFolder for Dir {
    type Entries<'a> = Entries<'a>;
    type Found = LookedUp;

    fn identity(&self) -> io::Result<(Identity, Meta)> {
        Dir::identity(self)
    }

    fn entries(&self, buffer: Vec<u8>) -> Result<Entries<'_>, (io::Error, Vec<u8>)> {
        Dir::entries(self, buffer)
    }

    fn can_resume(&self) -> bool {
        true
    }

    fn resume_entries(&self, buffer: Vec<u8>) -> Result<Entries<'_>, (io::Error, Vec<u8>)> {
        Ok(Dir::resume_entries(self, buffer))
    }

    fn stat_child(&self, name: &[u8], follow: bool) -> io::Result<Meta> {
        Dir::stat_child(self, name, follow)
    }

    fn read_link(&self, name: &[u8]) -> io::Result<Vec<u8>> {
        Dir::read_link(self, name)
    }

    fn look_up(&self, name: &[u8]) -> io::Result<LookedUp> {
        Dir::look_up(self, name)
    }

    fn found_identity(found: &LookedUp) -> io::Result<Identity> {
        found.identity()
    }

    fn open_child(&self, name: &[u8]) -> io::Result<Dir> {
        Dir::open_child(self, name)
    }

    fn open_child_here(&self, name: &[u8]) -> io::Result<Option<Dir>> {
        Dir::open_child_on_this_mount(self, name)
    }

    fn usage_child(&self, name: &[u8]) -> io::Result<Usage> {
        if let Some(delay) = self.stat_delay {
            std::thread::sleep(delay);
        }
        self.stat_raw(name, false).map(|st| Usage::from_stat(&st))
    }

    fn usage_self(&self) -> io::Result<Usage> {
        self.fstat().map(|st| Usage::from_stat(&st))
    }

    fn read_head(&self, name: &[u8], len: usize) -> io::Result<Vec<u8>> {
        Dir::read_head(self, name, len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_child_is_opened_in_one_call_only_on_its_parents_mount() {
        let t = tempfile::tempdir().unwrap();
        std::fs::create_dir(t.path().join("sub")).unwrap();
        std::fs::write(t.path().join("sub/x"), b"").unwrap();
        let hooks = IoHooks::default();
        let parent = Dir::open_path(t.path(), &hooks, false).unwrap();
        let sub = parent
            .open_child_on_this_mount(b"sub")
            .unwrap()
            .expect("a plain subfolder opens at once");
        let mut names = Vec::new();
        sub.entries(Vec::new())
            .unwrap_or_else(|(e, _)| panic!("{e}"))
            .next_batch(&mut |raw| names.push(raw.name.to_vec()))
            .unwrap();
        assert_eq!(names, [b"x".to_vec()], "it was opened for reading");
        // /proc is a mount point of its own below /: left for the caller to look up.
        let root = Dir::open_path(Path::new("/"), &hooks, false).unwrap();
        assert!(
            root.open_child_on_this_mount(b"proc").unwrap().is_none(),
            "a mount point is not crossed"
        );
        let missing = parent.open_child_on_this_mount(b"gone").unwrap_err();
        assert_eq!(
            missing.raw_os_error(),
            Some(libc::ENOENT),
            "a real error is an error, not a fallback"
        );
    }
}
