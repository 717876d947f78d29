//! Every call `canopy-mcp` makes into Canopy's engine, in one place: opening
//! a path (to check where it really is), listing an opened folder (in an
//! order, filtered or not), reading a chunk of an opened file, and the
//! cursors of a listing.
//!
//! Promises:
//! - an agent's path is resolved once, component by component, each looked
//!   up (`O_PATH | O_NOFOLLOW`, which opens no file contents and runs no
//!   driver) relative to the folder held before it, looking only inside the
//!   roots, on a bounded worker: a dead mount costs `TIMEOUT`, never a hung
//!   server, and a symlink swapped in along the way is read as a link;
//! - what is listed or read is the descriptor that walk ends on (the
//!   listing opens `/proc/self/fd/N`; the preview reopens it only if it is
//!   a regular file), so a symlink swapped in after the check changes nothing;
//! - the engine never follows a link while listing: where a listed link
//!   leads is worked out from its text, inside the roots, as for a path;
//! - a listing stops when its [`CancelToken`] fires, and reports each folder
//!   it has read to `on_folder` (for progress).

use std::ffi::{CString, OsString};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use canopy_core::bounded::{self, Place};
use canopy_core::cancel::CancelToken;
use canopy_core::dirio::{Anchor, IoHooks};
use canopy_core::filter::NameFilter;
use canopy_core::limits::{MCP_PAGE, TIME_BUDGET};
use canopy_core::walk::RequestBudget;
use canopy_core::preview::PreviewChunk;
use canopy_core::wire::{Entry, EntryKind, Folder, LinkTarget, Listing, SortBy};

use crate::access::{self, Leads};
use canopy_core::{CanopyError, ErrorCode, ListOptions};

/// A path opened `O_PATH`, and where it really is.
#[derive(Debug)]
pub struct Opened {
    pub fd: OwnedFd,
    /// The real path of what was opened (no symlink, no `..`).
    pub real: PathBuf,
    pub kind: EntryKind,
    pub dev: u64,
    pub ino: u64,
}

fn kind_of(mode: libc::mode_t) -> EntryKind {
    canopy_core::dirio::kind_of_mode(mode)
}

/// Opens `path` (following symlinks, as the kernel resolves it) without
/// opening its contents, and reads back where it really is.
///
/// # Errors
/// The OS code (`NOT_FOUND`, `DENIED`, `LOOP`, `NAME_TOO_LONG`, ...);
/// `TIMEOUT` when the path does not answer; `IO` without `/proc`.
pub fn open(path: &Path) -> Result<Opened, CanopyError> {
    let owned = path.to_path_buf();
    bounded::call(Place::path(path), TIME_BUDGET, move |_| open_now(&owned))?
}

fn open_now(path: &Path) -> Result<Opened, CanopyError> {
    let c = CString::new(path.as_os_str().as_bytes()).map_err(|_| CanopyError::invalid("the path contains a NUL byte"))?;
    // SAFETY: valid C string; O_PATH opens no contents and runs no driver.
    let raw = unsafe { libc::open(c.as_ptr(), libc::O_PATH | libc::O_CLOEXEC) };
    if raw < 0 {
        return Err(CanopyError::from_io(&std::io::Error::last_os_error(), "cannot open"));
    }
    // SAFETY: a fresh descriptor, owned here.
    let fd = unsafe { OwnedFd::from_raw_fd(raw) };
    // SAFETY: a zeroed stat is a valid out-buffer; fd is open.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    if unsafe { libc::fstat(fd.as_raw_fd(), &mut st) } < 0 {
        return Err(CanopyError::from_io(&std::io::Error::last_os_error(), "cannot examine"));
    }
    let link = format!("/proc/self/fd/{}", fd.as_raw_fd());
    let real = match std::fs::read_link(&link) {
        Ok(p) => p,
        Err(e) if e.raw_os_error() == Some(libc::ENOENT) => {
            return Err(CanopyError::new(ErrorCode::Io, "cannot tell where the path leads: /proc is not mounted"))
        }
        Err(e) => return Err(CanopyError::from_io(&e, "cannot tell where the path leads")),
    };
    // A deleted entry reads back as "PATH (deleted)", which is no path.
    if st.st_nlink == 0 || !real.is_absolute() {
        return Err(CanopyError::new(ErrorCode::NotFound, "it was deleted while it was being opened"));
    }
    Ok(Opened { fd, real, kind: kind_of(st.st_mode), dev: st.st_dev, ino: st.st_ino })
}

