//! One line of an ignore file, read and matched as git reads and matches it,
//! over bytes: `dir.c` for the line (`add_patterns_from_buffer`,
//! `parse_path_pattern`, `match_basename`, `match_pathname`) and
//! `wildmatch.c` for the glob. [`crate::ignore_rules`] finds the files and
//! layers them; this module knows one rule.
//!
//! Promises:
//! - the meaning is git's, byte for byte (two differential tests hold it to
//!   `git check-ignore`: `tests/git_differential.rs` over generated rule
//!   files and their layers, `tests/git_wildmatch.rs` rule by rule over
//!   classes, ranges, escapes, stars and names that are not UTF-8, for the
//!   listing and the search alike): `{`, `}` and `,` are literal;
//!   a `[` with no closing `]`, an unknown `[:class:]` or a trailing `\`
//!   make a rule that matches nothing; `\` escapes inside `[...]` too; a NUL
//!   byte ends the line; a line need not be UTF-8;
//! - matching never backtracks: a glob compiles to a list of tokens that is
//!   run as a set of positions (a nondeterministic automaton), or, when all
//!   its stars may match any bytes, piece by piece with each piece at its
//!   leftmost place; either way one match costs at most
//!   (tokens + 2) x (bytes + 1) steps, after two cheap refusals (a byte the
//!   glob needs is missing, or its bytes are not in order). The steps are counted
//!   on a [`Meter`], which stops the match at the folder's deadline or when
//!   the request is cancelled;
//! - what a rule compiles to is bounded by its text, and [`Pattern::cost`]
//!   says how many bytes it holds, for the listing's budget.
#![forbid(unsafe_code)]

use std::time::Instant;

use crate::cancel::CancelToken;
use crate::limits::IGNORE_STEPS_PER_CHECK;

/// A set of bytes.
#[derive(Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct ByteSet([u64; 4]);

impl ByteSet {
    fn insert(&mut self, b: u8) {
        self.0[(b >> 6) as usize] |= 1 << (b & 63);
    }

    fn has(&self, b: u8) -> bool {
        self.0[(b >> 6) as usize] & (1 << (b & 63)) != 0
    }

    fn complement(self) -> ByteSet {
        ByteSet(self.0.map(|w| !w))
    }

    /// The bytes of `text`.
    pub(crate) fn of(text: &[u8]) -> ByteSet {
        let mut s = ByteSet::default();
        for &b in text {
            s.insert(b);
        }
        s
    }

    fn within(&self, other: &ByteSet) -> bool {
        self.0.iter().zip(other.0.iter()).all(|(a, b)| a & !b == 0)
    }
}

/// One step of a glob.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Token {
    /// This byte.
    Byte(u8),
    /// `?`: any one byte; `/` only when `slash`.
    One { slash: bool },
    /// `[...]`: one byte of the glob's class at this index.
    Class(u32),
    /// `*`: any bytes; `/` among them only when `slash`.
    Star { slash: bool },
    /// `**/` where git gives it its meaning: nothing, or any bytes ending in
    /// `/`. It reads no byte itself: it goes on into the two tokens after it
    /// (`Star { slash: true }`, then `Byte(b'/')`), or past them.
    Dirs,
}

impl Token {
    /// How far ahead the token goes on without reading a byte: a `*` past
    /// itself (matching nothing), a `**/` into its star or past its `/`.
    fn skips(self) -> &'static [usize] {
        match self {
            Token::Star { .. } => &[1],
            Token::Dirs => &[1, 3],
            _ => &[],
        }
    }
}

/// A glob in wildmatch's language, compiled.
struct Glob {
    tokens: Box<[Token]>,
    classes: Box<[ByteSet]>,
    /// Bytes every text it matches holds (its `Byte` tokens): a text
    /// without one of them is refused without running the automaton.
    needs: ByteSet,
    /// Those bytes in the glob's order: a text that does not hold them in
    /// that order (one scan) is refused too.
    sequence: Box<[u8]>,
    /// Every star may match any bytes (no `/` limit, no `**/`): then each
    /// piece between stars is best placed as far left as it fits, and the
    /// glob is matched piece by piece, without the automaton.
    greedy: bool,
}

