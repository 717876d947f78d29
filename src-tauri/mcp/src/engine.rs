//! The calls `canopy-mcp` makes to list and read, all through the engine's
//! front door: finding where an agent's path leads
//! inside the roots, listing a folder and reading a chunk of a file there,
//! both through a confined local source, and the cursors of a listing.
//!
//! Promises:
//! - an agent's path is resolved once, looking only inside the roots
//!   ([`canopy_core::resolve_within`]), on a bounded worker: a dead mount
//!   costs `TIMEOUT`, never a hung server;
//! - what is listed or read is reopened by its real path through
//!   [`LocalFs::confined`], which follows no link on the way: a link swapped
//!   in after the check fails the open instead of leading elsewhere;
//! - the engine never follows a link while listing: where a listed link
//!   leads is worked out from its text, inside the roots, as for a path
//!   ([`canopy_core::confine_links`]);
//! - a listing stops when its [`CancelToken`] fires, and reports each folder
//!   it has read to `on_folder` (for progress).

use std::ffi::OsString;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use canopy_core::cancel::CancelToken;
use canopy_core::limits::MCP_PAGE;
use canopy_core::source::Identity;
use canopy_core::wire::{EntryKind, ListSettings, Listing, PreviewChunk, SortBy};
use canopy_core::{CanopyError, Leads, ListCall, LocalFs, RequestBudget};

/// What an agent's path reached inside the roots.
#[derive(Debug)]
pub struct Opened {
    /// The real path of what was reached (no symlink, no `..`).
    pub real: PathBuf,
    pub kind: EntryKind,
    pub dev: u64,
    pub ino: u64,
}

/// Where `path` (absolute) leads, looking only inside `roots`; what it
/// reaches there is [`Opened`].
///
/// # Errors
/// `TIMEOUT` when a path inside the roots does not answer.
pub fn leads(path: &Path, roots: Arc<Vec<PathBuf>>) -> Result<Reached, CanopyError> {
    Ok(match canopy_core::resolve_within(path, &roots)? {
        Leads::Inside(real, kind, id) => Reached::Inside(Opened {
            real,
            kind,
            dev: id.dev,
            ino: id.ino,
        }),
        Leads::Outside => Reached::Outside,
        Leads::Fails(e) => Reached::Fails(e),
    })
}

/// Where an agent's path leads (see [`Leads`]).
#[derive(Debug)]
pub enum Reached {
    Inside(Opened),
    Outside,
    Fails(CanopyError),
}

/// What the links in `listing` (of the folder `real`) point to, as far as
/// `roots` let one look (see [`canopy_core::confine_links`]).
pub fn confine_links(listing: &mut Listing, real: &Path, roots: &[PathBuf]) {
    canopy_core::confine_links(listing, real, roots);
}

/// The real path of a folder given on the command line or by the client.
///
/// # Errors
/// As [`canopy_core::real_path`], and `NOT_A_DIRECTORY` for anything but a folder.
pub fn real_folder(path: &Path) -> Result<PathBuf, CanopyError> {
    let (real, kind) = canopy_core::real_path(path)?;
    if kind != EntryKind::Folder {
        return Err(CanopyError::new(
            canopy_core::ErrorCode::NotADirectory,
            "not a folder",
        ));
    }
    Ok(real)
}

/// How to list an opened folder.
pub struct AgentListing {
    pub depth: u32,
    /// The engine's cursor: the page continues after the entry it names.
    pub after: Option<String>,
    pub show_dotfiles: bool,
    /// The order of every folder listed (folders first under every order).
    pub sort: SortBy,
    pub reverse: bool,
    /// Keep only the listed folder's entries whose name matches (see [`check_pattern`]).
    pub filter: Option<String>,
    pub cancel: CancelToken,
    /// Called after each folder is read (on the engine's workers).
    pub on_folder: Arc<dyn Fn() + Send + Sync>,
    /// The confined local source (with the `e2e` build's test seams).
    pub source: LocalFs,
}

/// Lists the folder `opened` names, by its real path through the confined
/// source: a page of at most [`MCP_PAGE`] entries of its top level (those
/// matching the filter, if any), and below it what the request's budget of
/// as many entries allows (breadth-first), every folder in the call's order
/// and with what its hidden rest is made of.
///
/// # Errors
/// As [`canopy_core::list`]: `INVALID_ARGUMENT` for a bad depth or filter,
/// or a cursor made under another order, filter or dotfile setting; the
/// folder's code when it cannot be listed; `CANCELLED` when the token fired.
pub fn list(opened: &Opened, call: AgentListing) -> Result<Listing, CanopyError> {
    let on_folder = call.on_folder;
    let settings = ListSettings {
        depth: call.depth,
        limit: MCP_PAGE,
        show_dotfiles: call.show_dotfiles,
        sort: call.sort,
        reverse: call.reverse,
        filter: call.filter,
        ..ListSettings::default()
    };
    let engine_call = ListCall {
        after: call.after,
        cancel: Some(call.cancel),
        observer: Some(Arc::new(move |_: &Path, _: u64| on_folder())),
        // The text prints neither size, time nor handles.
        details: false,
        handles: false,
        // What a truncated folder's hidden rest is made of (counted from names, no stat).
        summary: true,
        request: RequestBudget {
            entries: u64::from(MCP_PAGE),
            ..RequestBudget::STANDARD
        },
        // The folder checked inside the roots, whose identity the cursor carries.
        expect_root: Some(Identity {
            dev: opened.dev,
            ino: opened.ino,
        }),
        ..ListCall::default()
    };
    canopy_core::list(&call.source, &opened.real, &settings, &engine_call)
}

/// How a `find_in_folder` pattern is read: `true` for a whole-name glob
/// (it holds `*`, `?` or a closed `[...]`), `false` for a substring.
///
/// # Errors
/// `INVALID_ARGUMENT` for a pattern the engine refuses (empty, longer than
/// `MAX_FILTER_BYTES`, holding NUL or `/`).
pub fn check_pattern(pattern: &str) -> Result<bool, CanopyError> {
    canopy_core::filter_is_glob(pattern)
}

/// The engine cursor that continues `listing` after its shown top-level
/// entry `index`.
///
/// # Errors
/// As [`canopy_core::cursor_after`].
pub fn cursor_after(listing: &Listing, index: usize) -> Result<Option<String>, CanopyError> {
    canopy_core::cursor_after(listing, index)
}

/// Reads one chunk of the regular file `opened` names, through the confined
/// source, on a bounded worker.
///
/// # Errors
/// `NOT_A_FILE` for anything but a regular file (never opened for reading),
/// `INVALID_ARGUMENT` for an offset past the end, `TIMEOUT` when the file
/// does not answer, the OS code otherwise.
pub fn read(
    source: &LocalFs,
    opened: Opened,
    offset: u64,
    length: u64,
) -> Result<PreviewChunk, CanopyError> {
    canopy_core::preview(source, &opened.real, offset, length)
}

/// The escaped one-line form of a path, as the listing prints names.
pub fn shown_path(path: &Path) -> String {
    canopy_core::names::escape_for_line(path.as_os_str().as_bytes())
}

/// The bytes a path printed by Canopy stands for.
///
/// # Errors
/// `INVALID_ARGUMENT` for an escape Canopy never writes.
pub fn printed_path(text: &str) -> Result<PathBuf, CanopyError> {
    Ok(PathBuf::from(OsString::from_vec(
        canopy_core::names::unescape_line(text)?,
    )))
}
