//! Choosing which entries of a folder are shown: a page at any offset, or
//! after a cursor, in memory bounded by the page, never by the folder.
//!
//! A folder is streamed with `getdents64`; nothing holds all of its names.
//!
//! - **First pages and nested folders** (offset up to `SELECTION_WINDOW`):
//!   one pass keeping the best `offset + limit` candidates (a vector, then a
//!   max-heap once it overflows).
//! - **After a cursor**: one pass; entries at or before the cursor's key are
//!   only counted (that count is the page's true offset), the rest compete
//!   for a heap of `limit`.
//! - **Any other offset** (a jump to the end, a scrollbar drag): narrowing by
//!   counting, in two passes as a rule, three at worst.
//!   1. Count the folder and draw a uniform random sample of
//!      `SELECTION_SAMPLE` names (reservoir sampling; a name is copied, and
//!      its sort key built, only when it enters the reservoir). If the page
//!      now lies within `SELECTION_WINDOW` of the end, one more pass keeps
//!      the last `total - offset` entries, as a first page keeps the first
//!      ones: done.
//!   2. Sort the sample; count how many entries fall between neighbouring
//!      sample names near where the sample places the page (within
//!      `SELECTION_SPREAD_SD` standard deviations; the rest are placed by the
//!      outermost two). The counts give the bucket that holds entry
//!      `offset`, the number of entries before it, and a sample name past
//!      the page's end. The same pass keeps the entries of the buckets
//!      around the estimate, as many as the sample held less what is left
//!      of it: when the counts show the page among them, done.
//!   3. Otherwise keep only entries from that bucket's first name up to that
//!      upper bound, in a heap of (rank in the bucket + `limit`).
//!
//!   A bucket holds about `total / SELECTION_SAMPLE` entries; in the rare
//!   case that the target bucket holds more than `SELECTION_WINDOW` (or lies
//!   outside the counted spread), steps 1 and 2 repeat inside it (up to
//!   `SELECTION_ROUNDS` rounds), so memory stays bounded: `SELECTION_SAMPLE`
//!   names, `SELECTION_SAMPLE + 1` counters and at most
//!   `max(SELECTION_SAMPLE, SELECTION_WINDOW + limit)` candidates. Passes
//!   after the first build a name's sort key only as far as comparing it
//!   with the bounds and samples needs ([`PartKey`]), so the reads of the
//!   folder dominate: a deep page costs about two first pages, three when
//!   the page is not where the sample placed it (likelier the bigger the
//!   folder: the estimate's error grows as `total / sqrt(SELECTION_SAMPLE)`).
//!   The offset reported is always the true position of the first entry
//!   returned, counted in the last pass. Under the size or modified order
//!   every pass `lstat`s every entry again: a deep page then costs two or
//!   three rounds of `lstat` (a cursor, one).
//!
//! Every pass applies, in this order: the dotfile setting (`dotfilesHidden`),
//! the ignore rules (`ignoredHidden`), then the name filter (the entries
//! left are the folder's `total`; the count before the filter is
//! `unfilteredTotal`). Under the size or modified order it then `lstat`s each
//! entry (folders too under the modified order), within
//! `STAT_TIME_SHARE_PERCENT` of the time left: an entry not reached sorts
//! last and the pass says how many were placed (`checked`), while the names
//! are still counted to the end. And it tallies every entry's group (see
//! [`crate::rest`]) for what a truncated folder hides.
//!
//! Entries compare by their sort keys ([`crate::order::sort_key_for`]); a
//! pass builds each entry's key once, in a reused buffer, and allocates only
//! for an entry that enters the candidates.
//!
//! Folders change while they are read. Every pass counts what it sees; the
//! last pass decides the offset. A pass cut by the time budget makes a deep
//! page empty (never a page other than the one asked for) and says so.
#![forbid(unsafe_code)]

use std::cell::Cell;
use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::io;
use std::time::Instant;

use crate::cancel::CancelToken;
use crate::cursor::SortPosition;
use crate::filter::{Excludes, FilterScratch, NameFilter};
use crate::ignore_pattern::{Halt, Meter};
use crate::ignore_rules::{IgnoreRules, IgnoreScratch};
use crate::limits::{
    SELECTION_ROUNDS, SELECTION_SAMPLE, SELECTION_SPREAD_SD, SELECTION_WINDOW, STATS_PER_CLOCK,
};
use crate::order::{sort_key_for, Group, Order, PartKey, Primary};
use crate::rest::{slot_of, Slot, Tally};
use crate::source::{EntryStream, Meta, RawEntry, SourceFolder};
use crate::wire::{EntryKind, KindCounts, SortBy};

/// Why a read stopped as a whole.
#[derive(Debug)]
pub(crate) enum Stop {
    Cancelled,
}

/// A name that made the cut so far, with its sort key under the reading's
/// order: candidates compare as slices, then by name bytes.
#[derive(Debug)]
pub(crate) struct Candidate {
    key: Box<[u32]>,
    /// The order it was keyed under (for the raw-byte tie-break).
    order: Order,
    pub kind: EntryKind,
    pub name: Box<[u8]>,
    /// Under the size and modified orders: its value, and the `lstat` made
    /// to place it (reused to describe it). Boxed, so a candidate of the
    /// name order stays small to move around the heap.
    placed: Option<Box<(Primary, Option<Meta>)>>,
}

impl Candidate {
    /// The value it was placed by (`Primary::None` under the name and type orders).
    pub fn primary(&self) -> Primary {
        self.placed.as_ref().map_or(Primary::None, |p| p.0)
    }

    /// The `lstat` made to place it, if any (reused to describe it).
    pub fn meta(&self) -> Option<Meta> {
        self.placed.as_ref().and_then(|p| p.1)
    }

    fn cmp_with(&self, key: &[u32], name: &[u8]) -> Ordering {
        self.order.compare_keyed(&self.key, &self.name, key, name)
    }

    /// Its place in the order, owned (for a cursor after it).
    pub fn position(&self) -> SortPosition {
        SortPosition {
            group: Group::of(self.kind),
            primary: self.primary(),
            name: self.name.clone(),
        }
    }
}

