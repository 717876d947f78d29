//! Hard links in a tar: an entry that names an earlier one by its path
//! (`link to PATH` in `tar -tv`) and has that entry's bytes. Each is
//! resolved once, when the whole index is read: to the last entry of that
//! path before it, through any hard links it names in turn, to the entry
//! whose bytes it has.
//!
//! A hard link that leads nowhere gets an error of its own, found in
//! bounded steps (never a hang): `CORRUPT` when it names no entry, or one
//! that comes only after it (a tar names an entry it has already given);
//! `LOOP` when it names itself or links name each other in a cycle;
//! `UNSAFE_NAME` when the name it gives would climb out of the archive.
#![forbid(unsafe_code)]

use std::collections::HashMap;

use super::{without_dot_slash, Extra, TarIndex};
use crate::archive::names::unsafe_reason;
use crate::archive::tree::Tree;
use crate::error::{CanopyError, ErrorCode};
use crate::limits::ARCHIVE_HARD_LINK_HOPS;
use crate::wire::{EntryKind, LinkTarget};

/// How much of a link's target an error message quotes.
const QUOTED_MAX: usize = 200;

/// What a hard link leads to: the entry whose bytes it has, or why none.
#[derive(Debug, Clone)]
pub(crate) struct HardLink {
    pub points_to: LinkTarget,
    pub to: Result<u32, CanopyError>,
}

/// Where a link's target path leads in the tree.
enum Found<'i> {
    /// The entries of that path (member numbers, in archive order).
    Entries(&'i [u32]),
    Folder,
    Nothing,
    Unsafe(&'static str),
}

/// Finds entries by path; each folder's names are mapped once, when first asked.
struct Finder<'i> {
    tree: &'i Tree,
    idx: &'i TarIndex,
    folders: HashMap<u32, HashMap<&'i [u8], Vec<u32>>>,
}

impl<'i> Finder<'i> {
    fn find(&mut self, target: &[u8]) -> Found<'_> {
        let Some(path) = without_dot_slash(target) else {
            return Found::Nothing;
        };
        let path = path.strip_suffix(b"/").unwrap_or(path);
        if let Some(why) = unsafe_reason(path) {
            return Found::Unsafe(why);
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
        let (tree, idx) = (self.tree, self.idx);
        let names = self.folders.entry(folder).or_insert_with(|| {
            let mut names: HashMap<&[u8], Vec<u32>> = HashMap::new();
            for r in tree.records(folder).iter().filter(|r| !r.is_raw()) {
                let loc = r.loc();
                names
                    .entry(idx.name(&idx.members[loc as usize]))
                    .or_default()
                    .push(loc);
            }
            names
        });
        match names.get(name) {
            Some(locs) => Found::Entries(locs),
            None => Found::Nothing,
        }
    }

    fn target(&self, loc: u32) -> &'i [u8] {
        let idx = self.idx;
        idx.link(&idx.members[loc as usize]).unwrap_or_default()
    }

    /// Whether following the links from `start` by name (whatever their
    /// order) comes back to it within [`ARCHIVE_HARD_LINK_HOPS`].
    fn cycles(&mut self, start: u32) -> bool {
        let mut at = start;
        for _ in 0..ARCHIVE_HARD_LINK_HOPS {
            let target = self.target(at);
            let idx = self.idx;
            let members = &idx.members;
            let Found::Entries(locs) = self.find(target) else {
                return false;
            };
            if locs.contains(&start) {
                return true;
            }
            match locs
                .iter()
                .rev()
                .find(|&&c| c != at && members[c as usize].hard_link)
            {
                Some(&next) => at = next,
                None => return false,
            }
        }
        false
    }
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
    let mut done: HashMap<u32, HardLink> = HashMap::with_capacity(links.len());
    let mut finder = Finder {
        tree,
        idx,
        folders: HashMap::new(),
    };
    for &l in &links {
        let resolved = resolve_one(&mut finder, &done, l);
        done.insert(l, resolved);
    }
    drop(finder);
    let mut targets = Vec::new();
    for (l, link) in done {
        if let Ok(to) = link.to {
            let file = &idx.members[to as usize];
            let size = if file.kind == EntryKind::File {
                file.size
            } else {
                0
            };
            idx.members[l as usize].size = size;
            targets.push(to);
        }
        if let Some(extra) = idx.extra_mut(l) {
            extra.hard = Some(link);
        }
    }
    // The files linked to are marked too: each is one file under two names.
    let mut unmarked = Vec::new();
    for to in targets {
        match idx.extra_mut(to) {
            Some(extra) => extra.linked = true,
            None => unmarked.push(to),
        }
    }
    if !unmarked.is_empty() {
        unmarked.sort_unstable();
        unmarked.dedup();
        let marked = unmarked.into_iter().map(|to| {
            let extra = Extra {
                linked: true,
                ..Extra::default()
            };
            (to, extra)
        });
        idx.extras.extend(marked);
        idx.extras.sort_by_key(|e| e.0);
    }
}

fn resolve_one(finder: &mut Finder<'_>, done: &HashMap<u32, HardLink>, l: u32) -> HardLink {
    let target = finder.target(l);
    let said = quoted(target);
    let broken = |points_to, code, why: String| HardLink {
        points_to,
        to: Err(CanopyError::new(code, format!("it links to {said}, {why}"))),
    };
    let idx = finder.idx;
    let members = &idx.members;
    let locs: Vec<u32> = match finder.find(target) {
        Found::Entries(locs) => locs.to_vec(),
        Found::Folder => {
            return broken(
                LinkTarget::Folder,
                ErrorCode::Corrupt,
                "a folder (a hard link names a file)".into(),
            )
        }
        Found::Nothing => {
            return broken(
                LinkTarget::Dangling,
                ErrorCode::Corrupt,
                "which no entry of the archive is".into(),
            )
        }
        Found::Unsafe(why) => {
            return broken(
                LinkTarget::Unknown,
                ErrorCode::UnsafeName,
                format!("which is never followed: {why}"),
            )
        }
    };
    if let Some(&earlier) = locs.iter().rev().find(|&&c| c < l) {
        let m = &members[earlier as usize];
        if !m.hard_link {
            return HardLink {
                points_to: points_to(m.kind),
                to: Ok(earlier),
            };
        }
        return match done.get(&earlier) {
            Some(HardLink {
                to: Ok(to),
                points_to,
            }) => HardLink {
                points_to: *points_to,
                to: Ok(*to),
            },
            Some(HardLink {
                to: Err(e),
                points_to,
            }) => broken(
                *points_to,
                e.code,
                format!("a hard link that leads nowhere ({})", e.code),
            ),
            None => unreachable!("an earlier hard link is resolved first"),
        };
    }
    if locs.iter().all(|&c| c == l) {
        return broken(LinkTarget::Loop, ErrorCode::Loop, "itself".into());
    }
    if finder.cycles(l) {
        return broken(
            LinkTarget::Loop,
            ErrorCode::Loop,
            "a hard link that names it back (a cycle)".into(),
        );
    }
    broken(
        LinkTarget::Dangling,
        ErrorCode::Corrupt,
        "which comes only after it in the archive (a hard link names an entry given before it)"
            .into(),
    )
}
