//! Name filters: which entries of a folder a filtered listing keeps.
//!
//! Two readings of a pattern:
//! - the window's and `canopy-list`'s filter ([`NameFilter::parse`]): a
//!   plain string matches anywhere in the name, unless it holds `*`, `?` or a
//!   `[...]` class: then it is a glob that must match the whole name (`*`
//!   any run of characters, `?` one character, `[abc]`, `[a-z]`, `[!a-z]` or
//!   `[^a-z]` one of / none of a set; a `[` without a closing `]` is a plain
//!   character);
//! - `canopy-mcp`'s name patterns ([`NameFilter::parse_glob`]): always a
//!   glob over the whole name, as `find -name` and `fd -g` read one
//!   (`Cargo.toml` is that name only, `*config*` holds it), with `{a,b}`
//!   alternatives; a malformed pattern (a `[` or `{` that never closes, a
//!   `}` that closes nothing, nested `{`, a backwards range) is refused with
//!   the reason, never matched as plain text.
//!
//! There is no escape character (a name never holds `/` and may hold `\`):
//! `[*]`, `[[]`, `[{]` match the character itself. Both fold case as the
//! natural order does ([`crate::order::fold_into`]): a name and a pattern
//! are compared as their lowercased code points.
//!
//! Cost, promised: a substring is found with Knuth-Morris-Pratt, linear in
//! the name. A glob is matched without backtracking into earlier stars: the
//! pattern is split at its stars into fixed-width segments, the first must
//! match at the start, the last at the end, and each one between is taken at
//! its leftmost place after the one before (which leaves the most room for
//! the rest, so a match is never missed). A name of `n` characters costs at
//! most `n` tries per segment, each of at most the segment's width: no
//! pattern (`*a*a*a*a*a*b` over a long run of `a`) is exponential, and the
//! usual ones are linear. `{a,b}` groups are spelled out into at most
//! `MAX_GLOB_ALTERNATIVES` globs, each matched so.
#![forbid(unsafe_code)]

use crate::error::CanopyError;
use crate::limits::{MAX_FILTER_BYTES, MAX_GLOB_ALTERNATIVES};
use crate::order::fold_into;

/// One position of a glob segment.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Atom {
    /// One (folded) code point.
    Char(u32),
    /// `?`: any one.
    Any,
    /// `[...]`: inclusive ranges (a single character is a range of one).
    Class {
        negated: bool,
        ranges: Vec<(u32, u32)>,
    },
}

impl Atom {
    #[inline]
    fn matches(&self, c: u32) -> bool {
        match self {
            Atom::Char(x) => *x == c,
            Atom::Any => true,
            Atom::Class { negated, ranges } => {
                ranges.iter().any(|&(lo, hi)| lo <= c && c <= hi) != *negated
            }
        }
    }
}

#[derive(Debug, Clone)]
enum Matcher {
    Substring {
        needle: Vec<u32>,
        failure: Vec<usize>,
    },
    /// Segments between stars; `starred` false: the pattern has no star and
    /// the single segment must be the whole name.
    Glob {
        segments: Vec<Vec<Atom>>,
        starred: bool,
    },
    /// `{a,b}` spelled out: any of these globs.
    Alternatives(Vec<Matcher>),
}

impl Matcher {
    fn matches(&self, hay: &[u32], steps: &mut u64) -> bool {
        match self {
            Matcher::Substring { needle, failure } => kmp_find(hay, needle, failure, steps),
            Matcher::Glob { segments, starred } => glob_match(hay, segments, *starred, steps),
            Matcher::Alternatives(any) => any.iter().any(|m| m.matches(hay, steps)),
        }
    }
}

/// A parsed filter (see the module docs).
#[derive(Debug, Clone)]
pub struct NameFilter {
    matcher: Matcher,
}

/// Reusable buffers for [`NameFilter::matches`], so matching allocates nothing.
#[derive(Debug, Default)]
pub struct FilterScratch {
    folded: Vec<u32>,
    /// Atom comparisons made (for the cost tests).
    pub steps: u64,
}

