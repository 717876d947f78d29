//! CPU work inside a bounded job: an archive's index built, a regular
//! expression matched, a stream decoded.
//!
//! A job of [`crate::bounded`] is given up when a step outlives its
//! deadline, and the step's places are marked stuck: right for a call
//! blocked in the kernel on a dead mount, wrong for work that is only
//! slow on the CPU (a hostile archive's names, a pathological pattern).
//! Such work says so by holding a [`CpuWork`], and promises:
//!
//! - it looks at [`CpuWork::halt`] after a bounded amount of work (bytes of
//!   names, records, bytes scanned; never per N items of unbounded size),
//!   and stops when it says so: the step's deadline passed, the request was
//!   cancelled, or the caller gave the job up. Each look is a few atomic
//!   loads (the caller raises the flags), so it can be made often;
//! - a call that may block (a read of the file) is made through
//!   [`blocking`]: while it runs the job is not computing, so a read that
//!   hangs marks its places stuck as any call does;
//! - a job given up while it computes leaves nothing marked stuck (only a
//!   thread blocked in a system call on a place makes the place "not
//!   responding"), and once given up it makes no further call.
#![forbid(unsafe_code)]

use std::cell::{Cell, RefCell};
use std::io;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex};

use crate::cancel::CancelToken;
use crate::error::{CanopyError, ErrorCode};

/// The job computes (outside [`blocking`]).
const COMPUTING: u8 = 1;
/// The current step's deadline passed (raised by the waiting caller).
const DUE: u8 = 2;
/// The caller gave the job up while it computed: it must stop, and call nothing.
const HALTED: u8 = 4;

/// What one bounded job's CPU work and its caller share.
#[derive(Debug, Default)]
pub(crate) struct JobCpu {
    state: AtomicU8,
    /// The request's token, when the job was told of one (`Watch::stop_on`).
    cancel: Mutex<Option<CancelToken>>,
}

impl JobCpu {
    /// The caller: the current step is past its deadline.
    pub(crate) fn mark_due(&self) {
        self.state.fetch_or(DUE, Ordering::SeqCst);
    }

    /// The job: a new step (or a new deadline) begins.
    pub(crate) fn clear_due(&self) {
        self.state.fetch_and(!DUE, Ordering::SeqCst);
    }

    /// The caller: gives the job up if it is computing now. When this says
    /// `true`, the job is guaranteed to see it before its next call through
    /// [`blocking`], so nothing it does afterwards can hang unmarked.
    pub(crate) fn halt_if_computing(&self) -> bool {
        self.state
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |s| {
                (s & COMPUTING != 0).then_some(s | HALTED)
            })
            .is_ok()
    }

    /// Whether the caller gave the job up while it computed.
    pub(crate) fn halted(&self) -> bool {
        self.state.load(Ordering::SeqCst) & HALTED != 0
    }

    pub(crate) fn stop_on(&self, token: Option<CancelToken>) {
        *self.cancel.lock().unwrap_or_else(|e| e.into_inner()) = token;
    }

    fn cancel_token(&self) -> Option<CancelToken> {
        self.cancel
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    fn halt(&self, cancel: Option<&CancelToken>) -> Option<Halt> {
        let s = self.state.load(Ordering::Relaxed);
        if s & HALTED != 0 {
            Some(Halt::GivenUp)
        } else if cancel.is_some_and(CancelToken::is_cancelled) {
            Some(Halt::Cancelled)
        } else if s & DUE != 0 {
            Some(Halt::Due)
        } else {
            None
        }
    }
}

thread_local! {
    /// The job running on this thread, if it is a bounded worker's.
    static JOB: RefCell<Option<Arc<JobCpu>>> = const { RefCell::new(None) };
    /// `CpuWork`s alive on this thread (they nest).
    static DEPTH: Cell<u32> = const { Cell::new(0) };
}

/// Makes `job` this thread's job until the guard is dropped (a worker
/// running it).
pub(crate) struct OnThread(Option<Arc<JobCpu>>);

pub(crate) fn on_thread(job: Arc<JobCpu>) -> OnThread {
    OnThread(JOB.with(|j| j.borrow_mut().replace(job)))
}

impl Drop for OnThread {
    fn drop(&mut self) {
        JOB.with(|j| *j.borrow_mut() = self.0.take());
    }
}

fn current() -> Option<Arc<JobCpu>> {
    JOB.with(|j| j.borrow().clone())
}

/// Why CPU work must stop now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Halt {
    /// The current step's deadline passed.
    Due,
    /// The request was cancelled.
    Cancelled,
    /// The caller gave the job up (and has answered already).
    GivenUp,
}

