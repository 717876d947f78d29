//! Looking only inside a set of folders (`canopy-mcp`'s roots): where a
//! path leads without ever looking outside them, and where the links of a
//! listing made there lead.
//!
//! Promises:
//! - every root is a real path (no symlink, no `..`), and a path is inside
//!   a root only when its real path is the root or lies below it, compared
//!   component by component on the raw bytes (`/a/bc` is not inside `/a/b`);
//! - [`resolve_within`] finds where a path leads without ever looking
//!   outside the roots: the moment its resolution leaves them (through `..`,
//!   an absolute symlink or a relative one), the answer is [`Leads::Outside`],
//!   whether or not anything is there. Inside them it looks only through
//!   descriptors, each entry relative to the folder held before it and never
//!   followed, so a link swapped in meanwhile is read as a link. So no reply
//!   says whether a path outside the roots exists, what it is, or that it
//!   cannot be reached;
//! - both run on a bounded worker: a dead mount costs `TIMEOUT`, never a
//!   hung caller.
#![forbid(unsafe_code)]

use std::ffi::OsString;
use std::io;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Component, Path, PathBuf};
use std::time::Instant;

use crate::anchor::Anchor;
use crate::bounded::{self, Place};
use crate::error::{CanopyError, ErrorCode};
use crate::limits::{MAX_RESOLVE_STEPS, RESOLVE_SHARE_PERCENT, TIME_BUDGET};
use crate::wire::{Entry, EntryKind, Folder, LinkTarget, Listing};

/// A path at least this long is refused, as the kernel refuses it.
const PATH_MAX: usize = libc::PATH_MAX as usize;

/// Links followed in one resolution before it is a loop (the kernel's `MAXSYMLINKS`).
const MAX_LINK_HOPS: u32 = 40;

/// True when `path` is `root` or lies below it. Both are real paths.
pub fn within(path: &Path, root: &Path) -> bool {
    let (p, r) = (path.as_os_str().as_bytes(), root.as_os_str().as_bytes());
    p.starts_with(r) && (p.len() == r.len() || r.ends_with(b"/") || p[r.len()] == b'/')
}

/// Where a path leads, as far as the roots let one look.
#[derive(Debug)]
pub enum Leads {
    /// Inside a root: the real path, what is there (a symlink is
    /// followed) and which object it is (binds a cursor to it).
    Inside(PathBuf, EntryKind, crate::source::Identity),
    /// The resolution left the roots; nothing was looked at out there.
    Outside,
    /// The resolution failed inside the roots (`NOT_FOUND`, `LOOP`, `DENIED`, ...).
    Fails(CanopyError),
}

enum Step {
    Up,
    Name(OsString),
}

fn steps(path: &Path) -> impl DoubleEndedIterator<Item = Step> + '_ {
    path.components().filter_map(|c| match c {
        Component::ParentDir => Some(Step::Up),
        Component::Normal(n) => Some(Step::Name(n.to_os_string())),
        Component::RootDir | Component::CurDir | Component::Prefix(_) => None,
    })
}

