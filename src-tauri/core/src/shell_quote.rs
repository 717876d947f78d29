//! The text "Copy path" puts on the clipboard: the path, written so that
//! pasting it into a shell gives back exactly its bytes and runs nothing.
//!
//! A path made only of characters no shell treats specially is copied as it
//! is. Any other path is quoted with bash's ANSI-C quoting, `$'…'`, in which
//! `\\`, `\'`, `\n`, `\t` and `\xHH` are the only escapes used: a character the
//! names escape (controls, bidi and invisible characters: see
//! [`crate::names::is_escaped_char`]), a byte that is not UTF-8, a shell
//! metacharacter (`;`, `|`, `&`, `$`, `` ` ``, quotes, globs, braces, `!`,
//! ...) or whitespace. Quoting on metacharacters and whitespace too, not only
//! on what the names escape, is deliberate: a path `/tmp/a;reboot` pasted
//! bare runs `reboot`, and one with a space splits into two arguments.
//! `$'…'` is understood by bash, zsh and ksh (and by sh since POSIX.1-2024).
#![forbid(unsafe_code)]

use std::fmt::Write as _;

use crate::error::CanopyError;
use crate::names::{decode_handle, is_escaped_char};
use crate::preview::FileRequest;
pub use crate::wire::CopiedPath;

/// A path as text for the clipboard.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathText {
    pub text: String,
    pub quoted: bool,
}

/// Characters that stand for themselves in every shell position a path can
/// take (it starts with `/`): ASCII letters, digits and `/._-+,:@%=`, and
/// any non-ASCII character the names do not escape.
fn is_plain(c: char) -> bool {
    c.is_ascii_alphanumeric() || "/._-+,:@%=".contains(c) || (!c.is_ascii() && !is_escaped_char(c))
}

/// Writes raw path bytes as clipboard text (see the module docs).
pub fn path_text(raw: &[u8]) -> PathText {
    let plain = !raw.is_empty()
        && raw
            .utf8_chunks()
            .all(|chunk| chunk.invalid().is_empty() && chunk.valid().chars().all(is_plain));
    if plain {
        // All valid UTF-8: checked just above.
        return PathText {
            text: String::from_utf8_lossy(raw).into_owned(),
            quoted: false,
        };
    }
    let mut text = String::with_capacity(raw.len() + 3);
    text.push_str("$'");
    for chunk in raw.utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '\\' => text.push_str("\\\\"),
                '\'' => text.push_str("\\'"),
                '\n' => text.push_str("\\n"),
                '\t' => text.push_str("\\t"),
                c if is_escaped_char(c) => {
                    for b in c.encode_utf8(&mut [0; 4]).bytes() {
                        let _ = write!(text, "\\x{b:02x}");
                    }
                }
                c => text.push(c),
            }
        }
        for b in chunk.invalid() {
            let _ = write!(text, "\\x{b:02x}");
        }
    }
    text.push('\'');
    PathText { text, quoted: true }
}

/// The clipboard text for a handle's path.
///
/// # Errors
/// `INVALID_ARGUMENT` for a bad handle.
pub fn copy_text(req: &FileRequest) -> Result<PathText, CanopyError> {
    let path = decode_handle(&req.handle)?;
    Ok(path_text(std::os::unix::ffi::OsStrExt::as_bytes(
        path.as_os_str(),
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_paths_are_copied_as_they_are() {
        for p in [
            "/home/ana/notes.txt",
            "/srv/data/2024-01-02_report,v2+final@host:8080%x=y",
            "/home/ana/caf\u{e9}/\u{65e5}\u{672c}",
        ] {
            assert_eq!(
                path_text(p.as_bytes()),
                PathText {
                    text: p.into(),
                    quoted: false
                }
            );
        }
    }

    #[test]
    fn escapes_use_only_the_five_forms() {
        let cases: &[(&[u8], &str)] = &[
            (b"/tmp/a\nb;c", r"$'/tmp/a\nb;c'"),
            (b"/tmp/tab\there", r"$'/tmp/tab\there'"),
            (b"/tmp/it's", r"$'/tmp/it\'s'"),
            (b"/tmp/back\\slash", r"$'/tmp/back\\slash'"),
            (b"/tmp/bad\xff", r"$'/tmp/bad\xff'"),
            (b"/tmp/esc\x1b[0m", r"$'/tmp/esc\x1b[0m'"),
            (
                "/tmp/rlo\u{202e}txt".as_bytes(),
                r"$'/tmp/rlo\xe2\x80\xaetxt'",
            ),
            (b"/tmp/two words", r"$'/tmp/two words'"),
            (b"/tmp/$(reboot)", r"$'/tmp/$(reboot)'"),
        ];
        for (raw, want) in cases {
            assert_eq!(
                path_text(raw),
                PathText {
                    text: (*want).into(),
                    quoted: true
                },
                "{raw:?}"
            );
        }
    }
}
