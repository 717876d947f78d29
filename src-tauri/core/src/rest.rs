//! What the hidden rest of a folder is made of: its entries counted by group
//! while the names are read (no `stat`): folders, then every other entry by
//! its extension ([`crate::order::extension`], lowercased).
//!
//! Only extensions of at most `REST_EXTENSION_BYTES` ASCII letters and
//! digits are told apart, and at most `REST_EXTENSIONS` of them (the first
//! met); everything else counts as "other". So the memory is fixed, and no
//! extension can carry a line break, an escape or a bracket into
//! `canopy-list`'s `[REST]` line: a crafted extension cannot forge a line.
//!
//! An extension is admitted when it is first met and never dropped, so a
//! name is counted in the same group every time it is looked at: the groups
//! of a folder's shown entries can be taken from its counts exactly.
#![forbid(unsafe_code)]

use crate::limits::{REST_EXTENSIONS, REST_EXTENSION_BYTES, REST_GROUPS_SHOWN};
use crate::order::extension;
use crate::wire::EntryKind;
pub use crate::wire::RestGroup;

// An admitted extension is packed into one `u128` (see `Slot::Extension`).
const _: () = assert!(REST_EXTENSION_BYTES <= std::mem::size_of::<u128>());

/// Where one entry counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Slot {
    Folder,
    NoExtension,
    /// Lowercased, zero-padded to 16 bytes (`REST_EXTENSION_BYTES` at most).
    Extension(u128),
    Other,
}

/// The slot of an entry, from its name and kind alone.
pub(crate) fn slot_of(name: &[u8], kind: EntryKind) -> Slot {
    if kind == EntryKind::Folder {
        return Slot::Folder;
    }
    match extension(name) {
        None => Slot::NoExtension,
        Some(ext)
            if ext.len() <= REST_EXTENSION_BYTES && ext.iter().all(u8::is_ascii_alphanumeric) =>
        {
            let mut packed = [0u8; std::mem::size_of::<u128>()];
            for (p, b) in packed.iter_mut().zip(ext) {
                *p = b.to_ascii_lowercase();
            }
            Slot::Extension(u128::from_be_bytes(packed))
        }
        Some(_) => Slot::Other,
    }
}

fn unpack(ext: u128) -> String {
    ext.to_be_bytes()
        .iter()
        .take_while(|&&b| b != 0)
        .map(|&b| b as char)
        .collect()
}

/// Counts by group (see the module docs).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Tally {
    folders: u64,
    no_extension: u64,
    other: u64,
    extensions: Vec<(u128, u64)>,
}

impl Tally {
    /// Counts one entry, admitting its extension if there is room.
    pub fn add(&mut self, slot: Slot) {
        match slot {
            Slot::Folder => self.folders += 1,
            Slot::NoExtension => self.no_extension += 1,
            Slot::Other => self.other += 1,
            Slot::Extension(x) => {
                if let Some((_, n)) = self.extensions.iter_mut().find(|(e, _)| *e == x) {
                    *n += 1;
                } else if self.extensions.len() < REST_EXTENSIONS {
                    self.extensions.push((x, 1));
                } else {
                    self.other += 1;
                }
            }
        }
    }

    /// The slot `slot` was counted in by this tally: an extension it did
    /// not admit counts as "other". A part of a folder (the entries before a
    /// page) is tallied in the canonical slots of the whole folder's tally,
    /// so it can be taken from it exactly.
    pub fn canonical(&self, slot: Slot) -> Slot {
        match slot {
            Slot::Extension(x) if !self.extensions.iter().any(|(e, _)| *e == x) => Slot::Other,
            s => s,
        }
    }

    /// Takes one entry counted by `add` (of the same tally) back out.
    pub fn remove(&mut self, slot: Slot) {
        let dec = |n: &mut u64| *n = n.saturating_sub(1);
        match slot {
            Slot::Folder => dec(&mut self.folders),
            Slot::NoExtension => dec(&mut self.no_extension),
            Slot::Other => dec(&mut self.other),
            Slot::Extension(x) => match self.extensions.iter_mut().find(|(e, _)| *e == x) {
                Some((_, n)) => dec(n),
                None => dec(&mut self.other),
            },
        }
    }

