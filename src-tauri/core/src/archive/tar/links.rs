//! Hard links in a tar: an entry that names an earlier one by its path
//! (`link to PATH` in `tar -tv`) and has that entry's bytes. Each is
//! resolved once, when the whole index is read: to the last entry of that
//! path before it, through any hard links it names in turn, to the entry
//! whose bytes it has.
//!
//! A hard link that leads nowhere gets an error of its own: `CORRUPT` when
//! it names no entry, or one that comes only after it (a tar names an entry
//! it has already given); `LOOP` when it names itself or links name each
//! other in a cycle; `UNSAFE_NAME` when the name it gives would climb out of
//! the archive. Every path is looked up once, every link followed once, and
//! the entries that share a path (a hostile tar gives one path thousands of
//! times) are searched, never walked: a million links cost a million
//! binary searches, never a hang.
#![forbid(unsafe_code)]

use std::collections::HashMap;

use super::{without_dot_slash, TarIndex};
use crate::archive::names::unsafe_reason;
use crate::archive::tree::Tree;
use crate::error::{CanopyError, ErrorCode};
use crate::wire::{EntryKind, LinkTarget};

/// How much of a link's target an error message quotes.
const QUOTED_MAX: usize = 200;

/// What a hard link leads to: the entry whose bytes it has, or why none.
#[derive(Debug, Clone)]
pub(crate) struct HardLink {
    pub points_to: LinkTarget,
    pub to: Result<u32, CanopyError>,
}

/// What a hard link leads to, as the index keeps it (the error's words are
/// made when asked, from the link's target).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Resolved {
    /// The entry whose bytes it has.
    To(u32),
    Broken(Broken),
    /// An earlier hard link that is broken so.
    Through(Broken),
}

/// Why a hard link leads nowhere.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Broken {
    Folder,
    Missing,
    Later,
    Itself,
    Cycle,
    Unsafe,
}

impl Broken {
    fn told(self, target: &[u8]) -> (LinkTarget, ErrorCode, String) {
        match self {
            Broken::Folder => (
                LinkTarget::Folder,
                ErrorCode::Corrupt,
                "a folder (a hard link names a file)".into(),
            ),
            Broken::Missing => (
                LinkTarget::Dangling,
                ErrorCode::Corrupt,
                "which no entry of the archive is".into(),
            ),
            Broken::Later => (
                LinkTarget::Dangling,
                ErrorCode::Corrupt,
                "which comes only after it in the archive (a hard link names an entry given before it)"
                    .into(),
            ),
            Broken::Itself => (LinkTarget::Loop, ErrorCode::Loop, "itself".into()),
            Broken::Cycle => (
                LinkTarget::Loop,
                ErrorCode::Loop,
                "a hard link that names it back (a cycle)".into(),
            ),
            Broken::Unsafe => {
                let why = plain(target).and_then(unsafe_reason).unwrap_or("");
                (
                    LinkTarget::Unknown,
                    ErrorCode::UnsafeName,
                    format!("which is never followed: {why}"),
                )
            }
        }
    }
}

impl Resolved {
    /// What the link whose target text is `target` leads to, in words;
    /// `kind_of` says what an entry is.
    pub fn told(self, target: &[u8], kind_of: impl Fn(u32) -> EntryKind) -> HardLink {
        let (points_to, code, why) = match self {
            Resolved::To(to) => {
                return HardLink {
                    points_to: points_to(kind_of(to)),
                    to: Ok(to),
                }
            }
            Resolved::Broken(b) => b.told(target),
            Resolved::Through(b) => {
                let (points_to, code, _) = b.told(target);
                let why = format!("a hard link that leads nowhere ({code})");
                (points_to, code, why)
            }
        };
        HardLink {
            points_to,
            to: Err(CanopyError::new(
                code,
                format!("it links to {}, {why}", quoted(target)),
            )),
        }
    }
}

/// A target path as a tar names it: without `./` before it or `/` after it.
fn plain(target: &[u8]) -> Option<&[u8]> {
    let path = without_dot_slash(target)?;
    Some(path.strip_suffix(b"/").unwrap_or(path))
}

/// Where a link's target path leads in the tree.
#[derive(Clone, Copy)]
enum Found {
    /// Entries of that path: a number of [`Finder::paths`].
    Entry(u32),
    Folder,
    Nothing,
    Unsafe,
}