impl NameFilter {
    /// Parses a filter.
    ///
    /// # Errors
    /// `INVALID_ARGUMENT` for an empty filter (leave it out to list
    /// everything), one longer than `MAX_FILTER_BYTES`, or one holding NUL or
    /// `/` (no name holds them).
    pub fn parse(text: &str) -> Result<NameFilter, CanopyError> {
        check_text(text)?;
        let mut folded = Vec::new();
        fold_into(text.as_bytes(), &mut folded);
        let is_glob = folded.iter().enumerate().any(|(i, &c)| {
            c == '*' as u32
                || c == '?' as u32
                || (c == '[' as u32 && class_end(&folded, i).is_some())
        });
        let matcher = if is_glob {
            parse_glob(&folded)
        } else {
            substring(folded)
        };
        Ok(NameFilter { matcher })
    }

    /// Parses a whole-name glob with `{a,b}` alternatives (see the module
    /// docs), as `canopy-mcp` reads a name pattern.
    ///
    /// # Errors
    /// `INVALID_ARGUMENT`, with the reason and where, for what [`parse`]
    /// refuses and for a malformed glob: a `[` or `{` that never closes, a
    /// `}` that closes nothing, a `{` inside another, a backwards range
    /// (`[z-a]`), more than `MAX_GLOB_ALTERNATIVES` alternatives.
    ///
    /// [`parse`]: NameFilter::parse
    pub fn parse_glob(text: &str) -> Result<NameFilter, CanopyError> {
        check_text(text)?;
        let mut globs: Vec<Matcher> = spell_out(text)?
            .iter()
            .map(|alternative| {
                let mut folded = Vec::new();
                fold_into(alternative.as_bytes(), &mut folded);
                parse_glob(&folded)
            })
            .collect();
        let matcher = if globs.len() == 1 {
            globs.pop().expect("one glob")
        } else {
            Matcher::Alternatives(globs)
        };
        Ok(NameFilter { matcher })
    }

    /// True for a glob (whole-name), false for a substring.
    #[cfg(test)]
    pub fn is_glob(&self) -> bool {
        !matches!(self.matcher, Matcher::Substring { .. })
    }

    /// True when `name` passes the filter.
    pub fn matches(&self, name: &[u8], scratch: &mut FilterScratch) -> bool {
        fold_into(name, &mut scratch.folded);
        let hay = std::mem::take(&mut scratch.folded);
        let hit = self.matcher.matches(&hay, &mut scratch.steps);
        scratch.folded = hay;
        hit
    }
}

/// The checks every pattern passes.
fn check_text(text: &str) -> Result<(), CanopyError> {
    if text.is_empty() {
        return Err(CanopyError::invalid(
            "the filter is empty; leave it out to list every entry",
        ));
    }
    if text.len() > MAX_FILTER_BYTES {
        return Err(CanopyError::invalid(format!(
            "the filter is {} bytes long; at most {MAX_FILTER_BYTES} are accepted",
            text.len()
        )));
    }
    if text.contains('\0') || text.contains('/') {
        return Err(CanopyError::invalid(
            "a filter cannot hold NUL or '/': no name does",
        ));
    }
    Ok(())
}

/// The globs a whole-name pattern's `{a,b}` groups spell out, its classes
/// checked (see [`NameFilter::parse_glob`]). Positions in the messages
/// count characters from 1.
fn spell_out(text: &str) -> Result<Vec<String>, CanopyError> {
    let p: Vec<char> = text.chars().collect();
    let mut out = vec![String::new()];
    let mut i = 0;
    while i < p.len() {
        match p[i] {
            '[' => {
                let end = checked_class(&p, i)?;
                let class: String = p[i..=end].iter().collect();
                out.iter_mut().for_each(|o| o.push_str(&class));
                i = end + 1;
            }
            '{' => {
                let (alternatives, end) = group(&p, i)?;
                if out.len() * alternatives.len() > MAX_GLOB_ALTERNATIVES {
                    return Err(CanopyError::invalid(format!(
                        "the pattern's {{...}} groups spell out more than {MAX_GLOB_ALTERNATIVES} alternatives: search with fewer"
                    )));
                }
                out = out
                    .iter()
                    .flat_map(|o| alternatives.iter().map(move |a| format!("{o}{a}")))
                    .collect();
                i = end + 1;
            }
            '}' => {
                return Err(CanopyError::invalid(format!(
                    "the pattern's `}}` at character {} closes no `{{`: write `[}}]` to match a `}}` itself",
                    i + 1
                )))
            }
            c => {
                out.iter_mut().for_each(|o| o.push(c));
                i += 1;
            }
        }
    }
    Ok(out)
}

