//! The capped listing: what a folder holds, to a depth, with exact counts of
//! everything not shown, at a cost bounded by what it shows.
//!
//! Promises:
//! - every entry of every folder read is either shown or counted in
//!   `unlisted` (`shown + unlisted == total`), unless a time budget cut the read
//!   short, which is then said (`TIMEOUT`, `countIsLowerBound`);
//! - the root's page is chosen in bounded memory at any offset or cursor
//!   (see [`crate::select`]); a folder below the root keeps only its best
//!   `cap` candidates while it streams; the rest are counted from their names
//!   and `d_type`, never stat'ed;
//! - only directories are opened; size, time and link targets are read only
//!   for shown entries;
//! - below the root nothing fails the listing: an error lands on its entry.
//!
//! **The request budget.** Folders are read breadth-first: every folder at
//! level L (and the `stat`/`readlink` of its shown entries) before any at
//! level L+1. Before a folder below the root is opened, the request must
//! still have room for it: the entries shown so far plus the folder's cap
//! within `MAX_REPLY_ENTRIES`, fewer than `MAX_NAMES_READ` names read, and
//! time left of `REQUEST_TIME`. A folder that does not fit is not opened and
//! carries `BUDGET` (the message says which budget); a folder once started is
//! read to its end, so its count stays exact. The root is never cut by the
//! entries or names budget, and the passes of its selection count once.
//! Each folder also has its own `TIME_BUDGET`, the describe phase included.
//!
//! **Dead mounts.** The walk runs on a worker of [`crate::bounded`]. Each
//! folder (open, `fstat`, reads, and the describe phase) is one step, at its
//! entry in the parent, its path and its device. A step that does not return
//! in time is left behind: that folder gets `TIMEOUT` ("not responding") and
//! the walk goes on from the next folder on a fresh worker. A step at a place
//! already stuck fails at once. A symlink is followed as a step of its own,
//! on another worker (its target may be on another, dead, device): a link
//! into a dead mount costs that link `TIMEOUT`, not its folder.
//!
//! File descriptors: a folder's descriptor is kept only while children of it
//! wait to be opened (relative to it, with `O_NOFOLLOW`), and the soft limit
//! on open files is raised to the hard limit once per process.
//!
//! **Order, filter, ignore rules** ([`ListSettings`]' `sort`, `reverse`,
//! `filter`, `hideIgnored`). The order
//! ([`crate::order`]) applies to every folder of the reply: the first `cap`
//! of a nested folder and every page of the root are the first under that
//! order over the whole folder (a size order shows the largest, not the
//! largest of those loaded), chosen by the same bounded streaming selection.
//! The size and modified orders `lstat` every entry during that selection,
//! on the folder's worker, within `STAT_TIME_SHARE_PERCENT` of its time:
//! when that share runs out the rest sort last and the folder says how many
//! were placed (`partialOrder`, `checked` of `total`). The filter
//! ([`crate::filter`]) applies to the root's entries only (a nested folder's
//! filter is a request of its own, with that folder as the root): `total`
//! becomes the match count and `unfilteredTotal` the folder's own count.
//! Hiding ignored entries ([`crate::ignore_rules`]) applies to every folder,
//! each of which says how many it hid (`ignoredHidden`, `.git` among them);
//! an ignored folder is neither shown nor read, and matching that outlasts
//! the folder's deadline cuts its read short as a slow disk does (`TIMEOUT`).
//! The cursor carries these four and the dotfile setting.
//!
//! **What the rest is made of.** Every folder reports the groups of the
//! entries after its page (`rest`: folders, then extensions, counted from
//! the names while they are read, no `stat`; see [`crate::rest`]).
//! `canopy-list` text mode turns the count off unless asked (`summary`).
//!
//! The front door: [`list`]`(source, root, &ListSettings, &ListCall)` (or
//! [`list_request`] for a [`ListRequest`] as the window sends it); the walk
//! reads folders only through the [`Source`] it is given.
#![forbid(unsafe_code)]

use std::collections::VecDeque;
use std::ffi::OsStr;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crate::bounded::{self, Place, Watch};
use crate::cancel::CancelToken;
use crate::cpu_work::CpuWork;
use crate::cursor::{self, SortPosition};
use crate::error::{code_of, CanopyError, ErrorCode};
use crate::filter::{Excludes, NameFilter};
use crate::ignore_pattern::Meter;
use crate::ignore_rules::IgnoreRules;
use crate::limits::{
    LINK_FOLDER_TIME, MAX_DEPTH, MAX_NAMES_READ, MAX_PAGE, MAX_REPLY_ENTRIES, REQUEST_TIME,
    STAT_TIME_SHARE_PERCENT, TIME_BUDGET,
};
use crate::names::{encode_handle, DisplayName};
use crate::order::Order;
use crate::select::{select, Candidate, Reading, Selection, Stop, Window};
use crate::source::{Identity, Meta, Observer, Source, SourceFolder};
use crate::wire::{
    ArchiveFormat, Crumb, Entry, EntryKind, Folder, KindCounts, LinkInfo, LinkTarget, ListRequest,
    ListSettings, Listing,
};

/// What one request may spend in all (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RequestBudget {
    /// Entries shown in the reply.
    pub entries: u64,
    /// Names read from the kernel.
    pub names: u64,
    /// Time in all; `None`: no limit besides each folder's own.
    pub time: Option<Duration>,
}

impl RequestBudget {
    /// The limits every request of the window and of `canopy-list` has.
    pub const STANDARD: RequestBudget = RequestBudget {
        entries: MAX_REPLY_ENTRIES,
        names: MAX_NAMES_READ,
        time: Some(REQUEST_TIME),
    };
    /// No request budget (`canopy-list --all`); each folder keeps its time budget.
    pub const UNLIMITED: RequestBudget = RequestBudget {
        entries: u64::MAX,
        names: u64::MAX,
        time: None,
    };
}

