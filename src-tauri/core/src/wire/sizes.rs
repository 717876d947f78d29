//! Folder sizes (issue 19): what a `sizes` request asks, what its progress
//! and its report say. The engine that fills them is `crate::sizes`.
//!
//! Every figure is a count of bytes or entries below a folder, under the
//! rules of `du -x`: symlinks are never followed, another filesystem is
//! never entered, an inode with several links is counted once per
//! computation. A figure that could not be finished is a lower bound, and
//! says why (`shortfalls`).
#![forbid(unsafe_code)]

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::{is_false, EntryKind, ErrorCode, NamePart, RootSpec};

/// `folder_sizes`' request, as the window sends it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[ts(export)]
pub struct SizesRequest {
    #[serde(default)]
    pub request_id: u64,
    pub root: RootSpec,
    /// Levels reported below the root: 0 reports the root alone
    /// (0..=`MAX_SIZES_DEPTH`, default `DEFAULT_SIZES_DEPTH`). Every folder
    /// within it is kept: a face that shows only some names them in
    /// `folders` instead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub depth: Option<u32>,
    /// The folders below the root to report (handles, as `Entry.handle`):
    /// those the window shows, at most `SIZES_MAX_SHOWN`. Not with `depth`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub folders: Option<Vec<String>>,
    /// Order each folder's `largest` by apparent size (default: by disk usage).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub by_apparent: Option<bool>,
}

/// Why a figure is a lower bound: `count` folders below could not be read
/// for this reason (`DENIED`, `TIMEOUT`, `BUDGET`, `CANCELLED`, `IO` ...).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct Shortfall {
    pub code: ErrorCode,
    /// Folders (or entries) below that this reason left out or cut short.
    pub count: u64,
    /// The display path (relative to the request's root, escaped as names
    /// are) of one of them.
    pub example: String,
}

/// The recursive size of one folder: everything below it, as `du -x` counts.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct FolderSizes {
    /// Bytes allocated (`st_blocks` x 512), the folder itself and everything
    /// below, each inode once: `du -sB1 -x` on that folder. Inside an
    /// archive, the apparent size.
    pub disk_usage: u64,
    /// Bytes by `st_size`, the folder itself and everything below, each
    /// inode once: `du -sb -x` on that folder.
    pub apparent: u64,
    /// Entries below that are not folders (files, symlinks, specials),
    /// each link of a file counted.
    pub files: u64,
    /// Folders below, the folder itself not counted.
    pub folders: u64,
    /// Something below could not be read, or counting is not finished:
    /// the figures are at least these.
    pub is_lower_bound: bool,
    /// Why it is a lower bound (absent when exact or merely unfinished).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[ts(as = "Option<Vec<Shortfall>>", optional)]
    pub shortfalls: Vec<Shortfall>,
    /// This folder is the mount point of another filesystem: not entered,
    /// its figures are zero (as `du -x` leaves it out).
    #[serde(skip_serializing_if = "is_false")]
    #[ts(as = "Option<bool>", optional)]
    pub other_disk: bool,
}

/// One child (file or folder) among a folder's largest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ChildSize {
    /// Display name; invalid UTF-8 replaced by U+FFFD.
    pub name: String,
    /// The name split into text and escape markers, as `Entry.nameParts`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub name_parts: Option<Vec<NamePart>>,
    /// As `Entry.handle`.
    pub handle: String,
    pub kind: EntryKind,
    pub disk_usage: u64,
    pub apparent: u64,
    /// 1 for a file; 1 + files + folders below for a folder.
    pub items: u64,
    pub is_lower_bound: bool,
    /// A folder that is the mount point of another filesystem: not
    /// entered, its figures are zero (as `FolderSizes.otherDisk`).
    #[serde(skip_serializing_if = "is_false")]
    #[ts(as = "Option<bool>", optional)]
    pub other_disk: bool,
}

/// The children of a folder not among its `largest`, summed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct OtherChildren {
    pub count: u64,
    pub disk_usage: u64,
    pub apparent: u64,
}

/// One reported folder's figures (a partial lower bound while counting).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct FolderSizeReport {
    /// As `Entry.handle` and the listing root's handle.
    pub handle: String,
    /// Display path relative to the request's root ("" for the root),
    /// escaped as names are.
    pub path: String,
    /// 0 for the root.
    pub depth: u32,
    pub sizes: FolderSizes,
    /// False: a partial figure while counting (then `sizes.isLowerBound`).
    pub done: bool,
    /// Only when done: its largest children (files or folders, at most
    /// `SIZES_LARGEST`), largest first by the request's measure.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub largest: Option<Vec<ChildSize>>,
    /// Only when done: the children not in `largest`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub others: Option<OtherChildren>,
}

/// What a sizes request in flight reports, every `SIZES_PROGRESS` at most.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct SizesProgress {
    pub request_id: u64,
    /// Reported folders whose figures changed since the last event (a
    /// folder finished since then comes with `done: true`).
    pub folders: Vec<FolderSizeReport>,
    /// Entries counted so far.
    pub entries: u64,
}

/// The answer to a sizes request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct SizesReport {
    pub request_id: u64,
    /// The root's figures (done).
    pub root: FolderSizeReport,
    /// Every reported folder but the root (done), parents before children.
    pub folders: Vec<FolderSizeReport>,
    /// Entries counted.
    pub entries: u64,
    pub elapsed_ms: u64,
    /// Set when the request as a whole was cut short (`BUDGET`, `CANCELLED`):
    /// every figure not finished by then is a lower bound.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub budget_cut: Option<ErrorCode>,
}
