//! The workers: a job is handed to an idle worker (kept up to
//! `IDLE_WORKERS`) or to a new thread, which starts on its caller's CPU and
//! takes the caller's CPUs back at once. Also counts the engine calls still
//! running or stuck, which `exit` must know about (see [`calls_pending`]).

use std::cell::Cell;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;

use super::pool::{Pool, Registry};
use crate::limits::IDLE_WORKERS;
use crate::sys::cpus::Cpus;

/// A job for a worker. It is handed a way to put its worker back on the
/// idle list, which it does under the registry lock before publishing its
/// result: a caller that sends its next job at once finds the worker idle.
pub(super) type Task = Box<dyn FnOnce(&dyn Fn(&mut Registry)) + Send>;

/// Engine calls running or stuck, in every pool (see [`calls_pending`]).
static PENDING: AtomicUsize = AtomicUsize::new(0);

/// How many engine calls are running or stuck in this process: a thread in
/// one of them may outlive `exit` (see [`crate::supervisor`]).
pub fn calls_pending() -> usize {
    PENDING.load(Ordering::SeqCst)
}

/// Counts one call as pending for as long as it lives.
pub(super) struct PendingCall;

impl PendingCall {
    pub(super) fn new() -> PendingCall {
        PENDING.fetch_add(1, Ordering::SeqCst);
        PendingCall
    }
}

impl Drop for PendingCall {
    fn drop(&mut self) {
        PENDING.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Pool {
    /// Hands `task` to an idle worker, or to a new one.
    pub(super) fn dispatch(&'static self, mut task: Task) {
        loop {
            let idle = self.lock().idle.pop();
            let Some(tx) = idle else { break };
            match tx.send(task) {
                Ok(()) => return,
                Err(mpsc::SendError(t)) => task = t,
            }
        }
        let (tx, rx) = mpsc::channel::<Task>();
        self.lock().workers += 1;
        // The new thread starts on this CPU, which the caller leaves at once
        // to wait (see `Cpus::pin_here`); it takes the caller's CPUs back first thing.
        let cpus = Cpus::pin_here();
        let spawned = std::thread::Builder::new()
            .name("canopy-io".into())
            .spawn(move || {
                if let Some(cpus) = &cpus {
                    cpus.restore();
                }
                let mut task = task;
                loop {
                    let stays = Cell::new(false);
                    let park = |r: &mut Registry| {
                        if r.idle.len() < IDLE_WORKERS {
                            r.idle.push(tx.clone());
                            stays.set(true);
                        }
                    };
                    let finished =
                        std::panic::catch_unwind(AssertUnwindSafe(|| task(&park))).is_ok();
                    if !finished || !stays.get() {
                        break;
                    }
                    match rx.recv() {
                        Ok(next) => task = next,
                        Err(_) => break,
                    }
                }
                self.lock().workers -= 1;
            });
        if let Some(cpus) = &cpus {
            cpus.restore();
        }
        if spawned.is_err() {
            // No thread: the task (and its result sender) is dropped, and
            // the caller sees the job end without a result.
            self.lock().workers -= 1;
        }
    }
}
