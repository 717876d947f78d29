//! The job's side of a bounded call: [`Watch`] marks each stretch of calls
//! as a step at its places and until its deadline, admits it past stuck
//! places and unproven devices, and tells the job when it was given up so
//! that it publishes nothing.

use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::Instant;

use super::caller::run_in;
use super::place::{Place, Unresponsive};
use super::pool::{Pool, Registry};
use crate::cancel::CancelToken;
use crate::cpu_work::JobCpu;
use crate::error::CanopyError;
use crate::limits::ABANDON_GRACE;

/// What the caller and the job share.
pub(super) struct JobState {
    /// The current step's places and deadline; `None` between steps.
    pub(super) step: Option<(Vec<Place>, Instant)>,
    /// The caller gave the job up and marked these places stuck.
    pub(super) abandoned: Option<Vec<Place>>,
    /// The job ended (with or without a result).
    pub(super) ended: bool,
    /// Unproven devices this job is the probe of.
    pub(super) probes: Vec<u64>,
    /// The caller gave the job up once: what it reaches proves nothing.
    pub(super) given_up: bool,
}

/// The job's side: marks steps, and says whether the job was given up.
pub struct Watch {
    pub(super) pool: &'static Pool,
    pub(super) inner: Arc<(Mutex<JobState>, Condvar)>,
    /// What this job's CPU work and its caller share (see `cpu_work`).
    pub(super) cpu: Arc<JobCpu>,
}

impl Watch {
    fn shared(&self) -> MutexGuard<'_, JobState> {
        self.inner.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// This job's token in the pool's probe list.
    fn job(&self) -> usize {
        Arc::as_ptr(&self.inner) as usize
    }

    /// Ends the probes of devices that are not among `places`: the calls
    /// that reached them returned.
    fn leave(&self, places: &[Place]) {
        let (done, answered) = {
            let mut s = self.shared();
            let done: Vec<u64> = s
                .probes
                .iter()
                .copied()
                .filter(|d| !places.contains(&Place::Device(*d)))
                .collect();
            s.probes.retain(|d| !done.contains(d));
            (done, !s.given_up)
        };
        if !done.is_empty() {
            let mut r = self.pool.lock();
            self.pool.settle(&mut r, &done, self.job(), answered);
        }
    }

    /// Lets the current step reach `places` (by `deadline`): checks each,
    /// and holds at a device whose first call is still out (see the `bounded` module docs).
    fn enter(&self, places: &[Place], deadline: Instant) -> Result<(), Unresponsive> {
        for p in places {
            match p {
                Place::Device(d) => {
                    if self.pool.admit(*d, self.job(), deadline)? {
                        self.shared().probes.push(*d);
                    }
                }
                _ => self.pool.check(p)?,
            }
        }
        Ok(())
    }

    fn deadline(&self) -> Instant {
        self.shared()
            .step
            .as_ref()
            .map(|(_, d)| *d)
            .unwrap_or_else(|| Instant::now() + ABANDON_GRACE)
    }

    /// Starts a step at `place` that must end by `deadline`.
    ///
    /// # Errors
    /// [`Unresponsive`] when the place is stuck or too many threads are; the
    /// job must then not touch the place.
    pub fn begin(&self, place: Place, deadline: Instant) -> Result<(), Unresponsive> {
        let places = vec![place];
        self.leave(&places);
        self.pool.check(&places[0])?;
        // The caller's clock runs on the new deadline while this step waits
        // for a device's first call, so it gives up no sooner.
        self.set_step(Some((Vec::new(), deadline)));
        self.enter(&places, deadline)?;
        self.shared().step = Some((places, deadline));
        Ok(())
    }

    /// Moves the current step to exactly `places` (same deadline): the call
    /// that needed a place is done, the next one acts elsewhere.
    ///
    /// # Errors
    /// [`Unresponsive`] when one of them is stuck, or is a device whose first
    /// call did not answer by the deadline.
    pub fn moved(&self, places: Vec<Place>) -> Result<(), Unresponsive> {
        self.leave(&places);
        self.enter(&places, self.deadline())?;
        if let Some((current, _)) = &mut self.shared().step {
            *current = places;
        }
        Ok(())
    }

