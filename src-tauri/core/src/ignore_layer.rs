//! One ignore file's rules, compiled within their budgets
//! ([`crate::ignore_rules`] finds the files and layers them).
//!
//! Two budgets, both of memory and of the work each name costs:
//! - the rules that apply to one folder (its chain: the folder's
//!   `.gitignore`, those of the folders above it in its repository,
//!   `.git/info/exclude`, the global file) hold at most `MAX_IGNORE_RULES`
//!   rules of `MAX_IGNORE_RULE_BYTES`, compiled to at most
//!   `MAX_IGNORE_COMPILED_BYTES`: a file that would take its chain past
//!   that is not used, and says so (`TOO_LARGE`). Folders whose chains fit
//!   are not affected by the rules of other folders of the same listing;
//! - what one listing holds at once ([`Held`]): the compiled rules of the
//!   chains of the folders still to be read (`MAX_IGNORE_HELD_BYTES`) and
//!   the paths of the repositories' indexes (`MAX_TRACKED_HELD_BYTES`), each
//!   share given back when the last folder needing it is done.
#![forbid(unsafe_code)]

use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use crate::error::{CanopyError, ErrorCode};
use crate::ignore_pattern::{rule_lines, Pattern};
use crate::limits::{
    MAX_IGNORE_COMPILED_BYTES, MAX_IGNORE_HELD_BYTES, MAX_IGNORE_RULES, MAX_IGNORE_RULE_BYTES,
    MAX_TRACKED_HELD_BYTES,
};

/// The rules of one ignore file, in the file's order (the last that
/// matches decides).
pub(crate) struct Layer {
    pub(crate) patterns: Box<[Pattern]>,
    /// What its rules cost, counted in the chain of every folder it applies to.
    pub(crate) cost: Spent,
    /// Its compiled bytes, held by the listing while the layer lives.
    _held: Charge,
}

/// What rules cost: their number, their text in bytes, and what they
/// compile to.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Spent {
    rules: usize,
    bytes: usize,
    compiled: usize,
}

impl Spent {
    pub(crate) fn plus(self, more: Spent) -> Spent {
        Spent {
            rules: self.rules + more.rules,
            bytes: self.bytes + more.bytes,
            compiled: self.compiled + more.compiled,
        }
    }

    /// True when `more` fits in one folder's budget after `self`.
    fn fits(self, more: Spent) -> bool {
        let all = self.plus(more);
        all.rules <= MAX_IGNORE_RULES
            && all.bytes <= MAX_IGNORE_RULE_BYTES
            && all.compiled <= MAX_IGNORE_COMPILED_BYTES
    }
}

/// Which share of a listing's memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pool {
    /// Compiled rules (`MAX_IGNORE_HELD_BYTES`).
    Rules,
    /// The paths repositories track (`MAX_TRACKED_HELD_BYTES`).
    Tracked,
}

impl Pool {
    fn limit(self) -> usize {
        match self {
            Pool::Rules => MAX_IGNORE_HELD_BYTES,
            Pool::Tracked => MAX_TRACKED_HELD_BYTES,
        }
    }
}

/// The memory one listing's ignore rules hold at once, shared by the
/// rules of every folder it reads: a listing holds the rules (and the
/// repositories' tracked paths) of the folders still waiting to be read,
/// so what they hold together is bounded, and given back as each is dropped.
#[derive(Debug, Default)]
pub(crate) struct Held {
    rules: AtomicUsize,
    tracked: AtomicUsize,
}

impl Held {
    fn pool(&self, pool: Pool) -> &AtomicUsize {
        match pool {
            Pool::Rules => &self.rules,
            Pool::Tracked => &self.tracked,
        }
    }

    /// What is left of `pool`.
    pub(crate) fn room(&self, pool: Pool) -> usize {
        pool.limit()
            .saturating_sub(self.pool(pool).load(Ordering::Relaxed))
    }

    /// Takes `bytes` of `pool`, or says how many are already held.
    pub(crate) fn take(self: &Arc<Held>, pool: Pool, bytes: usize) -> Result<Charge, usize> {
        let had = self.pool(pool).fetch_add(bytes, Ordering::Relaxed);
        if had + bytes > pool.limit() {
            self.pool(pool).fetch_sub(bytes, Ordering::Relaxed);
            return Err(had);
        }
        Ok(Charge {
            held: self.clone(),
            pool,
            bytes,
        })
    }
}

/// A share of a listing's [`Held`] memory, given back when dropped.
#[derive(Debug)]
pub(crate) struct Charge {
    held: Arc<Held>,
    pool: Pool,
    bytes: usize,
}

impl Drop for Charge {
    fn drop(&mut self) {
        self.held
            .pool(self.pool)
            .fetch_sub(self.bytes, Ordering::Relaxed);
    }
}

