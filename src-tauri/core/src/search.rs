//! The search front door: entries below a folder whose names match a
//! pattern, or lines of their files that match a regular expression (or a
//! literal), through a [`Source`], breadth-first, under the same ignore
//! rules, excludes and budgets as a listing.
//!
//! Promises:
//! - folders are read breadth-first, each in byte order of its names, so
//!   the hits come in one stable order and a page after `skip` hits
//!   continues where the last ended (every hit exactly once while the tree
//!   does not change);
//! - a page `after` a [`SearchPosition`] (the last hit shown) reads on from
//!   there: folders before it are read for their names only (to reach the
//!   folders below them), no file before it is opened, and the file it
//!   names is read on from the end of the last shown hit's line;
//! - what git would ignore (and `.git`) is neither searched nor read when
//!   `hide_ignored`, nor is a name `exclude` matches; the dotfile setting
//!   applies as in a listing;
//! - file contents are matched by ripgrep's own searcher (`grep-searcher`,
//!   `grep-regex`), one searcher per walk reused for every file: at most
//!   `SEARCH_FILE_BYTES` of a file are read; a file with a NUL byte is
//!   binary and skipped (counted); links are never followed, only regular
//!   files are opened, each from its folder's open descriptor by name;
//! - the search stops at the request's budget (names read, bytes read,
//!   time) or a cancel, and says which (`cut`): every count is then a lower
//!   bound;
//! - an [`SearchObserver`] hears the hits as each folder or file is done
//!   with, in the order of the page and each hit once, with the counts so
//!   far, on the thread that searches (never after `search` returns);
//! - matching a file's contents is CPU work (`cpu_work`, `content_match`):
//!   it looks at the file's step deadline, the search's deadline and the
//!   cancel every few bytes, so a costly pattern costs that file (named in
//!   `problems` with `TIMEOUT`, its later hits missing), never work that
//!   goes on after the reply, and never a folder marked not responding.
//!
//! **Dead mounts.** The walk runs on a worker of [`crate::bounded`]: each
//! folder (its open, its rules, its names) is one step at its entry in the
//! parent, its path and its device, and each file searched is one step at
//! its entry and its device, each with `TIME_BUDGET`. A folder's files are
//! searched after its names are read, each as a work item of its own. A
//! step that does not return in time is left behind: that folder or that
//! file is named in `problems` with `TIMEOUT`, its hits (and for a folder,
//! the folders below it) are not counted, and the walk goes on from the
//! next item on a fresh worker. Only a root folder that does not answer
//! fails the whole search; a file in it that hangs costs that file.
#![forbid(unsafe_code)]

use std::collections::VecDeque;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder, Sink, SinkMatch};
use regex_automata::hybrid::dfa::Cache;

use crate::bounded::{self, Place, Watch};
use crate::cancel::CancelToken;
use crate::content_match::{ContentPattern, Matching, Stopped};
use crate::cpu_work::{blocking, CpuWork, Halt};
use crate::error::{code_of, CanopyError, ErrorCode};
use crate::filter::{Excludes, FilterScratch, NameFilter};
use crate::ignore_pattern::Meter;
use crate::ignore_rules::{IgnoreRules, IgnoreScratch};
use crate::limits::{
    MAX_NAMES_READ, REQUEST_TIME, SEARCH_BYTES, SEARCH_FILE_BYTES, SEARCH_HIT_OVERHEAD,
    SEARCH_LINE_BYTES, SEARCH_LINE_CHARS, SEARCH_PROBLEMS, TIME_BUDGET,
};
use crate::select::kind_of;
use crate::source::{EntryStream, Identity, Source, SourceFile, SourceFolder};
use crate::wire::EntryKind;

/// Where a page of a search ended: after the `nth` hit (from 1) of the
/// entry `name` of the folder `folder` (relative to the searched folder).
/// For a content hit, also where its line ends in the file and its
/// number: the next page reads that file on from there, not from its start.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SearchPosition {
    pub folder: PathBuf,
    pub name: Vec<u8>,
    pub nth: u64,
    pub offset: u64,
    pub line: u64,
}

impl SearchPosition {
    /// The position just after `hit`.
    pub fn after(hit: &SearchHit) -> SearchPosition {
        SearchPosition {
            folder: hit.path.parent().map(Path::to_path_buf).unwrap_or_default(),
            name: hit
                .path
                .file_name()
                .map(|n| n.as_bytes().to_vec())
                .unwrap_or_default(),
            nth: hit.nth,
            offset: hit.end,
            line: hit.line.as_ref().map_or(0, |(n, _)| *n),
        }
    }
}

/// Positions in the search's order: by folder, then entry, then hit.
impl PartialOrd for SearchPosition {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for SearchPosition {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        folder_order(&self.folder, &other.folder)
            .then_with(|| self.name.cmp(&other.name))
            .then(self.nth.cmp(&other.nth))
    }
}