    /// Gives the current step a new deadline, at the same places: the next
    /// call of a folder read at a link's pace (one batch of names, one
    /// shown entry's details) has time of its own, as if it were a step of
    /// its own (see [`crate::source::Source::paced`]).
    pub fn renew(&self, deadline: Instant) {
        let mut s = self.shared();
        if let Some((_, d)) = &mut s.step {
            *d = deadline;
            self.cpu.clear_due();
        }
    }

    /// Tells the job's CPU work (see `cpu_work`) to stop when `token` fires:
    /// the request's own cancel.
    pub fn stop_on(&self, token: Option<CancelToken>) {
        self.cpu.stop_on(token);
    }

    /// Sets the current step, under the lock the caller marks "due" under:
    /// a new deadline is never due at once.
    fn set_step(&self, step: Option<(Vec<Place>, Instant)>) {
        let mut s = self.shared();
        s.step = step;
        self.cpu.clear_due();
    }

    /// Adds a place to the current step (e.g. the device, once `fstat` said it).
    ///
    /// # Errors
    /// [`Unresponsive`] when that place is stuck, or is a device whose first
    /// call did not answer by the deadline.
    pub fn reached(&self, place: Place) -> Result<(), Unresponsive> {
        self.enter(std::slice::from_ref(&place), self.deadline())?;
        if let Some((places, _)) = &mut self.shared().step {
            places.push(place);
        }
        Ok(())
    }

    /// Runs `call` on another worker as a step of its own at `place`, by the
    /// current step's deadline: a call that may reach another device (a
    /// symlink followed) and must not sink the step around it. While it
    /// runs, the current step's deadline is extended by twice the grace, so
    /// that the inner call is given up first.
    ///
    /// # Errors
    /// `TIMEOUT` ("not responding") when `place` is stuck, or the call was left behind.
    pub fn aside<R: Send + 'static>(
        &self,
        place: Place,
        call: impl FnOnce() -> R + Send + 'static,
    ) -> Result<R, CanopyError> {
        self.pool.check(&place).map_err(|u| u.error())?;
        let now = Instant::now();
        let deadline = match &mut self.shared().step {
            Some((_, d)) => {
                let inner = *d;
                *d += 2 * ABANDON_GRACE;
                self.cpu.clear_due();
                inner
            }
            None => now + ABANDON_GRACE,
        };
        let outcome = run_in(self.pool, move |w| -> Result<R, Unresponsive> {
            w.begin(place, deadline)?;
            let r = call();
            w.end();
            Ok(r)
        });
        match outcome {
            Ok(Ok(r)) => Ok(r),
            Ok(Err(u)) => Err(u.error()),
            Err(a) => Err(a.error(deadline.saturating_duration_since(now))),
        }
    }

    /// Ends the current step.
    pub fn end(&self) {
        self.leave(&[]);
        self.set_step(None);
    }

    /// The caller gave this job up: publish nothing.
    pub fn abandoned(&self) -> bool {
        self.shared().abandoned.is_some() || self.cpu.halted()
    }

    /// Marks the job ended; clears the stuck marks it caused, if it was given up.
    pub(super) fn finish(&self, r: &mut Registry) {
        let mut s = self.shared();
        if !s.ended {
            s.ended = true;
            if let Some(places) = s.abandoned.take() {
                Pool::unmark(r, &places);
            }
            let probes = std::mem::take(&mut s.probes);
            let answered = !s.given_up;
            drop(s);
            self.pool.settle(r, &probes, self.job(), answered);
        }
    }
}

impl Drop for Watch {
    /// A job that panicked still clears its marks and wakes its caller.
    fn drop(&mut self) {
        let mut r = self.pool.lock();
        self.finish(&mut r);
        drop(r);
        self.inner.1.notify_all();
    }
}
