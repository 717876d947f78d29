//! Free space of a filesystem (`statvfs`) and waiting for the mount table
//! to change (`poll` on `/proc/self/mountinfo`). Either call on a dead
//! mount's path may never return: callers run `statvfs` on a bounded worker.

use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::time::Duration;

/// Bytes free to an unprivileged user and bytes in all, of the filesystem
/// holding `path` (as `df` counts: `f_bavail` and `f_blocks` blocks of
/// `f_frsize` bytes).
///
/// # Errors
/// The OS error of `statvfs`.
pub fn free_space(path: &Path) -> io::Result<(u64, u64)> {
    let c = super::cstr(path.as_os_str().as_bytes())?;
    // SAFETY: a zeroed statvfs is a valid out-buffer; `c` is a valid C string.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    super::check(unsafe { libc::statvfs(c.as_ptr(), &mut st) })?;
    let unit = st.f_frsize as u64;
    Ok((
        (st.f_bavail as u64).saturating_mul(unit),
        (st.f_blocks as u64).saturating_mul(unit),
    ))
}

/// Waits until the mount table `table` (an open `/proc/self/mountinfo`)
/// changes, at most `timeout`: `Ok(true)` when it did (the kernel raises
/// `POLLPRI`, with `POLLERR`, on every mount and unmount). The caller reads
/// the table again from its start, which also re-arms the wait.
///
/// # Errors
/// The OS error of `poll`, but never `EINTR` (a signal counts as no change).
pub fn wait_mount_change(table: &File, timeout: Duration) -> io::Result<bool> {
    let mut fd = libc::pollfd {
        fd: table.as_raw_fd(),
        events: libc::POLLPRI,
        revents: 0,
    };
    let ms = timeout.as_millis().min(i32::MAX as u128) as libc::c_int;
    // SAFETY: one valid pollfd for the call's duration.
    let n = unsafe { libc::poll(&mut fd, 1, ms) };
    if n < 0 {
        let e = io::Error::last_os_error();
        return if e.kind() == io::ErrorKind::Interrupted {
            Ok(false)
        } else {
            Err(e)
        };
    }
    Ok(n > 0 && fd.revents & (libc::POLLPRI | libc::POLLERR) != 0)
}
