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

use std::char::ToLowercase;
use std::cmp::Ordering;

use crate::wire::{EntryKind, SortBy};

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
    fn uses_primary(self, group: Group) -> bool {
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
fn compare_keys(a: &[u32], b: &[u32]) -> Ordering {
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

/// Above every unit a key holds (code points and stand-ins stay below
/// 0x11_0100): ends a reversed run, so a prefix sorts after what it begins.
const KEY_TOP: u32 = u32::MAX;

/// Appends the units of `name` to a key. A code unit is its code point; a
/// digit run is `'0'`, its length, then its digits: `'0'` sorts a number
/// after every code point below `'0'` and before every one above `'9'`
/// (digits never appear as code units), and the length orders numbers by
/// value. Keys cost one pass over the name; comparing them is a slice
/// comparison, so a folder sorts without re-decoding names. `reverse`
/// flips every unit and ends the run with [`KEY_TOP`].
fn push_units(name: &[u8], reverse: bool, out: &mut Vec<u32>) {
    let start = out.len();
    if name.is_ascii() {
        push_ascii_units(name, out);
    } else {
        push_units_of_any(name, out);
    }
    if reverse {
        for w in &mut out[start..] {
            *w = KEY_TOP - 1 - *w;
        }
        out.push(KEY_TOP);
    }
}

/// The units of an ASCII name, a run at a time (the common case; every
/// pass over a folder keys every name): the same units as
/// [`push_units_of_any`], as an ASCII character lowercases to one and
/// never to a digit.
fn push_ascii_units(name: &[u8], out: &mut Vec<u32>) {
    let mut rest = name;
    while !rest.is_empty() {
        let letters = rest
            .iter()
            .position(u8::is_ascii_digit)
            .unwrap_or(rest.len());
        out.extend(
            rest[..letters]
                .iter()
                .map(|&b| u32::from(b.to_ascii_lowercase())),
        );
        rest = &rest[letters..];
        if rest.is_empty() {
            break;
        }
        let end = digit_end(rest, 0);
        let digits = strip_zeros(&rest[..end]);
        out.push('0' as u32);
        out.push(digits.len() as u32);
        out.extend(digits.iter().map(|&d| u32::from(d)));
        rest = &rest[end..];
    }
}

fn push_units_of_any(name: &[u8], out: &mut Vec<u32>) {
    for unit in Units::new(name) {
        match unit {
            Unit::Code(c) => out.push(c),
            Unit::Num(digits) => {
                out.push('0' as u32);
                out.push(digits.len() as u32);
                out.extend(digits.iter().map(|&d| d as u32));
            }
        }
    }
}

/// Writes the sort key of an entry under `order` into `out` (see the module
/// docs): comparing two keys as slices, then the raw names (see
/// [`Order::compare_keyed`]), gives the order.
///
/// Layout: the group; then, when the order places this group by a value,
/// `0` and the value (two words, flipped when reversed) or `1` for a missing
/// value, or the extension's units and a terminator; then the name's units.
pub fn sort_key_for(order: Order, group: Group, primary: Primary, name: &[u8], out: &mut Vec<u32>) {
    push_key_head(order, group, primary, name, out);
    push_units(name, order.reverse && order.by == SortBy::Name, out);
}

/// The sort key of an entry ([`sort_key_for`]) built only as far as the
/// comparisons made with it need: a pass that only places a name between
/// two bounds stops where the name first differs from them. The key of an
/// ASCII name grows a run of letters or one number at a time; any other
/// name is keyed whole at once.
pub struct PartKey<'a> {
    out: &'a mut Vec<u32>,
    /// The ASCII name's bytes not yet in `out`.
    rest: &'a [u8],
    reverse: bool,
    done: bool,
}

impl<'a> PartKey<'a> {
    /// Starts the key of an entry in `out` (cleared).
    pub fn new(
        order: Order,
        group: Group,
        primary: Primary,
        name: &'a [u8],
        out: &'a mut Vec<u32>,
    ) -> PartKey<'a> {
        push_key_head(order, group, primary, name, out);
        let reverse = order.reverse && order.by == SortBy::Name;
        if name.is_ascii() {
            PartKey {
                out,
                rest: name,
                reverse,
                done: false,
            }
        } else {
            push_units(name, reverse, out);
            PartKey {
                out,
                rest: &[],
                reverse,
                done: true,
            }
        }
    }

    /// Adds the next run of letters or the next number (or ends the key).
    fn grow(&mut self) {
        let start = self.out.len();
        let rest = self.rest;
        match rest.first() {
            None => {
                self.done = true;
                if self.reverse {
                    self.out.push(KEY_TOP);
                }
                return;
            }
            Some(b) if b.is_ascii_digit() => {
                let end = digit_end(rest, 0);
                let digits = strip_zeros(&rest[..end]);
                self.out.push('0' as u32);
                self.out.push(digits.len() as u32);
                self.out.extend(digits.iter().map(|&d| u32::from(d)));
                self.rest = &rest[end..];
            }
            Some(_) => {
                let letters = rest
                    .iter()
                    .position(u8::is_ascii_digit)
                    .unwrap_or(rest.len());
                self.out.extend(
                    rest[..letters]
                        .iter()
                        .map(|&b| u32::from(b.to_ascii_lowercase())),
                );
                self.rest = &rest[letters..];
            }
        }
        if self.reverse {
            for w in &mut self.out[start..] {
                *w = KEY_TOP - 1 - *w;
            }
        }
    }

    /// How this key compares to the whole key `other`, as `compare_keys` would.
    pub fn compare(&mut self, other: &[u32]) -> Ordering {
        let mut from = 0;
        loop {
            let n = self.out.len().min(other.len());
            match compare_keys(&self.out[from..n], &other[from..n]) {
                Ordering::Equal => {}
                o => return o,
            }
            if self.out.len() > n {
                return Ordering::Greater; // `other` is a proper prefix
            }
            if self.done {
                return n.cmp(&other.len());
            }
            from = n;
            self.grow();
        }
    }

    /// The whole key.
    pub fn finish(self) -> &'a [u32] {
        let mut this = self;
        while !this.done {
            this.grow();
        }
        this.out
    }
}

