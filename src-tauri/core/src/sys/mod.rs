//! The engine's system-call boundary: the one module where `unsafe` is
//! allowed (every other module of every crate forbids it), each block with
//! its `// SAFETY:` comment.
//!
//! - [`dirio`]: folders opened as folders and read with `getdents64`,
//!   entries examined relative to their folder;
//! - [`file`]: regular files, opened only when regular;
//! - [`anchor`]: entries held by `O_PATH` descriptors (a walk that never
//!   leaves the folders it walked);
//! - [`local`]: the local filesystem as a [`crate::Source`] ([`local::LocalFs`]),
//!   and its test seams;
//! - [`cpus`]: a new worker starts on the CPU its caller leaves;
//! - [`sandbox`]: the renderer's child processes (PDF pages, fonts, video
//!   frames), jailed by limits, namespaces and a deadline;
//! - [`space`]: free space (`statvfs`) and the mount table's changes;
//! - [`supervisor`]: the process that outlives a program stuck on a dead
//!   mount, the end by signal, and the save-then-end on SIGTERM and SIGHUP.
#![allow(unsafe_code)]

use std::ffi::CString;
use std::io;
use std::os::fd::RawFd;

use crate::wire::EntryKind;

pub mod anchor;
pub mod cpus;
pub mod dirio;
pub mod file;
pub mod local;
pub mod sandbox;
pub mod space;
pub mod supervisor;

/// Raises the soft limit on open files to the hard limit, once: a wide
/// walk keeps one descriptor per folder whose children wait their turn.
pub(crate) fn raise_open_file_limit() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // SAFETY: getrlimit/setrlimit with a valid out-buffer.
        unsafe {
            let mut lim: libc::rlimit = std::mem::zeroed();
            if libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) == 0 && lim.rlim_cur < lim.rlim_max {
                lim.rlim_cur = lim.rlim_max;
                libc::setrlimit(libc::RLIMIT_NOFILE, &lim);
            }
        }
    });
}

/// Makes a fifo at `path` (tests of what is never opened).
#[cfg(test)]
pub(crate) fn make_fifo(path: &std::path::Path) -> std::io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes())
        .map_err(|_| std::io::Error::from_raw_os_error(libc::EINVAL))?;
    // SAFETY: a valid C string for the call's duration.
    if unsafe { libc::mkfifo(c.as_ptr(), 0o600) } == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

pub(super) fn cstr(bytes: &[u8]) -> io::Result<CString> {
    CString::new(bytes).map_err(|_| io::Error::from_raw_os_error(libc::EINVAL))
}

pub(super) fn check(ret: libc::c_int) -> io::Result<libc::c_int> {
    if ret < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(ret)
    }
}

pub(super) fn fstat_fd(fd: RawFd) -> io::Result<libc::stat> {
    // SAFETY: zeroed stat is a valid out-buffer; fd is open.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    check(unsafe { libc::fstat(fd, &mut st) })?;
    Ok(st)
}

/// What an `st_mode` says an entry is.
pub(crate) fn kind_of_mode(mode: libc::mode_t) -> EntryKind {
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

/// The target text of the symlink `name` relative to `at` (`readlinkat`),
/// growing the buffer up to 64 KiB.
pub(super) fn read_link_at(at: RawFd, name: &std::ffi::CStr) -> io::Result<Vec<u8>> {
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
