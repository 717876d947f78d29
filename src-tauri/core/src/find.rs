//! The window's Find: a [`search`] below the open folder for names and, on
//! request, files' contents, as the window asks it (`FindRequest`) and
//! shows it: hits streamed while the search runs, each escaped as names
//! are, a content hit's line cut around its match with the match marked.
//!
//! Promises:
//! - it is the engine's one search (`search.rs`: breadth-first, the ignore
//!   rules, the dead-mount steps, the CPU-work looks), over whatever source
//!   the folder is on (the disk, an archive, a server);
//! - the text is matched as typed: names by the filter's syntax (a
//!   substring, or a glob over the whole name), contents as text, case
//!   ignored in both: no regular expression reaches the matcher from here;
//! - hits reach the window in the search's order, each once, in messages
//!   sent every `LIST_PROGRESS_INTERVAL` while something changed (a hit
//!   waits no longer, even while the search is held up in a slow folder),
//!   or as soon as `FIND_BATCH` hits are waiting, and once more with the
//!   final counts before the reply, never after it; at most `FIND_HITS`;
//! - every name, folder and line is text and escape markers, never raw
//!   bytes a window would render as something else; a line shows at most
//!   `SEARCH_LINE_CHARS` characters, `FIND_LINE_LEAD` of them before its
//!   first match;
//! - a cancel (the request's id, in the registry) stops it at once
//!   (`CANCELLED`); the hits streamed stay shown.
#![forbid(unsafe_code)]

use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use crate::cancel::CancelToken;
use crate::content_match::ContentPattern;
use crate::error::CanopyError;
use crate::limits::{
    FIND_BATCH, FIND_HITS, FIND_LINE_LEAD, FIND_MAX_NAMES, FIND_TIME, LIST_PROGRESS_INTERVAL,
    SEARCH_LINE_BYTES, SEARCH_LINE_CHARS,
};
use crate::names::{encode_handle, escape_char, is_escaped_char, DisplayName};
use crate::search::{search, SearchHit, SearchObserver, SearchQuery, SearchResult};
use crate::source::Source;
use crate::wire::{
    FindCounts, FindHit, FindLine, FindProblem, FindProgress, FindReport, FindRequest, LinePart,
};

/// Most matches marked on one line.
const SPANS_PER_LINE: usize = 64;

/// Runs the window's Find on `source`, sending what it finds to `send` as
/// it goes (on the searching threads, never after this returns).
///
/// # Errors
/// `INVALID_ARGUMENT` for empty text or a bad name pattern; the root's
/// code when it cannot be read; `TIMEOUT` when it does not answer;
/// `CANCELLED`.
pub fn find_request<S: Source>(
    source: &S,
    req: &FindRequest,
    cancel: Option<CancelToken>,
    send: Arc<dyn Fn(&FindProgress) + Send + Sync>,
) -> Result<FindReport, CanopyError> {
    if req.text.trim().is_empty() {
        return Err(CanopyError::invalid("give something to find"));
    }
    let root = source.resolve(&req.root)?;
    let pattern = if req.contents {
        Some(
            ContentPattern::new(&req.text, true, true)
                .map_err(|e| CanopyError::invalid(format!("cannot search for this text: {e}")))?,
        )
    } else {
        None
    };
    let stream = Arc::new(Stream {
        request_id: req.request_id,
        root: root.clone(),
        pattern,
        send,
        pending: Mutex::new(Pending::default()),
        tick: Condvar::new(),
    });
    let query = SearchQuery {
        name: Some(req.text.clone()),
        content: req.contents.then(|| req.text.clone()),
        literal: true,
        ignore_case: true,
        names_or_contents: true,
        name_as_filter: true,
        hide_ignored: req.hide_ignored,
        show_dotfiles: req.show_dotfiles,
        limit: FIND_HITS,
        cancel,
        time: Some(FIND_TIME),
        max_names: Some(FIND_MAX_NAMES),
        observer: Some(stream.clone()),
        ..SearchQuery::default()
    };
    // The ticker sends what was found while the search is held up (a slow
    // folder, a long file): a hit waits at most `LIST_PROGRESS_INTERVAL`.
    // It is joined before the reply, so nothing is sent after it.
    let result = std::thread::scope(|scope| {
        scope.spawn(|| stream.tick_until_done());
        let result = search(source, &root, &query);
        stream.done();
        result
    })?;
    let counts = counts_of(&result);
    stream.flush(&mut stream.lock(), Some(&counts));
    Ok(FindReport {
        counts,
        more: result.more,
        cut: result.cut,
        problems: result
            .problems
            .iter()
            .map(|(path, error)| {
                let shown = DisplayName::new(path.as_os_str().as_bytes());
                FindProblem {
                    path: shown.text,
                    path_parts: shown.parts,
                    error: error.clone(),
                }
            })
            .collect(),
    })
}

