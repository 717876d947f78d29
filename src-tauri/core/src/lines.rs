//! Line-addressed reads: the first or last lines of a text file, or a
//! range of them, through a [`Source`], next to the byte-addressed
//! [`crate::preview`].
//!
//! Promises:
//! - at most `max_bytes` of the file are shown, whatever its lines: a line
//!   longer than that (a 5 MB one-line JSON) is shown up to the cap and the
//!   result says where it was cut (`cut`, and the byte offset to go on from);
//! - a line ends at `\n` (a `\r` before it stays part of the text, as in the
//!   file); a last line without `\n` is a line;
//! - at most `LINE_SCAN_BYTES` are read to find the lines and count them,
//!   on a bounded worker within `TIME_BUDGET` (a dead mount costs `TIMEOUT`);
//!   the file's line count is exact when the whole file was read, else
//!   `at least` the lines seen;
//! - only text in an 8-bit-compatible encoding (UTF-8, Windows-1252) has
//!   lines here: a binary or UTF-16 file is `INVALID_ARGUMENT`, to be read
//!   by bytes.
#![forbid(unsafe_code)]

use std::path::Path;
use std::time::Instant;

use crate::bounded::{self, Place};
use crate::error::{CanopyError, ErrorCode};
use crate::limits::{LINE_SCAN_BYTES, SNIFF_BYTES, TIME_BUDGET};
use crate::preview::{decode, read_at, sniff_encoding};
use crate::source::{Source, SourceFile};
use crate::wire::TextEncoding;

/// Which lines to read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineWindow {
    /// The first N lines.
    Head(u64),
    /// The last N lines.
    Tail(u64),
    /// `count` lines from line `start` (1-based).
    Range { start: u64, count: u64 },
}

/// How many lines the file has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineTotal {
    Exact(u64),
    /// The file was not read to its end (`LINE_SCAN_BYTES`, or its time).
    AtLeast(u64),
}

/// Lines read from a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lines {
    /// The lines as decoded, line ends included.
    pub text: String,
    pub encoding: TextEncoding,
    /// Some bytes did not decode and show as U+FFFD.
    pub lossy: bool,
    /// Number (1-based) of the first line shown; `None` when unknown (a
    /// tail of a file not read to its start) or when no line is shown.
    pub first: Option<u64>,
    /// Lines shown (a line cut by the byte cap counts).
    pub shown: u64,
    /// First byte shown, and bytes shown.
    pub offset: u64,
    pub length: u64,
    /// The file's size in bytes.
    pub size: u64,
    pub total: LineTotal,
    /// The byte cap ended the text before the window did: the rest starts
    /// at byte `offset + length`.
    pub cut: bool,
    /// The file ended at this byte, before the `size` it reports (it shrank
    /// while it was read, or its server's size is wrong): there is nothing
    /// past it to read.
    pub ended_at: Option<u64>,
}

/// Reads the lines `window` names of the regular file at `path`, showing
/// at most `max_bytes`, on a bounded worker.
///
/// # Errors
/// `INVALID_ARGUMENT` for a count of 0, a line 0, a binary or UTF-16 file,
/// or a start past the last line; `TOO_LARGE` when the start lies past the
/// first `LINE_SCAN_BYTES`; as [`crate::preview`] for opening the file.
pub fn read_lines<S: Source>(
    source: &S,
    path: &Path,
    window: LineWindow,
    max_bytes: u64,
) -> Result<Lines, CanopyError> {
    let count = match window {
        LineWindow::Head(n) | LineWindow::Tail(n) => n,
        LineWindow::Range { start, count } => {
            if start == 0 {
                return Err(CanopyError::invalid("lines are numbered from 1"));
            }
            count
        }
    };
    if count == 0 || max_bytes == 0 {
        return Err(CanopyError::invalid("ask for at least one line"));
    }
    let (owned, source) = (path.to_path_buf(), source.clone());
    bounded::call(Place::path(path), TIME_BUDGET, move |_| {
        let file = source.open_file(&owned)?;
        let deadline = Instant::now() + TIME_BUDGET;
        read_open(&file, window, max_bytes, deadline)
    })?
}

/// Bytes read at a time.
const BLOCK: usize = 64 * 1024;

