//! The sandboxed renderer: one child process per job, for the parsers with
//! the longest record of exploits (PDF, fonts, video), which Canopy runs as
//! Debian's tools rather than in its own address space.
//!
//! Promises, for every job:
//! - the child gets the file as an already-open, read-only descriptor,
//!   inherited under its own number and named `/dev/fd/N` in its arguments:
//!   never a path it could be raced on. No other descriptor of the app's
//!   reaches it (all others are close-on-exec before `exec`);
//! - its output is read from a pipe, at most [`Job::max_output`] bytes, with
//!   a deadline; past either, or when the job's cancel token is set, the
//!   child's whole process group is killed and the caller is answered at
//!   once (a child stuck in the kernel is reaped by a thread of its own):
//!   the caller never waits on a stuck child;
//! - it runs with `RLIMIT_AS` [`RENDER_ADDRESS_SPACE`], `RLIMIT_CPU`
//!   [`RENDER_CPU_SECONDS`], `RLIMIT_FSIZE` 0 (it can write no byte to a
//!   file, and such a write fails rather than killing it: `SIGXFSZ` is
//!   ignored; truncating or deleting one it may write is not stopped),
//!   `RLIMIT_CORE` 0, `PR_SET_NO_NEW_PRIVS`, in a process group of its own, in
//!   a new network namespace when the kernel allows one (as root, or through
//!   a new user namespace otherwise; [`Rendered::network_isolated`] says
//!   whether it did), with an empty environment, and in a private temporary
//!   folder as its working folder, removed after the job;
//! - the program is looked up in the system's own folders (`/usr/bin`,
//!   `/bin`), never through `PATH`.

use std::ffi::OsString;
use std::fs::File;
use std::io::{self, Read};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::cancel::CancelToken;
use crate::limits::{RENDER_ADDRESS_SPACE, RENDER_CPU_SECONDS, RENDER_POLL_MS, RENDER_STDERR_KEPT};

/// Where the renderer's programs are looked up, in order: the system's
/// folders only (an empty environment has no `PATH`, and a `PATH` could
/// name a folder the user can write).
pub const TOOL_FOLDERS: &[&str] = &["/usr/bin", "/bin", "/usr/local/bin"];

/// The program `name` in [`TOOL_FOLDERS`], when one of them has it. In the
/// `e2e` build, `CANOPY_TEST_TOOL_FOLDERS` (folders, `:`-separated) stands
/// for them: the missing-tool tests name an empty one.
pub fn find_tool(name: &str) -> Option<PathBuf> {
    #[cfg(feature = "e2e")]
    if let Some(folders) = std::env::var_os("CANOPY_TEST_TOOL_FOLDERS") {
        return std::env::split_paths(&folders)
            .map(|d| d.join(name))
            .find(|p| p.is_file());
    }
    TOOL_FOLDERS
        .iter()
        .map(|d| Path::new(d).join(name))
        .find(|p| p.is_file())
}

/// One job for the renderer.
pub struct Job<'a> {
    /// The program, as an absolute path (see [`find_tool`]).
    pub program: &'a Path,
    /// Its arguments; [`FILE_ARG`] stands for the file's `/dev/fd/N`.
    pub args: Vec<OsString>,
    /// The file it reads, opened read-only by the engine.
    pub file: Option<&'a File>,
    /// The most output read; more is [`Outcome::TooMuchOutput`].
    pub max_output: usize,
    /// When the job is given up.
    pub deadline: Duration,
    /// Set when the job is no longer wanted (the selection changed).
    pub cancel: Option<&'a CancelToken>,
}

/// Stands for the file's `/dev/fd/N` in [`Job::args`].
pub const FILE_ARG: &str = "\u{0}file";

/// How a job ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The program exited with this status (0: it did its job).
    Exited(i32),
    /// A signal ended it (`SIGXCPU` for its CPU limit, `SIGSEGV` for a crash ...).
    Signalled(i32),
    /// Its deadline came first: its process group was killed.
    TimedOut,
    /// It wrote more than the job's output cap: its process group was killed.
    TooMuchOutput,
    /// The job was cancelled: its process group was killed.
    Cancelled,
}

/// What a job returned.
#[derive(Debug)]
pub struct Rendered {
    pub outcome: Outcome,
    /// Its standard output (at most the cap; what it wrote before it ended).
    pub stdout: Vec<u8>,
    /// The last [`RENDER_STDERR_KEPT`] bytes of its standard error.
    pub stderr: Vec<u8>,
    /// Whether it ran in a network namespace of its own (no network).
    pub network_isolated: bool,
}

static JOBS: AtomicU64 = AtomicU64::new(0);

