//! The XDG user folders (`$XDG_CONFIG_HOME/user-dirs.dirs`, as
//! `xdg-user-dirs-update` writes it: `XDG_DOCUMENTS_DIR="$HOME/Documents"`).
#![forbid(unsafe_code)]

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use crate::wire::PlaceKind;

/// The user folders in the sidebar's order, by their key in the file.
const ORDER: &[(&str, PlaceKind)] = &[
    ("DESKTOP", PlaceKind::Desktop),
    ("DOCUMENTS", PlaceKind::Documents),
    ("DOWNLOAD", PlaceKind::Downloads),
    ("MUSIC", PlaceKind::Music),
    ("PICTURES", PlaceKind::Pictures),
    ("VIDEOS", PlaceKind::Videos),
    ("TEMPLATES", PlaceKind::Templates),
    ("PUBLICSHARE", PlaceKind::Public),
];

/// The folders the file names, in the sidebar's order. A value is
/// `"$HOME/rest"` or an absolute path in double quotes (`\"`, `\\`, `\$`
/// and `` \` `` escaped); anything else is ignored, as is a folder that is
/// the home folder itself (the file's way to say "not set up").
pub fn parse(text: &[u8], home: &Path) -> Vec<(PlaceKind, PathBuf)> {
    let mut found: Vec<(usize, PathBuf)> = Vec::new();
    for line in text.split(|&b| b == b'\n') {
        let line = line.trim_ascii();
        let Some(eq) = line.iter().position(|&b| b == b'=') else {
            continue;
        };
        let key = &line[..eq];
        let Some(name) = key
            .strip_prefix(b"XDG_")
            .and_then(|k| k.strip_suffix(b"_DIR"))
        else {
            continue;
        };
        let Some(i) = ORDER.iter().position(|(k, _)| k.as_bytes() == name) else {
            continue;
        };
        let Some(value) = unquote(&line[eq + 1..]) else {
            continue;
        };
        let path = if let Some(rest) = value.strip_prefix(b"$HOME") {
            match rest {
                [] => home.to_path_buf(),
                [b'/', tail @ ..] => home.join(OsStr::from_bytes(tail)),
                _ => continue,
            }
        } else if value.first() == Some(&b'/') {
            PathBuf::from(OsStr::from_bytes(&value))
        } else {
            continue;
        };
        if path.components().eq(home.components()) {
            continue;
        }
        found.retain(|(j, _)| *j != i);
        found.push((i, path));
    }
    found.sort_by_key(|(i, _)| *i);
    found.into_iter().map(|(i, p)| (ORDER[i].1, p)).collect()
}

/// The bytes between double quotes, unescaped; `None` when not quoted.
fn unquote(v: &[u8]) -> Option<Vec<u8>> {
    let inner = v.strip_prefix(b"\"")?.strip_suffix(b"\"")?;
    let mut out = Vec::with_capacity(inner.len());
    let mut it = inner.iter();
    while let Some(&b) = it.next() {
        if b == b'\\' {
            out.push(*it.next()?);
        } else {
            out.push(b);
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_come_in_the_sidebars_order_below_home() {
        let text = b"# written by xdg-user-dirs-update\n\
XDG_MUSIC_DIR=\"$HOME/Music\"\n\
XDG_DESKTOP_DIR=\"$HOME/\"\n\
XDG_DOCUMENTS_DIR=\"$HOME/My \\\"Docs\\\"\"\n\
XDG_DOWNLOAD_DIR=\"/data/downloads\"\n\
XDG_PICTURES_DIR=relative\n\
XDG_FOO_DIR=\"$HOME/foo\"\n";
        let got = parse(text, Path::new("/home/ann"));
        assert_eq!(
            got,
            vec![
                (PlaceKind::Documents, PathBuf::from("/home/ann/My \"Docs\"")),
                (PlaceKind::Downloads, PathBuf::from("/data/downloads")),
                (PlaceKind::Music, PathBuf::from("/home/ann/Music")),
            ],
            "the home folder itself, an unquoted value and an unknown key are left out"
        );
    }

    #[test]
    fn a_key_given_twice_keeps_the_last() {
        let text = b"XDG_VIDEOS_DIR=\"$HOME/a\"\nXDG_VIDEOS_DIR=\"$HOME/b\"\n";
        assert_eq!(
            parse(text, Path::new("/h")),
            vec![(PlaceKind::Videos, PathBuf::from("/h/b"))]
        );
    }
}
