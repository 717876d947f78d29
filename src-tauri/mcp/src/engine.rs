//! The calls `canopy-mcp` makes to list and read, all through the engine's
//! front door: finding where an agent's path leads
//! inside the roots, listing a folder and reading a chunk of a file there,
//! both through a confined local source that opens archives like folders,
//! and the cursors of a listing.
//!
//! Promises:
//! - an agent's path is resolved once, looking only inside the roots
//!   ([`canopy_core::resolve_within`]), on a bounded worker: a dead mount
//!   costs `TIMEOUT`, never a hung server;
//! - a path that runs through a regular file (`dl/site.zip/assets`) goes on
//!   inside it as an archive: its longest prefix on disk is resolved as any
//!   path is (a regular file inside the roots, reached without leaving
//!   them: a link to an archive elsewhere is `Outside`, as a link to any
//!   file is), and the rest must be plain names (no `..`, `.` or empty
//!   name), which only the archive's index is asked about;
//! - what is listed or read is reopened by its real path through
//!   [`LocalFs::confined`], which follows no link on the way: a link swapped
//!   in after the check fails the open instead of leading elsewhere. The
//!   source is wrapped in [`WithArchives`], so an archive on the way is
//!   read in place with the same caps and budgets (and its index is kept
//!   in the source's small cache, shared by every call);
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
use canopy_core::limits::{RESOLVE_SHARE_PERCENT, TIME_BUDGET};
use canopy_core::source::Identity;
use canopy_core::wire::{EntryKind, ListSettings, Listing, PreviewChunk, SortBy};
use canopy_core::{
    CanopyError, Either, ErrorCode, Excludes, Leads, ListCall, LocalFs, RequestBudget, WithArchives,
};
use canopy_sftp::SftpFs;

/// The source every call lists and reads through: the local disk, confined
/// (no link followed), continued inside the archives on it; or a server's
/// folders over SFTP (`--root sftp://...`), where the server resolves paths.
pub type AgentSource = Either<WithArchives<LocalFs>, SftpFs>;

/// A confined local source that opens archives like folders (with the
/// engine's slow-folder seam in the `e2e` build only), reading git's ignore
/// rules only from repositories inside `roots`. Clones share its cache of
/// archive indexes.
pub fn agent_source(roots: &[PathBuf]) -> AgentSource {
    Either::Left(WithArchives::new(
        LocalFs::confined()
            .with_env_seams()
            .with_ignore_rules_within(roots.to_vec()),
    ))
}

/// A server's folders, read over SFTP.
pub fn remote_source(server: SftpFs) -> AgentSource {
    Either::Right(server)
}

/// Where `path` (absolute, on the server) leads: the server's `realpath`
/// resolves its links and `..`, and the real path must lie inside `roots`
/// (the roots' own real paths on the server). Unlike on the local disk the
/// server is asked about the whole path once, so whether a place outside
/// the roots exists may be told by the error (`NOT_FOUND`); what it is, or
/// what it holds, is never read.
fn remote_leads(server: &SftpFs, path: &Path, roots: &[PathBuf]) -> Leads {
    match server.real_path(path) {
        Ok((real, _, _)) if !roots.iter().any(|r| canopy_core::within(&real, r)) => Leads::Outside,
        Ok((real, meta, id)) => Leads::Inside(real, meta.kind, id),
        Err(e) => Leads::Fails(e),
    }
}

/// The most names a path may go on with inside an archive: the engine
/// looks no further up a path for the archive it runs through, so a deeper
/// path could not be opened, and each name costs the resolution a lookup.
const ARCHIVE_NAMES_MAX: usize = 64;

/// What an agent's path reached inside the roots.
#[derive(Debug)]
pub struct Opened {
    /// The real path of what was reached on disk (no symlink, no `..`):
    /// the folder or file itself, or the archive file the path runs through.
    pub real: PathBuf,
    /// What `real` is.
    pub kind: EntryKind,
    pub dev: u64,
    pub ino: u64,
    /// For a path that runs through the regular file `real`: its plain
    /// names inside that archive (none for the archive's top).
    pub inside: Option<PathBuf>,
}

