//! The engine's I/O boundary: directories opened as directories, read in
//! batches with `getdents64`, and entries examined relative to their folder.
//!
//! Promises: nothing but a directory is ever opened here (`O_DIRECTORY` makes the
//! kernel refuse anything else during lookup, before any driver is touched);
//! children are opened with `O_NOFOLLOW`, so symlinks are never descended; the
//! entry type comes from `d_type`, and only an entry the filesystem reports as
//! `DT_UNKNOWN` costs a `stat`.

use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};

use crate::error::{CanopyError, ErrorCode};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crate::limits::MAX_TIME_MS;
use crate::source::{EntryStream, SourceFolder};
pub use crate::source::{Identity, Meta, RawEntry};
use crate::wire::EntryKind;

/// Bytes asked of `getdents64` at a time: large batches mean few syscalls.
const BATCH_BYTES: usize = 64 * 1024;
/// A path longer than this is opened one component at a time.
const PATH_MAX: usize = libc::PATH_MAX as usize;

/// Test hooks at the I/O boundary. The default does nothing.
///
/// `slow_folder`: a folder with exactly this name is read slowly (small
/// batches, each after `slow_delay`), standing in for a hung network mount so
/// the time budget and the UI's handling of it can be tested for real.
/// `slow_stat`: each `lstat` of an entry of the slow folder takes this long
/// (a slow network filesystem under a size or modified order).
/// `links_unfollowed`: no symlink is ever followed below the listed folder
/// (`canopy-mcp`, whose links may lead outside the folders an agent may
/// see): asking a link's target answers `EXDEV` at once, as
/// `RESOLVE_BENEATH` would, and the caller judges the target's text itself.
#[derive(Clone, Default)]
pub struct IoHooks {
    pub slow_folder: Option<Vec<u8>>,
    pub slow_delay: Duration,
    pub slow_stat: Option<Duration>,
    pub links_unfollowed: bool,
}

impl std::fmt::Debug for IoHooks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IoHooks")
            .field("slow_folder", &self.slow_folder)
            .field("slow_delay", &self.slow_delay)
            .field("slow_stat", &self.slow_stat)
            .field("links_unfollowed", &self.links_unfollowed)
            .finish()
    }
}

impl IoHooks {
    /// Reads `CANOPY_TEST_SLOW_FOLDER` (a folder name),
    /// `CANOPY_TEST_SLOW_DELAY_MS` (default 200) and
    /// `CANOPY_TEST_SLOW_STAT_MS` (unset: stats are not slowed) from the environment.
    /// Only in the `e2e` build: elsewhere the environment is not read and
    /// the hooks do nothing, so what users run has no such seam.
    #[cfg(feature = "e2e")]
    pub fn from_env() -> Self {
        let slow_folder = std::env::var_os("CANOPY_TEST_SLOW_FOLDER").map(|v| v.as_bytes().to_vec());
        let ms = std::env::var("CANOPY_TEST_SLOW_DELAY_MS").ok().and_then(|v| v.parse().ok()).unwrap_or(200);
        let stat_ms: Option<u64> = std::env::var("CANOPY_TEST_SLOW_STAT_MS").ok().and_then(|v| v.parse().ok());
        IoHooks {
            slow_folder,
            slow_delay: Duration::from_millis(ms),
            slow_stat: stat_ms.map(Duration::from_millis),
            links_unfollowed: false,
        }
    }

    /// The default hooks (nothing slowed): without the `e2e` feature the
    /// environment is never read.
    #[cfg(not(feature = "e2e"))]
    pub fn from_env() -> Self {
        IoHooks::default()
    }

    fn delay_for(&self, name: &[u8]) -> Option<Duration> {
        match &self.slow_folder {
            Some(slow) if slow.as_slice() == name => Some(self.slow_delay),
            _ => None,
        }
    }

    /// What a folder keeps for its children: the seams, when a folder is slowed.
    fn seams(&self) -> Option<std::sync::Arc<IoHooks>> {
        self.slow_folder.is_some().then(|| std::sync::Arc::new(self.clone()))
    }

    fn stat_delay_for(&self, name: &[u8]) -> Option<Duration> {
        self.delay_for(name).and(self.slow_stat)
    }
}

