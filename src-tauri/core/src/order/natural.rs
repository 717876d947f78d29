//! The natural name order's steps: a name read as [`Unit`]s, its lowercased
//! characters with each run of ASCII digits as one number (`file2` before
//! `file10`), and the direct comparison of two names the tests and the
//! end-to-end checks hold the sort keys to.

use std::cmp::Ordering;

use super::fold::Folded;

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
pub(super) fn digit_end(s: &[u8], from: usize) -> usize {
    from + s[from..].iter().take_while(|b| b.is_ascii_digit()).count()
}

#[inline]
pub(super) fn strip_zeros(mut digits: &[u8]) -> &[u8] {
    while let [b'0', rest @ ..] = digits {
        digits = rest;
    }
    digits
}

/// One comparable step of a name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Unit<'a> {
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

/// The comparable steps of a name: its lowercased characters ([`Folded`]),
/// with each run of ASCII digits as one number.
pub(super) struct Units<'a> {
    chars: Folded<'a>,
}

impl<'a> Units<'a> {
    pub(super) fn new(bytes: &'a [u8]) -> Self {
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
