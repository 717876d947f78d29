//! The orders a listing can use, the same on every OS and every run.
//!
//! Real folders first, then everything else (symlinks included), under every
//! order. The natural name order: names compare case-insensitively by Unicode
//! lowercase, with runs of ASCII digits compared by numeric value (`file2`
//! before `file10`); remaining ties are broken by the raw bytes, so the order is
//! total and no two distinct names compare equal.
//!
//! The other orders ([`Order`]) put one primary value first: the size or the
//! modification time (from an `lstat`), or the extension (what follows the
//! last dot that is not the name's first character, lowercased). Ties fall
//! back to the natural name order, ascending even when the order is
//! reversed, so the result is deterministic. `reverse` flips the primary (and,
//! under the name order, the name). Entries whose `lstat` failed (or was not
//! made: see `checked` in the listing) sort after every entry with a value,
//! in both directions. Folders sort among themselves by name under the size
//! order (a folder's own size is not its contents') and the type order; under
//! the modified order they sort by their time like files.
//!
//! Every entry gets one sort key ([`sort_key_for`]): a sequence of `u32`
//! compared as a slice, then the raw name bytes (reversed under a reversed
//! name order). Everything that compares entries (the heap of candidates,
//! cursors, the samples of a deep page, `locate`) compares these keys, so
//! there is one order, not several that should agree.
#![forbid(unsafe_code)]

use std::cmp::Ordering;

use crate::wire::{EntryKind, SortBy};

mod fold;
mod key;
mod natural;
mod part_key;

pub use fold::{fold_into, starts_with_folded};
pub use key::sort_key_for;
#[cfg(any(test, feature = "e2e"))]
pub use natural::compare_names;
pub use part_key::PartKey;

#[cfg(test)]
mod tests;

/// An order: what comes first, and which way.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Order {
    /// The primary value (folders first under every one).
    pub by: SortBy,
    /// Flips the primary value (and, under the name order, the name); ties
    /// still fall back to the name, ascending.
    pub reverse: bool,
}

impl Order {
    /// The natural name order, ascending: what every listing used before orders existed.
    #[cfg(test)]
    pub const NAME: Order = Order {
        by: SortBy::Name,
        reverse: false,
    };

    /// True when every entry needs an `lstat` to be placed: the order has
    /// a primary value (size, modified time) that a cursor must carry.
    pub fn needs_stat(self) -> bool {
        matches!(self.by, SortBy::Size | SortBy::Modified)
    }

    /// True when `group` is placed by its primary value under this order
    /// (folders are not, under the size and type orders).
    pub(super) fn uses_primary(self, group: Group) -> bool {
        match self.by {
            SortBy::Name => false,
            SortBy::Modified => true,
            SortBy::Size | SortBy::Type => group == Group::Other,
        }
    }

    /// Raw-byte tie-breaks run backwards under a reversed name order only.
    pub fn bytes_reversed(self) -> bool {
        self.by == SortBy::Name && self.reverse
    }

    /// Compares two entries whose sort keys are `ka` and `kb`.
    #[inline]
    pub fn compare_keyed(self, ka: &[u32], a: &[u8], kb: &[u32], b: &[u8]) -> Ordering {
        compare_keys(ka, kb).then_with(|| {
            if self.bytes_reversed() {
                b.cmp(a)
            } else {
                a.cmp(b)
            }
        })
    }
}

/// Units compared at once while skipping the prefix two keys share.
const KEY_CHUNK: usize = 8;

/// `a.cmp(b)`, with the shared prefix skipped `KEY_CHUNK` units at a time
/// (one vector comparison each): names in one folder often share long
/// prefixes, and a deep page compares every name with its bounds.
#[inline]
pub(super) fn compare_keys(a: &[u32], b: &[u32]) -> Ordering {
    let n = a.len().min(b.len());
    let mut i = 0;
    for (x, y) in a[..n]
        .chunks_exact(KEY_CHUNK)
        .zip(b[..n].chunks_exact(KEY_CHUNK))
    {
        let (x, y): (&[u32; KEY_CHUNK], &[u32; KEY_CHUNK]) =
            (x.try_into().unwrap(), y.try_into().unwrap());
        if x != y {
            break;
        }
        i += KEY_CHUNK;
    }
    a[i..].cmp(&b[i..])
}

/// The value an entry is placed by under the size or modified order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Primary {
    /// The order has no primary value (name, type), or it does not apply
    /// (a folder under the size order).
    None,
    /// The `lstat` failed or was not made: sorts after every value.
    Missing,
    /// A size in bytes, or a modification time in ms since the epoch.
    Value(i64),
}

impl Primary {
    /// The value a size in bytes sorts by (sizes beyond `i64::MAX` tie there).
    pub fn of_size(size: u64) -> Primary {
        Primary::Value(size.min(i64::MAX as u64) as i64)
    }
}

/// The extension of a name: what follows its last dot, unless that dot is
/// the name's first character; `None` when there is none (or it is empty).
pub fn extension(name: &[u8]) -> Option<&[u8]> {
    let dot = name.iter().rposition(|&b| b == b'.')?;
    (dot > 0 && dot + 1 < name.len()).then(|| &name[dot + 1..])
}

/// The group an entry sorts in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Group {
    /// Real folders: first under every order.
    Folder,
    /// Everything else, symlinks to folders included.
    Other,
}

impl Group {
    /// The group of an entry of this kind.
    pub fn of(kind: EntryKind) -> Group {
        if kind == EntryKind::Folder {
            Group::Folder
        } else {
            Group::Other
        }
    }
}