impl Ord for Candidate {
    fn cmp(&self, other: &Self) -> Ordering {
        self.cmp_with(&other.key, &other.name)
    }
}
impl PartialOrd for Candidate {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl PartialEq for Candidate {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Candidate {}

/// A position in the order with its key built (bounds, samples).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Keyed {
    key: Box<[u32]>,
    pub pos: SortPosition,
}

impl Keyed {
    pub fn new(order: Order, pos: SortPosition) -> Keyed {
        let mut key = Vec::new();
        sort_key_for(order, pos.group, pos.primary, &pos.name, &mut key);
        Keyed {
            key: key.into(),
            pos,
        }
    }

    /// How the entry (`key`, `name`) compares to this position, as
    /// [`Order::compare_keyed`] would with its whole key.
    #[inline]
    pub fn compare(&self, order: Order, key: &mut PartKey<'_>, name: &[u8]) -> Ordering {
        key.compare(&self.key).then_with(|| {
            if order.bytes_reversed() {
                self.pos.name.as_ref().cmp(name)
            } else {
                name.cmp(&self.pos.name)
            }
        })
    }
}

/// How a folder is read: which names count, in which order, until when,
/// and who can stop it.
pub(crate) struct Reading<'a> {
    pub show_dotfiles: bool,
    pub deadline: Instant,
    /// Under an order that needs an `lstat` of every entry: none after this.
    pub stat_deadline: Instant,
    pub cancel: Option<&'a CancelToken>,
    pub order: Order,
    /// Applies to this folder (a request's filter applies to its root only).
    pub filter: Option<&'a NameFilter>,
    /// The ignore rules of this folder, when ignored entries are hidden.
    pub rules: Option<&'a IgnoreRules>,
    /// Names left out of every folder, counted with the ignored.
    pub exclude: Option<&'a Excludes>,
    /// Tally the entries' groups (what a truncated folder hides).
    pub tally: bool,
    /// Called before the folder is opened and before each batch of its
    /// names: a source read over a link gives each call a deadline of its
    /// own here (see [`crate::source::Source::paced`]).
    pub before_call: Option<&'a dyn Fn()>,
}

/// One entry as a pass hands it on.
pub(crate) struct Seen<'n> {
    pub name: &'n [u8],
    pub kind: EntryKind,
    pub primary: Primary,
    pub meta: Option<Meta>,
    /// Its group in the pass's tally (canonical: see [`Tally::canonical`]).
    pub slot: Slot,
}

/// What one pass over a folder saw.
#[derive(Debug, Default)]
pub(crate) struct Pass {
    /// Entries after the dotfile setting, the ignore rules and the filter.
    pub total: u64,
    /// Entries after the dotfile setting and the ignore rules (before the filter).
    pub unfiltered: u64,
    pub counts: KindCounts,
    pub dotfiles_hidden: u64,
    /// Entries the ignore rules or the excludes hid (among those the dotfile setting kept).
    pub ignored: u64,
    /// Every name the kernel returned (dotfiles included): the request's names budget.
    pub names_read: u64,
    /// Entries of `total` the stat scan did not reach (they sort last).
    pub unchecked: u64,
    pub timed_out: bool,
    /// A read error after the folder was opened.
    pub failed: Option<io::Error>,
    /// The groups of the `total` entries.
    pub tally: Tally,
}

impl Pass {
    fn cut_short(&self) -> bool {
        self.timed_out || self.failed.is_some()
    }

    /// The order of what was read is only partly known: the read or the stat scan was cut.
    pub fn order_is_partial(&self) -> bool {
        self.cut_short() || self.unchecked > 0
    }
}

thread_local! {
    /// One `getdents64` buffer per thread, reused by every pass it runs.
    static BUFFER: Cell<Vec<u8>> = const { Cell::new(Vec::new()) };
}

fn is_dotfile(name: &[u8]) -> bool {
    name.first() == Some(&b'.')
}

/// The kind of an entry: `d_type`, or a `stat` when the filesystem did not say.
pub(crate) fn kind_of<F: SourceFolder>(dir: &F, raw: &RawEntry<'_>) -> EntryKind {
    match raw.kind {
        Some(kind) => kind,
        None => dir
            .stat_child(raw.name, false)
            .map(|m| m.kind)
            .unwrap_or(EntryKind::Unknown),
    }
}

