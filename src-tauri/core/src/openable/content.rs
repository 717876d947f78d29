//! A file's first bytes against its row: the row's magic numbers, or UTF-8
//! text without NUL; and, whatever the row, no program, script or shortcut
//! signature and no text a desktop treats as a launcher or a web page.

use super::not_openable;
use super::table::{Content, Openable, Signature};
use crate::error::CanopyError;

/// Content that is a program, script or shortcut whatever the file is called.
const NEVER: &[(&[u8], &str)] = &[
    (b"#!", "a script"),
    (b"\x7fELF", "a program"),
    (b"MZ", "a Windows program"),
    (b"\xca\xfe\xba\xbe", "a Java class or program"),
    (b"L\0\0\0\x01\x14\x02\0", "a Windows shortcut"),
];

/// Text that a desktop treats as a launcher or a web page, whatever its name.
/// Compared after a BOM and leading whitespace, ASCII case ignored.
const NEVER_TEXT: &[(&str, &str)] = &[
    ("[desktop entry]", "a desktop launcher"),
    ("[internetshortcut]", "an Internet shortcut"),
    ("<!doctype html", "a web page"),
    ("<html", "a web page"),
    ("<?xml", "an XML document"),
    ("<svg", "an SVG image"),
    ("<script", "a web page"),
];

fn matches(head: &[u8], sig: Signature) -> bool {
    sig.iter()
        .all(|(at, bytes)| head.get(*at..at + bytes.len()) == Some(*bytes))
}

/// Checks a file's first bytes against its row and the signatures no file
/// may carry. `head` holds up to `OPEN_SNIFF_BYTES`; `whole` says it is the
/// entire file (text may then end anywhere).
///
/// # Errors
/// `NOT_OPENABLE`, saying which rule refused.
pub fn check_content(rule: &Openable, head: &[u8], whole: bool) -> Result<(), CanopyError> {
    for (magic, what) in NEVER {
        if head.starts_with(magic) {
            return Err(not_openable(format!("its content is {what}")));
        }
    }
    let mismatch = || {
        not_openable(format!(
            "its content is not what a .{} file holds",
            rule.extensions[0]
        ))
    };
    match rule.content {
        Content::Magic(sigs) | Content::Zip(sigs, _) | Content::Ooxml(sigs, _) => {
            if !sigs.iter().any(|s| matches(head, s)) {
                return Err(mismatch());
            }
        }
        Content::Text => check_text(head, whole)?,
    }
    Ok(())
}

fn check_text(head: &[u8], whole: bool) -> Result<(), CanopyError> {
    if head.contains(&0) {
        return Err(not_openable("it holds a NUL byte, so it is not text"));
    }
    if let Err(e) = std::str::from_utf8(head) {
        // A character cut by the end of the sniffed bytes is fine.
        if e.error_len().is_some() || whole {
            return Err(not_openable("it is not UTF-8 text"));
        }
    }
    let start = head.strip_prefix(b"\xef\xbb\xbf").unwrap_or(head);
    let start = &start[start
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(start.len())..];
    for (sig, what) in NEVER_TEXT {
        if start.len() >= sig.len() && start[..sig.len()].eq_ignore_ascii_case(sig.as_bytes()) {
            return Err(not_openable(format!("its content is {what}")));
        }
    }
    Ok(())
}