fn counts_of(r: &SearchResult) -> FindCounts {
    FindCounts {
        names: r.name_hits,
        files: r.content_files,
        lines: r.content_lines,
        searched_files: r.files,
        folders: r.folders,
        bytes: r.bytes,
        binary: r.binary,
        ignored: r.ignored,
        failed: r.failed,
    }
}

/// The observer: hits made wire hits, gathered and sent in batches.
struct Stream {
    request_id: u64,
    root: PathBuf,
    pattern: Option<ContentPattern>,
    send: Arc<dyn Fn(&FindProgress) + Send + Sync>,
    pending: Mutex<Pending>,
    /// Wakes the ticker when the search is done.
    tick: Condvar,
}

/// What was found and not sent yet.
#[derive(Default)]
struct Pending {
    hits: Vec<FindHit>,
    /// The counts as the search last said them.
    counts: FindCounts,
    /// Something changed since the last message.
    changed: bool,
    done: bool,
}

impl Stream {
    fn lock(&self) -> MutexGuard<'_, Pending> {
        self.pending.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Sends the pending hits with the counts (the final ones, when given).
    /// Sent with the lock held, so messages go in the order of their hits.
    fn flush(&self, p: &mut Pending, last: Option<&FindCounts>) {
        if let Some(c) = last {
            p.counts = c.clone();
        }
        p.changed = false;
        (self.send)(&FindProgress {
            request_id: self.request_id,
            hits: std::mem::take(&mut p.hits),
            counts: p.counts.clone(),
        });
    }

    /// Every `LIST_PROGRESS_INTERVAL` until the search is done: sends what
    /// changed.
    fn tick_until_done(&self) {
        let mut p = self.lock();
        while !p.done {
            p = self
                .tick
                .wait_timeout(p, LIST_PROGRESS_INTERVAL)
                .unwrap_or_else(|e| e.into_inner())
                .0;
            if p.changed && !p.done {
                self.flush(&mut p, None);
            }
        }
    }

    fn done(&self) {
        self.lock().done = true;
        self.tick.notify_all();
    }

    fn hit(&self, h: &SearchHit) -> FindHit {
        let rel = h.path.as_path();
        let name = DisplayName::entry_name(rel.file_name().map_or(&[][..], |n| n.as_bytes()));
        let folder = DisplayName::new(rel.parent().map_or(&[][..], |p| p.as_os_str().as_bytes()));
        FindHit {
            name: name.text,
            name_parts: name.parts,
            folder: folder.text,
            folder_parts: folder.parts,
            handle: encode_handle(&self.root.join(rel)),
            kind: h.kind,
            line: h.line.as_ref().map(|(number, bytes)| {
                let spans = self
                    .pattern
                    .as_ref()
                    .map(|p| p.literal_spans(bytes, SPANS_PER_LINE))
                    .unwrap_or_default();
                shown_line(*number, bytes, &spans)
            }),
        }
    }
}

impl SearchObserver for Stream {
    fn found(&self, hits: &[SearchHit], so_far: &SearchResult) {
        let made: Vec<FindHit> = hits.iter().map(|h| self.hit(h)).collect();
        let mut p = self.lock();
        p.hits.extend(made);
        p.counts = counts_of(so_far);
        p.changed = true;
        if p.hits.len() >= FIND_BATCH {
            self.flush(&mut p, None);
        }
    }
}

/// One character (or byte that is not UTF-8) of a line as shown.
struct Unit {
    start: usize,
    end: usize,
    text: String,
    escape: bool,
}

fn units_of(line: &[u8]) -> Vec<Unit> {
    let mut out = Vec::new();
    let mut at = 0;
    for chunk in line.utf8_chunks() {
        for c in chunk.valid().chars() {
            let len = c.len_utf8();
            let escape = is_escaped_char(c);
            let mut text = String::new();
            if escape {
                escape_char(c, &mut text);
            } else {
                text.push(c);
            }
            out.push(Unit {
                start: at,
                end: at + len,
                text,
                escape,
            });
            at += len;
        }
        for b in chunk.invalid() {
            out.push(Unit {
                start: at,
                end: at + 1,
                text: format!("\\x{b:02x}"),
                escape: true,
            });
            at += 1;
        }
    }
    out
}

