//! The pool's promises tried with jobs that hang until released: a call left
//! behind and its place failing at once, one probe per unproven device, a
//! proven device never serialised, stuck paths blocking only what lies below
//! them, the stuck-thread bound, CPU work halted with nothing marked stuck,
//! and new workers keeping their caller's CPUs.

use std::sync::mpsc::{self, Receiver, Sender};
use std::time::{Duration, Instant};

use super::mounts::{mount_points, unescape_mount_point};
use super::{run_in, Abandoned, Place, Pool, Unresponsive};
use crate::error::ErrorCode;
use crate::limits::{ABANDON_GRACE, MAX_STUCK_THREADS};

/// A device number no real mount has (a real one's mount points would be marked too).
const FAKE_DEV: u64 = 0xdead_0000_0000;

fn pool() -> &'static Pool {
    Box::leak(Box::new(Pool::new()))
}

/// A job that hangs at `place` until released.
fn hang(
    pool: &'static Pool,
    place: Place,
    budget: Duration,
) -> (Result<Result<(), Unresponsive>, Abandoned>, Sender<()>) {
    let (release, wait): (Sender<()>, Receiver<()>) = mpsc::channel();
    let deadline = Instant::now() + budget;
    let r = run_in(pool, move |w| {
        w.begin(place, deadline)?;
        let _ = wait.recv();
        w.end();
        Ok(())
    });
    (r, release)
}

/// Waits until every stuck call has come back; they were all released,
/// so the bound only turns a call that never returns into a failure.
fn until_none_stuck(pool: &Pool) {
    let give_up = Instant::now() + Duration::from_secs(30);
    while pool.stuck_threads() > 0 {
        assert!(Instant::now() < give_up, "a released call never came back");
        std::thread::yield_now();
    }
}

#[test]
fn a_call_that_never_returns_is_given_up_and_its_place_fails_at_once() {
    let pool = pool();
    let (r, release) = hang(pool, Place::Device(7), Duration::from_millis(20));
    assert_eq!(r.unwrap_err().places, [Place::Device(7)]);
    assert_eq!(pool.stuck_threads(), 1);
    // A second call on the device does not park another thread.
    let workers = pool.workers();
    let (again, _keep) = hang(pool, Place::Device(7), Duration::from_secs(60));
    assert_eq!(
        again.unwrap(),
        Err(Unresponsive::Stuck),
        "fails at once, without waiting its 60 s"
    );
    assert_eq!(pool.stuck_threads(), 1);
    assert!(
        pool.workers() <= workers + 1,
        "the refused job ran on an idle worker or a new one that is idle now"
    );
    // Another device is unaffected.
    let fine = run_in(pool, |w| {
        w.begin(Place::Device(8), Instant::now() + Duration::from_secs(1))
            .map(|_| 5)
    });
    assert_eq!(fine.unwrap(), Ok(5));
    // Once the stuck call returns, the device is usable again.
    release.send(()).unwrap();
    until_none_stuck(pool);
    let later = run_in(pool, |w| {
        w.begin(Place::Device(7), Instant::now() + Duration::from_secs(1))
    });
    assert_eq!(later.unwrap(), Ok(()));
}

#[test]
fn two_first_calls_on_a_dead_device_leave_one_thread_behind_not_two() {
    let pool = pool();
    let budget = Duration::from_millis(200);
    let start = std::sync::Barrier::new(2);
    let (first, second) = std::thread::scope(|s| {
        let one = s.spawn(|| {
            start.wait();
            hang(pool, Place::Device(FAKE_DEV), budget)
        });
        let two = s.spawn(|| {
            start.wait();
            hang(pool, Place::Device(FAKE_DEV), budget)
        });
        (one.join().unwrap(), two.join().unwrap())
    });
    let outcomes = [&first.0, &second.0];
    let left_behind = outcomes.iter().filter(|r| r.is_err()).count();
    assert_eq!(
        left_behind, 1,
        "one call is the probe and is left behind: {outcomes:?}"
    );
    let refused = outcomes.iter().find_map(|r| r.as_ref().ok()).unwrap();
    assert!(
        matches!(refused, Err(Unresponsive::Unproven | Unresponsive::Stuck)),
        "the other waited for the probe and never reached the device: {refused:?}"
    );
    assert_eq!(pool.stuck_threads(), 1);
    drop((first, second));
    until_none_stuck(pool);
}

#[test]
fn a_device_that_answered_once_never_makes_calls_wait_for_each_other() {
    let pool = pool();
    let quick = |d| {
        run_in(pool, move |w| {
            w.begin(Place::Device(d), Instant::now() + Duration::from_secs(5))
                .map(|()| w.end())
        })
    };
    assert_eq!(
        quick(FAKE_DEV + 1).unwrap(),
        Ok(()),
        "the probe answers: the device is proven"
    );
    // A long call on the proven device is in flight ...
    let (release, wait) = mpsc::channel::<()>();
    let (entered_tx, entered) = mpsc::channel::<()>();
    let long = std::thread::spawn(move || {
        run_in(pool, move |w| {
            w.begin(
                Place::Device(FAKE_DEV + 1),
                Instant::now() + Duration::from_secs(600),
            )
            .unwrap();
            entered_tx.send(()).unwrap();
            let _ = wait.recv();
            w.end();
        })
    });
    entered.recv().unwrap();
    // ... and another call on it goes through without waiting for it.
    assert_eq!(quick(FAKE_DEV + 1).unwrap(), Ok(()));
    release.send(()).unwrap();
    assert!(long.join().unwrap().is_ok());
}

