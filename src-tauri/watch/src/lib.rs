//! Canopy's live refresh: the folders on show are watched (one non-recursive
//! inotify watch each, through `notify`), and their changes are reported as
//! the handles of the folders that changed, never as a stream of events.
//!
//! Promises:
//! - a creation, deletion, rename, write or attribute change of an entry in a
//!   watched folder reports that folder (by every handle it was asked under);
//!   opening or reading a file reports nothing, so Canopy's own reads never
//!   feed back into refreshes;
//! - reports are coalesced: one report names each changed folder once, sent
//!   when changes pause for `WATCH_QUIET`, or `WATCH_MAX_DELAY` after the
//!   first unreported change while a storm goes on. What is pending is a set
//!   of folders, so a storm of a million events costs no more memory than one;
//! - at most `MAX_WATCHED_FOLDERS` folders are watched; the rest, and those
//!   refused by the system's inotify limit, are returned as `unwatched` with
//!   the reason, for the window to refresh on focus and say so;
//! - when the kernel's event queue overflows, every watched folder is
//!   reported once (`overflow`);
//! - a dead mount holds nothing: each folder is looked at (`stat`) on the
//!   engine's deadline workers ([`canopy_core::bounded`]) before it is
//!   watched, outside every lock, all by one deadline (`TIME_BUDGET`); a
//!   folder that does not answer in time is returned as `unwatched` and says
//!   so (`NotResponding`), and is not asked again while its call is stuck. A
//!   call that waits for another's set-up gives up at the same deadline.
//!   (The watch itself is added by `notify`'s thread right after the folder
//!   answered; a mount that dies in that instant can still hold that thread.)
//!
//! This crate has no GUI dependency; the Tauri shell forwards reports to the
//! window.
#![forbid(unsafe_code)]

use std::collections::{HashMap, HashSet};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, TryLockError};
use std::time::{Duration, Instant};

use canopy_core::bounded::{self, Place};
use canopy_core::limits::{MAX_WATCHED_FOLDERS, TIME_BUDGET, WATCH_MAX_DELAY, WATCH_QUIET};
use canopy_core::names::decode_handle;
use canopy_core::wire::{WatchShortfall, WatchShortfallKind, WatchStatus};
use notify::event::{AccessKind, AccessMode, EventKind, Flag};
use notify::{Config, Event, INotifyWatcher, RecursiveMode, Watcher};

/// One report: the folders that changed since the last one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Changes {
    /// Handles of the changed folders, as they were given to `set_folders`.
    pub folders: Vec<String>,
    /// The kernel dropped events: every watched folder is listed.
    pub overflow: bool,
}

/// A folder's identity: two paths to one folder (a link and its target)
/// share one inotify watch.
type DirId = (u64, u64);

struct Watched {
    /// The path notify watches and reports events under.
    path: PathBuf,
    /// Every handle this folder was asked under.
    handles: Vec<String>,
}

#[derive(Default)]
struct Pending {
    folders: HashSet<DirId>,
    overflow: bool,
    first: Option<Instant>,
    last: Option<Instant>,
}

#[derive(Default)]
struct State {
    watched: HashMap<DirId, Watched>,
    by_path: HashMap<PathBuf, DirId>,
    pending: Pending,
    stopped: bool,
}

struct Shared {
    state: Mutex<State>,
    wake: Condvar,
    #[cfg(test)]
    hold: Mutex<bool>,
    #[cfg(test)]
    release: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Called on notify's thread for every event: records which folder changed.
    fn on_event(&self, event: notify::Result<Event>) {
        #[cfg(test)]
        {
            let mut held = self.hold.lock().unwrap();
            while *held {
                held = self.release.wait(held).unwrap();
            }
        }
        let mut st = self.lock();
        let now = Instant::now();
        let overflow = match &event {
            Err(_) => true,
            Ok(e) => e.flag() == Some(Flag::Rescan),
        };
        if overflow {
            st.pending.overflow = true;
        } else if let Ok(e) = &event {
            if ignored(&e.kind) {
                return;
            }
            let mut hit = false;
            for p in &e.paths {
                // An entry's event names the entry: its folder changed. When the
                // entry is itself a watched folder that went away, it changed too.
                if let Some(id) = p.parent().and_then(|d| st.by_path.get(d)).copied() {
                    st.pending.folders.insert(id);
                    hit = true;
                }
                let went = matches!(
                    e.kind,
                    EventKind::Remove(_) | EventKind::Modify(notify::event::ModifyKind::Name(_))
                );
                if let Some(id) = st.by_path.get(p.as_path()).copied().filter(|_| went) {
                    st.pending.folders.insert(id);
                    hit = true;
                }
            }
            if !hit {
                return;
            }
        }
        st.pending.first.get_or_insert(now);
        st.pending.last = Some(now);
        drop(st);
        self.wake.notify_one();
    }
}