fn cstr(bytes: &[u8]) -> io::Result<CString> {
    CString::new(bytes).map_err(|_| io::Error::from_raw_os_error(libc::EINVAL))
}

fn check(ret: libc::c_int) -> io::Result<libc::c_int> {
    if ret < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(ret)
    }
}

const DIR_FLAGS: libc::c_int = libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC | libc::O_NONBLOCK | libc::O_NOCTTY;
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
    /// A child's symlink is never followed (see [`IoHooks`]).
    links_unfollowed: bool,
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

pub fn kind_of_mode(mode: libc::mode_t) -> EntryKind {
    match mode & libc::S_IFMT {
        libc::S_IFDIR => EntryKind::Folder,
        libc::S_IFREG => EntryKind::File,
        libc::S_IFLNK => EntryKind::Symlink,
        libc::S_IFIFO => EntryKind::Fifo,
        libc::S_IFSOCK => EntryKind::Socket,
        libc::S_IFCHR => EntryKind::CharDevice,
        libc::S_IFBLK => EntryKind::BlockDevice,
        _ => EntryKind::Unknown,
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
    pub fn open_path(path: &Path, hooks: &IoHooks) -> io::Result<Dir> {
        let delay = path.file_name().and_then(|n| hooks.delay_for(n.as_bytes()));
        let stat_delay = path.file_name().and_then(|n| hooks.stat_delay_for(n.as_bytes()));
        let bytes = path.as_os_str().as_bytes();
        if bytes.len() < PATH_MAX {
            let c = cstr(bytes)?;
            // SAFETY: `c` is a valid NUL-terminated string for the call's duration.
            let fd = check(unsafe { libc::open(c.as_ptr(), DIR_FLAGS) })?;
            // SAFETY: `fd` was just returned by open and is owned by nobody else.
            let fd = unsafe { OwnedFd::from_raw_fd(fd) };
            return Ok(Dir { fd, delay, stat_delay, read_before: AtomicBool::new(false), links_unfollowed: hooks.links_unfollowed, seams: hooks.seams() });
        }
        let mut dir = Dir::walk(path, DIR_FLAGS)?;
        dir.delay = delay;
        dir.stat_delay = stat_delay;
        dir.links_unfollowed = hooks.links_unfollowed;
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
            let at = current.as_ref().map_or(libc::AT_FDCWD, |d| d.fd.as_raw_fd());
            current = Some(Dir::open_at(at, name, flags)?);
        }
        current.ok_or_else(|| io::Error::from_raw_os_error(libc::ENOENT))
    }

    fn open_at(at: RawFd, name: &[u8], flags: libc::c_int) -> io::Result<Dir> {
        let c = cstr(name)?;
        // SAFETY: valid C string; `at` is a live directory fd or AT_FDCWD.
        let fd = check(unsafe { libc::openat(at, c.as_ptr(), flags) })?;
        // SAFETY: fresh fd, owned here.
        Ok(Dir { fd: unsafe { OwnedFd::from_raw_fd(fd) }, delay: None, stat_delay: None, read_before: AtomicBool::new(false), links_unfollowed: false, seams: None })
    }

    /// Opens the folder `path` (following links) only to look names up in
    /// it (`O_PATH`): it needs the right to search the folder, not to read
    /// it, as a `stat` of a path through it does. Its entries cannot be read;
    /// `stat_child`, `read_small_file`, `read_link` and [`Dir::search_child`]
    /// work. Paths longer than `PATH_MAX` are walked one component at a time.
    ///
    /// # Errors
    /// The OS error: `ENOTDIR`, `ENOENT`, `EACCES`, `ELOOP` ...
    pub fn search_path(path: &Path, hooks: &IoHooks) -> io::Result<Dir> {
        let bytes = path.as_os_str().as_bytes();
        let mut dir = if bytes.len() < PATH_MAX {
            Dir::open_at(libc::AT_FDCWD, bytes, SEARCH_FLAGS)?
        } else {
            Dir::walk(path, SEARCH_FLAGS)?
        };
        dir.links_unfollowed = hooks.links_unfollowed;
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
        let flags = if follow && !self.links_unfollowed { SEARCH_FLAGS } else { SEARCH_FLAGS | libc::O_NOFOLLOW };
        let mut dir = Dir::open_at(self.fd.as_raw_fd(), rel, flags)?;
        dir.links_unfollowed = self.links_unfollowed;
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
        dir.links_unfollowed = self.links_unfollowed;
        Ok(dir)
    }

    fn stat_raw(&self, name: &[u8], follow: bool) -> io::Result<libc::stat> {
        if follow && self.links_unfollowed {
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
            Err(RegularOpen::Io(e)) if e.raw_os_error() == Some(libc::ENOENT) => return Ok(SmallFile::Missing),
            Err(RegularOpen::Io(e)) => return Err(e),
            Err(RegularOpen::NotRegular(mode)) => return Ok(SmallFile::NotRegular(kind_of_mode(mode))),
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
        Ok((Identity { dev: st.st_dev, ino: st.st_ino }, Meta::from_stat(&st)))
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
    pub fn entries(&self, mut buffer: Vec<u8>) -> Result<Entries<'_>, (io::Error, Vec<u8>)> {
        // A fresh descriptor starts at the beginning; a second pass rewinds.
        // SAFETY: lseek on an owned directory fd; rewinds the getdents position.
        if self.read_before.swap(true, Ordering::Relaxed) && unsafe { libc::lseek(self.fd.as_raw_fd(), 0, libc::SEEK_SET) } < 0 {
            return Err((io::Error::last_os_error(), buffer));
        }
        if buffer.len() < BATCH_BYTES {
            buffer.resize(BATCH_BYTES, 0);
        }
        // A slow folder reads small batches, so its reader is slow often.
        let size = if self.delay.is_some() { 512 } else { BATCH_BYTES };
        Ok(Entries { dir: self, buf: buffer, size, done: false })
    }
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

/// Why [`open_regular_at`] opened nothing.
#[derive(Debug)]
pub enum RegularOpen {
    Io(io::Error),
    /// Not a regular file (its mode): never opened for reading.
    NotRegular(libc::mode_t),
    /// The file changed between the check and the open.
    Changed,
}

fn fstat_fd(fd: RawFd) -> io::Result<libc::stat> {
    // SAFETY: zeroed stat is a valid out-buffer; fd is open.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    check(unsafe { libc::fstat(fd, &mut st) })?;
    Ok(st)
}

/// The engine's one way to open a file for reading: `name` relative to
/// `at` (a folder's descriptor, or `AT_FDCWD` for a path) is opened
/// `O_PATH | O_NOFOLLOW` (which runs no driver and releases no fifo writer;
/// with `follow_last`, a final symlink is followed instead), checked with
/// `fstat`, and only a regular file is reopened for reading through
/// `/proc/self/fd/N` (`O_RDONLY | O_NONBLOCK | O_NOCTTY`) and checked again
/// to be the same inode. Without `/proc`, nothing is read (`ENOENT` on the
/// reopen is reported as `EIO`): the name is never opened twice.
///
/// # Errors
/// [`RegularOpen`]: the OS error, a file that is not regular, or one that
/// changed while it was being opened.
pub fn open_regular_at(at: RawFd, name: &std::ffi::CStr, follow_last: bool) -> Result<(std::fs::File, libc::stat), RegularOpen> {
    let nofollow = if follow_last { 0 } else { libc::O_NOFOLLOW };
    // SAFETY: valid C string; O_PATH opens no file contents and runs no driver.
    let raw = unsafe { libc::openat(at, name.as_ptr(), libc::O_PATH | nofollow | libc::O_CLOEXEC) };
    if raw < 0 {
        return Err(RegularOpen::Io(io::Error::last_os_error()));
    }
    // SAFETY: fresh fd owned here.
    let pathfd = unsafe { OwnedFd::from_raw_fd(raw) };
    reopen_checked(&pathfd)
}

/// Reopens an `O_PATH` descriptor for reading, only if it is a regular file:
/// checked with `fstat`, reopened through `/proc/self/fd/N` (`O_RDONLY |
/// O_NONBLOCK | O_NOCTTY`) and checked again to be the same inode.
///
/// # Errors
/// As [`open_regular_at`].
pub fn reopen_checked(pathfd: &OwnedFd) -> Result<(std::fs::File, libc::stat), RegularOpen> {
    let st = fstat_fd(pathfd.as_raw_fd()).map_err(RegularOpen::Io)?;
    if st.st_mode & libc::S_IFMT != libc::S_IFREG {
        return Err(RegularOpen::NotRegular(st.st_mode));
    }
    let flags = libc::O_RDONLY | libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_CLOEXEC;
    let proc_path = CString::new(format!("/proc/self/fd/{}", pathfd.as_raw_fd())).expect("no NUL");
    // SAFETY: valid C string. Reopening the magic link reaches the same inode.
    let fd = unsafe { libc::open(proc_path.as_ptr(), flags) };
    if fd < 0 {
        let err = io::Error::last_os_error();
        if err.raw_os_error() == Some(libc::ENOENT) {
            return Err(RegularOpen::Io(io::Error::other(
                "/proc is not mounted, and a file is read only through the descriptor that was checked",
            )));
        }
        return Err(RegularOpen::Io(err));
    }
    // SAFETY: fresh fd owned here.
    let file = unsafe { std::fs::File::from_raw_fd(fd) };
    let st2 = fstat_fd(file.as_raw_fd()).map_err(RegularOpen::Io)?;
    if st2.st_mode & libc::S_IFMT != libc::S_IFREG || st2.st_ino != st.st_ino || st2.st_dev != st.st_dev {
        return Err(RegularOpen::Changed);
    }
    Ok((file, st2))
}

/// One entry held by an `O_PATH` descriptor, looked up relative to its
/// folder's own descriptor without following a final symlink: a walk made of
/// anchors never leaves the folders it walked, whatever is renamed or
/// swapped meanwhile, and opens no contents and runs no driver on the way.
#[derive(Debug)]
pub struct Anchor {
    fd: OwnedFd,
    /// What the entry is (a symlink is itself, not its target).
    pub kind: EntryKind,
    pub identity: Identity,
}

impl Anchor {
    /// Holds the folder `path` (absolute, no symlink in it: a real path),
    /// walking it one component at a time from `/` without following any.
    ///
    /// # Errors
    /// The OS error; `ELOOP` or `ENOTDIR` when a component is not a folder.
    pub fn real_folder(path: &Path) -> io::Result<Anchor> {
        let mut at = Anchor::open(libc::AT_FDCWD, b"/")?;
        for comp in path.components() {
            match comp {
                Component::RootDir | Component::CurDir => {}
                Component::Normal(name) => {
                    if at.kind != EntryKind::Folder {
                        return Err(io::Error::from_raw_os_error(libc::ENOTDIR));
                    }
                    at = at.child(name.as_bytes())?;
                }
                Component::ParentDir | Component::Prefix(_) => return Err(io::Error::from_raw_os_error(libc::EINVAL)),
            }
        }
        if at.kind != EntryKind::Folder {
            return Err(io::Error::from_raw_os_error(libc::ENOTDIR));
        }
        Ok(at)
    }

    /// The entry `name` (one component: no `/`) of this folder, a symlink
    /// not followed.
    ///
    /// # Errors
    /// The OS error (`ENOENT`, `EACCES`, `ENOTDIR` when this is no folder).
    pub fn child(&self, name: &[u8]) -> io::Result<Anchor> {
        if name.is_empty() || name.contains(&b'/') || name == b"." || name == b".." {
            return Err(io::Error::from_raw_os_error(libc::EINVAL));
        }
        Anchor::open(self.fd.as_raw_fd(), name)
    }

    fn open(at: RawFd, name: &[u8]) -> io::Result<Anchor> {
        let c = cstr(name)?;
        // SAFETY: valid C string; `at` is a live fd or AT_FDCWD. O_PATH opens
        // no contents and runs no driver; O_NOFOLLOW holds a symlink itself.
        let raw = check(unsafe { libc::openat(at, c.as_ptr(), libc::O_PATH | libc::O_NOFOLLOW | libc::O_CLOEXEC) })?;
        // SAFETY: fresh fd, owned here.
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        let st = fstat_fd(fd.as_raw_fd())?;
        Ok(Anchor { fd, kind: kind_of_mode(st.st_mode), identity: Identity { dev: st.st_dev, ino: st.st_ino } })
    }

    /// The target text of the symlink this anchor holds (`readlinkat` on
    /// the descriptor itself: the link read is the one looked up).
    ///
    /// # Errors
    /// The OS error; `EINVAL` when it is not a symlink.
    pub fn link_target(&self) -> io::Result<Vec<u8>> {
        // An empty path names the descriptor itself.
        read_link_at(self.fd.as_raw_fd(), c"")
    }

    /// The descriptor, for listing or reading what was held.
    pub fn into_fd(self) -> OwnedFd {
        self.fd
    }
}

/// The target text of the symlink `name` relative to `at` (`readlinkat`),
/// growing the buffer up to 64 KiB.
fn read_link_at(at: RawFd, name: &std::ffi::CStr) -> io::Result<Vec<u8>> {
    let mut buf = vec![0u8; 256];
    loop {
        // SAFETY: buf is writable for buf.len() bytes; `name` is a valid C string and `at` a live fd.
        let n = unsafe { libc::readlinkat(at, name.as_ptr(), buf.as_mut_ptr().cast(), buf.len()) };
        if n < 0 {
            return Err(io::Error::last_os_error());
        }
        let n = n as usize;
        if n < buf.len() {
            buf.truncate(n);
            return Ok(buf);
        }
        if buf.len() >= 64 * 1024 {
            return Err(io::Error::from_raw_os_error(libc::ENAMETOOLONG));
        }
        let bigger = buf.len() * 4;
        buf.resize(bigger, 0);
    }
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
        Ok(Identity { dev: st.st_dev, ino: st.st_ino })
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
            libc::syscall(libc::SYS_getdents64, self.dir.fd.as_raw_fd(), self.buf.as_mut_ptr(), self.size)
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
            let len = raw_name.iter().position(|&b| b == 0).unwrap_or(raw_name.len());
            let name = &raw_name[..len];
            pos += reclen;
            if name == b"." || name == b".." {
                continue;
            }
            each(RawEntry { name, kind: kind_of_dtype(d_type) });
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
}

/// The local filesystem as a [`crate::Source`]: folders opened as folders
/// and read with `getdents64` (see the module docs).
///
/// [`LocalFs::new`] follows a symlink given as the folder to list, and
/// follows a listed link to say where it leads. [`LocalFs::confined`]
/// follows none: the folder to list must be a real path (each component is
/// opened without following a link, so a link swapped in fails the open),
/// and asking where a listed link leads answers `EXDEV` at once, as
/// `RESOLVE_BENEATH` would, for the caller to judge the link's text itself
/// (`canopy-mcp`, whose links may lead outside the folders an agent may see).
#[derive(Debug, Clone, Default)]
pub struct LocalFs {
    hooks: IoHooks,
}

impl LocalFs {
    /// The local filesystem, following links (the window, `canopy-list`).
    pub fn new() -> LocalFs {
        LocalFs::default()
    }

    /// The local filesystem without following any link (see the type's docs).
    pub fn confined() -> LocalFs {
        LocalFs { hooks: IoHooks { links_unfollowed: true, ..IoHooks::default() } }
    }

    /// The same source with the test seams `hooks` (the `e2e` build only).
    #[cfg(feature = "e2e")]
    pub fn with_test_hooks(self, hooks: IoHooks) -> LocalFs {
        let links_unfollowed = self.hooks.links_unfollowed;
        LocalFs { hooks: IoHooks { links_unfollowed, ..hooks } }
    }

    /// The same source with the test seams read from the environment
    /// ([`IoHooks::from_env`]); without the `e2e` build, the same source.
    pub fn with_env_seams(self) -> LocalFs {
        #[cfg(feature = "e2e")]
        return self.with_test_hooks(IoHooks::from_env());
        #[cfg(not(feature = "e2e"))]
        self
    }

    /// This source follows no link (see [`LocalFs::confined`]).
    pub fn is_confined(&self) -> bool {
        self.hooks.links_unfollowed
    }

    /// Opens the folder at `path`, a real path, one component at a time
    /// without following a link.
    fn open_real(&self, path: &Path) -> io::Result<Dir> {
        let (parent, name) = match (path.parent(), path.file_name()) {
            (Some(parent), Some(name)) => (parent, name),
            _ => return Dir::open_path(path, &self.hooks),
        };
        let held = Anchor::real_folder(parent)?;
        let mut dir = Dir::open_at(held.fd.as_raw_fd(), name.as_bytes(), DIR_FLAGS | libc::O_NOFOLLOW)?;
        dir.delay = self.hooks.delay_for(name.as_bytes());
        dir.stat_delay = self.hooks.stat_delay_for(name.as_bytes());
        dir.links_unfollowed = true;
        dir.seams = self.hooks.seams();
        Ok(dir)
    }
}

/// A regular file of the local filesystem, open for reading.
#[derive(Debug)]
pub struct LocalFile {
    file: std::fs::File,
    size: u64,
}

impl crate::source::SourceFile for LocalFile {
    fn size(&self) -> u64 {
        self.size
    }

    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        std::os::unix::fs::FileExt::read_at(&self.file, buf, offset)
    }
}

/// An open file read in place (Open… vets a file it opened itself).
impl crate::source::SourceFile for std::fs::File {
    fn size(&self) -> u64 {
        self.metadata().map_or(0, |m| m.len())
    }

    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        std::os::unix::fs::FileExt::read_at(self, buf, offset)
    }
}

