//! Folder sizes: what is big in here, counted the way `du -x` counts.
//!
//! (Engine in progress; this commit fixes the front door and the wire types.)
#![forbid(unsafe_code)]

use std::path::Path;
use std::time::Duration;

use crate::cancel::CancelToken;
use crate::error::{CanopyError, ErrorCode};
use crate::limits::{
    DEFAULT_SIZES_DEPTH, MAX_SIZES_DEPTH, SIZES_MAX_ENTRIES, SIZES_REQUEST_TIME, TIME_BUDGET,
};
use crate::root::resolve_root;
use crate::source::Source;
use crate::wire::{SizesProgress, SizesReport, SizesRequest};

/// Who hears a sizes computation while it runs: partial figures (lower
/// bounds) of the reported folders every `SIZES_PROGRESS` at most, and each
/// reported folder's exact figure as soon as its subtree is done. Called on
/// the thread that called [`sizes`], never on the engine's workers, so a
/// slow observer delays only the next event.
pub trait SizesObserver {
    fn progress(&self, progress: &SizesProgress);
}

/// Any `Fn(&SizesProgress)` observes.
impl<F: Fn(&SizesProgress)> SizesObserver for F {
    fn progress(&self, progress: &SizesProgress) {
        self(progress);
    }
}

/// What one sizes computation may spend in all (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SizesBudget {
    /// Entries counted.
    pub entries: u64,
    /// Time in all; `None`: no limit besides each folder's own.
    pub time: Option<Duration>,
}

impl SizesBudget {
    /// The limits of every sizes request (`SIZES_MAX_ENTRIES`, `SIZES_REQUEST_TIME`).
    pub const STANDARD: SizesBudget = SizesBudget {
        entries: SIZES_MAX_ENTRIES,
        time: Some(SIZES_REQUEST_TIME),
    };
}

/// What one call to [`sizes`] asks. Build with `SizesCall::default()` and adjust.
#[derive(Debug, Clone)]
pub struct SizesCall {
    /// Echoed in the progress and the report.
    pub request_id: u64,
    /// Levels reported below the root (0: the root alone), 0..=`MAX_SIZES_DEPTH`.
    pub depth: u32,
    /// Order each folder's `largest` by apparent size, not disk usage.
    pub by_apparent: bool,
    /// Longest read of any one folder (its open, names and `lstat`s) before
    /// it is `TIMEOUT` (a dead mount).
    pub folder_time: Duration,
    /// What the whole computation may spend.
    pub budget: SizesBudget,
    /// Threads reading folders; 0: the machine's cores, at most `SIZES_MAX_THREADS`.
    pub threads: usize,
}

impl Default for SizesCall {
    fn default() -> Self {
        SizesCall {
            request_id: 0,
            depth: DEFAULT_SIZES_DEPTH,
            by_apparent: false,
            folder_time: TIME_BUDGET,
            budget: SizesBudget::STANDARD,
            threads: 0,
        }
    }
}

/// Counts everything below `root` (an absolute path in `source`) and
/// reports the folders at depth 0..=`call.depth`: the engine's front door
/// for folder sizes. `cancel` stops it at once (`CANCELLED`); `observer`
/// hears partial figures while it runs.
///
/// # Errors
/// `INVALID_ARGUMENT` for a depth over `MAX_SIZES_DEPTH`; the root's own
/// code when it cannot be read (`NOT_FOUND`, `DENIED`, `NOT_A_DIRECTORY`,
/// `TIMEOUT` ...); `CANCELLED` when `cancel` fired.
pub fn sizes<S: Source>(
    source: &S,
    root: &Path,
    call: &SizesCall,
    cancel: Option<CancelToken>,
    observer: Option<&dyn SizesObserver>,
) -> Result<SizesReport, CanopyError> {
    check_depth(call.depth)?;
    let _ = (source, root, cancel, observer);
    Err(CanopyError::new(
        ErrorCode::Unsupported,
        "folder sizes are not counted yet",
    ))
}

/// `INVALID_ARGUMENT` unless `depth` is 0..=`MAX_SIZES_DEPTH`.
fn check_depth(depth: u32) -> Result<(), CanopyError> {
    if depth > MAX_SIZES_DEPTH {
        return Err(CanopyError::invalid(format!(
            "sizes depth must be 0 to {MAX_SIZES_DEPTH}, not {depth}"
        )));
    }
    Ok(())
}

/// Runs a `folder_sizes` request as the window sends it, on `source`.
///
/// # Errors
/// As [`sizes`].
pub fn sizes_request<S: Source>(
    source: &S,
    req: &SizesRequest,
    cancel: Option<CancelToken>,
    observer: Option<&dyn SizesObserver>,
) -> Result<SizesReport, CanopyError> {
    let call = SizesCall {
        request_id: req.request_id,
        depth: req.depth.unwrap_or(DEFAULT_SIZES_DEPTH),
        by_apparent: req.by_apparent.unwrap_or(false),
        ..SizesCall::default()
    };
    check_depth(call.depth)?;
    let root = resolve_root(&req.root)?;
    sizes(source, &root, &call, cancel, observer)
}
