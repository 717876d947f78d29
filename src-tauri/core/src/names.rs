//! Names are bytes until they meet a human.
//!
//! Inside the engine a name is an `OsStr`. At the wire it becomes two things:
//! a [`DisplayName`] for people (lossy, flagged when lossy, with the characters
//! that could forge or disguise text marked as escapes) and a *handle*, an opaque
//! base64url string that decodes to the exact path bytes, so a folder whose name
//! is not UTF-8 can still be listed and previewed.
#![forbid(unsafe_code)]

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use std::ffi::OsStr;
use std::fmt::Write as _;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};

use crate::error::CanopyError;
pub use crate::wire::NamePart;

/// Encodes a path as a handle. The handle round-trips the exact bytes.
pub fn encode_handle(path: &Path) -> String {
    URL_SAFE_NO_PAD.encode(path.as_os_str().as_bytes())
}

/// Decodes a handle issued by [`encode_handle`].
///
/// # Errors
/// `INVALID_ARGUMENT` when the text is not base64url, is empty, or decodes to
/// bytes containing NUL (no real path does).
pub fn decode_handle(handle: &str) -> Result<PathBuf, CanopyError> {
    let bytes = URL_SAFE_NO_PAD
        .decode(handle.as_bytes())
        .map_err(|_| CanopyError::invalid("the handle is not one Canopy issued (not base64url)"))?;
    if bytes.is_empty() || bytes.contains(&0) {
        return Err(CanopyError::invalid("the handle does not decode to a path"));
    }
    Ok(PathBuf::from(std::ffi::OsString::from_vec(bytes)))
}

/// A name prepared for display.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DisplayName {
    /// The name with invalid UTF-8 replaced by U+FFFD.
    pub text: String,
    /// True when bytes were replaced in `text`.
    pub lossy: bool,
    /// Present only when the name holds something that is shown as an escape.
    pub parts: Option<Vec<NamePart>>,
}

/// Unicode categories Zl, Zp and Cf (Unicode 16.0), as inclusive ranges in
/// order: line and paragraph separators, and format characters (bidi
/// controls, zero-width characters, the soft hyphen, tags, ...), which are
/// invisible or move the text around them. A test checks the table against
/// a Unicode-data crate.
const SEPARATORS_AND_FORMAT: &[(u32, u32)] = &[
    (0x00ad, 0x00ad),
    (0x0600, 0x0605),
    (0x061c, 0x061c),
    (0x06dd, 0x06dd),
    (0x070f, 0x070f),
    (0x0890, 0x0891),
    (0x08e2, 0x08e2),
    (0x180e, 0x180e),
    (0x200b, 0x200f),
    (0x2028, 0x202e),
    (0x2060, 0x2064),
    (0x2066, 0x206f),
    (0xfeff, 0xfeff),
    (0xfff9, 0xfffb),
    (0x110bd, 0x110bd),
    (0x110cd, 0x110cd),
    (0x13430, 0x1343f),
    (0x1bca0, 0x1bca3),
    (0x1d173, 0x1d17a),
    (0xe0001, 0xe0001),
    (0xe0020, 0xe007f),
];

/// Letters that render as blank space (Hangul fillers, the Halfwidth
/// Hangul filler): a name of them looks empty.
const FILLERS: &[u32] = &[0x115f, 0x1160, 0x3164, 0xffa0];

/// The whole tag block, its unassigned code points included.
const TAGS: std::ops::RangeInclusive<u32> = 0xe0000..=0xe007f;

/// True for characters that are never shown raw: C0/C1 controls and DEL
/// (category Cc), line and paragraph separators (Zl, Zp), format characters
/// (Cf: bidi controls, zero-width characters, tags, ...), and the blank fillers.
pub fn is_escaped_char(c: char) -> bool {
    let cp = c as u32;
    if cp < 0xa0 {
        return !(0x20..0x7f).contains(&cp);
    }
    if cp < 0xad {
        return false;
    }
    FILLERS.contains(&cp)
        || TAGS.contains(&cp)
        || SEPARATORS_AND_FORMAT
            .binary_search_by(|&(lo, hi)| {
                if hi < cp {
                    std::cmp::Ordering::Less
                } else if lo > cp {
                    std::cmp::Ordering::Greater
                } else {
                    std::cmp::Ordering::Equal
                }
            })
            .is_ok()
}

