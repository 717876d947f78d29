//! Bounded I/O: filesystem calls that may never return (a dead network or
//! FUSE mount) run on worker threads, and the caller waits for them with a
//! deadline.
//!
//! A job runs on a worker and marks each stretch of calls on a filesystem
//! object as a *step* with [`Watch::begin`], naming where it is (a
//! [`Place`]: a device, a folder entry, a path) and until when. The caller
//! waits in [`run`]; when a step outlives its deadline by `ABANDON_GRACE`,
//! the caller gives the job up and goes on, and the step's places are marked
//! *stuck* until the stuck call returns. Promises:
//!
//! - the caller never waits past a step's deadline plus `ABANDON_GRACE`;
//! - a call at a stuck place fails at once (`TIMEOUT`) instead of parking one
//!   more thread: a job that reaches a stuck place (its device, or a path at
//!   or below a stuck path) stops there;
//! - at most `MAX_STUCK_THREADS` workers are stuck in all; while that many
//!   are, every new step fails at once, whatever its place;
//! - at most one call is ever stuck per device, from the first: a device is
//!   *unproven* until a step on it has ended. The first step to reach an
//!   unproven device is its probe; a step reaching it while the probe runs
//!   waits for the probe's outcome, at most until its own deadline, and
//!   fails (`TIMEOUT`) if the probe was given up or is still running then.
//!   Once a step on the device has ended the device is proven, and calls on
//!   it never wait for each other (healthy disks are not serialised); a
//!   device whose step is given up is unproven again;
//! - an abandoned job publishes nothing: it checks [`Watch::abandoned`]
//!   before committing what it found, and its late result is dropped on its
//!   own thread;
//! - only a call blocked in the kernel marks places stuck: a step that
//!   outlives its deadline while its job does CPU work (a
//!   [`crate::cpu_work::CpuWork`]: an index, a match, a decode) is given
//!   up with nothing marked, and that work stops at its next look (the
//!   caller raises the job's "due" flag at the step's deadline, and its
//!   "halted" flag when it gives up);
//! - idle workers are kept (up to `IDLE_WORKERS`) and reused, so a job costs
//!   no thread spawn on the hot path; a new worker starts on the CPU its
//!   caller is leaving to wait, and is then free to run on any of the
//!   caller's CPUs (nothing stays pinned).
#![forbid(unsafe_code)]

use std::cell::Cell;
use std::os::unix::ffi::OsStrExt;
use std::panic::AssertUnwindSafe;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, Sender, TryRecvError};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crate::cancel::CancelToken;
use crate::cpu_work::{self, JobCpu};
use crate::error::{CanopyError, ErrorCode};
use crate::limits::{
    ABANDON_GRACE, IDLE_WORKERS, MAX_PROVEN, MAX_STUCK_PER_DEVICE, MAX_STUCK_THREADS,
};
use crate::sys::cpus::Cpus;

/// Where a step's calls act. A step can be at several places at once (a
/// folder's entry in its parent, then its device once known).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Place {
    /// Everything on one device (`st_dev`).
    Device(u64),
    /// One name in a folder, known by the folder's device and inode: an open
    /// that hangs before the device it leads to is known.
    Entry { dev: u64, ino: u64, name: Box<[u8]> },
    /// A path and everything below it.
    Path(Box<[u8]>),
}

impl Place {
    pub fn path(path: &Path) -> Place {
        Place::Path(path.as_os_str().as_bytes().into())
    }

    /// True when a call at `self` would touch what `stuck` names.
    fn blocked_by(&self, stuck: &Place) -> bool {
        match (self, stuck) {
            (Place::Path(p), Place::Path(s)) => {
                p.starts_with(s) && (p.len() == s.len() || p[s.len()] == b'/' || s.ends_with(b"/"))
            }
            (a, b) => a == b,
        }
    }
}

/// Why a step could not run, or did not finish.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unresponsive {
    /// The place already has a call stuck on it.
    Stuck,
    /// `MAX_STUCK_THREADS` workers are stuck.
    TooMany,
    /// The first call on a device not yet proven to answer had not answered
    /// by this step's deadline.
    Unproven,
}

impl Unresponsive {
    /// The wire error: `TIMEOUT`, "not responding".
    pub fn error(&self) -> CanopyError {
        match self {
            Unresponsive::Stuck => CanopyError::new(
                ErrorCode::Timeout,
                "not responding: an earlier call here has not returned yet (a dead or hung mount?)",
            ),
            Unresponsive::TooMany => CanopyError::new(
                ErrorCode::Timeout,
                format!("not responding: {MAX_STUCK_THREADS} calls on unresponsive filesystems have not returned yet"),
            ),
            Unresponsive::Unproven => CanopyError::new(
                ErrorCode::Timeout,
                "not responding: the first call on this device has not returned yet (a dead or hung mount?)",
            ),
        }
    }
}

/// A step that outlived its deadline; the job was given up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Abandoned {
    pub places: Vec<Place>,
    /// The job was computing, not blocked in a call: nothing was marked
    /// stuck, and its work stops at its next look.
    pub computing: bool,
}

impl Abandoned {
    /// The wire error: `TIMEOUT`, "not responding" (or, for work that was
    /// computing, that it took too long).
    pub fn error(&self, deadline: Duration) -> CanopyError {
        if self.computing {
            return CanopyError::new(
                ErrorCode::Timeout,
                format!(
                    "this took more than {} ms of work and was stopped (the place answers; the work was too large)",
                    deadline.as_millis()
                ),
            );
        }
        CanopyError::new(
            ErrorCode::Timeout,
            format!(
                "not responding: a call here did not return within {} ms and was left behind",
                deadline.as_millis()
            ),
        )
    }
}

