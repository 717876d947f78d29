//! The engine's system-call boundary: the one module where `unsafe` is
//! allowed (every other module of every crate forbids it), each block with
//! its `// SAFETY:` comment.
//!
//! - [`dirio`]: folders opened as folders and read with `getdents64`,
//!   entries examined relative to their folder, files opened only when
//!   regular; the local filesystem as a [`crate::Source`] ([`dirio::LocalFs`]).
//! - [`supervisor`]: the process that outlives a program stuck on a dead
//!   mount, the end by signal, and the save-then-end on SIGTERM and SIGHUP.
#![allow(unsafe_code)]

pub mod dirio;
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
    let c = std::ffi::CString::new(path.as_os_str().as_bytes()).map_err(|_| std::io::Error::from_raw_os_error(libc::EINVAL))?;
    // SAFETY: a valid C string for the call's duration.
    if unsafe { libc::mkfifo(c.as_ptr(), 0o600) } == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}
