//! The process a caller waits for is never the one a dead mount can hold.
//!
//! A thread inside a call on a dead mount (a FUSE request with no answer, an
//! NFS server gone) sleeps uninterruptibly: no signal ends it, and while it
//! lives its process cannot finish exiting. [`crate::bounded`] leaves such a
//! thread behind and goes on, but at `exit` the process would become a zombie
//! that its parent's `wait` never collects, still holding its open files (its
//! output, its session-bus connection and with it the single-instance name)
//! until the mount is aborted.
//!
//! [`supervise`], called first thing in `main`, forks, and both sides start
//! a fresh image of the same binary. The parent re-executes itself in a
//! small mode (the `CANOPY_SUPERVISE` environment variable, checked for being
//! really our child) that holds nothing of the caller's (its standard streams
//! are `/dev/null`), touches no filesystem but `/proc`, and waits: when the
//! program has exited it exits with the program's status. The child
//! re-executes itself with the caller's command line and environment plus
//! `CANOPY_PROGRAM` (checked for naming its parent and an open pipe), and is
//! the program: engine, threads, window. Promises:
//!
//! - the pid the caller started exits, with the program's exit code or the
//!   signal that ended it, as soon as the program has exited and been
//!   collected; while a thread of the program is stuck, `REAP_WITHIN`
//!   (200 ms) after its main thread exited, with the status read from
//!   `/proc/PID/stat` (a thread group whose leader has exited is `Z` there
//!   with the group's status while a stuck thread lives on). A program that
//!   is not stuck is always collected, never left a zombie for init;
//! - a program that exits (`exit`, a return from `main`, or a signal handler
//!   ending it through [`end_by_signal`]) while an engine call is running or
//!   stuck first closes every file it holds, so whoever reads its output gets
//!   the end, and a session-bus name it held is released;
//! - signals sent to the pid (`kill`, a logout's SIGHUP and SIGTERM, SIGINT,
//!   SIGQUIT, SIGUSR1/2) are passed to the program; a terminal's Ctrl-C,
//!   which reaches the whole process group, is not passed twice;
//! - when the supervisor itself is killed, the program gets SIGTERM;
//! - the program inherits no library state across the fork: it is a new
//!   image, with the caller's arguments and environment, and named as its
//!   binary is (not `exe`, as an image executed from `/proc/self/exe` is).
//!
//! Why a supervisor rather than helper processes for the calls themselves:
//! the program's calls stay plain syscalls on the hot path (a pipe round trip
//! per `stat` would cost more than the `stat`), the engine's descriptors stay
//! ordinary descriptors that survive a rename, and every call is covered,
//! including those on a device that answered before and then died. Why the
//! parent keeps the pid: the caller waits for it. Why it, too, executes
//! again: after `exec` it has a command line of its own (`ps`, tests), so the
//! program stays the one process whose command line is the binary's.
//!
//! Why the child executes again instead of going on from the fork: a
//! process is not single-threaded at the start of `main`. Libraries of the
//! WebKit stack start a thread from their initializers when the binary is
//! loaded (an allocator's scavenger, which takes the allocator's lock now and
//! then). A child that went on from the fork inherited that lock as it was at
//! the instant of the fork; when the other thread held it, the child waited
//! forever for a thread it does not have (about one launch in twenty under
//! load). Between the fork and the `exec`, the child runs only
//! async-signal-safe calls on memory prepared before the fork.
//!
//! What a stuck program still holds until its call returns: its memory and
//! the one descriptor the call is using. Without `/proc`, a program with a
//! stuck thread is seen to exit only when the call returns.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::sync::atomic::{AtomicI32, Ordering};

/// Names the program's pid and the read end of its lifeline pipe, in the
/// supervisor's environment only.
const ENV: &str = "CANOPY_SUPERVISE";
/// Names the supervisor's pid and the write end of the lifeline pipe, in the
/// program's environment at its start only (removed at once, so nothing the
/// program starts inherits it).
const PROGRAM_ENV: &str = "CANOPY_PROGRAM";
/// Where the child finds its own binary again when the file it was started
/// from has been replaced or removed (an upgrade while it starts).
const SELF_EXE: &std::ffi::CStr = c"/proc/self/exe";
/// Signals passed from the supervisor to the program.
const FORWARDED: [libc::c_int; 6] = [
    libc::SIGTERM,
    libc::SIGHUP,
    libc::SIGINT,
    libc::SIGQUIT,
    libc::SIGUSR1,
    libc::SIGUSR2,
];
/// How often the supervisor reads the program's state while its files are
/// still open (they stay open while a thread is stuck).
const LOOK_EVERY_MS: libc::c_int = 20;
/// How long the supervisor waits to collect a program whose main thread has
/// exited, before it takes the status from `/proc` (a thread is stuck).
const REAP_WITHIN: std::time::Duration = std::time::Duration::from_millis(200);
/// The supervisor's command line: its own, so `ps` tells it from the program.
const ARG0_SUFFIX: &str = " (supervisor)";