/// Resolves the absolute `path` one component at a time, as the kernel
/// would, following symlinks, but looking only inside `roots` (real paths),
/// and there only through descriptors: each entry is looked up relative to
/// the folder held before it, without following it (see [`Anchor`]), and a
/// symlink's text is read from the link that was looked up. So a link
/// swapped in anywhere along the way, at any moment, is read as a link and
/// judged by its text; nothing outside the roots is ever looked up. Outside
/// them it only walks up (`..`) or down the roots' own ancestors, which are
/// real folders by construction; any other step out there answers
/// [`Leads::Outside`]. What it reaches is listed or read by its real path
/// through a confined source (`LocalFs::confined`), which follows no link
/// on the way: a link swapped in after the check fails that open.
fn resolve_now(path: &Path, roots: &[PathBuf], deadline: Instant) -> Leads {
    let inside = |p: &Path| roots.iter().any(|r| within(p, r));
    let toward_a_root = |p: &Path| roots.iter().any(|r| within(r, p));
    let fails = |e: &io::Error, doing: &str| Leads::Fails(CanopyError::from_io(e, doing));
    let fail = |errno: i32, doing: &str| fails(&io::Error::from_raw_os_error(errno), doing);
    let mut cur = PathBuf::from("/");
    // The folders walked inside the roots, innermost last, each with its real path.
    let mut held: Vec<(PathBuf, Anchor)> = Vec::new();
    let mut kind = EntryKind::Folder;
    // The steps still to take, the next one last.
    let mut todo: Vec<Step> = steps(path).rev().collect();
    let mut hops = 0;
    let mut budget = Steps(MAX_RESOLVE_STEPS);
    while let Some(step) = todo.pop() {
        if let Err(e) = budget.take(1, deadline) {
            return Leads::Fails(e);
        }
        if kind != EntryKind::Folder {
            return fail(libc::ENOTDIR, "cannot open");
        }
        let name = match step {
            Step::Up => {
                if held.last().is_some_and(|(p, _)| *p == cur) {
                    held.pop();
                }
                cur.pop();
                continue;
            }
            Step::Name(n) => n,
        };
        let next = cur.join(&name);
        if !inside(&cur) {
            if toward_a_root(&next) {
                cur = next;
                continue;
            }
            return Leads::Outside;
        }
        if held.last().is_none_or(|(p, _)| *p != cur) {
            if let Err(e) = budget.take(depth_of(&cur), deadline) {
                return Leads::Fails(e);
            }
            match hold(&cur, roots) {
                Ok(a) => held.push((cur.clone(), a)),
                Err(e) => return fails(&e, "cannot open"),
            }
        }
        let Some((_, parent)) = held.last() else {
            return fail(libc::ENOENT, "cannot open");
        };
        let entry = match parent.child(name.as_bytes()) {
            Ok(a) => a,
            Err(e) => return fails(&e, "cannot open"),
        };
        kind = entry.kind;
        if kind != EntryKind::Symlink {
            cur = next;
            held.push((cur.clone(), entry));
            continue;
        }
        hops += 1;
        if hops > MAX_LINK_HOPS {
            return fail(libc::ELOOP, "cannot open");
        }
        let target = match entry.link_target() {
            Ok(t) => PathBuf::from(OsString::from_vec(t)),
            Err(e) => return fails(&e, "cannot read the link"),
        };
        if target.is_absolute() {
            cur = PathBuf::from("/");
            held.clear();
        }
        kind = EntryKind::Folder;
        todo.extend(steps(&target).rev());
    }
    if !inside(&cur) {
        return Leads::Outside;
    }
    match held.pop() {
        Some((p, a)) if p == cur => Leads::Inside(cur, a.kind, a.identity),
        _ => match hold(&cur, roots) {
            Ok(a) => Leads::Inside(cur, a.kind, a.identity),
            Err(e) => fails(&e, "cannot open"),
        },
    }
}

/// What one resolution may still spend: lookups, until a deadline.
struct Steps(u32);

impl Steps {
    /// Spends `n` lookups.
    ///
    /// # Errors
    /// `LOOP` past `MAX_RESOLVE_STEPS`; `TIMEOUT` past `deadline`.
    fn take(&mut self, n: u32, deadline: Instant) -> Result<(), CanopyError> {
        self.0 = self.0.checked_sub(n).ok_or_else(|| {
            CanopyError::new(
                ErrorCode::Loop,
                format!(
                    "finding where this path leads takes more than {MAX_RESOLVE_STEPS} lookups"
                ),
            )
        })?;
        if Instant::now() > deadline {
            return Err(CanopyError::new(
                ErrorCode::Timeout,
                format!(
                    "finding where this path leads took longer than {} ms",
                    TIME_BUDGET.as_millis()
                ),
            ));
        }
        Ok(())
    }
}

