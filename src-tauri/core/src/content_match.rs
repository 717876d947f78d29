//! A search's content pattern, matched with a bounded amount of work
//! between looks at whether to stop (issue 29: a pattern such as
//! `(?:a{1,100}){1,100}z` costs ripgrep's engine seconds per line of
//! `a`s, inside one call that cannot be interrupted).
//!
//! The searcher (`grep-searcher`) asks one question of a matcher in line
//! mode: where does some match in this buffer (or this line) end. That is
//! answered here by running a lazy DFA (`regex-automata`'s hybrid, the
//! engine ripgrep's own matcher tries first) byte by byte: a byte costs at
//! most one new state of the automaton (bounded by `SEARCH_REGEX_BYTES`),
//! and every `SEARCH_BYTES_PER_LOOK` bytes the step's flags are looked at
//! (its deadline, the request's cancel); the clock (the search's own
//! deadline) at each such look that made new states, else every
//! `SEARCH_BYTES_PER_CLOCK` bytes. The DFA never gives up (its cache is
//! cleared and refilled instead), so no call falls back to an engine that
//! cannot be stopped, with one exception: a Unicode word boundary (`\b`)
//! meeting a non-ASCII byte, which the lazy DFA cannot decide; then
//! ripgrep's matcher answers, one line per call, with a look between lines.
//!
//! The pattern is parsed exactly as `grep-regex` parses it (same syntax
//! options), and ripgrep's matcher is kept for what the searcher asks
//! besides (the bytes no match holds, which choose its fast path).
#![forbid(unsafe_code)]

use std::cell::{Cell, RefCell};
use std::time::Instant;

use grep_matcher::{LineMatchKind, Match, Matcher, NoCaptures};
use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use regex_automata::hybrid::dfa::{Cache, DFA};
use regex_automata::nfa::thompson;
use regex_automata::util::syntax;
use regex_automata::Input;

use crate::cpu_work::{CpuWork, Halt};
use crate::limits::{SEARCH_BYTES_PER_CLOCK, SEARCH_BYTES_PER_LOOK, SEARCH_REGEX_BYTES};

/// A compiled content pattern.
pub(crate) struct ContentPattern {
    /// ripgrep's matcher: the searcher's questions besides "where does a
    /// match end", and the answer where the DFA cannot decide.
    regex: RegexMatcher,
    /// `None` when the lazy DFA could not be built (ripgrep's matcher then
    /// answers, a line per call).
    dfa: Option<DFA>,
    literal: bool,
}

impl ContentPattern {
    /// Compiles `pattern` (a literal with `literal`).
    ///
    /// # Errors
    /// What is wrong with the pattern, as ripgrep's matcher says it.
    pub fn new(pattern: &str, literal: bool, ignore_case: bool) -> Result<Self, String> {
        let regex = RegexMatcherBuilder::new()
            .fixed_strings(literal)
            .case_insensitive(ignore_case)
            .size_limit(SEARCH_REGEX_BYTES)
            .dfa_size_limit(SEARCH_REGEX_BYTES)
            .build(pattern)
            .map_err(|e| e.to_string())?;
        let text = if literal {
            regex_syntax::escape(pattern)
        } else {
            pattern.to_string()
        };
        // grep-regex's translation: bytes (not only UTF-8) may match, no
        // multi-line anchors, Unicode on.
        let dfa = DFA::builder()
            .configure(
                DFA::config()
                    .cache_capacity(SEARCH_REGEX_BYTES)
                    .skip_cache_capacity_check(true)
                    .unicode_word_boundary(true),
            )
            .syntax(
                syntax::Config::new()
                    .utf8(false)
                    .unicode(true)
                    .case_insensitive(ignore_case),
            )
            .thompson(
                thompson::Config::new()
                    .utf8(false)
                    .nfa_size_limit(Some(SEARCH_REGEX_BYTES))
                    .which_captures(thompson::WhichCaptures::None),
            )
            .build(&text)
            .ok();
        Ok(ContentPattern {
            regex,
            dfa,
            literal,
        })
    }