/// Reads `dir` once from its start, calling `each` with every entry that
/// passes the dotfile setting, the ignore rules and the filter.
pub(crate) fn pass<F: SourceFolder>(
    dir: &F,
    rd: &Reading<'_>,
    each: &mut dyn FnMut(&Seen<'_>),
) -> Result<Pass, Stop> {
    let mut p = Pass::default();
    let buffer = BUFFER.take();
    let before_call = || {
        if let Some(renew) = rd.before_call {
            renew();
        }
    };
    before_call();
    let mut entries = match dir.entries(buffer) {
        Ok(e) => e,
        Err((e, buffer)) => {
            BUFFER.set(buffer);
            p.failed = Some(e);
            return Ok(p);
        }
    };
    let show_dotfiles = rd.show_dotfiles;
    let order = rd.order;
    let needs_stat = order.needs_stat();
    let (mut names, mut hidden, mut ignored, mut unfiltered, mut total, mut stats) =
        (0u64, 0u64, 0u64, 0u64, 0u64, 0u64);
    let mut unchecked = 0u64;
    let mut counts = KindCounts::default();
    let mut tally = Tally::default();
    let mut stats_cut = false;
    let mut scratch = FilterScratch::default();
    let mut ignore_scratch = IgnoreScratch::default();
    // Ignore matching counts its steps and stops at the deadline or a
    // cancel; the batch's later entries are then skipped, and the pass ends.
    let mut meter = Meter::new(Some(rd.deadline), rd.cancel);
    let halted = Cell::new(None);
    let mut on_raw = |raw: RawEntry<'_>| {
        names += 1;
        if !show_dotfiles && is_dotfile(raw.name) {
            hidden += 1;
            return;
        }
        let kind = kind_of(dir, &raw);
        if let Some(rules) = rd.rules {
            if halted.get().is_some() {
                return;
            }
            match rules.is_ignored(
                raw.name,
                kind == EntryKind::Folder,
                &mut ignore_scratch,
                &mut meter,
            ) {
                Ok(true) => {
                    ignored += 1;
                    return;
                }
                Ok(false) => {}
                Err(halt) => {
                    halted.set(Some(halt));
                    return;
                }
            }
        }
        if rd
            .exclude
            .is_some_and(|x| x.matches(raw.name, &mut scratch))
        {
            ignored += 1;
            return;
        }
        unfiltered += 1;
        if let Some(f) = rd.filter {
            if !f.matches(raw.name, &mut scratch) {
                return;
            }
        }
        total += 1;
        counts.add(kind);
        let (mut primary, mut meta) = (Primary::None, None);
        if needs_stat && (order.by == SortBy::Modified || kind != EntryKind::Folder) {
            if !stats_cut && stats % STATS_PER_CLOCK == 0 && Instant::now() > rd.stat_deadline {
                stats_cut = true;
            }
            if stats_cut {
                unchecked += 1;
                primary = Primary::Missing;
            } else {
                stats += 1;
                match raw.meta.map_or_else(|| dir.stat_child(raw.name, false), Ok) {
                    Ok(m) => {
                        primary = match order.by {
                            SortBy::Size => Primary::of_size(m.size),
                            _ => m.modified_ms.map_or(Primary::Missing, Primary::Value),
                        };
                        meta = Some(m);
                    }
                    Err(_) => primary = Primary::Missing,
                }
            }
        }
        let slot = if rd.tally {
            let s = slot_of(raw.name, kind);
            tally.add(s);
            tally.canonical(s)
        } else {
            Slot::Other
        };
        each(&Seen {
            name: raw.name,
            kind,
            primary,
            meta: meta.or(raw.meta),
            slot,
        });
    };
    let stopped = loop {
        if rd.cancel.is_some_and(|c| c.is_cancelled()) {
            break Some(Stop::Cancelled);
        }
        before_call();
        let more = entries.next_batch(&mut on_raw);
        match halted.get() {
            Some(Halt::Cancelled) => break Some(Stop::Cancelled),
            Some(Halt::Deadline) => {
                p.timed_out = true;
                break None;
            }
            None => {}
        }
        match more {
            Ok(true) => {}
            Ok(false) => break None,
            Err(e) => {
                p.failed = Some(e);
                break None;
            }
        }
        if Instant::now() > rd.deadline {
            p.timed_out = true;
            break None;
        }
    };
    BUFFER.set(entries.into_buffer());
    if let Some(stop) = stopped {
        return Err(stop);
    }
    (
        p.total,
        p.unfiltered,
        p.counts,
        p.dotfiles_hidden,
        p.ignored,
        p.names_read,
    ) = (total, unfiltered, counts, hidden, ignored, names);
    p.unchecked = unchecked;
    p.tally = tally;
    Ok(p)
}

/// Which part of the order a pass keeps: from `lo` (inclusive or not) to
/// `hi` (exclusive). Entries before `lo` are counted as `below`.
#[derive(Default)]
struct Bounds<'a> {
    lo: Option<(&'a Keyed, bool)>,
    hi: Option<&'a Keyed>,
}

impl Bounds<'_> {
    fn is_set(&self) -> bool {
        self.lo.is_some() || self.hi.is_some()
    }

    /// `Less` below the range, `Equal` inside, `Greater` above.
    fn place(&self, order: Order, key: &mut PartKey<'_>, name: &[u8]) -> Ordering {
        if let Some((lo, inclusive)) = self.lo {
            match lo.compare(order, key, name) {
                Ordering::Less => return Ordering::Less,
                Ordering::Equal if !inclusive => return Ordering::Less,
                _ => {}
            }
        }
        match self.hi {
            Some(hi) if hi.compare(order, key, name) != Ordering::Less => Ordering::Greater,
            _ => Ordering::Equal,
        }
    }
}

/// One pass keeping the first (or last) `keep` entries within `bounds`, in order.
struct Kept {
    pass: Pass,
    best: Vec<Candidate>,
    below: u64,
    /// The groups of the entries below the bounds.
    below_tally: Tally,
}

/// Which end of the order a pass keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum End {
    First,
    Last,
}

/// A kept candidate in the heap: the heap's top is the one to give up first
/// (the greatest when keeping the first entries, the least when keeping the last).
trait Held: Ord {
    const END: End;
    fn hold(c: Candidate) -> Self;
    fn candidate(&self) -> &Candidate;
    fn release(self) -> Candidate;
}

impl Held for Candidate {
    const END: End = End::First;
    fn hold(c: Candidate) -> Self {
        c
    }
    fn candidate(&self) -> &Candidate {
        self
    }
    fn release(self) -> Candidate {
        self
    }
}

impl Held for std::cmp::Reverse<Candidate> {
    const END: End = End::Last;
    fn hold(c: Candidate) -> Self {
        std::cmp::Reverse(c)
    }
    fn candidate(&self) -> &Candidate {
        &self.0
    }
    fn release(self) -> Candidate {
        self.0
    }
}

fn keep_best<F: SourceFolder>(
    dir: &F,
    keep: usize,
    bounds: &Bounds<'_>,
    rd: &Reading<'_>,
) -> Result<Kept, Stop> {
    keep_end::<F, Candidate>(dir, keep, bounds, rd)
}