/// The search's order of two folders (relative): breadth-first, each
/// level in byte order of its paths' names, as the walk reads them.
fn folder_order(a: &Path, b: &Path) -> std::cmp::Ordering {
    let (ca, cb) = (a.components().count(), b.components().count());
    ca.cmp(&cb).then_with(|| {
        a.components()
            .map(|c| c.as_os_str().as_bytes())
            .cmp(b.components().map(|c| c.as_os_str().as_bytes()))
    })
}

/// What to search for, and where to stop.
#[derive(Clone, Default)]
pub struct SearchQuery {
    /// Names to match: a whole-name glob, as [`NameFilter::parse_glob`]
    /// reads one. With `content`, only files whose names match are read.
    pub name: Option<String>,
    /// A regular expression (or a literal, with `literal`) to find in files.
    pub content: Option<String>,
    pub literal: bool,
    pub ignore_case: bool,
    pub hide_ignored: bool,
    pub show_dotfiles: bool,
    pub exclude: Option<Arc<Excludes>>,
    /// Hits before the page (a cursor's position).
    pub skip: u64,
    /// Read on after this position (the last hit of the page before);
    /// hits up to it are neither counted nor kept.
    pub after: Option<SearchPosition>,
    /// Hits on the page; the search stops at the one after them, unless
    /// `count_all`.
    pub limit: u64,
    /// The page also ends once its hits' bytes (path, line as shown, at
    /// most `SEARCH_LINE_CHARS`, and `SEARCH_HIT_OVERHEAD` each) pass this: a face that prints at most so
    /// much reads no further than it can show.
    pub page_bytes: Option<u64>,
    /// Go on past the page to the tree's end (or the budget), counting
    /// every hit (`total`) and, for a content search, each file's
    /// (`file_counts`); hits past the page are counted, never kept.
    pub count_all: bool,
    pub cancel: Option<CancelToken>,
    /// Time in all (default `REQUEST_TIME`).
    pub time: Option<Duration>,
    /// Names read in all (default `MAX_NAMES_READ`).
    pub max_names: Option<u64>,
    /// `name` is read as the filter field reads it (a substring, unless it
    /// has `*`, `?` or `[...]`: then a whole-name glob), not as a glob.
    pub name_as_filter: bool,
    /// With both `name` and `content`: an entry whose name matches is a
    /// hit, and every file's contents are searched (instead of only the
    /// files whose names match). The window's Find asks so.
    pub names_or_contents: bool,
    /// Hears the hits as they are found (see [`SearchObserver`]).
    pub observer: Option<Arc<dyn SearchObserver>>,
}

/// Hears a search's hits as they are found: what a face that shows them
/// while the search runs (the window's Find) listens with.
pub trait SearchObserver: Send + Sync {
    /// `hits` were just added to the page (in its order, each once);
    /// `so_far` holds the counts up to them (its `hits` are the whole page
    /// so far). Called on the thread that searches, with the search's
    /// state held: keep it short.
    fn found(&self, hits: &[SearchHit], so_far: &SearchResult);
}

/// One hit: an entry whose name matched, or a line of a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchHit {
    /// Relative to the searched folder.
    pub path: PathBuf,
    pub kind: EntryKind,
    /// Which hit of its entry this is, from 1 (a name hit is its entry's one).
    pub nth: u64,
    /// For a content hit: the byte offset just past its line in the file.
    pub end: u64,
    /// For a content hit: the line's number (from 1) and its bytes
    /// (without the line end), at most `SEARCH_LINE_BYTES` of them (enough
    /// to show it as the whole line would be shown).
    pub line: Option<(u64, Vec<u8>)>,
}

/// What a search found and what it looked through.
#[derive(Debug, Clone, Default)]
pub struct SearchResult {
    /// The page: at most `limit` hits after the first `skip`.
    pub hits: Vec<SearchHit>,
    /// More hits follow the page.
    pub more: bool,
    /// Hits counted, the skipped ones and the page's included: with
    /// `count_all`, every hit of the tree (at least, when `cut` or a
    /// problem timed out).
    pub total: u64,
    /// With `count_all`, each file with content hits and how many, in the
    /// search's order.
    pub file_counts: Vec<(PathBuf, u64)>,
    pub folders: u64,
    pub files: u64,
    pub bytes: u64,
    /// Files skipped as binary.
    pub binary: u64,
    /// Entries hidden because git would ignore them (`hide_ignored`):
    /// neither matched nor read.
    pub ignored: u64,
    /// Files read only to `SEARCH_FILE_BYTES`.
    pub truncated: u64,
    /// Hits by name (on the page or before it).
    pub name_hits: u64,
    /// Files with at least one matching line, and matching lines.
    pub content_files: u64,
    pub content_lines: u64,
    /// Entries (folders or files) that could not be read.
    pub failed: u64,
    /// The first `SEARCH_PROBLEMS` of them, by path (relative to the
    /// searched folder), with why: a folder or file that did not answer in
    /// time says `TIMEOUT`, and its hits are missing.
    pub problems: Vec<(PathBuf, CanopyError)>,
    /// Why the search stopped before the tree's end, when it did (the
    /// counts are then lower bounds and hits may be missing after the page).
    pub cut: Option<String>,
    /// With `cut`: where the next page reads on from (the folder or file
    /// the budget stopped at), when that is past where this page began,
    /// so a page cut before its first hit resumes too.
    pub resume: Option<SearchPosition>,
}

