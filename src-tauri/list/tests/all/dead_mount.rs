//! `canopy-list` never held by a dead mount: it prints, closes its output
//! and exits while a call is stuck on a real FUSE filesystem that stops
//! answering (canopy-core's `tests/deadfs`, shared by path; the engine's own
//! dead-mount tests stay there).

use crate::common;
use crate::deadfs;

use std::io::Read;
use std::process::{Command, Stdio};
use std::sync::atomic::Ordering;
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use canopy_core::testing::Pool;
use common::*;
use deadfs::DeadMount;

/// The pool of stuck threads is the process's: these tests run one at a time.
static SERIAL: Mutex<()> = Mutex::new(());

/// `local/` (on the temp dir's filesystem: `x.txt`, `sub/y.txt`) beside
/// `mnt/`, where the dead filesystem is mounted.
struct Scene {
    mount: Option<DeadMount>,
    t: Tree,
    _serial: MutexGuard<'static, ()>,
}

impl Scene {
    fn new(dead_root: bool) -> Scene {
        let serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        let t = Tree::new();
        t.file("local/x.txt");
        t.file("local/sub/y.txt");
        let point = t.dir("mnt");
        let mount = if dead_root {
            DeadMount::dead_root(&point)
        } else {
            DeadMount::on(&point)
        };
        Scene {
            mount: Some(mount),
            t,
            _serial: serial,
        }
    }

    fn held(&self) -> &deadfs::Held {
        &self.mount.as_ref().unwrap().held
    }
}

impl Drop for Scene {
    fn drop(&mut self) {
        // Abort and unmount; stuck calls return, and their marks are cleared.
        drop(self.mount.take());
        let until = Instant::now() + Duration::from_secs(30);
        while Pool::global().stuck_threads() > 0 && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

#[test]
fn canopy_list_prints_its_listing_and_closes_its_output_while_a_call_is_stuck() {
    let s = Scene::new(true);
    let mut child = Command::new(cli())
        .arg(s.t.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("canopy-list runs");
    let mut stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut out = String::new();
        let _ = stdout.read_to_string(&mut out);
        let _ = tx.send(out);
    });
    // A watchdog, not a speed check: if the output never ends, the test
    // fails (after freeing the mount) instead of hanging.
    let out = rx.recv_timeout(Duration::from_secs(60));
    let unanswered = s.held().readdirs.load(Ordering::SeqCst);
    drop(s);
    let _ = child.wait();
    let out = out.expect("canopy-list's output reached its end while the readdir was unanswered");
    assert_eq!(
        out,
        "[DIR] local\n[DIR] local/sub\n[FILE] local/x.txt\n[DIR] mnt\n[TIMEOUT] mnt\n"
    );
    assert_eq!(
        unanswered, 1,
        "the dead readdir was asked, and was still held when the output ended"
    );
}

/// How long a process on a dead mount may take to exit: a hang detector, not
/// a speed check (it exits after one folder deadline, about 2.3 s).
const EXITS_WITHIN: Duration = Duration::from_secs(12);

/// Waits for `child` to exit while the scene's calls are held; if it does not
/// exit in time, frees the mount first (so the test cannot hang) and fails.
/// Gives the scene back with the calls still held.
fn exit_while_held(
    s: Scene,
    mut child: std::process::Child,
) -> (std::process::ExitStatus, usize, Scene) {
    let started = Instant::now();
    while started.elapsed() < EXITS_WITHIN {
        if let Some(status) = child.try_wait().expect("wait") {
            let held = s.held().readdirs.load(Ordering::SeqCst);
            eprintln!("exited after {:?}", started.elapsed());
            return (status, held, s);
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    drop(s);
    let _ = child.wait();
    panic!(
        "the process did not exit within {EXITS_WITHIN:?} while a call on the dead mount was stuck"
    );
}

#[test]
fn canopy_list_exits_while_a_call_on_a_dead_mount_is_stuck() {
    let s = Scene::new(true);
    let mut child = Command::new(cli())
        .arg(s.t.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("canopy-list runs");
    let mut stdout = child.stdout.take().unwrap();
    let (status, held, _s) = exit_while_held(s, child);
    assert!(status.success(), "{status:?}");
    assert_eq!(
        held, 1,
        "its parent's wait returned while the dead readdir was still unanswered"
    );
    let mut out = String::new();
    stdout.read_to_string(&mut out).unwrap();
    assert_eq!(
        out,
        "[DIR] local\n[DIR] local/sub\n[FILE] local/x.txt\n[DIR] mnt\n[TIMEOUT] mnt\n"
    );
}

#[test]
fn canopy_list_holds_no_file_open_once_it_exited_with_a_call_stuck() {
    use std::os::fd::{AsRawFd, OwnedFd};
    use std::os::unix::process::CommandExt;
    let s = Scene::new(true);
    // A pipe's write end handed to canopy-list as fd 3, standing for any file
    // it holds (the window's session-bus connection): its reader sees the end
    // only once no process holds it.
    let (reader, writer): (OwnedFd, OwnedFd) = {
        let mut fds = [0; 2];
        // SAFETY: pipe2 fills two fresh descriptors, owned here.
        assert_eq!(unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) }, 0);
        unsafe {
            (
                std::os::fd::FromRawFd::from_raw_fd(fds[0]),
                std::os::fd::FromRawFd::from_raw_fd(fds[1]),
            )
        }
    };
    let w = writer.as_raw_fd();
    let mut command = Command::new(cli());
    command
        .arg(s.t.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    // SAFETY: dup2 is async-signal-safe; it leaves fd 3 open across exec.
    unsafe {
        command.pre_exec(move || {
            if libc::dup2(w, 3) == 3 {
                Ok(())
            } else {
                Err(std::io::Error::last_os_error())
            }
        })
    };
    let child = command.spawn().expect("canopy-list runs");
    drop(writer);
    let (status, held, _s) = exit_while_held(s, child);
    assert!(status.success(), "{status:?}");
    assert_eq!(
        held, 1,
        "its parent's wait returned while the dead readdir was still unanswered"
    );
    // Looked at while the call is still held (the abort would free it),
    // without blocking.
    let mut byte = [0u8; 1];
    // SAFETY: a nonblocking read into a local buffer.
    let n = unsafe {
        libc::fcntl(reader.as_raw_fd(), libc::F_SETFL, libc::O_NONBLOCK);
        libc::read(reader.as_raw_fd(), byte.as_mut_ptr().cast(), 1)
    };
    assert_eq!(
        n,
        0,
        "end of file: no process holds the write end (-1 = still held: {})",
        std::io::Error::last_os_error()
    );
}

#[test]
fn canopy_list_collects_its_listing_process_when_nothing_is_stuck() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let t = Tree::new();
    t.file("local/x.txt");
    // Orphans come to this test process instead of init: a listing process
    // the supervisor did not collect would show up here as a zombie.
    // SAFETY: prctl on this process; waitpid below only on zombies it adopted.
    unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1) };
    // The main thread exits before the others: a race that a few runs in a
    // hundred would lose.
    for _ in 0..100 {
        let o = Command::new(cli())
            .arg(t.path())
            .output()
            .expect("canopy-list runs");
        assert!(o.status.success());
        // SAFETY: nonblocking wait for any adopted child.
        let orphan = unsafe { libc::waitpid(-1, std::ptr::null_mut(), libc::WNOHANG) };
        assert!(
            orphan <= 0,
            "the listing process {orphan} was left a zombie for its adopter"
        );
    }
}

