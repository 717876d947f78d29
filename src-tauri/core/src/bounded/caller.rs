//! The caller's side of a bounded call: [`run`] hands a job to a worker and
//! waits, never past a step's deadline plus `ABANDON_GRACE`; when it gives
//! the job up it marks the step's places (and the mount points of its
//! devices) stuck, or, for CPU work, halts the work and marks nothing.
//! [`call`] is the one-step form most callers use.

use std::sync::mpsc::{self, TryRecvError};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use super::mounts::mount_points;
use super::place::{Abandoned, Place, Unresponsive};
use super::pool::{Pool, Registry};
use super::watch::{JobState, Watch};
use super::worker::PendingCall;
use crate::cpu_work::{self, JobCpu};
use crate::error::CanopyError;
use crate::limits::ABANDON_GRACE;

/// Runs `job` on a worker and waits for it; gives it up when one of its
/// steps outlives its deadline by `ABANDON_GRACE`.
///
/// # Errors
/// [`Abandoned`] with the overdue step's places, now marked stuck until the
/// job returns.
pub fn run<T: Send + 'static>(
    job: impl FnOnce(&Watch) -> T + Send + 'static,
) -> Result<T, Abandoned> {
    run_in(Pool::global(), job)
}

/// [`run`] on a given pool.
///
/// # Errors
/// As [`run`].
pub fn run_in<T: Send + 'static>(
    pool: &'static Pool,
    job: impl FnOnce(&Watch) -> T + Send + 'static,
) -> Result<T, Abandoned> {
    let inner = Arc::new((
        Mutex::new(JobState {
            step: None,
            abandoned: None,
            ended: false,
            probes: Vec::new(),
            given_up: false,
        }),
        Condvar::new(),
    ));
    let pending = PendingCall::new();
    let (done_tx, done_rx) = mpsc::sync_channel::<T>(1);
    let cpu = Arc::new(JobCpu::default());
    let watch = Watch {
        pool,
        inner: inner.clone(),
        cpu: cpu.clone(),
    };
    pool.dispatch(Box::new(move |park: &dyn Fn(&mut Registry)| {
        let _pending = pending;
        let value = {
            let _on = cpu_work::on_thread(watch.cpu.clone());
            job(&watch)
        };
        // Under the registry lock: the caller either finds the result, or
        // gave up before and left its marks for `finish` to clear.
        let mut r = pool.lock();
        watch.finish(&mut r);
        park(&mut r);
        let _ = done_tx.send(value);
        drop(r);
        watch.inner.1.notify_all();
    }));
    let (lock, wake) = &*inner;
    // Between steps the caller does not know the next deadline: it looks
    // again every tick.
    const TICK: Duration = Duration::from_millis(50);
    let mut s = lock.lock().unwrap_or_else(|e| e.into_inner());
    loop {
        match done_rx.try_recv() {
            Ok(value) => return Ok(value),
            // The job ended without a result (no worker could start, or it
            // panicked): given up, with nothing left stuck.
            Err(TryRecvError::Disconnected) => return Err(Abandoned::none()),
            Err(TryRecvError::Empty) => {}
        }
        let now = Instant::now();
        let wait = match &s.step {
            Some((_, deadline)) => {
                let give_up = *deadline + ABANDON_GRACE;
                if now >= give_up {
                    break;
                }
                if now >= *deadline {
                    // CPU work looks at this flag and stops (see `cpu_work`).
                    cpu.mark_due();
                    (give_up - now).min(TICK)
                } else {
                    (*deadline - now).min(TICK)
                }
            }
            None if s.ended => TICK.min(Duration::from_millis(1)),
            None => TICK,
        };
        s = wake
            .wait_timeout(s, wait)
            .unwrap_or_else(|e| e.into_inner())
            .0;
    }
    // Give up: mark the step's places under the registry lock, so the job's
    // own end (which clears them) cannot slip in between. A stuck device
    // also blocks the paths where it is mounted, so a path into it (a
    // preview, a retyped path) fails at once too.
    let devices: Vec<u64> = s
        .step
        .iter()
        .flat_map(|(p, _)| p.iter())
        .filter_map(|p| match p {
            Place::Device(d) => Some(*d),
            _ => None,
        })
        .collect();
    drop(s);
    let mounted: Vec<Place> = devices
        .into_iter()
        .flat_map(mount_points)
        .map(Place::Path)
        .collect();
    let mut r = pool.lock();
    let mut s = lock.lock().unwrap_or_else(|e| e.into_inner());
    match done_rx.try_recv() {
        Ok(value) => return Ok(value),
        Err(TryRecvError::Disconnected) => return Err(Abandoned::none()),
        Err(TryRecvError::Empty) => {}
    }
    if cpu.halt_if_computing() {
        // Computing, not blocked in a call: nothing is stuck. The work
        // sees the halt at its next look and before any further call.
        return Err(Abandoned {
            places: Vec::new(),
            computing: true,
        });
    }
    let mut places = s.step.as_ref().map(|(p, _)| p.clone()).unwrap_or_default();
    places.extend(mounted);
    Pool::mark(&mut r, &places);
    s.abandoned = Some(places.clone());
    s.given_up = true;
    // Steps waiting for this job's probes find their devices stuck now.
    pool.settled.notify_all();
    Err(Abandoned {
        places,
        computing: false,
    })
}

/// Runs one call at `place` on a worker, waiting at most `budget` (plus
/// `ABANDON_GRACE`).
///
/// # Errors
/// `TIMEOUT` ("not responding") when the place is stuck, too many threads
/// are, or the call did not return in time.
pub fn call<T: Send + 'static>(
    place: Place,
    budget: Duration,
    f: impl FnOnce(&Watch) -> T + Send + 'static,
) -> Result<T, CanopyError> {
    let deadline = Instant::now() + budget;
    match run(move |w| {
        w.begin(place, deadline)?;
        let r = f(w);
        w.end();
        Ok(r)
    }) {
        Ok(Ok(r)) => Ok(r),
        Ok(Err(u)) => Err(Unresponsive::error(&u)),
        Err(a) => Err(a.error(budget)),
    }
}
