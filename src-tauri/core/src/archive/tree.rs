//! An archive's folders, built from its flat list of entry paths.
//!
//! An archive names each entry by its whole path (`a/b/c.txt`); a folder
//! exists when an entry says so (`a/b/`) or when a path runs through it.
//! The tree keeps, per entry, only where the format can find it again
//! (`loc`: a zip's offset into its central directory, a tar's member
//! number), grouped by folder: 4 bytes an entry. Folders keep their own
//! names. Entry names stay in the archive (a zip) or in the format's own
//! table (a tar), so a million-entry zip costs 4 MB here.
//!
//! A zip is read twice to build it without sorting (`count`, then
//! `place`): the first pass counts each folder's entries, the second puts
//! each where its folder's group is. A tar, whose entries the format keeps
//! anyway, files them once (`add`) and is sorted at the end.
//!
//! What the tree holds while it is built is counted ([`TreeBuilder::held`],
//! [`TreeBuilder::most_added`]), so an index can stop before a hostile
//! archive's names make it too large (`budget`).
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
/// name is unsafe): where the format finds it, and whether it is listed by
/// its whole raw path in the top folder because its name is unsafe.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Record(u32);

const RAW_NAME: u32 = 1 << 31;

/// What one folder costs while the tree is built, in bytes, besides its
/// name: its node, its count, its place among its parent's subfolders, and
/// its lookup key (boxed) and slot in `by_name` (with the table's slack).
pub(crate) const FOLDER_BYTES: u64 = 160;
/// What one entry filed costs: its record, and (one pass) its folder's number.
pub(crate) const RECORD_BYTES: u64 = 12;

/// The largest `loc` a record holds (its top bit marks a raw name).
pub(crate) const MAX_LOC: u32 = RAW_NAME - 1;

impl Record {
    pub fn plain(loc: u32) -> Record {
        Record(loc & MAX_LOC)
    }

    /// An entry listed by its raw name (also: a folder's own entry, read whole).
    pub fn raw(loc: u32) -> Record {
        Record(loc | RAW_NAME)
    }

    pub fn loc(self) -> u32 {
        self.0 & MAX_LOC
    }

    pub fn is_raw(self) -> bool {
        self.0 & RAW_NAME != 0
    }
}

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

    /// The subfolder `name` of folder `id` (a folder's subfolders are kept
    /// in name order: a binary search).
    pub fn subfolder(&self, id: u32, name: &[u8]) -> Option<u32> {
        let subs = self.subfolders(id);
        subs.binary_search_by(|&sub| self.name(sub).cmp(name))
            .ok()
            .map(|i| subs[i])
    }

    /// The folder at `path` (segments below the top), if the tree has one.
    #[cfg(test)]
    pub fn folder_at<'a>(&self, mut segments: impl Iterator<Item = &'a [u8]>) -> Option<u32> {
        segments.try_fold(0, |id, segment| self.subfolder(id, segment))
    }

    /// Its folders, the top one included (those only implied by a path too).
    pub fn folder_count(&self) -> usize {
        self.nodes.len()
    }

    /// The memory it holds, in bytes.
    pub fn held(&self) -> u64 {
        (self.nodes.len() * std::mem::size_of::<Node>()
            + self.folder_names.len()
            + 4 * (self.subfolders.len() + self.records.len())) as u64
    }
}

/// Builds a [`Tree`] from entries in archive order.
#[derive(Debug)]
pub(crate) struct TreeBuilder {
    tree: Tree,
    /// Every folder by its parent and name (the parent's number, then the
    /// name: one allocation), while building (dropped after): a key never
    /// holds a whole path, so a long path costs its length once.
    by_name: HashMap<Box<[u8]>, u32>,
    /// A key being looked up (looking up allocates nothing).
    key: Vec<u8>,
    /// The last folder looked up by path, which the next entry likely shares.
    last: (Vec<u8>, u32),
    /// Counting: each folder's entries; placing: where its next one goes.
    counts: Vec<u32>,
    placing: bool,
    /// Entries filed by `add` (folder, record), sorted by `finish`.
    added: Vec<(u32, Record)>,
    /// Entries counted or added.
    filed: u64,
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
            by_name: HashMap::new(),
            key: Vec::new(),
            last: (Vec::new(), 0),
            counts: vec![0],
            placing: false,
            added: Vec::new(),
            filed: 0,
        }
    }
}