/// A private folder, removed when dropped.
struct TempFolder(PathBuf);

impl TempFolder {
    fn new() -> io::Result<TempFolder> {
        let base = std::env::temp_dir();
        loop {
            let n = JOBS.fetch_add(1, Ordering::Relaxed);
            let path = base.join(format!("canopy-render-{}-{n}", std::process::id()));
            match std::fs::DirBuilder::new().mode_private().create(&path) {
                Ok(()) => return Ok(TempFolder(path)),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e),
            }
        }
    }
}

trait Private {
    fn mode_private(&mut self) -> &mut Self;
}

impl Private for std::fs::DirBuilder {
    fn mode_private(&mut self) -> &mut Self {
        use std::os::unix::fs::DirBuilderExt;
        self.mode(0o700)
    }
}

impl Drop for TempFolder {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs one job in the sandbox and reads what it writes.
///
/// # Errors
/// The OS error when the child could not be started (the program is
/// missing, no pipe, no temporary folder). How the child ended is
/// [`Rendered::outcome`], never an error.
pub fn run(job: &Job<'_>) -> io::Result<Rendered> {
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
pub fn run_writing_to(job: &Job<'_>, name: &str) -> io::Result<Rendered> {
    let plain = !name.is_empty() && name != "." && name != ".." && !name.contains(['/', '\0']);
    if !plain {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "the output's name is not one plain segment",
        ));
    }
    run_in(job, Some(name))
}