/// Entries go into a plain vector until there are more than `keep`; only then
/// does it become a heap of the `keep` kept so far, so a small folder costs one
/// sort and a huge one O(keep) memory and about one comparison per entry.
/// The kept entries are returned in order (ascending, whichever end was kept).
fn keep_end<F: SourceFolder, H: Held>(
    dir: &F,
    keep: usize,
    bounds: &Bounds<'_>,
    rd: &Reading<'_>,
) -> Result<Kept, Stop> {
    let mut small: Vec<H> = Vec::new();
    let mut heap: Option<BinaryHeap<H>> = None;
    let mut below = 0u64;
    let mut below_tally = Tally::default();
    let mut key = Vec::new();
    let order = rd.order;
    // The top of the heap gives way to an entry that compares this way to it.
    let gives_way = if H::END == End::First {
        Ordering::Greater
    } else {
        Ordering::Less
    };
    let p = pass(dir, rd, &mut |e| {
        let group = Group::of(e.kind);
        let mut part = PartKey::new(order, group, e.primary, e.name, &mut key);
        if bounds.is_set() {
            match bounds.place(order, &mut part, e.name) {
                Ordering::Less => {
                    below += 1;
                    below_tally.add(e.slot);
                    return;
                }
                Ordering::Greater => return,
                Ordering::Equal => {}
            }
        }
        if keep == 0 {
            return;
        }
        let key = part.finish();
        let make = || {
            H::hold(Candidate {
                key: key.into(),
                order,
                kind: e.kind,
                name: e.name.into(),
                placed: (e.primary != Primary::None || e.meta.is_some())
                    .then(|| Box::new((e.primary, e.meta))),
            })
        };
        match &mut heap {
            Some(h) => {
                if let Some(mut top) = h.peek_mut() {
                    // Allocate only for a name that beats the one to give up.
                    if top.candidate().cmp_with(key, e.name) == gives_way {
                        *top = make();
                    }
                }
            }
            None => {
                small.push(make());
                if small.len() > keep {
                    let mut h = BinaryHeap::from(std::mem::take(&mut small));
                    h.pop();
                    heap = Some(h);
                }
            }
        }
    })?;
    let held = heap.map(BinaryHeap::into_vec).unwrap_or(small);
    let mut best: Vec<Candidate> = held.into_iter().map(H::release).collect();
    best.sort_unstable();
    Ok(Kept {
        pass: p,
        best,
        below,
        below_tally,
    })
}

/// splitmix64: a small, good-enough generator for sampling.
struct Rng(u64);