/// The alternatives of the `{` group opening at `open`, and where it closes.
fn group(p: &[char], open: usize) -> Result<(Vec<String>, usize), CanopyError> {
    let mut alternatives = vec![String::new()];
    let mut j = open + 1;
    loop {
        let Some(&c) = p.get(j) else {
            return Err(CanopyError::invalid(format!(
                "the pattern's `{{` at character {} opens alternatives that never close (`{{a,b}}`): write `[{{]` to match a `{{` itself",
                open + 1
            )));
        };
        let last = alternatives.last_mut().expect("one alternative");
        match c {
            '}' => return Ok((alternatives, j)),
            ',' => alternatives.push(String::new()),
            '{' => {
                return Err(CanopyError::invalid(format!(
                    "the pattern's `{{` at character {} is inside another `{{...}}`: alternatives do not nest (write `{{a,b,c}}`)",
                    j + 1
                )))
            }
            '[' => {
                let end = checked_class(p, j)?;
                last.extend(&p[j..=end]);
                j = end;
            }
            c => last.push(c),
        }
        j += 1;
    }
}

/// Where the class opening at `open` closes, its ranges checked.
fn checked_class(p: &[char], open: usize) -> Result<usize, CanopyError> {
    let code: Vec<u32> = p.iter().map(|&c| c as u32).collect();
    let end = class_end(&code, open).ok_or_else(|| {
        CanopyError::invalid(format!(
            "the pattern's `[` at character {} opens a class that never closes: write `[[]` to match a `[` itself",
            open + 1
        ))
    })?;
    let mut j = open + 1;
    if matches!(p[j], '!' | '^') {
        j += 1;
    }
    // As `parse_glob` reads the class: `x-y` is a range.
    while j < end {
        if j + 2 < end && p[j + 1] == '-' {
            if p[j] > p[j + 2] {
                return Err(CanopyError::invalid(format!(
                    "the pattern's range `{}-{}` at character {} is backwards: write `{}-{}`",
                    p[j],
                    p[j + 2],
                    j + 1,
                    p[j + 2],
                    p[j]
                )));
            }
            j += 3;
        } else {
            j += 1;
        }
    }
    Ok(end)
}

/// Names an agent or a user leaves out of every folder of a listing or a
/// search (`canopy-mcp`'s `exclude`): each pattern a whole-name glob as
/// [`NameFilter::parse_glob`] reads one (`target` leaves out `target`, not
/// `my_target`; `*.log`, `[._]*`, `{target,dist}`), case folded.
#[derive(Debug, Clone, Default)]
pub struct Excludes {
    patterns: Vec<Matcher>,
}

impl Excludes {
    /// Parses the patterns (each as [`NameFilter::parse_glob`] does).
    ///
    /// # Errors
    /// `INVALID_ARGUMENT` for a pattern [`NameFilter::parse_glob`] refuses.
    pub fn parse(patterns: &[String]) -> Result<Excludes, CanopyError> {
        let mut out = Vec::with_capacity(patterns.len());
        for text in patterns {
            out.push(NameFilter::parse_glob(text)?.matcher);
        }
        Ok(Excludes { patterns: out })
    }

    /// True when no pattern was given.
    pub fn is_empty(&self) -> bool {
        self.patterns.is_empty()
    }

    /// True when `name` matches one of the patterns.
    pub fn matches(&self, name: &[u8], scratch: &mut FilterScratch) -> bool {
        if self.patterns.is_empty() {
            return false;
        }
        fold_into(name, &mut scratch.folded);
        let hay = std::mem::take(&mut scratch.folded);
        let hit = self
            .patterns
            .iter()
            .any(|m| m.matches(&hay, &mut scratch.steps));
        scratch.folded = hay;
        hit
    }
}

/// Where the class starting at `open` (a `[`) ends: the index of its `]`.
/// A `]` right after `[` or `[!`/`[^` belongs to the class.
fn class_end(p: &[u32], open: usize) -> Option<usize> {
    let mut i = open + 1;
    if matches!(p.get(i), Some(&c) if c == '!' as u32 || c == '^' as u32) {
        i += 1;
    }
    if p.get(i) == Some(&(']' as u32)) {
        i += 1;
    }
    while i < p.len() {
        if p[i] == ']' as u32 {
            return Some(i);
        }
        i += 1;
    }
    None
}