/// The part of a sort key before the name's units: the group, and the
/// primary value when the order places this group by one.
fn push_key_head(order: Order, group: Group, primary: Primary, name: &[u8], out: &mut Vec<u32>) {
    out.clear();
    out.push(group as u32);
    if order.uses_primary(group) {
        match order.by {
            SortBy::Type => match extension(name) {
                // The terminator sorts a shorter extension first ("" < "c" < "cc").
                Some(ext) => {
                    out.push(1);
                    push_units(ext, order.reverse, out);
                    out.push(0);
                }
                None => out.push(if order.reverse { 2 } else { 0 }),
            },
            _ => match primary {
                Primary::Value(v) => {
                    // Signed to unsigned, order kept; flipped when reversed.
                    let mut u = (v as u64) ^ (1 << 63);
                    if order.reverse {
                        u = !u;
                    }
                    out.extend([0, (u >> 32) as u32, u as u32]);
                }
                Primary::Missing | Primary::None => out.push(1),
            },
        }
    }
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

#[cfg(any(test, feature = "e2e"))]
/// Compares two names in natural order, ties broken by raw bytes.
pub fn compare_names(a: &[u8], b: &[u8]) -> Ordering {
    // Skip the identical prefix (the hot case: `file_000123` vs `file_000124`),
    // backed up to a point where both unit streams start afresh: a character
    // boundary outside any digit run. Identical bytes before it fold alike.
    let mut start = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    while start > 0
        && (a[start - 1].is_ascii_digit() || (a[start - 1] & 0xc0 == 0x80) || a[start - 1] >= 0xc0)
    {
        start -= 1;
    }
    if let Some(order) = compare_ascii(&a[start..], &b[start..]) {
        return order.then_with(|| a.cmp(b));
    }
    let mut ua = Units::new(&a[start..]);
    let mut ub = Units::new(&b[start..]);
    loop {
        match (ua.next(), ub.next()) {
            (None, None) => return a.cmp(b),
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(x), Some(y)) => match x.cmp(&y) {
                Ordering::Equal => {}
                other => return other,
            },
        }
    }
}

