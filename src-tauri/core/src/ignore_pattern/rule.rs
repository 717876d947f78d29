//! One rule of an ignore file: read as git's `parse_path_pattern` reads it
//! (`!`, a trailing `/`, anchoring, the literal prefix) and matched as
//! `match_basename` / `match_pathname` match it, cheap refusals first; what
//! it holds once compiled is said by [`Pattern::cost`].

use super::byte_set::ByteSet;
use super::glob::{compile, Glob, States, Token};
use super::meter::{Halt, Meter};

/// How a rule's text is compared.
pub(super) enum Matcher {
    /// Nothing: wildmatch gives up on the glob.
    Nothing,
    /// The whole text is these bytes.
    Exact(Box<[u8]>),
    /// The text ends with these bytes (a basename rule `*literal`).
    EndsWith(Box<[u8]>),
    /// The text starts with `prefix` (no wildcard in it) and the glob matches the rest.
    Glob { prefix: Box<[u8]>, glob: Glob },
}

/// One rule of an ignore file.
pub(crate) struct Pattern {
    /// `!rule`: what it matches is not ignored.
    pub negative: bool,
    /// `rule/`: only a folder matches.
    dir_only: bool,
    /// No `/` in the rule: it is matched against the last component only.
    basename: bool,
    pub(super) matcher: Matcher,
}

/// A path to match, relative to the folder of the rule's file, with what
/// the rules need to know of it.
pub(crate) struct Subject<'p> {
    pub path: &'p [u8],
    /// Where its last component starts.
    pub base: usize,
    pub is_dir: bool,
    /// The bytes of `path`.
    pub bytes: ByteSet,
}

/// True when `text` holds the bytes of `sequence` in that order.
fn holds_in_order(text: &[u8], sequence: &[u8]) -> bool {
    let mut rest = sequence.iter().peekable();
    for b in text {
        if rest.peek() == Some(&b) {
            rest.next();
        }
    }
    rest.peek().is_none()
}

/// Git's `simple_length`: bytes before the first wildcard character.
fn simple_length(p: &[u8]) -> usize {
    p.iter()
        .position(|b| matches!(b, b'*' | b'?' | b'[' | b'\\'))
        .unwrap_or(p.len())
}

impl Pattern {
    /// Reads one rule (a line as [`rule_lines`](super::rule_lines) gives it), as git's `parse_path_pattern`.
    pub(crate) fn parse(line: &[u8]) -> Pattern {
        let (negative, p) = match line.strip_prefix(b"!") {
            Some(rest) => (true, rest),
            None => (false, line),
        };
        let dir_only = p.last() == Some(&b'/');
        let pat = if dir_only { &p[..p.len() - 1] } else { p };
        let basename = !pat.contains(&b'/');
        // Counted on the text with its trailing `/`, as git counts it.
        let literal_len = simple_length(p).min(pat.len());
        let ends_with = p.first() == Some(&b'*') && simple_length(&p[1..]) == p.len() - 1;
        let matcher = if basename {
            if literal_len == pat.len() {
                Matcher::Exact(pat.into())
            } else if ends_with {
                Matcher::EndsWith(pat[1..].into())
            } else {
                compile(pat, false).map_or(Matcher::Nothing, |glob| Matcher::Glob {
                    prefix: Box::default(),
                    glob,
                })
            }
        } else {
            // A leading `/` anchors the rule, which is anchored anyway.
            let (pat, literal_len) = match pat.strip_prefix(b"/") {
                Some(rest) => (rest, literal_len - 1),
                None => (pat, literal_len),
            };
            if literal_len == pat.len() {
                Matcher::Exact(pat.into())
            } else {
                // The glob starts after the literal part, as git hands it to wildmatch
                // (so `foo**/bar` has a `**/` that counts).
                let (prefix, rest) = pat.split_at(literal_len);
                compile(rest, true).map_or(Matcher::Nothing, |glob| Matcher::Glob {
                    prefix: prefix.into(),
                    glob,
                })
            }
        };
        Pattern {
            negative,
            dir_only,
            basename,
            matcher,
        }
    }

    /// Bytes this rule holds once compiled (for the listing's budget); its
    /// cost to match a name is at most (tokens + 2) steps a byte.
    pub(crate) fn cost(&self) -> usize {
        let held = match &self.matcher {
            Matcher::Nothing => 0,
            Matcher::Exact(b) | Matcher::EndsWith(b) => b.len(),
            Matcher::Glob { prefix, glob } => {
                prefix.len()
                    + glob.tokens.len() * size_of::<Token>()
                    + glob.classes.len() * size_of::<ByteSet>()
                    + glob.sequence.len()
            }
        };
        size_of::<Pattern>() + held
    }

    /// True when the rule matches `s` (git's `match_basename` or `match_pathname`).
    ///
    /// # Errors
    /// The meter stopped the match.
    pub(crate) fn matches(
        &self,
        s: &Subject<'_>,
        states: &mut States,
        meter: &mut Meter<'_>,
    ) -> Result<bool, Halt> {
        meter.spend(1)?;
        if self.dir_only && !s.is_dir {
            return Ok(false);
        }
        let text = if self.basename {
            &s.path[s.base..]
        } else {
            s.path
        };
        match &self.matcher {
            Matcher::Nothing => Ok(false),
            Matcher::Exact(b) => Ok(text == &b[..]),
            Matcher::EndsWith(b) => Ok(text.ends_with(b)),
            Matcher::Glob { prefix, glob } => {
                if !glob.needs.within(&s.bytes) {
                    return Ok(false);
                }
                let Some(rest) = text.strip_prefix(&prefix[..]) else {
                    return Ok(false);
                };
                meter.spend(rest.len() as u64)?;
                if !holds_in_order(rest, &glob.sequence) {
                    return Ok(false);
                }
                glob.matches(rest, states, meter)
            }
        }
    }
}