impl SearchResult {
    /// Some folder or file did not answer in time: the counts are lower
    /// bounds, and hits may be missing there.
    pub fn timed_out(&self) -> bool {
        self.problems
            .iter()
            .any(|(_, e)| e.code == ErrorCode::Timeout)
    }

    fn problem(&mut self, path: PathBuf, err: CanopyError) {
        self.failed += 1;
        if self.problems.len() < SEARCH_PROBLEMS {
            self.problems.push((path, err));
        }
    }
}

/// Searches below the folder at `root` (absolute) in `source`, on bounded
/// workers (see the module docs).
///
/// # Errors
/// `INVALID_ARGUMENT` for neither a name nor a content pattern, a bad name
/// pattern or regular expression; the root's code when it cannot be read;
/// `CANCELLED`; `TIMEOUT` when the root does not answer.
pub fn search<S: Source>(
    source: &S,
    root: &Path,
    query: &SearchQuery,
) -> Result<SearchResult, CanopyError> {
    if query.name.is_none() && query.content.is_none() {
        return Err(CanopyError::invalid("give name, content, or both"));
    }
    let name = query
        .name
        .as_deref()
        .map(|n| {
            if query.name_as_filter {
                NameFilter::parse(n)
            } else {
                NameFilter::parse_glob(n)
            }
        })
        .transpose()?;
    let matcher = query
        .content
        .as_deref()
        .map(|c| {
            ContentPattern::new(c, query.literal, query.ignore_case)
                .map_err(|e| CanopyError::invalid(format!("content is not a regular expression this search reads ({e}); pass literal: true to search for the text as it is")))
        })
        .transpose()?;
    let time = query.time.unwrap_or(REQUEST_TIME);
    crate::sys::raise_open_file_limit();
    let shared = Arc::new(Shared {
        source: source.clone(),
        root: root.to_path_buf(),
        query: query.clone(),
        name,
        matcher,
        time,
        deadline: Instant::now() + time,
    });
    let state: Arc<Mutex<State<S::Folder>>> = Arc::new(Mutex::new(State::default()));
    loop {
        let generation = lock(&state).generation;
        let (sh, st) = (shared.clone(), state.clone());
        match bounded::run(move |watch| run(&sh, &st, generation, watch)) {
            Ok(Ok(())) => break,
            Ok(Err(e)) => return Err(e),
            Err(abandoned) => {
                // Left behind: that folder is not responding; go on without it.
                let mut s = lock(&state);
                s.generation += 1;
                if !s.root_read {
                    return Err(abandoned.error(TIME_BUDGET));
                }
                if let Some(path) = s.current.take() {
                    s.result.problem(path, abandoned.error(TIME_BUDGET));
                }
            }
        }
    }
    let mut s = lock(&state);
    // A worker left behind must never write into what is returned.
    s.generation += 1;
    s.queue.clear();
    s.result.total = s.seen;
    match s.stop.take() {
        Some(Stop::Cancelled) => Err(CanopyError::cancelled()),
        Some(Stop::Cut(why)) => {
            s.result.cut = Some(why);
            s.result.resume = s
                .stopped_at
                .take()
                .filter(|at| query.after.as_ref().is_none_or(|from| at > from));
            Ok(std::mem::take(&mut s.result))
        }
        Some(Stop::PageFull) | None => Ok(std::mem::take(&mut s.result)),
    }
}

/// What every job of one search shares, unchanged.
struct Shared<S: Source> {
    source: S,
    root: PathBuf,
    query: SearchQuery,
    name: Option<NameFilter>,
    matcher: Option<ContentPattern>,
    time: Duration,
    deadline: Instant,
}

impl<S: Source> Shared<S> {
    fn max_names(&self) -> u64 {
        self.query.max_names.unwrap_or(MAX_NAMES_READ)
    }
}

/// Where the search stands, between jobs.
struct State<F> {
    /// Bumped when a job is left behind: its late writes are dropped.
    generation: u64,
    root_read: bool,
    /// Folders found and not read yet, breadth-first, each folder's files
    /// to search ahead of them.
    queue: VecDeque<Work<F>>,
    /// The folder or file being read (relative), for the `TIMEOUT` of a
    /// job left behind.
    current: Option<PathBuf>,
    result: SearchResult,
    /// Hits found so far (shown or skipped).
    seen: u64,
    /// The page's bytes so far (see `page_bytes`).
    page_bytes: u64,
    names: u64,
    stop: Option<Stop>,
    /// The work item the budget stopped at (see `SearchResult::resume`).
    stopped_at: Option<SearchPosition>,
}