#[cfg(any(test, feature = "e2e"))]
/// The same order as [`Units`] for names that are ASCII from here on, without
/// the iterator's bookkeeping; `None` as soon as a non-ASCII byte is seen
/// (the caller then starts over with the general path). `Equal` means the
/// unit streams are equal; the caller breaks the tie by bytes.
#[inline]
fn compare_ascii(a: &[u8], b: &[u8]) -> Option<Ordering> {
    let (mut i, mut j) = (0, 0);
    loop {
        let (x, y) = match (a.get(i), b.get(j)) {
            (None, None) => return Some(Ordering::Equal),
            (None, Some(&y)) => return if y < 0x80 { Some(Ordering::Less) } else { None },
            (Some(&x), None) => {
                return if x < 0x80 {
                    Some(Ordering::Greater)
                } else {
                    None
                }
            }
            (Some(&x), Some(&y)) => (x, y),
        };
        if x >= 0x80 || y >= 0x80 {
            return None;
        }
        match (x.is_ascii_digit(), y.is_ascii_digit()) {
            (true, true) => {
                let (ea, eb) = (digit_end(a, i), digit_end(b, j));
                let (na, nb) = (strip_zeros(&a[i..ea]), strip_zeros(&b[j..eb]));
                match na.len().cmp(&nb.len()).then_with(|| na.cmp(nb)) {
                    Ordering::Equal => {}
                    other => return Some(other),
                }
                i = ea;
                j = eb;
            }
            (true, false) => {
                return Some(Unit::Num(b"").cmp(&Unit::Code(y.to_ascii_lowercase() as u32)))
            }
            (false, true) => {
                return Some(Unit::Code(x.to_ascii_lowercase() as u32).cmp(&Unit::Num(b"")))
            }
            (false, false) => {
                match x.to_ascii_lowercase().cmp(&y.to_ascii_lowercase()) {
                    Ordering::Equal => {}
                    other => return Some(other),
                }
                i += 1;
                j += 1;
            }
        }
    }
}

#[inline]
fn digit_end(s: &[u8], from: usize) -> usize {
    from + s[from..].iter().take_while(|b| b.is_ascii_digit()).count()
}

#[inline]
fn strip_zeros(mut digits: &[u8]) -> &[u8] {
    while let [b'0', rest @ ..] = digits {
        digits = rest;
    }
    digits
}

/// True when `name` starts with `prefix`, compared case-insensitively as in
/// the natural order (digits literally).
pub fn starts_with_folded(name: &[u8], prefix: &[u8]) -> bool {
    let mut n = Folded::new(name);
    for want in Folded::new(prefix) {
        if n.next() != Some(want) {
            return false;
        }
    }
    true
}

/// Code points beyond Unicode stand for bytes that are not UTF-8, so they sort
/// after every character and still deterministically.
const BAD_BYTE_BASE: u32 = 0x11_0000;

/// One comparable step of a name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Unit<'a> {
    /// A lowercase character (or a stand-in for a bad byte).
    Code(u32),
    /// A run of ASCII digits with leading zeros removed.
    Num(&'a [u8]),
}

impl Unit<'_> {
    /// Numbers sort where the digit characters would: after every code point
    /// below `'0'` and before every one above `'9'`. Digits never appear as
    /// `Code`, so this is a total order.
    fn rank(&self) -> u8 {
        match self {
            Unit::Code(c) if *c < '0' as u32 => 0,
            Unit::Num(_) => 1,
            Unit::Code(_) => 2,
        }
    }
}

