//! An archive's folders, built from its flat list of entry paths.
//!
//! An archive names each entry by its whole path (`a/b/c.txt`); a folder
//! exists when an entry says so (`a/b/`) or when a path runs through it.
//! The tree keeps, per entry, only where it is (its folder) and where the
//! format can find it again (`loc`: a zip's offset into its central
//! directory, a tar's member number): 8 bytes an entry. Folders keep their
//! own names. Entry names stay in the archive (a zip) or in the format's
//! own table (a tar), so a million-entry zip costs 8 MB here.
#![forbid(unsafe_code)]

use std::collections::HashMap;

/// A folder of the tree; folder 0 is the archive's top.
#[derive(Debug, Clone)]
pub(crate) struct Node {
    pub parent: u32,
    /// Its name, a range of [`Tree::folder_names`].
    name: (u32, u32),
    /// Its own entry (`a/b/`), when the archive has one.
    pub explicit: Option<u32>,
    /// Its subfolders: a range of [`Tree::subfolders`].
    subs: (u32, u32),
    /// Its other entries: a range of [`Tree::records`].
    recs: (u32, u32),
}

/// One entry that is not a folder of the tree (or a folder entry whose
/// name is unsafe): the folder it is in, and where the format finds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Record {
    pub folder: u32,
    pub loc: u32,
}

/// The high bit of a record's folder: the entry is listed by its whole raw
/// path, in the top folder, because its name is unsafe.
pub(crate) const RAW_NAME: u32 = 1 << 31;

#[derive(Debug, Default)]
pub(crate) struct Tree {
    nodes: Vec<Node>,
    folder_names: Vec<u8>,
    subfolders: Vec<u32>,
    records: Vec<Record>,
}

impl Tree {
    pub fn node(&self, id: u32) -> &Node {
        &self.nodes[id as usize]
    }

    pub fn name(&self, id: u32) -> &[u8] {
        let (start, end) = self.nodes[id as usize].name;
        &self.folder_names[start as usize..end as usize]
    }

    pub fn subfolders(&self, id: u32) -> &[u32] {
        let (start, end) = self.nodes[id as usize].subs;
        &self.subfolders[start as usize..end as usize]
    }

    pub fn records(&self, id: u32) -> &[Record] {
        let (start, end) = self.nodes[id as usize].recs;
        &self.records[start as usize..end as usize]
    }

    /// The subfolder `name` of folder `id`.
    pub fn subfolder(&self, id: u32, name: &[u8]) -> Option<u32> {
        self.subfolders(id)
            .iter()
            .copied()
            .find(|&sub| self.name(sub) == name)
    }

    /// The folder at `path` (segments below the top), if the tree has one.
    #[cfg(test)]
    pub fn folder_at<'a>(&self, mut segments: impl Iterator<Item = &'a [u8]>) -> Option<u32> {
        segments.try_fold(0, |id, segment| self.subfolder(id, segment))
    }

    #[cfg(test)]
    pub fn folder_count(&self) -> usize {
        self.nodes.len()
    }
}

/// Builds a [`Tree`] from entries in archive order.
#[derive(Debug)]
pub(crate) struct TreeBuilder {
    tree: Tree,
    /// Every folder's whole path, while building (dropped after).
    by_path: HashMap<Box<[u8]>, u32>,
}

impl Default for TreeBuilder {
    fn default() -> Self {
        let mut tree = Tree::default();
        tree.nodes.push(Node {
            parent: 0,
            name: (0, 0),
            explicit: None,
            subs: (0, 0),
            recs: (0, 0),
        });
        TreeBuilder {
            tree,
            by_path: HashMap::new(),
        }
    }
}

impl TreeBuilder {
    /// A builder for about `entries` entries: its records are allocated once,
    /// not doubled (a doubling holds the old and the new block at its peak).
    pub fn with_capacity(entries: usize) -> Self {
        let mut b = TreeBuilder::default();
        b.tree.records.reserve_exact(entries);
        b
    }

    /// Files an entry whose path is safe (see `names::unsafe_reason`):
    /// a folder entry (`is_folder`, its trailing `/` taken off) becomes or
    /// marks a folder; any other entry is a record of its folder, which is
    /// made (with its ancestors) if no entry said so yet.
    pub fn add(&mut self, path: &[u8], is_folder: bool, loc: u32) {
        if is_folder {
            let id = self.folder(path);
            let node = &mut self.tree.nodes[id as usize];
            if node.explicit.is_none() {
                node.explicit = Some(loc);
            }
            return;
        }
        let folder = match path.iter().rposition(|&b| b == b'/') {
            Some(cut) => self.folder(&path[..cut]),
            None => 0,
        };
        self.tree.records.push(Record { folder, loc });
    }