#[cfg(test)]
thread_local! {
    /// The paths looked up on this thread (the work a test counts).
    pub(super) static LOOKUPS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    /// The entries of a path looked at to find one (the work a test counts).
    pub(super) static STEPS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

#[cfg(test)]
fn step() {
    STEPS.with(|n| n.set(n.get() + 1));
}

#[cfg(not(test))]
fn step() {}

/// The entries that share one path: a range of [`Finder::locs`] (member
/// numbers, ascending), and the last of them that is a hard link.
struct Path {
    locs: (u32, u32),
    last_link: Option<u32>,
}

/// Finds entries by path; each folder's names are mapped once, when first
/// asked. A tar may give one path many times (a hostile one, tens of
/// thousands): the entries of a path are kept in order and searched, never
/// walked one by one, so that a link costs a binary search.
struct Finder<'i> {
    tree: &'i Tree,
    idx: &'i TarIndex,
    /// A folder's names, each to its [`Path`] (a number of `paths`).
    folders: HashMap<u32, HashMap<&'i [u8], u32>>,
    paths: Vec<Path>,
    locs: Vec<u32>,
}

impl Finder<'_> {
    fn find(&mut self, target: &[u8]) -> Found {
        #[cfg(test)]
        LOOKUPS.with(|n| n.set(n.get() + 1));
        let Some(path) = plain(target) else {
            return Found::Nothing;
        };
        if unsafe_reason(path).is_some() {
            return Found::Unsafe;
        }
        let (parent, name) = match path.iter().rposition(|&b| b == b'/') {
            Some(cut) => (&path[..cut], &path[cut + 1..]),
            None => (&b""[..], path),
        };
        let mut folder = 0;
        if !parent.is_empty() {
            for segment in parent.split(|&b| b == b'/') {
                match self.tree.subfolder(folder, segment) {
                    Some(sub) => folder = sub,
                    None => return Found::Nothing,
                }
            }
        }
        if self.tree.subfolder(folder, name).is_some() {
            return Found::Folder;
        }
        let (tree, idx, paths, locs) = (self.tree, self.idx, &mut self.paths, &mut self.locs);
        let names = self.folders.entry(folder).or_insert_with(|| {
            // A folder's records are in archive order, and a stable sort
            // by name keeps them so within each name.
            let mut named: Vec<(&[u8], u32)> = tree
                .records(folder)
                .iter()
                .filter(|r| !r.is_raw())
                .map(|r| (idx.name(&idx.members[r.loc() as usize]), r.loc()))
                .collect();
            named.sort_by_key(|&(name, _)| name);
            let mut names = HashMap::with_capacity(named.len());
            for group in named.chunk_by(|a, b| a.0 == b.0) {
                let start = locs.len() as u32;
                locs.extend(group.iter().map(|&(_, loc)| loc));
                let last_link = group
                    .iter()
                    .rev()
                    .map(|&(_, loc)| loc)
                    .find(|&loc| idx.members[loc as usize].hard_link);
                names.insert(group[0].0, paths.len() as u32);
                paths.push(Path {
                    locs: (start, locs.len() as u32),
                    last_link,
                });
            }
            names
        });
        names
            .get(name)
            .map_or(Found::Nothing, |&path| Found::Entry(path))
    }

    /// The entries of path `path`, in archive order.
    fn entries(&self, path: u32) -> &[u32] {
        let (a, b) = self.paths[path as usize].locs;
        &self.locs[a as usize..b as usize]
    }

    /// The last entry of path `path`.
    fn last(&self, path: u32) -> u32 {
        *self.entries(path).last().expect("a path has an entry")
    }

    /// The last entry of path `path` before member `l`.
    fn before(&self, path: u32, l: u32) -> Option<u32> {
        let entries = self.entries(path);
        let n = entries.partition_point(|&loc| {
            step();
            loc < l
        });
        n.checked_sub(1).map(|i| entries[i])
    }

    /// The last hard link of path `path`.
    fn last_link(&self, path: u32) -> Option<u32> {
        self.paths[path as usize].last_link
    }
}