/// Where `path` (absolute) leads, looking only inside `roots` and only
/// through descriptors (see [`access::resolve_within`]), on a bounded
/// worker. What it reaches inside them is held, to be listed or read
/// through that same descriptor ([`Opened::from`]).
///
/// # Errors
/// `TIMEOUT` when a path inside the roots does not answer.
pub fn leads(path: &Path, roots: Arc<Vec<PathBuf>>) -> Result<Leads, CanopyError> {
    let owned = path.to_path_buf();
    bounded::call(Place::path(path), TIME_BUDGET, move |_| access::resolve_within(&owned, &roots))
}

impl Opened {
    /// What [`leads`] reached inside the roots, at its real path.
    pub fn from(real: PathBuf, held: Anchor) -> Opened {
        let (kind, id) = (held.kind, held.identity);
        Opened { fd: held.into_fd(), real, kind, dev: id.dev, ino: id.ino }
    }
}

/// What the links in `listing` (of the folder `real`) point to, as far as
/// `roots` let one look: a link whose target lies outside them is
/// [`LinkTarget::Outside`], whatever the engine found when it followed it,
/// and the engine's error from following it is dropped. When the links do
/// not all answer in time, those not yet settled are `Unknown`.
pub fn confine_links(listing: &mut Listing, real: &Path, roots: &[PathBuf]) {
    let mut links = Vec::new();
    if let Some(f) = listing.root.folder.as_deref() {
        link_paths(f, real, &mut links);
    }
    if links.is_empty() {
        return;
    }
    let (paths, roots) = (links.clone(), roots.to_vec());
    let verdicts = bounded::call(Place::path(real), TIME_BUDGET, move |_| {
        paths.iter().map(|p| points_to(access::resolve_within(p, &roots))).collect::<Vec<_>>()
    })
    .unwrap_or_default();
    let mut verdicts = verdicts.into_iter();
    if let Some(f) = listing.root.folder.as_deref_mut() {
        set_links(f, &mut verdicts);
    }
}

fn points_to(leads: Leads) -> LinkTarget {
    match leads {
        Leads::Outside => LinkTarget::Outside,
        Leads::Inside(_, a) => match a.kind {
            EntryKind::Folder => LinkTarget::Folder,
            EntryKind::File => LinkTarget::File,
            _ => LinkTarget::Other,
        },
        Leads::Fails(e) => match e.code {
            ErrorCode::NotFound | ErrorCode::NotADirectory => LinkTarget::Dangling,
            ErrorCode::Loop => LinkTarget::Loop,
            _ => LinkTarget::Unknown,
        },
    }
}

/// The real path of an entry shown in a listing (its name read back to bytes).
fn entry_path(dir: &Path, e: &Entry) -> PathBuf {
    let shown = canopy_core::text::line_name(&e.name, e.name_parts.as_deref());
    let bytes = canopy_core::names::unescape_line(&shown).unwrap_or_else(|_| e.name.as_bytes().to_vec());
    dir.join(std::ffi::OsStr::from_bytes(&bytes))
}

/// The paths of the links in `f` (in the order [`set_links`] visits them).
fn link_paths(f: &Folder, dir: &Path, out: &mut Vec<PathBuf>) {
    for e in &f.entries {
        if e.link.is_some() {
            out.push(entry_path(dir, e));
        }
        if let Some(sub) = e.folder.as_deref() {
            link_paths(sub, &entry_path(dir, e), out);
        }
    }
}

fn set_links(f: &mut Folder, verdicts: &mut impl Iterator<Item = LinkTarget>) {
    for e in &mut f.entries {
        if let Some(link) = e.link.as_deref_mut() {
            link.points_to = verdicts.next().unwrap_or(LinkTarget::Unknown);
            // Following is what the engine's error was about: the verdict replaces it.
            e.error = None;
        }
        if let Some(sub) = e.folder.as_deref_mut() {
            set_links(sub, verdicts);
        }
    }
}

/// The real path of a folder given on the command line or by the client.
///
/// # Errors
/// As [`open`], and `NOT_A_DIRECTORY` for anything but a folder.
pub fn real_folder(path: &Path) -> Result<PathBuf, CanopyError> {
    let opened = open(path)?;
    if opened.kind != EntryKind::Folder {
        return Err(CanopyError::new(ErrorCode::NotADirectory, "not a folder"));
    }
    Ok(opened.real)
}