/// The program's end of the lifeline pipe: never closed by the program, so
/// the supervisor sees end-of-file only when every thread is gone.
static LIFELINE: AtomicI32 = AtomicI32::new(-1);

fn forwarded_set() -> libc::sigset_t {
    // SAFETY: sigemptyset/sigaddset initialise and fill a local set.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        for s in FORWARDED {
            libc::sigaddset(&mut set, s);
        }
        set
    }
}

/// Splits the process into a supervisor (the caller's pid, which waits) and
/// the program (a child running a fresh image of this binary, which returns
/// from this call). Call it first in `main`: the code before it runs twice
/// (in the first image and in the program's). When the process cannot fork
/// or execute itself again, it returns and runs unsupervised.
pub fn supervise() {
    if let Some(value) = std::env::var_os(ENV) {
        if let Some((pid, fd)) = parse_env(value.as_bytes()) {
            // A pid is our child only if waitpid knows it; a quick program
            // may have ended already.
            let mut status = 0;
            // SAFETY: waitpid on a local status.
            match unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) } {
                0 => watch_over(pid, fd),
                r if r == pid => exit_as(status),
                _ => {}
            }
        }
        // Not our child (the variable was inherited or set by hand): run as the program.
        std::env::remove_var(ENV);
    }
    if let Some(value) = std::env::var_os(PROGRAM_ENV) {
        std::env::remove_var(PROGRAM_ENV);
        if let Some((parent, fd)) = parse_env(value.as_bytes()) {
            if become_program(parent, fd) {
                take_the_binarys_name();
                return;
            }
        }
        // Not started by our supervisor (inherited, or set by hand): supervise anew.
    }
    // Without a path to this binary, nothing can be executed again.
    let Some(image) = ProgramImage::prepare() else {
        return;
    };
    let exe = image.exe.clone();
    let arg0 = std::env::args_os()
        .next()
        .map(|a| a.as_bytes().to_vec())
        .unwrap_or_else(|| b"canopy".to_vec());
    let arg0 = CString::new([arg0.as_slice(), ARG0_SUFFIX.as_bytes()].concat()).ok();
    let set = forwarded_set();
    let mut fds = [-1; 2];
    // SAFETY: plain syscalls on local buffers; between fork and exec the
    // child runs only async-signal-safe calls (signal, sigprocmask, close,
    // fcntl, prctl, getppid, raise, execve, _exit) on memory made before the
    // fork.
    unsafe {
        if libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) < 0 {
            return;
        }
        // Above the standard streams, which the supervisor points at /dev/null
        // (a caller may have started us with one of them closed).
        for fd in &mut fds {
            if *fd < 3 {
                let high = libc::fcntl(*fd, libc::F_DUPFD_CLOEXEC, 3);
                libc::close(*fd);
                *fd = high;
            }
        }
        if fds.iter().any(|&fd| fd < 0) {
            fds.iter().filter(|&&fd| fd >= 0).for_each(|&fd| {
                libc::close(fd);
            });
            return;
        }
        let parent = libc::getpid();
        // The program's environment names the pipe's write end and this pid.
        let Some(image) = image.with_program_env(parent, fds[1]) else {
            libc::close(fds[0]);
            libc::close(fds[1]);
            return;
        };
        let mut old: libc::sigset_t = std::mem::zeroed();
        // Blocked before the fork: a signal sent to the supervisor while it
        // starts is pending, then read from its signalfd, never lost.
        libc::sigprocmask(libc::SIG_BLOCK, &set, &mut old);
        // A caller may start us with SIGCHLD ignored, which would reap the
        // program unseen; the program gets the caller's setting back.
        let chld = libc::signal(libc::SIGCHLD, libc::SIG_DFL);
        match libc::fork() {
            -1 => {
                libc::signal(libc::SIGCHLD, chld);
                libc::sigprocmask(libc::SIG_SETMASK, &old, std::ptr::null_mut());
                libc::close(fds[0]);
                libc::close(fds[1]);
            }
            0 => {
                libc::signal(libc::SIGCHLD, chld);
                libc::sigprocmask(libc::SIG_SETMASK, &old, std::ptr::null_mut());
                libc::close(fds[0]);
                // The write end lives on across the exec (the program marks
                // it close-on-exec again for what it starts).
                libc::fcntl(fds[1], libc::F_SETFD, 0);
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM);
                if libc::getppid() != parent {
                    libc::raise(libc::SIGTERM);
                }
                image.exec();
                // Neither path could be executed: nothing of this image is
                // safe to go on with, and the supervisor reports the failure.
                libc::_exit(127);
            }
            child => {
                libc::close(fds[1]);
                // The read end lives on across the exec.
                libc::fcntl(fds[0], libc::F_SETFD, 0);
                if let Some(arg0) = &arg0 {
                    std::env::set_var(ENV, format!("{child}:{}", fds[0]));
                    let argv = [arg0.as_ptr(), std::ptr::null()];
                    libc::execv(exe.as_ptr(), argv.as_ptr());
                }
                // No exec (the binary is gone): supervise from here.
                watch_over(child, fds[0]);
            }
        }
    }
}