fn encoding_of(file: &impl SourceFile) -> Result<TextEncoding, CanopyError> {
    let head = read_at(file, 0, SNIFF_BYTES)?;
    match sniff_encoding(&head) {
        Some(e @ (TextEncoding::Utf8 | TextEncoding::Windows1252)) => Ok(e),
        Some(_) => Err(CanopyError::invalid(
            "the file is UTF-16 text: lines are read from UTF-8 or Windows-1252 text; read it by offset",
        )),
        None => Err(CanopyError::invalid(
            "the file is binary: it has no lines; read it by offset",
        )),
    }
}

fn read_open(
    file: &impl SourceFile,
    window: LineWindow,
    max_bytes: u64,
    deadline: Instant,
) -> Result<Lines, CanopyError> {
    let encoding = encoding_of(file)?;
    let size = file.size();
    match window {
        LineWindow::Head(n) => forward(file, 1, n, max_bytes, deadline, encoding, size),
        LineWindow::Range { start, count } => {
            forward(file, start, count, max_bytes, deadline, encoding, size)
        }
        LineWindow::Tail(n) => backward(file, n, max_bytes, deadline, encoding, size),
    }
}

/// The shown bytes decoded; a character cut by the cap is left out.
fn decoded(bytes: &[u8], encoding: TextEncoding, at_end: bool) -> (String, u64, bool) {
    let (text, used, lossy) = decode(bytes, encoding, at_end);
    (text, used as u64, lossy)
}

/// Reads from the start: lines `start..start+count`, then counts the rest.
fn forward(
    file: &impl SourceFile,
    start: u64,
    count: u64,
    max_bytes: u64,
    deadline: Instant,
    encoding: TextEncoding,
    size: u64,
) -> Result<Lines, CanopyError> {
    let end_line = start.saturating_add(count);
    // Line number of the byte at `pos`.
    let (mut line, mut pos) = (1u64, 0u64);
    let mut shown: Vec<u8> = Vec::new();
    let (mut offset, mut cut, mut done) = (None::<u64>, false, false);
    let mut eof = false;
    let mut last_byte = None::<u8>;
    while pos < LINE_SCAN_BYTES {
        if Instant::now() > deadline {
            break;
        }
        let want = BLOCK.min((LINE_SCAN_BYTES - pos) as usize);
        let block = read_at(file, pos, want)?;
        if block.is_empty() {
            eof = true;
            break;
        }
        for (i, &b) in block.iter().enumerate() {
            let at = pos + i as u64;
            if !done && line >= start && line < end_line {
                if offset.is_none() {
                    offset = Some(at);
                }
                if shown.len() as u64 >= max_bytes {
                    cut = true;
                    done = true;
                } else {
                    shown.push(b);
                }
            }
            if b == b'\n' {
                line += 1;
                if line >= end_line {
                    done = true;
                }
            }
        }
        last_byte = block.last().copied().or(last_byte);
        pos += block.len() as u64;
        if block.len() < want {
            eof = true;
            break;
        }
    }
    // Lines in the bytes read: one per `\n`, and a last line without one.
    let seen = line - 1 + u64::from(last_byte.is_some_and(|b| b != b'\n'));
    let total = if eof {
        LineTotal::Exact(seen)
    } else {
        LineTotal::AtLeast(seen)
    };
    let ended_at = (eof && pos < size).then_some(pos);
    let Some(offset) = offset else {
        if !eof && !done {
            return Err(CanopyError::new(
                ErrorCode::TooLarge,
                format!("line {start} lies past the first {LINE_SCAN_BYTES} bytes (or what could be read in time); read the file by offset"),
            ));
        }
        if start == 1 && seen == 0 {
            // An empty file's head: no lines, as its tail says.
            return Ok(Lines {
                text: String::new(),
                encoding,
                lossy: false,
                first: None,
                shown: 0,
                offset: 0,
                length: 0,
                size,
                total,
                cut: false,
                ended_at,
            });
        }
        return Err(CanopyError::invalid(format!(
            "line {start} is past the last line ({seen})"
        )));
    };
    let at_end = !cut && (offset + shown.len() as u64 >= size || ended_at.is_some());
    let (text, used, lossy) = decoded(&shown, encoding, at_end || !cut);
    if used < shown.len() as u64 {
        cut = true;
    }
    let shown_lines =
        text.matches('\n').count() as u64 + u64::from(!text.ends_with('\n') && !text.is_empty());
    Ok(Lines {
        text,
        encoding,
        lossy,
        first: Some(start),
        shown: shown_lines,
        offset,
        length: used,
        size,
        total,
        cut,
        ended_at,
    })
}