    /// Files an entry listed by its raw name at the top (an unsafe name).
    pub fn add_raw(&mut self, loc: u32) {
        self.tree.records.push(Record {
            folder: RAW_NAME,
            loc,
        });
    }

    /// The folder at `path`, made with its ancestors when new.
    fn folder(&mut self, path: &[u8]) -> u32 {
        if path.is_empty() {
            return 0;
        }
        if let Some(&id) = self.by_path.get(path) {
            return id;
        }
        let (parent, name) = match path.iter().rposition(|&b| b == b'/') {
            Some(cut) => (self.folder(&path[..cut]), &path[cut + 1..]),
            None => (0, path),
        };
        let start = self.tree.folder_names.len() as u32;
        self.tree.folder_names.extend_from_slice(name);
        let id = self.tree.nodes.len() as u32;
        self.tree.nodes.push(Node {
            parent,
            name: (start, self.tree.folder_names.len() as u32),
            explicit: None,
            subs: (0, 0),
            recs: (0, 0),
        });
        self.by_path.insert(path.into(), id);
        id
    }

    /// The finished tree: records and subfolders grouped by folder, each
    /// group in archive order.
    pub fn finish(self) -> Tree {
        let mut tree = self.tree;
        drop(self.by_path);
        // Raw-named records belong to the top folder.
        for r in &mut tree.records {
            if r.folder & RAW_NAME != 0 {
                r.folder = RAW_NAME;
            }
        }
        tree.records
            .sort_unstable_by_key(|r| (r.folder & !RAW_NAME, r.loc));
        tree.records.shrink_to_fit();
        let mut start = 0usize;
        while start < tree.records.len() {
            let folder = tree.records[start].folder & !RAW_NAME;
            let end = start
                + tree.records[start..]
                    .iter()
                    .take_while(|r| r.folder & !RAW_NAME == folder)
                    .count();
            tree.nodes[folder as usize].recs = (start as u32, end as u32);
            start = end;
        }
        let mut subs: Vec<(u32, u32)> = (1..tree.nodes.len() as u32)
            .map(|id| (tree.nodes[id as usize].parent, id))
            .collect();
        subs.sort_unstable();
        tree.subfolders = subs.iter().map(|&(_, id)| id).collect();
        let mut start = 0usize;
        while start < subs.len() {
            let parent = subs[start].0;
            let end = start + subs[start..].iter().take_while(|s| s.0 == parent).count();
            tree.nodes[parent as usize].subs = (start as u32, end as u32);
            start = end;
        }
        tree.nodes.shrink_to_fit();
        tree.folder_names.shrink_to_fit();
        tree
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_make_folders_once_and_entries_land_in_their_folder() {
        let mut b = TreeBuilder::default();
        b.add(b"a/b/c.txt", false, 0);
        b.add(b"a/b", true, 1);
        b.add(b"a/d.txt", false, 2);
        b.add(b"top.txt", false, 3);
        b.add_raw(4);
        b.add(b"a/b/e.txt", false, 5);
        let t = b.finish();
        let a = t.subfolder(0, b"a").unwrap();
        let ab = t.subfolder(a, b"b").unwrap();
        assert_eq!(t.folder_at([&b"a"[..], b"b"].into_iter()), Some(ab));
        assert_eq!(
            t.node(ab).explicit,
            Some(1),
            "the folder's own entry is kept"
        );
        assert_eq!(
            t.node(a).explicit,
            None,
            "a folder only implied by a path has none"
        );
        assert_eq!(
            t.records(ab).iter().map(|r| r.loc).collect::<Vec<_>>(),
            [0, 5]
        );
        assert_eq!(t.records(a).iter().map(|r| r.loc).collect::<Vec<_>>(), [2]);
        let top: Vec<_> = t
            .records(0)
            .iter()
            .map(|r| (r.loc, r.folder & RAW_NAME != 0))
            .collect();
        assert_eq!(top, [(3, false), (4, true)]);
        assert_eq!(t.subfolders(0), [a]);
        assert_eq!(t.folder_count(), 3);
        assert_eq!(t.folder_at([&b"nope"[..]].into_iter()), None);
    }
}
