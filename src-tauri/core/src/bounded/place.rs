//! Where a step's calls act ([`Place`]) and the two ways a step can fail:
//! refused before it starts ([`Unresponsive`]) or given up after its
//! deadline ([`Abandoned`]), each with its `TIMEOUT` wire error.

use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::time::Duration;

use crate::error::{CanopyError, ErrorCode};
use crate::limits::MAX_STUCK_THREADS;

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
    pub(super) fn blocked_by(&self, stuck: &Place) -> bool {
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

impl Abandoned {
    /// A job that ended without a result: nothing stuck.
    pub(super) fn none() -> Abandoned {
        Abandoned {
            places: Vec::new(),
            computing: false,
        }
    }
}