    /// `self - other`, group by group, where `other` tallied a part of the
    /// same entries in this tally's canonical slots.
    pub fn minus(&self, other: &Tally) -> Tally {
        let mut out = self.clone();
        out.folders = out.folders.saturating_sub(other.folders);
        out.no_extension = out.no_extension.saturating_sub(other.no_extension);
        out.other = out.other.saturating_sub(other.other);
        for (x, n) in &other.extensions {
            match out.extensions.iter_mut().find(|(e, _)| e == x) {
                Some((_, m)) => *m = m.saturating_sub(*n),
                None => out.other = out.other.saturating_sub(*n),
            }
        }
        out
    }

    /// The `REST_GROUPS_SHOWN` largest groups (by count, descending, then
    /// by label), then "other" for everything else, if anything.
    pub fn groups(&self) -> Vec<RestGroup> {
        let mut named: Vec<RestGroup> = Vec::new();
        if self.folders > 0 {
            named.push(RestGroup::Folders {
                count: self.folders,
            });
        }
        for &(x, n) in &self.extensions {
            if n > 0 {
                named.push(RestGroup::Extension {
                    extension: unpack(x),
                    count: n,
                });
            }
        }
        if self.no_extension > 0 {
            named.push(RestGroup::NoExtension {
                count: self.no_extension,
            });
        }
        named.sort_by(|a, b| {
            b.count()
                .cmp(&a.count())
                .then_with(|| sort_name(a).cmp(&sort_name(b)))
        });
        let mut other = self.other;
        for g in named.iter().skip(REST_GROUPS_SHOWN) {
            other += g.count();
        }
        named.truncate(REST_GROUPS_SHOWN);
        if other > 0 {
            named.push(RestGroup::Other { count: other });
        }
        named
    }
}

/// Ties sort by the text after the count: `.jpg` < `.json` < `folders` <
/// `without extension`.
fn sort_name(g: &RestGroup) -> String {
    match g {
        RestGroup::Folders { .. } => "folders".into(),
        RestGroup::Extension { extension, .. } => format!(".{extension}"),
        RestGroup::NoExtension { .. } => "without extension".into(),
        RestGroup::Other { .. } => "~".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tally(names: &[(&str, EntryKind)]) -> Tally {
        let mut t = Tally::default();
        for (n, k) in names {
            t.add(slot_of(n.as_bytes(), *k));
        }
        t
    }

    #[test]
    fn groups_are_folders_then_extensions_by_count_then_name() {
        use EntryKind::*;
        let t = tally(&[
            ("a.JPG", File),
            ("b.jpg", File),
            ("c.json", File),
            ("d", Folder),
            ("Makefile", File),
            (".bashrc", File),
            ("x.", File),
        ]);
        let labels: Vec<String> = t.groups().iter().map(RestGroup::label).collect();
        assert_eq!(
            labels,
            ["3 without extension", "2 .jpg", "1 .json", "1 folders"]
        );
    }

    #[test]
    fn a_crafted_or_long_extension_counts_as_other() {
        use EntryKind::*;
        let t = tally(&[
            ("x.jpg\n[FILE] evil", File),
            ("y.abcdefghijklmnopq", File),
            ("z.j-g", File),
            ("w.ok", File),
        ]);
        assert_eq!(
            t.groups(),
            [
                RestGroup::Extension {
                    extension: "ok".into(),
                    count: 1
                },
                RestGroup::Other { count: 3 }
            ]
        );
    }

    #[test]
    fn beyond_the_tracked_extensions_everything_is_other_and_top_groups_are_five() {
        let mut t = Tally::default();
        for i in 0..(REST_EXTENSIONS + 10) {
            for _ in 0..=(i % 7) {
                t.add(slot_of(format!("f.e{i}").as_bytes(), EntryKind::File));
            }
        }
        let groups = t.groups();
        assert_eq!(groups.len(), REST_GROUPS_SHOWN + 1);
        let total: u64 = groups.iter().map(RestGroup::count).sum();
        assert_eq!(
            total,
            (0..(REST_EXTENSIONS + 10))
                .map(|i| (i % 7 + 1) as u64)
                .sum::<u64>(),
            "nothing is lost"
        );
        assert!(matches!(groups.last(), Some(RestGroup::Other { .. })));
    }

    #[test]
    fn removing_what_was_added_gives_the_rest() {
        use EntryKind::*;
        let all = tally(&[("a.jpg", File), ("b.jpg", File), ("c", Folder)]);
        let shown = tally(&[("a.jpg", File)]);
        assert_eq!(
            all.minus(&shown).groups(),
            [
                RestGroup::Extension {
                    extension: "jpg".into(),
                    count: 1
                },
                RestGroup::Folders { count: 1 }
            ]
        );
    }
}