fn over_budget(what: &str, want: Spent, chain: Spent) -> CanopyError {
    CanopyError::new(
        ErrorCode::TooLarge,
        format!(
            "{what} holds {} rules ({} bytes, {} bytes compiled), and the ignore files above it that apply to the same \
             folder hold {} ({} bytes, {} compiled); the rules that apply to one folder are at most {MAX_IGNORE_RULES} \
             rules of {MAX_IGNORE_RULE_BYTES} bytes, compiled to at most {MAX_IGNORE_COMPILED_BYTES} bytes, so its \
             rules are not used",
            want.rules, want.bytes, want.compiled, chain.rules, chain.bytes, chain.compiled
        ),
    )
}

fn over_held(what: &str, want: usize, had: usize) -> CanopyError {
    CanopyError::new(
        ErrorCode::TooLarge,
        format!(
            "{what} compiles to {want} bytes, and this listing already holds {had} bytes of compiled rules of the \
             folders it has yet to read (at most {MAX_IGNORE_HELD_BYTES} at once), so its rules are not used; \
             list this folder by itself to use them"
        ),
    )
}

/// Builds the rules of one file's text (named `what` in messages), for a
/// folder whose chain already holds `chain`: a file whose rules do not fit
/// the folder's budget, or the listing's memory, is not used, and the
/// error says why.
pub(crate) fn layer_of(
    text: &[u8],
    what: &str,
    chain: Spent,
    held: &Arc<Held>,
) -> (Option<Arc<Layer>>, Option<CanopyError>) {
    // Counted before anything is compiled, so a file over the budget costs one scan.
    let (rules, bytes) =
        rule_lines(text).fold((0usize, 0usize), |(n, b), line| (n + 1, b + line.len()));
    if rules == 0 {
        return (None, None);
    }
    let counted = Spent {
        rules,
        bytes,
        compiled: 0,
    };
    if !chain.fits(counted) {
        return (None, Some(over_budget(what, counted, chain)));
    }
    // A rule that comes again later can never be the last match: only the
    // last of identical lines is kept (5,000 copies of one costly rule cost one).
    let mut seen = HashSet::new();
    let mut last_of_each: Vec<&[u8]> = rule_lines(text)
        .rev()
        .filter(|line| seen.insert(*line))
        .collect();
    last_of_each.reverse();
    let patterns: Box<[Pattern]> = last_of_each.into_iter().map(Pattern::parse).collect();
    let cost = Spent {
        compiled: patterns.iter().map(Pattern::cost).sum(),
        ..counted
    };
    if !chain.fits(cost) {
        return (None, Some(over_budget(what, cost, chain)));
    }
    match held.take(Pool::Rules, cost.compiled) {
        Ok(charge) => (
            Some(Arc::new(Layer {
                patterns,
                cost,
                _held: charge,
            })),
            None,
        ),
        Err(had) => (None, Some(over_held(what, cost.compiled, had))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_last_of_identical_rules_is_kept_and_the_order_of_the_rest_holds() {
        let text = [
            &b"*.log\n!keep.log\n"[..],
            &b"*a*a*a*b\n".repeat(4_000),
            b"*.log\n",
        ]
        .concat();
        let (layer, err) = layer_of(&text, "test", Spent::default(), &Arc::default());
        assert!(err.is_none(), "{err:?}");
        let layer = layer.expect("rules");
        assert_eq!(
            layer.patterns.len(),
            3,
            "!keep.log, one *a*a*a*b, then *.log"
        );
        assert!(
            layer.patterns[0].negative,
            "the later *.log still comes after !keep.log"
        );
    }

    #[test]
    fn a_layer_holds_its_compiled_bytes_until_it_is_dropped() {
        let held = Arc::new(Held::default());
        let (layer, err) = layer_of(b"*.log\n[a-z]*.tmp\n", "test", Spent::default(), &held);
        assert!(err.is_none(), "{err:?}");
        let layer = layer.expect("rules");
        let taken = held.rules.load(Ordering::Relaxed);
        assert_eq!(
            taken, layer.cost.compiled,
            "the listing holds what the rules compile to"
        );
        drop(layer);
        assert_eq!(
            held.rules.load(Ordering::Relaxed),
            0,
            "given back once no folder needs them"
        );
    }

    #[test]
    fn a_file_past_what_the_listing_holds_at_once_says_too_large() {
        let held = Arc::new(Held::default());
        held.rules
            .store(MAX_IGNORE_HELD_BYTES - 10, Ordering::Relaxed);
        let (layer, err) = layer_of(b"*.log\n", "x/.gitignore", Spent::default(), &held);
        assert!(layer.is_none(), "not used");
        let err = err.expect("the folder says why");
        assert_eq!(err.code, ErrorCode::TooLarge);
        assert!(err.message.contains("x/.gitignore"), "{}", err.message);
        assert_eq!(
            held.rules.load(Ordering::Relaxed),
            MAX_IGNORE_HELD_BYTES - 10,
            "nothing is taken for a file not used"
        );
    }
}