fn parent_of(path: &[u8]) -> &[u8] {
    path.iter()
        .rposition(|&b| b == b'/')
        .map_or(&[], |cut| &path[..cut])
}

impl TreeBuilder {
    /// The memory the tree holds now, in bytes (by `FOLDER_BYTES` and
    /// `RECORD_BYTES`; a folder's name counts twice: its text and its key).
    pub fn held(&self) -> u64 {
        self.tree.nodes.len() as u64 * FOLDER_BYTES
            + 2 * self.tree.folder_names.len() as u64
            + self.filed * RECORD_BYTES
    }

    /// The most that filing an entry at `path` (a folder's, with
    /// `is_folder`) can add to [`Self::held`]: every folder on its way new.
    pub fn most_added(path: &[u8], is_folder: bool) -> u64 {
        let folders = if is_folder { path } else { parent_of(path) };
        let made = if folders.is_empty() {
            0
        } else {
            folders.iter().filter(|&&b| b == b'/').count() as u64 + 1
        };
        made * FOLDER_BYTES + 2 * folders.len() as u64 + RECORD_BYTES
    }

    /// First pass: a folder entry (`is_folder`, its trailing `/` taken off)
    /// makes or marks its folder; any other entry is counted in its folder,
    /// made (with its ancestors) if no entry said so yet. `raw`: an entry
    /// with an unsafe name, counted in the top folder.
    pub fn count(&mut self, path: &[u8], is_folder: bool, raw: bool, loc: u32) {
        debug_assert!(!self.placing);
        self.filed += 1;
        if raw {
            self.counts[0] += 1;
        } else if is_folder {
            self.mark(path, loc);
        } else {
            let folder = self.folder(parent_of(path));
            self.counts[folder as usize] += 1;
        }
    }

    /// Between the passes: each folder's group is given its room.
    pub fn start_placing(&mut self) {
        let total: u64 = self.counts.iter().map(|&c| u64::from(c)).sum();
        let mut start = 0u32;
        for (node, count) in self.tree.nodes.iter_mut().zip(self.counts.iter_mut()) {
            node.recs = (start, start);
            start += *count;
            *count = node.recs.0;
        }
        self.tree.records = vec![Record(0); total as usize];
        self.placing = true;
    }

    /// Second pass: the same entries, in the same order, put in place.
    pub fn place(&mut self, path: &[u8], is_folder: bool, raw: bool, loc: u32) {
        debug_assert!(self.placing);
        let (folder, record) = if raw {
            (0, Record::raw(loc))
        } else if is_folder {
            return;
        } else {
            (self.folder(parent_of(path)), Record::plain(loc))
        };
        let at = &mut self.counts[folder as usize];
        self.tree.records[*at as usize] = record;
        *at += 1;
        self.tree.nodes[folder as usize].recs.1 = *at;
    }

    /// One pass (a tar): files an entry as `count` would, keeping it.
    pub fn add(&mut self, path: &[u8], is_folder: bool, raw: bool, loc: u32) {
        self.filed += 1;
        if raw {
            self.added.push((0, Record::raw(loc)));
        } else if is_folder {
            self.mark(path, loc);
        } else {
            let folder = self.folder(parent_of(path));
            self.added.push((folder, Record::plain(loc)));
        }
    }

    fn mark(&mut self, path: &[u8], loc: u32) {
        let id = self.folder(path);
        let node = &mut self.tree.nodes[id as usize];
        if node.explicit.is_none() {
            node.explicit = Some(loc);
        }
    }