#[test]
fn sigterm_ends_canopy_list_while_a_call_on_a_dead_mount_is_stuck() {
    use std::os::unix::process::ExitStatusExt;
    let s = Scene::new(true);
    let child = Command::new(cli())
        .arg(s.t.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("canopy-list runs");
    // Sent once the readdir is held in the filesystem: the listing is waiting on it.
    let until = Instant::now() + EXITS_WITHIN;
    while s.held().readdirs.load(Ordering::SeqCst) == 0 && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(2));
    }
    assert_eq!(
        s.held().readdirs.load(Ordering::SeqCst),
        1,
        "the listing reached the dead readdir"
    );
    // SAFETY: kill on our child's pid.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) };
    let (status, held, _s) = exit_while_held(s, child);
    assert_eq!(
        status.signal(),
        Some(libc::SIGTERM),
        "ended by the signal it was sent, as a plain process would be: {status:?}"
    );
    assert_eq!(held, 1, "while the dead readdir was still unanswered");
}

#[test]
fn canopy_list_sizes_over_a_dead_folder_prints_lower_bounds_and_succeeds() {
    // The mount's root answers; folders in it never do. The listing leaves
    // its calls stuck there first, which holds up the whole mount when the
    // count reads the root's entries: that costs the root a lower bound,
    // never the listing.
    let s = Scene::new(false);
    let mut child = Command::new(cli())
        .arg(s.t.path().join("mnt"))
        .args(["--sizes", "--depth", "1"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("canopy-list runs");
    let read_all = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            let _ = pipe.read_to_string(&mut text);
            text
        })
    };
    let out = read_all(Box::new(child.stdout.take().unwrap()));
    let err = read_all(Box::new(child.stderr.take().unwrap()));
    let (status, _, s) = exit_while_held(s, child);
    drop(s);
    let (out, err) = (out.join().unwrap(), err.join().unwrap());
    assert!(status.success(), "exit {status:?}; stderr: {err}");
    let size_line = out.lines().next().unwrap_or_default();
    assert!(
        size_line.starts_with("[SIZE]") && size_line.contains("(≥ "),
        "the root's figure is a lower bound: {out}"
    );
    assert!(
        out.contains("[DIR] dead (≥ ") && out.contains("[DIR] live ("),
        "the dead folder is a lower bound, the rest is listed: {out}"
    );
}