/// Why a match was stopped before it ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Halt {
    /// The folder's deadline passed.
    Deadline,
    Cancelled,
}

/// Counts the steps ignore matching takes, and stops it (for good) at a
/// deadline or a cancel, looking at both every `IGNORE_STEPS_PER_CHECK` steps.
pub struct Meter<'a> {
    deadline: Option<Instant>,
    cancel: Option<&'a CancelToken>,
    steps: u64,
    next_check: u64,
    halted: Option<Halt>,
}

impl<'a> Meter<'a> {
    pub(crate) fn new(deadline: Option<Instant>, cancel: Option<&'a CancelToken>) -> Meter<'a> {
        Meter {
            deadline,
            cancel,
            steps: 0,
            next_check: IGNORE_STEPS_PER_CHECK,
            halted: None,
        }
    }

    /// A meter that never stops the work.
    #[cfg(test)]
    pub(crate) fn unbounded() -> Meter<'static> {
        Meter::new(None, None)
    }

    /// Steps spent so far.
    #[cfg(test)]
    pub(crate) fn steps(&self) -> u64 {
        self.steps
    }

    /// Why the work was stopped, if it was.
    #[cfg(test)]
    pub(crate) fn halted(&self) -> Option<Halt> {
        self.halted
    }

    /// Spends `n` steps.
    ///
    /// # Errors
    /// Why the work must stop: the deadline passed or the request was
    /// cancelled (now or at an earlier call).
    pub(crate) fn spend(&mut self, n: u64) -> Result<(), Halt> {
        if let Some(h) = self.halted {
            return Err(h);
        }
        self.steps += n;
        if self.steps < self.next_check {
            return Ok(());
        }
        self.next_check = self.steps + IGNORE_STEPS_PER_CHECK;
        if self.cancel.is_some_and(CancelToken::is_cancelled) {
            self.halted = Some(Halt::Cancelled);
        } else if self.deadline.is_some_and(|d| Instant::now() > d) {
            self.halted = Some(Halt::Deadline);
        }
        self.halted.map_or(Ok(()), Err)
    }
}

/// The automaton's two sets of positions, reused from match to match.
#[derive(Default)]
pub(crate) struct States {
    now: Vec<u64>,
    next: Vec<u64>,
}

fn set_bit(words: &mut [u64], i: usize) {
    words[i / 64] |= 1 << (i % 64);
}

fn bit(words: &[u64], i: usize) -> bool {
    words[i / 64] & (1 << (i % 64)) != 0
}

/// Calls `each` with every position in `words`, in order.
fn for_each_bit(words: &[u64], mut each: impl FnMut(usize)) {
    for (w, &word) in words.iter().enumerate() {
        let mut rest = word;
        while rest != 0 {
            each(w * 64 + rest.trailing_zeros() as usize);
            rest &= rest - 1;
        }
    }
}

impl Glob {
    /// Adds the positions reachable without reading a byte (see
    /// [`Token::skips`]). In order, so a run of them is crossed in one walk.
    fn close(&self, words: &mut [u64]) {
        for w in 0..words.len() {
            let mut rest = words[w];
            while rest != 0 {
                let i = w * 64 + rest.trailing_zeros() as usize;
                rest &= rest - 1;
                for &ahead in self.tokens.get(i).map_or(&[][..], |t| t.skips()) {
                    let to = i + ahead;
                    set_bit(words, to);
                    if to / 64 == w {
                        rest |= 1 << (to % 64);
                    }
                }
            }
        }
    }