fn run_in(job: &Job<'_>, output_name: Option<&str>) -> io::Result<Rendered> {
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
                Some(code) => Outcome::Exited(code),
                None => Outcome::Signalled(status.signal().unwrap_or(0)),
            },
            None => {
                kill_group(&child);
                reap_later(child);
                if job.cancel.is_some_and(CancelToken::is_cancelled) {
                    Outcome::Cancelled
                } else {
                    Outcome::TimedOut
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

/// What was read from the child's pipes, and why reading stopped early.
struct Collected {
    stdout: Vec<u8>,
    stderr: Vec<u8>,
    stop: Option<Outcome>,
    deadline: Instant,
}

/// Reads the child's output and error until both close, the output passes
/// its cap, the deadline comes or the job is cancelled.
fn collect(child: &mut Child, job: &Job<'_>) -> Collected {
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
            out.stop = Some(Outcome::Cancelled);
            break;
        }
        let now = Instant::now();
        if now >= deadline {
            out.stop = Some(Outcome::TimedOut);
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
            out.stop = Some(Outcome::TimedOut);
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
                        out.stop = Some(Outcome::TooMuchOutput);
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

/// Waits for the child to exit until the deadline (or a cancel); `None`
/// when it did not.
///
/// The child's exit wakes a `poll` on its pidfd (Linux 5.3 on), so the
/// answer follows its exit at once: its pipes close a moment before it is
/// reapable, and a fixed nap here cost each job up to 10 ms. Without a
/// pidfd, naps that start short and grow to 10 ms.
fn wait_until(
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
fn kill_group(child: &Child) {
    let pgid = child.id() as libc::pid_t;
    // SAFETY: signalling a process group this job made; no memory involved.
    unsafe {
        libc::killpg(pgid, libc::SIGKILL);
    }
}

/// Reaps a killed child on a thread of its own: one stuck in the kernel
/// (a dead mount) costs that thread, never the caller.
fn reap_later(mut child: Child) {
    let _ = std::thread::Builder::new()
        .name("canopy-reap".into())
        .spawn(move || {
            let _ = child.wait();
        });
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::limits::{RENDER_DEADLINE, RENDER_OUTPUT_CAP};

    fn tool(name: &str) -> PathBuf {
        find_tool(name).unwrap_or_else(|| panic!("{name} is needed by this test"))
    }

    fn job<'a>(program: &'a Path, args: &[&str], file: Option<&'a File>) -> Job<'a> {
        Job {
            program,
            args: args.iter().map(OsString::from).collect(),
            file,
            max_output: RENDER_OUTPUT_CAP,
            deadline: RENDER_DEADLINE,
            cancel: None,
        }
    }

    fn sh(script: &str) -> Rendered {
        let bash = tool("bash");
        run(&job(&bash, &["-c", script], None)).expect("bash starts")
    }

    #[test]
    fn child_reads_the_file_through_its_descriptor() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("doc.txt");
        std::fs::write(&path, b"the file's bytes").unwrap();
        let file = File::open(&path).unwrap();
        let cat = tool("cat");
        let done = run(&job(&cat, &[FILE_ARG], Some(&file))).unwrap();
        assert_eq!(done.outcome, Outcome::Exited(0), "{done:?}");
        assert_eq!(done.stdout, b"the file's bytes");
    }

    #[test]
    fn descriptor_keeps_the_first_file_when_the_path_is_swapped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("doc.txt");
        std::fs::write(&path, b"first").unwrap();
        let file = File::open(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        std::os::unix::fs::symlink("/etc/passwd", &path).unwrap();
        let cat = tool("cat");
        let done = run(&job(&cat, &[FILE_ARG], Some(&file))).unwrap();
        assert_eq!(
            done.stdout, b"first",
            "the child reads what was opened, not the path now"
        );
    }

    #[test]
    fn child_sees_no_other_descriptor_of_the_app() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("doc.txt");
        std::fs::write(&path, b"x").unwrap();
        let file = File::open(&path).unwrap();
        // A descriptor the app leaked without close-on-exec.
        let leaked_path = dir.path().join("secret");
        std::fs::write(&leaked_path, b"s").unwrap();
        let leaked = File::open(&leaked_path).unwrap();
        // SAFETY (test): clearing the flag on our own descriptor.
        unsafe { libc::fcntl(leaked.as_raw_fd(), libc::F_SETFD, 0) };
        let bash = tool("bash");
        let script = "for f in /proc/$$/fd/*; do readlink $f; done";
        let done = run(&job(&bash, &["-c", script], Some(&file))).unwrap();
        let out = String::from_utf8_lossy(&done.stdout);
        assert!(out.contains("doc.txt"), "the file is there: {out}");
        assert!(
            !out.contains("secret"),
            "nothing else of the app's is: {out}"
        );
    }

    #[test]
    fn child_that_sleeps_forever_is_killed_at_its_deadline() {
        let sleep = tool("sleep");
        let mut j = job(&sleep, &["1000"], None);
        j.deadline = Duration::from_millis(300);
        let started = Instant::now();
        let done = run(&j).unwrap();
        assert_eq!(done.outcome, Outcome::TimedOut);
        assert!(
            started.elapsed() < Duration::from_secs(100),
            "the caller was answered long before the child would have ended"
        );
    }

    #[test]
    fn whole_process_group_is_killed_at_the_deadline() {
        let dir = tempfile::tempdir().unwrap();
        let bash = tool("bash");
        // A grandchild that would outlive its parent, and says its pid.
        let mut j = job(&bash, &["-c", "sleep 1000 & echo $!; wait"], None);
        j.deadline = Duration::from_millis(500);
        let done = run(&j).unwrap();
        assert_eq!(done.outcome, Outcome::TimedOut);
        let pid: i32 = String::from_utf8_lossy(&done.stdout)
            .trim()
            .parse()
            .expect("a pid");
        // SAFETY (test): reaping is not ours; signal 0 asks whether it lives.
        let mut alive = true;
        for _ in 0..200 {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            // Gone, or a zombie waiting for init: killed either way.
            if stat.is_empty() || stat.contains(") Z ") {
                alive = false;
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = dir;
        assert!(!alive, "the grandchild {pid} was killed with its group");
    }

    #[test]
    fn cancel_kills_the_job() {
        let sleep = tool("sleep");
        let token = CancelToken::default();
        let mut j = job(&sleep, &["1000"], None);
        j.cancel = Some(&token);
        j.deadline = Duration::from_secs(600);
        let canceller = token.clone();
        let t = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(100));
            canceller.cancel();
        });
        let done = run(&j).unwrap();
        t.join().unwrap();
        assert_eq!(done.outcome, Outcome::Cancelled);
    }

    #[test]
    fn child_that_closes_its_output_and_lives_on_is_killed_at_its_deadline() {
        // Reading ends when its pipes close; the wait for its exit still
        // has the job's deadline.
        let bash = tool("bash");
        let mut j = job(&bash, &["-c", "exec >&- 2>&-; exec sleep 1000"], None);
        j.deadline = Duration::from_millis(300);
        let done = run(&j).unwrap();
        assert_eq!(done.outcome, Outcome::TimedOut);
    }

    #[test]
    fn cancel_while_waiting_for_the_exit_kills_the_job() {
        let bash = tool("bash");
        let token = CancelToken::default();
        let mut j = job(&bash, &["-c", "exec >&- 2>&-; exec sleep 1000"], None);
        j.cancel = Some(&token);
        j.deadline = Duration::from_secs(600);
        let canceller = token.clone();
        let t = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(200));
            canceller.cancel();
        });
        let done = run(&j).unwrap();
        t.join().unwrap();
        assert_eq!(done.outcome, Outcome::Cancelled);
    }

    #[test]
    fn exit_status_is_told_after_the_output_closes() {
        // The output closes a moment before the exit can be reaped.
        for code in [0, 3] {
            let done = sh(&format!("echo out; exit {code}"));
            assert_eq!(done.outcome, Outcome::Exited(code));
            assert_eq!(done.stdout, b"out\n");
        }
    }

    #[test]
    fn output_past_the_cap_kills_the_child() {
        let head = tool("head");
        let done = run(&job(&head, &["-c", "20000000", "/dev/zero"], None)).unwrap();
        assert_eq!(done.outcome, Outcome::TooMuchOutput);
        assert_eq!(
            done.stdout.len(),
            RENDER_OUTPUT_CAP,
            "exactly the cap is kept"
        );
    }

    #[test]
    fn named_output_reaches_the_pipe_and_no_file_is_written() {
        let bash = tool("bash");
        let j = job(
            &bash,
            &["-c", "echo picture > out.png; echo other > real.txt"],
            None,
        );
        let done = run_writing_to(&j, "out.png").unwrap();
        assert_eq!(
            String::from_utf8_lossy(&done.stdout),
            "picture\n",
            "what the tool wrote to its named output came through the pipe"
        );
        assert_eq!(
            done.outcome,
            Outcome::Exited(1),
            "a real file is still refused (the write fails): {done:?}"
        );
        assert!(
            String::from_utf8_lossy(&done.stderr).contains("File too large"),
            "{done:?}"
        );
        for bad in ["", "..", "a/b", "/tmp/x"] {
            assert_eq!(
                run_writing_to(&j, bad).unwrap_err().kind(),
                io::ErrorKind::InvalidInput,
                "{bad:?}"
            );
        }
    }

    #[test]
    fn child_cannot_write_a_file() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("written");
        let done = sh(&format!(
            "echo data > '{}'; echo data > here; echo went on",
            target.display()
        ));
        assert!(
            !target.exists() || std::fs::metadata(&target).unwrap().len() == 0,
            "RLIMIT_FSIZE 0: nothing written ({done:?})"
        );
        assert_eq!(
            String::from_utf8_lossy(&done.stdout),
            "went on\n",
            "a refused write fails, it does not kill the tool: {done:?}"
        );
        assert_eq!(done.outcome, Outcome::Exited(0));
    }

    #[test]
    fn child_runs_in_an_empty_environment_and_a_private_folder_removed_after() {
        let done = sh("env; pwd");
        assert_eq!(done.outcome, Outcome::Exited(0));
        let out = String::from_utf8(done.stdout).unwrap();
        let lines: Vec<&str> = out.lines().collect();
        // bash sets PWD, SHLVL and _ itself; nothing comes from the app.
        for l in &lines[..lines.len() - 1] {
            let name = l.split('=').next().unwrap();
            assert!(["PWD", "SHLVL", "_"].contains(&name), "inherited {l}");
        }
        let folder = lines.last().unwrap();
        assert!(folder.contains("canopy-render-"), "{folder}");
        assert!(
            !Path::new(folder).exists(),
            "the private folder is removed after the job"
        );
    }

    #[test]
    fn child_has_no_network() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let done = sh(&format!(
            "exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected || echo refused"
        ));
        if done.network_isolated {
            assert_eq!(
                String::from_utf8_lossy(&done.stdout).trim(),
                "refused",
                "{done:?}"
            );
        } else {
            // The kernel refused a namespace: the job says so, and the
            // machine running the tests must allow one for this test to mean anything.
            panic!("no network namespace could be made here: {done:?}");
        }
    }

    #[test]
    fn child_runs_without_new_privileges_and_with_its_limits() {
        let done = sh("grep NoNewPrivs /proc/self/status; ulimit -v; ulimit -t; ulimit -f");
        let out = String::from_utf8(done.stdout).unwrap();
        let words: Vec<&str> = out.split_whitespace().collect();
        assert_eq!(
            words,
            [
                "NoNewPrivs:",
                "1",
                &(RENDER_ADDRESS_SPACE / 1024).to_string(),
                &RENDER_CPU_SECONDS.to_string(),
                "0"
            ]
        );
    }

    #[test]
    fn child_spinning_the_cpu_is_stopped_by_its_cpu_limit() {
        let done = sh("while :; do :; done");
        // RLIMIT_CPU (5 s) and the deadline (5 s) race: either stops it.
        assert!(
            matches!(
                done.outcome,
                Outcome::Signalled(libc::SIGXCPU)
                    | Outcome::Signalled(libc::SIGKILL)
                    | Outcome::TimedOut
            ),
            "{done:?}"
        );
    }

    #[test]
    fn missing_program_is_an_error() {
        let err = run(&job(Path::new("/nonexistent/tool"), &[], None)).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::NotFound);
    }
}