/// In the program's image, started by our supervisor: keeps the lifeline's
/// write end (close-on-exec again, so nothing the program starts holds it)
/// and the parent-death signal. False when `parent` is not our parent or
/// `fd` is not a pipe (the variable was inherited or set by hand).
fn become_program(parent: libc::pid_t, fd: libc::c_int) -> bool {
    // SAFETY: plain syscalls on a descriptor number and a local stat buffer.
    unsafe {
        let mut stat: libc::stat = std::mem::zeroed();
        if fd < 3
            || libc::getppid() != parent
            || libc::fstat(fd, &mut stat) != 0
            || stat.st_mode & libc::S_IFMT != libc::S_IFIFO
        {
            return false;
        }
        libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC);
        LIFELINE.store(fd, Ordering::SeqCst);
        // Kept across the exec, set again for clarity; a supervisor that died
        // in between is caught by the parent check.
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM);
        if libc::getppid() != parent {
            libc::raise(libc::SIGTERM);
        }
        libc::atexit(close_files_if_calls_pending);
    }
    true
}

/// Executed as `/proc/self/exe`, the program would be named `exe` (its
/// `comm`: what `ps`, `top`, `pgrep` and `/proc/PID/status` show); it takes
/// its binary's file name instead, the name an exec by path gives.
fn take_the_binarys_name() {
    let Some(name) = std::env::current_exe()
        .ok()
        .and_then(|p| p.file_name().and_then(|n| CString::new(n.as_bytes()).ok()))
    else {
        return;
    };
    // SAFETY: a NUL-terminated string that outlives the call; the kernel
    // copies what fits of it (15 bytes).
    unsafe { libc::prctl(libc::PR_SET_NAME, name.as_ptr()) };
}

/// The program's command line and environment, made before the fork (the
/// child may not allocate: another thread may have held the allocator's
/// lock at the fork).
struct ProgramImage {
    args: Vec<CString>,
    env: Vec<CString>,
    /// The path the binary was started from (tried before `/proc/self/exe`).
    exe: CString,
    argv: Vec<*const libc::c_char>,
    envp: Vec<*const libc::c_char>,
}

impl ProgramImage {
    fn prepare() -> Option<ProgramImage> {
        let args = std::env::args_os()
            .map(|a| CString::new(a.as_bytes()).ok())
            .collect::<Option<Vec<_>>>()?;
        let env = std::env::vars_os()
            .filter(|(k, _)| k != ENV && k != PROGRAM_ENV)
            .map(|(k, v)| CString::new([k.as_bytes(), b"=", v.as_bytes()].concat()).ok())
            .collect::<Option<Vec<_>>>()?;
        let exe = CString::new(std::env::current_exe().ok()?.as_os_str().as_bytes()).ok()?;
        Some(ProgramImage {
            args,
            env,
            exe,
            argv: Vec::new(),
            envp: Vec::new(),
        })
    }