/// What one call to [`list`] asks besides its [`ListSettings`]: where the
/// root's page starts, who can stop it and who watches it, what the reply
/// holds, and what it may spend. Build with `ListCall::default()` and adjust.
#[derive(Clone)]
pub struct ListCall {
    /// First entry of the root's page, in the folder's order.
    pub offset: u64,
    /// A cursor from an earlier reply's `nextCursor`: the page is the
    /// `limit` entries after it (then `offset` must be 0).
    pub after: Option<String>,
    /// List the whole top level instead of a page of `limit` (`canopy-list
    /// --all`; every name of it is held in memory to sort them).
    pub whole_top_level: bool,
    /// Echoed in the reply.
    pub request_id: u64,
    pub cancel: Option<CancelToken>,
    /// Told of each folder read, on the engine's workers.
    pub observer: Option<Arc<dyn Observer>>,
    /// Read size and modified time of shown entries (a `stat` each). Text
    /// mode prints neither and turns this off; symlinks are always resolved.
    pub details: bool,
    /// Issue a handle for each entry. Text mode prints none and turns this
    /// off (entries then carry an empty handle); the root's is always issued.
    pub handles: bool,
    /// Count what each folder's rest is made of (`rest`). Text mode turns
    /// this off unless `--summary`.
    pub summary: bool,
    /// Longest read of any one folder (the describe phase included).
    pub budget: Duration,
    /// What the whole request may spend.
    pub request: RequestBudget,
    /// The object the root must be (found by an earlier look, e.g.
    /// canopy-mcp's check inside its roots): a root that is another one
    /// when opened fails (`NOT_FOUND`), so a reply and the cursor bound to
    /// that look never describe two different folders.
    pub expect_root: Option<Identity>,
    /// Descend into archives within the depth as into folders (an archive
    /// counts as one level): `canopy-list --archives`. Off, an archive is
    /// an entry that is never opened by the walk.
    pub archives: bool,
    /// Names left out of every folder, counted with the ignored
    /// (`ignoredHidden`); the cursor does not carry them.
    pub exclude: Option<Arc<Excludes>>,
}

impl Default for ListCall {
    fn default() -> Self {
        ListCall {
            offset: 0,
            after: None,
            whole_top_level: false,
            request_id: 0,
            cancel: None,
            observer: None,
            details: true,
            handles: true,
            summary: true,
            budget: TIME_BUDGET,
            request: RequestBudget::STANDARD,
            expect_root: None,
            archives: false,
            exclude: None,
        }
    }
}

impl std::fmt::Debug for ListCall {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ListCall")
            .field("offset", &self.offset)
            .field("after", &self.after)
            .field("whole_top_level", &self.whole_top_level)
            .field("request_id", &self.request_id)
            .field("observer", &self.observer.is_some())
            .field("details", &self.details)
            .field("handles", &self.handles)
            .field("summary", &self.summary)
            .field("budget", &self.budget)
            .field("request", &self.request)
            .field("expect_root", &self.expect_root)
            .field("archives", &self.archives)
            .field("exclude", &self.exclude)
            .finish()
    }
}

/// The root's page, owned (the walk runs on another thread).
enum RootWindow {
    At { offset: u64, limit: u64 },
    After { key: SortPosition, limit: u64 },
    Everything,
}

impl RootWindow {
    fn window(&self) -> Window<'_> {
        match self {
            RootWindow::At { offset, limit } => Window::At {
                offset: *offset,
                limit: *limit,
            },
            RootWindow::After { key, limit } => Window::After { key, limit: *limit },
            RootWindow::Everything => Window::Everything,
        }
    }
}

/// What every step of one listing reads.
struct Settings<S: Source> {
    source: S,
    root: PathBuf,
    window: RootWindow,
    /// What the request asked (the root's cursor carries it).
    settings: ListSettings,
    call: ListCall,
    /// When the request's time is up.
    request_deadline: Option<Instant>,
    /// `settings`' order and the root's filter, parsed.
    order: Order,
    filter: Option<NameFilter>,
    /// The source is read over a link: each batch is a step of its own.
    paced: bool,
}

impl<S: Source> Settings<S> {
    fn cancelled(&self) -> bool {
        self.call
            .cancel
            .as_ref()
            .is_some_and(CancelToken::is_cancelled)
    }

    /// A folder started now must be done by then: its own time budget, or
    /// over a link ([`Source::paced`]) the request's time.
    fn folder_deadline(&self) -> Instant {
        let now = Instant::now();
        if self.paced {
            return self
                .request_deadline
                .unwrap_or_else(|| now + LINK_FOLDER_TIME);
        }
        let own = now + self.call.budget;
        self.request_deadline.map_or(own, |r| r.min(own))
    }

    /// A step (a call, or over a link one batch or one entry's details)
    /// started now must end by then.
    fn step_deadline(&self) -> Instant {
        if self.paced {
            Instant::now() + self.call.budget
        } else {
            self.folder_deadline()
        }
    }

    /// The time a folder had when its read was cut short: its own budget,
    /// or over a link the request's.
    fn time_spent(&self) -> Duration {
        match self.call.request.time {
            Some(request) if self.paced => request,
            None if self.paced => LINK_FOLDER_TIME,
            _ => self.call.budget,
        }
    }

    /// Over a link, gives the next call of the current step its own time.
    fn renew(&self, watch: &Watch) {
        if self.paced {
            watch.renew(self.step_deadline());
        }
    }
}

/// When a stat scan started now must stop, to leave time for the names
/// before `deadline` (see `STAT_TIME_SHARE_PERCENT`).
pub(crate) fn stat_deadline(deadline: Instant) -> Instant {
    let now = Instant::now();
    now + deadline.saturating_duration_since(now) * STAT_TIME_SHARE_PERCENT / 100
}