/// Reads from the end: the last `count` lines. A file that ends before the
/// size it reports (it shrank, or its server's size is wrong) is read from
/// its start to find its real end, within `LINE_SCAN_BYTES` and the time;
/// its tail is then read from there and says where the file ended.
fn backward(
    file: &impl SourceFile,
    count: u64,
    max_bytes: u64,
    deadline: Instant,
    encoding: TextEncoding,
    size: u64,
) -> Result<Lines, CanopyError> {
    if let Some(lines) = tail(file, count, max_bytes, deadline, encoding, size)? {
        return Ok(lines);
    }
    let (mut pos, mut end) = (0u64, None);
    while pos < LINE_SCAN_BYTES && Instant::now() <= deadline {
        let block = read_at(file, pos, BLOCK)?;
        pos += block.len() as u64;
        if block.len() < BLOCK {
            end = Some(pos);
            break;
        }
    }
    let short = |why: &str| {
        CanopyError::new(
            ErrorCode::Io,
            format!(
                "the file ends before the {size} bytes its size reads, {why}; read it by offset"
            ),
        )
    };
    let Some(end) = end.filter(|&e| e < size) else {
        return Err(short(&format!(
            "and its end is not within its first {LINE_SCAN_BYTES} bytes (or what could be read in time)"
        )));
    };
    let mut lines = tail(file, count, max_bytes, deadline, encoding, end)?
        .ok_or_else(|| short("and shrinks while it is read"))?;
    lines.size = size;
    lines.ended_at = Some(end);
    Ok(lines)
}

/// The last `count` lines of a file of `size` bytes; `None` when it ends
/// before `size`.
fn tail(
    file: &impl SourceFile,
    count: u64,
    max_bytes: u64,
    deadline: Instant,
    encoding: TextEncoding,
    size: u64,
) -> Result<Option<Lines>, CanopyError> {
    // Where the tail starts: after the `count`th `\n` from the end, not
    // counting one that ends the file.
    let mut end = size;
    let mut start = None;
    let mut newlines = 0u64;
    let mut read = 0u64;
    let mut first_block = true;
    while end > 0 && read < LINE_SCAN_BYTES && Instant::now() <= deadline {
        let from = end.saturating_sub(BLOCK as u64);
        let block = read_at(file, from, (end - from) as usize)?;
        if (block.len() as u64) < end - from {
            // The file ends before `size` (`read_at` stops short only there).
            return Ok(None);
        }
        read += block.len() as u64;
        let mut bytes = &block[..];
        if first_block {
            first_block = false;
            if let [rest @ .., b'\n'] = bytes {
                bytes = rest;
            }
        }
        for (i, &b) in bytes.iter().enumerate().rev() {
            if b == b'\n' {
                newlines += 1;
                if newlines == count {
                    start = Some(from + i as u64 + 1);
                    break;
                }
            }
        }
        if start.is_some() {
            break;
        }
        end = from;
    }
    let whole = start.is_none() && end == 0;
    let start = match start {
        Some(s) => s,
        None if whole => 0,
        None => {
            return Err(CanopyError::new(
                ErrorCode::TooLarge,
                format!("the last {count} lines are longer than the {LINE_SCAN_BYTES} bytes read from the end; read the file by offset"),
            ))
        }
    };
    let take = (size - start).min(max_bytes);
    let bytes = read_at(file, start, take as usize)?;
    let cut_by_cap = start + (bytes.len() as u64) < size;
    let (text, used, lossy) = decoded(&bytes, encoding, !cut_by_cap);
    let cut = cut_by_cap || used < bytes.len() as u64;
    // The count is exact only when the file was read whole.
    let total = if size <= LINE_SCAN_BYTES && start == 0 {
        let lines = newlines + 1;
        LineTotal::Exact(if size == 0 { 0 } else { lines })
    } else if size <= LINE_SCAN_BYTES {
        LineTotal::Exact(count_lines(file, size)?)
    } else {
        LineTotal::AtLeast(newlines + u64::from(start > 0))
    };
    let shown =
        text.matches('\n').count() as u64 + u64::from(!text.ends_with('\n') && !text.is_empty());
    let first = match total {
        LineTotal::Exact(n) if size > 0 => Some(n + 1 - count.min(n)),
        _ => None,
    };
    Ok(Some(Lines {
        text,
        encoding,
        lossy,
        first,
        shown,
        offset: start,
        length: used,
        size,
        total,
        cut,
        ended_at: None,
    }))
}