    fn with_program_env(mut self, parent: libc::pid_t, lifeline: libc::c_int) -> Option<Self> {
        self.env
            .push(CString::new(format!("{PROGRAM_ENV}={parent}:{lifeline}")).ok()?);
        self.argv = self.args.iter().map(|a| a.as_ptr()).collect();
        self.argv.push(std::ptr::null());
        self.envp = self.env.iter().map(|e| e.as_ptr()).collect();
        self.envp.push(std::ptr::null());
        Some(self)
    }

    /// Executes the program; returns only if no path could be executed.
    /// Async-signal-safe: it only reads memory made before the fork.
    unsafe fn exec(&self) {
        // SAFETY: argv and envp are null-terminated arrays of pointers into
        // CStrings that `self` owns.
        unsafe {
            // By its path first: the process's name (`comm`, what `ps` and
            // `pgrep` show) is the executed file's name, and would read "exe".
            libc::execve(self.exe.as_ptr(), self.argv.as_ptr(), self.envp.as_ptr());
            libc::execve(SELF_EXE.as_ptr(), self.argv.as_ptr(), self.envp.as_ptr());
        }
    }
}

fn parse_env(value: &[u8]) -> Option<(libc::pid_t, libc::c_int)> {
    let text = std::str::from_utf8(value).ok()?;
    let (pid, fd) = text.split_once(':')?;
    Some((pid.parse().ok()?, fd.parse().ok()?))
}

/// At the program's `exit`: if an engine call is running or stuck, its
/// thread may outlive every other, and with it the table of open files.
/// Close them all now (but the lifeline), so the output ends and names held
/// on the session bus are released. A normal exit with nothing pending is
/// left alone.
extern "C" fn close_files_if_calls_pending() {
    if crate::bounded::calls_pending() == 0 {
        return;
    }
    let keep = LIFELINE.load(Ordering::SeqCst);
    close_all_but(keep);
}

/// Ends the program by `signal`, as the signal's default action would, for a
/// handler that did its work (the shell's, which saves the view on SIGTERM)
/// and must now die of the signal it caught. Like an `exit`, it first closes
/// every file if an engine call is running or stuck: a fatal signal runs no
/// `atexit`, and the stuck thread would keep them open (the session-bus
/// connection among them, and with it the single-instance name).
pub fn end_by_signal(signal: libc::c_int) -> ! {
    // SAFETY: the default action again, then the signal; the process ends here.
    unsafe {
        libc::signal(signal, libc::SIG_DFL);
        close_files_if_calls_pending();
        let mut one: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut one);
        libc::sigaddset(&mut one, signal);
        libc::pthread_sigmask(libc::SIG_UNBLOCK, &one, std::ptr::null_mut());
        libc::raise(signal);
        libc::_exit(128 + signal);
    }
}

/// Closes every descriptor but `keep`. Async-signal-safe.
fn close_all_but(keep: libc::c_int) {
    // SAFETY: close_range closes descriptors only; nothing is used after.
    unsafe {
        if keep > 0 {
            libc::syscall(libc::SYS_close_range, 0u32, (keep - 1) as u32, 0u32);
        }
        let from = if keep >= 0 { keep as u32 + 1 } else { 0 };
        if libc::syscall(libc::SYS_close_range, from, u32::MAX, 0u32) < 0 {
            for fd in from..4096 {
                libc::close(fd as libc::c_int);
            }
        }
    }
}

