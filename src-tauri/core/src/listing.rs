//! The capped recursive listing: what a folder holds, to a depth, with exact
//! counts of everything not shown.
//!
//! Promises:
//! - every entry of every folder read is either shown or counted in
//!   `unlisted` (`shown + unlisted == total`), unless a time budget cut the read
//!   short, which is then said (`TIMEOUT`, `countIsLowerBound`);
//! - a folder below the root keeps only its best `cap` candidates while it
//!   streams, so a folder of a million entries costs O(cap) memory; the rest
//!   are counted from their names and `d_type`, never stat'ed;
//! - only directories are opened; size, time and link targets are read only
//!   for shown entries;
//! - below the root nothing fails the listing: an error lands on its entry.

use std::cmp::Ordering;
use std::ffi::OsStr;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};
use std::time::{Duration, Instant};

use crate::cancel::CancelToken;
use crate::cursor::{self, PageSettings, SortPosition};
use crate::dirio::{Dir, IoHooks, RawEntry};
use crate::error::{code_of, CanopyError, ErrorCode};
use crate::limits::{DEFAULT_DEPTH, MAX_DEPTH, MAX_PAGE, NESTED_CAP, PAGE, TIME_BUDGET};
use crate::names::{decode_handle, encode_handle, DisplayName};
use crate::order::{compare_entries, starts_with_folded, Group};
use crate::select::{group_of, kind_of, select, Candidate, Reading, Stop, Window};
use crate::wire::{
    Crumb, Entry, EntryKind, Folder, KindCounts, LinkInfo, LinkTarget, ListRequest, Listing, LocateRequest,
    Located, RootSpec, Startup,
};

/// How to list. Build with `ListOptions::default()` and adjust.
#[derive(Debug, Clone)]
pub struct ListOptions {
    /// Levels to read, 1..=`MAX_DEPTH`.
    pub depth: u32,
    /// First entry of the root's page, in the folder's order.
    pub offset: u64,
    /// Size of the root's page; `None` lists the whole top level (and holds
    /// every name of it in memory to sort them).
    pub limit: Option<u64>,
    /// A cursor from an earlier reply's `nextCursor`: the page is the `limit`
    /// entries after it (then `offset` must be 0).
    pub after: Option<String>,
    /// Entries shown per folder below the root.
    pub cap: u32,
    pub show_dotfiles: bool,
    /// Longest read of any one folder.
    pub budget: Duration,
    pub cancel: Option<CancelToken>,
    pub hooks: IoHooks,
    /// Echoed in the reply.
    pub request_id: u64,
    /// Read size and modified time of shown entries (a `stat` each). Text
    /// mode prints neither and turns this off; symlinks are always resolved.
    pub details: bool,
    /// Issue a handle for each entry. Text mode prints none and turns this
    /// off (entries then carry an empty handle); the root's is always issued.
    pub handles: bool,
}

impl Default for ListOptions {
    fn default() -> Self {
        ListOptions {
            depth: DEFAULT_DEPTH,
            offset: 0,
            limit: Some(PAGE as u64),
            after: None,
            cap: NESTED_CAP,
            show_dotfiles: true,
            budget: TIME_BUDGET,
            cancel: None,
            hooks: IoHooks::default(),
            request_id: 0,
            details: true,
            handles: true,
        }
    }
}

struct Ctx<'a> {
    depth: u32,
    cap: usize,
    show_dotfiles: bool,
    budget: Duration,
    cancel: Option<&'a CancelToken>,
    hooks: &'a IoHooks,
    details: bool,
    handles: bool,
}

impl Ctx<'_> {
    fn reading(&self) -> Reading<'_> {
        Reading { show_dotfiles: self.show_dotfiles, deadline: Instant::now() + self.budget, cancel: self.cancel }
    }
}

fn is_dotfile(name: &[u8]) -> bool {
    name.first() == Some(&b'.')
}

fn entry_error(err: &io::Error, doing: &str) -> CanopyError {
    if code_of(err) == ErrorCode::NotFound {
        CanopyError::new(ErrorCode::NotFound, "it disappeared while the folder was being listed")
    } else {
        CanopyError::from_io(err, doing)
    }
}

