//! Regular files, opened only when regular: the one way the engine opens a
//! file for reading, and the real path of an `O_PATH` open.
//!
//! Promises: a path is opened `O_PATH | O_NOFOLLOW` (which runs no driver and
//! releases no fifo writer), checked with `fstat`, and only a regular file is
//! reopened for reading through `/proc/self/fd/N` (`O_RDONLY | O_NONBLOCK |
//! O_NOCTTY`) and checked again. Without `/proc` nothing is read (`IO`): the
//! path is never opened twice. A symlink is followed only by resolving it
//! first, then the same checks; a confined open follows none.

use std::ffi::CString;
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use super::anchor::Anchor;
use super::{fstat_fd, kind_of_mode};
use crate::error::{CanopyError, ErrorCode};
use crate::wire::EntryKind;

/// Why [`open_regular_at`] opened nothing.
#[derive(Debug)]
pub enum RegularOpen {
    Io(io::Error),
    /// Not a regular file (its mode): never opened for reading.
    NotRegular(libc::mode_t),
    /// The file changed between the check and the open.
    Changed,
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
pub fn open_regular_at(
    at: RawFd,
    name: &std::ffi::CStr,
    follow_last: bool,
) -> Result<(std::fs::File, libc::stat), RegularOpen> {
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
    if st2.st_mode & libc::S_IFMT != libc::S_IFREG
        || st2.st_ino != st.st_ino
        || st2.st_dev != st.st_dev
    {
        return Err(RegularOpen::Changed);
    }
    Ok((file, st2))
}

/// The real path of what `path` names, read back from `/proc` after an
/// `O_PATH` open (which opens no contents and runs no driver), and what it is.
///
/// # Errors
/// The OS code; `NOT_FOUND` when it was deleted meanwhile; `IO` without `/proc`.
pub(crate) fn real_path_now(path: &Path) -> Result<(PathBuf, EntryKind), CanopyError> {
    let c = CString::new(path.as_os_str().as_bytes())
        .map_err(|_| CanopyError::invalid("the path contains a NUL byte"))?;
    // SAFETY: valid C string; O_PATH opens no contents and runs no driver.
    let raw = unsafe { libc::open(c.as_ptr(), libc::O_PATH | libc::O_CLOEXEC) };
    if raw < 0 {
        return Err(CanopyError::from_io(
            &std::io::Error::last_os_error(),
            "cannot open",
        ));
    }
    // SAFETY: a fresh descriptor, owned here.
    let fd = unsafe { OwnedFd::from_raw_fd(raw) };
    // SAFETY: a zeroed stat is a valid out-buffer; fd is open.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    if unsafe { libc::fstat(fd.as_raw_fd(), &mut st) } < 0 {
        return Err(CanopyError::from_io(
            &std::io::Error::last_os_error(),
            "cannot examine",
        ));
    }
    let link = format!("/proc/self/fd/{}", fd.as_raw_fd());
    let real = match std::fs::read_link(&link) {
        Ok(p) => p,
        Err(e) if e.raw_os_error() == Some(libc::ENOENT) => {
            return Err(CanopyError::new(
                ErrorCode::Io,
                "cannot tell where the path leads: /proc is not mounted",
            ))
        }
        Err(e) => return Err(CanopyError::from_io(&e, "cannot tell where the path leads")),
    };
    // A deleted entry reads back as "PATH (deleted)", which is no path.
    if st.st_nlink == 0 || !real.is_absolute() {
        return Err(CanopyError::new(
            ErrorCode::NotFound,
            "it was deleted while it was being opened",
        ));
    }
    Ok((real, kind_of_mode(st.st_mode)))
}

fn not_a_file(what: &str) -> CanopyError {
    CanopyError::new(
        ErrorCode::NotAFile,
        format!("{what}: only regular files are previewed, and this is not opened"),
    )
}

fn describe_mode(mode: libc::mode_t) -> &'static str {
    match mode & libc::S_IFMT {
        libc::S_IFDIR => "a folder",
        libc::S_IFIFO => "a fifo",
        libc::S_IFSOCK => "a socket",
        libc::S_IFCHR => "a character device",
        libc::S_IFBLK => "a block device",
        libc::S_IFLNK => "a symlink",
        _ => "a special file",
    }
}

/// Opens `path` for reading only if it is a regular file (see the module docs).
///
/// # Errors
/// `NOT_A_FILE` for folders and special files (never opened), the OS code
/// otherwise (`NOT_FOUND`, `DENIED`, `LOOP`, `NAME_TOO_LONG`, `IO`).
pub fn open_regular(path: &Path) -> Result<(File, libc::stat), CanopyError> {
    // Resolve symlinks first, so the final open can refuse to follow one.
    let resolved: PathBuf = match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => std::fs::canonicalize(path)
            .map_err(|e| CanopyError::from_io(&e, "cannot follow the link"))?,
        Ok(_) => path.to_path_buf(),
        Err(e) => return Err(CanopyError::from_io(&e, "cannot open file")),
    };
    let c = std::ffi::CString::new(resolved.as_os_str().as_bytes())
        .map_err(|_| CanopyError::invalid("the path contains a NUL byte"))?;
    regular_or_error(open_regular_at(libc::AT_FDCWD, &c, false))
}

/// Opens the regular file `name` in the folder `at` (a descriptor), through
/// [`open_regular_at`], following no link: one lookup in the folder it is
/// already in, never a walk of the whole path.
///
/// # Errors
/// `NOT_A_FILE`, or the OS code.
pub(crate) fn open_regular_child(
    at: RawFd,
    name: &[u8],
) -> Result<(File, libc::stat), CanopyError> {
    let c = std::ffi::CString::new(name)
        .map_err(|_| CanopyError::invalid("the name contains a NUL byte"))?;
    regular_or_error(open_regular_at(at, &c, false))
}

fn regular_or_error(
    opened: Result<(File, libc::stat), RegularOpen>,
) -> Result<(File, libc::stat), CanopyError> {
    match opened {
        Ok(opened) => Ok(opened),
        Err(RegularOpen::NotRegular(mode)) => {
            Err(not_a_file(&format!("this is {}", describe_mode(mode))))
        }
        Err(RegularOpen::Changed) => Err(not_a_file("the file changed while it was being opened")),
        Err(RegularOpen::Io(e)) if e.raw_os_error().is_none() => Err(CanopyError::new(
            ErrorCode::Io,
            format!("cannot open file: {e}"),
        )),
        Err(RegularOpen::Io(e)) => Err(CanopyError::from_io(&e, "cannot open file")),
    }
}

/// Opens the regular file at the real path `path` (no link in it), each
/// component without following a link.
pub(crate) fn open_real_regular(path: &Path) -> Result<(File, libc::stat), CanopyError> {
    let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
        return Err(not_a_file("this is a folder"));
    };
    let folder =
        Anchor::real_folder(parent).map_err(|e| CanopyError::from_io(&e, "cannot open file"))?;
    let name = std::ffi::CString::new(name.as_bytes())
        .map_err(|_| CanopyError::invalid("the path contains a NUL byte"))?;
    let fd = folder.into_fd();
    regular_or_error(open_regular_at(
        std::os::fd::AsRawFd::as_raw_fd(&fd),
        &name,
        false,
    ))
}
