//! One `list_directory` reply: the engine's listing rendered line by line
//! with Canopy's text writer, cut to the reply budget.
//!
//! Promises:
//! - the text holds at most `budget` characters, whatever the folder;
//! - a page holds the top-level entries in the folder's order, at least one
//!   when there is any, each with its own lines; it ends early only when the
//!   next entry's lines do not fit, and then the last line is
//!   `[NEXT] call list_directory with cursor "<c>"`;
//! - nested folders are filled breadth-first, in order, while their lines
//!   fit: a folder whose lines do not fit is printed `[BUDGET] path`, as is
//!   one the engine left unread, and is listed by calling `list_directory`
//!   with its path; a nested folder shown in part says so (`[WARNING]`) and
//!   what its hidden entries are (`[REST]`, the engine's groups);
//! - a filtered listing (`find_in_folder`) starts with its `[MATCH]` line;
//! - a folder whose order is partial (the size or time of only some entries
//!   could be read in time) says so: `[PARTIAL_ORDER] path: ...` after its
//!   `[WARNING]`;
//! - a cursor names the folder it was issued for: it continues that folder
//!   and is refused for any other (the engine's cursor inside it refuses
//!   another order, filter or dotfile setting).

use std::collections::{HashSet, VecDeque};

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use canopy_core::text::{
    ignored_line, line_name, match_line, partial_order_line, warning_line, write_entry,
};
use canopy_core::wire::RestGroup;
use canopy_core::wire::{Entry, Folder, Listing};
use canopy_core::{CanopyError, ErrorCode};

// The facts `details` adds of one entry, in the structured result as in
// its line: the path as printed, a file's size, and the modified time (UTC).
// (A comment, not a doc comment: the schema every client reads stays short.)
#[derive(Debug, Clone, serde::Serialize, schemars::JsonSchema)]
pub struct EntryFacts {
    pub path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub modified: Option<String>,
}

/// `,"entries":[]`: what a page with details adds to the structured result
/// besides each entry's facts.
const FACTS_FRAME_CHARS: usize = 16;

fn facts_of(e: &Entry, path: &str) -> EntryFacts {
    EntryFacts {
        path: path.to_string(),
        size: e.size.filter(|_| e.folder.is_none()),
        modified: e.modified.map(utc_time),
    }
}

/// What an entry's facts cost in the structured result (a comma included).
fn facts_chars(e: &Entry, path: &str, details: bool) -> usize {
    if !details {
        return 0;
    }
    serde_json::to_string(&facts_of(e, path)).map_or(0, |j| j.chars().count() + 1)
}

/// A rendered page, before its `[NEXT]` line.
#[derive(Debug)]
pub struct Page {
    /// The lines, each ending in a line break.
    pub text: String,
    /// Top-level entries on the page.
    pub shown: usize,
    /// The page ends before the engine's page did.
    pub cut: bool,
    /// Nested folders shown in part (each with its `[WARNING]` line).
    pub truncated: u64,
    /// Nested folders printed `[BUDGET] path` (not shown for lack of room).
    pub unexpanded: u64,
    /// With `details`, each shown entry's facts, in the order of its line.
    pub facts: Vec<EntryFacts>,
}

fn chars(s: &str) -> usize {
    s.chars().count()
}

fn own_lines(e: &Entry, path: &str, details: bool) -> String {
    let mut out = Vec::new();
    // Writing to a Vec cannot fail.
    let _ = write_entry(e, path, &mut out);
    let mut text = String::from_utf8(out).unwrap_or_default();
    if details {
        if let Some(end) = text.find('\n') {
            text.insert_str(end, &details_suffix(e));
        }
    }
    text
}

/// The facts `details` adds to an entry's line: a tab (which a name never
/// prints: it is escaped `\t`), `size N` for a file, and `modified
/// YYYY-MM-DDTHH:MM:SSZ` (UTC), each when it could be read.
pub fn details_suffix(e: &Entry) -> String {
    let mut out = String::new();
    if let Some(size) = e.size.filter(|_| e.folder.is_none()) {
        out.push_str(&format!("\tsize {size}"));
    }
    if let Some(ms) = e.modified {
        out.push_str(&format!("\tmodified {}", utc_time(ms)));
    }
    out
}