fn timeout_error(budget: Duration) -> CanopyError {
    CanopyError::new(
        ErrorCode::Timeout,
        format!("reading this folder took longer than {} ms; showing what was read by then", budget.as_millis()),
    )
}

fn lost_page_error(budget: Duration) -> CanopyError {
    CanopyError::new(
        ErrorCode::Timeout,
        format!("finding this page took longer than {} ms; no entries are shown rather than the wrong ones", budget.as_millis()),
    )
}

/// One folder read through: its wire form, an error for its owner entry
/// (read failure, timeout), and the sort position of its last shown entry.
struct Read {
    folder: Folder,
    error: Option<CanopyError>,
    last: Option<SortPosition>,
}

/// Reads one folder's contents (and, below the depth limit, its subfolders').
/// `level` is the level of the folder's entries (the root's entries are 1).
fn read_folder(dir: &Dir, dir_path: &Path, level: u32, window: Window<'_>, ctx: &Ctx<'_>) -> Result<Read, Stop> {
    let sel = select(dir, window, &ctx.reading())?;
    let p = &sel.pass;
    let mut error = None;
    if sel.lost_page && !p.timed_out {
        error = p.failed.as_ref().map(|e| CanopyError::from_io(e, "reading the folder failed part way"));
    }
    if sel.lost_page && error.is_none() {
        error = Some(lost_page_error(ctx.budget));
    } else if p.timed_out {
        error = Some(timeout_error(ctx.budget));
    } else if let Some(e) = &p.failed {
        if p.total == 0 {
            return Ok(Read {
                folder: Folder::unread(),
                error: Some(CanopyError::from_io(e, "cannot read folder")),
                last: None,
            });
        }
        error = Some(CanopyError::from_io(e, "reading the folder failed part way"));
    }
    if let Some(hook) = &ctx.hooks.after_scan {
        hook(dir_path);
    }
    let mut shown_counts = KindCounts::default();
    for cand in &sel.page {
        shown_counts.add(cand.kind);
    }
    let last = sel.page.last().map(Candidate::position);
    // One thread on purpose: reading sibling folders on two threads was
    // measured slower here (more CPU in kernel locks and malloc arenas).
    let entries = sel.page.iter().map(|cand| describe(dir, dir_path, cand, level, ctx)).collect::<Result<Vec<_>, _>>()?;
    let partial = p.timed_out || p.failed.is_some();
    let folder = Folder {
        total: Some(p.total),
        children_loaded: true,
        offset: sel.offset,
        entries,
        unlisted: p.counts.minus(&shown_counts),
        dotfiles_hidden: p.dotfiles_hidden,
        count_is_lower_bound: partial,
        partial_order: partial,
    };
    Ok(Read { folder, error, last })
}

fn link_info(dir: &Dir, name: &[u8]) -> (Option<LinkInfo>, Option<CanopyError>) {
    let target = match dir.read_link(name) {
        Ok(t) => t,
        Err(e) => return (None, Some(entry_error(&e, "cannot read the link"))),
    };
    let points_to = match dir.stat_child(name, true) {
        Ok(meta) => match meta.kind {
            EntryKind::Folder => LinkTarget::Folder,
            EntryKind::File => LinkTarget::File,
            _ => LinkTarget::Other,
        },
        Err(e) => match e.raw_os_error() {
            Some(libc::ENOENT) | Some(libc::ENOTDIR) => LinkTarget::Dangling,
            Some(libc::ELOOP) => LinkTarget::Loop,
            _ => LinkTarget::Unknown,
        },
    };
    let shown = DisplayName::new(&target);
    (Some(LinkInfo { target: shown.text, target_parts: shown.parts, points_to }), None)
}

fn named_entry(name: &[u8], path: Option<&Path>, kind: EntryKind) -> Entry {
    let shown = DisplayName::new(name);
    Entry {
        name: shown.text,
        name_lossy: shown.lossy.then_some(true),
        name_parts: shown.parts,
        handle: path.map(encode_handle).unwrap_or_default(),
        kind,
        size: None,
        modified: None,
        link: None,
        error: None,
        folder: None,
    }
}