/// A matching line as shown: its leading blanks left out, cut to
/// `SEARCH_LINE_CHARS` characters starting at most `FIND_LINE_LEAD` before
/// the first match, each run marked as matched or not, escapes apart.
fn shown_line(number: u64, line: &[u8], spans: &[(usize, usize)]) -> FindLine {
    let units = units_of(line);
    let blank = units
        .iter()
        .take_while(|u| u.text == " " || (u.escape && u.text == "\\t"))
        .count();
    let in_match = |u: &Unit| spans.iter().any(|&(s, e)| u.start < e && u.end > s);
    let first = units.iter().position(in_match).unwrap_or(blank);
    let from = first.saturating_sub(FIND_LINE_LEAD).max(blank);
    let to = (from + SEARCH_LINE_CHARS).min(units.len());
    let mut parts: Vec<LinePart> = Vec::new();
    for u in &units[from..to] {
        let matched = in_match(u);
        match parts.last_mut() {
            Some(p) if p.escape == u.escape && p.matched == matched => p.text.push_str(&u.text),
            _ => parts.push(LinePart {
                text: u.text.clone(),
                escape: u.escape,
                matched,
            }),
        }
    }
    FindLine {
        number,
        parts,
        cut_before: from > blank,
        // A line kept to `SEARCH_LINE_BYTES` was longer still.
        cut_after: to < units.len() || line.len() >= SEARCH_LINE_BYTES,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn rel_of(root: &Path, handle: &str) -> PathBuf {
        let p = crate::names::decode_handle(handle).unwrap();
        p.strip_prefix(root).unwrap().to_path_buf()
    }

    fn text(l: &FindLine) -> String {
        l.parts.iter().map(|p| p.text.as_str()).collect()
    }

    fn marked(l: &FindLine) -> Vec<String> {
        l.parts
            .iter()
            .filter(|p| p.matched)
            .map(|p| p.text.clone())
            .collect()
    }

    #[test]
    fn a_line_marks_every_match_and_drops_its_indentation() {
        let p = ContentPattern::new("needle", true, true).unwrap();
        let line = b"\t    a Needle and a NEEDLE";
        let l = shown_line(7, line, &p.literal_spans(line, 64));
        assert_eq!(text(&l), "a Needle and a NEEDLE");
        assert_eq!(marked(&l), ["Needle", "NEEDLE"]);
        assert!(!l.cut_before && !l.cut_after);
    }

    #[test]
    fn a_long_line_is_cut_around_its_first_match() {
        let p = ContentPattern::new("needle", true, true).unwrap();
        let mut line = "x".repeat(500);
        line.push_str("needle");
        line.push_str(&"y".repeat(500));
        let l = shown_line(1, line.as_bytes(), &p.literal_spans(line.as_bytes(), 64));
        assert!(l.cut_before && l.cut_after, "{l:?}");
        let shown = text(&l);
        assert_eq!(shown.chars().count(), SEARCH_LINE_CHARS);
        assert_eq!(shown.find("needle"), Some(FIND_LINE_LEAD));
    }

    #[test]
    fn a_lines_controls_and_bad_bytes_are_escapes_never_raw() {
        let p = ContentPattern::new("key", true, false).unwrap();
        let line = b"a\x1b[31mkey\xff\xe2\x80\xaeevil";
        let l = shown_line(1, line, &p.literal_spans(line, 64));
        for part in &l.parts {
            assert!(
                part.escape || !part.text.chars().any(is_escaped_char),
                "a raw control in {part:?}"
            );
        }
        let escapes: Vec<_> = l
            .parts
            .iter()
            .filter(|p| p.escape)
            .map(|p| p.text.as_str())
            .collect();
        assert_eq!(escapes, ["\\u{1b}", "\\xff\\u{202e}"]);
        assert_eq!(marked(&l), ["key"]);
    }

    #[test]
    fn a_regular_expression_marks_nothing() {
        let p = ContentPattern::new("ne+dle", false, false).unwrap();
        assert!(p.literal_spans(b"needle", 64).is_empty());
    }

    #[test]
    fn a_hits_handle_is_the_root_joined_with_its_path() {
        let root = Path::new("/some/root");
        let s = Stream {
            request_id: 1,
            root: root.to_path_buf(),
            pattern: None,
            send: Arc::new(|_| {}),
            pending: Mutex::new(Pending::default()),
            tick: Condvar::new(),
        };
        let h = s.hit(&SearchHit {
            path: PathBuf::from("a/b\nc/d.txt"),
            kind: crate::wire::EntryKind::File,
            nth: 1,
            end: 0,
            line: None,
        });
        assert_eq!(rel_of(root, &h.handle), Path::new("a/b\nc/d.txt"));
        assert_eq!(h.name, "d.txt");
        assert_eq!(h.folder, "a/b\nc");
        assert!(h.folder_parts.is_some(), "the line break is an escape");
    }
}
