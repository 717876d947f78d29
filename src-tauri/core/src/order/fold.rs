//! Case folding of the natural order: a name's lowercased code points,
//! digits kept as themselves and bytes that are not UTF-8 as stand-ins above
//! Unicode, for prefixes, filters and the natural order's units.

use std::char::ToLowercase;

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
/// prefixes and filters; [`Units`](super::natural::Units) reads names
/// through it too).
pub(super) struct Folded<'a> {
    pub(super) bytes: &'a [u8],
    pub(super) pos: usize,
    /// The rest of a character that lowercases to several.
    pending: Option<ToLowercase>,
}

impl<'a> Folded<'a> {
    pub(super) fn new(bytes: &'a [u8]) -> Self {
        Folded {
            bytes,
            pos: 0,
            pending: None,
        }
    }

    /// True while the rest of a multi-character lowercasing is still to come.
    #[inline]
    pub(super) fn in_expansion(&self) -> bool {
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
