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

mod caller;
mod mounts;
mod place;
mod pool;
mod watch;
mod worker;

pub use caller::{call, run, run_in};
pub use place::{Abandoned, Place, Unresponsive};
pub use pool::Pool;
pub use watch::Watch;
pub use worker::calls_pending;

#[cfg(test)]
mod tests;