impl Opened {
    /// The path the source lists or reads: `real`, continued inside the archive.
    pub fn path(&self) -> PathBuf {
        match &self.inside {
            Some(names) if !names.as_os_str().is_empty() => self.real.join(names),
            _ => self.real.clone(),
        }
    }

    /// The same place, taken as the top of the archive `real` (a regular
    /// file listed as a folder).
    pub fn as_archive(self) -> Opened {
        Opened {
            inside: Some(self.inside.unwrap_or_default()),
            ..self
        }
    }

    /// The device and number a cursor is bound to: the folder's own on
    /// disk; inside an archive, the archive file's device, and its number
    /// mixed with the names inside it (the top bit set, as the engine marks
    /// an archive's folders), so a cursor continues only the folder of the
    /// archive file it was issued for. On a server, the server's lasting
    /// device (a reconnect makes a new device number, and a cursor outlives
    /// the connection it was issued on).
    pub fn binding(&self) -> (u64, u64) {
        let dev = canopy_sftp::lasting_device(self.dev);
        let Some(names) = &self.inside else {
            return (dev, self.ino);
        };
        // FNV-1a: stable within the server's run, which is all a cursor outlives.
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in self
            .ino
            .to_le_bytes()
            .iter()
            .chain(names.as_os_str().as_bytes())
        {
            h = (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3);
        }
        (dev, h | 1 << 63)
    }
}

/// Where `path` (absolute) leads, looking only inside `roots`; what it
/// reaches there is [`Opened`]. A path that runs through a regular file
/// inside the roots goes on inside it, as an archive (see the module docs).
///
/// # Errors
/// `TIMEOUT` when a path inside the roots does not answer.
pub fn leads(
    path: &Path,
    roots: Arc<Vec<PathBuf>>,
    source: &AgentSource,
) -> Result<Reached, CanopyError> {
    if let Either::Right(server) = source {
        // No archives are opened on a server: a path through a file fails as it is.
        return Ok(match remote_leads(server, path, &roots) {
            Leads::Inside(real, kind, id) => Reached::Inside(Opened {
                real,
                kind,
                dev: id.dev,
                ino: id.ino,
                inside: None,
            }),
            Leads::Outside => Reached::Outside,
            Leads::Fails(e) => Reached::Fails(e),
        });
    }
    Ok(match canopy_core::resolve_within(path, &roots)? {
        Leads::Inside(real, kind, id) => Reached::Inside(Opened {
            real,
            kind,
            dev: id.dev,
            ino: id.ino,
            inside: None,
        }),
        Leads::Outside => Reached::Outside,
        // A regular file on the way: the rest of the path may lie inside it.
        Leads::Fails(e) if e.code == ErrorCode::NotADirectory => through_file(path, &roots, e)?,
        Leads::Fails(e) => Reached::Fails(e),
    })
}

/// Where `path`, which met something other than a folder on its way
/// (`failed`), leads when its longest prefix that resolves is a regular
/// file: into that file as an archive, the rest of the path its names
/// inside. The prefix is resolved as any path is, so what it reaches is
/// inside the roots, reached without leaving them; anything else answers
/// as the prefix did, or as the whole path did (`failed`).
fn through_file(
    path: &Path,
    roots: &[PathBuf],
    failed: CanopyError,
) -> Result<Reached, CanopyError> {
    let bytes = path.as_os_str().as_bytes();
    // The prefixes, longest first: each ends before a `/` and in a name (a
    // prefix ending in `/` or `/.` resolves as the one before it would, and
    // would hide an empty or `.` name from the names inside). One more
    // than the names allowed, for a trailing slash.
    let ends_in_a_name = |cut: usize| {
        let head = &bytes[..cut];
        !head.ends_with(b"/") && !head.ends_with(b"/.")
    };
    let cuts = bytes
        .iter()
        .enumerate()
        .rev()
        .filter(|&(i, &b)| b == b'/' && i > 0)
        .map(|(i, _)| i)
        .take(ARCHIVE_NAMES_MAX + 1)
        .filter(|&cut| ends_in_a_name(cut));
    for cut in cuts {
        let prefix = Path::new(std::ffi::OsStr::from_bytes(&bytes[..cut]));
        match canopy_core::resolve_within(prefix, roots)? {
            Leads::Inside(real, EntryKind::File, id) => {
                return Ok(match names_inside(&bytes[cut + 1..]) {
                    Ok(names) => Reached::Inside(Opened {
                        real,
                        kind: EntryKind::File,
                        dev: id.dev,
                        ino: id.ino,
                        inside: Some(names),
                    }),
                    Err(e) => Reached::Fails(e),
                });
            }
            Leads::Inside(..) => break,
            Leads::Outside => return Ok(Reached::Outside),
            Leads::Fails(e) if e.code == ErrorCode::NotADirectory => {}
            Leads::Fails(e) => return Ok(Reached::Fails(e)),
        }
    }
    Ok(Reached::Fails(failed))
}