    /// True when `token` (one that reads one byte) takes `c`.
    fn takes(&self, token: Token, c: u8) -> bool {
        match token {
            Token::Byte(b) => b == c,
            Token::One { slash } => slash || c != b'/',
            Token::Class(k) => self.classes[k as usize].has(c),
            Token::Star { .. } | Token::Dirs => false,
        }
    }

    /// True when the one-byte tokens of `piece` take `text`, byte for byte.
    fn fits(&self, piece: &[Token], text: &[u8]) -> bool {
        piece.len() == text.len() && piece.iter().zip(text).all(|(&t, &c)| self.takes(t, c))
    }

    /// True when the glob matches all of `text`.
    fn matches(
        &self,
        text: &[u8],
        states: &mut States,
        meter: &mut Meter<'_>,
    ) -> Result<bool, Halt> {
        if self.greedy {
            self.matches_greedy(text, meter)
        } else {
            self.matches_automaton(text, states, meter)
        }
    }

    /// A glob whose stars all match any bytes: the first piece at the
    /// start, the last at the end, and each one between at its leftmost
    /// place after the one before (a later place never leaves more room).
    /// At most (bytes + 1) x (piece tokens) steps.
    fn matches_greedy(&self, text: &[u8], meter: &mut Meter<'_>) -> Result<bool, Halt> {
        let mut pieces = self.tokens.split(|t| matches!(t, Token::Star { .. }));
        let first = pieces.next().unwrap_or_default();
        let Some(last) = pieces.next_back() else {
            meter.spend(text.len() as u64 + 1)?;
            return Ok(self.fits(first, text));
        };
        if first.len() + last.len() > text.len() {
            return Ok(false);
        }
        let end = text.len() - last.len();
        meter.spend((first.len() + last.len()) as u64 + 1)?;
        if !self.fits(first, &text[..first.len()]) || !self.fits(last, &text[end..]) {
            return Ok(false);
        }
        let mut at = first.len();
        for piece in pieces.filter(|p| !p.is_empty()) {
            let mut found = None;
            while at + piece.len() <= end {
                meter.spend(piece.len() as u64)?;
                if self.fits(piece, &text[at..at + piece.len()]) {
                    found = Some(at + piece.len());
                    break;
                }
                at += 1;
            }
            match found {
                Some(after) => at = after,
                None => return Ok(false),
            }
        }
        Ok(true)
    }

    /// Any glob: the set of positions, byte by byte.
    fn matches_automaton(
        &self,
        text: &[u8],
        states: &mut States,
        meter: &mut Meter<'_>,
    ) -> Result<bool, Halt> {
        let n = self.tokens.len();
        let words = n / 64 + 1;
        let (now, next) = (&mut states.now, &mut states.next);
        now.clear();
        now.resize(words, 0);
        next.clear();
        next.resize(words, 0);
        set_bit(now, 0);
        self.close(now);
        for &c in text {
            next.fill(0);
            let mut active = 0u64;
            for_each_bit(now, |i| {
                active += 1;
                let Some(&token) = self.tokens.get(i) else {
                    return;
                };
                match token {
                    Token::Byte(b) if b == c => set_bit(next, i + 1),
                    Token::One { slash } if slash || c != b'/' => set_bit(next, i + 1),
                    Token::Class(k) if self.classes[k as usize].has(c) => set_bit(next, i + 1),
                    Token::Star { slash } if slash || c != b'/' => set_bit(next, i),
                    _ => {}
                }
            });
            meter.spend(active + 1)?;
            self.close(next);
            std::mem::swap(now, next);
            if now.iter().all(|&w| w == 0) {
                return Ok(false);
            }
        }
        Ok(bit(now, n))
    }
}