pub(crate) fn escape_char(c: char, out: &mut String) {
    match c {
        '\n' => out.push_str("\\n"),
        '\t' => out.push_str("\\t"),
        '\r' => out.push_str("\\r"),
        _ => {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        }
    }
}

impl DisplayName {
    /// Prepares raw name bytes for display.
    pub fn new(raw: &[u8]) -> Self {
        Self::escaping(raw, is_escaped_char)
    }

    /// Prepares an entry's name for display: as [`DisplayName::new`], and a
    /// `/` (which only an archive entry's raw, unsafe name holds) is escaped
    /// too, so a name never reads as a path.
    pub fn entry_name(raw: &[u8]) -> Self {
        Self::escaping(raw, |c| c == '/' || is_escaped_char(c))
    }

    fn escaping(raw: &[u8], escaped: fn(char) -> bool) -> Self {
        let mut text = String::with_capacity(raw.len());
        let mut lossy = false;
        let mut needs_parts = false;
        for chunk in raw.utf8_chunks() {
            text.push_str(chunk.valid());
            needs_parts |= chunk.valid().chars().any(escaped);
            if !chunk.invalid().is_empty() {
                lossy = true;
                needs_parts = true;
                text.push(char::REPLACEMENT_CHARACTER);
            }
        }
        let parts = needs_parts.then(|| parts_of(raw, escaped));
        DisplayName { text, lossy, parts }
    }

    pub fn of(name: &OsStr) -> Self {
        Self::new(name.as_bytes())
    }
}

fn parts_of(raw: &[u8], escaped: fn(char) -> bool) -> Vec<NamePart> {
    let mut parts = Vec::new();
    let mut text = String::new();
    let flush = |text: &mut String, parts: &mut Vec<NamePart>| {
        if !text.is_empty() {
            parts.push(NamePart::Text(std::mem::take(text)));
        }
    };
    for chunk in raw.utf8_chunks() {
        for c in chunk.valid().chars() {
            if escaped(c) {
                flush(&mut text, &mut parts);
                let mut e = String::new();
                escape_char(c, &mut e);
                parts.push(NamePart::Escape(e));
            } else {
                text.push(c);
            }
        }
        if !chunk.invalid().is_empty() {
            flush(&mut text, &mut parts);
            let mut e = String::new();
            for b in chunk.invalid() {
                let _ = write!(e, "\\x{b:02x}");
            }
            parts.push(NamePart::Escape(e));
        }
    }
    flush(&mut text, &mut parts);
    parts
}

/// The one-line escaped form used by `canopy-list`'s text mode: `\` doubled,
/// `\n` `\t` `\r`, `\u{202e}` for other escaped characters, `\xff` for bytes
/// that are not UTF-8, and the two guards of [`guard_line_field`]. No name
/// can forge a line, hide its direction, or pass for Canopy's own ` -> ` and
/// ` (dangling)`.
pub fn escape_for_line(raw: &[u8]) -> String {
    let mut out = String::with_capacity(raw.len());
    for chunk in raw.utf8_chunks() {
        for c in chunk.valid().chars() {
            if c == '\\' {
                out.push_str("\\\\");
            } else if is_escaped_char(c) {
                escape_char(c, &mut out);
            } else {
                out.push(c);
            }
        }
        for b in chunk.invalid() {
            let _ = write!(out, "\\x{b:02x}");
        }
    }
    guard_line_field(&mut out, 0);
    out
}

