//! The sandboxed renderer: one child process per job, for the parsers with
//! the longest record of exploits (PDF, fonts, video), which Canopy runs as
//! Debian's tools rather than in its own address space.
//!
//! Promises, for every job:
//! - the child gets the file as an already-open, read-only descriptor,
//!   inherited under its own number and named `/dev/fd/N` in its arguments:
//!   never a path it could be raced on. No other descriptor of the app's
//!   reaches it (all others are close-on-exec before `exec`);
//! - its output is read from a pipe, at most [`RenderJob::max_output`] bytes, with
//!   a deadline; past either, or when the job's cancel token is set, the
//!   child's whole process group is killed and the caller is answered at
//!   once (a child stuck in the kernel is reaped by a thread of its own):
//!   the caller never waits on a stuck child;
//! - it runs with `RLIMIT_AS` [`RENDER_ADDRESS_SPACE`], `RLIMIT_CPU`
//!   [`RENDER_CPU_SECONDS`], `RLIMIT_FSIZE` 0 (it can write no byte to a
//!   file, and such a write fails rather than killing it: `SIGXFSZ` is
//!   ignored; truncating or deleting one it may write is not stopped),
//!   `RLIMIT_CORE` 0, `PR_SET_NO_NEW_PRIVS`, in a process group of its own, in
//!   a new network namespace when the kernel allows one (as root, or through
//!   a new user namespace otherwise; [`Rendered::network_isolated`] says
//!   whether it did), with an empty environment, and in a private temporary
//!   folder as its working folder, removed after the job;
//! - the program is looked up in the system's own folders (`/usr/bin`,
//!   `/bin`), never through `PATH`.
//!
//! [`RENDER_ADDRESS_SPACE`]: crate::limits::RENDER_ADDRESS_SPACE
//! [`RENDER_CPU_SECONDS`]: crate::limits::RENDER_CPU_SECONDS

use std::ffi::OsString;
use std::fs::File;
use std::path::Path;
use std::time::Duration;

use crate::cancel::CancelToken;

mod child;
mod output;
mod spawn;
mod temp_folder;
mod tools;

pub use spawn::{run, run_writing_to};
pub use tools::find_tool;

#[cfg(test)]
mod tests;

/// One job for the renderer.
pub struct RenderJob<'a> {
    /// The program, as an absolute path (see [`find_tool`]).
    pub program: &'a Path,
    /// Its arguments; [`FILE_ARG`] stands for the file's `/dev/fd/N`.
    pub args: Vec<OsString>,
    /// The file it reads, opened read-only by the engine.
    pub file: Option<&'a File>,
    /// The most output read; more is [`RenderOutcome::TooMuchOutput`].
    pub max_output: usize,
    /// When the job is given up.
    pub deadline: Duration,
    /// Set when the job is no longer wanted (the selection changed).
    pub cancel: Option<&'a CancelToken>,
}

/// Stands for the file's `/dev/fd/N` in [`RenderJob::args`].
pub const FILE_ARG: &str = "\u{0}file";

/// How a job ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RenderOutcome {
    /// The program exited with this status (0: it did its job).
    Exited(i32),
    /// A signal ended it (`SIGXCPU` for its CPU limit, `SIGSEGV` for a crash ...).
    Signalled(i32),
    /// Its deadline came first: its process group was killed.
    TimedOut,
    /// It wrote more than the job's output cap: its process group was killed.
    TooMuchOutput,
    /// The job was cancelled: its process group was killed.
    Cancelled,
}

/// What a job returned.
#[derive(Debug)]
pub struct Rendered {
    pub outcome: RenderOutcome,
    /// Its standard output (at most the cap; what it wrote before it ended).
    pub stdout: Vec<u8>,
    /// The last [`RENDER_STDERR_KEPT`](crate::limits::RENDER_STDERR_KEPT) bytes of its standard error.
    pub stderr: Vec<u8>,
    /// Whether it ran in a network namespace of its own (no network).
    pub network_isolated: bool,
}