/// The class that starts at `p[at]` (just after its `[`), as wildmatch
/// reads it, and the index just after its `]`; `None` when wildmatch would
/// give up on the pattern (no `]`, a `\` at the end, an unknown `[:name:]`).
/// `pathname`: a class never matches `/`.
fn parse_class(p: &[u8], at: usize, pathname: bool) -> Option<(ByteSet, usize)> {
    // Wildmatch reads a C string: past the end is a NUL.
    let byte = |k: usize| p.get(k).copied().unwrap_or(0);
    let mut k = at;
    let mut c = byte(k);
    if c == b'^' {
        c = b'!';
    }
    let negated = c == b'!';
    if negated {
        k += 1;
        c = byte(k);
    }
    let mut set = ByteSet::default();
    let mut prev = 0u8;
    loop {
        if c == 0 {
            return None;
        }
        if c == b'\\' {
            k += 1;
            c = byte(k);
            if c == 0 {
                return None;
            }
            set.insert(c);
        } else if c == b'-' && prev != 0 && byte(k + 1) != 0 && byte(k + 1) != b']' {
            k += 1;
            c = byte(k);
            if c == b'\\' {
                k += 1;
                c = byte(k);
                if c == 0 {
                    return None;
                }
            }
            for b in prev..=c {
                set.insert(b);
            }
            // A range ends a run: the next `-` is a literal.
            c = 0;
        } else if c == b'[' && byte(k + 1) == b':' {
            k += 2;
            let start = k;
            while byte(k) != 0 && byte(k) != b']' {
                k += 1;
            }
            if byte(k) == 0 {
                return None;
            }
            if k < start + 1 || byte(k - 1) != b':' {
                // No `:]`: the `[` is a member, and reading goes on after it.
                k = start - 1;
                set.insert(b'[');
                prev = b'[';
                c = byte(k);
                if c == b']' {
                    break;
                }
                continue;
            }
            let name = &p[start..k - 1];
            let class: fn(u8) -> bool = match name {
                b"alnum" => |b| b.is_ascii_alphanumeric(),
                b"alpha" => |b| b.is_ascii_alphabetic(),
                b"blank" => |b| b == b' ' || b == b'\t',
                b"cntrl" => |b| b.is_ascii_control(),
                b"digit" => |b| b.is_ascii_digit(),
                b"graph" => |b| b.is_ascii_graphic(),
                b"lower" => |b| b.is_ascii_lowercase(),
                b"print" => |b| (0x20..=0x7e).contains(&b),
                b"punct" => |b| b.is_ascii_punctuation(),
                // Git's own ctype: no vertical tab or form feed.
                b"space" => |b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'),
                b"upper" => |b| b.is_ascii_uppercase(),
                b"xdigit" => |b| b.is_ascii_hexdigit(),
                _ => return None,
            };
            for b in 0..=255u8 {
                if class(b) {
                    set.insert(b);
                }
            }
            c = 0;
        } else {
            set.insert(c);
        }
        prev = c;
        k += 1;
        c = byte(k);
        if c == b']' {
            break;
        }
    }
    let mut set = if negated { set.complement() } else { set };
    if pathname {
        set.0[0] &= !(1 << b'/');
    }
    Some((set, k + 1))
}

