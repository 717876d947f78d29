//! The sort key of an entry ([`sort_key_for`]): its group, its primary
//! value when the order places its group by one, then its name as units (a
//! code point each, a digit run as `'0'`, its length and its digits), so that
//! comparing two keys as slices is the order and no name is decoded twice.

use super::natural::{digit_end, strip_zeros, Unit, Units};
use super::{extension, Group, Order, Primary};
use crate::wire::SortBy;

/// Above every unit a key holds (code points and stand-ins stay below
/// 0x11_0100): ends a reversed run, so a prefix sorts after what it begins.
pub(super) const KEY_TOP: u32 = u32::MAX;

/// Appends the units of `name` to a key. A code unit is its code point; a
/// digit run is `'0'`, its length, then its digits: `'0'` sorts a number
/// after every code point below `'0'` and before every one above `'9'`
/// (digits never appear as code units), and the length orders numbers by
/// value. Keys cost one pass over the name; comparing them is a slice
/// comparison, so a folder sorts without re-decoding names. `reverse`
/// flips every unit and ends the run with [`KEY_TOP`].
pub(super) fn push_units(name: &[u8], reverse: bool, out: &mut Vec<u32>) {
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
pub(super) fn push_ascii_units(name: &[u8], out: &mut Vec<u32>) {
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

pub(super) fn push_units_of_any(name: &[u8], out: &mut Vec<u32>) {
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

/// The part of a sort key before the name's units: the group, and the
/// primary value when the order places this group by one.
pub(super) fn push_key_head(
    order: Order,
    group: Group,
    primary: Primary,
    name: &[u8],
    out: &mut Vec<u32>,
) {
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