/// Where a folder's reply goes: entry `entry` of the folder read as `node`.
#[derive(Debug, Clone, Copy)]
struct Slot {
    node: usize,
    entry: usize,
}

/// A folder waiting for its turn.
struct Pending<F> {
    parent: Arc<F>,
    parent_id: Identity,
    name: Box<[u8]>,
    path: PathBuf,
    level: u32,
    slot: Slot,
    /// The parent's ignore rules, when ignored entries are hidden.
    rules: Option<Arc<IgnoreRules>>,
    /// It is an archive, opened by its path (`ListCall::archives`).
    archive: bool,
}

/// A folder that was read, and where it goes.
struct Node {
    folder: Folder,
    error: Option<CanopyError>,
    slot: Option<Slot>,
}

/// The state of one breadth-first walk, shared by the caller and the
/// worker(s) running it; a given-up worker publishes nothing.
struct Walk<F> {
    queue: VecDeque<Pending<F>>,
    /// Node 0 is the root.
    nodes: Vec<Node>,
    /// Errors for folders that were not read (budget, not responding, cannot open).
    marks: Vec<(Slot, CanopyError)>,
    shown: u64,
    names_read: u64,
    /// The folder being read now.
    current: Option<Slot>,
    /// Bumped when a worker is given up; its later commits are refused.
    generation: u64,
    root_meta: Option<Meta>,
    /// The archive file the root lies in (or is), and its format.
    root_archive: Option<(PathBuf, ArchiveFormat)>,
    next_cursor: Option<String>,
}

impl<F> Default for Walk<F> {
    fn default() -> Self {
        Walk {
            queue: VecDeque::new(),
            nodes: Vec::new(),
            marks: Vec::new(),
            shown: 0,
            names_read: 0,
            current: None,
            generation: 0,
            root_meta: None,
            root_archive: None,
            next_cursor: None,
        }
    }
}

fn lock<F>(walk: &Mutex<Walk<F>>) -> MutexGuard<'_, Walk<F>> {
    walk.lock().unwrap_or_else(|e| e.into_inner())
}

fn entry_error(err: &io::Error, doing: &str) -> CanopyError {
    if code_of(err) == ErrorCode::NotFound {
        CanopyError::new(
            ErrorCode::NotFound,
            "it disappeared while the folder was being listed",
        )
    } else {
        CanopyError::from_io(err, doing)
    }
}

fn timeout_error(budget: Duration) -> CanopyError {
    CanopyError::new(
        ErrorCode::Timeout,
        format!(
            "reading this folder took longer than {} ms; showing what was read by then",
            budget.as_millis()
        ),
    )
}

fn lost_page_error(budget: Duration) -> CanopyError {
    CanopyError::new(
        ErrorCode::Timeout,
        format!("finding this page took longer than {} ms; no entries are shown rather than the wrong ones", budget.as_millis()),
    )
}

fn details_timeout_error(budget: Duration) -> CanopyError {
    CanopyError::new(
        ErrorCode::Timeout,
        format!(
            "examining the shown entries took longer than {} ms; some are shown without details",
            budget.as_millis()
        ),
    )
}

/// One folder read: its wire form, an error for its owner entry, the
/// subfolders to read next (entry index, name, path), and the position of
/// its last shown entry.
struct FolderRead {
    folder: Folder,
    error: Option<CanopyError>,
    subfolders: Vec<(usize, Box<[u8]>, PathBuf)>,
    last: Option<SortPosition>,
    names_read: u64,
    /// This folder's ignore rules, for its subfolders.
    rules: Option<Arc<IgnoreRules>>,
}

/// How one folder is read: its page, and the filter and ignore rules that
/// apply to its entries.
struct FolderPlan<'a> {
    window: Window<'a>,
    filter: Option<&'a NameFilter>,
    rules: Option<Arc<IgnoreRules>>,
    /// Why an ignore file of this folder could not be used.
    rules_problem: Option<CanopyError>,
}