/// Compiles `p` as wildmatch reads it (`pathname`: git's `WM_PATHNAME`, `*`
/// and `?` stop at `/`); `None` when wildmatch would match nothing with it.
fn compile(p: &[u8], pathname: bool) -> Option<Glob> {
    let byte = |k: usize| p.get(k).copied().unwrap_or(0);
    let mut tokens = Vec::new();
    let mut classes = Vec::new();
    let mut needs = ByteSet::default();
    let mut sequence = Vec::new();
    let mut k = 0;
    while k < p.len() {
        match p[k] {
            b'\\' => {
                // A `\` at the end matches nothing.
                let &b = p.get(k + 1)?;
                needs.insert(b);
                sequence.push(b);
                tokens.push(Token::Byte(b));
                k += 2;
            }
            b'?' => {
                tokens.push(Token::One { slash: !pathname });
                k += 1;
            }
            b'*' => {
                let start = k;
                while byte(k) == b'*' {
                    k += 1;
                }
                let double = k - start >= 2;
                let after_slash = start == 0 || p[start - 1] == b'/';
                let before_slash =
                    matches!(byte(k), 0 | b'/') || (byte(k) == b'\\' && byte(k + 1) == b'/');
                if !pathname {
                    tokens.push(Token::Star { slash: true });
                } else if double && after_slash && before_slash {
                    if byte(k) == b'/' {
                        // Not in `needs`: it may match nothing.
                        tokens.extend([
                            Token::Dirs,
                            Token::Star { slash: true },
                            Token::Byte(b'/'),
                        ]);
                        k += 1;
                    } else {
                        tokens.push(Token::Star { slash: true });
                    }
                } else {
                    tokens.push(Token::Star { slash: false });
                }
            }
            b'[' => {
                let (set, end) = parse_class(p, k + 1, pathname)?;
                tokens.push(Token::Class(classes.len() as u32));
                classes.push(set);
                k = end;
            }
            b => {
                needs.insert(b);
                sequence.push(b);
                tokens.push(Token::Byte(b));
                k += 1;
            }
        }
    }
    let greedy = tokens
        .iter()
        .all(|t| !matches!(t, Token::Star { slash: false } | Token::Dirs));
    Some(Glob {
        tokens: tokens.into(),
        classes: classes.into(),
        needs,
        sequence: sequence.into(),
        greedy,
    })
}

/// How a rule's text is compared.
enum Matcher {
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
    matcher: Matcher,
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

/// The rules of an ignore file's text, as git cuts them: a leading byte
/// order mark skipped; lines split at `\n`, one `\r` before it dropped;
/// empty lines and those starting with `#` skipped; a line ends at its
/// first NUL; trailing spaces dropped unless escaped with `\`. Lines that
/// end up empty are left out (they match nothing in git).
pub(crate) fn rule_lines(text: &[u8]) -> impl DoubleEndedIterator<Item = &[u8]> {
    let text = text.strip_prefix(b"\xef\xbb\xbf").unwrap_or(text);
    text.split(|&b| b == b'\n').filter_map(|line| {
        if line.is_empty() || line[0] == b'#' {
            return None;
        }
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let line = &line[..line.iter().position(|&b| b == 0).unwrap_or(line.len())];
        let line = trim_trailing_spaces(line);
        (!line.is_empty()).then_some(line)
    })
}

/// Git's `trim_trailing_spaces`: drops the spaces that end the line, unless
/// the first of them is escaped.
fn trim_trailing_spaces(line: &[u8]) -> &[u8] {
    let mut last_space = None;
    let mut k = 0;
    while k < line.len() {
        match line[k] {
            b' ' => {
                last_space.get_or_insert(k);
            }
            b'\\' => {
                k += 1;
                if k == line.len() {
                    return line;
                }
                last_space = None;
            }
            _ => last_space = None,
        }
        k += 1;
    }
    &line[..last_space.unwrap_or(line.len())]
}

impl Pattern {
    /// Reads one rule (a line as [`rule_lines`] gives it), as git's `parse_path_pattern`.
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

#[cfg(test)]
mod tests {
    use super::*;

    fn matches(rule: &[u8], path: &[u8], is_dir: bool) -> bool {
        let p = Pattern::parse(rule_lines(rule).next().unwrap_or(b""));
        let base = path.iter().rposition(|&b| b == b'/').map_or(0, |i| i + 1);
        let s = Subject {
            path,
            base,
            is_dir,
            bytes: ByteSet::of(path),
        };
        p.matches(&s, &mut States::default(), &mut Meter::unbounded())
            .unwrap()
    }

    #[test]
    fn braces_and_commas_are_literal() {
        assert!(matches(b"*.{jpg,png}", b"p.{jpg,png}", false));
        assert!(!matches(b"*.{jpg,png}", b"p.jpg", false));
        assert!(matches(b"br{ace", b"br{ace", false));
    }

