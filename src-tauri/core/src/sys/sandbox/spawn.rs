//! Starting the child confined: the file as an inherited read-only
//! descriptor named `/dev/fd/N`, every other descriptor close-on-exec, its
//! resource limits, no new privileges, a process group and (when the kernel
//! allows) a network namespace of its own, an empty environment, a private
//! working folder; then reading it ([`super::output`]) and ending it
//! ([`super::child`]).

use std::ffi::OsString;
use std::fs::File;
use std::io::{self, Read};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Command, Stdio};

use super::child::{kill_group, reap_later, wait_until};
use super::output::collect;
use super::temp_folder::TempFolder;
use super::{RenderJob, RenderOutcome, Rendered, FILE_ARG};
use crate::cancel::CancelToken;
use crate::limits::{RENDER_ADDRESS_SPACE, RENDER_CPU_SECONDS};

/// Runs one job in the sandbox and reads what it writes.
///
/// # Errors
/// The OS error when the child could not be started (the program is
/// missing, no pipe, no temporary folder). How the child ended is
/// [`Rendered::outcome`], never an error.
pub fn run(job: &RenderJob<'_>) -> io::Result<Rendered> {
    run_in(job, None)
}

/// As [`run`], for a tool that writes only to a file it is named (its
/// format told by the name's suffix): `name`, in the job's private folder,
/// is a link to the child's own standard output, so what it writes there
/// reaches the pipe (with the output cap) and `RLIMIT_FSIZE` 0 still holds
/// for every real file. `name` is one plain segment (`page.png`).
///
/// # Errors
/// As [`run`]; `InvalidInput` for a name that is not one plain segment.
pub fn run_writing_to(job: &RenderJob<'_>, name: &str) -> io::Result<Rendered> {
    let plain = !name.is_empty() && name != "." && name != ".." && !name.contains(['/', '\0']);
    if !plain {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "the output's name is not one plain segment",
        ));
    }
    run_in(job, Some(name))
}

fn run_in(job: &RenderJob<'_>, output_name: Option<&str>) -> io::Result<Rendered> {
    let temp = TempFolder::new()?;
    if let Some(name) = output_name {
        // Resolved by the child when it opens it: its own descriptor 1, the pipe.
        std::os::unix::fs::symlink("/proc/self/fd/1", temp.0.join(name))?;
    }
    let file_fd: Option<RawFd> = job.file.map(AsRawFd::as_raw_fd);
    let args: Vec<OsString> = job
        .args
        .iter()
        .map(|a| match (a.to_str(), file_fd) {
            (Some(FILE_ARG), Some(fd)) => OsString::from(format!("/dev/fd/{fd}")),
            _ => a.clone(),
        })
        .collect();
    // The child says through this pipe whether it got a network namespace.
    let (note_read, note_write) = pipe()?;
    let note_fd = note_write.as_raw_fd();
    let mut cmd = Command::new(job.program);
    cmd.args(&args)
        .env_clear()
        .current_dir(&temp.0)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let cpu = RENDER_CPU_SECONDS;
    let address_space = RENDER_ADDRESS_SPACE;
    // SAFETY: the closure runs in the forked child before exec and calls only
    // async-signal-safe system calls (prctl, setrlimit, signal, unshare,
    // write, fcntl, close_range); it allocates nothing.
    unsafe {
        cmd.pre_exec(move || {
            if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
                return Err(io::Error::last_os_error());
            }
            let limit = |resource, value: u64| {
                let lim = libc::rlimit {
                    rlim_cur: value,
                    rlim_max: value,
                };
                if libc::setrlimit(resource, &lim) != 0 {
                    return Err(io::Error::last_os_error());
                }
                Ok(())
            };
            limit(libc::RLIMIT_AS, address_space)?;
            limit(libc::RLIMIT_CPU, cpu)?;
            limit(libc::RLIMIT_FSIZE, 0)?;
            limit(libc::RLIMIT_CORE, 0)?;
            // A write past RLIMIT_FSIZE fails (EFBIG) instead of killing the
            // tool: a tool that only tries to write a cache (fontconfig's,
            // stale, for root) goes on with its job. The ignored disposition
            // survives exec.
            if libc::signal(libc::SIGXFSZ, libc::SIG_IGN) == libc::SIG_ERR {
                return Err(io::Error::last_os_error());
            }
            // Root may make a network namespace; anyone else only inside a
            // new user namespace (where the kernel allows unprivileged ones).
            let isolated = libc::unshare(libc::CLONE_NEWNET) == 0
                || libc::unshare(libc::CLONE_NEWUSER | libc::CLONE_NEWNET) == 0;
            let note: [u8; 1] = [if isolated { b'Y' } else { b'N' }];
            libc::write(note_fd, note.as_ptr().cast(), 1);
            // Nothing of the app's but the file and the three standard
            // streams crosses exec (std's own exec-error pipe is already
            // close-on-exec, so marking the rest leaves it working).
            mark_cloexec_from(3, file_fd);
            if let Some(fd) = file_fd {
                if libc::fcntl(fd, libc::F_SETFD, 0) != 0 {
                    return Err(io::Error::last_os_error());
                }
            }
            Ok(())
        });
    }
    let mut child = cmd.spawn()?;
    drop(note_write);
    drop(cmd);
    let network_isolated = {
        let mut note = [0u8; 1];
        let mut f = File::from(note_read);
        matches!(f.read(&mut note), Ok(1)) && note[0] == b'Y'
    };
    let collected = collect(&mut child, job);
    let outcome = match collected.stop {
        Some(stop) => {
            kill_group(&child);
            reap_later(child);
            stop
        }
        None => match wait_until(&mut child, collected.deadline, job.cancel) {
            Some(status) => match status.code() {
                Some(code) => RenderOutcome::Exited(code),
                None => RenderOutcome::Signalled(status.signal().unwrap_or(0)),
            },
            None => {
                kill_group(&child);
                reap_later(child);
                if job.cancel.is_some_and(CancelToken::is_cancelled) {
                    RenderOutcome::Cancelled
                } else {
                    RenderOutcome::TimedOut
                }
            }
        },
    };
    drop(temp);
    Ok(Rendered {
        outcome,
        stdout: collected.stdout,
        stderr: collected.stderr,
        network_isolated,
    })
}

fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0 as RawFd; 2];
    // SAFETY: a valid out-array of two descriptors.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: two fresh descriptors, owned here.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// Marks every descriptor from `first` on close-on-exec (`close_range` with
/// `CLOSE_RANGE_CLOEXEC`), but `keep`; by hand on a kernel without it.
/// Async-signal-safe: called between fork and exec.
unsafe fn mark_cloexec_from(first: RawFd, keep: Option<RawFd>) {
    const CLOSE_RANGE_CLOEXEC: libc::c_uint = 1 << 2;
    let ranges: [(RawFd, RawFd); 2] = match keep {
        Some(k) if k >= first => [(first, k - 1), (k + 1, RawFd::MAX)],
        _ => [(first, RawFd::MAX), (1, 0)],
    };
    for (lo, hi) in ranges {
        if lo > hi {
            continue;
        }
        let done = libc::syscall(
            libc::SYS_close_range,
            lo as libc::c_uint,
            hi as libc::c_uint,
            CLOSE_RANGE_CLOEXEC,
        ) == 0;
        if !done {
            let top = hi.min(4096);
            let mut fd = lo;
            while fd <= top {
                libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC);
                fd += 1;
            }
        }
    }
}