fn parse_glob(p: &[u32]) -> Matcher {
    let mut segments = vec![Vec::new()];
    let mut starred = false;
    let mut i = 0;
    while i < p.len() {
        let c = p[i];
        if c == '*' as u32 {
            starred = true;
            // Consecutive stars are one.
            if !segments.last().is_some_and(Vec::is_empty) || segments.len() == 1 {
                segments.push(Vec::new());
            }
            i += 1;
            continue;
        }
        let atom = if c == '?' as u32 {
            i += 1;
            Atom::Any
        } else if c == '[' as u32 {
            match class_end(p, i) {
                Some(end) => {
                    let mut j = i + 1;
                    let negated = p[j] == '!' as u32 || p[j] == '^' as u32;
                    if negated {
                        j += 1;
                    }
                    let mut ranges = Vec::new();
                    while j < end {
                        let lo = p[j];
                        if j + 2 < end && p[j + 1] == '-' as u32 {
                            ranges.push((lo, p[j + 2]));
                            j += 3;
                        } else {
                            ranges.push((lo, lo));
                            j += 1;
                        }
                    }
                    i = end + 1;
                    Atom::Class { negated, ranges }
                }
                None => {
                    i += 1;
                    Atom::Char(c)
                }
            }
        } else {
            i += 1;
            Atom::Char(c)
        };
        segments
            .last_mut()
            .expect("at least one segment")
            .push(atom);
    }
    // A leading star leaves an empty first segment; a trailing one an empty last.
    if starred && segments.len() == 1 {
        segments.push(Vec::new());
    }
    Matcher::Glob { segments, starred }
}

fn substring(needle: Vec<u32>) -> Matcher {
    // KMP failure function: failure[i] is the length of the longest proper
    // prefix of needle[..=i] that is also its suffix.
    let mut failure = vec![0usize; needle.len()];
    let mut k = 0;
    for i in 1..needle.len() {
        while k > 0 && needle[i] != needle[k] {
            k = failure[k - 1];
        }
        if needle[i] == needle[k] {
            k += 1;
        }
        failure[i] = k;
    }
    Matcher::Substring { needle, failure }
}

fn kmp_find(hay: &[u32], needle: &[u32], failure: &[usize], steps: &mut u64) -> bool {
    if needle.is_empty() {
        return true;
    }
    let mut k = 0;
    for &c in hay {
        while k > 0 && c != needle[k] {
            *steps += 1;
            k = failure[k - 1];
        }
        *steps += 1;
        if c == needle[k] {
            k += 1;
            if k == needle.len() {
                return true;
            }
        }
    }
    false
}

/// True when `seg` matches `hay` at `at` exactly.
#[inline]
fn segment_at(hay: &[u32], at: usize, seg: &[Atom], steps: &mut u64) -> bool {
    for (k, atom) in seg.iter().enumerate() {
        *steps += 1;
        if !atom.matches(hay[at + k]) {
            return false;
        }
    }
    true
}

fn glob_match(hay: &[u32], segments: &[Vec<Atom>], starred: bool, steps: &mut u64) -> bool {
    let n = hay.len();
    if !starred {
        let seg = &segments[0];
        return seg.len() == n && segment_at(hay, 0, seg, steps);
    }
    let (first, rest) = segments
        .split_first()
        .expect("a starred glob has two segments or more");
    let (last, middle) = rest
        .split_last()
        .expect("a starred glob has two segments or more");
    if first.len() + last.len() > n || !segment_at(hay, 0, first, steps) {
        return false;
    }
    let tail = n - last.len();
    if !segment_at(hay, tail, last, steps) {
        return false;
    }
    // Each middle segment at its leftmost place, between the first and the last.
    let mut pos = first.len();
    for seg in middle {
        let mut found = false;
        while pos + seg.len() <= tail {
            if segment_at(hay, pos, seg, steps) {
                found = true;
                break;
            }
            pos += 1;
        }
        if !found {
            return false;
        }
        pos += seg.len();
    }
    true
}

/// Checks a whole-name glob (see [`NameFilter::parse_glob`]).
///
/// # Errors
/// As [`NameFilter::parse_glob`].
pub fn check_glob(pattern: &str) -> Result<(), CanopyError> {
    NameFilter::parse_glob(pattern).map(|_| ())
}