/// Chooses an open folder's page and describes its shown entries, all by `deadline`.
#[allow(clippy::too_many_arguments)]
fn read_open<S: Source>(
    dir: &Arc<S::Folder>,
    id: Identity,
    path: &Path,
    level: u32,
    plan: FolderPlan<'_>,
    deadline: Instant,
    s: &Settings<S>,
    watch: &Watch,
) -> Result<FolderRead, Stop> {
    // Inside an archive, reading a folder is CPU work on its index (each
    // read of the archive's file is made through `cpu_work::blocking`): past
    // the step's deadline it is given up with nothing marked stuck.
    let _work = dir.in_archive().then(CpuWork::start);
    let renew = || s.renew(watch);
    let rd = Reading {
        show_dotfiles: s.settings.show_dotfiles,
        deadline,
        stat_deadline: stat_deadline(deadline),
        cancel: s.call.cancel.as_ref(),
        order: s.order,
        filter: plan.filter,
        rules: plan.rules.as_deref(),
        exclude: s.call.exclude.as_deref(),
        tally: s.call.summary,
        before_call: s.paced.then_some(&renew as &dyn Fn()),
    };
    let sel: Selection = select(&**dir, plan.window, &rd)?;
    let p = &sel.pass;
    let names_read = p.names_read;
    let mut error = None;
    if sel.lost_page {
        error = Some(match &p.failed {
            Some(e) if !p.timed_out => {
                CanopyError::from_io(e, "reading the folder failed part way")
            }
            _ => lost_page_error(s.time_spent()),
        });
    } else if p.timed_out && s.paced {
        error = Some(CanopyError::new(
            ErrorCode::Timeout,
            format!(
                "the request's time ({} ms) ran out while this folder was read over the link; \
                 showing what was read by then (the count is a lower bound)",
                s.time_spent().as_millis()
            ),
        ));
    } else if p.timed_out {
        error = Some(timeout_error(s.time_spent()));
    } else if let Some(e) = &p.failed {
        if p.total == 0 {
            return Ok(FolderRead {
                folder: Folder::unread(),
                error: Some(CanopyError::from_io(e, "cannot read folder")),
                subfolders: Vec::new(),
                last: None,
                names_read,
                rules: None,
            });
        }
        error = Some(CanopyError::from_io(
            e,
            "reading the folder failed part way",
        ));
    }
    if let Some(observer) = &s.call.observer {
        observer.folder_read(path, names_read);
    }
    let mut shown_counts = KindCounts::default();
    for cand in &sel.page {
        shown_counts.add(cand.kind);
    }
    let last = sel.page.last().map(Candidate::position);
    let mut late = false;
    let mut subfolders = Vec::new();
    let mut entries = Vec::with_capacity(sel.page.len());
    for (i, cand) in sel.page.iter().enumerate() {
        s.renew(watch);
        let (entry, descend) = describe(dir, id, path, cand, level, s, deadline, watch, &mut late);
        if let Some(child) = descend {
            subfolders.push((i, cand.name.clone(), child));
        }
        entries.push(entry);
    }
    if late && error.is_none() {
        error = Some(details_timeout_error(s.time_spent()));
    }
    let partial = p.timed_out || p.failed.is_some();
    let folder = Folder {
        total: Some(p.total),
        unfiltered_total: plan.filter.map(|_| p.unfiltered),
        children_loaded: true,
        offset: sel.offset,
        entries,
        unlisted: p.counts.minus(&shown_counts),
        kinds: p.counts,
        rest: if s.call.summary && !sel.lost_page {
            sel.rest.groups()
        } else {
            Vec::new()
        },
        dotfiles_hidden: p.dotfiles_hidden,
        ignored_hidden: p.ignored,
        count_is_lower_bound: partial,
        partial_order: partial || p.order_is_partial(),
        checked: s
            .order
            .needs_stat()
            .then(|| p.total.saturating_sub(p.unchecked)),
        sizes: None,
    };
    Ok(FolderRead {
        folder,
        error: error.or(plan.rules_problem),
        subfolders,
        last,
        names_read,
        rules: plan.rules,
    })
}

fn link_info<F: SourceFolder>(
    dir: &Arc<F>,
    id: Identity,
    name: &[u8],
    watch: &Watch,
) -> (Option<LinkInfo>, Option<CanopyError>) {
    let target = match dir.read_link(name) {
        Ok(t) => t,
        Err(e) => return (None, Some(entry_error(&e, "cannot read the link"))),
    };
    // The target may be on another device (a dead one): following it is a
    // step of its own, on another worker.
    let place = Place::Entry {
        dev: id.dev,
        ino: id.ino,
        name: name.into(),
    };
    let (folder, link) = (dir.clone(), Box::<[u8]>::from(name));
    let (points_to, error) = match watch.aside(place, move || folder.stat_child(&link, true)) {
        Ok(Ok(meta)) => match meta.kind {
            EntryKind::Folder => (LinkTarget::Folder, None),
            EntryKind::File => (LinkTarget::File, None),
            _ => (LinkTarget::Other, None),
        },
        Ok(Err(e)) => match e.raw_os_error() {
            Some(libc::ENOENT) | Some(libc::ENOTDIR) => (LinkTarget::Dangling, None),
            Some(libc::ELOOP) => (LinkTarget::Loop, None),
            _ => (LinkTarget::Unknown, None),
        },
        Err(e) => (LinkTarget::Unknown, Some(e)),
    };
    let shown = DisplayName::new(&target);
    (
        Some(LinkInfo {
            target: shown.text,
            target_parts: shown.parts,
            points_to,
        }),
        error,
    )
}

/// The path of the child `name` of `dir`. A name that is not one plain
/// segment (an archive entry's unsafe raw name: `..`, `a/b`, `/etc/passwd`)
/// is joined in its escaped one-line form, `/` as `\u{2f}` and a name of
/// dots as `\u{2e}`s: its path and handle lead nowhere but to a name no
/// entry has, never to its parent, a sibling or the root.
fn child_path(dir: &Path, name: &[u8]) -> PathBuf {
    if is_one_segment(name) {
        return dir.join(OsStr::from_bytes(name));
    }
    let mut text = crate::names::escape_for_line(name).replace('/', "\\u{2f}");
    if text.is_empty() {
        text = "\\u{0}".into();
    } else if text.bytes().all(|b| b == b'.') {
        text = text.replace('.', "\\u{2e}");
    }
    dir.join(text)
}

/// Whether `name` is one plain path segment: not empty, `.` or `..`, and
/// without a `/` or a NUL byte. A local folder never holds another kind; an
/// archive or a hostile server can send one.
pub(crate) fn is_one_segment(name: &[u8]) -> bool {
    !name.is_empty() && name != b"." && name != b".." && !name.contains(&b'/') && !name.contains(&0)
}

/// The error of an entry whose name is not one segment: it is listed as
/// written (escaped), and never opened, previewed or followed.
pub(crate) fn not_one_segment_error(name: &[u8]) -> CanopyError {
    let why = if name.is_empty() {
        "the name is empty"
    } else if name.contains(&b'/') {
        "the name holds a / (it names a path, not an entry)"
    } else if name.contains(&0) {
        "the name holds a NUL byte"
    } else {
        "the name is . or .. (it names a folder, not an entry)"
    };
    CanopyError::new(
        ErrorCode::UnsafeName,
        format!("{why}; listed as written, never opened"),
    )
}

fn named_entry(name: &[u8], path: Option<&Path>, kind: EntryKind) -> Entry {
    let shown = DisplayName::entry_name(name);
    Entry {
        name: shown.text,
        name_lossy: shown.lossy.then_some(true),
        name_parts: shown.parts,
        handle: path.map(encode_handle).unwrap_or_default(),
        kind,
        can_expand: kind == EntryKind::Folder,
        can_preview: kind == EntryKind::File,
        size: None,
        modified: None,
        link: None,
        error: None,
        folder: None,
        archive: None,
    }
}