/// How to list an opened folder.
pub struct ListCall {
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
    /// The engine's test seams (the `e2e` build only; see `main.rs`).
    pub hooks: IoHooks,
}

/// Lists the folder `opened` names, through its descriptor: a page of at
/// most [`MCP_PAGE`] entries of its top level (those matching the filter,
/// if any), and below it what the request's budget of as many entries
/// allows (breadth-first), every folder in the call's order and with what
/// its hidden rest is made of.
///
/// # Errors
/// As [`canopy_core::list`]: `INVALID_ARGUMENT` for a bad depth or filter,
/// or a cursor made under another order, filter or dotfile setting; the
/// folder's code when it cannot be listed; `CANCELLED` when the token fired.
pub fn list(opened: &Opened, call: ListCall) -> Result<Listing, CanopyError> {
    let via = PathBuf::from(format!("/proc/self/fd/{}", opened.fd.as_raw_fd()));
    let on_folder = call.on_folder.clone();
    let mut hooks = call.hooks;
    #[cfg(feature = "e2e")]
    slow_root_seam(opened, &mut hooks);
    hooks.after_scan = Some(Arc::new(move |_: &Path| on_folder()));
    // A link may lead outside the roots: its target is judged by its text
    // alone, inside them ([`confine_links`]), never followed by the engine.
    hooks.links_unfollowed = true;
    let opts = ListOptions {
        depth: call.depth,
        limit: Some(u64::from(MCP_PAGE)),
        after: call.after,
        show_dotfiles: call.show_dotfiles,
        sort: call.sort,
        reverse: call.reverse,
        filter: call.filter,
        // What a truncated folder's hidden rest is made of (counted from names, no stat).
        summary: true,
        request: RequestBudget { entries: u64::from(MCP_PAGE), ..RequestBudget::STANDARD },
        cancel: Some(call.cancel),
        hooks,
        // The text prints neither size, time nor handles.
        details: false,
        handles: false,
        ..ListOptions::default()
    };
    canopy_core::list(&via, &opts)
}

/// How a `find_in_folder` pattern is read: `true` for a whole-name glob
/// (it holds `*`, `?` or a closed `[...]`), `false` for a substring.
///
/// # Errors
/// `INVALID_ARGUMENT` for a pattern the engine refuses (empty, longer than
/// `MAX_FILTER_BYTES`, holding NUL or `/`).
pub fn check_pattern(pattern: &str) -> Result<bool, CanopyError> {
    Ok(NameFilter::parse(pattern)?.is_glob())
}

/// The engine's slow-folder seam names a folder by its name; the listed
/// folder is opened as `/proc/self/fd/N`, so when its real name is the slow
/// one, the seam is pointed at `N` (the `e2e` build only).
#[cfg(feature = "e2e")]
fn slow_root_seam(opened: &Opened, hooks: &mut IoHooks) {
    let real_name = opened.real.file_name().map(|n| n.as_bytes());
    if hooks.slow_folder.is_some() && hooks.slow_folder.as_deref() == real_name {
        hooks.slow_folder = Some(opened.fd.as_raw_fd().to_string().into_bytes());
    }
}

/// The engine cursor that continues `listing` after its shown top-level
/// entry `index`.
///
/// # Errors
/// As [`canopy_core::cursor::after_entry`].
pub fn cursor_after(listing: &Listing, index: usize) -> Result<Option<String>, CanopyError> {
    canopy_core::cursor::after_entry(listing, index)
}

/// Reads one chunk of the regular file `opened` names, on a bounded worker.
///
/// # Errors
/// `NOT_A_FILE` for anything but a regular file (never opened for reading),
/// `INVALID_ARGUMENT` for an offset past the end, `TIMEOUT` when the file
/// does not answer, the OS code otherwise.
pub fn read(opened: Opened, offset: u64, length: u64) -> Result<PreviewChunk, CanopyError> {
    let place = Place::path(&opened.real);
    bounded::call(place, TIME_BUDGET, move |_| canopy_core::preview::read_preview_at(&opened.fd, offset, length))?
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
    Ok(PathBuf::from(OsString::from_vec(canopy_core::names::unescape_line(text)?)))
}