/// Events that do not change what a folder lists: opening, reading and
/// closing without writing (Canopy's own reads among them).
fn ignored(kind: &EventKind) -> bool {
    match kind {
        EventKind::Access(AccessKind::Close(AccessMode::Write)) => false,
        EventKind::Access(_) => true,
        _ => false,
    }
}

/// Watches folders and reports their changes to a callback.
pub struct FolderWatch {
    shared: Arc<Shared>,
    /// `Err` when inotify could not start; kept so every request says why.
    watcher: Mutex<Result<INotifyWatcher, String>>,
    reporter: Option<std::thread::JoinHandle<()>>,
}

impl FolderWatch {
    /// Starts watching nothing; `on_change` is called on a thread of this
    /// crate with each report.
    pub fn new(on_change: impl Fn(Changes) + Send + 'static) -> Self {
        let shared = Arc::new(Shared {
            state: Mutex::default(),
            wake: Condvar::new(),
            #[cfg(test)]
            hold: Mutex::new(false),
            #[cfg(test)]
            release: Condvar::new(),
        });
        let handler = Arc::clone(&shared);
        let watcher = INotifyWatcher::new(move |e| handler.on_event(e), Config::default())
            .map_err(|e| format!("the system refused a file watcher ({e}); folders refresh when the window regains focus"));
        let reporting = Arc::clone(&shared);
        let reporter = std::thread::Builder::new()
            .name("canopy-watch".into())
            .spawn(move || report_loop(&reporting, on_change))
            .ok();
        FolderWatch {
            shared,
            watcher: Mutex::new(watcher),
            reporter,
        }
    }