    /// Where a literal pattern occurs in `line` (byte ranges, in order, at
    /// most `max`), by ripgrep's matcher: to show a matching line with what
    /// matched marked. A literal's matcher does work linear in the line, so
    /// this needs no looks; a regular expression's could cost far more over
    /// a hostile line, and gets none (empty).
    pub fn literal_spans(&self, line: &[u8], max: usize) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        if !self.literal {
            return out;
        }
        let _ = self.regex.find_iter(line, |m| {
            if !m.is_empty() {
                out.push((m.start(), m.end()));
            }
            out.len() < max
        });
        out
    }

    /// A cache for one search job's matching (reused from file to file).
    pub fn cache(&self) -> Option<Cache> {
        self.dfa.as_ref().map(DFA::create_cache)
    }
}

/// Why matching stopped before its answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stopped {
    /// The step's flags said so (see `cpu_work`).
    Halt(Halt),
    /// The search's own deadline passed.
    Deadline,
}

/// The matcher's error: matching stopped (the reason is [`Matching::stopped`]).
#[derive(Debug)]
pub(crate) struct Interrupted;

impl std::fmt::Display for Interrupted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("matching stopped")
    }
}

/// One file's matching: the pattern, the job's cache, and where to look.
pub(crate) struct Matching<'a> {
    pattern: &'a ContentPattern,
    cache: Option<&'a RefCell<Cache>>,
    work: &'a CpuWork,
    deadline: Instant,
    since_clock: Cell<usize>,
    stopped: Cell<Option<Stopped>>,
}

impl<'a> Matching<'a> {
    pub fn new(
        pattern: &'a ContentPattern,
        cache: Option<&'a RefCell<Cache>>,
        work: &'a CpuWork,
        deadline: Instant,
    ) -> Self {
        Matching {
            pattern,
            cache,
            work,
            deadline,
            since_clock: Cell::new(0),
            stopped: Cell::new(None),
        }
    }

    /// Why matching stopped early, if it did.
    pub fn stopped(&self) -> Option<Stopped> {
        self.stopped.get()
    }

    /// Looks at the flags after `bytes` more; at the clock too when they
    /// were `costly` (new states were made for them) or now and then.
    fn look(&self, bytes: usize, costly: bool) -> Result<(), Interrupted> {
        let why = if let Some(halt) = self.work.halt() {
            Some(Stopped::Halt(halt))
        } else {
            let since = self.since_clock.get() + bytes;
            if costly || since >= SEARCH_BYTES_PER_CLOCK {
                self.since_clock.set(0);
                (Instant::now() > self.deadline).then_some(Stopped::Deadline)
            } else {
                self.since_clock.set(since);
                None
            }
        };
        match why {
            Some(w) => {
                self.stopped.set(Some(w));
                Err(Interrupted)
            }
            None => Ok(()),
        }
    }

    /// Where some match in `haystack[at..]` ends, if one does (the earliest
    /// end: the searcher only needs a match's line, and a match never holds
    /// a line's end where the searcher hands over many lines at once).
    fn end_of_a_match(&self, haystack: &[u8], at: usize) -> Result<Option<usize>, Interrupted> {
        let (Some(dfa), Some(cache)) = (&self.pattern.dfa, self.cache) else {
            return self.line_by_line(haystack, at);
        };
        let mut cache = cache.borrow_mut();
        let input = Input::new(haystack).span(at..haystack.len());
        let Ok(mut sid) = dfa.start_state_forward(&mut cache, &input) else {
            drop(cache);
            return self.line_by_line(haystack, at);
        };
        let mut i = at;
        let made = |c: &Cache| (c.clear_count(), c.memory_usage());
        let mut states = made(&cache);
        for chunk in haystack[at..].chunks(SEARCH_BYTES_PER_LOOK) {
            let now = made(&cache);
            self.look(chunk.len(), now != states)?;
            states = now;
            for &byte in chunk {
                // The cache is cleared rather than given up on (the
                // default): a step never fails.
                let Ok(next) = dfa.next_state(&mut cache, sid, byte) else {
                    drop(cache);
                    return self.line_by_line(haystack, at);
                };
                sid = next;
                if sid.is_tagged() {
                    // A match state is seen one byte late: it ended at `i`.
                    if sid.is_match() {
                        return Ok(Some(i));
                    }
                    if sid.is_dead() {
                        return Ok(None);
                    }
                    if sid.is_quit() {
                        drop(cache);
                        return self.line_by_line(haystack, at);
                    }
                }
                i += 1;
            }
        }
        match dfa.next_eoi_state(&mut cache, sid) {
            Ok(end) if end.is_match() => Ok(Some(haystack.len())),
            Ok(end) if !end.is_quit() => Ok(None),
            _ => {
                drop(cache);
                self.line_by_line(haystack, at)
            }
        }
    }