/// The filter `settings` asks for, read as they say (`glob_filter`).
///
/// # Errors
/// As [`NameFilter::parse`] or [`NameFilter::parse_glob`].
pub fn of_settings(
    settings: &crate::wire::ListSettings,
) -> Result<Option<NameFilter>, CanopyError> {
    let parse = if settings.glob_filter {
        NameFilter::parse_glob
    } else {
        NameFilter::parse
    };
    settings.filter.as_deref().map(parse).transpose()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn hit(pattern: &str, name: &str) -> bool {
        NameFilter::parse(pattern)
            .unwrap()
            .matches(name.as_bytes(), &mut FilterScratch::default())
    }

    #[test]
    fn a_plain_string_matches_anywhere_ignoring_case() {
        assert!(hit("port", "Report.PDF"));
        assert!(hit("REPORT", "q3-report.pdf"));
        assert!(hit("é", "CAFÉ"), "case folds beyond ASCII");
        assert!(!hit("reports", "report"));
        assert!(!NameFilter::parse("report").unwrap().is_glob());
    }

    #[test]
    fn stars_questions_and_classes_make_a_whole_name_glob() {
        assert!(hit("*.jpg", "IMG_001.JPG"));
        assert!(
            !hit("*.jpg", "IMG_001.JPG.bak"),
            "a glob matches the whole name"
        );
        assert!(hit("img_??1.*", "img_001.png"));
        assert!(hit("[a-c]*", "Banana"));
        assert!(!hit("[!a-c]*", "banana"));
        assert!(hit("[^a-c]*", "zebra"));
        assert!(hit("*", ""), "a star alone matches anything");
        assert!(hit("a*b*c", "aXXbYYc") && !hit("a*b*c", "aXXcYYb"));
        assert!(hit("[]x]", "]"), "a ] first in a class belongs to it");
        assert!(
            hit("a[b", "xa[bx"),
            "an unclosed [ is a plain character: a substring"
        );
        assert!(!NameFilter::parse("a[b").unwrap().is_glob());
    }

    fn glob_hit(pattern: &str, name: &str) -> bool {
        NameFilter::parse_glob(pattern)
            .unwrap()
            .matches(name.as_bytes(), &mut FilterScratch::default())
    }

    #[test]
    fn a_whole_name_glob_is_the_whole_name_with_alternatives() {
        assert!(glob_hit("cargo.TOML", "Cargo.toml"));
        assert!(!glob_hit("Cargo.toml", "Cargo.toml.orig"), "no substring");
        assert!(!glob_hit("config", "app.config.js"));
        assert!(glob_hit("*config*", "app.config.js"));
        assert!(glob_hit("{*config*,Cargo.toml}", "Cargo.toml"));
        assert!(glob_hit("{*config*,Cargo.toml}", "tsconfig.json"));
        assert!(!glob_hit("{*config*,Cargo.toml}", "Cargo.lock"));
        assert!(glob_hit("*.{rs,toml}", "main.RS") && !glob_hit("*.{rs,toml}", "x.json"));
        assert!(
            glob_hit("{a,}b", "b"),
            "an empty alternative matches nothing there"
        );
        assert!(glob_hit("[{]x[}]", "{x}"), "a class holds a brace itself");
        assert!(
            glob_hit("{[,]x,y}", ",x"),
            "a comma in a class is no separator"
        );
        assert!(glob_hit("[[]a*", "[a] b"));
        assert!(glob_hit("a\\b", "a\\b"), "no escape character");
    }

    #[test]
    fn a_malformed_glob_is_refused_with_where_and_why() {
        for (bad, why) in [
            ("[ab", "`[` at character 1 opens a class that never closes"),
            ("x[]", "`[` at character 2 opens a class that never closes"),
            (
                "{a,b",
                "`{` at character 1 opens alternatives that never close",
            ),
            ("a}b", "`}` at character 2 closes no `{`"),
            ("{a,{b}}", "`{` at character 4 is inside another"),
            ("[9-0]", "range `9-0` at character 2 is backwards"),
            (
                "{[a,b}",
                "`[` at character 2 opens a class that never closes",
            ),
        ] {
            let err = NameFilter::parse_glob(bad).unwrap_err();
            assert_eq!(err.code, crate::ErrorCode::InvalidArgument, "{bad}");
            assert!(err.message.contains(why), "{bad}: {}", err.message);
        }
        assert!(NameFilter::parse_glob("").is_err() && NameFilter::parse_glob("a/b").is_err());
    }

    #[test]
    fn alternatives_are_spelled_out_only_up_to_their_bound() {
        // Each group doubles the alternatives: the first over the bound is refused.
        let groups = |n: usize| "{a,b}".repeat(n);
        let within = MAX_GLOB_ALTERNATIVES.ilog2() as usize;
        let f = NameFilter::parse_glob(&groups(within)).unwrap();
        assert!(f.matches("a".repeat(within).as_bytes(), &mut FilterScratch::default()));
        let err = NameFilter::parse_glob(&groups(within + 1)).unwrap_err();
        assert!(err.message.contains("alternatives"), "{}", err.message);
    }

    #[test]
    fn bad_filters_are_invalid_argument() {
        for bad in ["", "a/b", "a\0b"] {
            assert_eq!(
                NameFilter::parse(bad).unwrap_err().code,
                crate::ErrorCode::InvalidArgument,
                "{bad:?}"
            );
        }
        let long = "x".repeat(MAX_FILTER_BYTES + 1);
        assert!(NameFilter::parse(&long)
            .unwrap_err()
            .message
            .contains("at most"));
    }

    #[test]
    fn a_pathological_glob_costs_a_few_steps_per_character_not_exponential() {
        let name = "a".repeat(250);
        let f = NameFilter::parse("*a*a*a*a*a*b").unwrap();
        let mut scratch = FilterScratch::default();
        assert!(!f.matches(name.as_bytes(), &mut scratch));
        // A backtracking matcher tries C(250, 5) ~ 8e9 splits here.
        assert!(
            scratch.steps <= 2 * (250 + 12),
            "{} steps for 250 characters",
            scratch.steps
        );
        // The worst case for the segment search: a long segment that almost matches everywhere.
        let f = NameFilter::parse("*aaaaaaaaab*").unwrap();
        let mut scratch = FilterScratch::default();
        assert!(!f.matches(name.as_bytes(), &mut scratch));
        assert!(
            scratch.steps <= 250 * 10,
            "{} steps: at most the segment's width per character",
            scratch.steps
        );
        // A substring is linear too.
        let f = NameFilter::parse(&format!("{}b", "a".repeat(100))).unwrap();
        let mut scratch = FilterScratch::default();
        assert!(!f.matches(name.as_bytes(), &mut scratch));
        assert!(
            scratch.steps <= 2 * 250,
            "{} steps for 250 characters",
            scratch.steps
        );
    }

    /// The obvious backtracking matcher, as the reference.
    fn reference(p: &[Atom2], s: &[u32]) -> bool {
        match p.split_first() {
            None => s.is_empty(),
            Some((Atom2::Star, rest)) => (0..=s.len()).any(|i| reference(rest, &s[i..])),
            Some((Atom2::One(a), rest)) => {
                !s.is_empty() && a.matches(s[0]) && reference(rest, &s[1..])
            }
        }
    }

    #[derive(Debug, Clone)]
    enum Atom2 {
        Star,
        One(Atom),
    }

    fn to_reference(m: &Matcher) -> Vec<Atom2> {
        let Matcher::Glob { segments, starred } = m else {
            panic!("a glob")
        };
        let mut out = Vec::new();
        for (i, seg) in segments.iter().enumerate() {
            if i > 0 && *starred {
                out.push(Atom2::Star);
            }
            out.extend(seg.iter().cloned().map(Atom2::One));
        }
        out
    }

    proptest! {
        #[test]
        fn the_segment_matcher_agrees_with_backtracking(
            pattern in "[ab*?]{0,8}(\\[ab\\])?[ab*]{0,3}",
            name in "[abAB]{0,12}",
        ) {
            prop_assume!(!pattern.is_empty());
            let f = NameFilter::parse(&pattern).unwrap();
            let mut folded = Vec::new();
            fold_into(name.as_bytes(), &mut folded);
            let want = match &f.matcher {
                Matcher::Glob { .. } => reference(&to_reference(&f.matcher), &folded),
                Matcher::Substring { .. } => name.to_lowercase().contains(&pattern.to_lowercase()),
                Matcher::Alternatives(_) => unreachable!("parse spells out no braces"),
            };
            prop_assert_eq!(f.matches(name.as_bytes(), &mut FilterScratch::default()), want, "{} on {}", pattern, name);
        }
    }
}