impl<F> Default for State<F> {
    fn default() -> Self {
        State {
            generation: 0,
            root_read: false,
            queue: VecDeque::new(),
            current: None,
            result: SearchResult::default(),
            seen: 0,
            page_bytes: 0,
            names: 0,
            stop: None,
            stopped_at: None,
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// A subfolder to read: opened from its parent, by name, in its own step.
struct Pending<F> {
    parent: Arc<F>,
    parent_id: Identity,
    name: Vec<u8>,
    rel: PathBuf,
    rules: Option<Arc<IgnoreRules>>,
}

/// A regular file whose contents are to be searched, opened from its
/// folder by name in a step of its own.
struct PendingFile<F> {
    dir: Arc<F>,
    id: Identity,
    name: Vec<u8>,
    rel: PathBuf,
    /// Its hits the pages before showed (read past them).
    shown_before: u64,
    /// Where the last of those ends and its line number: read from there.
    from: (u64, u64),
}

/// Where a folder lies from the position a page reads on after.
enum Side<'q> {
    Before,
    At(&'q SearchPosition),
    After,
}

/// One item of the queue.
enum Work<F> {
    Folder(Pending<F>),
    File(PendingFile<F>),
}

impl<F> Work<F> {
    fn rel(&self) -> &Path {
        match self {
            Work::Folder(p) => &p.rel,
            Work::File(f) => &f.rel,
        }
    }

    /// A page starting here does this item whole: a folder from its first
    /// name, a file past the hits pages before it showed.
    fn start(&self) -> SearchPosition {
        match self {
            Work::Folder(p) => SearchPosition {
                folder: p.rel.clone(),
                ..SearchPosition::default()
            },
            Work::File(f) => SearchPosition {
                folder: f.rel.parent().map(Path::to_path_buf).unwrap_or_default(),
                name: f.name.clone(),
                nth: f.shown_before,
                offset: f.from.0,
                line: f.from.1,
            },
        }
    }
}

/// Why the walk stops early.
#[derive(Debug, Clone)]
enum Stop {
    PageFull,
    Cut(String),
    Cancelled,
}

/// One folder's findings, counted from where the search stood when it
/// began: committed whole, or dropped when its job was left behind.
struct Tally<F> {
    seen: u64,
    page_bytes: u64,
    names: u64,
    /// Bytes read before this folder (for the budget).
    bytes_before: u64,
    found: SearchResult,
    children: Vec<Pending<F>>,
    /// The folder's files to search, in name order.
    files: Vec<PendingFile<F>>,
    stop: Option<Stop>,
}

impl<F> Tally<F> {
    fn from(s: &State<F>) -> Tally<F> {
        Tally {
            seen: s.seen,
            page_bytes: s.page_bytes,
            names: s.names,
            bytes_before: s.result.bytes,
            found: SearchResult::default(),
            children: Vec::new(),
            files: Vec::new(),
            stop: None,
        }
    }

    /// Adds the tally to the state, its files to the front of the queue
    /// (next, in name order) and its subfolders to the back, and tells the
    /// observer.
    fn commit(self, s: &mut State<F>, observer: Option<&dyn SearchObserver>) {
        let f = self.found;
        let r = &mut s.result;
        let before = r.hits.len();
        r.hits.extend(f.hits);
        r.file_counts.extend(f.file_counts);
        r.name_hits += f.name_hits;
        r.content_files += f.content_files;
        r.content_lines += f.content_lines;
        r.more |= f.more;
        r.folders += f.folders;
        r.files += f.files;
        r.bytes += f.bytes;
        r.binary += f.binary;
        r.ignored += f.ignored;
        r.truncated += f.truncated;
        // `problem` counts the named ones again as it keeps them.
        r.failed += f.failed - f.problems.len() as u64;
        for (path, err) in f.problems {
            r.problem(path, err);
        }
        s.seen = self.seen;
        s.page_bytes = self.page_bytes;
        s.names = self.names;
        for f in self.files.into_iter().rev() {
            s.queue.push_front(Work::File(f));
        }
        s.queue.extend(self.children.into_iter().map(Work::Folder));
        if s.stop.is_none() {
            s.stop = self.stop;
        }
        if let Some(o) = observer {
            o.found(&s.result.hits[before..], &s.result);
        }
    }
}

/// The budgets, checked before each folder and each file.
fn check<S: Source>(sh: &Shared<S>, names: u64, bytes: u64) -> Result<(), Stop> {
    if sh
        .query
        .cancel
        .as_ref()
        .is_some_and(CancelToken::is_cancelled)
    {
        return Err(Stop::Cancelled);
    }
    if Instant::now() > sh.deadline {
        return Err(time_spent(sh.time));
    }
    if names >= sh.max_names() {
        return Err(Stop::Cut(format!("{} names were read", sh.max_names())));
    }
    if bytes >= SEARCH_BYTES {
        return Err(Stop::Cut(format!("{SEARCH_BYTES} bytes were read")));
    }
    Ok(())
}

/// The search stopped at its time budget (`time`).
fn time_spent(time: Duration) -> Stop {
    let secs = time.as_secs_f32();
    Stop::Cut(format!("the search's time budget ({secs} s) was spent"))
}

/// A step's deadline: its own budget, never past the search's end (plus
/// the time a step left behind takes to notice).
fn step_deadline<S: Source>(sh: &Shared<S>) -> Instant {
    (Instant::now() + TIME_BUDGET).min(sh.deadline + TIME_BUDGET)
}

/// One job: the root if it was not read, then queued folders and files in
/// order, until the queue is empty or the search stops.
fn run<S: Source>(
    sh: &Shared<S>,
    st: &Mutex<State<S::Folder>>,
    generation: u64,
    watch: &Watch,
) -> Result<(), CanopyError> {
    let mut searcher = SearcherBuilder::new()
        .line_number(true)
        .binary_detection(BinaryDetection::quit(b'\0'))
        .build();
    // CPU work in the job (matching) stops at a cancel too.
    watch.stop_on(sh.query.cancel.clone());
    let mut job = Job {
        sh,
        watch,
        searcher: &mut searcher,
        cache: sh
            .matcher
            .as_ref()
            .and_then(ContentPattern::cache)
            .map(std::cell::RefCell::new),
        scratch: IgnoreScratch::default(),
        fscratch: FilterScratch::default(),
    };
    if !lock(st).root_read {
        let tally = Tally::from(&lock(st));
        let tally = job.root(tally)?;
        let mut s = lock(st);
        if s.generation != generation || watch.abandoned() {
            return Ok(());
        }
        s.root_read = true;
        tally.commit(&mut s, sh.query.observer.as_deref());
    }
    loop {
        let (pending, tally) = {
            let mut s = lock(st);
            if s.generation != generation || s.stop.is_some() {
                return Ok(());
            }
            let Some(p) = s.queue.pop_front() else {
                return Ok(());
            };
            if let Err(stop) = check(sh, s.names, s.result.bytes) {
                s.stopped_at = Some(p.start());
                s.stop = Some(stop);
                return Ok(());
            }
            s.current = Some(p.rel().to_path_buf());
            let tally = Tally::from(&s);
            (p, tally)
        };
        let tally = match &pending {
            Work::Folder(p) => job.child(p, tally),
            Work::File(f) => job.file(tally, f),
        };
        let mut s = lock(st);
        if s.generation != generation || watch.abandoned() {
            return Ok(());
        }
        s.current = None;
        if matches!(tally.stop, Some(Stop::Cut(_))) && s.stop.is_none() {
            s.stopped_at = Some(pending.start());
        }
        tally.commit(&mut s, sh.query.observer.as_deref());
    }
}

/// A job's tools: the shared query, its watch, its searcher and scratch.
struct Job<'j, S: Source> {
    sh: &'j Shared<S>,
    watch: &'j Watch,
    searcher: &'j mut Searcher,
    /// The content pattern's automaton cache, reused from file to file.
    cache: Option<std::cell::RefCell<Cache>>,
    scratch: IgnoreScratch,
    fscratch: FilterScratch,
}

impl<S: Source> Job<'_, S> {
    /// Reads the root, as one step at its path and device.
    fn root(&mut self, mut tally: Tally<S::Folder>) -> Result<Tally<S::Folder>, CanopyError> {
        let sh = self.sh;
        let watch = self.watch;
        watch
            .begin(Place::path(&sh.root), step_deadline(sh))
            .map_err(|u| u.error())?;
        let dir = sh
            .source
            .open_folder(&sh.root)
            .map_err(|e| CanopyError::from_io(&e, "cannot open folder"))?;
        let (id, _) = dir
            .identity()
            .map_err(|e| CanopyError::from_io(&e, "cannot examine folder"))?;
        watch
            .reached(Place::Device(id.dev))
            .map_err(|u| u.error())?;
        let rules = sh.query.hide_ignored.then(|| {
            let mut meter = Meter::new(Some(sh.deadline), sh.query.cancel.as_ref());
            Arc::new(sh.source.ignore_rules(&sh.root, &mut meter).0)
        });
        self.folder(&mut tally, Arc::new(dir), id, Path::new(""), rules);
        watch.end();
        if let Some(Stop::Cancelled) = tally.stop {
            return Err(CanopyError::cancelled());
        }
        Ok(tally)
    }

    /// Opens and reads a folder below the root. Each call is placed where
    /// it acts, as a listing's are: the lookup at the parent's device, the
    /// open at the child's device once known (a mount point is looked up
    /// first). A folder that cannot be opened is a problem of its own.
    fn child(&mut self, p: &Pending<S::Folder>, mut tally: Tally<S::Folder>) -> Tally<S::Folder> {
        let sh = self.sh;
        let watch = self.watch;
        let abs = sh.root.join(&p.rel);
        let entry = Place::Entry {
            dev: p.parent_id.dev,
            ino: p.parent_id.ino,
            name: p.name.clone().into_boxed_slice(),
        };
        let path = Place::path(&abs);
        let at = |places: Vec<Place>| watch.moved(places).map_err(|u| u.error());
        let opened = watch
            .begin(entry.clone(), step_deadline(sh))
            .map_err(|u| u.error())
            .and_then(|()| {
                at(vec![
                    entry.clone(),
                    path.clone(),
                    Place::Device(p.parent_id.dev),
                ])
            })
            .and_then(|()| {
                p.parent
                    .open_child_here(&p.name)
                    .map_err(|e| open_error(&e))
            })
            .and_then(|here| match here {
                Some(dir) => {
                    let (id, _) = dir
                        .identity()
                        .map_err(|e| CanopyError::from_io(&e, "cannot examine folder"))?;
                    at(vec![entry.clone(), path.clone(), Place::Device(id.dev)])?;
                    Ok((dir, id))
                }
                None => {
                    let found = p.parent.look_up(&p.name).map_err(|e| open_error(&e))?;
                    at(vec![entry.clone(), path.clone()])?;
                    let id = S::Folder::found_identity(&found)
                        .map_err(|e| CanopyError::from_io(&e, "cannot examine folder"))?;
                    at(vec![entry.clone(), path.clone(), Place::Device(id.dev)])?;
                    let dir = p.parent.open_child(&p.name).map_err(|e| open_error(&e))?;
                    Ok((dir, id))
                }
            });
        let (dir, id) = match opened {
            Ok(k) => k,
            Err(e) => {
                watch.end();
                tally.found.problem(p.rel.clone(), e);
                return tally;
            }
        };
        let rules = p
            .rules
            .as_ref()
            .map(|parent| Arc::new(sh.source.child_ignore_rules(parent, &p.name, &dir, &abs).0));
        self.folder(&mut tally, Arc::new(dir), id, &p.rel, rules);
        watch.end();
        tally
    }

    /// Reads one folder: its names in byte order, each matched, each file
    /// to search and each subfolder queued. The folder's step is the
    /// current one.
    fn folder(
        &mut self,
        t: &mut Tally<S::Folder>,
        dir: Arc<S::Folder>,
        id: Identity,
        rel: &Path,
        rules: Option<Arc<IgnoreRules>>,
    ) {
        let sh = self.sh;
        t.found.folders += 1;
        let side = match &sh.query.after {
            None => Side::After,
            Some(at) => match folder_order(rel, &at.folder) {
                std::cmp::Ordering::Less => Side::Before,
                std::cmp::Ordering::Equal => Side::At(at),
                std::cmp::Ordering::Greater => Side::After,
            },
        };
        let mut names: Vec<(Vec<u8>, EntryKind)> = Vec::new();
        let mut meter = Meter::new(Some(sh.deadline), sh.query.cancel.as_ref());
        let read = match dir.entries(Vec::new()) {
            Ok(mut stream) => {
                let mut more = true;
                let mut failed = None;
                // One huge folder is held to the names budget too.
                let room = sh.max_names().saturating_sub(t.names);
                while more {
                    if names.len() as u64 >= room || Instant::now() > sh.deadline {
                        t.names += names.len() as u64;
                        t.stop = Some(
                            check(sh, t.names, t.bytes_before + t.found.bytes)
                                .err()
                                .unwrap_or_else(|| {
                                    Stop::Cut(format!("{} names were read", sh.max_names()))
                                }),
                        );
                        return;
                    }
                    match stream.next_batch(&mut |raw| {
                        names.push((raw.name.to_vec(), kind_of(&*dir, &raw)));
                    }) {
                        Ok(m) => more = m,
                        Err(e) => {
                            failed = Some(e);
                            more = false;
                        }
                    }
                }
                failed
            }
            Err((e, _)) => Some(e),
        };
        if let Some(e) = read {
            t.found.problem(
                rel.to_path_buf(),
                CanopyError::from_io(&e, "cannot read folder"),
            );
        }
        t.names += names.len() as u64;
        names.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        for (name, kind) in names {
            if !sh.query.show_dotfiles && name.first() == Some(&b'.') {
                continue;
            }
            if let Some(r) = &rules {
                match r.is_ignored(
                    &name,
                    kind == EntryKind::Folder,
                    &mut self.scratch,
                    &mut meter,
                ) {
                    Ok(true) => {
                        t.found.ignored += 1;
                        continue;
                    }
                    Ok(false) => {}
                    Err(_) => {
                        t.stop = Some(
                            check(sh, t.names, t.bytes_before + t.found.bytes)
                                .err()
                                .unwrap_or(Stop::Cancelled),
                        );
                        return;
                    }
                }
            }
            if sh
                .query
                .exclude
                .as_ref()
                .is_some_and(|x| x.matches(&name, &mut self.fscratch))
            {
                continue;
            }
            let path = rel.join(std::ffi::OsStr::from_bytes(&name));
            let name_ok = sh
                .name
                .as_ref()
                .is_none_or(|f| f.matches(&name, &mut self.fscratch));
            // A name search reads every file's name; a content search counts
            // the files it reads (in `search_file`).
            if kind == EntryKind::File && sh.matcher.is_none() {
                t.found.files += 1;
            }
            // Hits up to the position are the pages before this one's.
            let (shown_before, from) = match side {
                Side::Before => (u64::MAX, (0, 0)),
                Side::At(at) => match name.as_slice().cmp(&at.name) {
                    std::cmp::Ordering::Less => (u64::MAX, (0, 0)),
                    std::cmp::Ordering::Equal => (at.nth, (at.offset, at.line)),
                    std::cmp::Ordering::Greater => (0, (0, 0)),
                },
                Side::After => (0, (0, 0)),
            };
            // A name hit: the name is what is searched, or (Find) names are
            // found beside contents.
            let by_name = sh.matcher.is_none() || (sh.query.names_or_contents && sh.name.is_some());
            if name_ok && by_name && shown_before == 0 {
                if let Err(stop) = hit(t, &sh.query, || SearchHit {
                    path: path.clone(),
                    kind,
                    nth: 1,
                    end: 0,
                    line: None,
                }) {
                    t.stop = Some(stop);
                    return;
                }
                t.found.name_hits += 1;
            }
            let read_it = name_ok || sh.query.names_or_contents;
            if sh.matcher.is_some() && read_it && kind == EntryKind::File && shown_before < u64::MAX
            {
                t.files.push(PendingFile {
                    dir: dir.clone(),
                    id,
                    name: name.clone(),
                    rel: path.clone(),
                    shown_before,
                    from,
                });
            }
            if kind == EntryKind::Folder {
                t.children.push(Pending {
                    parent: dir.clone(),
                    parent_id: id,
                    name,
                    rel: path,
                    rules: rules.clone(),
                });
            }
        }
    }

    /// Searches one regular file's contents, as a step of its own at its
    /// entry and its folder's device.
    fn file(
        &mut self,
        mut tally: Tally<S::Folder>,
        f: &PendingFile<S::Folder>,
    ) -> Tally<S::Folder> {
        let before = tally.seen;
        if let Err(stop) = self.search_file(&mut tally, f) {
            tally.stop = Some(stop);
        }
        if self.sh.query.count_all && tally.seen > before {
            tally
                .found
                .file_counts
                .push((f.rel.clone(), tally.seen - before));
        }
        self.watch.end();
        tally
    }

    fn search_file(
        &mut self,
        t: &mut Tally<S::Folder>,
        f: &PendingFile<S::Folder>,
    ) -> Result<(), Stop> {
        let sh = self.sh;
        let Some(matcher) = &sh.matcher else {
            return Ok(());
        };
        let (dir, id, name, rel) = (&*f.dir, f.id, &f.name[..], f.rel.as_path());
        let entry = Place::Entry {
            dev: id.dev,
            ino: id.ino,
            name: name.into(),
        };
        let step = self
            .watch
            .begin(entry, step_deadline(sh))
            .and_then(|()| self.watch.reached(Place::Device(id.dev)));
        if let Err(u) = step {
            t.found.problem(rel.to_path_buf(), u.error());
            return Ok(());
        }
        t.found.files += 1;
        let file = match sh.source.open_child_file(dir, name, &sh.root.join(rel)) {
            Ok(f) => f,
            Err(e) => {
                t.found.problem(rel.to_path_buf(), e);
                return Ok(());
            }
        };
        let size = file.size();
        if size > SEARCH_FILE_BYTES {
            t.found.truncated += 1;
        }
        // A page reading on in this file starts past the hits shown before.
        let (start, first_line) = f.from;
        let mut reader = FileReader {
            file: &file,
            pos: start,
            // A size of 0 may be a file that says none (as in `/proc`).
            end: if size == 0 {
                SEARCH_FILE_BYTES
            } else {
                size.min(SEARCH_FILE_BYTES)
            },
            deadline: sh.deadline,
            time: sh.time,
            cancel: sh.query.cancel.as_ref(),
            stop: None,
        };
        let mut sink = Hits {
            tally: t,
            query: &sh.query,
            rel,
            nth: if start > 0 { f.shown_before } else { 0 },
            shown_before: f.shown_before,
            start,
            first_line,
            binary: false,
            lines: 0,
            stop: None,
        };
        let (outcome, stopped) = {
            let work = CpuWork::start();
            let matching = Matching::new(matcher, self.cache.as_ref(), &work, sh.deadline);
            let outcome = self
                .searcher
                .search_reader(&matching, &mut reader, &mut sink);
            (outcome, matching.stopped())
        };
        let (binary, stop, lines) = (sink.binary, sink.stop, sink.lines);
        if lines > 0 {
            t.found.content_files += 1;
            t.found.content_lines += lines;
        }
        t.found.bytes += reader.pos.saturating_sub(start);
        if binary {
            t.found.binary += 1;
        }
        if let Some(stop) = stop.or(reader.stop) {
            return Err(stop);
        }
        match stopped {
            None => {}
            Some(Stopped::Deadline) => return Err(time_spent(sh.time)),
            Some(Stopped::Halt(Halt::Cancelled)) => return Err(Stop::Cancelled),
            Some(Stopped::Halt(_)) => {
                t.found.problem(
                    rel.to_path_buf(),
                    CanopyError::new(
                        ErrorCode::Timeout,
                        format!(
                            "matching this file took longer than {} ms (the pattern is costly on its lines) and was stopped: its hits past the first {} bytes read are missing",
                            TIME_BUDGET.as_millis(),
                            reader.pos
                        ),
                    ),
                );
                return Ok(());
            }
        }
        if let Err(e) = outcome {
            t.found.problem(
                rel.to_path_buf(),
                CanopyError::from_io(&e, "cannot read file"),
            );
        }
        Ok(())
    }
}

fn open_error(err: &io::Error) -> CanopyError {
    if code_of(err) == ErrorCode::NotFound {
        CanopyError::new(
            ErrorCode::NotFound,
            "it disappeared while the folder was being searched",
        )
    } else {
        CanopyError::from_io(err, "cannot open folder")
    }
}

/// Counts a hit (made only when it is on the page); `Err(PageFull)` once
/// one past the page is found, unless every hit is counted (`count_all`).
fn hit<F>(
    t: &mut Tally<F>,
    query: &SearchQuery,
    hit: impl FnOnce() -> SearchHit,
) -> Result<(), Stop> {
    t.seen += 1;
    let full = t.page_bytes > query.page_bytes.unwrap_or(u64::MAX);
    if full || t.seen > query.skip.saturating_add(query.limit) {
        t.found.more = true;
        return if query.count_all {
            Ok(())
        } else {
            Err(Stop::PageFull)
        };
    }
    if t.seen > query.skip {
        let h = hit();
        t.page_bytes += h.path.as_os_str().len() as u64
            + h.line
                .as_ref()
                .map_or(0, |(_, l)| l.len().min(SEARCH_LINE_CHARS) as u64)
            + SEARCH_HIT_OVERHEAD;
        t.found.hits.push(h);
    }
    Ok(())
}

/// A [`SourceFile`] read from its start, up to `end`, stopping at the
/// search's deadline or cancel.
struct FileReader<'f, F: SourceFile> {
    file: &'f F,
    pos: u64,
    end: u64,
    deadline: Instant,
    time: Duration,
    cancel: Option<&'f CancelToken>,
    stop: Option<Stop>,
}

