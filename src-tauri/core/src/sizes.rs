//! Folder sizes: what is big in here, counted the way `du -x` counts,
//! streamed while it counts.
//!
//! Promises:
//! - each reported folder's figures are those of `du -sB1 -x` (disk usage)
//!   and `du -sb -x` (apparent) run on that folder alone: the folder's own
//!   inode and everything below, symlinks never followed, another
//!   filesystem never entered (a mount point below is left out whole, as
//!   `du -x` leaves it, and flagged `otherDisk`), an inode with several
//!   links counted once in every folder that holds one of them;
//! - memory is O(depth + hard-linked files + folders reported), never
//!   O(files) nor O(folders): an entry's figures are added to the few
//!   folders that are reported ([`Reported`]: those a face shows) or are
//!   children being counted for a reported folder's `largest` (kept as a
//!   bounded top-k once done, never a node per child), and forgotten; a
//!   folder's subfolders are queued `SIZES_EXPAND` at a time (the rest
//!   wait unread, or as packed names on a source that cannot resume a
//!   read), so queued work is O(depth x `SIZES_EXPAND`); a (device, inode)
//!   is remembered only when `st_nlink > 1`;
//! - a figure that could not be finished is a lower bound and says why
//!   (`shortfalls`): a folder that could not be read (`DENIED`, `IO`), a
//!   dead mount (`TIMEOUT`), the request's budget (`BUDGET`) or a cancel.
//!
//! **How it runs.** Jobs (read one folder; `lstat` one chunk of a large
//! folder's names) wait on one stack, taken last-in first-out so the walk
//! goes deep before wide and few folders are open at once. A few threads
//! (the machine's cores, at most `SIZES_MAX_THREADS`) each drive a job of
//! [`crate::bounded`] that takes jobs from the stack; each job is a step at
//! the folder's entry in its parent, then its path and device, and each
//! batch of names or chunk of `lstat`s a step with a fresh deadline
//! (`folder_time`, `TIME_BUDGET`): a job that hangs (a dead mount) is given up, its
//! folder costs `TIMEOUT`, its place is stuck (later calls there fail at
//! once) and the thread goes on with a fresh worker. Each job's outcome is
//! published once ([`Claim`]): by its worker if it finished first, else as
//! `TIMEOUT` by the thread that gave it up.
//!
//! **The request budget.** Entries counted (`SIZES_MAX_ENTRIES`) and time
//! (`SIZES_REQUEST_TIME`): when either is spent, or on a cancel, the threads
//! stop between two batches and every unfinished figure is a lower bound
//! (`BUDGET`, `CANCELLED`).
//!
//! The caller's thread waits, and tells the [`SizesObserver`] what changed.
#![forbid(unsafe_code)]

use std::collections::{HashMap, HashSet};
use std::ffi::OsStr;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering::{Relaxed, SeqCst};
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crate::bounded::{self, Place, Unresponsive, Watch};
use crate::cancel::CancelToken;
use crate::error::{code_of, CanopyError, ErrorCode};
use crate::limits::{
    DEFAULT_SIZES_DEPTH, MAX_SIZES_DEPTH, SIZES_CHUNK, SIZES_EXPAND, SIZES_LARGEST,
    SIZES_MAX_ENTRIES, SIZES_MAX_SHOWN, SIZES_MAX_THREADS, SIZES_PROGRESS, SIZES_REQUEST_TIME,
    TIME_BUDGET,
};
use crate::names::{decode_handle, encode_handle, escape_for_line, DisplayName};
use crate::source::{EntryStream, Identity, Source, SourceFolder, Usage};
use crate::walk::{is_one_segment, not_one_segment_error};
use crate::wire::{
    ChildSize, Entry, EntryKind, FolderSizeReport, FolderSizes, Listing, OtherChildren, Shortfall,
    SizesProgress, SizesReport, SizesRequest,
};

/// Who hears a sizes computation while it runs: partial figures (lower
/// bounds) of the reported folders every `SIZES_PROGRESS` at most, and each
/// reported folder's exact figure as soon as its subtree is done. Called on
/// the thread that called [`sizes`], never on the engine's workers, so a
/// slow observer delays only the next event.
pub trait SizesObserver {
    fn progress(&self, progress: &SizesProgress);
}

/// Any `Fn(&SizesProgress)` observes.
impl<F: Fn(&SizesProgress)> SizesObserver for F {
    fn progress(&self, progress: &SizesProgress) {
        self(progress);
    }
}

/// What one sizes computation may spend in all (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SizesBudget {
    /// Entries counted.
    pub entries: u64,
    /// Time in all; `None`: no limit besides each folder's own.
    pub time: Option<Duration>,
}

impl SizesBudget {
    /// The limits of every sizes request (`SIZES_MAX_ENTRIES`, `SIZES_REQUEST_TIME`).
    pub const STANDARD: SizesBudget = SizesBudget {
        entries: SIZES_MAX_ENTRIES,
        time: Some(SIZES_REQUEST_TIME),
    };
}

/// Which folders below the root a sizes call reports (the root always is):
/// each gets its figures and its `largest` children. Everything below the
/// root is counted whichever it is; this bounds only what is kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reported {
    /// Every folder down to this many levels below the root
    /// (0..=`MAX_SIZES_DEPTH`): memory grows with the folders within it,
    /// so a face that shows only some names them instead ([`Reported::Shown`]).
    Depth(u32),
    /// These folders (absolute paths in the source, as the listing's
    /// handles name them): the ones a face shows.
    Shown(Vec<PathBuf>),
    /// The root's largest children and, inside each of its largest
    /// folders, their largest, this many levels further down
    /// (0..=`MAX_SIZES_DEPTH`): at most `SIZES_LARGEST`^levels folders.
    Largest(u32),
}

/// What one call to [`sizes`] asks. Build with `SizesCall::default()` and adjust.
#[derive(Debug, Clone)]
pub struct SizesCall {
    /// Echoed in the progress and the report.
    pub request_id: u64,
    /// The folders reported besides the root.
    pub report: Reported,
    /// Order each folder's `largest` by apparent size, not disk usage.
    pub by_apparent: bool,
    /// Longest wait for one step of a folder (its open, one batch of its
    /// names, one chunk of `lstat`s) before the folder is `TIMEOUT` (a dead
    /// mount): a large folder takes as many steps as it needs.
    pub folder_time: Duration,
    /// What the whole computation may spend.
    pub budget: SizesBudget,
    /// Threads reading folders; 0: the machine's cores, at most `SIZES_MAX_THREADS`.
    pub threads: usize,
}

impl Default for SizesCall {
    fn default() -> Self {
        SizesCall {
            request_id: 0,
            report: Reported::Depth(DEFAULT_SIZES_DEPTH),
            by_apparent: false,
            folder_time: TIME_BUDGET,
            budget: SizesBudget::STANDARD,
            threads: 0,
        }
    }
}