    /// ripgrep's own answer, a line at a time with a look between lines.
    /// Each call sees the haystack up to the end of one line (after its
    /// `\n`), from `at` on: a match starting on that line is found as in
    /// the whole haystack, and an empty match at the cut (which the next
    /// line would begin with) is left for the next call.
    fn line_by_line(&self, haystack: &[u8], at: usize) -> Result<Option<usize>, Interrupted> {
        let mut start = at;
        loop {
            let end = haystack[start..]
                .iter()
                .position(|&b| b == b'\n')
                .map_or(haystack.len(), |i| start + i + 1);
            self.look(end - start, true)?;
            let found = self
                .pattern
                .regex
                .shortest_match_at(&haystack[..end], start)
                .unwrap_or(None);
            match found {
                Some(e) if e < end || end == haystack.len() => return Ok(Some(e)),
                _ if end == haystack.len() => return Ok(None),
                _ => start = end,
            }
        }
    }
}

impl Matcher for Matching<'_> {
    type Captures = NoCaptures;
    type Error = Interrupted;

    /// A match's start and end, by ripgrep's matcher (the line searcher
    /// never asks for them: it asks where a match ends).
    fn find_at(&self, haystack: &[u8], at: usize) -> Result<Option<Match>, Interrupted> {
        self.look(0, true)?;
        Ok(self.pattern.regex.find_at(haystack, at).unwrap_or(None))
    }

    fn new_captures(&self) -> Result<NoCaptures, Interrupted> {
        Ok(NoCaptures::new())
    }

    fn shortest_match_at(&self, haystack: &[u8], at: usize) -> Result<Option<usize>, Interrupted> {
        self.end_of_a_match(haystack, at)
    }

    fn non_matching_bytes(&self) -> Option<&grep_matcher::ByteSet> {
        self.pattern.regex.non_matching_bytes()
    }

    fn line_terminator(&self) -> Option<grep_matcher::LineTerminator> {
        self.pattern.regex.line_terminator()
    }

    fn find_candidate_line(&self, haystack: &[u8]) -> Result<Option<LineMatchKind>, Interrupted> {
        Ok(self
            .end_of_a_match(haystack, 0)?
            .map(LineMatchKind::Confirmed))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ends(pattern: &str, haystack: &[u8]) -> (Option<usize>, Option<usize>) {
        let p = ContentPattern::new(pattern, false, false).unwrap();
        let cache = p.cache().map(RefCell::new);
        let work = CpuWork::start();
        let far = Instant::now() + std::time::Duration::from_secs(600);
        let m = Matching::new(&p, cache.as_ref(), &work, far);
        let ours = m.shortest_match_at(haystack, 0).unwrap();
        let theirs = p.regex.shortest_match_at(haystack, 0).unwrap();
        (ours, theirs)
    }

    /// The line (index) holding offset `end`, as the searcher finds it.
    fn line_of(haystack: &[u8], end: Option<usize>) -> Option<usize> {
        end.map(|e| haystack[..e].iter().filter(|&&b| b == b'\n').count())
    }

    #[test]
    fn a_match_is_found_on_the_same_line_as_ripgreps_matcher_finds_it() {
        let text = "alpha beta\ngamma délta\n\nepsilon\nzeta é\n";
        for pattern in [
            "beta",
            "^gamma",
            "a$",
            "^$",
            r"\bdélta\b",
            r"\bzeta",
            "é",
            "x*",
            "ps.l",
            r"\d",
            "(?i)EPSILON",
            r"(?m)^z",
        ] {
            let (ours, theirs) = ends(pattern, text.as_bytes());
            assert_eq!(
                line_of(text.as_bytes(), ours),
                line_of(text.as_bytes(), theirs),
                "{pattern}: {ours:?} vs {theirs:?}"
            );
        }
    }

    #[test]
    fn a_costly_pattern_stops_at_a_look_within_a_few_bytes() {
        let p = ContentPattern::new("(?:a{1,100}){1,100}z", false, false).unwrap();
        let cache = p.cache().map(RefCell::new);
        let work = CpuWork::start();
        // The search's deadline already passed: the first clock look stops it.
        let m = Matching::new(&p, cache.as_ref(), &work, Instant::now());
        let line = vec![b'a'; 1 << 20];
        assert!(m.shortest_match_at(&line, 0).is_err());
        assert_eq!(m.stopped(), Some(Stopped::Deadline));
    }
}