impl Halt {
    /// The wire error, `doing` saying what stopped ("reading the archive's index").
    pub fn error(self, doing: &str) -> CanopyError {
        match self {
            Halt::Cancelled => CanopyError::cancelled(),
            Halt::Due => CanopyError::new(
                ErrorCode::Timeout,
                format!("{doing} stopped: the time for this step ran out"),
            ),
            Halt::GivenUp => CanopyError::new(
                ErrorCode::Timeout,
                format!("{doing} stopped: the request no longer waited for it"),
            ),
        }
    }
}

/// CPU work in progress on this thread (see the module docs). Outside a
/// bounded job it is inert: nothing halts it but what its owner checks.
pub struct CpuWork {
    job: Option<Arc<JobCpu>>,
    cancel: Option<CancelToken>,
}

impl CpuWork {
    /// The job on this thread computes from now until the value is dropped.
    pub fn start() -> CpuWork {
        let job = current();
        if let Some(j) = &job {
            let depth = DEPTH.with(|d| {
                d.set(d.get() + 1);
                d.get()
            });
            if depth == 1 {
                j.state.fetch_or(COMPUTING, Ordering::SeqCst);
            }
        }
        let cancel = job.as_ref().and_then(|j| j.cancel_token());
        CpuWork { job, cancel }
    }

    /// Why the work must stop now, if it must: a few atomic loads.
    pub fn halt(&self) -> Option<Halt> {
        self.job.as_ref()?.halt(self.cancel.as_ref())
    }
}

impl Drop for CpuWork {
    fn drop(&mut self) {
        if let Some(j) = &self.job {
            let depth = DEPTH.with(|d| {
                d.set(d.get().saturating_sub(1));
                d.get()
            });
            if depth == 0 {
                j.state.fetch_and(!COMPUTING, Ordering::SeqCst);
            }
        }
    }
}

/// Why work on this thread's job must stop, if it must (for code that
/// holds no [`CpuWork`] of its own, such as a decoder's input).
pub fn halted() -> Option<Halt> {
    let job = current()?;
    let cancel = job.cancel_token();
    job.halt(cancel.as_ref())
}

/// Makes a call that may block (a read of a file) from inside CPU work:
/// while it runs the job is not computing, so a call that hangs marks its
/// step's places stuck as any call does.
///
/// # Errors
/// `TIMEOUT`, without calling, when the caller gave the job up while it
/// computed; else the call's own.
pub fn blocking<R>(call: impl FnOnce() -> io::Result<R>) -> io::Result<R> {
    let Some(job) = current() else {
        return call();
    };
    let computing = DEPTH.with(Cell::get) > 0;
    let before = job.state.fetch_and(!COMPUTING, Ordering::SeqCst);
    // Read after COMPUTING is clear: a caller that gave up while the job
    // computed raised HALTED before this, so it is seen here. (A deadline
    // or a cancel is the work's own to look at, between its calls.)
    let outcome = if job.halted() {
        Err(Halt::GivenUp.error("reading").into_io())
    } else {
        call()
    };
    if computing && before & COMPUTING != 0 {
        job.state.fetch_or(COMPUTING, Ordering::SeqCst);
    }
    outcome
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn work_off_a_bounded_worker_is_never_halted() {
        let work = CpuWork::start();
        assert_eq!(work.halt(), None);
        assert_eq!(halted(), None);
        assert_eq!(blocking(|| Ok(5)).unwrap(), 5);
    }

    #[test]
    fn a_job_given_up_while_computing_is_halted_and_calls_nothing_more() {
        let job = Arc::new(JobCpu::default());
        let _on = on_thread(job.clone());
        assert!(
            !job.halt_if_computing(),
            "a job that does not compute is not halted (it may be blocked in a call)"
        );
        let work = CpuWork::start();
        assert!(job.halt_if_computing());
        assert_eq!(work.halt(), Some(Halt::GivenUp));
        let mut called = false;
        let refused = blocking(|| {
            called = true;
            Ok(())
        });
        assert!(refused.is_err() && !called, "no call after a halt");
    }

    #[test]
    fn a_blocking_call_inside_work_is_not_computing() {
        let job = Arc::new(JobCpu::default());
        let _on = on_thread(job.clone());
        let _work = CpuWork::start();
        let inside = blocking(|| Ok(job.halt_if_computing())).unwrap();
        assert!(
            !inside,
            "a caller giving up during the call marks it stuck instead"
        );
        assert!(job.halt_if_computing(), "computing again after the call");
    }

    #[test]
    fn the_step_deadline_and_a_cancel_halt_the_work() {
        let job = Arc::new(JobCpu::default());
        let token = CancelToken::default();
        job.stop_on(Some(token.clone()));
        let _on = on_thread(job.clone());
        let work = CpuWork::start();
        job.mark_due();
        assert_eq!(work.halt(), Some(Halt::Due));
        job.clear_due();
        assert_eq!(work.halt(), None);
        token.cancel();
        assert_eq!(work.halt(), Some(Halt::Cancelled));
        assert_eq!(halted(), Some(Halt::Cancelled));
    }
}
