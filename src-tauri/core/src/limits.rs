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
/// Names sampled to find a deep page (see `select`): the sample's memory,
/// and the number of buckets a folder is split into while narrowing.
pub const SELECTION_SAMPLE: usize = 4096;
/// Candidates kept beyond the page while selecting it: a page starting at
/// most this far in is chosen in one pass; deeper ones narrow first.
pub const SELECTION_WINDOW: usize = 2048;
/// Longest time spent reading one folder before it is returned as `TIMEOUT`.
pub const TIME_BUDGET: Duration = Duration::from_secs(2);
/// Entries in one reply at most: a default depth-2 reply (a page of `PAGE`
/// and `NESTED_CAP` for each of its folders) is never cut.
pub const MAX_REPLY_ENTRIES: u64 = PAGE as u64 * (1 + NESTED_CAP as u64);
/// Names read from the kernel for one request at most (the root's passes count once).
pub const MAX_NAMES_READ: u64 = 1_000_000;
/// Longest time one request spends in all, the describe phase included.
pub const REQUEST_TIME: Duration = Duration::from_secs(5);
/// How long past a step's deadline a caller waits before leaving a call behind.
pub const ABANDON_GRACE: Duration = Duration::from_millis(250);
/// Calls left behind at once on one device (a further call there fails at once).
pub const MAX_STUCK_PER_DEVICE: usize = 1;
/// Calls left behind at once in all; beyond this every call fails at once.
pub const MAX_STUCK_THREADS: usize = 8;
/// Idle I/O workers kept for reuse.
pub const IDLE_WORKERS: usize = 2;

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