fn describe(dir: &Dir, dir_path: &Path, cand: &Candidate, level: u32, ctx: &Ctx<'_>) -> Result<Entry, Stop> {
    // The full path is needed for a handle, and to name a folder's children.
    let path = (ctx.handles || cand.kind == EntryKind::Folder).then(|| dir_path.join(OsStr::from_bytes(&cand.name)));
    let mut entry = named_entry(&cand.name, path.as_deref().filter(|_| ctx.handles), cand.kind);
    if ctx.details {
        match dir.stat_child(&cand.name, false) {
            Ok(meta) => {
                entry.size = Some(meta.size);
                entry.modified = Some(meta.modified_ms);
            }
            Err(e) => entry.error = Some(entry_error(&e, "cannot read its details")),
        }
    }
    let vanished = entry.error.as_ref().is_some_and(|e| e.code == ErrorCode::NotFound);
    match cand.kind {
        EntryKind::Symlink if !vanished => {
            let (link, err) = link_info(dir, &cand.name);
            entry.link = link.map(Box::new);
            entry.error = entry.error.or(err);
        }
        EntryKind::Folder => {
            entry.folder = Some(Box::new(Folder::unread()));
            if level < ctx.depth && !vanished {
                match dir.open_child(&cand.name, ctx.hooks) {
                    Ok(child) => {
                        let child_path = path.as_deref().unwrap_or(dir_path);
                        let window = Window::At { offset: 0, limit: ctx.cap as u64 };
                        let read = read_folder(&child, child_path, level + 1, window, ctx)?;
                        entry.folder = Some(Box::new(read.folder));
                        entry.error = read.error.or(entry.error);
                    }
                    Err(e) => entry.error = Some(entry_error(&e, "cannot open folder")),
                }
            }
        }
        _ => {}
    }
    Ok(entry)
}

/// Turns what a person typed or a handle into an absolute path.
///
/// `~` and `~/…` expand to the home folder; a relative path is taken from the
/// current folder; a path with `..` is resolved by the filesystem.
///
/// # Errors
/// `INVALID_ARGUMENT` for empty text, NUL bytes or an undecodable handle;
/// the filesystem's code when `..` cannot be resolved.
pub fn resolve_root(spec: &RootSpec) -> Result<PathBuf, CanopyError> {
    let raw = match spec {
        RootSpec::Handle(h) => decode_handle(h)?,
        RootSpec::Text(t) => {
            if t.is_empty() {
                return Err(CanopyError::invalid("the path is empty"));
            }
            if t.contains('\0') {
                return Err(CanopyError::invalid("the path contains a NUL character"));
            }
            expand_home(t)
        }
    };
    absolute(&raw)
}

fn expand_home(text: &str) -> PathBuf {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    match (text, home) {
        ("~", Some(home)) => home,
        (t, Some(home)) if t.starts_with("~/") => home.join(&t[2..]),
        (t, _) => PathBuf::from(t),
    }
}

fn absolute(path: &Path) -> Result<PathBuf, CanopyError> {
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().map_err(|e| CanopyError::from_io(&e, "cannot find the current folder"))?.join(path)
    };
    if joined.components().any(|c| c == Component::ParentDir) {
        return std::fs::canonicalize(&joined).map_err(|e| CanopyError::from_io(&e, "cannot open folder"));
    }
    // Drops `.` components and trailing slashes.
    Ok(joined.components().collect())
}

fn crumbs_of(path: &Path) -> Vec<Crumb> {
    let mut crumbs: Vec<Crumb> = path
        .ancestors()
        .map(|p| Crumb {
            name: p.file_name().map_or_else(|| p.to_string_lossy().into_owned(), |n| n.to_string_lossy().into_owned()),
            handle: encode_handle(p),
        })
        .collect();
    crumbs.reverse();
    crumbs
}