#[test]
fn a_stuck_path_blocks_what_lies_below_it_only() {
    let stuck = Place::Path(b"/mnt/dead".as_slice().into());
    let at = |p: &[u8]| Place::Path(p.into()).blocked_by(&stuck);
    assert!(at(b"/mnt/dead") && at(b"/mnt/dead/x/y"));
    assert!(!at(b"/mnt/deadline") && !at(b"/mnt") && !at(b"/mnt/live"));
    assert!(Place::Path(b"/x".as_slice().into()).blocked_by(&Place::Path(b"/".as_slice().into())));
}

#[test]
fn a_device_is_found_at_its_mount_points() {
    use std::os::unix::fs::MetadataExt;
    let dev = std::fs::metadata("/proc").unwrap().dev();
    assert!(
        mount_points(dev).iter().any(|p| &**p == b"/proc"),
        "{:?}",
        mount_points(dev)
    );
    assert_eq!(&*unescape_mount_point(br"/mnt/a\040b\134c"), b"/mnt/a b\\c");
}

#[test]
fn at_most_the_limit_of_threads_are_ever_stuck() {
    let pool = pool();
    let mut releases = Vec::new();
    for dev in 0..MAX_STUCK_THREADS as u64 {
        let (r, release) = hang(pool, Place::Device(100 + dev), Duration::from_millis(10));
        assert!(r.is_err());
        releases.push(release);
    }
    assert_eq!(pool.stuck_threads(), MAX_STUCK_THREADS);
    let before = pool.workers();
    for dev in 0..20 {
        let (r, _release) = hang(pool, Place::Device(1_000 + dev), Duration::from_secs(60));
        assert_eq!(
            r.unwrap(),
            Err(Unresponsive::TooMany),
            "a new place fails at once too"
        );
    }
    assert_eq!(pool.stuck_threads(), MAX_STUCK_THREADS);
    assert!(
        pool.workers() <= before + 1,
        "20 refusals add at most one (idle) thread"
    );
    drop(releases);
    until_none_stuck(pool);
}

#[test]
fn work_computing_past_its_deadline_is_given_up_with_nothing_stuck_and_stops() {
    use crate::cpu_work::{blocking, CpuWork, Halt};
    let pool = pool();
    let (seen_tx, seen) = mpsc::channel();
    let r = run_in(pool, move |w| {
        w.begin(
            Place::Device(FAKE_DEV + 7),
            Instant::now() + Duration::from_millis(20),
        )
        .unwrap();
        let work = CpuWork::start();
        let mut halts = Vec::new();
        // Work that ignores the deadline's flag: only the halt stops it.
        while halts.last() != Some(&Halt::GivenUp) {
            match work.halt() {
                Some(h) if halts.last() != Some(&h) => halts.push(h),
                _ => std::hint::spin_loop(),
            }
        }
        let called = blocking(|| Ok(())).is_ok();
        let _ = seen_tx.send((halts, called, w.abandoned()));
    });
    let given_up = r.unwrap_err();
    assert!(given_up.computing, "{given_up:?}");
    assert_eq!(
        given_up.error(Duration::from_millis(20)).code,
        ErrorCode::Timeout
    );
    assert_eq!(pool.stuck_threads(), 0, "CPU work marks no place stuck");
    assert!(pool.check(&Place::Device(FAKE_DEV + 7)).is_ok());
    let (halts, called, abandoned) = seen.recv().unwrap();
    assert_eq!(
        halts,
        [Halt::Due, Halt::GivenUp],
        "the deadline was said first"
    );
    assert!(!called, "no call is made after the halt");
    assert!(abandoned, "a halted job publishes nothing");
}

#[test]
fn a_result_published_at_the_deadline_is_kept_not_lost() {
    let pool = pool();
    for _ in 0..5 {
        let deadline = Instant::now() + Duration::from_millis(1);
        let r = run_in(pool, move |w| {
            w.begin(Place::Device(1), deadline).unwrap();
            while Instant::now() < deadline + ABANDON_GRACE {
                std::hint::spin_loop();
            }
            w.end();
            42
        });
        // Either outcome is allowed at the edge, but never a stuck mark left behind.
        let _ = r;
        until_none_stuck(pool);
        assert!(pool.check(&Place::Device(1)).is_ok());
    }
}

#[test]
fn a_new_worker_and_its_caller_keep_every_cpu_they_had() {
    let pool = pool();
    let before = crate::sys::cpus::cpus_of_this_thread();
    let (tx, rx) = mpsc::channel();
    // A fresh pool has no idle worker: this job starts a new thread.
    let on_worker = run_in(pool, move |_| {
        let _ = tx.send(std::thread::current().id());
        crate::sys::cpus::cpus_of_this_thread()
    });
    assert_ne!(
        rx.recv().unwrap(),
        std::thread::current().id(),
        "the job ran on a worker"
    );
    assert_eq!(
        on_worker.unwrap(),
        before,
        "the worker took the caller's CPUs back, not only the one it started on"
    );
    assert_eq!(
        crate::sys::cpus::cpus_of_this_thread(),
        before,
        "the caller is not left pinned"
    );
}
