//! The pool's registry: which places have calls stuck on them, how many
//! workers are stuck, and which devices are proven or being probed. Every
//! admission decision (stuck place, too many stuck threads, a device whose
//! first call is still out) is taken here, under one lock.

use std::sync::mpsc::Sender;
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::Instant;

use super::place::{Place, Unresponsive};
use super::worker::Task;
use crate::limits::{MAX_PROVEN, MAX_STUCK_PER_DEVICE, MAX_STUCK_THREADS};

#[derive(Default)]
pub(super) struct Registry {
    pub(super) idle: Vec<Sender<Task>>,
    /// Places with stuck calls, and how many calls are stuck at each.
    pub(super) stuck: Vec<(Place, usize)>,
    pub(super) stuck_threads: usize,
    /// Workers alive (idle or busy), for tests and the thread bound.
    pub(super) workers: usize,
    /// Devices a step has ended on since they were last given up: calls on
    /// them never wait for each other. Few (one per mounted filesystem in
    /// use), and capped at `MAX_PROVEN`.
    pub(super) proven: Vec<u64>,
    /// Unproven devices with a step in flight (the probe), and whose it is.
    pub(super) probing: Vec<(u64, usize)>,
}

/// Workers and the stuck places. One per process ([`Pool::global`]); tests
/// make their own.
pub struct Pool {
    registry: Mutex<Registry>,
    /// Woken when a probe ends or is given up.
    pub(super) settled: Condvar,
}

impl Default for Pool {
    fn default() -> Self {
        Pool::new()
    }
}

impl Pool {
    pub const fn new() -> Pool {
        Pool {
            registry: Mutex::new(Registry {
                idle: Vec::new(),
                stuck: Vec::new(),
                stuck_threads: 0,
                workers: 0,
                proven: Vec::new(),
                probing: Vec::new(),
            }),
            settled: Condvar::new(),
        }
    }

    /// The process's pool.
    pub fn global() -> &'static Pool {
        static POOL: Pool = Pool::new();
        &POOL
    }

    pub(super) fn lock(&self) -> MutexGuard<'_, Registry> {
        self.registry.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Workers stuck in a call that outlived its deadline.
    pub fn stuck_threads(&self) -> usize {
        self.lock().stuck_threads
    }

    /// Worker threads alive, idle or busy.
    pub fn workers(&self) -> usize {
        self.lock().workers
    }

    pub(super) fn check(&self, place: &Place) -> Result<(), Unresponsive> {
        Self::check_in(&self.lock(), place)
    }

    fn check_in(r: &Registry, place: &Place) -> Result<(), Unresponsive> {
        if r.stuck
            .iter()
            .any(|(s, n)| *n >= MAX_STUCK_PER_DEVICE && place.blocked_by(s))
        {
            return Err(Unresponsive::Stuck);
        }
        if r.stuck_threads >= MAX_STUCK_THREADS {
            return Err(Unresponsive::TooMany);
        }
        Ok(())
    }

    /// Lets a step of job `job` reach device `dev`: at once when the device
    /// is proven or `job` is its probe; else `job` becomes the probe
    /// (`Ok(true)`), or waits for the probe's outcome until `deadline`.
    pub(super) fn admit(
        &self,
        dev: u64,
        job: usize,
        deadline: Instant,
    ) -> Result<bool, Unresponsive> {
        let place = Place::Device(dev);
        let mut r = self.lock();
        loop {
            Self::check_in(&r, &place)?;
            if r.proven.contains(&dev) {
                return Ok(false);
            }
            match r.probing.iter().find(|(d, _)| *d == dev) {
                None => {
                    r.probing.push((dev, job));
                    return Ok(true);
                }
                Some(&(_, j)) if j == job => return Ok(false),
                Some(_) => {
                    let now = Instant::now();
                    if now >= deadline {
                        return Err(Unresponsive::Unproven);
                    }
                    r = self
                        .settled
                        .wait_timeout(r, deadline - now)
                        .unwrap_or_else(|e| e.into_inner())
                        .0;
                }
            }
        }
    }

    /// Ends `job`'s probes of `devices`: proven when it answered, else only
    /// no longer probed. Wakes the steps waiting for them.
    pub(super) fn settle(&self, r: &mut Registry, devices: &[u64], job: usize, answered: bool) {
        if devices.is_empty() {
            return;
        }
        r.probing
            .retain(|(d, j)| !(*j == job && devices.contains(d)));
        if answered {
            for d in devices {
                if !r.proven.contains(d) {
                    if r.proven.len() >= MAX_PROVEN {
                        r.proven.remove(0);
                    }
                    r.proven.push(*d);
                }
            }
        }
        self.settled.notify_all();
    }

    pub(super) fn mark(r: &mut Registry, places: &[Place]) {
        // One stuck thread, whatever number of places it is stuck at.
        r.stuck_threads += 1;
        for p in places {
            if let Place::Device(d) = p {
                r.proven.retain(|x| x != d);
            }
            match r.stuck.iter_mut().find(|(s, _)| s == p) {
                Some((_, n)) => *n += 1,
                None => r.stuck.push((p.clone(), 1)),
            }
        }
    }

    pub(super) fn unmark(r: &mut Registry, places: &[Place]) {
        r.stuck_threads -= 1;
        for p in places {
            if let Some(i) = r.stuck.iter().position(|(s, _)| s == p) {
                r.stuck[i].1 -= 1;
                if r.stuck[i].1 == 0 {
                    r.stuck.swap_remove(i);
                }
            }
        }
    }
}
