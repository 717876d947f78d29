//! An ignore file's text cut into rules as git cuts it
//! (`add_patterns_from_buffer`): byte order mark, `\r\n`, comments, NUL
//! bytes and trailing spaces.

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
