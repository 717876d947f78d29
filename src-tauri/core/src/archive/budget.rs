//! What building one archive's index may spend: time and memory, looked
//! at after a bounded amount of work.
//!
//! An index is CPU work (`cpu_work`): a hostile archive is slow because of
//! what its names make the index do (a 64 KiB path of one-letter folders
//! is 32,000 folders), not because its file does not answer. So the work
//! is counted in what it costs (bytes of names and records read), never in
//! entries: the clock, the request's cancel and the step's deadline are
//! looked at once per `ARCHIVE_WORK_PER_LOOK` bytes of it. Its memory is
//! counted the same way (names' bytes count, see `tree::FOLDER_BYTES`), and
//! an entry that could pass `ARCHIVE_INDEX_BYTES` is not filed.
//!
//! A budget that runs out cuts the index: the archive lists what was read
//! and says why it stops there ([`Cut::error`]); such an index is never
//! kept (see `with`).
#![forbid(unsafe_code)]

use std::time::Instant;

use crate::cpu_work::{CpuWork, Halt};
use crate::error::{CanopyError, ErrorCode};
use crate::limits::{ARCHIVE_INDEX_BYTES, ARCHIVE_INDEX_TIME, ARCHIVE_WORK_PER_LOOK};

/// Why an index stopped before the archive's end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Cut {
    /// `ARCHIVE_INDEX_TIME` passed.
    Time,
    /// The next entry could pass `ARCHIVE_INDEX_BYTES`.
    Memory,
    /// The step's deadline passed, the request was cancelled or given up.
    Halted(Halt),
}

impl Cut {
    /// The error the archive's folders end with: `shown` says what was read
    /// ("the 12 entries in its first 3 MiB").
    pub fn error(self, shown: &str) -> CanopyError {
        match self {
            Cut::Time => CanopyError::new(
                ErrorCode::Timeout,
                format!(
                    "reading the archive's index took longer than {} ms: showing {shown}; there may be more",
                    ARCHIVE_INDEX_TIME.as_millis()
                ),
            ),
            Cut::Memory => CanopyError::new(
                ErrorCode::TooLarge,
                format!(
                    "the archive's names would take more than {} MiB to index: showing {shown}; there may be more",
                    ARCHIVE_INDEX_BYTES >> 20
                ),
            ),
            Cut::Halted(Halt::Cancelled) => CanopyError::cancelled(),
            Cut::Halted(halt) => {
                let mut e = halt.error("reading the archive's index");
                e.message = format!("{}: showing {shown}; there may be more", e.message);
                e
            }
        }
    }
}

/// The time and memory one index may spend (see the module docs).
pub(super) struct IndexBudget {
    work: CpuWork,
    started: Instant,
    deadline: Instant,
    /// Work done since the clock was last looked at, in bytes.
    since_look: u64,
}

impl IndexBudget {
    /// A budget starting now: `ARCHIVE_INDEX_TIME` and `ARCHIVE_INDEX_BYTES`.
    pub fn new() -> IndexBudget {
        let started = Instant::now();
        IndexBudget {
            work: CpuWork::start(),
            started,
            deadline: started + ARCHIVE_INDEX_TIME,
            since_look: 0,
        }
    }

    pub fn deadline(&self) -> Instant {
        self.deadline
    }

    /// Ends this part of the work `percent` of `ARCHIVE_INDEX_TIME` after
    /// the start (a zip counts, then places).
    pub fn until_share(&mut self, percent: u32) {
        self.deadline = self.started + ARCHIVE_INDEX_TIME * percent / 100;
    }

    /// Counts `bytes` more of work (a record, a header, a name walked);
    /// past `ARCHIVE_WORK_PER_LOOK` of them, looks at the clock.
    ///
    /// # Errors
    /// The [`Cut`] when the work must stop here.
    pub fn work(&mut self, bytes: u64) -> Result<(), Cut> {
        if let Some(halt) = self.work.halt() {
            return Err(Cut::Halted(halt));
        }
        self.since_look += bytes;
        if self.since_look >= ARCHIVE_WORK_PER_LOOK {
            self.since_look = 0;
            if Instant::now() > self.deadline {
                return Err(Cut::Time);
            }
        }
        Ok(())
    }

    /// Whether an index holding `held` bytes may file an entry that adds
    /// at most `more`.
    ///
    /// # Errors
    /// [`Cut::Memory`] when it could pass `ARCHIVE_INDEX_BYTES`.
    pub fn fits(&self, held: u64, more: u64) -> Result<(), Cut> {
        if held.saturating_add(more) > ARCHIVE_INDEX_BYTES {
            return Err(Cut::Memory);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_past_the_bound_cuts_with_too_large_and_says_what_is_shown() {
        let b = IndexBudget::new();
        assert_eq!(b.fits(ARCHIVE_INDEX_BYTES - 10, 10), Ok(()));
        assert_eq!(b.fits(ARCHIVE_INDEX_BYTES - 10, 11), Err(Cut::Memory));
        let e = Cut::Memory.error("the 3 entries read");
        assert_eq!(e.code, ErrorCode::TooLarge);
        assert!(e.message.contains("the 3 entries read"), "{e}");
    }

    #[test]
    fn the_clock_is_looked_at_once_per_bounded_amount_of_work() {
        let mut b = IndexBudget::new();
        b.deadline = Instant::now();
        assert_eq!(
            b.work(ARCHIVE_WORK_PER_LOOK - 1),
            Ok(()),
            "not looked at yet"
        );
        assert_eq!(b.work(1), Err(Cut::Time));
        assert_eq!(Cut::Time.error("x").code, ErrorCode::Timeout);
    }
}