    #[test]
    fn an_unclosed_bracket_matches_nothing() {
        for rule in [
            &b"[unclosed"[..],
            b"[",
            b"a[b",
            b"*[",
            b"x[[:alpha:]",
            b"[[:nope:]]",
        ] {
            for path in [&b"[unclosed"[..], b"[", b"a[b", b"ab", b"x[", b"a"] {
                assert!(
                    !matches(rule, path, false),
                    "{:?} must match nothing, yet matched {:?}",
                    rule.escape_ascii().to_string(),
                    path.escape_ascii().to_string()
                );
            }
        }
    }

    #[test]
    fn a_backslash_inside_brackets_escapes() {
        assert!(matches(br"[\]]x", b"]x", false));
        assert!(!matches(br"[\]]x", br"\]x", false));
        for (name, want) in [
            (&b"-cls"[..], true),
            (b"acls", true),
            (b"zcls", true),
            (b"bcls", false),
            (br"\cls", false),
        ] {
            assert_eq!(
                matches(br"[a\-z]cls", name, false),
                want,
                "{}",
                name.escape_ascii()
            );
        }
        assert!(!matches(br"ss[\!]", br"ss\", false));
        assert!(matches(br"ss[\!]", b"ss!", false));
    }

    #[test]
    fn a_nul_ends_the_rule_and_bytes_need_not_be_utf8() {
        assert!(matches(b"nul\0tail", b"nul", false));
        assert!(!matches(b"nul\0tail", b"nul\0tail", false));
        assert!(matches(b"caf\xe9*", b"caf\xe9 menu", false));
        assert!(matches(b"[\xe0-\xef]x", b"\xe9x", false));
    }

    #[test]
    fn stars_slashes_and_classes_follow_wildmatch() {
        let cases: &[(&[u8], &[u8], bool)] = &[
            (b"a/**/b", b"a/b", true),
            (b"a/**/b", b"a/x/y/b", true),
            (b"a/*/b", b"a/x/y/b", false),
            (b"**/b", b"x/y/b", true),
            (b"**//**/*", b"x/y", false),
            (b"**//**/*", b"x//y", true),
            (b"a/**", b"a/x/y", true),
            (b"a**/b", b"ax/y/b", true),
            (b"a/x**y", b"a/x/y", false),
            (b"/a?c", b"abc", true),
            (b"a/?", b"a//", false),
            (b"[[:digit:]]x", b"7x", true),
            (b"[[:space:]]", b"\x0b", false),
            (b"[!a-c]", b"d", true),
            (b"[^a-c]", b"b", false),
            (b"[]a]", b"]", true),
            (b"[[:x]", b":", true),
            (b"*", b"anything", true),
            (b"\\#x", b"#x", true),
            (b"x\\", b"x\\", false),
            (b"trail\\ ", b"trail ", true),
            (b"trail  ", b"trail", true),
        ];
        for &(rule, path, want) in cases {
            assert_eq!(
                matches(rule, path, false),
                want,
                "{} on {}",
                rule.escape_ascii(),
                path.escape_ascii()
            );
        }
    }

    #[test]
    fn a_match_costs_at_most_tokens_times_bytes_and_never_backtracks() {
        // The attack of issue 16: 12 stars between letters; git's wildmatch
        // and a backtracking glob try combinations of positions.
        let rule = Pattern::parse(b"*e*s*c*i*d*p*o*u*m*g*v*");
        let Matcher::Glob { glob, .. } = &rule.matcher else {
            panic!("a glob")
        };
        let bound = |len: usize| (glob.tokens.len() as u64 + 2) * (len as u64 + 1) + 1;
        // Every letter the rule asks for, 20 times each, in the reverse order.
        let name: Vec<u8> = b"vgmuopdicse".iter().flat_map(|&b| [b; 20]).collect();
        let s = Subject {
            path: &name,
            base: 0,
            is_dir: false,
            bytes: ByteSet::of(&name),
        };
        let mut meter = Meter::unbounded();
        assert!(!rule
            .matches(&s, &mut States::default(), &mut meter)
            .unwrap());
        assert!(
            meter.steps() <= bound(name.len()),
            "{} steps for {} bytes",
            meter.steps(),
            name.len()
        );
    }

    #[test]
    fn a_near_miss_costs_about_one_scan_of_the_name() {
        let name = [&b"b"[..], &[b'a'; 240]].concat();
        let s = Subject {
            path: &name,
            base: 0,
            is_dir: false,
            bytes: ByteSet::of(&name),
        };
        for rule in [&b"*a*a*a*a*a*a*a*a*a*a[!a]"[..], b"*a*a*a*a*a*a*a*a*a*a*b"] {
            let mut meter = Meter::unbounded();
            assert!(!Pattern::parse(rule)
                .matches(&s, &mut States::default(), &mut meter)
                .unwrap());
            let limit = 2 * (name.len() as u64 + 1);
            assert!(
                meter.steps() <= limit,
                "{}: {} steps, not {limit}",
                rule.escape_ascii(),
                meter.steps()
            );
        }
    }

    proptest::proptest! {
        #[test]
        fn piece_by_piece_and_the_automaton_agree(
            glob in proptest::collection::vec(proptest::sample::select(vec![&b"*"[..], b"**", b"?", b"a", b"b", b"/", b"[ab]", b"[!a]", b"ab"]), 0..8),
            text in proptest::collection::vec(proptest::sample::select(vec![b'a', b'b', b'c', b'/']), 0..12),
            pathname in proptest::bool::ANY,
        ) {
            let glob = glob.concat();
            let Some(g) = compile(&glob, pathname) else { return Ok(()) };
            let by_automaton = g.matches_automaton(&text, &mut States::default(), &mut Meter::unbounded()).unwrap();
            if g.greedy {
                let by_pieces = g.matches_greedy(&text, &mut Meter::unbounded()).unwrap();
                proptest::prop_assert_eq!(by_pieces, by_automaton, "{} on {}", glob.escape_ascii(), text.escape_ascii());
            }
        }
    }

    #[test]
    fn a_meter_past_its_deadline_stops_the_match_within_one_check() {
        let rule = Pattern::parse(b"*a*a*a*a*a*a*a*a*a*a*b");
        let name = vec![b'a'; 255];
        let s = Subject {
            path: &name,
            base: 0,
            is_dir: false,
            bytes: ByteSet::of(b"ab"),
        };
        let mut meter = Meter::new(Some(Instant::now()), None);
        let mut states = States::default();
        let mut stopped = 0;
        for _ in 0..10_000 {
            if rule.matches(&s, &mut states, &mut meter).is_err() {
                stopped += 1;
            }
        }
        assert_eq!(meter.halted(), Some(Halt::Deadline));
        assert!(
            stopped > 9_000,
            "once stopped, every later match stops at once"
        );
        assert!(
            meter.steps() <= IGNORE_STEPS_PER_CHECK + 64,
            "stopped within one check: {} steps",
            meter.steps()
        );
    }

    #[test]
    fn a_cancel_stops_the_match() {
        let token = CancelToken::default();
        token.cancel();
        let mut meter = Meter::new(None, Some(&token));
        let rule = Pattern::parse(b"*x*");
        let name = vec![b'y'; 200];
        let s = Subject {
            path: &name,
            base: 0,
            is_dir: false,
            bytes: ByteSet::of(b"xy"),
        };
        let mut states = States::default();
        let stopped = (0..10_000).find_map(|_| rule.matches(&s, &mut states, &mut meter).err());
        assert_eq!(stopped, Some(Halt::Cancelled));
    }
}