/// The components of an absolute path (the lookups that walk it).
fn depth_of(path: &Path) -> u32 {
    u32::try_from(path.components().count()).unwrap_or(u32::MAX)
}

/// Holds the folder `path` (a real path inside a root) by walking down to
/// it from that root without following anything.
fn hold(path: &Path, roots: &[PathBuf]) -> io::Result<Anchor> {
    let Some(root) = roots.iter().find(|r| within(path, r)) else {
        return Err(io::Error::from_raw_os_error(libc::EXDEV));
    };
    let mut at = Anchor::real_folder(root)?;
    let below = path
        .strip_prefix(root)
        .map_err(|_| io::Error::from_raw_os_error(libc::EXDEV))?;
    for c in below.components() {
        if at.kind != EntryKind::Folder {
            return Err(io::Error::from_raw_os_error(libc::ENOTDIR));
        }
        at = at.child(c.as_os_str().as_bytes())?;
    }
    if at.kind != EntryKind::Folder {
        return Err(io::Error::from_raw_os_error(libc::ENOTDIR));
    }
    Ok(at)
}

/// Where `path` (absolute) leads, looking only inside `roots` (see the
/// module docs), on a bounded worker.
///
/// # Errors
/// `TIMEOUT` when a path inside the roots does not answer.
pub fn resolve_within(path: &Path, roots: &[PathBuf]) -> Result<Leads, CanopyError> {
    if path.as_os_str().len() >= PATH_MAX {
        // Failing inside the roots: a caller says nothing more of a path
        // that names a place outside them.
        return Ok(Leads::Fails(CanopyError::new(
            ErrorCode::NameTooLong,
            format!("the path is longer than {} bytes", PATH_MAX - 1),
        )));
    }
    let (owned, roots) = (path.to_path_buf(), roots.to_vec());
    // The walk stops itself at its deadline, before the worker would be
    // given up: a crafted path costs time, never a worker marked stuck.
    let deadline = Instant::now() + TIME_BUDGET * RESOLVE_SHARE_PERCENT / 100;
    bounded::call(Place::path(path), TIME_BUDGET, move |_| {
        resolve_now(&owned, &roots, deadline)
    })
}

/// What the links in `listing` (of the folder `real`) point to, as far as
/// `roots` let one look: a link whose target lies outside them is
/// [`LinkTarget::Outside`], and the error of asking a confined source to
/// follow it (`EXDEV`: it never follows one) is dropped. When the links do
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
    let deadline = Instant::now() + TIME_BUDGET * RESOLVE_SHARE_PERCENT / 100;
    let verdicts = bounded::call(Place::path(real), TIME_BUDGET, move |_| {
        // Past the deadline every link left is `Unknown` (the walk stops itself).
        paths
            .iter()
            .map_while(|p| {
                (Instant::now() <= deadline).then(|| points_to(resolve_now(p, &roots, deadline)))
            })
            .collect::<Vec<_>>()
    })
    .unwrap_or_default();
    let mut verdicts = verdicts.into_iter();
    if let Some(f) = listing.root.folder.as_deref_mut() {
        set_links(f, &mut verdicts);
    }
}

/// As [`confine_links`], for a source that finds where a path leads itself
/// (a server's `realpath`): `resolve` says where each link of `listing`
/// leads, until `deadline`; links not asked by then are `Unknown`.
pub fn confine_links_with(
    listing: &mut Listing,
    real: &Path,
    deadline: Instant,
    mut resolve: impl FnMut(&Path) -> Leads,
) {
    let mut links = Vec::new();
    if let Some(f) = listing.root.folder.as_deref() {
        link_paths(f, real, &mut links);
    }
    let verdicts: Vec<LinkTarget> = links
        .iter()
        .map_while(|p| (Instant::now() <= deadline).then(|| points_to(resolve(p))))
        .collect();
    let mut verdicts = verdicts.into_iter();
    if let Some(f) = listing.root.folder.as_deref_mut() {
        set_links(f, &mut verdicts);
    }
}