/// Milliseconds since the Unix epoch as `YYYY-MM-DDTHH:MM:SSZ`.
pub fn utc_time(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

/// The `[IGNORED]` line of `f` with its line break, or nothing.
fn ignored_lines(path: &str, f: &Folder) -> String {
    ignored_line(path, f).map_or_else(String::new, |l| l + "\n")
}

fn budget_line(path: &str) -> String {
    format!("[{}] {path}\n", ErrorCode::Budget)
}

/// A folder that could be filled in (the engine read it).
fn loaded(e: &Entry) -> Option<&Folder> {
    e.folder.as_deref().filter(|f| f.children_loaded)
}

fn key(f: &Folder) -> usize {
    f as *const Folder as usize
}

fn child_path(parent: &str, e: &Entry) -> String {
    let name = line_name(&e.name, e.name_parts.as_deref());
    if parent.is_empty() {
        name
    } else {
        format!("{parent}/{name}")
    }
}

/// The longest `[NEXT]` line a page of `tool` can end with, for a listing
/// whose filter is `filter_bytes` long.
pub fn next_line_reserve(tool: &str, filter_bytes: usize) -> usize {
    chars(&next_line(tool, &"A".repeat(max_cursor_len(filter_bytes))))
}

/// The last line of a page of `tool` that ends before its folder does.
pub fn next_line(tool: &str, cursor: &str) -> String {
    format!("[NEXT] call {tool} with cursor \"{cursor}\"\n")
}

/// The `[REST]` line of a nested folder shown in part (what its hidden
/// entries are, by the engine's groups), with its line break, or nothing.
fn rest_lines(path: &str, f: &Folder) -> String {
    if f.rest.is_empty() {
        return String::new();
    }
    let groups: Vec<String> = f.rest.iter().map(RestGroup::label).collect();
    format!("[REST] {path}: {}\n", groups.join(", "))
}

/// The `[PARTIAL_ORDER]` line of `f` with its line break, or nothing.
fn partial_lines(path: &str, f: &Folder) -> String {
    partial_order_line(path, f).map_or_else(String::new, |l| l + "\n")
}

/// Renders `listing` (whose listed folder prints as `label`) in at most
/// `budget` characters, keeping `reserve` of them for the `[NEXT]` line.
pub fn render(
    listing: &Listing,
    label: &str,
    budget: usize,
    reserve: usize,
    details: bool,
) -> Page {
    let root = &listing.root;
    let mut text = String::new();
    if let Some(line) = match_line(listing, label) {
        text.push_str(&line);
        text.push('\n');
    }
    if let Some(err) = &root.error {
        text.push_str(&format!("[{}] {label}\n", err.code));
    }
    let Some(folder) = root.folder.as_deref() else {
        return Page {
            text,
            shown: 0,
            cut: false,
            truncated: 0,
            unexpanded: 0,
            facts: Vec::new(),
        };
    };
    let total = folder.total.unwrap_or(0);
    let widest_warning = warning_line(label, u64::MAX / 2, u64::MAX / 4, u64::MAX / 2, true)
        .map_or(0, |l| chars(&l) + 1);
    let root_partial = partial_lines(label, folder) + &ignored_lines(label, folder);
    let frame = if details { FACTS_FRAME_CHARS } else { 0 };
    let room = budget
        .saturating_sub(chars(&text) + widest_warning + chars(&root_partial) + reserve + frame);

    // The top level, in order, while each entry's lines fit (the first always).
    let mut used = 0;
    let mut top: Vec<(&Entry, String, String)> = Vec::new();
    for e in &folder.entries {
        let path = child_path("", e);
        let lines = own_lines(e, &path, details);
        let cost = chars(&lines)
            + facts_chars(e, &path, details)
            + loaded(e).map_or(0, |_| chars(&budget_line(&path)));
        if !top.is_empty() && used + cost > room {
            break;
        }
        used += cost;
        top.push((e, path, lines));
    }

    // Nested folders, breadth-first, each in full or not at all.
    let mut expanded: HashSet<usize> = HashSet::new();
    let mut queue: VecDeque<(&Folder, String)> = top
        .iter()
        .filter_map(|(e, path, _)| loaded(e).map(|f| (f, path.clone())))
        .collect();
    while let Some((f, path)) = queue.pop_front() {
        let mut cost = 0;
        let mut kids = Vec::new();
        for e in &f.entries {
            let p = child_path(&path, e);
            cost += chars(&own_lines(e, &p, details))
                + facts_chars(e, &p, details)
                + loaded(e).map_or(0, |_| chars(&budget_line(&p)));
            if let Some(sub) = loaded(e) {
                kids.push((sub, p));
            }
        }
        let shown = f.entries.len() as u64;
        if let Some(w) = warning_line(
            &path,
            f.offset,
            shown,
            f.total.unwrap_or(0),
            f.count_is_lower_bound,
        ) {
            cost += chars(&w) + 1 + chars(&rest_lines(&path, f));
        }
        cost += chars(&partial_lines(&path, f)) + chars(&ignored_lines(&path, f));
        let refund = chars(&budget_line(&path));
        if used + cost <= room + refund {
            used = used + cost - refund;
            expanded.insert(key(f));
            queue.extend(kids);
        }
    }

    let mut page = Page {
        text,
        shown: top.len(),
        cut: top.len() < folder.entries.len(),
        truncated: 0,
        unexpanded: 0,
        facts: Vec::new(),
    };
    for (e, path, lines) in &top {
        page.text.push_str(lines);
        if details {
            page.facts.push(facts_of(e, path));
        }
        write_nested(e, path, &expanded, details, &mut page);
    }
    let shown = top.len() as u64;
    if let Some(w) = warning_line(
        label,
        folder.offset,
        shown,
        total,
        folder.count_is_lower_bound,
    ) {
        page.text.push_str(&w);
        page.text.push('\n');
    }
    page.text.push_str(&root_partial);
    page
}

fn write_nested(e: &Entry, path: &str, expanded: &HashSet<usize>, details: bool, page: &mut Page) {
    let Some(f) = loaded(e) else {
        if e.error
            .as_ref()
            .is_some_and(|err| err.code == ErrorCode::Budget)
        {
            page.unexpanded += 1;
        }
        return;
    };
    if !expanded.contains(&key(f)) {
        page.text.push_str(&budget_line(path));
        page.unexpanded += 1;
        return;
    }
    for child in &f.entries {
        let p = child_path(path, child);
        page.text.push_str(&own_lines(child, &p, details));
        if details {
            page.facts.push(facts_of(child, &p));
        }
        write_nested(child, &p, expanded, details, page);
    }
    let (shown, total) = (f.entries.len() as u64, f.total.unwrap_or(0));
    if let Some(w) = warning_line(path, f.offset, shown, total, f.count_is_lower_bound) {
        page.text.push_str(&w);
        page.text.push('\n');
        page.text.push_str(&rest_lines(path, f));
        page.truncated += 1;
    }
    page.text.push_str(&partial_lines(path, f));
    page.text.push_str(&ignored_lines(path, f));
}

const CURSOR_VERSION: u8 = 1;

/// The longest engine cursor for a filter of `filter_bytes`.
fn max_engine_cursor(filter_bytes: usize) -> usize {
    canopy_core::max_cursor_len(filter_bytes)
}

/// The longest cursor `canopy-mcp` issues for a filter of `filter_bytes`.
pub fn max_cursor_len(filter_bytes: usize) -> usize {
    (1 + 16 + max_engine_cursor(filter_bytes)).div_ceil(3) * 4
}

/// A cursor for the folder known by `dev` and `ino`, wrapping the engine's.
pub fn encode_cursor(dev: u64, ino: u64, engine: &str) -> String {
    let mut bytes = Vec::with_capacity(17 + engine.len());
    bytes.push(CURSOR_VERSION);
    bytes.extend_from_slice(&dev.to_le_bytes());
    bytes.extend_from_slice(&ino.to_le_bytes());
    bytes.extend_from_slice(engine.as_bytes());
    URL_SAFE_NO_PAD.encode(bytes)
}

/// The engine's cursor inside `text`, if it was issued for this folder.
///
/// # Errors
/// `INVALID_ARGUMENT` for text that is not a cursor `canopy-mcp` issued, or
/// one issued for another folder.
pub fn decode_cursor(text: &str, dev: u64, ino: u64) -> Result<String, CanopyError> {
    let foreign = || {
        CanopyError::invalid("the cursor is not one canopy-mcp issued: pass nextCursor exactly as it was returned, or list without a cursor to start over")
    };
    let bytes = URL_SAFE_NO_PAD
        .decode(text.trim().as_bytes())
        .map_err(|_| foreign())?;
    if bytes.len() < 18 || bytes[0] != CURSOR_VERSION {
        return Err(foreign());
    }
    let d = u64::from_le_bytes(bytes[1..9].try_into().map_err(|_| foreign())?);
    let i = u64::from_le_bytes(bytes[9..17].try_into().map_err(|_| foreign())?);
    if (d, i) != (dev, ino) {
        return Err(CanopyError::invalid(
            "the cursor was issued for another folder: a cursor continues only the folder whose page returned it",
        ));
    }
    String::from_utf8(bytes[17..].to_vec()).map_err(|_| foreign())
}

#[cfg(test)]
mod tests {
    use super::*;
    use canopy_core::limits::MAX_FILTER_BYTES;

    #[test]
    fn a_cursor_continues_only_its_folder() {
        let c = encode_cursor(7, 42, "AQACAAAB");
        assert_eq!(decode_cursor(&c, 7, 42).unwrap(), "AQACAAAB");
        let other = decode_cursor(&c, 7, 43).unwrap_err();
        assert_eq!(other.code, ErrorCode::InvalidArgument);
        assert!(
            other.message.contains("another folder"),
            "{}",
            other.message
        );
        for bad in ["", "!!", "AQ", &URL_SAFE_NO_PAD.encode([2u8; 20])] {
            assert_eq!(
                decode_cursor(bad, 7, 42).unwrap_err().code,
                ErrorCode::InvalidArgument,
                "{bad:?}"
            );
        }
    }

    #[test]
    fn the_widest_cursor_fits_the_reserve() {
        // The engine's widest cursor is `max_engine_cursor` (the engine's own test holds it to that).
        for filter_bytes in [0, 1, 7, MAX_FILTER_BYTES] {
            let engine = "A".repeat(max_engine_cursor(filter_bytes));
            let c = encode_cursor(u64::MAX, u64::MAX, &engine);
            for tool in ["list_directory", "find_in_folder"] {
                assert!(chars(&next_line(tool, &c)) <= next_line_reserve(tool, filter_bytes));
            }
        }
    }
}