/// Lines in the first `size` bytes (at most `LINE_SCAN_BYTES`).
fn count_lines(file: &impl SourceFile, size: u64) -> Result<u64, CanopyError> {
    let (mut pos, mut lines, mut last) = (0u64, 0u64, None);
    while pos < size {
        let block = read_at(file, pos, BLOCK.min((size - pos) as usize))?;
        if block.is_empty() {
            break;
        }
        lines += block.iter().filter(|&&b| b == b'\n').count() as u64;
        last = block.last().copied();
        pos += block.len() as u64;
    }
    Ok(lines + u64::from(last.is_some_and(|b| b != b'\n')))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::LocalFs;

    fn read(content: &[u8], window: LineWindow, max: u64) -> Result<Lines, CanopyError> {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        std::fs::write(&p, content).unwrap();
        read_lines(&LocalFs::new(), &p, window, max)
    }

    #[test]
    fn head_tail_and_ranges_match_head_tail_and_sed() {
        let text: String = (1..=100).map(|i| format!("line {i}\r\n")).collect();
        for (window, want) in [
            (LineWindow::Head(3), 1..=3),
            (LineWindow::Tail(3), 98..=100),
            (
                LineWindow::Range {
                    start: 50,
                    count: 2,
                },
                50..=51,
            ),
            (
                LineWindow::Range {
                    start: 99,
                    count: 10,
                },
                99..=100,
            ),
        ] {
            let l = read(text.as_bytes(), window, 1 << 20).unwrap();
            let expect: String = want.clone().map(|i| format!("line {i}\r\n")).collect();
            assert_eq!(l.text, expect, "{window:?}");
            assert_eq!(l.first, Some(*want.start()), "{window:?}");
            assert_eq!(l.total, LineTotal::Exact(100));
            assert!(!l.cut);
        }
    }

    #[test]
    fn a_last_line_without_a_line_end_is_a_line() {
        for w in [LineWindow::Head(1), LineWindow::Tail(1)] {
            let l = read(b"", w, 100).unwrap();
            assert_eq!(
                (l.text.as_str(), l.shown, l.total),
                ("", 0, LineTotal::Exact(0)),
                "{w:?}"
            );
        }
        assert!(
            read(b"a\n", LineWindow::Range { start: 2, count: 1 }, 100).is_err(),
            "a line past the last is still refused"
        );
        let l = read(b"a\nb\nc", LineWindow::Tail(2), 100).unwrap();
        assert_eq!(l.text, "b\nc");
        assert_eq!(l.total, LineTotal::Exact(3));
        let l = read(b"a\nb\nc", LineWindow::Head(5), 100).unwrap();
        assert_eq!((l.text.as_str(), l.shown), ("a\nb\nc", 3));
    }

    #[test]
    fn a_line_longer_than_the_cap_is_cut_and_says_where() {
        let big = vec![b'x'; 10 << 20];
        let l = read(&big, LineWindow::Head(50), 32 * 1024).unwrap();
        assert_eq!(l.length, 32 * 1024);
        assert!(l.cut);
        assert_eq!(l.total, LineTotal::Exact(1));
        let t = read(&big, LineWindow::Tail(1), 32 * 1024).unwrap();
        assert_eq!((t.offset, t.length, t.cut), (0, 32 * 1024, true));
    }

    #[test]
    fn a_cut_never_splits_a_character() {
        let l = read("é".repeat(100).as_bytes(), LineWindow::Head(1), 5).unwrap();
        assert_eq!(l.text, "éé");
        assert_eq!(l.length, 4);
        assert!(l.cut && !l.lossy);
    }

    #[test]
    fn invalid_utf8_reads_as_windows_1252_and_binary_is_refused() {
        let l = read(b"caf\xe9\nx\n", LineWindow::Head(1), 100).unwrap();
        assert_eq!(l.text, "café\n");
        assert_eq!(l.encoding, TextEncoding::Windows1252);
        let e = read(b"\x7fELF\0\0\n", LineWindow::Head(1), 100).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidArgument);
    }

    #[test]
    fn a_start_past_the_end_is_refused_with_the_count() {
        let e = read(b"a\nb\n", LineWindow::Range { start: 5, count: 1 }, 100).unwrap_err();
        assert!(
            e.message.contains("past the last line (2)"),
            "{}",
            e.message
        );
    }
}