/// The bytes an escaped line field stands for: the inverse of
/// [`escape_for_line`], so a name or path copied from `canopy-list`'s text
/// (or `canopy-mcp`'s) reaches the exact entry it was printed for.
///
/// `\\` is a backslash; `\n`, `\t`, `\r` those controls; `\u{HEX}` the
/// character (one to six hex digits); `\xHH` the byte. Every other
/// character, `/` included, stands for itself, so a whole escaped path
/// unescapes at once.
///
/// # Errors
/// `INVALID_ARGUMENT` for a backslash that does not start one of these
/// escapes (a backslash itself is written `\\`), a `\u{...}` that is not a
/// character, or a NUL (no name or path holds one).
pub fn unescape_line(text: &str) -> Result<Vec<u8>, CanopyError> {
    let bad = |what: String| {
        CanopyError::invalid(format!("{what} in {text:?}: escapes are \\\\ \\n \\t \\r \\u{{HEX}} \\xHH (a backslash itself is \\\\)"))
    };
    let mut out = Vec::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('\\') {
        out.extend_from_slice(&rest.as_bytes()[..at]);
        let after = &rest[at + 1..];
        let (bytes, used): (Vec<u8>, usize) = match after.as_bytes().first() {
            Some(b'\\') => (vec![b'\\'], 1),
            Some(b'n') => (vec![b'\n'], 1),
            Some(b't') => (vec![b'\t'], 1),
            Some(b'r') => (vec![b'\r'], 1),
            Some(b'c') if after.starts_with("cut{") => {
                let n = after[4..].split('}').next().unwrap_or("?");
                return Err(CanopyError::invalid(format!(
                    "this path was cut in the text it was copied from ({n} bytes of it left out), \
                     so it names no entry; the listing's JSON carries each entry's whole handle"
                )));
            }
            Some(b'x') => {
                let hex = after
                    .get(1..3)
                    .filter(|h| h.bytes().all(|b| b.is_ascii_hexdigit()));
                let hex = hex.ok_or_else(|| bad("\\x needs two hex digits".into()))?;
                (
                    vec![u8::from_str_radix(hex, 16).map_err(|_| bad("bad \\x escape".into()))?],
                    3,
                )
            }
            Some(b'u') => {
                let body = after
                    .strip_prefix("u{")
                    .ok_or_else(|| bad("\\u needs {HEX}".into()))?;
                let end = body
                    .find('}')
                    .ok_or_else(|| bad("\\u{ is not closed".into()))?;
                let hex = &body[..end];
                let ok = (1..=6).contains(&hex.len()) && hex.bytes().all(|b| b.is_ascii_hexdigit());
                let c = u32::from_str_radix(hex, 16)
                    .ok()
                    .filter(|_| ok)
                    .and_then(char::from_u32);
                let c = c.ok_or_else(|| bad(format!("\\u{{{hex}}} is not a character")))?;
                (c.to_string().into_bytes(), 2 + end + 1)
            }
            Some(_) => {
                let c = after.chars().next().unwrap_or('\\');
                return Err(bad(format!("unknown escape \\{c}")));
            }
            None => return Err(bad("a trailing backslash".into())),
        };
        out.extend_from_slice(&bytes);
        rest = &after[used..];
    }
    out.extend_from_slice(rest.as_bytes());
    if out.contains(&0) {
        return Err(CanopyError::invalid(
            "a name or path never holds a NUL byte",
        ));
    }
    Ok(out)
}

/// The longest `\cut{N}` marker (N up to 20 digits).
const CUT_MARKER_MAX: usize = "\\cut{}".len() + 20;

