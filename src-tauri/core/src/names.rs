//! Names are bytes until they meet a human.
//!
//! Inside the engine a name is an `OsStr`. At the wire it becomes two things:
//! a [`DisplayName`] for people (lossy, flagged when lossy, with the characters
//! that could forge or disguise text marked as escapes) and a *handle*, an opaque
//! base64url string that decodes to the exact path bytes, so a folder whose name
//! is not UTF-8 can still be listed and previewed.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use serde::Serialize;
use std::ffi::OsStr;
use std::fmt::Write as _;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};
use ts_rs::TS;

use crate::error::CanopyError;

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

/// One run of a name as shown to a person: plain text, or an escape marker
/// standing for a character or byte that must not be shown raw.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub enum NamePart {
    Text(String),
    Escape(String),
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

/// True for characters that are never shown raw: C0/C1 controls and DEL,
/// bidi controls, and zero-width characters.
pub fn is_escaped_char(c: char) -> bool {
    matches!(c,
        '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}'
        | '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
        | '\u{200b}'..='\u{200d}' | '\u{2060}' | '\u{feff}')
}

fn escape_char(c: char, out: &mut String) {
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
        let mut text = String::with_capacity(raw.len());
        let mut lossy = false;
        let mut needs_parts = false;
        for chunk in raw.utf8_chunks() {
            text.push_str(chunk.valid());
            needs_parts |= chunk.valid().chars().any(is_escaped_char);
            if !chunk.invalid().is_empty() {
                lossy = true;
                needs_parts = true;
                text.push(char::REPLACEMENT_CHARACTER);
            }
        }
        let parts = needs_parts.then(|| parts_of(raw));
        DisplayName { text, lossy, parts }
    }

    pub fn of(name: &OsStr) -> Self {
        Self::new(name.as_bytes())
    }
}

fn parts_of(raw: &[u8]) -> Vec<NamePart> {
    let mut parts = Vec::new();
    let mut text = String::new();
    let flush = |text: &mut String, parts: &mut Vec<NamePart>| {
        if !text.is_empty() {
            parts.push(NamePart::Text(std::mem::take(text)));
        }
    };
    for chunk in raw.utf8_chunks() {
        for c in chunk.valid().chars() {
            if is_escaped_char(c) {
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
/// that are not UTF-8. No name can forge a line or hide its direction.
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
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handle_round_trips_invalid_utf8() {
        let raw = PathBuf::from(std::ffi::OsString::from_vec(b"/tmp/caf\xe9/\xff".to_vec()));
        let handle = encode_handle(&raw);
        assert!(handle.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'));
        assert_eq!(decode_handle(&handle).unwrap(), raw, "a handle must decode to the exact bytes");
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
            ("invoice\u{202e}txt.exe".as_bytes(), "invoice\\u{202e}txt.exe"),
            ("alm\u{061c}".as_bytes(), "alm\\u{61c}"),
            ("iso\u{2066}\u{2069}".as_bytes(), "iso\\u{2066}\\u{2069}"),
            ("zw\u{200b}\u{200d}\u{2060}\u{feff}".as_bytes(), "zw\\u{200b}\\u{200d}\\u{2060}\\u{feff}"),
            ("lrm\u{200e}".as_bytes(), "lrm\\u{200e}"),
            (b"bad\xff\xfe", "bad\\xff\\xfe"),
            ("caf\u{e9} ok".as_bytes(), "caf\u{e9} ok"),
        ];
        for (raw, want) in cases {
            assert_eq!(escape_for_line(raw), *want, "escaping {raw:?}");
        }
    }

    #[test]
    fn display_name_marks_escapes_and_lossy_bytes() {
        let plain = DisplayName::new(b"notes.txt");
        assert_eq!(plain, DisplayName { text: "notes.txt".into(), lossy: false, parts: None });

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
        assert_eq!(bad.parts.unwrap(), vec![NamePart::Text("caf".into()), NamePart::Escape("\\xe9".into())]);
    }
}
