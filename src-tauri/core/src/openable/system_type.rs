//! The type the system reads from a file's content (what `xdg-open` goes
//! by) against the family its name promises: of the same family, and never
//! one of [`REFUSED_TYPES`], whose programs run what they read.

use super::not_openable;
use super::table::{Family, Openable, OPENABLE};
use crate::error::CanopyError;

/// Types the system may read from a file's content that are refused whatever
/// the file is called: each opens in a program that runs what it reads
/// (PostScript is a language; HTML, XHTML, SVG and XML open in a browser or a
/// web view, with script; RTF embeds OLE objects; scripts run).
pub const REFUSED_TYPES: &[(&str, &str)] = &[
    ("application/postscript", "a PostScript program"),
    ("application/x-postscript", "a PostScript program"),
    ("application/eps", "a PostScript program"),
    ("application/x-eps", "a PostScript program"),
    ("image/eps", "a PostScript program"),
    ("image/x-eps", "a PostScript program"),
    ("text/html", "a web page"),
    ("application/xhtml+xml", "a web page (XHTML)"),
    ("application/vnd.wap.xhtml+xml", "a web page (XHTML)"),
    ("image/svg+xml", "an SVG image"),
    ("image/svg+xml-compressed", "an SVG image"),
    ("text/xml", "an XML document"),
    ("application/xml", "an XML document"),
    ("text/rtf", "an RTF document"),
    ("application/rtf", "an RTF document"),
    ("text/javascript", "a script"),
    ("application/javascript", "a script"),
    ("text/ecmascript", "a script"),
    ("text/vbscript", "a script"),
    ("text/x-shellscript", "a script"),
    ("application/x-shellscript", "a script"),
];

/// Whether `mime` (lowercase, no parameters) is a type of `family`: one its
/// rows name, or for text any `text/` type (source code reads as
/// `text/x-c` and the like) that is not refused.
pub fn family_has_type(family: Family, mime: &str) -> bool {
    if REFUSED_TYPES.iter().any(|(t, _)| *t == mime) {
        return false;
    }
    OPENABLE
        .iter()
        .any(|r| r.family == family && r.mime.contains(&mime))
        || (family == Family::Text && mime.starts_with("text/"))
}

/// Whether `mime` is a type of one of the allowlist's families.
pub fn is_allowed_type(mime: &str) -> bool {
    [
        Family::Document,
        Family::Image,
        Family::Audio,
        Family::Video,
        Family::Text,
        Family::Archive,
    ]
    .into_iter()
    .any(|f| family_has_type(f, &mime.to_ascii_lowercase()))
}

fn family_words(family: Family) -> &'static str {
    match family {
        Family::Document => "a document",
        Family::Image => "an image",
        Family::Audio => "audio",
        Family::Video => "a video",
        Family::Text => "plain text",
        Family::Archive => "an archive",
    }
}

/// Checks the type the system reads from the file's content (what
/// `xdg-open` goes by) against the family its name promises.
///
/// # Errors
/// `NOT_OPENABLE` for a refused type, or one of another family.
pub fn check_system_type(rule: &Openable, mime: &str) -> Result<(), CanopyError> {
    let mime = mime.to_ascii_lowercase();
    if let Some((_, what)) = REFUSED_TYPES.iter().find(|(t, _)| *t == mime) {
        return Err(not_openable(format!(
            "the system reads its content as {mime}, {what}"
        )));
    }
    if !family_has_type(rule.family, &mime) {
        return Err(not_openable(format!(
            "the system reads its content as {mime}, which is not {} as its name says",
            family_words(rule.family)
        )));
    }
    Ok(())
}
