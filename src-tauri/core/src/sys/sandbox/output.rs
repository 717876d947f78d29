//! Reading the child's pipes: its output up to the job's cap, the tail of
//! its error, until both close, the deadline comes or the job is cancelled,
//! waking at least every `RENDER_POLL_MS` to look.

use std::io::{self, Read};
use std::os::fd::AsRawFd;
use std::process::Child;
use std::time::{Duration, Instant};

use super::{RenderJob, RenderOutcome};
use crate::cancel::CancelToken;
use crate::limits::{RENDER_POLL_MS, RENDER_STDERR_KEPT};

/// What was read from the child's pipes, and why reading stopped early.
pub(super) struct Collected {
    pub(super) stdout: Vec<u8>,
    pub(super) stderr: Vec<u8>,
    pub(super) stop: Option<RenderOutcome>,
    pub(super) deadline: Instant,
}

/// Reads the child's output and error until both close, the output passes
/// its cap, the deadline comes or the job is cancelled.
pub(super) fn collect(child: &mut Child, job: &RenderJob<'_>) -> Collected {
    let deadline = Instant::now() + job.deadline;
    let mut out = Collected {
        stdout: Vec::new(),
        stderr: Vec::new(),
        stop: None,
        deadline,
    };
    let mut stdout = child.stdout.take();
    let mut stderr = child.stderr.take();
    let mut buf = vec![0u8; 64 * 1024];
    while stdout.is_some() || stderr.is_some() {
        if job.cancel.is_some_and(CancelToken::is_cancelled) {
            out.stop = Some(RenderOutcome::Cancelled);
            break;
        }
        let now = Instant::now();
        if now >= deadline {
            out.stop = Some(RenderOutcome::TimedOut);
            break;
        }
        let wait = (deadline - now).min(Duration::from_millis(RENDER_POLL_MS));
        let mut fds = Vec::with_capacity(2);
        for fd in [
            stdout.as_ref().map(AsRawFd::as_raw_fd),
            stderr.as_ref().map(AsRawFd::as_raw_fd),
        ]
        .into_iter()
        .flatten()
        {
            fds.push(libc::pollfd {
                fd,
                events: libc::POLLIN,
                revents: 0,
            });
        }
        // SAFETY: `fds` is a valid array of pollfd for the call's duration.
        let n = unsafe {
            libc::poll(
                fds.as_mut_ptr(),
                fds.len() as libc::nfds_t,
                wait.as_millis() as libc::c_int,
            )
        };
        if n < 0 {
            let e = io::Error::last_os_error();
            if e.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            out.stop = Some(RenderOutcome::TimedOut);
            break;
        }
        for p in &fds {
            if p.revents == 0 {
                continue;
            }
            let is_out = stdout.as_ref().is_some_and(|s| s.as_raw_fd() == p.fd);
            let got = if is_out {
                stdout.as_mut().map(|s| s.read(&mut buf))
            } else {
                stderr.as_mut().map(|s| s.read(&mut buf))
            };
            match got {
                Some(Ok(0)) | Some(Err(_)) | None => {
                    if is_out {
                        stdout = None;
                    } else {
                        stderr = None;
                    }
                }
                Some(Ok(k)) if is_out => {
                    if out.stdout.len() + k > job.max_output {
                        let room = job.max_output - out.stdout.len();
                        out.stdout.extend_from_slice(&buf[..room]);
                        out.stop = Some(RenderOutcome::TooMuchOutput);
                        return out;
                    }
                    out.stdout.extend_from_slice(&buf[..k]);
                }
                Some(Ok(k)) => {
                    out.stderr.extend_from_slice(&buf[..k]);
                    if out.stderr.len() > RENDER_STDERR_KEPT {
                        let cut = out.stderr.len() - RENDER_STDERR_KEPT;
                        out.stderr.drain(..cut);
                    }
                }
            }
        }
    }
    out
}