impl crate::source::Source for LocalFs {
    type Folder = Dir;
    type File = LocalFile;

    fn open_file(&self, path: &Path) -> Result<LocalFile, CanopyError> {
        let (file, st) = if self.hooks.links_unfollowed {
            crate::preview::open_real_regular(path)?
        } else {
            crate::preview::open_regular(path)?
        };
        Ok(LocalFile { file, size: st.st_size.max(0) as u64 })
    }

    fn open_folder(&self, path: &Path) -> io::Result<Dir> {
        if self.hooks.links_unfollowed {
            self.open_real(path)
        } else {
            Dir::open_path(path, &self.hooks)
        }
    }

    fn ignore_rules(&self, path: &Path, meter: &mut crate::ignore_pattern::Meter<'_>) -> (crate::ignore_rules::IgnoreRules, Option<crate::CanopyError>) {
        crate::ignore_rules::IgnoreRules::for_folder(path, &self.hooks, meter)
    }

    fn child_ignore_rules(&self, parent: &crate::ignore_rules::IgnoreRules, name: &[u8], folder: &Dir, path: &Path) -> (crate::ignore_rules::IgnoreRules, Option<crate::CanopyError>) {
        parent.descend(name, folder, path, &self.hooks)
    }
}

/// The real path of what `path` names, read back from `/proc` after an
/// `O_PATH` open (which opens no contents and runs no driver), and what it is.
///
/// # Errors
/// The OS code; `NOT_FOUND` when it was deleted meanwhile; `IO` without `/proc`.
pub(crate) fn real_path_now(path: &Path) -> Result<(PathBuf, EntryKind), CanopyError> {
    let c = CString::new(path.as_os_str().as_bytes()).map_err(|_| CanopyError::invalid("the path contains a NUL byte"))?;
    // SAFETY: valid C string; O_PATH opens no contents and runs no driver.
    let raw = unsafe { libc::open(c.as_ptr(), libc::O_PATH | libc::O_CLOEXEC) };
    if raw < 0 {
        return Err(CanopyError::from_io(&std::io::Error::last_os_error(), "cannot open"));
    }
    // SAFETY: a fresh descriptor, owned here.
    let fd = unsafe { OwnedFd::from_raw_fd(raw) };
    // SAFETY: a zeroed stat is a valid out-buffer; fd is open.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    if unsafe { libc::fstat(fd.as_raw_fd(), &mut st) } < 0 {
        return Err(CanopyError::from_io(&std::io::Error::last_os_error(), "cannot examine"));
    }
    let link = format!("/proc/self/fd/{}", fd.as_raw_fd());
    let real = match std::fs::read_link(&link) {
        Ok(p) => p,
        Err(e) if e.raw_os_error() == Some(libc::ENOENT) => {
            return Err(CanopyError::new(ErrorCode::Io, "cannot tell where the path leads: /proc is not mounted"))
        }
        Err(e) => return Err(CanopyError::from_io(&e, "cannot tell where the path leads")),
    };
    // A deleted entry reads back as "PATH (deleted)", which is no path.
    if st.st_nlink == 0 || !real.is_absolute() {
        return Err(CanopyError::new(ErrorCode::NotFound, "it was deleted while it was being opened"));
    }
    Ok((real, kind_of_mode(st.st_mode)))
}

