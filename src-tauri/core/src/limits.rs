//! Every number that bounds Canopy's work, in one place.
//!
//! The engine, the Tauri commands, `canopy-list` and (through the generated
//! bindings) the UI all read these; nothing else hard-codes a depth, cap or size.

use std::time::Duration;

/// Levels listed when the caller does not say: the folder's entries and theirs.
pub const DEFAULT_DEPTH: u32 = 2;
/// Deepest listing accepted; deeper requests are `INVALID_ARGUMENT`.
pub const MAX_DEPTH: u32 = 64;
/// Entries shown for each folder below the root.
pub const NESTED_CAP: u32 = 100;
/// Entries in one page of the root (UI, `--json` and text mode alike).
pub const PAGE: u32 = 500;
/// Largest page a caller may ask for over IPC.
pub const MAX_PAGE: u32 = 10_000;
/// Longest time spent reading one folder before it is returned as `TIMEOUT`.
pub const TIME_BUDGET: Duration = Duration::from_secs(2);

/// Bytes read by one preview request when the caller does not say.
pub const PREVIEW_CHUNK: u64 = 256 * 1024;
/// Largest preview chunk; larger requests are clamped and the reply says so.
pub const MAX_PREVIEW_CHUNK: u64 = 4 * 1024 * 1024;
/// Largest image sent to the UI in one piece.
pub const IMAGE_CAP: u64 = 32 * 1024 * 1024;
/// Bytes of a binary file carried (as base64) for the hex view.
pub const HEX_VIEW_BYTES: u64 = 4 * 1024;
/// Bytes examined to decide whether a file is text or binary.
pub const SNIFF_BYTES: usize = 1024;

/// Most folders watched for live refresh at once (one inotify watch each);
/// the rest refresh when the window regains focus, and the window says so.
pub const MAX_WATCHED_FOLDERS: usize = 1024;
/// A folder's change is reported once no event touched any watched folder
/// for this long...
pub const WATCH_QUIET: Duration = Duration::from_millis(150);
/// ...or at the latest this long after the first unreported event, so a
/// storm of changes is shown while it lasts.
pub const WATCH_MAX_DELAY: Duration = Duration::from_millis(500);

/// Largest saved-view file read at start; a larger one is ignored.
pub const SAVED_VIEW_MAX_BYTES: u64 = 1024 * 1024;
/// Most expanded folders remembered across a restart (in tree order).
pub const SAVED_EXPANDED_MAX: usize = 4096;