/// The escaped line field `field` (a path, a link's target) cut in its
/// middle to at most `max` bytes when longer: its head and tail are kept
/// whole (never an escape or a character split), and `\cut{N}` between them
/// says how many bytes of the escaped text were left out. A backslash in a
/// name is always written `\\`, so the marker comes only from here, and
/// [`unescape_line`] refuses it (a cut path names no entry).
pub fn cut_line_field(field: &str, max: usize) -> std::borrow::Cow<'_, str> {
    if field.len() <= max {
        return std::borrow::Cow::Borrowed(field);
    }
    let room = max.saturating_sub(CUT_MARKER_MAX);
    let head_goal = room / 2;
    let tail_goal = field.len() - (room - head_goal);
    // The last token boundary at or before the head's goal, and the first at
    // or after the tail's.
    let (mut head_end, mut tail_start) = (0, field.len());
    let bytes = field.as_bytes();
    let mut at = 0;
    while at < field.len() {
        let len = if bytes[at] == b'\\' {
            match bytes.get(at + 1) {
                Some(b'x') => 4,
                Some(b'u') => field[at..].find('}').map_or(2, |end| end + 1),
                _ => 2,
            }
        } else {
            field[at..].chars().next().map_or(1, char::len_utf8)
        };
        let next = (at + len).min(field.len());
        if next <= head_goal {
            head_end = next;
        }
        if at >= tail_goal {
            tail_start = at;
            break;
        }
        at = next;
    }
    let left_out = tail_start - head_end;
    std::borrow::Cow::Owned(format!(
        "{}\\cut{{{left_out}}}{}",
        &field[..head_end],
        &field[tail_start..]
    ))
}

/// The notes Canopy writes after a link's target in text mode.
pub const LINK_NOTES: [&str; 4] = [
    " (dangling)",
    " (loop)",
    " (unchecked)",
    " (outside the roots)",
];

/// Applies text mode's two guards to the escaped field (a name, or a link's
/// target) that `out` holds from `start` on:
/// - a `>` that follows ` -`, or follows a `-` that starts the field, is
///   written `\u{3e}`, so ` -> ` only ever separates a link from its target;
/// - the `(` of a trailing ` (dangling)`, ` (loop)`, ` (unchecked)` or
///   ` (outside the roots)` is
///   written `\u{28}`, so those notes only ever come from Canopy.
///
/// `-`, `>`, `(` and space are never escaped otherwise, so the escaped field
/// holds these patterns exactly where the raw name does.
pub fn guard_line_field(out: &mut String, start: usize) {
    if out[start..].contains('>') {
        let mut guarded = String::with_capacity(out.len() - start + 6);
        let field = &out.as_bytes()[start..];
        for (i, ch) in out[start..].char_indices() {
            let after_dash = i >= 1 && field[i - 1] == b'-' && (i == 1 || field[i - 2] == b' ');
            if ch == '>' && after_dash {
                guarded.push_str("\\u{3e}");
            } else {
                guarded.push(ch);
            }
        }
        out.truncate(start);
        out.push_str(&guarded);
    }
    if out.ends_with(')') {
        if let Some(note) = LINK_NOTES.iter().find(|n| out[start..].ends_with(*n)) {
            let paren = out.len() - note.len() + 1;
            out.replace_range(paren..paren + 1, "\\u{28}");
        } else if let Some(at) = size_suffix_at(&out[start..]) {
            let paren = start + at + 1;
            out.replace_range(paren..paren + 1, "\\u{28}");
        }
    }
}

/// Units of the sizes `canopy-list --sizes` prints (`human_bytes` in `text`).
pub const SIZE_UNITS: [&str; 7] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];