impl Ord for Unit<'_> {
    fn cmp(&self, other: &Self) -> Ordering {
        match (self, other) {
            (Unit::Code(a), Unit::Code(b)) => a.cmp(b),
            (Unit::Num(a), Unit::Num(b)) => a.len().cmp(&b.len()).then_with(|| a.cmp(b)),
            _ => self.rank().cmp(&other.rank()),
        }
    }
}

impl PartialOrd for Unit<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Decodes the character starting at `bytes[0]`, or `None` for a bad byte.
#[inline]
fn decode_char(bytes: &[u8]) -> Option<(char, usize)> {
    let width = match bytes[0] {
        0x00..=0x7f => 1,
        0xc2..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf4 => 4,
        _ => return None,
    };
    let s = std::str::from_utf8(bytes.get(..width)?).ok()?;
    s.chars().next().map(|c| (c, width))
}

/// The comparable steps of a name: its lowercased characters ([`Folded`]),
/// with each run of ASCII digits as one number.
struct Units<'a> {
    chars: Folded<'a>,
}

impl<'a> Units<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        Units {
            chars: Folded::new(bytes),
        }
    }
}

impl<'a> Iterator for Units<'a> {
    type Item = Unit<'a>;

    #[inline]
    fn next(&mut self) -> Option<Unit<'a>> {
        // Digits never come out of lowercasing, so a digit run starts only
        // where the characters before it are spent.
        if !self.chars.in_expansion() {
            let (bytes, pos) = (self.chars.bytes, self.chars.pos);
            if bytes.get(pos).is_some_and(u8::is_ascii_digit) {
                let end = digit_end(bytes, pos);
                self.chars.pos = end;
                return Some(Unit::Num(strip_zeros(&bytes[pos..end])));
            }
        }
        self.chars.next().map(Unit::Code)
    }
}

/// Writes the lowercased code points of `name` into `out` (bytes that are
/// not UTF-8 as stand-ins above Unicode): the case folding of the natural
/// order, digits kept as themselves, for prefixes and filters.
pub fn fold_into(name: &[u8], out: &mut Vec<u32>) {
    out.clear();
    // The common case, byte by byte: an ASCII character lowercases to one.
    if name.is_ascii() {
        out.extend(name.iter().map(|&b| u32::from(b.to_ascii_lowercase())));
        return;
    }
    out.extend(Folded::new(name));
}

/// Lowercased code points of a name, digits kept as themselves (for
/// prefixes and filters; [`Units`] reads names through it too).
struct Folded<'a> {
    bytes: &'a [u8],
    pos: usize,
    /// The rest of a character that lowercases to several.
    pending: Option<ToLowercase>,
}

impl<'a> Folded<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        Folded {
            bytes,
            pos: 0,
            pending: None,
        }
    }

    /// True while the rest of a multi-character lowercasing is still to come.
    #[inline]
    fn in_expansion(&self) -> bool {
        self.pending.as_ref().is_some_and(|rest| rest.len() > 0)
    }
}