/// One folder whose figures are kept while it is counted: a reported one,
/// or a child of a folder that keeps its `largest` (then, once done, it is
/// a candidate in that top-k and the node is dropped). Every entry below
/// adds to its nearest such folder and that folder's ancestors.
struct Sized {
    parent: Option<Arc<Sized>>,
    depth: u32,
    /// Named in the report (and heard by the observer).
    reported: bool,
    /// Keeps its largest children (a reported folder, or one inside the
    /// largest for [`Reported::Largest`]).
    keeps_largest: bool,
    /// [`Reported::Largest`]: levels of largest kept below this one.
    nest: u32,
    name: Box<[u8]>,
    /// Absolute, in the source.
    path: PathBuf,
    disk: AtomicU64,
    apparent: AtomicU64,
    files: AtomicU64,
    folders: AtomicU64,
    /// Its own read, the jobs below it not yet finished, and its sized
    /// children not yet done: at 0 it is done.
    pending: AtomicU64,
    lower: AtomicBool,
    /// Something changed since the observer last heard of it.
    changed: AtomicBool,
    state: Mutex<SizedState>,
}

#[derive(Default)]
struct SizedState {
    shortfalls: Vec<Shortfall>,
    other_disk: bool,
    done: bool,
    /// Folders that keep their largest: the largest children met so far,
    /// and the sum of all of them.
    top: Top,
}

/// A child among the largest, before it is named for the wire.
#[derive(Debug, Clone)]
struct Cand {
    name: Box<[u8]>,
    kind: EntryKind,
    disk: u64,
    apparent: u64,
    items: u64,
    lower: bool,
    /// A mount point of another filesystem: not entered (its figures are zero).
    other_disk: bool,
    /// [`Reported::Largest`]: this folder's report and those kept inside
    /// it, named in the answer while it stays among the largest.
    nested: Vec<FolderSizeReport>,
}

/// The `SIZES_LARGEST` largest children under one measure, and the sum of all.
#[derive(Default)]
struct Top {
    largest: Vec<Cand>,
    all: OtherChildren,
}

impl Top {
    fn add(&mut self, c: Cand, by_apparent: bool) {
        self.all.count += 1;
        self.all.disk_usage += c.disk;
        self.all.apparent += c.apparent;
        self.keep(c, by_apparent);
    }

    fn keep(&mut self, c: Cand, by_apparent: bool) {
        // Larger first; among equal sizes, the name first in byte order, so
        // which children are kept never depends on the order they finished in.
        fn key(c: &Cand, by_apparent: bool) -> (u64, std::cmp::Reverse<&[u8]>) {
            let measure = if by_apparent { c.apparent } else { c.disk };
            (measure, std::cmp::Reverse(&c.name))
        }
        let new = key(&c, by_apparent);
        if self.largest.len() == SIZES_LARGEST {
            if self
                .largest
                .last()
                .is_some_and(|last| new <= key(last, by_apparent))
            {
                return;
            }
            self.largest.pop();
        }
        let at = self.largest.partition_point(|k| key(k, by_apparent) >= new);
        self.largest.insert(at, c);
    }

    fn merge(&mut self, other: Top, by_apparent: bool) {
        self.all.count += other.all.count;
        self.all.disk_usage += other.all.disk_usage;
        self.all.apparent += other.all.apparent;
        for c in other.largest {
            self.keep(c, by_apparent);
        }
    }
}

/// What kind of node a [`Sized`] is.
#[derive(Clone, Copy)]
struct Role {
    reported: bool,
    keeps_largest: bool,
    nest: u32,
}

impl Sized {
    fn new(
        parent: Option<Arc<Sized>>,
        depth: u32,
        name: Box<[u8]>,
        path: PathBuf,
        role: Role,
    ) -> Arc<Sized> {
        let live = LIVE_NODES.fetch_add(1, Relaxed) + 1;
        PEAK_NODES.fetch_max(live, Relaxed);
        Arc::new(Sized {
            parent,
            depth,
            reported: role.reported,
            keeps_largest: role.keeps_largest,
            nest: role.nest,
            name,
            path,
            disk: AtomicU64::new(0),
            apparent: AtomicU64::new(0),
            files: AtomicU64::new(0),
            folders: AtomicU64::new(0),
            pending: AtomicU64::new(1),
            lower: AtomicBool::new(false),
            changed: AtomicBool::new(true),
            state: Mutex::new(SizedState::default()),
        })
    }

    fn state(&self) -> MutexGuard<'_, SizedState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// This folder and its ancestors, nearest first.
    fn chain(self: &Arc<Sized>) -> impl Iterator<Item = &Sized> {
        std::iter::successors(Some(&**self), |n| n.parent.as_deref())
    }

    fn add(&self, t: &Tally) {
        if t.disk != 0 {
            self.disk.fetch_add(t.disk, Relaxed);
        }
        if t.apparent != 0 {
            self.apparent.fetch_add(t.apparent, Relaxed);
        }
        if t.files != 0 {
            self.files.fetch_add(t.files, Relaxed);
        }
        if t.folders != 0 {
            self.folders.fetch_add(t.folders, Relaxed);
        }
        self.changed.store(true, Relaxed);
    }

    /// Whether `self` is `other` or one of its ancestors.
    fn holds(&self, other: &Arc<Sized>) -> bool {
        other.chain().any(|n| std::ptr::eq(n, self))
    }

    fn figures(&self) -> FolderSizes {
        let st = self.state();
        FolderSizes {
            disk_usage: self.disk.load(Relaxed),
            apparent: self.apparent.load(Relaxed),
            files: self.files.load(Relaxed),
            folders: self.folders.load(Relaxed),
            is_lower_bound: !st.done || self.lower.load(Relaxed),
            shortfalls: st.shortfalls.clone(),
            other_disk: st.other_disk,
        }
    }
}

impl Drop for Sized {
    fn drop(&mut self) {
        LIVE_NODES.fetch_sub(1, Relaxed);
    }
}

/// Nodes alive in this process, and the most seen at once (see [`peak_nodes`]).
static LIVE_NODES: AtomicU64 = AtomicU64::new(0);
static PEAK_NODES: AtomicU64 = AtomicU64::new(0);
/// Jobs queued at once, at most (see [`peak_nodes`]).
static PEAK_QUEUED: AtomicU64 = AtomicU64::new(0);

/// The most folder nodes alive and jobs queued at once in this process
/// since the last call (which resets both): what a memory test measures.
/// Nodes are counted across concurrent calls.
#[doc(hidden)]
pub fn peak_nodes() -> (u64, u64) {
    (
        PEAK_NODES.swap(LIVE_NODES.load(Relaxed), Relaxed),
        PEAK_QUEUED.swap(0, Relaxed),
    )
}

/// Figures counted by one job, added to its folder's chain at once.
#[derive(Debug, Default, Clone, Copy)]
struct Tally {
    disk: u64,
    apparent: u64,
    files: u64,
    folders: u64,
}

