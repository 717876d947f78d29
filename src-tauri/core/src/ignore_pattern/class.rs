//! Wildmatch's bracket expression (`[...]`), read as `wildmatch.c` reads
//! it: ranges, `\` escapes, `[:class:]` names in git's own ctype, and `None`
//! wherever wildmatch would give up on the whole pattern.

use super::byte_set::ByteSet;

/// The class that starts at `p[at]` (just after its `[`), as wildmatch
/// reads it, and the index just after its `]`; `None` when wildmatch would
/// give up on the pattern (no `]`, a `\` at the end, an unknown `[:name:]`).
/// `pathname`: a class never matches `/`.
pub(super) fn parse_class(p: &[u8], at: usize, pathname: bool) -> Option<(ByteSet, usize)> {
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