/// Where a trailing size like the one `canopy-list --sizes` prints begins
/// in `text` (the index of its ` (`): ` (1.52 GiB)`, ` (≥ 12 B)`,
/// ` (another disk)`. A name ending like that has its `(` escaped, so the
/// size on a folder's line is always Canopy's own.
pub fn size_suffix_at(text: &str) -> Option<usize> {
    let body = text.strip_suffix(')')?;
    let open = body.rfind(" (")?;
    let inner = &body[open + 2..];
    if inner == "another disk" {
        return Some(open);
    }
    let inner = inner.strip_prefix("≥ ").unwrap_or(inner);
    let (number, unit) = inner.split_once(' ')?;
    let (whole, hundredths) = match number.split_once('.') {
        Some((w, h)) => (w, Some(h)),
        None => (number, None),
    };
    let digits = |d: &str| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit());
    let shaped = digits(whole) && hundredths.is_none_or(|h| h.len() == 2 && digits(h));
    (shaped && SIZE_UNITS.contains(&unit)).then_some(open)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handle_round_trips_invalid_utf8() {
        let raw = PathBuf::from(std::ffi::OsString::from_vec(b"/tmp/caf\xe9/\xff".to_vec()));
        let handle = encode_handle(&raw);
        assert!(handle
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'));
        assert_eq!(
            decode_handle(&handle).unwrap(),
            raw,
            "a handle must decode to the exact bytes"
        );
    }

    #[test]
    fn bad_handles_are_invalid_argument() {
        for bad in ["", "not base64!", "AA"] {
            let err = decode_handle(bad).unwrap_err();
            assert_eq!(err.code, crate::ErrorCode::InvalidArgument, "{bad:?}");
        }
    }

    #[test]
    fn every_escape_in_line_form() {
        let cases: &[(&[u8], &str)] = &[
            (b"a\\b", "a\\\\b"),
            (b"new\nline", "new\\nline"),
            (b"tab\there", "tab\\there"),
            (b"cr\rx", "cr\\rx"),
            (b"esc\x1bx", "esc\\u{1b}x"),
            (b"del\x7f", "del\\u{7f}"),
            ("c1\u{85}".as_bytes(), "c1\\u{85}"),
            (
                "invoice\u{202e}txt.exe".as_bytes(),
                "invoice\\u{202e}txt.exe",
            ),
            ("alm\u{061c}".as_bytes(), "alm\\u{61c}"),
            ("iso\u{2066}\u{2069}".as_bytes(), "iso\\u{2066}\\u{2069}"),
            (
                "zw\u{200b}\u{200d}\u{2060}\u{feff}".as_bytes(),
                "zw\\u{200b}\\u{200d}\\u{2060}\\u{feff}",
            ),
            ("lrm\u{200e}".as_bytes(), "lrm\\u{200e}"),
            (b"bad\xff\xfe", "bad\\xff\\xfe"),
            (
                b"evil -> safe -> /etc/shadow",
                "evil -\\u{3e} safe -\\u{3e} /etc/shadow",
            ),
            (b"-> start", "-\\u{3e} start"),
            (b"a->b a- >c", "a->b a- >c"),
            (b"file (dangling)", "file \\u{28}dangling)"),
            (b"x (loop)", "x \\u{28}loop)"),
            (b"y (unchecked)", "y \\u{28}unchecked)"),
            (b"w (outside the roots)", "w \\u{28}outside the roots)"),
            (b"(dangling) z", "(dangling) z"),
            (b"z(loop)", "z(loop)"),
            (
                "line\u{2028}para\u{2029}".as_bytes(),
                "line\\u{2028}para\\u{2029}",
            ),
            ("soft\u{ad}hy".as_bytes(), "soft\\u{ad}hy"),
            (
                "fill\u{115f}\u{1160}\u{3164}\u{ffa0}\u{180e}".as_bytes(),
                "fill\\u{115f}\\u{1160}\\u{3164}\\u{ffa0}\\u{180e}",
            ),
            (
                "tag\u{e0000}\u{e0041}\u{e007f}".as_bytes(),
                "tag\\u{e0000}\\u{e0041}\\u{e007f}",
            ),
            ("arabic\u{600}\u{8e2}".as_bytes(), "arabic\\u{600}\\u{8e2}"),
            ("caf\u{e9} ok".as_bytes(), "caf\u{e9} ok"),
        ];
        for (raw, want) in cases {
            assert_eq!(escape_for_line(raw), *want, "escaping {raw:?}");
        }
    }

    #[test]
    fn unescape_reads_every_escape_back() {
        let cases: &[(&str, &[u8])] = &[
            ("plain/path.txt", b"plain/path.txt"),
            ("a\\\\b", b"a\\b"),
            ("new\\nline\\ttab\\rcr", b"new\nline\ttab\rcr"),
            ("bad\\xff\\xFE", b"bad\xff\xfe"),
            ("bidi\\u{202e}x", "bidi\u{202e}x".as_bytes()),
            ("evil -\\u{3e} x", b"evil -> x"),
            ("f \\u{28}dangling)", b"f (dangling)"),
            ("big\\u{10ffff}", "big\u{10ffff}".as_bytes()),
            ("caf\u{e9}", "caf\u{e9}".as_bytes()),
        ];
        for (text, want) in cases {
            assert_eq!(unescape_line(text).unwrap(), *want, "unescaping {text:?}");
        }
    }

    #[test]
    fn unescape_refuses_what_escaping_never_writes() {
        for bad in [
            "a\\",
            "a\\q",
            "\\x4",
            "\\xzz",
            "\\u202e",
            "\\u{}",
            "\\u{110000}",
            "\\u{d800}",
            "\\u{1234567}",
            "\\u{12",
            "\\x00",
            "nul\0",
        ] {
            let err = unescape_line(bad).unwrap_err();
            assert_eq!(err.code, crate::ErrorCode::InvalidArgument, "{bad:?}");
        }
        assert!(
            unescape_line("a\\q").unwrap_err().message.contains("\\\\"),
            "the message says how to write a backslash"
        );
    }

    #[test]
    fn a_cut_field_keeps_whole_escapes_and_reads_back_as_no_path() {
        let field = escape_for_line(&[1u8; 10_000]);
        let cut = cut_line_field(&field, 1_000);
        assert!(cut.len() <= 1_000, "{} bytes", cut.len());
        let (head, rest) = cut.split_once("\\cut{").unwrap();
        let (n, tail) = rest.split_once('}').unwrap();
        assert!(
            head.ends_with("\\u{1}") && tail.starts_with("\\u{1}"),
            "no escape split"
        );
        assert_eq!(
            head.len() + n.parse::<usize>().unwrap() + tail.len(),
            field.len()
        );
        let err = unescape_line(&cut).unwrap_err();
        assert!(err.message.contains("was cut"), "{}", err.message);
        assert_eq!(
            cut_line_field("short", 1_000),
            "short",
            "a short field is whole"
        );
    }

    proptest::proptest! {
        #[test]
        fn unescape_inverts_escape_for_line(raw in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..40),
                                             text in "\\PC{0,12}[\\\\\u{202e}\u{2028}\n -> ()]{0,6}") {
            let raw: Vec<u8> = raw.into_iter().filter(|&b| b != 0).collect();
            proptest::prop_assert_eq!(unescape_line(&escape_for_line(&raw)).unwrap(), raw.clone());
            let mixed = [text.as_bytes(), &raw].concat();
            proptest::prop_assert_eq!(unescape_line(&escape_for_line(&mixed)).unwrap(), mixed);
        }
    }

    #[test]
    fn display_name_marks_escapes_and_lossy_bytes() {
        let plain = DisplayName::new(b"notes.txt");
        assert_eq!(
            plain,
            DisplayName {
                text: "notes.txt".into(),
                lossy: false,
                parts: None
            }
        );

        let bidi = DisplayName::new("invoice\u{202e}txt.exe".as_bytes());
        assert!(!bidi.lossy);
        assert_eq!(
            bidi.parts.unwrap(),
            vec![
                NamePart::Text("invoice".into()),
                NamePart::Escape("\\u{202e}".into()),
                NamePart::Text("txt.exe".into())
            ]
        );

        let bad = DisplayName::new(b"caf\xe9");
        assert!(bad.lossy, "replaced bytes must be flagged");
        assert_eq!(bad.text, "caf\u{fffd}");
        assert_eq!(
            bad.parts.unwrap(),
            vec![
                NamePart::Text("caf".into()),
                NamePart::Escape("\\xe9".into())
            ]
        );
    }

    #[test]
    fn the_escaped_set_is_exactly_cc_cf_zl_zp_the_fillers_and_the_tag_block() {
        use unicode_general_category::{get_general_category, GeneralCategory as G};
        for c in (0..=0x10ffffu32).filter_map(char::from_u32) {
            let by_category = matches!(
                get_general_category(c),
                G::Control | G::Format | G::LineSeparator | G::ParagraphSeparator
            );
            let want = by_category || FILLERS.contains(&(c as u32)) || TAGS.contains(&(c as u32));
            assert_eq!(
                is_escaped_char(c),
                want,
                "U+{:04X} ({:?})",
                c as u32,
                get_general_category(c)
            );
        }
    }
}