/// The names `rest` goes on with inside an archive, checked: plain names
/// only (one trailing `/` names the same folder).
///
/// # Errors
/// `INVALID_ARGUMENT` for a `..`, `.` or empty name.
fn names_inside(rest: &[u8]) -> Result<PathBuf, CanopyError> {
    let rest = rest.strip_suffix(b"/").unwrap_or(rest);
    if rest.is_empty() {
        return Ok(PathBuf::new());
    }
    if rest
        .split(|&b| b == b'/')
        .any(|name| name.is_empty() || name == b"." || name == b"..")
    {
        return Err(CanopyError::invalid(
            "inside an archive a path holds plain names only: `..`, `.` and empty names (`//`) are refused",
        ));
    }
    Ok(PathBuf::from(OsString::from_vec(rest.to_vec())))
}

/// The real path of the link `name` in the folder `reached`, when it is
/// one: looked at through the confined source from the folder's real path
/// (no link followed on the way, the name itself not followed), on a
/// bounded worker. `None` for anything else, or when it cannot be told.
pub fn link_in(reached: Reached, name: &std::ffi::OsStr, source: &AgentSource) -> Option<PathBuf> {
    let Reached::Inside(folder) = reached else {
        return None;
    };
    if folder.kind != EntryKind::Folder || folder.inside.is_some() {
        return None;
    }
    let (source, real, name) = (source.clone(), folder.real, name.to_os_string());
    let place = canopy_core::bounded::Place::path(&real);
    canopy_core::bounded::call(place, TIME_BUDGET, move |_| {
        use canopy_core::source::{Source, SourceFolder};
        let dir = source.open_folder(&real).ok()?;
        let meta = dir.stat_child(name.as_bytes(), false).ok()?;
        (meta.kind == EntryKind::Symlink).then(|| real.join(&name))
    })
    .ok()
    .flatten()
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
pub fn confine_links(listing: &mut Listing, real: &Path, roots: &[PathBuf], source: &AgentSource) {
    match source {
        Either::Left(_) => canopy_core::confine_links(listing, real, roots),
        Either::Right(server) => {
            let deadline = std::time::Instant::now() + TIME_BUDGET * RESOLVE_SHARE_PERCENT / 100;
            canopy_core::confine_links_with(listing, real, deadline, |p| {
                remote_leads(server, p, roots)
            });
        }
    }
}

/// The real path of the folder `path` on the server (a `--root`).
///
/// # Errors
/// As [`SftpFs::real_path`], and `NOT_A_DIRECTORY` for anything but a folder.
pub fn real_remote_folder(server: &SftpFs, path: &Path) -> Result<PathBuf, CanopyError> {
    let (real, meta, _) = server.real_path(path)?;
    if meta.kind != EntryKind::Folder {
        return Err(CanopyError::new(ErrorCode::NotADirectory, "not a folder"));
    }
    Ok(real)
}

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
    /// The confined local source that opens archives (see [`agent_source`]).
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
    canopy_core::list(&call.source, &opened.path(), &settings, &engine_call)
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
    canopy_core::preview(source, &opened.path(), offset, length)
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
    canopy_core::read_lines(source, &opened.path(), window, max_bytes)
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