    /// Watches exactly these folders (handles, in the window's order: the
    /// first `MAX_WATCHED_FOLDERS` distinct folders are watched). Folders that
    /// are gone, unreadable or not folders are not watched and not reported.
    ///
    /// Returns by `TIME_BUDGET` (plus the workers' grace) whatever the
    /// folders' filesystems do: those that do not answer in time, and all of
    /// them when another call's set-up is still holding the watcher then, are
    /// `unwatched` with `NotResponding`.
    pub fn set_folders(&self, handles: &[String]) -> WatchStatus {
        let deadline = Instant::now() + TIME_BUDGET;
        // Resolve on the deadline workers, outside every lock: a stat can hang
        // on a dead mount, events and other calls must not wait for it.
        let paths: Vec<Option<PathBuf>> = handles.iter().map(|h| decode_handle(h).ok()).collect();
        let ids = resolve(paths.iter().flatten().cloned().collect(), deadline);
        let mut ids = ids.into_iter();
        let resolved: Vec<(&String, Option<(PathBuf, Answer)>)> = handles
            .iter()
            .zip(paths)
            .map(|(h, p)| (h, p.map(|p| (p, ids.next().unwrap_or(Answer::Gone)))))
            .collect();
        let mut watcher = match lock_by(&self.watcher, deadline) {
            Some(w) => w,
            None => {
                return WatchStatus {
                    watched: 0,
                    unwatched: handles.to_vec(),
                    shortfall: Some(not_responding(
                        "an earlier change of watched folders has not finished",
                    )),
                }
            }
        };
        let watcher = match watcher.as_mut() {
            Ok(w) => w,
            Err(why) => {
                return WatchStatus {
                    watched: 0,
                    unwatched: handles.to_vec(),
                    shortfall: Some(WatchShortfall {
                        kind: WatchShortfallKind::Unavailable,
                        message: why.clone(),
                    }),
                }
            }
        };
        let mut wanted: Vec<(DirId, PathBuf, Vec<String>)> = Vec::new();
        let mut index: HashMap<DirId, usize> = HashMap::new();
        let mut unwatched = Vec::new();
        let mut shortfall = None;
        let mut silent = Vec::new();
        for (h, found) in resolved {
            let Some((path, answer)) = found else {
                continue;
            };
            let id = match answer {
                Answer::Folder(id) => id,
                Answer::Gone => continue,
                Answer::Silent(why) => {
                    silent.push(h.clone());
                    shortfall.get_or_insert_with(|| not_responding(&why));
                    continue;
                }
            };
            if let Some(&i) = index.get(&id) {
                wanted[i].2.push(h.clone());
            } else if wanted.len() < MAX_WATCHED_FOLDERS {
                index.insert(id, wanted.len());
                wanted.push((id, path, vec![h.clone()]));
            } else {
                unwatched.push(h.clone());
                shortfall.get_or_insert_with(|| WatchShortfall {
                    kind: WatchShortfallKind::Cap,
                    message: format!(
                        "more than {MAX_WATCHED_FOLDERS} folders are open; the others refresh when the window regains focus"
                    ),
                });
            }
        }
        let keep: HashSet<DirId> = wanted.iter().map(|w| w.0).collect();
        let gone: Vec<(DirId, PathBuf)> = {
            let st = self.shared.lock();
            st.watched
                .iter()
                .filter(|(id, _)| !keep.contains(id))
                .map(|(id, w)| (*id, w.path.clone()))
                .collect()
        };
        for (id, path) in gone {
            let _ = watcher.unwatch(&path);
            let mut st = self.shared.lock();
            st.watched.remove(&id);
            st.by_path.remove(&path);
            st.pending.folders.remove(&id);
        }
        let mut watched = 0u32;
        let mut limit_hit = false;
        for (id, path, hs) in wanted {
            let known = self.shared.lock().watched.contains_key(&id);
            if !known {
                if limit_hit {
                    unwatched.extend(hs);
                    continue;
                }
                match watcher.watch(&path, RecursiveMode::NonRecursive) {
                    Ok(()) => {}
                    Err(e) if matches!(e.kind, notify::ErrorKind::MaxFilesWatch) => {
                        limit_hit = true;
                        shortfall = Some(WatchShortfall {
                            kind: WatchShortfallKind::SystemLimit,
                            message: "the system's limit of watched folders (fs.inotify.max_user_watches) is reached; \
                                      the others refresh when the window regains focus"
                                .into(),
                        });
                        unwatched.extend(hs);
                        continue;
                    }
                    // Gone or unreadable since it was listed: its parent's refresh shows why.
                    Err(_) => continue,
                }
            }
            let mut st = self.shared.lock();
            st.by_path.insert(path.clone(), id);
            st.watched.insert(id, Watched { path, handles: hs });
            watched += 1;
        }
        // Folders that did not answer and those beyond a reached system limit
        // join the others in tree order.
        unwatched.extend(silent);
        unwatched.sort_by_key(|h| handles.iter().position(|x| x == h));
        WatchStatus {
            watched,
            unwatched,
            shortfall,
        }
    }

    /// Holds notify's thread at the next event, so the kernel's queue
    /// overflows (tests only).
    #[cfg(test)]
    fn hold_events(&self, hold: bool) {
        *self.shared.hold.lock().unwrap() = hold;
        self.shared.release.notify_all();
    }
}

impl Drop for FolderWatch {
    fn drop(&mut self) {
        self.shared.lock().stopped = true;
        self.shared.wake.notify_all();
        if let Some(t) = self.reporter.take() {
            let _ = t.join();
        }
    }
}

fn dir_id(path: &Path) -> Option<DirId> {
    let meta = std::fs::metadata(path).ok()?;
    meta.is_dir().then(|| (meta.dev(), meta.ino()))
}

/// The step a folder gets once the call's deadline has passed.
const LATE_STEP: Duration = Duration::from_millis(100);