/// Describes one shown entry (`stat`, `readlink`) unless `deadline` passed
/// (then `late` is set and the rest are named only). Returns the entry and,
/// for a folder to read next, its path.
#[allow(clippy::too_many_arguments)]
fn describe<S: Source>(
    dir: &Arc<S::Folder>,
    id: Identity,
    dir_path: &Path,
    cand: &Candidate,
    level: u32,
    s: &Settings<S>,
    deadline: Instant,
    watch: &Watch,
    late: &mut bool,
) -> (Entry, Option<PathBuf>) {
    let is_folder = cand.kind == EntryKind::Folder;
    // The full path is needed for a handle, and to name a folder's children.
    // An archive may be descended into too (`ListCall::archives`): then it needs its path.
    let may_descend = is_folder || (s.call.archives && cand.kind == EntryKind::File);
    let path = (s.call.handles || may_descend).then(|| child_path(dir_path, &cand.name));
    let mut entry = named_entry(
        &cand.name,
        path.as_deref().filter(|_| s.call.handles),
        cand.kind,
    );
    if is_folder {
        entry.folder = Some(Box::new(Folder::unread()));
    }
    // The clock is read only before a syscall: text mode describes files with none.
    // A name that is not one segment is never asked about (see below).
    let needs_calls =
        (s.call.details || cand.kind == EntryKind::Symlink) && is_one_segment(&cand.name);
    *late = *late || (needs_calls && Instant::now() > deadline);
    // What the order's own `lstat` read is shown whatever `details` says: the
    // entry's value is part of its place (a cursor after it is made from it).
    if let Some(meta) = cand.meta() {
        entry.size = Some(meta.size);
        entry.modified = meta.modified_ms;
    }
    if !*late && needs_calls {
        if s.call.details {
            match cand
                .meta()
                .map_or_else(|| dir.stat_child(&cand.name, false), Ok)
            {
                Ok(meta) => {
                    entry.size = Some(meta.size);
                    entry.modified = meta.modified_ms;
                }
                Err(e) => entry.error = Some(entry_error(&e, "cannot read its details")),
            }
        }
        if cand.kind == EntryKind::Symlink
            && entry
                .error
                .as_ref()
                .is_none_or(|e| e.code != ErrorCode::NotFound)
        {
            let (link, err) = link_info(dir, id, &cand.name, watch);
            if let Some(l) = &link {
                entry.can_expand = l.points_to == LinkTarget::Folder;
                entry.can_preview = l.points_to == LinkTarget::File;
            }
            entry.link = link.map(Box::new);
            entry.error = entry.error.or(err);
        }
    }
    // What the source says besides the `lstat`: an archive (opened like a
    // folder when asked), or a name that must never be followed.
    let mut unsafe_name = false;
    if !*late
        && matches!(
            cand.kind,
            EntryKind::File | EntryKind::Folder | EntryKind::Symlink
        )
    {
        let mut note = dir.note_child(&cand.name, cand.kind);
        if note.examine {
            // Reading the file's first bytes may hang (a dead mount): a step of its own.
            let place = Place::Entry {
                dev: id.dev,
                ino: id.ino,
                name: cand.name.clone(),
            };
            let (folder, name) = (dir.clone(), cand.name.clone());
            match watch.aside(place, move || folder.archive_format(&name)) {
                Ok(Ok(format)) => note.archive = note.archive.or(format),
                // Unreadable: it is listed as the file it is.
                Ok(Err(_)) => {}
                Err(e) => note.problem = note.problem.or(Some(e)),
            }
        }
        if let Some(format) = note.archive {
            entry.archive = Some(format);
            entry.can_expand = true;
        }
        // A hard link inside an archive: a file that says which entry it is.
        if let Some((target, points_to)) = note.hard_link.take() {
            let shown = DisplayName::new(&target);
            entry.can_preview &= points_to == LinkTarget::File;
            entry.link = Some(Box::new(LinkInfo {
                target: shown.text,
                target_parts: shown.parts,
                points_to,
            }));
        }
        if let Some(problem) = note.problem {
            unsafe_name = problem.code == ErrorCode::UnsafeName;
            if unsafe_name {
                entry.can_expand = false;
                entry.can_preview = false;
                entry.folder = None;
            }
            entry.error = entry.error.or(Some(problem));
        }
    }
    // Whatever the source said: a name that is not one segment (a hostile
    // server's `a/b`) is flagged, and never used as a path.
    if !unsafe_name && !is_one_segment(&cand.name) {
        unsafe_name = true;
        entry.can_expand = false;
        entry.can_preview = false;
        entry.folder = None;
        entry.link = None;
        entry.error = Some(not_one_segment_error(&cand.name));
    }
    let vanished = entry
        .error
        .as_ref()
        .is_some_and(|e| e.code == ErrorCode::NotFound);
    let opens = is_folder || (s.call.archives && entry.archive.is_some());
    let descend = opens && level < s.settings.depth && !vanished && !unsafe_name;
    if descend && !is_folder {
        entry.folder = Some(Box::new(Folder::unread()));
    }
    (entry, if descend { path } else { None })
}

/// How a folder below the root turned out.
enum Child<F> {
    Read(Box<FolderRead>, Arc<F>, Identity),
    /// Not read: it could not be opened, or it is not responding.
    Failed(CanopyError),
}

