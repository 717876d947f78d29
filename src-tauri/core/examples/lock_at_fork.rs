//! A test subject for the supervisor (`tests/supervisor.rs`): a process that,
//! like a binary linking WebKit, is not single-threaded when `main` starts.
//! A thread takes a lock and holds it for a moment, and `supervise()` is
//! called while it is held; then the program takes the lock and prints
//! `took the lock`, then its process name. A program that went on from the fork would inherit the
//! lock held by a thread it does not have, and wait forever.
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::Duration;

static LOCK: Mutex<()> = Mutex::new(());
static HELD: AtomicBool = AtomicBool::new(false);

fn main() {
    // As a library initializer does: a thread of its own before `main`'s work.
    std::thread::spawn(|| {
        let guard = LOCK.lock().unwrap();
        HELD.store(true, Ordering::SeqCst);
        std::thread::sleep(Duration::from_millis(300));
        drop(guard);
    });
    while !HELD.load(Ordering::SeqCst) {
        std::thread::yield_now();
    }
    canopy_core::supervisor::supervise();
    let _taken = LOCK.lock().unwrap();
    println!("took the lock");
    // What `ps` and `pgrep` know the program by.
    let name = std::fs::read_to_string("/proc/self/comm").unwrap_or_default();
    print!("named {name}");
}
