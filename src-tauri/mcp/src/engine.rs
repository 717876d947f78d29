//! The calls `canopy-mcp` makes to list and read, all through the engine's
//! front door and the registry's confined form
//! ([`canopy_places::Confined`]): where an agent's path leads inside the
//! roots (on the local disk or a server, and on inside the archives on the
//! way), listing a folder and reading a chunk of a file there, and the
//! cursors of a listing.
//!
//! Promises:
//! - an agent's path is resolved once, looking only inside the roots, on a
//!   bounded worker, by the registry's confined form (its module docs say
//!   how): a dead mount costs `TIMEOUT`, never a hung server;
//! - what is listed or read is reopened by its real path through the
//!   confined source, which opens archives like folders on every place;
//! - the engine never follows a link while listing: where a listed link
//!   leads is worked out from its text, inside the roots
//!   ([`canopy_places::Confined::confine_links`]);
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
use canopy_core::{CanopyError, ErrorCode, Excludes, ListCall, RequestBudget};

pub use canopy_places::{Opened, Reached};

/// What every call lists and reads through: the registry's confined form
/// (the local disk following no link, or a server's folders), with the
/// archives on either opened like folders.
pub type AgentSource = canopy_places::Confined;

/// The real path of a folder given on the command line or by the client.
///
/// # Errors
/// As [`canopy_core::real_path`], and `NOT_A_DIRECTORY` for anything but a folder.
pub fn real_folder(path: &Path) -> Result<PathBuf, CanopyError> {
    let (real, kind) = canopy_core::real_path(path)?;
    if kind != EntryKind::Folder {
        return Err(CanopyError::new(ErrorCode::NotADirectory, "not a folder"));
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
    /// Keep only the listed folder's entries whose name matches this
    /// whole-name glob (see [`check_pattern`]).
    pub filter: Option<String>,
    pub cancel: CancelToken,
    /// Called after each folder is read (on the engine's workers).
    pub on_folder: Arc<dyn Fn() + Send + Sync>,
    /// The confined source that opens archives (see [`AgentSource`]).
    pub source: AgentSource,
    /// Show what git would ignore (and `.git`); off, every folder hides it
    /// and counts it (`ignoredHidden`), and an ignored folder is never read.
    pub include_ignored: bool,
    /// Names left out of every folder (counted with the ignored).
    pub exclude: Option<Arc<Excludes>>,
    /// Read each shown entry's size and modified time.
    pub details: bool,
}

/// Lists the folder `opened` names, by its real path through the confined
/// source (inside an archive, by the archive file's real path and the
/// names inside it): a page of at most [`MCP_PAGE`] entries of its top level (those
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
        glob_filter: true,
        hide_ignored: !call.include_ignored,
        ..ListSettings::default()
    };
    let engine_call = ListCall {
        after: call.after,
        cancel: Some(call.cancel),
        observer: Some(Arc::new(move |_: &Path, _: u64| on_folder())),
        // The text prints size and time when asked, never handles.
        details: call.details,
        handles: false,
        exclude: call.exclude,
        // What a truncated folder's hidden rest is made of (counted from names, no stat).
        summary: true,
        request: RequestBudget {
            entries: u64::from(MCP_PAGE),
            ..RequestBudget::STANDARD
        },
        // On disk: the folder checked inside the roots, whose identity the
        // cursor carries. Inside an archive there is nothing to compare:
        // the folder's identity is a number the engine makes up from the
        // archive file's and the folder's place in its index, which nothing
        // knows before the engine opens it (opening it first to ask would
        // compare the engine with itself). What the check guards holds
        // without it: the archive file is reopened by the real path that was
        // checked inside the roots, following no link, and the cursor is
        // bound to that file's identity and the names inside it.
        expect_root: opened.inside.is_none().then_some(Identity {
            dev: opened.dev,
            ino: opened.ino,
        }),
        ..ListCall::default()
    };
    canopy_core::list(
        call.source.source(),
        &opened.path(),
        &settings,
        &engine_call,
    )
}

/// Checks a name pattern: a whole-name glob with `{a,b}` alternatives, as
/// `find -name` and `fd -g` read one.
///
/// # Errors
/// `INVALID_ARGUMENT`, with the reason, for a pattern the engine refuses
/// (empty, longer than `MAX_FILTER_BYTES`, holding NUL or `/`, malformed).
pub fn check_pattern(pattern: &str) -> Result<(), CanopyError> {
    canopy_core::check_name_glob(pattern)
}

/// The engine cursor that continues `listing` after its shown top-level
/// entry `index`.
///
/// # Errors
/// As [`canopy_core::cursor_after`].
pub fn cursor_after(listing: &Listing, index: usize) -> Result<Option<String>, CanopyError> {
    canopy_core::cursor_after(listing, index)
}

/// Reads one chunk of the regular file `opened` names (on disk or inside
/// an archive), through the confined source, on a bounded worker.
///
/// # Errors
/// `NOT_A_FILE` for anything but a regular file (never opened for reading),
/// `INVALID_ARGUMENT` for an offset past the end, `TIMEOUT` when the file
/// does not answer, the OS code otherwise; inside an archive, its codes
/// (`RATIO`, `ENCRYPTED`, `CORRUPT`, `UNSUPPORTED`, `TOO_LARGE` ...).
pub fn read(
    source: &AgentSource,
    opened: Opened,
    offset: u64,
    length: u64,
) -> Result<PreviewChunk, CanopyError> {
    canopy_core::preview(source.source(), &opened.path(), offset, length)
}

/// Reads the lines `window` names of the regular file `opened` names (on
/// disk or inside an archive), showing at most `max_bytes`.
///
/// # Errors
/// As [`canopy_core::read_lines`].
pub fn read_lines(
    source: &AgentSource,
    opened: Opened,
    window: canopy_core::LineWindow,
    max_bytes: u64,
) -> Result<canopy_core::Lines, CanopyError> {
    canopy_core::read_lines(source.source(), &opened.path(), window, max_bytes)
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