/// Opens and reads a folder below the root, as one step. Each call is
/// placed where it acts, so a hang marks what really hangs: the lookup at the
/// parent's device, the child's `stat` at its entry and path (its device is
/// not known yet), and the open, reads and describe phase at its device. A
/// child on its parent's device is opened by one call that cannot leave it
/// ([`SourceFolder::open_child_here`]), placed at the parent's device; only
/// a mount point is looked up first.
fn read_child<S: Source>(
    p: &Pending<S::Folder>,
    s: &Settings<S>,
    watch: &Watch,
) -> Result<Child<S::Folder>, Stop> {
    let deadline = s.folder_deadline();
    let entry = Place::Entry {
        dev: p.parent_id.dev,
        ino: p.parent_id.ino,
        name: p.name.clone(),
    };
    let at = |places: Vec<Place>| watch.moved(places).map_err(|u| u.error());
    if let Err(u) = watch.begin(entry.clone(), s.step_deadline()) {
        watch.end();
        return Ok(Child::Failed(u.error()));
    }
    let path = Place::path(&p.path);
    // An archive is opened through the source's front door, by its path.
    let opened = if p.archive {
        at(vec![
            entry.clone(),
            path.clone(),
            Place::Device(p.parent_id.dev),
        ])
        .and_then(|()| {
            let dir = s
                .source
                .open_folder(&p.path)
                .map_err(|e| entry_error(&e, "cannot open the archive"))?;
            let (id, _) = dir
                .identity()
                .map_err(|e| entry_error(&e, "cannot examine the archive"))?;
            Ok((Arc::new(dir), id))
        })
    } else {
        at(vec![
            entry.clone(),
            path.clone(),
            Place::Device(p.parent_id.dev),
        ])
        .and_then(|()| {
            p.parent
                .open_child_here(&p.name)
                .map_err(|e| entry_error(&e, "cannot open folder"))
        })
        .and_then(|here| match here {
            // On the parent's device: opened by that one call, placed there.
            Some(dir) => {
                let (id, _) = dir
                    .identity()
                    .map_err(|e| entry_error(&e, "cannot examine folder"))?;
                at(vec![entry.clone(), path.clone(), Place::Device(id.dev)])?;
                Ok((Arc::new(dir), id))
            }
            // A mount point (or a source that cannot tell): nothing was asked of it yet.
            None => {
                let found = p
                    .parent
                    .look_up(&p.name)
                    .map_err(|e| entry_error(&e, "cannot open folder"))?;
                at(vec![entry.clone(), path.clone()])?;
                let id = S::Folder::found_identity(&found)
                    .map_err(|e| entry_error(&e, "cannot examine folder"))?;
                at(vec![entry.clone(), path.clone(), Place::Device(id.dev)])?;
                let dir = p
                    .parent
                    .open_child(&p.name)
                    .map_err(|e| entry_error(&e, "cannot open folder"))?;
                Ok((Arc::new(dir), id))
            }
        })
    };
    let (dir, id) = match opened {
        Ok(k) => k,
        Err(e) => {
            watch.end();
            return Ok(Child::Failed(e));
        }
    };
    let (rules, rules_problem) = match &p.rules {
        Some(parent) => {
            s.renew(watch);
            let (r, problem) = s.source.child_ignore_rules(parent, &p.name, &dir, &p.path);
            (Some(Arc::new(r)), problem)
        }
        None => (None, None),
    };
    let plan = FolderPlan {
        window: Window::At {
            offset: 0,
            limit: u64::from(s.settings.cap),
        },
        filter: None,
        rules,
        rules_problem,
    };
    let read = read_open(&dir, id, &p.path, p.level, plan, deadline, s, watch);
    watch.end();
    Ok(Child::Read(Box::new(read?), dir, id))
}

/// Files a read folder into the walk; its subfolders join the queue.
fn commit<F>(
    w: &mut Walk<F>,
    read: FolderRead,
    slot: Option<Slot>,
    dir: Arc<F>,
    id: Identity,
    level: u32,
) {
    let node = w.nodes.len();
    w.shown += read.folder.entries.len() as u64;
    w.names_read += read.names_read;
    for (entry, name, path) in read.subfolders {
        let rules = read.rules.clone();
        let archive = read.folder.entries[entry].archive.is_some();
        w.queue.push_back(Pending {
            parent: dir.clone(),
            parent_id: id,
            name,
            path,
            level: level + 1,
            slot: Slot { node, entry },
            rules,
            archive,
        });
    }
    w.nodes.push(Node {
        folder: read.folder,
        error: read.error,
        slot,
    });
}

/// Why a walk stopped as a whole.
enum WalkStop {
    Cancelled,
    /// The root cannot be listed.
    Root(CanopyError),
}

impl From<Stop> for WalkStop {
    fn from(stop: Stop) -> Self {
        match stop {
            Stop::Cancelled => WalkStop::Cancelled,
        }
    }
}

/// Whether the request still has room for one more folder; `BUDGET` if not.
fn budget_left<S: Source>(w: &Walk<S::Folder>, s: &Settings<S>) -> Result<(), CanopyError> {
    let spent = |what: String| {
        Err(CanopyError::new(
            ErrorCode::Budget,
            format!("not read: {what}; expand this folder to read it"),
        ))
    };
    if s.request_deadline.is_some_and(|d| Instant::now() >= d) {
        let secs = s.call.request.time.unwrap_or_default().as_secs_f32();
        return spent(format!("the request's time budget ({secs} s) was spent"));
    }
    if w.shown.saturating_add(u64::from(s.settings.cap)) > s.call.request.entries {
        return spent(format!(
            "this reply already shows {} entries and a folder may add {} (at most {} in one reply)",
            w.shown, s.settings.cap, s.call.request.entries
        ));
    }
    if w.names_read >= s.call.request.names {
        return spent(format!(
            "{} names were already read for this request (at most {})",
            w.names_read, s.call.request.names
        ));
    }
    Ok(())
}