/// Which nodes of a graph where each has at most one successor lie on a
/// cycle; each node is walked to once.
fn on_cycles(n: usize, next: impl Fn(usize) -> Option<usize>) -> Vec<bool> {
    const NEW: u32 = u32::MAX;
    const DONE: u32 = u32::MAX - 1;
    // NEW, DONE, or the step of the walk under way that met the node.
    let mut state = vec![NEW; n];
    let mut on = vec![false; n];
    let mut path = Vec::new();
    for start in 0..n {
        if state[start] != NEW {
            continue;
        }
        path.clear();
        let mut at = Some(start);
        while let Some(x) = at {
            match state[x] {
                NEW => {
                    state[x] = path.len() as u32;
                    path.push(x);
                    at = next(x);
                }
                DONE => break,
                step => {
                    for &y in &path[step as usize..] {
                        on[y] = true;
                    }
                    break;
                }
            }
        }
        for &y in &path {
            state[y] = DONE;
        }
    }
    on
}

fn quoted(target: &[u8]) -> String {
    let cut = target.len().min(QUOTED_MAX);
    let more = if cut < target.len() { "…" } else { "" };
    format!("{}{more}", String::from_utf8_lossy(&target[..cut]))
}

fn points_to(kind: EntryKind) -> LinkTarget {
    match kind {
        EntryKind::File => LinkTarget::File,
        EntryKind::Folder => LinkTarget::Folder,
        _ => LinkTarget::Other,
    }
}

/// Resolves every hard link of `idx`, in archive order (so the links an
/// earlier one names are resolved before it), and gives each the size of
/// the file it has.
pub(super) fn resolve(tree: &Tree, idx: &mut TarIndex) {
    let links: Vec<u32> = (0..idx.members.len() as u32)
        .filter(|&l| idx.members[l as usize].hard_link)
        .collect();
    if links.is_empty() {
        return;
    }
    let mut finder = Finder {
        tree,
        idx,
        folders: HashMap::new(),
        paths: Vec::new(),
        locs: Vec::new(),
    };
    let found: Vec<Found> = links
        .iter()
        .map(|&l| finder.find(idx.link(&idx.members[l as usize]).unwrap_or_default()))
        .collect();
    let number = |loc: u32| links.binary_search(&loc).ok();
    // Links that name each other round (whatever their order) lie on a
    // cycle of "the last hard link of the path it names".
    let cycle = on_cycles(links.len(), |i| match found[i] {
        Found::Entry(path) => finder.last_link(path).and_then(number),
        _ => None,
    });
    let mut done: Vec<Resolved> = Vec::with_capacity(links.len());
    for (i, &l) in links.iter().enumerate() {
        done.push(resolve_one(&finder, &links, &done, l, found[i], cycle[i]));
    }
    drop(finder);
    // A link has the size of the file it has; that file is one file under
    // two names (and more).
    let mut linked = Vec::new();
    for (&l, &resolved) in links.iter().zip(&done) {
        if let Resolved::To(to) = resolved {
            let file = &idx.members[to as usize];
            let size = if file.kind == EntryKind::File {
                file.size
            } else {
                0
            };
            idx.members[l as usize].size = size;
            linked.push(to);
        }
    }
    linked.sort_unstable();
    linked.dedup();
    idx.linked = linked;
    idx.hard = links.into_iter().zip(done).collect();
}

/// Link `l`, whose target path is `found` (`on_cycle`: it names links
/// that name it back). `done` holds what the `links` before it lead to.
fn resolve_one(
    finder: &Finder<'_>,
    links: &[u32],
    done: &[Resolved],
    l: u32,
    found: Found,
    on_cycle: bool,
) -> Resolved {
    let path = match found {
        Found::Entry(path) => path,
        Found::Folder => return Resolved::Broken(Broken::Folder),
        Found::Nothing => return Resolved::Broken(Broken::Missing),
        Found::Unsafe => return Resolved::Broken(Broken::Unsafe),
    };
    if let Some(earlier) = finder.before(path, l) {
        if !finder.idx.members[earlier as usize].hard_link {
            return Resolved::To(earlier);
        }
        // An earlier link: `done` holds every link before this one.
        let j = links
            .binary_search(&earlier)
            .expect("a hard link is one of the links");
        return match done[j] {
            Resolved::Broken(why) | Resolved::Through(why) => Resolved::Through(why),
            to => to,
        };
    }
    Resolved::Broken(if finder.last(path) == l {
        Broken::Itself
    } else if on_cycle {
        Broken::Cycle
    } else {
        Broken::Later
    })
}