    /// The folder at `path`, made with its ancestors when new: one segment
    /// at a time (a path of 100,000 segments is a loop, not a recursion).
    fn folder(&mut self, path: &[u8]) -> u32 {
        if path.is_empty() {
            return 0;
        }
        if self.last.0 == path {
            return self.last.1;
        }
        let mut id: u32 = 0;
        for segment in path.split(|&b| b == b'/') {
            self.key.clear();
            self.key.extend_from_slice(&id.to_le_bytes());
            self.key.extend_from_slice(segment);
            id = match self.by_name.get(&self.key[..]) {
                Some(&found) => found,
                None => {
                    let start = self.tree.folder_names.len() as u32;
                    self.tree.folder_names.extend_from_slice(segment);
                    let new = self.tree.nodes.len() as u32;
                    self.tree.nodes.push(Node {
                        parent: id,
                        name: (start, self.tree.folder_names.len() as u32),
                        explicit: None,
                        subs: (0, 0),
                        recs: (0, 0),
                    });
                    self.counts.push(0);
                    self.by_name.insert(self.key[..].into(), new);
                    new
                }
            };
        }
        self.last.0.clear();
        self.last.0.extend_from_slice(path);
        self.last.1 = id;
        id
    }

    /// The finished tree: records and subfolders grouped by folder, each
    /// group in archive order.
    pub fn finish(self) -> Tree {
        let TreeBuilder {
            mut tree,
            by_name,
            mut added,
            ..
        } = self;
        drop(by_name);
        if !added.is_empty() {
            added.sort_by_key(|&(folder, r)| (folder, r.loc()));
            tree.records = added.iter().map(|&(_, r)| r).collect();
            let mut start = 0usize;
            while start < added.len() {
                let folder = added[start].0;
                let end = start + added[start..].iter().take_while(|a| a.0 == folder).count();
                tree.nodes[folder as usize].recs = (start as u32, end as u32);
                start = end;
            }
        }
        let mut subs: Vec<(u32, u32)> = (1..tree.nodes.len() as u32)
            .map(|id| (tree.nodes[id as usize].parent, id))
            .collect();
        subs.sort_unstable_by(|a, b| {
            a.0.cmp(&b.0)
                .then_with(|| tree.name(a.1).cmp(tree.name(b.1)))
        });
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

    const ENTRIES: [(&[u8], bool, bool, u32); 6] = [
        (b"a/b/c.txt", false, false, 0),
        (b"a/b", true, false, 1),
        (b"a/d.txt", false, false, 2),
        (b"top.txt", false, false, 3),
        (b"../raw", false, true, 4),
        (b"a/b/e.txt", false, false, 5),
    ];

    fn check(t: &Tree) {
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
            t.records(ab).iter().map(|r| r.loc()).collect::<Vec<_>>(),
            [0, 5]
        );
        assert_eq!(
            t.records(a).iter().map(|r| r.loc()).collect::<Vec<_>>(),
            [2]
        );
        let top: Vec<_> = t.records(0).iter().map(|r| (r.loc(), r.is_raw())).collect();
        assert_eq!(top, [(3, false), (4, true)]);
        assert_eq!(t.subfolders(0), [a]);
        assert_eq!(t.folder_count(), 3);
        assert_eq!(t.folder_at([&b"nope"[..]].into_iter()), None);
    }

    #[test]
    fn two_passes_and_one_pass_build_the_same_tree() {
        let mut b = TreeBuilder::default();
        for (path, folder, raw, loc) in ENTRIES {
            b.count(path, folder, raw, loc);
        }
        b.start_placing();
        for (path, folder, raw, loc) in ENTRIES {
            b.place(path, folder, raw, loc);
        }
        check(&b.finish());
        let mut b = TreeBuilder::default();
        for (path, folder, raw, loc) in ENTRIES {
            b.add(path, folder, raw, loc);
        }
        check(&b.finish());
    }

    #[test]
    fn what_an_entry_adds_is_never_more_than_said_beforehand() {
        let mut b = TreeBuilder::default();
        for (path, folder, raw, loc) in
            ENTRIES
                .into_iter()
                .chain([(&b"x/y/z/w.txt"[..], false, false, 6)])
        {
            let before = b.held();
            b.add(path, folder, raw, loc);
            assert!(
                b.held() - before <= TreeBuilder::most_added(path, folder),
                "{}",
                String::from_utf8_lossy(path)
            );
        }
        let deep = b"a/".repeat(1000);
        assert!(TreeBuilder::most_added(&deep, false) >= 1000 * FOLDER_BYTES);
    }
}