/// Reads the root (opened by path; its failures fail the call).
fn walk_root<S: Source>(
    walk: &Mutex<Walk<S::Folder>>,
    s: &Settings<S>,
    generation: u64,
    watch: &Watch,
) -> Result<(), WalkStop> {
    let deadline = s.folder_deadline();
    let fail = |e: CanopyError| WalkStop::Root(e);
    watch
        .begin(Place::path(&s.root), s.step_deadline())
        .map_err(|u| fail(u.error()))?;
    let dir = s
        .source
        .open_folder(&s.root)
        .map_err(|e| fail(CanopyError::from_io(&e, "cannot open folder")))?;
    let dir = Arc::new(dir);
    let (id, meta) = dir
        .identity()
        .map_err(|e| fail(CanopyError::from_io(&e, "cannot examine folder")))?;
    // Inside an archive: which file on disk it is (the window's file actions act on it).
    let root_archive = if dir.in_archive() {
        s.source.archive_file_of(&s.root)
    } else {
        None
    };
    watch
        .reached(Place::Device(id.dev))
        .map_err(|u| fail(u.error()))?;
    if s.call.expect_root.is_some_and(|want| want != id) {
        return Err(fail(CanopyError::new(
            ErrorCode::NotFound,
            "the folder was replaced while it was being opened",
        )));
    }
    let (rules, rules_problem) = if s.settings.hide_ignored {
        // Over a link, reading the ignore files is a call of its own.
        s.renew(watch);
        let (r, problem) = s.source.ignore_rules(
            &s.root,
            &mut Meter::new(Some(deadline), s.call.cancel.as_ref()),
        );
        (Some(Arc::new(r)), problem)
    } else {
        (None, None)
    };
    let plan = FolderPlan {
        window: s.window.window(),
        filter: s.filter.as_ref(),
        rules,
        rules_problem,
    };
    let read = read_open(&dir, id, &s.root, 1, plan, deadline, s, watch)?;
    watch.end();
    if read.folder.total.is_none() {
        // The root could be opened but not read: that fails the call.
        return Err(fail(read.error.unwrap_or_else(|| {
            CanopyError::new(ErrorCode::Io, "cannot read folder")
        })));
    }
    let f = &read.folder;
    let more = f.offset + (f.entries.len() as u64) < f.total.unwrap_or(0);
    let next_cursor = match &read.last {
        Some(last) if more && !matches!(s.window, RootWindow::Everything) && !f.partial_order => {
            Some(cursor::encode(&s.settings, last))
        }
        _ => None,
    };
    let mut w = lock(walk);
    if w.generation == generation && !watch.abandoned() {
        w.root_meta = Some(meta);
        w.root_archive = root_archive;
        w.next_cursor = next_cursor;
        commit(&mut w, read, None, dir, id, 1);
    }
    Ok(())
}

/// Runs the walk from where it stands: the root if it was not read, then
/// queued folders in order, until the queue is empty.
fn walk<S: Source>(
    walk: &Mutex<Walk<S::Folder>>,
    s: &Settings<S>,
    generation: u64,
    watch: &Watch,
) -> Result<(), WalkStop> {
    // CPU work inside the walk (an archive's index) stops at a cancel too.
    watch.stop_on(s.call.cancel.clone());
    if lock(walk).nodes.is_empty() {
        walk_root(walk, s, generation, watch)?;
    }
    loop {
        if s.cancelled() {
            return Err(WalkStop::Cancelled);
        }
        let pending = {
            let mut w = lock(walk);
            loop {
                if w.generation != generation {
                    return Ok(());
                }
                let Some(p) = w.queue.pop_front() else {
                    return Ok(());
                };
                match budget_left(&w, s) {
                    Ok(()) => {
                        w.current = Some(p.slot);
                        break p;
                    }
                    Err(e) => w.marks.push((p.slot, e)),
                }
            }
        };
        let child = read_child(&pending, s, watch)?;
        let mut w = lock(walk);
        if w.generation != generation || watch.abandoned() {
            return Ok(());
        }
        w.current = None;
        match child {
            Child::Failed(e) => w.marks.push((pending.slot, e)),
            Child::Read(read, dir, id) => {
                commit(&mut w, *read, Some(pending.slot), dir, id, pending.level)
            }
        }
    }
}