fn points_to(leads: Leads) -> LinkTarget {
    match leads {
        Leads::Outside => LinkTarget::Outside,
        Leads::Inside(_, kind, _) => match kind {
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
    let shown = crate::text::line_name(&e.name, e.name_parts.as_deref());
    let bytes = crate::names::unescape_line(&shown).unwrap_or_else(|_| e.name.as_bytes().to_vec());
    dir.join(std::ffi::OsStr::from_bytes(&bytes))
}

/// The paths of the links in `f` (in the order [`set_links`] visits them).
fn link_paths(f: &Folder, dir: &Path, out: &mut Vec<PathBuf>) {
    for e in &f.entries {
        if is_symlink(e) {
            out.push(entry_path(dir, e));
        }
        if let Some(sub) = e.folder.as_deref() {
            link_paths(sub, &entry_path(dir, e), out);
        }
    }
}

/// A listed symlink: a link the disk follows (a hard link inside an
/// archive says which entry it is; the archive's index settled that).
fn is_symlink(e: &Entry) -> bool {
    e.link.is_some() && e.kind == EntryKind::Symlink
}

fn set_links(f: &mut Folder, verdicts: &mut impl Iterator<Item = LinkTarget>) {
    for e in &mut f.entries {
        if is_symlink(e) {
            if let Some(link) = e.link.as_deref_mut() {
                link.points_to = verdicts.next().unwrap_or(LinkTarget::Unknown);
                // Following is what the engine's error was about: the verdict replaces it.
                e.error = None;
            }
        }
        if let Some(sub) = e.folder.as_deref_mut() {
            set_links(sub, verdicts);
        }
    }
}

/// The real path of what `path` names (symlinks followed, as the kernel
/// resolves them) and what it is, on a bounded worker: a folder given on
/// `canopy-mcp`'s command line or by its client is known by its real path.
///
/// # Errors
/// The OS code (`NOT_FOUND`, `DENIED`, `LOOP`, `NAME_TOO_LONG`, ...);
/// `TIMEOUT` when the path does not answer; `IO` without `/proc`.
pub fn real_path(path: &Path) -> Result<(PathBuf, EntryKind), CanopyError> {
    let owned = path.to_path_buf();
    bounded::call(Place::path(path), TIME_BUDGET, move |_| {
        crate::file::real_path_now(&owned)
    })?
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn a_chain_of_links_that_climbs_out_and_back_in_stops_at_the_lookup_bound() {
        let t = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(t.path()).unwrap().join("repo");
        std::fs::create_dir_all(root.join("x")).unwrap();
        // Each link's text leaves the folder and comes back 300 times, then
        // names the next link: 40 links of about 3,000 bytes each.
        for n in 0..40 {
            let next = if n == 39 {
                "x".to_string()
            } else {
                format!("L{:02}", n + 1)
            };
            symlink(
                format!("{}{next}", "../repo/x/../".repeat(300)),
                root.join(format!("L{n:02}")),
            )
            .unwrap();
        }
        let roots = vec![root.clone()];
        match resolve_within(&root.join("L00"), &roots)
            .expect("the walk answers itself, it is never given up")
        {
            Leads::Fails(e) => assert_eq!(e.code, ErrorCode::Loop, "{}", e.message),
            other => panic!("expected LOOP, got {other:?}"),
        }
        let long = root.join("x/..".repeat(2048));
        match resolve_within(&long, &roots).unwrap() {
            Leads::Fails(e) => assert_eq!(e.code, ErrorCode::NameTooLong),
            other => panic!("expected NAME_TOO_LONG, got {other:?}"),
        }
        match resolve_within(&root.join("x"), &roots).unwrap() {
            Leads::Inside(real, kind, _) => {
                assert_eq!((real, kind), (root.join("x"), EntryKind::Folder))
            }
            other => panic!("{other:?}"),
        }
    }
}
