//! Entry names inside archives: untrusted bytes that must never climb out
//! of the archive or merge with a sibling, and the legacy encodings zip
//! writers used before UTF-8.
#![forbid(unsafe_code)]

/// Why an entry's path cannot be placed in the archive's tree, if it cannot:
/// `..`, `.`, an empty segment, a leading `/`, a drive letter, a backslash
/// or a NUL byte. `path` is the entry's whole path with at most one
/// trailing `/` (a folder's mark) already taken off.
pub(crate) fn unsafe_reason(path: &[u8]) -> Option<&'static str> {
    if path.is_empty() {
        return Some("the entry has an empty name");
    }
    if path[0] == b'/' {
        return Some("the name starts with / (an absolute path)");
    }
    if path.len() >= 2 && path[1] == b':' && path[0].is_ascii_alphabetic() {
        return Some("the name starts with a drive letter");
    }
    if path.contains(&b'\\') {
        return Some("the name holds a backslash (a folder separator on Windows)");
    }
    if path.contains(&0) {
        return Some("the name holds a NUL byte");
    }
    for segment in path.split(|&b| b == b'/') {
        match segment {
            b"" => return Some("the name has an empty segment (//)"),
            b"." => return Some("the name has a . segment"),
            b".." => return Some("the name has a .. segment (it would climb out of the archive)"),
            _ => {}
        }
    }
    None
}

/// Code page 437's characters 0x80..=0xFF: what a zip entry's name means
/// when the writer did not set the UTF-8 flag (APPNOTE 4.4.4, appendix D).
const CP437_HIGH: [char; 128] = [
    'Ç', 'ü', 'é', 'â', 'ä', 'à', 'å', 'ç', 'ê', 'ë', 'è', 'ï', 'î', 'ì', 'Ä', 'Å', //
    'É', 'æ', 'Æ', 'ô', 'ö', 'ò', 'û', 'ù', 'ÿ', 'Ö', 'Ü', '¢', '£', '¥', '₧', 'ƒ', //
    'á', 'í', 'ó', 'ú', 'ñ', 'Ñ', 'ª', 'º', '¿', '⌐', '¬', '½', '¼', '¡', '«', '»', //
    '░', '▒', '▓', '│', '┤', '╡', '╢', '╖', '╕', '╣', '║', '╗', '╝', '╜', '╛', '┐', //
    '└', '┴', '┬', '├', '─', '┼', '╞', '╟', '╚', '╔', '╩', '╦', '╠', '═', '╬', '╧', //
    '╨', '╤', '╥', '╙', '╘', '╒', '╓', '╫', '╪', '┘', '┌', '█', '▄', '▌', '▐', '▀', //
    'α', 'ß', 'Γ', 'π', 'Σ', 'σ', 'µ', 'τ', 'Φ', 'Θ', 'Ω', 'δ', '∞', 'φ', 'ε', '∩', //
    '≡', '±', '≥', '≤', '⌠', '⌡', '÷', '≈', '°', '∙', '·', '√', 'ⁿ', '²', '■', '\u{a0}',
];

/// Appends the CP437 bytes `raw` to `out` as UTF-8. ASCII stays as it is
/// (control bytes too: the listing escapes them like any name's).
pub(crate) fn cp437_to_utf8(raw: &[u8], out: &mut Vec<u8>) {
    for &b in raw {
        if b < 0x80 {
            out.push(b);
        } else {
            let mut utf8 = [0u8; 4];
            out.extend_from_slice(
                CP437_HIGH[usize::from(b - 0x80)]
                    .encode_utf8(&mut utf8)
                    .as_bytes(),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_that_would_leave_or_merge_are_unsafe_and_plain_ones_are_not() {
        for bad in [
            &b""[..],
            b"/etc/passwd",
            b"../x",
            b"a/../../x",
            b"a/./b",
            b".",
            b"..",
            b"a//b",
            b"C:/x",
            b"c:x",
            b"a\\b",
            b"a\0b",
        ] {
            assert!(
                unsafe_reason(bad).is_some(),
                "{:?} must be unsafe",
                String::from_utf8_lossy(bad)
            );
        }
        for good in [
            &b"a"[..],
            b"a/b/c.txt",
            b"...",
            b"a/..b",
            b".hidden/x",
            b"1:2",
            b"\xff\xfe",
        ] {
            assert_eq!(
                unsafe_reason(good),
                None,
                "{:?} is an ordinary name",
                String::from_utf8_lossy(good)
            );
        }
    }

    #[test]
    fn cp437_names_decode_to_their_characters() {
        let mut out = Vec::new();
        cp437_to_utf8(b"caf\x82 \x9c5 \xe1", &mut out);
        assert_eq!(String::from_utf8(out).unwrap(), "café £5 ß");
    }
}