/// A job for a worker. It is handed a way to put its worker back on the
/// idle list, which it does under the registry lock before publishing its
/// result: a caller that sends its next job at once finds the worker idle.
type Task = Box<dyn FnOnce(&dyn Fn(&mut Registry)) + Send>;

#[derive(Default)]
struct Registry {
    idle: Vec<Sender<Task>>,
    /// Places with stuck calls, and how many calls are stuck at each.
    stuck: Vec<(Place, usize)>,
    stuck_threads: usize,
    /// Workers alive (idle or busy), for tests and the thread bound.
    workers: usize,
    /// Devices a step has ended on since they were last given up: calls on
    /// them never wait for each other. Few (one per mounted filesystem in
    /// use), and capped at `MAX_PROVEN`.
    proven: Vec<u64>,
    /// Unproven devices with a step in flight (the probe), and whose it is.
    probing: Vec<(u64, usize)>,
}

/// Engine calls running or stuck, in every pool (see [`calls_pending`]).
static PENDING: AtomicUsize = AtomicUsize::new(0);

/// How many engine calls are running or stuck in this process: a thread in
/// one of them may outlive `exit` (see [`crate::supervisor`]).
pub fn calls_pending() -> usize {
    PENDING.load(Ordering::SeqCst)
}

/// Counts one call as pending for as long as it lives.
struct PendingCall;

impl PendingCall {
    fn new() -> PendingCall {
        PENDING.fetch_add(1, Ordering::SeqCst);
        PendingCall
    }
}

impl Drop for PendingCall {
    fn drop(&mut self) {
        PENDING.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Workers and the stuck places. One per process ([`Pool::global`]); tests
/// make their own.
pub struct Pool {
    registry: Mutex<Registry>,
    /// Woken when a probe ends or is given up.
    settled: Condvar,
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

    fn lock(&self) -> MutexGuard<'_, Registry> {
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

    fn check(&self, place: &Place) -> Result<(), Unresponsive> {
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
    fn admit(&self, dev: u64, job: usize, deadline: Instant) -> Result<bool, Unresponsive> {
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
    fn settle(&self, r: &mut Registry, devices: &[u64], job: usize, answered: bool) {
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

    fn mark(r: &mut Registry, places: &[Place]) {
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

    fn unmark(r: &mut Registry, places: &[Place]) {
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

    /// Hands `task` to an idle worker, or to a new one.
    fn dispatch(&'static self, mut task: Task) {
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

/// What the caller and the job share.
struct Shared {
    /// The current step's places and deadline; `None` between steps.
    step: Option<(Vec<Place>, Instant)>,
    /// The caller gave the job up and marked these places stuck.
    abandoned: Option<Vec<Place>>,
    /// The job ended (with or without a result).
    ended: bool,
    /// Unproven devices this job is the probe of.
    probes: Vec<u64>,
    /// The caller gave the job up once: what it reaches proves nothing.
    given_up: bool,
}

/// The job's side: marks steps, and says whether the job was given up.
pub struct Watch {
    pool: &'static Pool,
    inner: Arc<(Mutex<Shared>, Condvar)>,
    /// What this job's CPU work and its caller share (see `cpu_work`).
    cpu: Arc<JobCpu>,
}

impl Watch {
    fn shared(&self) -> MutexGuard<'_, Shared> {
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
    /// and holds at a device whose first call is still out (see the module docs).
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
    fn finish(&self, r: &mut Registry) {
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
        Mutex::new(Shared {
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

impl Abandoned {
    /// A job that ended without a result: nothing stuck.
    fn none() -> Abandoned {
        Abandoned {
            places: Vec::new(),
            computing: false,
        }
    }
}

/// Where device `dev` is mounted, from `/proc/self/mountinfo` (which is read
/// from the kernel's mount table, never from the device itself).
fn mount_points(dev: u64) -> Vec<Box<[u8]>> {
    let Ok(table) = std::fs::read("/proc/self/mountinfo") else {
        return Vec::new();
    };
    let want = format!("{}:{}", libc::major(dev), libc::minor(dev));
    table
        .split(|&b| b == b'\n')
        .filter_map(|line| {
            let mut fields = line.split(|&b| b == b' ');
            let device = fields.nth(2)?;
            let point = fields.nth(1)?;
            (device == want.as_bytes()).then(|| unescape_mount_point(point))
        })
        .collect()
}

/// Undoes mountinfo's octal escapes (`\040` for a space, ...).
fn unescape_mount_point(raw: &[u8]) -> Box<[u8]> {
    let mut out = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        let octal = raw
            .get(i + 1..i + 4)
            .filter(|d| raw[i] == b'\\' && d.iter().all(|c| (b'0'..=b'7').contains(c)));
        match octal {
            Some(d) => {
                out.push((d[0] - b'0') * 64 + (d[1] - b'0') * 8 + (d[2] - b'0'));
                i += 4;
            }
            None => {
                out.push(raw[i]);
                i += 1;
            }
        }
    }
    out.into()
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc::Receiver;

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
        assert!(
            Place::Path(b"/x".as_slice().into()).blocked_by(&Place::Path(b"/".as_slice().into()))
        );
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
}