/// Lists the folder at `root` (an absolute path; a symlink is followed).
///
/// A page past the end of the folder is not an error: it is empty and says
/// the folder's true total (folders shrink between pages).
///
/// # Errors
/// `INVALID_ARGUMENT` for a depth outside 1..=`MAX_DEPTH`, a zero cap or page,
/// a cursor that is not Canopy's or was made under other settings, or a
/// cursor together with an offset; the root's own code when it cannot be
/// listed (`NOT_FOUND`, `DENIED`, `NOT_A_DIRECTORY`, `LOOP`, `NAME_TOO_LONG`,
/// `IO`); `CANCELLED` when `cancel` fired.
pub fn list(root: &Path, opts: &ListOptions) -> Result<Listing, CanopyError> {
    if opts.depth == 0 || opts.depth > MAX_DEPTH {
        return Err(CanopyError::invalid(format!("depth must be 1 to {MAX_DEPTH}, not {}", opts.depth)));
    }
    if opts.cap == 0 {
        return Err(CanopyError::invalid("the per-folder cap must be at least 1"));
    }
    if opts.limit == Some(0) {
        return Err(CanopyError::invalid("the page size must be at least 1"));
    }
    let settings = PageSettings { show_dotfiles: opts.show_dotfiles };
    let after = match &opts.after {
        None => None,
        Some(_) if opts.offset != 0 => {
            return Err(CanopyError::invalid("give either a cursor or an offset, not both"));
        }
        Some(_) if opts.limit.is_none() => {
            return Err(CanopyError::invalid("a cursor continues a page; it cannot be used to list everything"));
        }
        Some(text) => Some(cursor::decode(text, settings)?),
    };
    let window = match (&after, opts.limit) {
        (Some(key), Some(limit)) => Window::After { key, limit },
        (_, Some(limit)) => Window::At { offset: opts.offset, limit },
        (_, None) if opts.offset == 0 => Window::Everything,
        (_, None) => Window::At { offset: opts.offset, limit: u64::MAX },
    };
    let ctx = Ctx {
        depth: opts.depth,
        cap: opts.cap as usize,
        show_dotfiles: opts.show_dotfiles,
        budget: opts.budget,
        cancel: opts.cancel.as_ref(),
        hooks: &opts.hooks,
        details: opts.details,
        handles: opts.handles,
    };
    let dir = Dir::open_path(root, &opts.hooks).map_err(|e| CanopyError::from_io(&e, "cannot open folder"))?;
    let read = match read_folder(&dir, root, 1, window, &ctx) {
        Ok(r) => r,
        Err(Stop::Cancelled) => return Err(CanopyError::cancelled()),
    };
    let Read { folder, error, last } = read;
    if folder.total.is_none() {
        // The root could be opened but not read: that fails the call.
        return Err(error.unwrap_or_else(|| CanopyError::new(ErrorCode::Io, "cannot read folder")));
    }
    let total = folder.total.unwrap_or(0);
    let more = folder.offset + (folder.entries.len() as u64) < total;
    let next_cursor = match last {
        Some(last) if more && opts.limit.is_some() && !folder.partial_order => Some(cursor::encode(settings, &last)),
        _ => None,
    };
    let name = root.file_name().map_or(root.as_os_str().as_bytes(), |n| n.as_bytes());
    let mut entry = named_entry(name, Some(root), EntryKind::Folder);
    if let Ok(meta) = dir.stat_self() {
        entry.size = Some(meta.size);
        entry.modified = Some(meta.modified_ms);
    }
    entry.error = error;
    entry.folder = Some(Box::new(folder));
    Ok(Listing {
        request_id: opts.request_id,
        path: root.to_string_lossy().into_owned(),
        crumbs: crumbs_of(root),
        depth: opts.depth,
        show_dotfiles: opts.show_dotfiles,
        root: entry,
        next_cursor,
    })
}

