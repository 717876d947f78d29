//! Ending the child: waiting for its exit until the deadline or a cancel
//! (woken by its pidfd), killing its whole process group, and reaping a
//! killed child on a thread of its own, so the caller never waits on one
//! stuck in the kernel.

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::process::Child;
use std::time::{Duration, Instant};

use crate::cancel::CancelToken;
use crate::limits::RENDER_POLL_MS;

/// Waits for the child to exit until the deadline (or a cancel); `None`
/// when it did not.
///
/// The child's exit wakes a `poll` on its pidfd (Linux 5.3 on), so the
/// answer follows its exit at once: its pipes close a moment before it is
/// reapable, and a fixed nap here cost each job up to 10 ms. Without a
/// pidfd, naps that start short and grow to 10 ms.
pub(super) fn wait_until(
    child: &mut Child,
    deadline: Instant,
    cancel: Option<&CancelToken>,
) -> Option<std::process::ExitStatus> {
    let pidfd = pidfd_open(child.id());
    let mut nap = Duration::from_micros(250);
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Some(status),
            Ok(None) => {}
            Err(_) => return None,
        }
        let now = Instant::now();
        if now >= deadline || cancel.is_some_and(CancelToken::is_cancelled) {
            return None;
        }
        // Woken at least every RENDER_POLL_MS to look at the cancel token.
        let wait = (deadline - now).min(Duration::from_millis(RENDER_POLL_MS));
        match &pidfd {
            Some(fd) => {
                let mut p = libc::pollfd {
                    fd: fd.as_raw_fd(),
                    events: libc::POLLIN,
                    revents: 0,
                };
                let ms = wait.as_millis().max(1) as libc::c_int;
                // SAFETY: one valid pollfd for the call's duration.
                unsafe { libc::poll(&mut p, 1, ms) };
            }
            None => {
                std::thread::sleep(nap.min(wait));
                nap = (nap * 2).min(Duration::from_millis(10));
            }
        }
    }
}

/// A pidfd for the child `pid` (readable when it exits), if the kernel has them.
fn pidfd_open(pid: u32) -> Option<OwnedFd> {
    // SAFETY: pidfd_open takes a pid and flags and returns a new descriptor.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid as libc::pid_t, 0) };
    if fd < 0 {
        return None;
    }
    // SAFETY: a fresh descriptor, owned here (close-on-exec by the kernel).
    Some(unsafe { OwnedFd::from_raw_fd(fd as RawFd) })
}

/// Kills the child's whole process group (it is its leader).
pub(super) fn kill_group(child: &Child) {
    let pgid = child.id() as libc::pid_t;
    // SAFETY: signalling a process group this job made; no memory involved.
    unsafe {
        libc::killpg(pgid, libc::SIGKILL);
    }
}

/// Reaps a killed child on a thread of its own: one stuck in the kernel
/// (a dead mount) costs that thread, never the caller.
pub(super) fn reap_later(mut child: Child) {
    let _ = std::thread::Builder::new()
        .name("canopy-reap".into())
        .spawn(move || {
            let _ = child.wait();
        });
}