/// The supervisor: passes signals on, and exits as the program did.
fn watch_over(child: libc::pid_t, lifeline: libc::c_int) -> ! {
    // SAFETY: plain syscalls on owned descriptors and local buffers.
    unsafe {
        let null = libc::open(c"/dev/null".as_ptr(), libc::O_RDWR | libc::O_CLOEXEC);
        if null >= 0 {
            for fd in 0..3 {
                libc::dup2(null, fd);
            }
        }
        // Nothing else of the caller's either: what the program inherited is the program's.
        libc::syscall(
            libc::SYS_close_range,
            3u32,
            (lifeline - 1).max(2) as u32,
            0u32,
        );
        libc::syscall(libc::SYS_close_range, lifeline as u32 + 1, u32::MAX, 0u32);
        let set = forwarded_set();
        libc::sigprocmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
        let signals = libc::signalfd(-1, &set, libc::SFD_CLOEXEC);
        let mut ended = false;
        // Readable once the program can be collected (Linux 5.3+; else -1):
        // a program that simply exits is collected at once.
        let mut pidfd = libc::syscall(libc::SYS_pidfd_open, child, 0) as libc::c_int;
        // Since when the program's main thread is seen exited (`Z`) while it
        // cannot be collected yet.
        let mut exited_since: Option<std::time::Instant> = None;
        loop {
            let mut polled = [
                libc::pollfd {
                    fd: if ended { -1 } else { lifeline },
                    events: libc::POLLIN,
                    revents: 0,
                },
                libc::pollfd {
                    fd: signals,
                    events: libc::POLLIN,
                    revents: 0,
                },
                libc::pollfd {
                    fd: pidfd,
                    events: libc::POLLIN,
                    revents: 0,
                },
            ];
            // While the program is exiting, look often.
            libc::poll(
                polled.as_mut_ptr(),
                3,
                if exited_since.is_some() {
                    1
                } else {
                    LOOK_EVERY_MS
                },
            );
            if polled[1].revents & libc::POLLIN != 0 {
                let mut info: libc::signalfd_siginfo = std::mem::zeroed();
                let size = std::mem::size_of::<libc::signalfd_siginfo>();
                if libc::read(signals, (&mut info as *mut libc::signalfd_siginfo).cast(), size) == size as isize
                    // Sent by a process (kill, sigqueue, tkill: codes <= 0), not by the
                    // terminal, whose Ctrl-C reaches the program's process group too.
                    && info.ssi_code <= 0
                {
                    libc::kill(child, info.ssi_signo as libc::c_int);
                }
            }
            if polled[0].revents != 0 {
                let mut byte = 0u8;
                if libc::read(lifeline, (&mut byte as *mut u8).cast(), 1) <= 0 {
                    // Every thread let go of the lifeline: collected in a moment.
                    ended = true;
                    exited_since.get_or_insert_with(std::time::Instant::now);
                }
            }
            let mut status = 0;
            match libc::waitpid(child, &mut status, libc::WNOHANG) {
                // A pidfd readable before the program can be collected (an
                // older kernel's meaning) would keep poll from waiting: drop it.
                0 if polled[2].revents != 0 => pidfd = -1,
                0 => {}
                r if r == child => exit_as(status),
                _ => libc::_exit(1),
            }
            // The main thread exits before the others: a program seen exited
            // is given REAP_WITHIN to be collected (a program left uncollected
            // is a zombie for whoever adopts it); one that cannot be by then
            // has a thread stuck, and its status is read from /proc.
            if let Some(status) = exited_with_threads_left(child) {
                match exited_since {
                    Some(t) if t.elapsed() >= REAP_WITHIN => exit_as(status),
                    Some(_) => {}
                    None => exited_since = Some(std::time::Instant::now()),
                }
            } else if ended && exited_since.is_some_and(|t| t.elapsed() >= REAP_WITHIN) {
                // The lifeline ended but the program goes on (it closed it): look as before.
                exited_since = None;
            }
        }
    }
}

/// The program's exit status, when its main thread has exited but a thread
/// (stuck in a call) keeps the group from being collected: its state in
/// `/proc/PID/stat` is `Z` and field 52 is the status `waitpid` would give.
fn exited_with_threads_left(pid: libc::pid_t) -> Option<libc::c_int> {
    let stat = std::fs::read(format!("/proc/{pid}/stat")).ok()?;
    parse_stat(&stat)
}

fn parse_stat(stat: &[u8]) -> Option<libc::c_int> {
    // The command name (field 2) is in parentheses and may hold anything.
    let close = stat.iter().rposition(|&b| b == b')')?;
    let rest = std::str::from_utf8(&stat[close + 1..]).ok()?;
    let fields: Vec<&str> = rest.split_ascii_whitespace().collect();
    // fields[0] is field 3 (the state), so field 52 is fields[49].
    match fields.first() {
        Some(&"Z") | Some(&"X") => fields.get(49)?.parse().ok(),
        _ => None,
    }
}

