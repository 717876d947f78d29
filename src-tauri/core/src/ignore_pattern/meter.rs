//! The step counter of ignore matching: [`Meter`] counts the steps a match
//! takes and stops it, for good, at the folder's deadline or when the request
//! is cancelled, looking at both every `IGNORE_STEPS_PER_CHECK` steps.

use std::time::Instant;

use crate::cancel::CancelToken;
use crate::limits::IGNORE_STEPS_PER_CHECK;

/// Why a match was stopped before it ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Halt {
    /// The folder's deadline passed.
    Deadline,
    Cancelled,
}

/// Counts the steps ignore matching takes, and stops it (for good) at a
/// deadline or a cancel, looking at both every `IGNORE_STEPS_PER_CHECK` steps.
pub struct Meter<'a> {
    deadline: Option<Instant>,
    cancel: Option<&'a CancelToken>,
    steps: u64,
    next_check: u64,
    halted: Option<Halt>,
}

impl<'a> Meter<'a> {
    pub(crate) fn new(deadline: Option<Instant>, cancel: Option<&'a CancelToken>) -> Meter<'a> {
        Meter {
            deadline,
            cancel,
            steps: 0,
            next_check: IGNORE_STEPS_PER_CHECK,
            halted: None,
        }
    }

    /// A meter that never stops the work.
    #[cfg(test)]
    pub(crate) fn unbounded() -> Meter<'static> {
        Meter::new(None, None)
    }

    /// Steps spent so far.
    #[cfg(test)]
    pub(crate) fn steps(&self) -> u64 {
        self.steps
    }

    /// Why the work was stopped, if it was.
    #[cfg(test)]
    pub(crate) fn halted(&self) -> Option<Halt> {
        self.halted
    }

    /// Spends `n` steps.
    ///
    /// # Errors
    /// Why the work must stop: the deadline passed or the request was
    /// cancelled (now or at an earlier call).
    pub(crate) fn spend(&mut self, n: u64) -> Result<(), Halt> {
        if let Some(h) = self.halted {
            return Err(h);
        }
        self.steps += n;
        if self.steps < self.next_check {
            return Ok(());
        }
        self.next_check = self.steps + IGNORE_STEPS_PER_CHECK;
        if self.cancel.is_some_and(CancelToken::is_cancelled) {
            self.halted = Some(Halt::Cancelled);
        } else if self.deadline.is_some_and(|d| Instant::now() > d) {
            self.halted = Some(Halt::Deadline);
        }
        self.halted.map_or(Ok(()), Err)
    }
}