/// Runs a `list_directory` request as the UI sends it.
///
/// # Errors
/// As [`list`], plus `INVALID_ARGUMENT` for a page outside 1..=`MAX_PAGE`.
pub fn list_request(req: &ListRequest, cancel: Option<CancelToken>, hooks: IoHooks) -> Result<Listing, CanopyError> {
    if req.limit == 0 || req.limit > MAX_PAGE {
        return Err(CanopyError::invalid(format!("limit must be 1 to {MAX_PAGE}, not {}", req.limit)));
    }
    if req.depth == 0 || req.depth > MAX_DEPTH {
        return Err(CanopyError::invalid(format!("depth must be 1 to {MAX_DEPTH}, not {}", req.depth)));
    }
    let root = resolve_root(&req.root)?;
    let opts = ListOptions {
        depth: req.depth,
        offset: req.offset,
        after: req.after.clone(),
        limit: Some(req.limit as u64),
        show_dotfiles: req.show_dotfiles,
        cancel,
        hooks,
        request_id: req.request_id,
        ..ListOptions::default()
    };
    list(&root, &opts)
}

/// Finds where a name prefix falls in a folder's order (for type-ahead).
///
/// Two passes over the folder, O(1) memory: the first finds the smallest
/// name starting with the prefix (folders first), the second counts the
/// entries before it.
///
/// # Errors
/// `INVALID_ARGUMENT` for a bad handle; the folder's code when it cannot be
/// read; `TIMEOUT` when a pass exceeds the time budget.
pub fn locate(req: &LocateRequest, hooks: &IoHooks) -> Result<Located, CanopyError> {
    let path = decode_handle(&req.folder)?;
    let dir = Dir::open_path(&path, hooks).map_err(|e| CanopyError::from_io(&e, "cannot open folder"))?;
    let prefix = req.prefix.as_bytes();
    let keep = |name: &[u8]| req.show_dotfiles || !is_dotfile(name);

    let mut best: Option<(Group, Vec<u8>)> = None;
    let mut total = 0u64;
    pass(&dir, |raw, kind| {
        if !keep(raw.name) {
            return;
        }
        total += 1;
        if !starts_with_folded(raw.name, prefix) {
            return;
        }
        let group = group_of(kind);
        let better = match &best {
            None => true,
            Some((g, n)) => compare_entries(group, raw.name, *g, n) == Ordering::Less,
        };
        if better {
            best = Some((group, raw.name.to_vec()));
        }
    })?;
    let matched = best.is_some();
    let (tg, tn) = best.unwrap_or((Group::Other, prefix.to_vec()));
    let mut index = 0u64;
    pass(&dir, |raw, kind| {
        if keep(raw.name) && compare_entries(group_of(kind), raw.name, tg, &tn) == Ordering::Less {
            index += 1;
        }
    })?;
    Ok(Located { index, matched, total })
}

fn pass(dir: &Dir, mut each: impl FnMut(&RawEntry<'_>, EntryKind)) -> Result<(), CanopyError> {
    let start = Instant::now();
    let mut entries = dir.entries(Vec::new()).map_err(|(e, _)| CanopyError::from_io(&e, "cannot read folder"))?;
    let mut f = |raw: RawEntry<'_>| {
        let kind = kind_of(dir, &raw);
        each(&raw, kind);
    };
    while entries.next_batch(&mut f).map_err(|e| CanopyError::from_io(&e, "cannot read folder"))? {
        if start.elapsed() > TIME_BUDGET {
            return Err(timeout_error(TIME_BUDGET));
        }
    }
    Ok(())
}

/// What `canopy PATH` opens: a folder opens as itself; anything else opens
/// its folder with it selected; no argument opens the home folder. A path that
/// does not exist is opened anyway, so the window shows its error.
pub fn startup_from_arg(arg: Option<std::ffi::OsString>) -> Startup {
    let Some(arg) = arg else {
        return Startup { folder: RootSpec::Text("~".into()), select: None };
    };
    let path = absolute(Path::new(&arg)).unwrap_or_else(|_| PathBuf::from(&arg));
    let is_dir = std::fs::metadata(&path).is_ok_and(|m| m.is_dir());
    let exists = std::fs::symlink_metadata(&path).is_ok();
    match path.parent() {
        Some(parent) if exists && !is_dir => Startup {
            folder: RootSpec::Handle(encode_handle(parent)),
            select: Some(encode_handle(&path)),
        },
        _ => Startup { folder: RootSpec::Handle(encode_handle(&path)), select: None },
    }
}