/// Exits with `status` as `waitpid` reported it: the same code, or the same signal.
fn exit_as(status: libc::c_int) -> ! {
    // SAFETY: plain syscalls; the process ends here.
    unsafe {
        if libc::WIFSIGNALED(status) {
            let sig = libc::WTERMSIG(status);
            // No core file of the supervisor for the program's crash.
            let none = libc::rlimit {
                rlim_cur: 0,
                rlim_max: 0,
            };
            libc::setrlimit(libc::RLIMIT_CORE, &none);
            libc::signal(sig, libc::SIG_DFL);
            let mut one: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut one);
            libc::sigaddset(&mut one, sig);
            libc::sigprocmask(libc::SIG_UNBLOCK, &one, std::ptr::null_mut());
            libc::raise(sig);
            libc::_exit(128 + sig);
        }
        libc::_exit(libc::WEXITSTATUS(status));
    }
}

/// The pipe's write end that [`on_signal`] writes the signal's number to.
static SIGNAL_PIPE: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(-1);

extern "C" fn on_signal(number: libc::c_int) {
    let byte = number as u8;
    // SAFETY: write(2) is async-signal-safe; the pipe lives as long as the process.
    unsafe {
        libc::write(
            SIGNAL_PIPE.load(std::sync::atomic::Ordering::Relaxed),
            (&raw const byte).cast(),
            1,
        )
    };
}

/// On SIGTERM or SIGHUP (a logout, a shutdown, `kill`): runs `last` (the
/// window writes what it remembers), then ends the process by that signal
/// as it would have ended without the handler ([`end_by_signal`]). The
/// handler only writes to a pipe; a thread of its own does the rest, so a
/// busy program does not keep the process alive. Call once.
pub fn on_termination(last: impl FnOnce() + Send + 'static) {
    let mut fds = [0; 2];
    // SAFETY: fds has room for the two descriptors pipe2 fills in.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return;
    }
    SIGNAL_PIPE.store(fds[1], std::sync::atomic::Ordering::SeqCst);
    let spawned = std::thread::Builder::new()
        .name("canopy-signals".into())
        .spawn(move || {
            let mut number = 0u8;
            // SAFETY: reads one byte into `number` from the pipe's read end.
            while unsafe { libc::read(fds[0], (&raw mut number).cast(), 1) } != 1 {
                if std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
                    return;
                }
            }
            last();
            // The default action again, then the signal that was sent, having let
            // go of every file if an engine call is stuck on a dead mount.
            end_by_signal(libc::c_int::from(number));
        });
    if spawned.is_err() {
        return;
    }
    for number in [libc::SIGTERM, libc::SIGHUP] {
        // SAFETY: a plain handler that only writes to a pipe; SA_RESTART so
        // that other threads' calls are not interrupted.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
            action.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(number, &action, std::ptr::null_mut());
        }
    }
}

/// Closes stdout and stderr now (`canopy-list`, about to exit). A worker
/// left behind in a call on a dead mount can keep the process from exiting;
/// whoever reads its output still gets its end at once. Flush first.
pub fn close_standard_output() {
    // SAFETY: nothing writes to fd 1 or 2 after this point; the caller
    // flushed std's handles (stderr is unbuffered).
    unsafe {
        libc::close(1);
        libc::close(2);
    }
}

/// Lets a worker thread allocate from the process's main heap (`canopy-list`,
/// which runs one listing while its caller sleeps: nothing for per-thread
/// arenas to spare). glibc grows a thread's arena a few pages at a time, one
/// `mprotect` each (about 90 for a depth-2 listing of 50 folders), where the
/// main heap grows by 128 KiB at a time. Call before any thread starts.
pub fn one_malloc_arena() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets a malloc parameter; no thread has started yet.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_zombie_leader_gives_its_exit_status_and_a_live_one_none() {
        // A command name with spaces and parentheses, then state Z and 49 more fields.
        let mut zombie = b"4242 (a) b (c) Z".to_vec();
        for i in 4..=52 {
            zombie.extend_from_slice(format!(" {}", if i == 52 { 256 } else { 0 }).as_bytes());
        }
        assert_eq!(
            parse_stat(&zombie),
            Some(256),
            "exit code 1, as waitpid would say"
        );
        let running = String::from_utf8(zombie).unwrap().replace(" Z ", " S ");
        assert_eq!(parse_stat(running.as_bytes()), None);
        assert_eq!(parse_env(b"12:5"), Some((12, 5)));
        assert_eq!(parse_env(b"12"), None);
    }
}