/// What looking at a folder to watch found.
#[derive(Debug, Clone)]
enum Answer {
    Folder(DirId),
    /// Gone, unreadable or not a folder: not watched, not reported.
    Gone,
    /// It did not answer in time, or its filesystem has a call stuck.
    Silent(String),
}

fn not_responding(why: &str) -> WatchShortfall {
    WatchShortfall {
        kind: WatchShortfallKind::NotResponding,
        message: format!("{why}; those folders refresh when the window regains focus"),
    }
}

/// Looks at each folder on the engine's deadline workers, one step per
/// folder at its path, all by `deadline`. A folder whose step is left behind
/// is `Silent`, and the look goes on from the next one on a fresh worker.
fn resolve(paths: Vec<PathBuf>, deadline: Instant) -> Vec<Answer> {
    let done: Arc<Mutex<Vec<Answer>>> = Arc::default();
    while done.lock().unwrap_or_else(|e| e.into_inner()).len() < paths.len() {
        let from = done.lock().unwrap_or_else(|e| e.into_inner()).len();
        let rest = paths[from..].to_vec();
        let out = Arc::clone(&done);
        let run = bounded::run(move |w| {
            for path in rest {
                // Past the deadline (a folder before took it all), each folder
                // still gets a short step: a healthy stat takes microseconds.
                let by = deadline.max(Instant::now() + LATE_STEP);
                let answer = match w.begin(Place::path(&path), by) {
                    Ok(()) => dir_id(&path).map_or(Answer::Gone, Answer::Folder),
                    Err(u) => Answer::Silent(u.error().message),
                };
                w.end();
                if w.abandoned() {
                    return;
                }
                out.lock().unwrap_or_else(|e| e.into_inner()).push(answer);
            }
        });
        if let Err(left) = run {
            // The folder being looked at when the job was left behind.
            let mut d = done.lock().unwrap_or_else(|e| e.into_inner());
            if d.len() < paths.len() {
                d.push(Answer::Silent(left.error(TIME_BUDGET).message));
            }
        }
    }
    let answers = std::mem::take(&mut *done.lock().unwrap_or_else(|e| e.into_inner()));
    answers
}

/// Takes `lock` by `deadline`, or gives up (`None`): a call whose set-up is
/// held by a dead mount must not hold every later call too.
fn lock_by<T>(lock: &Mutex<T>, deadline: Instant) -> Option<MutexGuard<'_, T>> {
    loop {
        match lock.try_lock() {
            Ok(guard) => return Some(guard),
            Err(TryLockError::Poisoned(e)) => return Some(e.into_inner()),
            Err(TryLockError::WouldBlock) if Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(5))
            }
            Err(TryLockError::WouldBlock) => return None,
        }
    }
}

/// Waits for changes, lets them settle, and reports each batch.
fn report_loop(shared: &Shared, on_change: impl Fn(Changes)) {
    loop {
        let mut st = shared.lock();
        loop {
            if st.stopped {
                return;
            }
            if let (Some(first), Some(last)) = (st.pending.first, st.pending.last) {
                let due = (last + WATCH_QUIET).min(first + WATCH_MAX_DELAY);
                let now = Instant::now();
                if now >= due {
                    break;
                }
                st = shared
                    .wake
                    .wait_timeout(st, due - now)
                    .unwrap_or_else(|e| e.into_inner())
                    .0;
            } else {
                st = shared.wake.wait(st).unwrap_or_else(|e| e.into_inner());
            }
        }
        let pending = std::mem::take(&mut st.pending);
        let folders: Vec<String> = if pending.overflow {
            st.watched
                .values()
                .flat_map(|w| w.handles.iter().cloned())
                .collect()
        } else {
            pending
                .folders
                .iter()
                .filter_map(|id| st.watched.get(id))
                .flat_map(|w| w.handles.iter().cloned())
                .collect()
        };
        drop(st);
        if !folders.is_empty() || pending.overflow {
            on_change(Changes {
                folders,
                overflow: pending.overflow,
            });
        }
    }
}

#[cfg(test)]
mod tests;