impl Rng {
    fn seeded() -> Self {
        let t = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        let here = &t as *const u64 as u64;
        Rng(t ^ here.rotate_left(32) ^ u64::from(std::process::id()))
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n`.
    fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next()) * u128::from(n)) >> 64) as u64
    }
}

/// The sizes that bound a deep selection (see the module docs).
#[derive(Debug, Clone, Copy)]
struct Tuning {
    sample: usize,
    window: usize,
    /// Narrowing rounds before a bucket is kept whatever its size.
    rounds: u32,
    /// Standard deviations of the sample's estimate around the page that
    /// the counting pass tells apart.
    spread: u64,
}

const TUNING: Tuning = Tuning {
    sample: SELECTION_SAMPLE,
    window: SELECTION_WINDOW,
    rounds: SELECTION_ROUNDS,
    spread: SELECTION_SPREAD_SD,
};

/// Pass 1: counts and a uniform sample of the positions within `bounds`, sorted.
fn sample<F: SourceFolder>(
    dir: &F,
    k: usize,
    bounds: &Bounds<'_>,
    rng: &mut Rng,
    rd: &Reading<'_>,
) -> Result<(Pass, Vec<Keyed>, u64, u64), Stop> {
    let mut reservoir: Vec<Keyed> = Vec::new();
    let (mut below, mut inside) = (0u64, 0u64);
    let order = rd.order;
    let mut key = Vec::new();
    let p = pass(dir, rd, &mut |e| {
        let group = Group::of(e.kind);
        // Unbounded (the first round), only a name entering the reservoir
        // needs its key: most of a big folder is just counted.
        if bounds.is_set() {
            let mut part = PartKey::new(order, group, e.primary, e.name, &mut key);
            match bounds.place(order, &mut part, e.name) {
                Ordering::Less => {
                    below += 1;
                    return;
                }
                Ordering::Greater => return,
                Ordering::Equal => {}
            }
        }
        let slot = if (inside as usize) < k {
            Some(reservoir.len())
        } else {
            Some(rng.below(inside + 1) as usize).filter(|&j| j < k)
        };
        inside += 1;
        if let Some(j) = slot {
            sort_key_for(order, group, e.primary, e.name, &mut key);
            let keyed = Keyed {
                key: key.as_slice().into(),
                pos: SortPosition {
                    group,
                    primary: e.primary,
                    name: e.name.into(),
                },
            };
            if j == reservoir.len() {
                reservoir.push(keyed);
            } else {
                reservoir[j] = keyed;
            }
        }
    })?;
    reservoir
        .sort_unstable_by(|a, b| order.compare_keyed(&a.key, &a.pos.name, &b.key, &b.pos.name));
    // A name read twice (the folder changed during the pass) would make an empty bucket.
    reservoir.dedup_by(|a, b| a.pos.name == b.pos.name && a.key == b.key);
    Ok((p, reservoir, below, inside))
}

/// The buckets a counting pass also keeps, in case the page lies within
/// them: `first..=last`, at most `cap` entries (past it, nothing is kept).
#[derive(Debug, Clone, Copy)]
struct Hunch {
    first: usize,
    last: usize,
    cap: usize,
}

/// What the counting pass saw.
struct Counted {
    pass: Pass,
    /// Entries within the bounds in each bucket `[samples[i-1], samples[i])`.
    counts: Vec<u64>,
    /// Entries below the bounds.
    below: u64,
    /// The entries of the hunch's buckets, unless there were more than its cap.
    kept: Option<Vec<Candidate>>,
    /// The most entries `kept` held.
    most_kept: usize,
    /// The groups of the entries below the bounds or the hunch's first bucket.
    before_tally: Tally,
}

/// Pass 2: how many entries within `bounds` fall in each bucket
/// `[samples[i-1], samples[i])`, and how many lie below the bounds; and the
/// entries of the buckets `hunch` guesses the page is in.
fn bucket_counts<F: SourceFolder>(
    dir: &F,
    samples: &[Keyed],
    bounds: &Bounds<'_>,
    hunch: Option<Hunch>,
    rd: &Reading<'_>,
) -> Result<Counted, Stop> {
    let mut counts = vec![0u64; samples.len() + 1];
    let mut below = 0u64;
    let mut kept = hunch.map(|_| Vec::new());
    let mut most_kept = 0;
    let mut before_tally = Tally::default();
    let order = rd.order;
    let mut key = Vec::new();
    let p = pass(dir, rd, &mut |e| {
        let mut part = PartKey::new(order, Group::of(e.kind), e.primary, e.name, &mut key);
        match bounds.place(order, &mut part, e.name) {
            Ordering::Less => {
                below += 1;
                before_tally.add(e.slot);
            }
            Ordering::Greater => {}
            Ordering::Equal => {
                // Most entries lie outside the first and last boundary: two
                // comparisons, not a binary search over every sample.
                let n = samples.len();
                let i = match (samples.first(), samples.last()) {
                    (Some(first), Some(last)) => {
                        if first.compare(order, &mut part, e.name) == Ordering::Less {
                            0
                        } else if last.compare(order, &mut part, e.name) != Ordering::Less {
                            n
                        } else {
                            1 + samples[1..n - 1].partition_point(|s| {
                                s.compare(order, &mut part, e.name) != Ordering::Less
                            })
                        }
                    }
                    _ => 0,
                };
                counts[i] += 1;
                let Some(h) = hunch else { return };
                if i < h.first {
                    before_tally.add(e.slot);
                } else if i <= h.last {
                    if kept.as_ref().is_some_and(|v| v.len() == h.cap) {
                        kept = None;
                    }
                    if let Some(v) = &mut kept {
                        v.push(Candidate {
                            key: part.finish().into(),
                            order,
                            kind: e.kind,
                            name: e.name.into(),
                            placed: (e.primary != Primary::None || e.meta.is_some())
                                .then(|| Box::new((e.primary, e.meta))),
                        });
                        most_kept = most_kept.max(v.len());
                    }
                }
            }
        }
    })?;
    Ok(Counted {
        pass: p,
        counts,
        below,
        kept,
        most_kept,
        before_tally,
    })
}

/// The samples within `spread_sd` standard deviations of the page's
/// estimated place: entries `rank` to `rank + limit` of the `inside` entries
/// the `samples` were drawn from uniformly, and the index of the first one
/// kept. The number of samples below an entry is binomial, with a standard
/// deviation of at most `sqrt(samples) / 2`.
fn near_the_page(
    mut samples: Vec<Keyed>,
    rank: u64,
    limit: u64,
    inside: u64,
    spread_sd: u64,
) -> (Vec<Keyed>, usize) {
    let m = samples.len() as u64;
    if inside == 0 || m == 0 {
        return (samples, 0);
    }
    // At least a boundary each side, so that a round always splits its range.
    let spread = (spread_sd * (m.isqrt() + 1) / 2).max(1);
    let at = |r: u64| (u128::from(r.min(inside)) * u128::from(m) / u128::from(inside)) as u64;
    let from = at(rank).saturating_sub(spread);
    let to = at(rank.saturating_add(limit))
        .saturating_add(spread + 1)
        .min(m);
    samples.truncate(to as usize);
    samples.drain(..from as usize);
    (samples, from as usize)
}

/// Share of a hunch's cap its buckets are expected to fill, so that it is
/// seldom overrun by chance.
const HUNCH_FILL_PERCENT: u64 = 80;

/// The buckets of the samples `from..from + n` (of `all` drawn from `inside`
/// entries) that the counting pass keeps in case the page lies within them:
/// centred on where the sample places entries `rank..rank + limit`, as many
/// as are expected to hold `HUNCH_FILL_PERCENT` of `cap` entries. When the
/// page lies within them it is known after two passes, not three.
fn hunch_for(
    all: usize,
    from: usize,
    n: usize,
    rank: u64,
    limit: u64,
    inside: u64,
    cap: usize,
) -> Option<Hunch> {
    if inside == 0 || all == 0 || cap == 0 {
        return None;
    }
    let m = all as u64;
    // Bucket t of the kept samples is bucket `from + t` of all of them.
    let bucket = |r: u64| {
        ((u128::from(r.min(inside)) * u128::from(m) / u128::from(inside)) as u64)
            .saturating_sub(from as u64)
            .min(n as u64)
    };
    let (page_first, page_last) = (bucket(rank), bucket(rank.saturating_add(limit)));
    let buckets = (u128::from(cap as u64) * u128::from(HUNCH_FILL_PERCENT) * u128::from(m)
        / 100
        / u128::from(inside)) as u64;
    let span = page_last - page_first + 1;
    if buckets < span + 2 {
        return None;
    }
    let extra = (buckets - span) / 2;
    Some(Hunch {
        first: page_first.saturating_sub(extra) as usize,
        last: (page_last + extra).min(n as u64) as usize,
        cap,
    })
}

/// Which page of a folder to choose.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Window<'a> {
    /// `limit` entries from position `offset`.
    At { offset: u64, limit: u64 },
    /// `limit` entries strictly after a cursor's position.
    After { key: &'a SortPosition, limit: u64 },
    /// The whole folder (holds every name).
    Everything,
}

/// A chosen page and what the folder held.
pub(crate) struct Selection {
    pub page: Vec<Candidate>,
    /// The true position of `page[0]` (or where it would be).
    pub offset: u64,
    /// From the pass that counted the whole folder.
    pub pass: Pass,
    /// The groups of the entries after the page.
    pub rest: Tally,
    /// A later pass of a deep selection was cut short: the page is empty
    /// rather than a page other than the one asked for.
    pub lost_page: bool,
    /// The most names held at once while choosing (sample or candidates).
    #[cfg_attr(not(test), allow(dead_code))]
    pub held: usize,
}

fn clamp(n: u64) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}

/// The groups of the entries after the page: all of them, less those below
/// the bounds, less `before_end` (the kept entries up to the page's end).
fn rest_after(pass: &Pass, below: &Tally, before_end: &[Candidate]) -> Tally {
    let mut rest = pass.tally.minus(below);
    for c in before_end {
        rest.remove(slot_of(&c.name, c.kind));
    }
    rest
}

/// Chooses the page `window` of `dir` (see the module docs).
pub(crate) fn select<F: SourceFolder>(
    dir: &F,
    window: Window<'_>,
    rd: &Reading<'_>,
) -> Result<Selection, Stop> {
    select_tuned(dir, window, TUNING, rd)
}

fn select_tuned<F: SourceFolder>(
    dir: &F,
    window: Window<'_>,
    tuning: Tuning,
    rd: &Reading<'_>,
) -> Result<Selection, Stop> {
    match window {
        Window::Everything => {
            let k = keep_best(dir, usize::MAX, &Bounds::default(), rd)?;
            Ok(Selection {
                held: k.best.len(),
                page: k.best,
                offset: 0,
                pass: k.pass,
                rest: Tally::default(),
                lost_page: false,
            })
        }
        Window::After { key, limit } => {
            let lo = Keyed::new(rd.order, key.clone());
            let k = keep_best(
                dir,
                clamp(limit),
                &Bounds {
                    lo: Some((&lo, false)),
                    hi: None,
                },
                rd,
            )?;
            let rest = rest_after(&k.pass, &k.below_tally, &k.best);
            Ok(Selection {
                held: k.best.len(),
                page: k.best,
                offset: k.below,
                pass: k.pass,
                rest,
                lost_page: false,
            })
        }
        Window::At { offset, limit } if offset <= tuning.window as u64 => {
            let mut k = keep_best(
                dir,
                clamp(offset.saturating_add(limit)),
                &Bounds::default(),
                rd,
            )?;
            let held = k.best.len();
            let rest = rest_after(&k.pass, &k.below_tally, &k.best);
            let from = clamp(offset).min(k.best.len());
            k.best.drain(..from);
            Ok(Selection {
                page: k.best,
                offset,
                pass: k.pass,
                rest,
                lost_page: false,
                held,
            })
        }
        Window::At { offset, limit } => narrow(dir, offset, limit, tuning, rd),
    }
}

/// The multi-pass selection of a deep page (see the module docs). A pass
/// whose stat scan was cut cannot place the page: it is lost like a pass
/// cut by time.
fn narrow<F: SourceFolder>(
    dir: &F,
    offset: u64,
    limit: u64,
    tuning: Tuning,
    rd: &Reading<'_>,
) -> Result<Selection, Stop> {
    let mut rng = Rng::seeded();
    let mut held = 0;
    // The range holding entry `offset`, and a key known to lie past the page.
    let mut lo: Option<Keyed> = None;
    let mut page_end: Option<Keyed> = None;
    let mut range_end: Option<Keyed> = None;
    let mut whole: Option<Pass> = None;
    let mut rounds = 0;
    let cut = |p: &Pass| p.cut_short() || p.unchecked > 0;
    let lost = |whole: Option<Pass>, p: Pass, held| {
        let mut pass = whole.unwrap_or(p);
        pass.timed_out = true;
        Ok(Selection {
            page: Vec::new(),
            offset,
            pass,
            rest: Tally::default(),
            lost_page: true,
            held,
        })
    };
    // Passes over the whole folder until the range is small enough to keep.
    let (first, rank) = loop {
        let bounds = Bounds {
            lo: lo.as_ref().map(|p| (p, true)),
            hi: range_end.as_ref(),
        };
        let (p, samples, below, inside) = sample(dir, tuning.sample, &bounds, &mut rng, rd)?;
        held = held.max(samples.len());
        if cut(&p) {
            if whole.is_none() {
                // The first pass counted what it could: report that, with no page.
                let timed_out = p.timed_out || p.unchecked > 0;
                let mut pass = p;
                pass.timed_out = timed_out;
                return Ok(Selection {
                    page: Vec::new(),
                    offset,
                    pass,
                    rest: Tally::default(),
                    lost_page: true,
                    held,
                });
            }
            return lost(whole, p, held);
        }
        let first_pass = whole.is_none();
        if first_pass {
            if offset >= p.total {
                // Past the end: an empty page with the true total.
                return Ok(Selection {
                    page: Vec::new(),
                    offset,
                    pass: p,
                    rest: Tally::default(),
                    lost_page: false,
                    held,
                });
            }
            // A page within a window of the end: keep the last entries instead.
            let tail = p.total - offset;
            if tail.saturating_sub(limit) <= tuning.window as u64 {
                drop(samples);
                return from_end(dir, offset, limit, tail, p, held, rd);
            }
            whole = Some(p);
        }
        let rank = offset.saturating_sub(below);
        if inside <= tuning.window as u64 {
            break (lo, rank);
        }
        // Only the boundaries near where the sample places the page are
        // counted between: the page lies that near but about once in 10^15
        // rounds, and then the next round narrows to the side it fell on.
        let all = samples.len();
        let (samples, from) = near_the_page(samples, rank, limit, inside, tuning.spread);
        // Memory for the hunch: what the sample held, less what is left of it.
        let cap = tuning
            .sample
            .max(tuning.window + clamp(limit))
            .saturating_sub(samples.len());
        let hunch = hunch_for(all, from, samples.len(), rank, limit, inside, cap);
        let counted = bucket_counts(dir, &samples, &bounds, hunch, rd)?;
        held = held.max(samples.len() + counted.most_kept);
        let (p2, counts, below2) = (counted.pass, counted.counts, counted.below);
        if cut(&p2) {
            return lost(whole, p2, held);
        }
        // Bucket i is [samples[i-1], samples[i]); find the one holding `offset`.
        let mut before = below2;
        let mut i = 0;
        while i < counts.len() - 1 && before + counts[i] <= offset {
            before += counts[i];
            i += 1;
        }
        let mut end = before;
        let mut j = i;
        while j < counts.len() && end + counts[j] < offset.saturating_add(limit) {
            end += counts[j];
            j += 1;
        }
        if let (Some(h), Some(mut kept)) = (hunch, counted.kept) {
            if h.first <= i && j <= h.last {
                // The hunch held the page: this pass was the last.
                let before = below2 + counts[..h.first].iter().sum::<u64>();
                kept.sort_unstable();
                let rank = clamp(offset.saturating_sub(before)).min(kept.len());
                let end = (rank + clamp(limit)).min(kept.len());
                let rest = rest_after(&p2, &counted.before_tally, &kept[..end]);
                kept.truncate(end);
                kept.drain(..rank);
                return Ok(Selection {
                    page: kept,
                    offset: before + rank as u64,
                    pass: p2,
                    rest,
                    lost_page: false,
                    held,
                });
            }
        }
        if j < samples.len() {
            page_end = Some(samples[j].clone());
        }
        let new_lo = if i > 0 {
            Some(samples[i - 1].clone())
        } else {
            lo.clone()
        };
        rounds += 1;
        if counts[i] <= tuning.window as u64 || samples.len() < 2 || rounds == tuning.rounds {
            break (new_lo, offset.saturating_sub(before));
        }
        // An unlucky bucket: narrow again inside it.
        range_end = if i < samples.len() {
            Some(samples[i].clone())
        } else {
            range_end
        };
        lo = new_lo;
    };
    let bounds = Bounds {
        lo: first.as_ref().map(|p| (p, true)),
        hi: page_end.as_ref(),
    };
    let mut k = keep_best(dir, clamp(rank.saturating_add(limit)), &bounds, rd)?;
    held = held.max(k.best.len());
    if cut(&k.pass) {
        return lost(whole, k.pass, held);
    }
    // The last pass decides the true position (the folder may have changed).
    let rank = clamp(offset.saturating_sub(k.below)).min(k.best.len());
    let end = (rank + clamp(limit)).min(k.best.len());
    let rest = rest_after(&k.pass, &k.below_tally, &k.best[..end]);
    k.best.truncate(end);
    k.best.drain(..rank);
    Ok(Selection {
        page: k.best,
        offset: k.below + rank as u64,
        pass: k.pass,
        rest,
        lost_page: false,
        held,
    })
}

/// The page at `offset` when the first pass counted `tail` entries from it
/// to the end: one more pass keeps the last `tail` entries, as a first page
/// keeps the first ones. The last pass decides the true position (the
/// folder may have changed): the kept entries are the last of its total.
fn from_end<F: SourceFolder>(
    dir: &F,
    offset: u64,
    limit: u64,
    tail: u64,
    whole: Pass,
    held: usize,
    rd: &Reading<'_>,
) -> Result<Selection, Stop> {
    let mut k =
        keep_end::<F, std::cmp::Reverse<Candidate>>(dir, clamp(tail), &Bounds::default(), rd)?;
    let held = held.max(k.best.len());
    if k.pass.cut_short() || k.pass.unchecked > 0 {
        let mut pass = whole;
        pass.timed_out = true;
        return Ok(Selection {
            page: Vec::new(),
            offset,
            pass,
            rest: Tally::default(),
            lost_page: true,
            held,
        });
    }
    let first = k.pass.total - k.best.len() as u64;
    let rank = clamp(offset.saturating_sub(first)).min(k.best.len());
    let end = (rank + clamp(limit)).min(k.best.len());
    let mut rest = Tally::default();
    for c in &k.best[end..] {
        rest.add(k.pass.tally.canonical(slot_of(&c.name, c.kind)));
    }
    k.best.truncate(end);
    k.best.drain(..rank);
    Ok(Selection {
        page: k.best,
        offset: first + rank as u64,
        pass: k.pass,
        rest,
        lost_page: false,
        held,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dirio::Dir;
    use std::time::Duration;

    fn folder_of(n: usize) -> (tempfile::TempDir, Vec<Vec<u8>>) {
        let t = tempfile::tempdir().unwrap();
        for i in 0..n {
            std::fs::write(t.path().join(format!("e{}", (i * 7919) % n)), b"").unwrap();
        }
        let mut names: Vec<Vec<u8>> = (0..n).map(|i| format!("e{i}").into_bytes()).collect();
        names.sort_by(|a, b| crate::order::compare_names(a, b));
        (t, names)
    }

    fn reading() -> Reading<'static> {
        let deadline = Instant::now() + Duration::from_secs(60);
        Reading {
            show_dotfiles: true,
            deadline,
            stat_deadline: deadline,
            cancel: None,
            order: Order::NAME,
            filter: None,
            rules: None,
            exclude: None,
            tally: true,
            before_call: None,
        }
    }

    fn page_names(s: &Selection) -> Vec<Vec<u8>> {
        s.page.iter().map(|c| c.name.to_vec()).collect()
    }

    #[test]
    fn a_candidate_of_any_order_moves_48_bytes() {
        // The heap moves candidates on every replacement: the order's value
        // and lstat stay boxed, so the name order pays nothing for them.
        assert!(
            std::mem::size_of::<Candidate>() <= 48,
            "{} bytes",
            std::mem::size_of::<Candidate>()
        );
    }

    #[test]
    fn unlucky_buckets_narrow_again_and_still_find_the_exact_page() {
        let (t, names) = folder_of(3_000);
        let dir = crate::source::Source::open_folder(&crate::LocalFs::new(), t.path()).unwrap();
        // A tiny sample makes buckets far larger than the window: several rounds.
        let tight = Tuning {
            sample: 4,
            window: 16,
            rounds: 64,
            spread: 8,
        };
        for offset in [17, 400, 1_499, 2_990, 2_999] {
            for _ in 0..20 {
                let s = narrow(&dir, offset, 10, tight, &reading()).unwrap();
                let end = (offset as usize + 10).min(names.len());
                assert_eq!(
                    page_names(&s),
                    names[offset as usize..end],
                    "offset {offset}"
                );
                assert_eq!((s.offset, s.pass.total), (offset, 3_000));
                assert!(
                    s.held <= 16 + 10,
                    "held {} names: the window plus the page at most",
                    s.held
                );
            }
        }
    }

    #[test]
    fn a_deep_page_holds_the_sample_and_about_a_bucket_never_the_offset() {
        let (t, names) = folder_of(20_000);
        let dir = crate::source::Source::open_folder(&crate::LocalFs::new(), t.path()).unwrap();
        let s = select(
            &dir,
            Window::At {
                offset: 19_000,
                limit: 100,
            },
            &reading(),
        )
        .unwrap();
        assert_eq!(page_names(&s), names[19_000..19_100]);
        assert!(
            s.held <= SELECTION_SAMPLE.max(SELECTION_WINDOW + 100),
            "held {} names at once: bounded by the sample or one bucket plus the page, not by the offset",
            s.held
        );
    }

    /// A folder of `n` entries drawn from `seed`: names that tie under the
    /// natural order but for their bytes (`a1`, `A1`, `a01`), few sizes,
    /// times and extensions (ties under every order), some folders.
    fn tied_folder(n: usize, seed: u64) -> tempfile::TempDir {
        let t = tempfile::tempdir().unwrap();
        let mut rng = Rng(seed);
        let stems = ["a1", "A1", "a01", "b", "B", "b2", "b10", "ß", "é", "-", "_"];
        let exts = ["", ".txt", ".TXT", ".jpg", ".b", ".tar.gz"];
        let mut made = 0;
        while made < n {
            let pick =
                |rng: &mut Rng, from: &[&'static str]| from[rng.below(from.len() as u64) as usize];
            let name = format!(
                "{}{}{}",
                pick(&mut rng, &stems),
                pick(&mut rng, &stems),
                pick(&mut rng, &exts)
            );
            let path = t.path().join(&name);
            if path.exists() {
                continue;
            }
            if rng.below(8) == 0 {
                std::fs::create_dir(&path).unwrap();
            } else {
                std::fs::write(&path, vec![b'x'; rng.below(4) as usize]).unwrap();
            }
            let when = std::time::UNIX_EPOCH + Duration::from_secs(1_700_000_000 + rng.below(3));
            std::fs::File::open(&path)
                .unwrap()
                .set_modified(when)
                .unwrap();
            made += 1;
        }
        t
    }

    /// Every entry of `dir` that `rd` keeps, sorted by the engine's comparator
    /// (itself checked against a reference in `order`): the whole order.
    fn sorted_whole(
        dir: &Dir,
        path: &std::path::Path,
        rd: &Reading<'_>,
    ) -> Vec<(Vec<u8>, EntryKind)> {
        let mut scratch = FilterScratch::default();
        let mut v: Vec<(Vec<u32>, Vec<u8>, EntryKind)> = std::fs::read_dir(path)
            .unwrap()
            .map(|e| {
                let e = e.unwrap();
                let name =
                    std::os::unix::ffi::OsStrExt::as_bytes(e.file_name().as_os_str()).to_vec();
                let meta = dir.stat_child(&name, false).unwrap();
                let primary = match rd.order.by {
                    SortBy::Size if meta.kind != EntryKind::Folder => Primary::of_size(meta.size),
                    SortBy::Modified => Primary::Value(meta.modified_ms.unwrap()),
                    _ => Primary::None,
                };
                let mut key = Vec::new();
                sort_key_for(rd.order, Group::of(meta.kind), primary, &name, &mut key);
                (key, name, meta.kind)
            })
            .filter(|(_, name, _)| rd.filter.is_none_or(|f| f.matches(name, &mut scratch)))
            .collect();
        v.sort_by(|a, b| rd.order.compare_keyed(&a.0, &a.1, &b.0, &b.1));
        v.into_iter().map(|(_, name, kind)| (name, kind)).collect()
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 48, ..Default::default() })]

        /// A page at any offset, under any order and filter, is the same
        /// slice of the whole order, whichever way it was chosen: the first
        /// pages, narrowing, or from the other end (a tiny window makes
        /// every way reachable in a small folder).
        #[test]
        fn a_page_at_any_offset_is_the_slice_of_the_whole_order(
            n in 20usize..120,
            seed in proptest::prelude::any::<u64>(),
            by in 0usize..4,
            reverse in proptest::prelude::any::<bool>(),
            filter in proptest::option::of(proptest::sample::select(vec!["a", "b*", "*1*", "*.txt"])),
            limit in 1u64..9,
            window in 1usize..12,
            sample in 2usize..80,
            spread in 0u64..3,
            extra in 0u64..200,
        ) {
            let t = tied_folder(n, seed);
            let dir = crate::source::Source::open_folder(&crate::LocalFs::new(), t.path()).unwrap();
            let order = Order { by: [SortBy::Name, SortBy::Size, SortBy::Modified, SortBy::Type][by], reverse };
            let filter = filter.map(|f| NameFilter::parse(f).unwrap());
            let rd = Reading { order, filter: filter.as_ref(), ..reading() };
            let whole = sorted_whole(&dir, t.path(), &rd);
            let total = whole.len() as u64;
            let tuning = Tuning { sample, window, rounds: 64, spread };
            let half = total / 2;
            let tail = total.saturating_sub(limit);
            let offsets = [0, 1, half.saturating_sub(1), half, half + 1, tail.saturating_sub(1), tail, tail + 1, total.saturating_sub(1), total, total + 3, extra];
            for offset in offsets {
                let s = select_tuned(&dir, Window::At { offset, limit }, tuning, &rd).unwrap();
                let (from, end) = ((offset.min(total)) as usize, ((offset + limit).min(total)) as usize);
                let want: Vec<Vec<u8>> = whole[from..end].iter().map(|(n, _)| n.clone()).collect();
                let why = format!("seed {seed}, {n} entries, {order:?}, filter {filter:?}, offset {offset} of {total}, limit {limit}, {tuning:?}");
                proptest::prop_assert_eq!(page_names(&s), want, "the page is the slice: {}", why);
                proptest::prop_assert_eq!(s.pass.total, total, "{}", why);
                if offset < total {
                    proptest::prop_assert_eq!(s.offset, offset, "the true offset: {}", why);
                }
                proptest::prop_assert!(!s.lost_page, "{}", why);
                proptest::prop_assert!(s.held <= tuning.sample.max(window + limit as usize), "held {}: {}", s.held, why);
                let mut rest = Tally::default();
                for (name, kind) in &whole[end..] {
                    rest.add(s.pass.tally.canonical(slot_of(name, *kind)));
                }
                if offset < total {
                    proptest::prop_assert_eq!(s.rest.groups(), rest.groups(), "the rest is what follows the page: {}", why);
                }
            }
        }
    }

    #[test]
    fn a_cut_short_deep_selection_returns_no_page_rather_than_a_wrong_one() {
        let (t, _) = folder_of(3_000);
        let dir = crate::source::Source::open_folder(&crate::LocalFs::new(), t.path()).unwrap();
        let expired = Reading {
            deadline: Instant::now(),
            ..reading()
        };
        let s = select(
            &dir,
            Window::At {
                offset: 2_500,
                limit: 10,
            },
            &expired,
        )
        .unwrap();
        assert!(s.lost_page && s.pass.timed_out);
        assert!(s.page.is_empty());
    }
}