/// Lists the folder at `root` (an absolute path in `source`) under
/// `settings`: the engine's front door for every face.
///
/// A page past the end of the folder is not an error: it is empty and says
/// the folder's true total (folders shrink between pages).
///
/// # Errors
/// `INVALID_ARGUMENT` for a depth outside 1..=`MAX_DEPTH`, a cap or page outside 1..=`MAX_PAGE`,
/// a cursor that is not Canopy's or was made under other settings, or a
/// cursor together with an offset; the root's own code when it cannot be
/// listed (`NOT_FOUND`, `DENIED`, `NOT_A_DIRECTORY`, `LOOP`, `NAME_TOO_LONG`,
/// `IO`, or `TIMEOUT` when it does not respond); `CANCELLED` when `cancel` fired.
pub fn list<S: Source>(
    source: &S,
    root: &Path,
    settings: &ListSettings,
    call: &ListCall,
) -> Result<Listing, CanopyError> {
    check_settings(settings, call.whole_top_level)?;
    let filter = crate::filter::of_settings(settings)?;
    let order = Order {
        by: settings.sort,
        reverse: settings.reverse,
    };
    let limit = (!call.whole_top_level).then_some(u64::from(settings.limit));
    let window = match (&call.after, limit) {
        (Some(_), _) if call.offset != 0 => {
            return Err(CanopyError::invalid(
                "give either a cursor or an offset, not both",
            ));
        }
        (Some(_), None) => {
            return Err(CanopyError::invalid(
                "a cursor continues a page; it cannot be used to list everything",
            ));
        }
        (Some(text), Some(limit)) => RootWindow::After {
            key: cursor::decode(text, settings)?,
            limit,
        },
        (None, Some(limit)) => RootWindow::At {
            offset: call.offset,
            limit,
        },
        (None, None) if call.offset == 0 => RootWindow::Everything,
        (None, None) => RootWindow::At {
            offset: call.offset,
            limit: u64::MAX,
        },
    };
    crate::sys::raise_open_file_limit();
    let shared = Arc::new(Settings {
        source: source.clone(),
        root: root.to_path_buf(),
        window,
        settings: settings.clone(),
        call: call.clone(),
        request_deadline: call
            .request
            .time
            .and_then(|t| Instant::now().checked_add(t)),
        order,
        filter,
        paced: source.paced(),
    });
    let state = Arc::new(Mutex::new(Walk::default()));
    loop {
        let generation = lock(&state).generation;
        let (w, s) = (state.clone(), shared.clone());
        match bounded::run(move |watch| walk(&w, &s, generation, watch)) {
            Ok(Ok(())) => break,
            Ok(Err(WalkStop::Cancelled)) => return Err(CanopyError::cancelled()),
            Ok(Err(WalkStop::Root(e))) => return Err(e),
            Err(abandoned) => {
                // Left behind: that folder is not responding; go on without it.
                let mut w = lock(&state);
                w.generation += 1;
                if w.nodes.is_empty() {
                    return Err(abandoned.error(call.budget));
                }
                if let Some(slot) = w.current.take() {
                    w.marks.push((slot, abandoned.error(call.budget)));
                }
            }
        }
    }
    let (mut nodes, marks, meta, next_cursor, root_archive) = {
        let mut w = lock(&state);
        // A worker left behind must never write into what is returned.
        w.generation += 1;
        w.queue.clear();
        (
            std::mem::take(&mut w.nodes),
            std::mem::take(&mut w.marks),
            w.root_meta,
            w.next_cursor.take(),
            w.root_archive.take(),
        )
    };
    for (slot, err) in marks {
        nodes[slot.node].folder.entries[slot.entry].error = Some(err);
    }
    // Children come after their parents: file each into its parent from the end.
    while nodes.len() > 1 {
        let Some(node) = nodes.pop() else { break };
        let Some(slot) = node.slot else { continue };
        let e = &mut nodes[slot.node].folder.entries[slot.entry];
        e.folder = Some(Box::new(node.folder));
        e.error = node.error.or(e.error.take());
    }
    let top = nodes
        .pop()
        .ok_or_else(|| CanopyError::new(ErrorCode::Io, "cannot read folder"))?;
    let name = root
        .file_name()
        .map_or(root.as_os_str().as_bytes(), |n| n.as_bytes());
    let mut entry = named_entry(name, Some(root), EntryKind::Folder);
    if let Some(meta) = meta {
        entry.size = Some(meta.size);
        entry.modified = meta.modified_ms;
    }
    entry.error = top.error;
    entry.folder = Some(Box::new(top.folder));
    let mut crumbs = crumbs_of(source, root);
    if let Some((file, format)) = root_archive {
        if file.as_path() == root {
            entry.archive = Some(format);
        }
        let file = encode_handle(&file);
        crumbs
            .iter_mut()
            .filter(|c| c.handle == file)
            .for_each(|c| c.archive = Some(format));
    }
    Ok(Listing {
        request_id: call.request_id,
        path: source.shown_path(root),
        crumbs,
        // The local disk's answers; a face stamps its place's (`canopy_places`).
        capabilities: crate::wire::Capabilities::default(),
        server: None,
        settings: settings.clone(),
        root: entry,
        next_cursor,
    })
}

/// `INVALID_ARGUMENT` unless the depth is 1..=`MAX_DEPTH`, and the cap and
/// (unless the whole top level is listed) the page 1..=`MAX_PAGE`: the one
/// place the settings' bounds are checked, whoever sent them.
pub(crate) fn check_settings(
    settings: &ListSettings,
    whole_top_level: bool,
) -> Result<(), CanopyError> {
    check_depth(settings.depth)?;
    let cap = settings.cap;
    if cap == 0 || cap > MAX_PAGE {
        return Err(CanopyError::invalid(format!(
            "the per-folder cap must be 1 to {MAX_PAGE}, not {cap}"
        )));
    }
    let limit = settings.limit;
    if !whole_top_level && (limit == 0 || limit > MAX_PAGE) {
        return Err(CanopyError::invalid(format!(
            "limit must be 1 to {MAX_PAGE}, not {limit}"
        )));
    }
    Ok(())
}

/// `INVALID_ARGUMENT` unless `depth` is 1..=`MAX_DEPTH`.
fn check_depth(depth: u32) -> Result<(), CanopyError> {
    if depth == 0 || depth > MAX_DEPTH {
        return Err(CanopyError::invalid(format!(
            "depth must be 1 to {MAX_DEPTH}, not {depth}"
        )));
    }
    Ok(())
}

fn crumbs_of<S: Source>(source: &S, path: &Path) -> Vec<Crumb> {
    let mut crumbs: Vec<Crumb> = path
        .ancestors()
        .filter(|p| source.is_crumb(p))
        .map(|p| {
            let shown = DisplayName::of(p.file_name().unwrap_or(p.as_os_str()));
            Crumb {
                name: shown.text,
                name_parts: shown.parts,
                handle: encode_handle(p),
                archive: None,
            }
        })
        .collect();
    crumbs.reverse();
    crumbs
}

/// Runs a `list_directory` request as the UI sends it, on `source`; `cancel`
/// stops it, `observer` hears of each folder read (see [`ListCall`]).
///
/// # Errors
/// As [`list`].
pub fn list_request<S: Source>(
    source: &S,
    req: &ListRequest,
    cancel: Option<CancelToken>,
    observer: Option<Arc<dyn Observer>>,
) -> Result<Listing, CanopyError> {
    // Before the root is resolved (which may ask the filesystem).
    check_settings(&req.settings, false)?;
    let root = source.resolve(&req.root)?;
    let call = ListCall {
        offset: req.offset,
        after: req.after.clone(),
        cancel,
        observer,
        request_id: req.request_id,
        ..ListCall::default()
    };
    list(source, &root, &req.settings, &call)
}