impl<F: SourceFile> io::Read for FileReader<'_, F> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let left = self.end.saturating_sub(self.pos);
        let want = (buf.len() as u64).min(left) as usize;
        if want == 0 {
            return Ok(0);
        }
        if self.cancel.is_some_and(CancelToken::is_cancelled) {
            self.stop = Some(Stop::Cancelled);
            return Ok(0);
        }
        if self.pos > 0 && Instant::now() > self.deadline {
            self.stop = Some(time_spent(self.time));
            return Ok(0);
        }
        // A read may block (a dead mount): not CPU work (see `cpu_work`).
        let n = blocking(|| self.file.read_at(&mut buf[..want], self.pos))?;
        self.pos += n as u64;
        Ok(n)
    }
}

/// The searcher's sink: each matching line a hit.
struct Hits<'w, F> {
    tally: &'w mut Tally<F>,
    query: &'w SearchQuery,
    rel: &'w Path,
    /// Hits in this file so far, and how many of them the pages before showed.
    nth: u64,
    shown_before: u64,
    /// Where the reader began in the file, and the line before it.
    start: u64,
    first_line: u64,
    binary: bool,
    /// Lines of this file counted as hits.
    lines: u64,
    stop: Option<Stop>,
}

impl<F> Sink for Hits<'_, F> {
    type Error = io::Error;

    fn matched(&mut self, _s: &Searcher, mat: &SinkMatch<'_>) -> Result<bool, io::Error> {
        let mut line = mat.bytes();
        while let [rest @ .., b'\n' | b'\r'] = line {
            line = rest;
        }
        let kept = &line[..line.len().min(SEARCH_LINE_BYTES)];
        self.nth += 1;
        if self.nth <= self.shown_before {
            return Ok(true);
        }
        let nth = self.nth;
        let end = self.start + mat.absolute_byte_offset() + mat.bytes().len() as u64;
        let number = self.first_line + mat.line_number().unwrap_or(0);
        let h = || SearchHit {
            path: self.rel.to_path_buf(),
            kind: EntryKind::File,
            nth,
            end,
            line: Some((number, kept.to_vec())),
        };
        match hit(self.tally, self.query, h) {
            Ok(()) => {
                self.lines += 1;
                Ok(true)
            }
            Err(stop) => {
                self.stop = Some(stop);
                Ok(false)
            }
        }
    }

    fn binary_data(&mut self, _s: &Searcher, _offset: u64) -> Result<bool, io::Error> {
        self.binary = true;
        Ok(false)
    }
}
