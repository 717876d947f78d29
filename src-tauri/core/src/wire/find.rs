//! The window's Find: what a `find` request asks, what its progress and its
//! report say, and `reveal_path`, which says where each folder on the way
//! to an entry holds the next step (so a hit past a folder's cap can be
//! shown). The engine that fills them is `crate::find` over `crate::search`.
//!
//! Every name, path and line reaches the window escaped as names are (text
//! and escape markers, `NamePart`), so nothing in a name or a file's
//! contents can forge what is shown.
#![forbid(unsafe_code)]

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::{is_false, CanopyError, EntryKind, ListSettings, NamePart, RootSpec};

/// `find`'s request: what was typed in the toolbar's Find field.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[ts(export)]
pub struct FindRequest {
    #[serde(default)]
    pub request_id: u64,
    /// The folder to search below (the open folder).
    pub root: RootSpec,
    /// Names that hold it (or match it, as a glob over the whole name:
    /// the filter's syntax), case ignored; with `contents`, lines of files
    /// that hold it as text, case ignored.
    pub text: String,
    /// Search files' contents too (default: names only).
    #[serde(default)]
    pub contents: bool,
    #[serde(default)]
    pub show_dotfiles: bool,
    /// Leave out what git would ignore (counted: `FindCounts.ignored`).
    #[serde(default)]
    pub hide_ignored: bool,
}

/// One run of a matching line as shown: text (or an escape marker standing
/// for a character or byte not shown raw), inside the match or not.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct LinePart {
    pub text: String,
    /// `text` is an escape marker (`\t`, `\u{202e}`, `\xff`), not the file's text.
    #[serde(skip_serializing_if = "is_false")]
    #[ts(as = "Option<bool>", optional)]
    pub escape: bool,
    /// `text` is (part of) what was found.
    #[serde(skip_serializing_if = "is_false")]
    #[ts(as = "Option<bool>", optional)]
    pub matched: bool,
}

/// A matching line of a file, as much of it as is shown around the match.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct FindLine {
    /// From 1.
    pub number: u64,
    pub parts: Vec<LinePart>,
    /// The line goes on before the first part (left out to show the match).
    #[serde(skip_serializing_if = "is_false")]
    #[ts(as = "Option<bool>", optional)]
    pub cut_before: bool,
    /// The line goes on after the last part.
    #[serde(skip_serializing_if = "is_false")]
    #[ts(as = "Option<bool>", optional)]
    pub cut_after: bool,
}

/// One hit: an entry whose name matched, or a line of a file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct FindHit {
    /// The entry's display name (as `Entry.name`).
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub name_parts: Option<Vec<NamePart>>,
    /// The folder it is in, relative to the searched folder ("" for that
    /// folder itself), as a person reads it.
    pub folder: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub folder_parts: Option<Vec<NamePart>>,
    /// As `Entry.handle`: pass it to `reveal_path`, or to preview it.
    pub handle: String,
    pub kind: EntryKind,
    /// For a hit in a file's contents: the line.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub line: Option<FindLine>,
}

/// What a search found and looked through so far (or in all).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct FindCounts {
    /// Entries whose names matched.
    pub names: u64,
    /// Files with matching lines, and those lines.
    pub files: u64,
    pub lines: u64,
    /// Files whose contents were searched (or, names only, whose names were read).
    pub searched_files: u64,
    pub folders: u64,
    pub bytes: u64,
    /// Files skipped as binary.
    pub binary: u64,
    /// Entries left out because git would ignore them (Hide ignored):
    /// neither matched nor read.
    pub ignored: u64,
    /// Folders or files that could not be read (`FindReport.problems`).
    pub failed: u64,
}

/// What `find` streams while it runs: the hits found since the last
/// message, in order, and the counts so far.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct FindProgress {
    pub request_id: u64,
    pub hits: Vec<FindHit>,
    pub counts: FindCounts,
}

/// A folder or file that could not be read, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct FindProblem {
    /// Relative to the searched folder, as a person reads it.
    pub path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub path_parts: Option<Vec<NamePart>>,
    pub error: CanopyError,
}

/// `find`'s answer, once every hit has been streamed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct FindReport {
    pub counts: FindCounts,
    /// More hits than `FIND_HITS` were found: the search stopped there.
    pub more: bool,
    /// Why the search stopped before the tree's end, when it did (a budget):
    /// the counts are then at least these.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub cut: Option<String>,
    /// The first of the folders and files that could not be read.
    pub problems: Vec<FindProblem>,
}

/// `reveal_path`'s request: the way from the open folder down to an entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[ts(export)]
pub struct RevealRequest {
    /// The open folder's handle.
    pub root: String,
    /// The entry's handle (a `FindHit.handle`), below `root`.
    pub target: String,
    /// The view's settings: positions are those in a listing made with
    /// them (its depth, cap, page size and filter play no part).
    #[serde(default)]
    pub settings: ListSettings,
}

/// One folder on the way: where in its order the next step lies.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct RevealStep {
    /// The folder (the open folder first).
    pub folder: String,
    /// Its entry on the way (the last step's is the target).
    pub entry: String,
    /// The entry's position in the folder's order.
    pub index: u64,
    /// Entries in the folder.
    pub total: u64,
}

/// `reveal_path`'s answer: every folder from the open one down to the
/// target's, in order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct Revealed {
    pub steps: Vec<RevealStep>,
}
