//! A glob in wildmatch's language, compiled to tokens and matched without
//! backtracking: as a set of positions (an automaton), or, when all its stars
//! may match any bytes, piece by piece with each piece at its leftmost
//! place. Either way a match costs at most (tokens + 2) x (bytes + 1) steps,
//! each counted on the [`Meter`].

use super::byte_set::ByteSet;
use super::class::parse_class;
use super::meter::{Halt, Meter};

/// One step of a glob.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Token {
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
pub(super) struct Glob {
    pub(super) tokens: Box<[Token]>,
    pub(super) classes: Box<[ByteSet]>,
    /// Bytes every text it matches holds (its `Byte` tokens): a text
    /// without one of them is refused without running the automaton.
    pub(super) needs: ByteSet,
    /// Those bytes in the glob's order: a text that does not hold them in
    /// that order (one scan) is refused too.
    pub(super) sequence: Box<[u8]>,
    /// Every star may match any bytes (no `/` limit, no `**/`): then each
    /// piece between stars is best placed as far left as it fits, and the
    /// glob is matched piece by piece, without the automaton.
    pub(super) greedy: bool,
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
    pub(super) fn matches(
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
    pub(super) fn matches_greedy(&self, text: &[u8], meter: &mut Meter<'_>) -> Result<bool, Halt> {
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
    pub(super) fn matches_automaton(
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

/// Compiles `p` as wildmatch reads it (`pathname`: git's `WM_PATHNAME`, `*`
/// and `?` stop at `/`); `None` when wildmatch would match nothing with it.
pub(super) fn compile(p: &[u8], pathname: bool) -> Option<Glob> {
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
