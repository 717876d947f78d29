//! A sort key built only as far as the comparisons made with it need
//! ([`PartKey`]): placing a name between two bounds stops where the name
//! first differs from them, which is most of the cost of a deep page.

use std::cmp::Ordering;

use super::key::{push_key_head, push_units, KEY_TOP};
use super::natural::{digit_end, strip_zeros};
use super::{compare_keys, Group, Order, Primary};
use crate::wire::SortBy;

/// The sort key of an entry ([`sort_key_for`](super::sort_key_for)) built
/// only as far as the comparisons made with it need: a pass that only places
/// a name between two bounds stops where the name first differs from them.
/// The key of an ASCII name grows a run of letters or one number at a time;
/// any other name is keyed whole at once.
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