impl Iterator for Folded<'_> {
    type Item = u32;

    #[inline]
    fn next(&mut self) -> Option<u32> {
        if let Some(rest) = &mut self.pending {
            if let Some(c) = rest.next() {
                return Some(c as u32);
            }
            self.pending = None;
        }
        let b = *self.bytes.get(self.pos)?;
        if b < 0x80 {
            self.pos += 1;
            return Some(u32::from(b.to_ascii_lowercase()));
        }
        match decode_char(&self.bytes[self.pos..]) {
            Some((c, width)) => {
                self.pos += width;
                let mut lower = c.to_lowercase();
                let first = lower.next().unwrap_or(c);
                if lower.len() > 0 {
                    self.pending = Some(lower);
                }
                Some(first as u32)
            }
            None => {
                self.pos += 1;
                Some(BAD_BYTE_BASE + b as u32)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_ascii_name_folds_as_unicode_lowercasing_does() {
        let every: Vec<u8> = (0u8..128).collect();
        let want: Vec<u32> = every
            .iter()
            .map(|&b| char::from(b).to_lowercase().next().unwrap() as u32)
            .collect();
        let mut fast = Vec::new();
        fold_into(&every, &mut fast);
        assert_eq!(
            fast, want,
            "every ASCII byte, through the whole-name shortcut"
        );
        assert_eq!(
            Folded::new(&every).collect::<Vec<u32>>(),
            want,
            "and character by character"
        );
        assert_eq!(fast[usize::from(b'Q')], u32::from(b'q'));
    }

    fn sorted(names: &[&str]) -> Vec<String> {
        let mut v: Vec<&str> = names.to_vec();
        v.sort_by(|a, b| compare_names(a.as_bytes(), b.as_bytes()));
        v.into_iter().map(String::from).collect()
    }

    #[test]
    fn digit_runs_compare_by_value() {
        assert_eq!(
            sorted(&["file10", "file2", "file1"]),
            ["file1", "file2", "file10"]
        );
        assert_eq!(
            sorted(&["img_102.jpg", "img_001.jpg", "img_010.jpg"]),
            ["img_001.jpg", "img_010.jpg", "img_102.jpg"]
        );
    }

    #[test]
    fn case_is_ignored_and_ties_break_by_bytes() {
        assert_eq!(sorted(&["b", "B", "a", "A"]), ["A", "a", "B", "b"]);
        // Code-point order after lowercasing: é (U+E9) sorts after z.
        assert_eq!(
            sorted(&["Zeta", "alpha", "Émile", "emile"]),
            ["alpha", "emile", "Zeta", "Émile"]
        );
        assert_eq!(
            compare_names(b"x01", b"x1"),
            Ordering::Less,
            "equal numbers tie-break by bytes"
        );
    }

    #[test]
    fn numbers_sort_where_digits_would() {
        // '-' (0x2d) < digits < '_' (0x5f) < letters
        assert_eq!(sorted(&["a_", "a9", "a-", "ab"]), ["a-", "a9", "a_", "ab"]);
    }

    #[test]
    fn folders_come_first() {
        let (folder, other) = (
            key_of(
                Order::NAME,
                &(Group::Folder, Primary::None, b"zzz".to_vec()),
            ),
            key_of(Order::NAME, &(Group::Other, Primary::None, b"aaa".to_vec())),
        );
        assert_eq!(
            Order::NAME.compare_keyed(&folder, b"zzz", &other, b"aaa"),
            Ordering::Less
        );
    }

    #[test]
    fn a_digit_after_a_character_that_lowercases_to_two_still_reads_as_a_number() {
        // U+0130 lowercases to "i" and U+0307: the number starts after both.
        let units: Vec<Unit<'_>> = Units::new("\u{130}007x".as_bytes()).collect();
        assert_eq!(
            units,
            [
                Unit::Code('i' as u32),
                Unit::Code(0x307),
                Unit::Num(b"7"),
                Unit::Code('x' as u32)
            ]
        );
    }

    #[test]
    fn bad_bytes_sort_after_characters() {
        assert_eq!(
            compare_names(b"a\xff", "a\u{10ffff}".as_bytes()),
            Ordering::Greater
        );
    }

    #[test]
    fn sort_keys_order_like_the_comparator() {
        let names: &[&[u8]] = &[
            b"file10", b"file2", b"File2", b"a-", b"a9", b"a_", b"x01", b"x1", b"a\xff", b"", b"0",
            b"00",
        ];
        let key = |n: &[u8]| key_of(Order::NAME, &(Group::Other, Primary::None, n.to_vec()));
        for a in names {
            for b in names {
                let by_key = key(a).cmp(&key(b)).then_with(|| a.cmp(b));
                assert_eq!(by_key, compare_names(a, b), "{a:?} vs {b:?}");
            }
        }
    }

    /// The orders as the issue states them, written directly.
    fn reference(
        order: Order,
        a: &(Group, Primary, Vec<u8>),
        b: &(Group, Primary, Vec<u8>),
    ) -> Ordering {
        let flip = |o: Ordering| if order.reverse { o.reverse() } else { o };
        fn units(x: &[u8]) -> Vec<Unit<'_>> {
            Units::new(x).collect()
        }
        a.0.cmp(&b.0)
            .then_with(|| {
                if !order.uses_primary(a.0) {
                    return Ordering::Equal;
                }
                match order.by {
                    SortBy::Type => match (extension(&a.2), extension(&b.2)) {
                        (None, None) => Ordering::Equal,
                        (None, Some(_)) => flip(Ordering::Less),
                        (Some(_), None) => flip(Ordering::Greater),
                        (Some(x), Some(y)) => flip(units(x).cmp(&units(y))),
                    },
                    _ => match (a.1, b.1) {
                        (Primary::Value(x), Primary::Value(y)) => flip(x.cmp(&y)),
                        (Primary::Value(_), _) => Ordering::Less,
                        (_, Primary::Value(_)) => Ordering::Greater,
                        _ => Ordering::Equal,
                    },
                }
            })
            .then_with(|| {
                let by_name = compare_names(&a.2, &b.2);
                if order.by == SortBy::Name {
                    flip(by_name)
                } else {
                    by_name
                }
            })
    }

    fn key_of(order: Order, e: &(Group, Primary, Vec<u8>)) -> Vec<u32> {
        let mut k = Vec::new();
        sort_key_for(order, e.0, e.1, &e.2, &mut k);
        k
    }

    proptest::proptest! {
        #[test]
        fn sort_keys_give_every_order_as_specified(
            entries in proptest::collection::vec(
                (proptest::bool::ANY, 0u8..4, "[aAb1.]{0,4}(\\.[jJpP1]{0,2})?"),
                2..12,
            ),
        ) {
            let entries: Vec<(Group, Primary, Vec<u8>)> = entries
                .into_iter()
                .filter(|(_, _, n)| !n.is_empty())
                .map(|(f, p, n)| {
                    let g = if f { Group::Folder } else { Group::Other };
                    let p = match p { 0 => Primary::Missing, v => Primary::Value(i64::from(v) - 2) };
                    (g, p, n.into_bytes())
                })
                .collect();
            for by in [SortBy::Name, SortBy::Size, SortBy::Modified, SortBy::Type] {
                for reverse in [false, true] {
                    let order = Order { by, reverse };
                    for a in &entries {
                        for b in &entries {
                            let by_key = order.compare_keyed(&key_of(order, a), &a.2, &key_of(order, b), &b.2);
                            let mut want = reference(order, a, b);
                            if want == Ordering::Equal && a.2 != b.2 {
                                want = if order.bytes_reversed() { b.2.cmp(&a.2) } else { a.2.cmp(&b.2) };
                            }
                            if a.2 == b.2 && a.0 == b.0 && want == Ordering::Equal {
                                continue;
                            }
                            proptest::prop_assert_eq!(by_key, want, "{:?} {:?} vs {:?}", order, a, b);
                        }
                    }
                }
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn a_part_key_compares_and_ends_as_the_whole_key(
            a in "([aAb_.-]|1|007|10|\\u{e9}){0,10}",
            b in "([aAb_.-]|1|007|10|\\u{e9}){0,10}",
            prefix in "[aA0]{0,20}",
            by in 0usize..4,
            reverse in proptest::bool::ANY,
            folder in proptest::bool::ANY,
            value in 0i64..3,
        ) {
            let order = Order { by: [SortBy::Name, SortBy::Size, SortBy::Modified, SortBy::Type][by], reverse };
            let group = if folder { Group::Folder } else { Group::Other };
            let (a, b) = ([prefix.as_bytes(), a.as_bytes()].concat(), [prefix.as_bytes(), b.as_bytes()].concat());
            let whole_a = key_of(order, &(group, Primary::Value(value), a.clone()));
            let whole_b = key_of(order, &(Group::Other, Primary::Value(1), b.clone()));
            let mut buffer = Vec::new();
            let mut part = PartKey::new(order, group, Primary::Value(value), &a, &mut buffer);
            proptest::prop_assert_eq!(part.compare(&whole_b), compare_keys(&whole_a, &whole_b), "{:?}: {:?} vs {:?}", order, a, b);
            proptest::prop_assert_eq!(part.compare(&whole_a), Ordering::Equal, "against its own key");
            proptest::prop_assert_eq!(part.finish(), whole_a.as_slice());
        }

        #[test]
        fn keys_compare_as_slices_do(shared in proptest::collection::vec(0u32..3, 0..40), a in proptest::collection::vec(0u32..3, 0..12), b in proptest::collection::vec(0u32..3, 0..12)) {
            let (a, b) = ([shared.as_slice(), &a].concat(), [shared.as_slice(), &b].concat());
            proptest::prop_assert_eq!(compare_keys(&a, &b), a.cmp(&b), "{:?} vs {:?}", a, b);
        }

        #[test]
        fn an_ascii_name_keys_as_the_general_path_keys_it(name in "[ -~]{0,40}", digits in "[0-9]{0,30}") {
            let name = [name.as_bytes(), digits.as_bytes(), name.as_bytes()].concat();
            let (mut fast, mut general) = (Vec::new(), Vec::new());
            push_ascii_units(&name, &mut fast);
            push_units_of_any(&name, &mut general);
            proptest::prop_assert_eq!(fast, general, "{:?}", String::from_utf8_lossy(&name));
        }
    }

    #[test]
    fn extensions_follow_the_last_dot_that_is_not_the_first_character() {
        assert_eq!(extension(b"a.tar.GZ"), Some(&b"GZ"[..]));
        assert_eq!(extension(b".bashrc"), None);
        assert_eq!(extension(b"Makefile"), None);
        assert_eq!(extension(b"x."), None);
        assert_eq!(extension(b"..x"), Some(&b"x"[..]));
    }

    #[test]
    fn missing_values_sort_last_in_both_directions_and_ties_stay_by_name() {
        for reverse in [false, true] {
            let order = Order {
                by: SortBy::Size,
                reverse,
            };
            let mut v = [
                (Group::Other, Primary::Missing, b"a".to_vec()),
                (Group::Other, Primary::Value(5), b"b".to_vec()),
                (Group::Other, Primary::Value(5), b"a2".to_vec()),
                (Group::Other, Primary::Value(9), b"c".to_vec()),
                (Group::Folder, Primary::None, b"z".to_vec()),
                (Group::Folder, Primary::None, b"y".to_vec()),
            ];
            v.sort_by(|a, b| order.compare_keyed(&key_of(order, a), &a.2, &key_of(order, b), &b.2));
            let names: Vec<&[u8]> = v.iter().map(|e| &e.2[..]).collect();
            let want: [&[u8]; 6] = if reverse {
                [b"y", b"z", b"c", b"a2", b"b", b"a"]
            } else {
                [b"y", b"z", b"a2", b"b", b"c", b"a"]
            };
            assert_eq!(names, want, "reverse {reverse}");
        }
    }

    #[test]
    fn prefix_match_is_case_insensitive() {
        assert!(starts_with_folded(b"Notes.txt", b"no"));
        assert!(starts_with_folded(
            "\u{c9}mile".as_bytes(),
            "\u{e9}m".as_bytes()
        ));
        assert!(!starts_with_folded(b"n", b"no"));
    }
}