/// What one job does.
enum Work<F> {
    /// Read the folder `name` of `parent` (the root when `parent` is `None`).
    Folder {
        parent: Option<(Arc<F>, Identity)>,
        name: Box<[u8]>,
        path: PathBuf,
        depth: u32,
    },
    /// Go on with the folder `dir`: queue its subfolders `subs` (each
    /// followed by its length, 4 bytes) `SIZES_EXPAND` at a time, then,
    /// when `resume`, read on where its reader stopped.
    Rest {
        dir: Arc<F>,
        id: Identity,
        subs: Vec<u8>,
        resume: bool,
        path: PathBuf,
        depth: u32,
    },
    /// `lstat` these names (each preceded by its length, 4 bytes) of `dir`.
    Chunk {
        dir: Arc<F>,
        id: Identity,
        names: Vec<u8>,
        path: PathBuf,
        depth: u32,
    },
}

/// A job: its work and the sized folder its figures go to (the folder
/// itself when it is sized, else its nearest sized ancestor).
struct Job<F> {
    work: Work<F>,
    node: Arc<Sized>,
}

/// Who may publish a job's outcome: the worker that runs it, or (once it
/// is given up) the thread that gave it up; never both.
struct Claim {
    given_up: Mutex<bool>,
}

impl Claim {
    fn lock(&self) -> MutexGuard<'_, bool> {
        self.given_up.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// For each (device, inode) met with several links, the sized folders
/// that hold it.
type Links = HashMap<(u64, u64), Vec<Arc<Sized>>>;

/// A folder opened, with its identity.
type Opened<F> = (Arc<F>, Identity);

/// Where a job hands its figures over to, shared by every thread.
struct Shared<S: Source> {
    source: S,
    root_dev: AtomicU64,
    call: SizesCall,
    cancel: Option<CancelToken>,
    deadline: Option<Instant>,
    root_path: PathBuf,
    /// [`Reported::Shown`]: the folders reported.
    shown: HashSet<PathBuf>,
    queue: Mutex<Queue<S::Folder>>,
    /// Woken when a job is queued or the last one ends.
    work_ready: Condvar,
    /// (device, inode) of each file with several links met, and the sized
    /// folders whose figures already hold it.
    links: Mutex<Links>,
    entries: AtomicU64,
    /// `Some` once the request stopped as a whole.
    cut: Mutex<Option<ErrorCode>>,
    stopped: AtomicBool,
    /// Reported folders, in the order they were met (parents first).
    reported: Mutex<Vec<Arc<Sized>>>,
    /// Reported folders done since the observer last heard.
    finished: Mutex<Vec<Arc<Sized>>>,
    /// Woken when a reported folder is done or a thread ends.
    news: (Mutex<u64>, Condvar),
    /// The root's open failed: that fails the call.
    root_error: Mutex<Option<CanopyError>>,
    /// The root was opened: a step of its job given up later (a dead
    /// entry in it, or a mount below that holds up its filesystem) costs
    /// the root a lower bound, not the call.
    root_opened: AtomicBool,
    threads: usize,
}

struct Queue<F> {
    jobs: Vec<Job<F>>,
    /// Jobs taken and not finished.
    running: usize,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl<S: Source> Shared<S> {
    fn stop(&self, code: ErrorCode) {
        let mut cut = lock(&self.cut);
        if cut.is_none() {
            *cut = Some(code);
        }
        self.stopped.store(true, SeqCst);
        drop(cut);
        self.work_ready.notify_all();
    }

    /// Whether the request must stop now (and why, once).
    fn must_stop(&self) -> bool {
        if self.stopped.load(Relaxed) {
            return true;
        }
        if self.cancel.as_ref().is_some_and(CancelToken::is_cancelled) {
            self.stop(ErrorCode::Cancelled);
            return true;
        }
        if self.entries.load(Relaxed) >= self.call.budget.entries
            || self.deadline.is_some_and(|d| Instant::now() >= d)
        {
            self.stop(ErrorCode::Budget);
            return true;
        }
        false
    }

    fn by_apparent(&self) -> bool {
        self.call.by_apparent
    }

    /// The display path of `path`, relative to the root.
    fn shown(&self, path: &Path) -> String {
        let rel = path.strip_prefix(&self.root_path).unwrap_or(path);
        escape_for_line(rel.as_os_str().as_bytes())
    }

    /// Queues a job (its node's pending count taken first).
    fn push(&self, job: Job<S::Folder>) {
        job.node.pending.fetch_add(1, SeqCst);
        self.enqueue(job);
    }

    /// Queues a job whose pending count is already taken.
    fn enqueue(&self, job: Job<S::Folder>) {
        let mut q = lock(&self.queue);
        q.jobs.push(job);
        PEAK_QUEUED.fetch_max(q.jobs.len() as u64, Relaxed);
        drop(q);
        self.work_ready.notify_one();
    }

    /// Takes the next job, waiting while others may still queue some;
    /// `None` when all is done or the request stopped.
    fn take(&self) -> Option<Job<S::Folder>> {
        let mut q = lock(&self.queue);
        loop {
            if self.stopped.load(Relaxed) {
                return None;
            }
            if let Some(job) = q.jobs.pop() {
                q.running += 1;
                return Some(job);
            }
            if q.running == 0 {
                self.work_ready.notify_all();
                return None;
            }
            q = self.work_ready.wait(q).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// Whether threads are idle for want of work: a large folder then
    /// shares its names out in chunks.
    fn hungry(&self) -> bool {
        let q = lock(&self.queue);
        q.jobs.len() + q.running < self.threads * 2
    }

    /// A job ended (published, or given up and accounted for).
    fn job_ended(&self) {
        let mut q = lock(&self.queue);
        q.running -= 1;
        if q.running == 0 && q.jobs.is_empty() {
            self.work_ready.notify_all();
        }
    }

    /// Adds `t` to `node` and its ancestors.
    fn add(&self, node: &Arc<Sized>, t: &Tally) {
        for n in node.chain() {
            n.add(t);
        }
    }

    /// Something below `node` (at `path`) could not be counted.
    fn short(&self, node: &Arc<Sized>, error: &CanopyError, path: &Path) {
        let example = self.shown(path);
        for n in node.chain() {
            n.lower.store(true, Relaxed);
            n.changed.store(true, Relaxed);
            let mut st = n.state();
            match st.shortfalls.iter_mut().find(|s| s.code == error.code) {
                Some(s) => s.count += 1,
                None => st.shortfalls.push(Shortfall {
                    code: error.code,
                    count: 1,
                    example: example.clone(),
                }),
            }
        }
    }

    /// Counts a file met under `node` with several links: the whole of it
    /// the first time, and then only in the sized folders that do not hold
    /// it yet (those between `node` and the nearest that does).
    fn linked(&self, node: &Arc<Sized>, u: &Usage, t: &mut Tally) {
        let mut links = lock(&self.links);
        let holders = links.entry((u.dev, u.ino)).or_default();
        if holders.is_empty() {
            holders.push(node.clone());
            drop(links);
            t.disk += u.disk;
            t.apparent += u.apparent;
            return;
        }
        let extra = Tally {
            disk: u.disk,
            apparent: u.apparent,
            ..Tally::default()
        };
        let mut fresh = false;
        for n in node.chain() {
            if holders.iter().any(|h| n.holds(h)) {
                break;
            }
            n.add(&extra);
            fresh = true;
        }
        if fresh {
            holders.push(node.clone());
        }
    }

    /// `node`'s pending count drops by one; at 0 it is done, and so may its
    /// ancestors be.
    fn release(&self, node: &Arc<Sized>) {
        let mut next = Some(node.clone());
        while let Some(n) = next.take() {
            if n.pending.fetch_sub(1, SeqCst) != 1 {
                return;
            }
            let figures = n.figures();
            {
                let mut st = n.state();
                st.done = true;
            }
            n.changed.store(true, Relaxed);
            if let Some(parent) = n.parent.as_ref().filter(|p| {
                // Among its parent's largest only as a child, not a deeper folder.
                p.keeps_largest && p.depth + 1 == n.depth
            }) {
                // Inside the largest, its own report and what it keeps go with it.
                let nested = if n.keeps_largest && !n.reported {
                    let mut nested = vec![report_of(self, &n, true)];
                    let mut st = n.state();
                    for c in &mut st.top.largest {
                        nested.append(&mut c.nested);
                    }
                    nested
                } else {
                    Vec::new()
                };
                let other_disk = n.state().other_disk;
                let cand = Cand {
                    name: n.name.clone(),
                    kind: EntryKind::Folder,
                    disk: figures.disk_usage,
                    apparent: figures.apparent,
                    items: 1 + figures.files + figures.folders,
                    lower: n.lower.load(Relaxed),
                    other_disk,
                    nested,
                };
                parent.state().top.add(cand, self.by_apparent());
            }
            if n.reported {
                lock(&self.finished).push(n.clone());
                let (count, wake) = &self.news;
                *lock(count) += 1;
                wake.notify_all();
            }
            next = n.parent.clone();
        }
    }

    /// The sized folder for a folder at `depth` named `name` under `node`:
    /// a node of its own when it is reported or counted for `node`'s
    /// largest, else `node`.
    fn node_for(&self, node: &Arc<Sized>, depth: u32, name: &[u8], path: &Path) -> Arc<Sized> {
        let reported = match &self.call.report {
            Reported::Depth(d) => depth <= *d,
            Reported::Shown(_) => self.shown.contains(path),
            Reported::Largest(_) => false,
        };
        let for_largest = node.keeps_largest && node.depth + 1 == depth;
        if !reported && !for_largest {
            return node.clone();
        }
        let role = Role {
            reported,
            keeps_largest: reported || (for_largest && node.nest > 0),
            nest: if for_largest {
                node.nest.saturating_sub(1)
            } else {
                0
            },
        };
        let child = Sized::new(
            Some(node.clone()),
            depth,
            name.into(),
            path.to_path_buf(),
            role,
        );
        // The child's own read is pending in it, and the child in its parent.
        node.pending.fetch_add(1, SeqCst);
        if reported {
            lock(&self.reported).push(child.clone());
        }
        child
    }
}

/// How a job stopped short of its end.
enum Cut {
    /// The request stopped (budget, cancel): what was counted stands.
    Stopped,
    /// It was given up while it ran: publish nothing more.
    GivenUp,
}

/// What one job learnt before it published (its figures and largest
/// children), and what it could not count.
struct Outcome {
    tally: Tally,
    top: Top,
    error: Option<CanopyError>,
    other_disk: bool,
    /// Subfolders met and not queued yet, packed (see [`pop_name`]).
    subs: Vec<u8>,
}

impl Outcome {
    fn new() -> Outcome {
        Outcome {
            tally: Tally::default(),
            top: Top::default(),
            error: None,
            other_disk: false,
            subs: Vec::new(),
        }
    }
}

/// Packs a subfolder's name (the name, then its length) to be taken back
/// from the end by [`pop_name`].
fn push_name(subs: &mut Vec<u8>, name: &[u8]) {
    subs.extend_from_slice(name);
    subs.extend_from_slice(&(name.len() as u32).to_ne_bytes());
}

/// The last name packed by [`push_name`], taken out.
fn pop_name(subs: &mut Vec<u8>) -> Option<Box<[u8]>> {
    let end = subs.len().checked_sub(4)?;
    let len = u32::from_ne_bytes([subs[end], subs[end + 1], subs[end + 2], subs[end + 3]]);
    let start = end.checked_sub(len as usize)?;
    let name = subs[start..end].into();
    subs.truncate(start);
    Some(name)
}

fn child_path(dir: &Path, name: &[u8]) -> PathBuf {
    dir.join(OsStr::from_bytes(name))
}

/// The error of a call that did not answer.
fn unresponsive(u: &Unresponsive) -> CanopyError {
    u.error()
}

/// The job a thread runs now.
struct Running {
    claim: Arc<Claim>,
    node: Arc<Sized>,
    path: PathBuf,
    /// The root's own job: given up before the root was opened, it fails the call.
    root: bool,
}

/// One thread's jobs, run as one job of [`bounded`]: until the stack is
/// empty, the request stops, or a step of it is given up.
fn work<S: Source>(sh: &Shared<S>, slot: &Mutex<Option<Running>>, watch: &Watch) {
    let mut buffer = Vec::new();
    while let Some(job) = sh.take() {
        let claim = Arc::new(Claim {
            given_up: Mutex::new(false),
        });
        let node = job.node.clone();
        let (path, own, root) = match &job.work {
            Work::Folder {
                path,
                depth,
                parent,
                ..
            } => (path.clone(), *depth == node.depth, parent.is_none()),
            Work::Rest { path, .. } | Work::Chunk { path, .. } => (path.clone(), false, false),
        };
        // What the thread that gives this job up needs to account for it.
        *lock(slot) = Some(Running {
            claim: claim.clone(),
            node: node.clone(),
            path: path.clone(),
            root,
        });
        let mut out = Outcome::new();
        let ran = run_job(sh, job, &claim, &mut out, &mut buffer, watch);
        watch.end();
        let given_up = {
            let mut g = claim.lock();
            let was = *g;
            *g = true;
            was
        };
        *lock(slot) = None;
        // Given up before it claimed the job: the thread that gave it up
        // accounts for it. Claimed: it publishes, given up or not.
        if given_up || matches!(ran, Err(Cut::GivenUp)) {
            return;
        }
        if matches!(ran, Err(Cut::Stopped)) {
            // Cut short by the request's end: what it counted stands, as a lower bound.
            let code = (*lock(&sh.cut)).unwrap_or(ErrorCode::Budget);
            out.error = Some(CanopyError::new(code, "not counted to its end"));
        }
        publish(sh, &node, own, &path, out);
        sh.job_ended();
        if watch.abandoned() {
            // Nobody watches this worker's steps any more: a fresh one goes on.
            return;
        }
    }
}

/// Adds what a job counted to its chain, files its largest children and
/// its error, and releases its pending count.
fn publish<S: Source>(sh: &Shared<S>, node: &Arc<Sized>, own: bool, path: &Path, out: Outcome) {
    sh.add(node, &out.tally);
    if out.top.all.count > 0 {
        node.state().top.merge(out.top, sh.by_apparent());
    }
    if out.other_disk && own {
        node.state().other_disk = true;
    }
    if let Some(e) = &out.error {
        sh.short(node, e, path);
    }
    sh.release(node);
}

fn run_job<S: Source>(
    sh: &Shared<S>,
    job: Job<S::Folder>,
    claim: &Claim,
    out: &mut Outcome,
    buffer: &mut Vec<u8>,
    watch: &Watch,
) -> Result<(), Cut> {
    let deadline = Instant::now() + sh.call.folder_time;
    let node = job.node;
    let (dir, id, path, depth, more) = match job.work {
        Work::Folder {
            parent,
            name,
            path,
            depth,
        } => {
            let opened = match open(sh, parent.as_ref(), &name, &path, deadline, out, watch) {
                Ok(Some(opened)) => opened,
                Ok(None) => return Ok(()),
                Err(e) => {
                    if parent.is_none() {
                        *lock(&sh.root_error) = Some(e);
                    } else {
                        out.error = Some(e);
                    }
                    return Ok(());
                }
            };
            if parent.is_none() {
                sh.root_opened.store(true, SeqCst);
            }
            let (dir, id) = opened;
            let read = (&dir, id, path.as_path(), depth);
            let more = read_folder(sh, &node, read, false, claim, out, buffer, watch)?;
            (dir, id, path, depth, more)
        }
        Work::Rest {
            dir,
            id,
            subs,
            resume,
            path,
            depth,
        } => {
            let more = if subs.is_empty() && resume {
                // Its subfolders met so far are done or queued: read on.
                let read = (&dir, id, path.as_path(), depth);
                read_folder(sh, &node, read, true, claim, out, buffer, watch)?
            } else {
                out.subs = subs;
                resume
            };
            (dir, id, path, depth, more)
        }
        Work::Chunk {
            dir,
            id,
            names,
            path,
            depth,
        } => {
            if let Err(u) = watch.begin(Place::Device(id.dev), deadline) {
                out.error = Some(unresponsive(&u));
                return Ok(());
            }
            stat_names(sh, &node, &dir, depth, &names, out)?;
            (dir, id, path, depth, false)
        }
    };
    let subs = std::mem::take(&mut out.subs);
    expand(sh, &node, (&dir, id), &path, depth, subs, more, claim)
}

/// Queues up to `SIZES_EXPAND` of the subfolders `subs` of `dir` (at
/// `path`, `depth`) as jobs, above one job for the rest (the names left,
/// and the part not read yet when `resume`): taken last-in first-out, the
/// walk goes deep first, and what waits is O(`SIZES_EXPAND`) jobs for each
/// folder being read.
#[allow(clippy::too_many_arguments)]
fn expand<S: Source>(
    sh: &Shared<S>,
    node: &Arc<Sized>,
    (dir, id): (&Arc<S::Folder>, Identity),
    path: &Path,
    depth: u32,
    mut subs: Vec<u8>,
    resume: bool,
    claim: &Claim,
) -> Result<(), Cut> {
    let mut now = Vec::with_capacity(SIZES_EXPAND.min(subs.len() / 4));
    while now.len() < SIZES_EXPAND {
        match pop_name(&mut subs) {
            Some(name) => now.push(name),
            None => break,
        }
    }
    if !subs.is_empty() || resume {
        let g = claim.lock();
        if *g {
            return Err(Cut::GivenUp);
        }
        drop(g);
        sh.push(Job {
            work: Work::Rest {
                dir: dir.clone(),
                id,
                subs,
                resume,
                path: path.to_path_buf(),
                depth,
            },
            node: node.clone(),
        });
    }
    for name in now {
        queue_folder(sh, node, (dir, id), name, path, depth + 1, claim)?;
    }
    Ok(())
}

/// Opens a folder as a step (its entry, path, then device), counts its own
/// inode, and says whether it is to be read: `None` for a mount point of
/// another filesystem (left out, as `du -x` does).
fn open<S: Source>(
    sh: &Shared<S>,
    parent: Option<&(Arc<S::Folder>, Identity)>,
    name: &[u8],
    path: &Path,
    deadline: Instant,
    out: &mut Outcome,
    watch: &Watch,
) -> Result<Option<Opened<S::Folder>>, CanopyError> {
    let Some((parent, pid)) = parent else {
        // The root, by its path.
        watch
            .begin(Place::path(path), deadline)
            .map_err(|u| unresponsive(&u))?;
        let dir = sh
            .source
            .open_folder(path)
            .map_err(|e| CanopyError::from_io(&e, "cannot open folder"))?;
        let own = dir
            .usage_self()
            .map_err(|e| CanopyError::from_io(&e, "cannot examine folder"))?;
        watch
            .reached(Place::Device(own.dev))
            .map_err(|u| unresponsive(&u))?;
        let (id, _) = dir
            .identity()
            .map_err(|e| CanopyError::from_io(&e, "cannot examine folder"))?;
        sh.root_dev.store(id.dev, SeqCst);
        count_self(&own, out);
        return Ok(Some((Arc::new(dir), id)));
    };
    let entry = Place::Entry {
        dev: pid.dev,
        ino: pid.ino,
        name: name.into(),
    };
    let at = |places: Vec<Place>| watch.moved(places).map_err(|u| unresponsive(&u));
    watch
        .begin(entry.clone(), deadline)
        .map_err(|u| unresponsive(&u))?;
    let place = Place::path(path);
    at(vec![entry.clone(), place.clone(), Place::Device(pid.dev)])?;
    let cannot_open = |e: io::Error| CanopyError::from_io(&e, "cannot open folder");
    let dir = match parent.open_child_here(name) {
        Ok(Some(dir)) => dir,
        Ok(None) => {
            // A mount point, or a source that cannot tell: ask its identity first.
            let found = parent.look_up(name).map_err(cannot_open)?;
            at(vec![entry.clone(), place.clone()])?;
            let id = S::Folder::found_identity(&found)
                .map_err(|e| CanopyError::from_io(&e, "cannot examine folder"))?;
            if id.dev != sh.root_dev.load(Relaxed) {
                out.other_disk = true;
                return Ok(None);
            }
            at(vec![entry.clone(), place.clone(), Place::Device(id.dev)])?;
            parent.open_child(name).map_err(cannot_open)?
        }
        Err(e) => {
            let err = cannot_open(e);
            // Unreadable, but its own inode still counts (as du counts it).
            if let Ok(own) = parent.usage_child(name) {
                if own.dev == sh.root_dev.load(Relaxed) {
                    count_self(&own, out);
                }
            }
            return Err(err);
        }
    };
    let own = dir
        .usage_self()
        .map_err(|e| CanopyError::from_io(&e, "cannot examine folder"))?;
    let (id, _) = dir
        .identity()
        .map_err(|e| CanopyError::from_io(&e, "cannot examine folder"))?;
    if id.dev != sh.root_dev.load(Relaxed) {
        out.other_disk = true;
        return Ok(None);
    }
    at(vec![entry, place, Place::Device(id.dev)])?;
    count_self(&own, out);
    Ok(Some((Arc::new(dir), id)))
}

/// A folder's own inode.
fn count_self(own: &Usage, out: &mut Outcome) {
    out.tally.disk += own.disk;
    out.tally.apparent += own.apparent;
}

/// Starts a fresh step on the device of folder `id`, with a fresh
/// `folder_time`: one batch of names or one chunk of `lstat`s.
fn renew<S: Source>(sh: &Shared<S>, watch: &Watch, id: Identity) -> Result<(), CanopyError> {
    watch
        .begin(Place::Device(id.dev), Instant::now() + sh.call.folder_time)
        .map_err(|u| unresponsive(&u))
}

/// Reads an open folder's names from its first (or, when `resume`, where
/// its last reader stopped): the names that are not folders are `lstat`ed
/// here, or shared out in chunks when threads are idle; subfolders are
/// kept in `out.subs`. On a source that can resume a read it stops after
/// a batch that met subfolders, so they are counted before the rest is
/// read; returns whether names are left to read.
#[allow(clippy::too_many_arguments)]
fn read_folder<S: Source>(
    sh: &Shared<S>,
    node: &Arc<Sized>,
    (dir, id, path, depth): (&Arc<S::Folder>, Identity, &Path, u32),
    resume: bool,
    claim: &Claim,
    out: &mut Outcome,
    buffer: &mut Vec<u8>,
    watch: &Watch,
) -> Result<bool, Cut> {
    let started = if resume {
        dir.resume_entries(std::mem::take(buffer))
    } else {
        dir.entries(std::mem::take(buffer))
    };
    let mut stream = match started {
        Ok(s) => s,
        Err((e, b)) => {
            *buffer = b;
            out.error = Some(CanopyError::from_io(&e, "cannot read folder"));
            return Ok(false);
        }
    };
    let mut names: Vec<u8> = Vec::new();
    let mut in_chunk = 0usize;
    let mut subs = std::mem::take(&mut out.subs);
    let mut result = Ok(false);
    loop {
        if sh.must_stop() {
            result = Err(Cut::Stopped);
            break;
        }
        // Each batch of names is a step of its own: a large folder may take
        // long in all, a dead one never answers one call.
        if let Err(e) = renew(sh, watch, id) {
            out.error = Some(e);
            break;
        }
        let (mut read, mut met) = (0u64, 0u64);
        let mut unsafe_name: Option<CanopyError> = None;
        let more = stream.next_batch(&mut |raw| {
            read += 1;
            if !is_one_segment(raw.name) {
                // A hostile source's `a/b` or `..`: never looked up or
                // entered (it would name another place); its size is unknown.
                out.tally.files += 1;
                unsafe_name.get_or_insert_with(|| not_one_segment_error(raw.name));
            } else if raw.kind == Some(EntryKind::Folder) {
                met += 1;
                push_name(&mut subs, raw.name);
            } else {
                names.extend_from_slice(&(raw.name.len() as u32).to_ne_bytes());
                names.extend_from_slice(raw.name);
                in_chunk += 1;
            }
        });
        sh.entries.fetch_add(read, Relaxed);
        out.tally.folders += met;
        if let Some(e) = unsafe_name {
            out.error.get_or_insert(e);
        }
        let more = match more {
            Ok(more) => more,
            Err(e) => {
                out.error = Some(CanopyError::from_io(
                    &e,
                    "reading the folder failed part way",
                ));
                false
            }
        };
        if in_chunk >= SIZES_CHUNK && sh.hungry() {
            let job = Job {
                work: Work::Chunk {
                    dir: dir.clone(),
                    id,
                    names: std::mem::take(&mut names),
                    path: path.to_path_buf(),
                    depth,
                },
                node: node.clone(),
            };
            in_chunk = 0;
            let g = claim.lock();
            if *g {
                drop(g);
                *buffer = stream.into_buffer();
                return Err(Cut::GivenUp);
            }
            sh.push(job);
        } else if in_chunk >= SIZES_CHUNK {
            let chunk = std::mem::take(&mut names);
            in_chunk = 0;
            if let Err(e) = renew(sh, watch, id) {
                out.error = Some(e);
                break;
            }
            if let Err(cut) = stat_names(sh, node, dir, depth, &chunk, out) {
                result = Err(cut);
                break;
            }
            // What a large folder counted so far shows while it is read
            // (the figures only add up, so they are handed over in parts;
            // never after the job was given up).
            let g = claim.lock();
            if *g {
                drop(g);
                *buffer = stream.into_buffer();
                return Err(Cut::GivenUp);
            }
            sh.add(node, &std::mem::take(&mut out.tally));
        }
        if !more {
            break;
        }
        if !subs.is_empty() && dir.can_resume() {
            // Its subfolders first; the rest of it is read after them.
            result = Ok(true);
            break;
        }
    }
    *buffer = stream.into_buffer();
    out.subs = subs;
    if result.is_ok() && !names.is_empty() && out.error.is_none() {
        if let Err(e) = renew(sh, watch, id) {
            out.error = Some(e);
            return Ok(false);
        }
        stat_names(sh, node, dir, depth, &names, out)?;
    }
    if out.error.is_some() {
        return result.map(|_| false);
    }
    result
}

/// Queues the subfolder `name` of `dir` (at `dir_path`) as a job of its
/// own, unless this job was given up.
fn queue_folder<S: Source>(
    sh: &Shared<S>,
    node: &Arc<Sized>,
    (dir, id): (&Arc<S::Folder>, Identity),
    name: Box<[u8]>,
    dir_path: &Path,
    depth: u32,
    claim: &Claim,
) -> Result<(), Cut> {
    let g = claim.lock();
    if *g {
        return Err(Cut::GivenUp);
    }
    let path = child_path(dir_path, &name);
    let child = sh.node_for(node, depth, &name, &path);
    let fresh = !Arc::ptr_eq(&child, node);
    let job = Job {
        work: Work::Folder {
            parent: Some((dir.clone(), id)),
            name,
            path,
            depth,
        },
        node: child,
    };
    if fresh {
        // Its pending count is its own read, taken when it was made.
        sh.enqueue(job);
    } else {
        sh.push(job);
    }
    Ok(())
}

/// `lstat`s packed `names` of `dir` (at `depth`) and counts them; a name
/// that turns out to be a folder (its type was unknown) becomes a job.
fn stat_names<S: Source>(
    sh: &Shared<S>,
    node: &Arc<Sized>,
    dir: &Arc<S::Folder>,
    depth: u32,
    names: &[u8],
    out: &mut Outcome,
) -> Result<(), Cut> {
    let reported = node.keeps_largest && depth == node.depth;
    let mut rest = names;
    let mut since_check = 0u32;
    while rest.len() >= 4 {
        let len = u32::from_ne_bytes([rest[0], rest[1], rest[2], rest[3]]) as usize;
        let name = &rest[4..4 + len];
        rest = &rest[4 + len..];
        since_check += 1;
        if since_check == 16 {
            since_check = 0;
            if sh.must_stop() {
                return Err(Cut::Stopped);
            }
        }
        let u = match dir.usage_child(name) {
            Ok(u) => u,
            // Gone since its name was read: nothing to count.
            Err(e) if code_of(&e) == ErrorCode::NotFound => continue,
            Err(e) => {
                out.tally.files += 1;
                if out.error.is_none() {
                    out.error = Some(CanopyError::from_io(&e, "cannot examine an entry"));
                }
                continue;
            }
        };
        if u.kind == EntryKind::Folder {
            // Its type was not told with its name: a folder after all.
            out.tally.folders += 1;
            push_name(&mut out.subs, name);
            continue;
        }
        out.tally.files += 1;
        if u.links > 1 {
            sh.linked(node, &u, &mut out.tally);
        } else {
            out.tally.disk += u.disk;
            out.tally.apparent += u.apparent;
        }
        if reported {
            out.top.add(
                Cand {
                    name: name.into(),
                    kind: u.kind,
                    disk: u.disk,
                    apparent: u.apparent,
                    items: 1,
                    lower: false,
                    other_disk: false,
                    nested: Vec::new(),
                },
                sh.by_apparent(),
            );
        }
    }
    Ok(())
}

/// Counts everything below `root` (an absolute path in `source`) and
/// reports the root and the folders `call.report` names: the engine's front door
/// for folder sizes. `cancel` stops it at once (`CANCELLED`); `observer`
/// hears partial figures while it runs, on this thread.
///
/// # Errors
/// `INVALID_ARGUMENT` for a depth over `MAX_SIZES_DEPTH`; the root's own
/// code when it cannot be read (`NOT_FOUND`, `DENIED`, `NOT_A_DIRECTORY`,
/// `TIMEOUT` ...). A cancel is no error: the report comes back at once
/// with `budgetCut: CANCELLED` and lower bounds, as a spent budget does.
pub fn sizes<S: Source>(
    source: &S,
    root: &Path,
    call: &SizesCall,
    cancel: Option<CancelToken>,
    observer: Option<&dyn SizesObserver>,
) -> Result<SizesReport, CanopyError> {
    check_reported(&call.report)?;
    let started = Instant::now();
    crate::sys::raise_open_file_limit();
    let threads = match call.threads {
        0 => std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(SIZES_MAX_THREADS),
        n => n.min(SIZES_MAX_THREADS),
    };
    let role = Role {
        reported: true,
        keeps_largest: true,
        nest: match call.report {
            Reported::Largest(levels) => levels,
            _ => 0,
        },
    };
    let top = Sized::new(None, 0, Box::default(), root.to_path_buf(), role);
    let shown = match &call.report {
        Reported::Shown(folders) => folders.iter().cloned().collect(),
        _ => HashSet::new(),
    };
    let sh = Arc::new(Shared {
        source: source.clone(),
        root_dev: AtomicU64::new(0),
        call: call.clone(),
        cancel,
        deadline: call.budget.time.and_then(|t| started.checked_add(t)),
        root_path: root.to_path_buf(),
        shown,
        queue: Mutex::new(Queue {
            jobs: Vec::new(),
            running: 0,
        }),
        work_ready: Condvar::new(),
        links: Mutex::new(HashMap::new()),
        entries: AtomicU64::new(0),
        cut: Mutex::new(None),
        stopped: AtomicBool::new(false),
        reported: Mutex::new(vec![top.clone()]),
        finished: Mutex::new(Vec::new()),
        news: (Mutex::new(0), Condvar::new()),
        root_error: Mutex::new(None),
        root_opened: AtomicBool::new(false),
        threads,
    });
    // The root's job carries the root's own pending count.
    lock(&sh.queue).jobs.push(Job {
        work: Work::Folder {
            parent: None,
            name: Box::default(),
            path: root.to_path_buf(),
            depth: 0,
        },
        node: top.clone(),
    });
    let running = Arc::new(AtomicU64::new(threads as u64));
    for _ in 0..threads {
        let (sh, running) = (sh.clone(), running.clone());
        std::thread::spawn(move || {
            drive(&sh);
            running.fetch_sub(1, SeqCst);
            let (count, wake) = &sh.news;
            *lock(count) += 1;
            wake.notify_all();
        });
    }
    // Wait, telling the observer what changed.
    let mut last_partial = Instant::now();
    let (count, wake) = &sh.news;
    loop {
        // A cancel or a spent budget answers at once: a thread still in a
        // call finds the request stopped when it returns, and publishes
        // into figures nobody reads.
        let ended = running.load(SeqCst) == 0 || sh.must_stop();
        if let Some(obs) = observer {
            let due = last_partial.elapsed() >= SIZES_PROGRESS;
            let finished = std::mem::take(&mut *lock(&sh.finished));
            if !finished.is_empty() || due {
                let mut folders: Vec<FolderSizeReport> = Vec::new();
                for n in &finished {
                    folders.push(report_of(&sh, n, true));
                }
                if due {
                    last_partial = Instant::now();
                    let reported = lock(&sh.reported).clone();
                    for n in reported {
                        if !n.state().done && n.changed.swap(false, Relaxed) {
                            folders.push(report_of(&sh, &n, false));
                        }
                    }
                }
                // At a natural end the last folders done are still heard
                // (the observer hears each once, however fast the count);
                // after a cancel or a spent budget, only the report speaks.
                let stopped = ended && sh.must_stop();
                if !folders.is_empty() && !stopped && lock(&sh.root_error).is_none() {
                    obs.progress(&SizesProgress {
                        request_id: call.request_id,
                        folders,
                        entries: sh.entries.load(Relaxed),
                    });
                }
            }
        }
        if ended {
            break;
        }
        let mut c = lock(count);
        if *c == 0 {
            c = wake
                .wait_timeout(c, SIZES_PROGRESS)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        *c = 0;
    }
    if let Some(e) = lock(&sh.root_error).take() {
        return Err(e);
    }
    let cut = *lock(&sh.cut);
    if cut.is_some() && !top.state().done {
        // Every unfinished figure is a lower bound, and says why.
        let code = cut.unwrap_or(ErrorCode::Budget);
        for n in lock(&sh.reported).iter() {
            if !n.state().done {
                n.lower.store(true, Relaxed);
                let mut st = n.state();
                if !st.shortfalls.iter().any(|s| s.code == code) {
                    st.shortfalls.push(Shortfall {
                        code,
                        count: 1,
                        example: sh.shown(&n.path),
                    });
                }
            }
        }
    }
    let mut reported = std::mem::take(&mut *lock(&sh.reported));
    reported.sort_by_key(|n| n.depth);
    let mut reports: Vec<FolderSizeReport> = Vec::new();
    for n in &reported {
        reports.push(report_of(&sh, n, true));
        // Those kept inside its largest ([`Reported::Largest`]).
        let mut st = n.state();
        for c in &mut st.top.largest {
            reports.append(&mut c.nested);
        }
    }
    reports[1..].sort_by_key(|r| r.depth);
    let mut reports = reports.into_iter();
    let root_report = reports
        .next()
        .ok_or_else(|| CanopyError::new(ErrorCode::Io, "cannot read folder"))?;
    let folders = reports.collect();
    // The queue may hold jobs of a stopped request: drop them here.
    lock(&sh.queue).jobs.clear();
    lock(&sh.links).clear();
    Ok(SizesReport {
        request_id: call.request_id,
        root: root_report,
        folders,
        entries: sh.entries.load(Relaxed),
        elapsed_ms: started.elapsed().as_millis() as u64,
        budget_cut: cut,
    })
}

/// One thread: drives jobs of [`bounded`] until the work is done; a job
/// given up costs its folder `TIMEOUT`, and a fresh one goes on.
fn drive<S: Source>(sh: &Arc<Shared<S>>) {
    let slot: Arc<Mutex<Option<Running>>> = Arc::new(Mutex::new(None));
    loop {
        let (s, sl) = (sh.clone(), slot.clone());
        match bounded::run(move |watch| work(&s, &sl, watch)) {
            Ok(()) => return,
            Err(abandoned) => {
                let Some(job) = lock(&slot).take() else {
                    continue;
                };
                let mut g = job.claim.lock();
                if *g {
                    // It published before it was given up.
                    continue;
                }
                *g = true;
                drop(g);
                let e = abandoned.error(sh.call.folder_time);
                if job.root && !sh.root_opened.load(SeqCst) {
                    *lock(&sh.root_error) = Some(e.clone());
                    sh.stop(ErrorCode::Timeout);
                }
                sh.short(&job.node, &e, &job.path);
                sh.release(&job.node);
                sh.job_ended();
            }
        }
    }
}

/// The wire form of a reported folder's figures.
fn report_of<S: Source>(sh: &Shared<S>, n: &Arc<Sized>, done: bool) -> FolderSizeReport {
    let sizes = n.figures();
    let (largest, others) = if done {
        let st = n.state();
        let mut others = st.top.all.clone();
        let largest: Vec<ChildSize> = st
            .top
            .largest
            .iter()
            .map(|c| {
                others.count -= 1;
                others.disk_usage = others.disk_usage.saturating_sub(c.disk);
                others.apparent = others.apparent.saturating_sub(c.apparent);
                let shown = DisplayName::entry_name(&c.name);
                ChildSize {
                    name: shown.text,
                    name_parts: shown.parts,
                    handle: encode_handle(&child_path(&n.path, &c.name)),
                    kind: c.kind,
                    disk_usage: c.disk,
                    apparent: c.apparent,
                    items: c.items,
                    is_lower_bound: c.lower,
                    other_disk: c.other_disk,
                }
            })
            .collect();
        (Some(largest), Some(others))
    } else {
        (None, None)
    };
    FolderSizeReport {
        handle: encode_handle(&n.path),
        path: sh.shown(&n.path),
        depth: n.depth,
        sizes,
        done,
        largest,
        others,
    }
}

/// Gives each folder of `listing` (the root's too) its figures from
/// `report` (matched by handle): what `canopy-list --sizes` prints. A folder
/// the report does not name (deeper than its depth) is left without.
pub fn attach_sizes(listing: &mut Listing, report: &SizesReport) {
    let by_handle: HashMap<&str, &FolderSizes> = std::iter::once(&report.root)
        .chain(&report.folders)
        .map(|f| (f.handle.as_str(), &f.sizes))
        .collect();
    fn visit(e: &mut Entry, by_handle: &HashMap<&str, &FolderSizes>) {
        if let Some(folder) = &mut e.folder {
            folder.sizes = by_handle.get(e.handle.as_str()).map(|s| (*s).clone());
            for child in &mut folder.entries {
                visit(child, by_handle);
            }
        }
    }
    visit(&mut listing.root, &by_handle);
}

/// `INVALID_ARGUMENT` unless a depth or level count is 0..=`MAX_SIZES_DEPTH`.
fn check_reported(report: &Reported) -> Result<(), CanopyError> {
    let depth = match report {
        Reported::Depth(depth) | Reported::Largest(depth) => *depth,
        Reported::Shown(_) => 0,
    };
    if depth > MAX_SIZES_DEPTH {
        return Err(CanopyError::invalid(format!(
            "sizes depth must be 0 to {MAX_SIZES_DEPTH}, not {depth}"
        )));
    }
    Ok(())
}

/// Runs a `folder_sizes` request as the window sends it, on `source`.
///
/// # Errors
/// As [`sizes`].
pub fn sizes_request<S: Source>(
    source: &S,
    req: &SizesRequest,
    cancel: Option<CancelToken>,
    observer: Option<&dyn SizesObserver>,
) -> Result<SizesReport, CanopyError> {
    let report = match (&req.folders, req.depth) {
        (Some(_), Some(_)) => {
            return Err(CanopyError::invalid(
                "a sizes request gives a depth or the folders to report, not both",
            ))
        }
        (Some(folders), None) => {
            if folders.len() > SIZES_MAX_SHOWN {
                return Err(CanopyError::invalid(format!(
                    "a sizes request names at most {SIZES_MAX_SHOWN} folders, not {}",
                    folders.len()
                )));
            }
            let paths = folders.iter().map(|h| decode_handle(h));
            Reported::Shown(paths.collect::<Result<_, _>>()?)
        }
        (None, depth) => Reported::Depth(depth.unwrap_or(DEFAULT_SIZES_DEPTH)),
    };
    let call = SizesCall {
        request_id: req.request_id,
        report,
        by_apparent: req.by_apparent.unwrap_or(false),
        ..SizesCall::default()
    };
    check_reported(&call.report)?;
    let root = source.resolve(&req.root)?;
    sizes(source, &root, &call, cancel, observer)
}
