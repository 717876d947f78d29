//! The supervisor's program is a fresh image: no library state (a lock held
//! by another thread at the fork) is inherited from the process that forked.

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The liveness bound for a program that must not hang: far above its 0.3 s
/// of work, far below forever.
const HANG: Duration = Duration::from_secs(60);

fn example(name: &str) -> std::path::PathBuf {
    let deps = std::env::current_exe().unwrap();
    deps.parent()
        .and_then(|d| d.parent())
        .map(|d| d.join("examples").join(name))
        .filter(|p| p.exists())
        .unwrap_or_else(|| panic!("{name} is built by `cargo test -p canopy-core` (an example)"))
}

#[test]
fn a_lock_held_by_another_thread_at_the_fork_is_not_inherited_by_the_program() {
    let mut child = Command::new(example("lock_at_fork"))
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if started.elapsed() > HANG {
            // SIGTERM to the supervisor reaches the program stuck on the lock.
            unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
            child.wait().unwrap();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut out = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    assert!(
        status.is_some_and(|s| s.success()) && out.starts_with("took the lock\n"),
        "the program must take a lock that was held at the fork by a thread it does not have \
         (status {status:?}, output {out:?}): it inherited the forking image's state"
    );
}

#[test]
fn the_program_is_known_by_its_binarys_name() {
    let out = Command::new(example("lock_at_fork")).output().unwrap();
    let out = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.ends_with("named lock_at_fork\n"),
        "ps and pgrep must see the program under its own name, not the path it was executed \
         again by (/proc/self/exe reads \"exe\"): {out:?}"
    );
}
