//! The `search` tool: entries below a folder whose names match, or lines
//! of their files that match a regular expression, breadth-first, under
//! the ignore rules, a page at a time (the engine's [`canopy_core::search`]).
//!
//! Its arguments, its structured result, what it tells a model and its call.

use std::os::unix::ffi::OsStrExt;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use canopy_core::limits::{
    MCP_PAGE, MCP_REPLY_CHARS, REQUEST_TIME, SEARCH_FILE_BYTES, SEARCH_LINE_CHARS,
};
use canopy_core::names::escape_for_line;
use canopy_core::wire::EntryKind;
use canopy_core::{CanopyError, SearchHit, SearchPosition, SearchQuery};
use rmcp::model::{CallToolResult, JsonObject};
use rmcp::service::RequestContext;
use rmcp::{tool, tool_router, RoleServer};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::grouped;
use super::listing::{excludes_key, parse_excludes, structured_chars, yes};
use crate::engine;
use crate::server::{input_schema, kind_token, parse, Canopy};

/// Files larger than this many MiB are searched only that far.
const SEARCH_FILE_MIB: u64 = SEARCH_FILE_BYTES >> 20;

/// What `search` tells a model. Kept under 2 KB (a test checks).
pub fn description() -> String {
    let reply = grouped(MCP_REPLY_CHARS as u64);
    let secs = REQUEST_TIME.as_secs();
    format!("Search below a folder, breadth-first, skipping what git would ignore and `.git` (unless `include_ignored`) and names matched by `exclude`. `name` is a glob over the whole name, as find_in_folder's pattern (`Cargo.toml` that name only, `*config*`, `{{*.rs,*.toml}}`); each hit a `[FILE] path` line. `content` finds lines of files matching a regular expression (`literal: true` for plain text); each hit is `path:LINE: text`, the text cut at {SEARCH_LINE_CHARS} characters, names escaped (`:` in a path as `\\u{{3a}}`). With both, only files whose names match are read. Binary files are skipped and counted; a file is read up to {SEARCH_FILE_MIB} MiB. `count: true` answers `path:COUNT` per file and the totals only. `limit` caps a page's hits (with count, its files; 0: the totals only).

The first page states `[TOTAL] H hits in F files` (`at least` when cut). Structured hits carry `path` and `line`. The reply ends with `[SEARCHED] F folders, N files, B bytes` (bytes for content), and `[BUDGET] ...` when the search stopped at its budget ({secs} s, names or bytes). Every reply is at most {reply} characters; `[NEXT] call search with cursor \"<c>\"` continues with the same arguments.")
}

/// The numbers `search`'s texts state (see [`super::Numbers`]).
#[cfg(test)]
pub(crate) const NUMBERS: super::Numbers = super::Numbers {
    constants: &[
        ("SEARCH_LINE_CHARS", SEARCH_LINE_CHARS as u64),
        ("SEARCH_FILE_MIB", SEARCH_FILE_MIB),
        ("REQUEST_TIME", REQUEST_TIME.as_secs()),
        ("MCP_REPLY_CHARS", MCP_REPLY_CHARS as u64),
    ],
    examples: &["3a", "0: the totals"],
};

/// `search`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchArgs {
    /// The folder to search below.
    pub path: String,
    /// Names to find: a glob over the whole name (`*`, `?`, `[...]`, `{a,b}`).
    #[serde(default)]
    pub name: Option<String>,
    /// A regular expression to find in files' lines.
    #[serde(default)]
    pub content: Option<String>,
    /// `content` is plain text.
    #[serde(default)]
    pub literal: bool,
    #[serde(default)]
    pub ignore_case: bool,
    #[serde(default)]
    pub cursor: Option<String>,
    #[serde(default)]
    pub include_ignored: bool,
    /// Names to leave out, each a glob over the whole name as `name`.
    #[serde(default)]
    pub exclude: Vec<String>,
    #[serde(default = "yes")]
    pub show_dotfiles: bool,
    /// Count only: each file's hits and the totals (as `rg -c`).
    #[serde(default)]
    pub count: bool,
    /// At most this many hits on the page (with `count`, files; 0: the totals only).
    #[serde(default)]
    pub limit: Option<u32>,
}

/// One hit in the structured result: its path (escaped as in the text),
/// and a content hit's line number, or a name hit's kind when it is not a
/// file. The line's text is in the text only: a reply carries each hit's
/// text once (an agent reads one of the two, and pays for both).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct HitOut {
    pub path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
}

/// One file's count of content hits (`count: true`).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct FileCount {
    pub path: String,
    pub count: u64,
}

/// `search`'s structured result (no output schema: the text states it, and
/// every definition costs each agent's context on every turn): what a
/// program acts on (hits, counts, totals, the cursor, what failed). What
/// was searched (`[SEARCHED]`) is in the text only: an agent pays for each
/// field on every reply.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SearchOutput {
    /// Hits on this page, and hits before it (absent: none).
    pub shown: u64,
    #[serde(skip_serializing_if = "is_zero")]
    pub offset: u64,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub hits: Vec<HitOut>,
    /// With `count`: files with hits (as many as fit; `filesWithHits` counts all).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub counts: Vec<FileCount>,
    /// Every hit of the search, on the first page and with `count`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub files_with_hits: Option<u64>,
    /// `total` and `filesWithHits` are at least these (the budget or a hung entry cut the count).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub total_is_lower_bound: bool,
    /// `CODE path` of each entry not read.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub problems: Vec<String>,
    /// Why the search stopped early.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cut: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// Cursors carry the hits shown before (for `offset`), the search's key,
/// and where the last page ended (a [`SearchPosition`]: the next page
/// reads on from there instead of searching the tree again).
const CURSOR_VERSION: u8 = 3;

/// The cursor's fixed part: its version, then skip, key, nth, offset,
/// line and the folder's length (8 bytes each).
const CURSOR_HEAD: usize = 1 + 6 * 8;

/// A number that tells one search's arguments from another's.
fn args_key(args: &SearchArgs, dev: u64, ino: u64) -> u64 {
    let mut h: u64 =
        0xcbf2_9ce4_8422_2325 ^ excludes_key(&args.exclude) ^ dev ^ ino.rotate_left(17);
    let flags = [
        args.literal,
        args.ignore_case,
        args.include_ignored,
        args.show_dotfiles,
        args.count,
    ];
    for part in [args.name.as_deref(), args.content.as_deref()] {
        for b in part
            .map_or(&[0xfe][..], str::as_bytes)
            .iter()
            .chain([&0xff])
        {
            h = (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    for f in flags {
        h = (h ^ u64::from(f)).wrapping_mul(0x0100_0000_01b3);
    }
    h
}

fn encode_cursor(skip: u64, key: u64, at: &SearchPosition) -> String {
    let folder = at.folder.as_os_str().as_bytes();
    let mut bytes = vec![CURSOR_VERSION];
    bytes.extend_from_slice(&skip.to_le_bytes());
    bytes.extend_from_slice(&key.to_le_bytes());
    bytes.extend_from_slice(&at.nth.to_le_bytes());
    bytes.extend_from_slice(&at.offset.to_le_bytes());
    bytes.extend_from_slice(&at.line.to_le_bytes());
    bytes.extend_from_slice(&(folder.len() as u64).to_le_bytes());
    bytes.extend_from_slice(folder);
    bytes.extend_from_slice(&at.name);
    URL_SAFE_NO_PAD.encode(bytes)
}

/// The hits shown before and the position a cursor carries.
fn decode_cursor(text: &str, key: u64) -> Result<(u64, SearchPosition), CanopyError> {
    let foreign = || {
        CanopyError::invalid(
            "the cursor is not one search issued: pass nextCursor exactly as returned",
        )
    };
    let bytes = URL_SAFE_NO_PAD
        .decode(text.trim().as_bytes())
        .ok()
        .filter(|b| b.len() >= CURSOR_HEAD && b[0] == CURSOR_VERSION)
        .ok_or_else(foreign)?;
    let word = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap_or_default());
    let (skip, k, nth, offset, line, len) =
        (word(1), word(9), word(17), word(25), word(33), word(41));
    if k != key {
        return Err(CanopyError::invalid(
            "the cursor was issued for another search: call again with the same path and arguments",
        ));
    }
    let rest = &bytes[CURSOR_HEAD..];
    let len = usize::try_from(len)
        .ok()
        .filter(|l| *l <= rest.len())
        .ok_or_else(foreign)?;
    let (folder, name) = rest.split_at(len);
    let at = SearchPosition {
        folder: std::path::PathBuf::from(std::ffi::OsStr::from_bytes(folder)),
        name: name.to_vec(),
        nth,
        offset,
        line,
    };
    Ok((skip, at))
}

/// The line's text escaped like names, cut at `SEARCH_LINE_CHARS` characters.
fn line_text(raw: &[u8]) -> String {
    let mut out = String::with_capacity(raw.len().min(SEARCH_LINE_CHARS) + 8);
    let mut chars = 0;
    let mut buf = [0u8; 4];
    for chunk in raw.utf8_chunks() {
        let valid = chunk.valid().chars().map(Ok);
        for c in valid.chain(chunk.invalid().iter().map(|b| Err(*b))) {
            if chars >= SEARCH_LINE_CHARS {
                out.push_str(" [...]");
                return out;
            }
            chars += 1;
            match c {
                // Printable ASCII but `\` is its own escape: no allocation
                // for what most lines are made of.
                Ok(c) if (c.is_ascii_graphic() && c != '\\') || c == ' ' => out.push(c),
                Ok(c) => out.push_str(&escape_for_line(c.encode_utf8(&mut buf).as_bytes())),
                Err(b) => out.push_str(&escape_for_line(&[b])),
            }
        }
    }
    out
}

/// A path as a `path:LINE: text` or `path:COUNT` line prints it: escaped
/// like names, and its `:` too (`\u{3a}`, which read_file's path reads
/// back), so that `a:1: x.txt:1: needle` cannot be misread.
fn colon_path(path: &std::path::Path) -> String {
    escape_for_line(path.as_os_str().as_bytes()).replace(':', "\\u{3a}")
}

/// A hit's line in the text and its item in the structured result.
fn hit_line(hit: &SearchHit) -> (String, HitOut) {
    match &hit.line {
        Some((n, text)) => {
            let (path, text) = (colon_path(&hit.path), line_text(text));
            let line = format!("{path}:{n}: {text}\n");
            let out = HitOut {
                path,
                line: Some(*n),
                kind: None,
            };
            (line, out)
        }
        None => {
            let path = escape_for_line(hit.path.as_os_str().as_bytes());
            let tag = if hit.kind == EntryKind::Folder {
                "DIR"
            } else {
                kind_token(hit.kind).trim_matches(['[', ']'])
            };
            let line = format!("[{tag}] {path}\n");
            let out = HitOut {
                path,
                line: None,
                kind: (hit.kind != EntryKind::File).then(|| tag.to_string()),
            };
            (line, out)
        }
    }
}

/// Characters an item adds to a JSON array (a comma included).
fn item_chars<T: Serialize>(item: &T) -> usize {
    structured_chars(item) + 1
}

impl Canopy {
    // Logging is deprecated from protocol 2026-07-28 on; the revisions this
    // server speaks have it.
    #[allow(deprecated)]
    async fn search_call(
        &self,
        args: JsonObject,
        ctx: RequestContext<RoleServer>,
    ) -> Result<(String, SearchOutput), CanopyError> {
        let args: SearchArgs = parse("search", args)?;
        let exclude = parse_excludes(&args.exclude)?;
        if let Some(name) = &args.name {
            engine::check_pattern(name)?;
        }
        let _turn = self.turn("search", &ctx).await?;
        let roots = self.allowed(&ctx).await?;
        let opened = self.open_allowed(&args.path, roots).await?;
        let opened = match opened.kind {
            EntryKind::Folder => opened,
            EntryKind::File => opened.as_archive(),
            kind => {
                return Err(CanopyError::new(
                    canopy_core::ErrorCode::NotADirectory,
                    format!("{} is not a folder ({})", args.path, kind_token(kind)),
                ))
            }
        };
        let (dev, ino) = opened.binding();
        let key = args_key(&args, dev, ino);
        let (skip, after) = match args.cursor.as_deref() {
            Some(c) => {
                let (skip, at) = decode_cursor(c, key)?;
                (skip, Some(at))
            }
            None => (0, None),
        };
        let cancel = canopy_core::cancel::CancelToken::default();
        let query = SearchQuery {
            name: args.name.clone(),
            content: args.content.clone(),
            literal: args.literal,
            ignore_case: args.ignore_case,
            hide_ignored: !args.include_ignored,
            show_dotfiles: args.show_dotfiles,
            exclude,
            // The page reads on after the last one's last hit.
            skip: 0,
            after,
            // Counting reads every hit; the first page counts them too.
            limit: if args.count {
                0
            } else {
                u64::from(args.limit.unwrap_or(MCP_PAGE).min(MCP_PAGE))
            },
            // A hit costs its line once and its path twice (its text line,
            // its structured item); the engine charges the path once, so a
            // quarter of the reply is kept for the second and the footer.
            // A page the engine overfills is cut here, its cursor after the
            // last hit shown.
            page_bytes: Some(MCP_REPLY_CHARS as u64 * 3 / 4),
            count_all: args.count || args.cursor.is_none(),
            cancel: Some(cancel.clone()),
            time: None,
            // The window's Find options (names or contents, a filter's syntax, its budgets) are not an agent's.
            ..SearchQuery::default()
        };
        let source = self.source.clone();
        let path = opened.path();
        let mut job = tokio::task::spawn_blocking(move || {
            canopy_core::search(source.source(), &path, &query)
        });
        let found = tokio::select! {
            r = &mut job => r,
            _ = ctx.ct.cancelled() => { cancel.cancel(); job.await }
        };
        let found = found.unwrap_or_else(|e| {
            Err(CanopyError::new(
                canopy_core::ErrorCode::Io,
                format!("the engine stopped unexpectedly: {e}"),
            ))
        })?;
        let mut footer = String::new();
        let counted = args.count || args.cursor.is_none();
        let lower = found.cut.is_some() || found.timed_out();
        let files_with_hits = found.file_counts.len() as u64;
        if counted {
            let at_least = if lower { "at least " } else { "" };
            let in_files = if args.content.is_some() {
                format!(" in {at_least}{files_with_hits} files")
            } else {
                String::new()
            };
            footer.push_str(&format!(
                "[TOTAL] {at_least}{} hits{in_files}\n",
                found.total
            ));
        }
        let mut problems = Vec::new();
        for (path, err) in &found.problems {
            // A hostile path escapes to many characters: each line is cut.
            let path: String = line_text(path.as_os_str().as_bytes())
                .chars()
                .take(SEARCH_LINE_CHARS)
                .collect();
            let line = format!("[{}] {path}: {}", err.code, err.message);
            footer.extend(line.chars().take(2 * SEARCH_LINE_CHARS));
            footer.push('\n');
            problems.push(format!("{} {path}", err.code));
        }
        let at_least = if found.timed_out() { "at least " } else { "" };
        footer.push_str(&format!(
            "[SEARCHED] {at_least}{} folders, {} files",
            found.folders, found.files
        ));
        // A name search reads no file's bytes.
        if args.content.is_some() {
            footer.push_str(&format!(", {} bytes", found.bytes));
        }
        if found.binary > 0 {
            footer.push_str(&format!("; {} binary files skipped", found.binary));
        }
        if found.ignored > 0 {
            footer.push_str(&format!("; {} hidden as git ignores them", found.ignored));
            // Said where it matters: nothing found (the description says it too).
            if found.hits.is_empty() && found.total == 0 {
                footer.push_str(" (include_ignored: true searches them)");
            }
        }
        if found.truncated > 0 {
            footer.push_str(&format!(
                "; {} files read only to {SEARCH_FILE_MIB} MiB",
                found.truncated
            ));
        }
        if found.failed > 0 {
            footer.push_str(&format!("; {} entries could not be read", found.failed));
        }
        footer.push('\n');
        if found.timed_out() {
            self.notify(
                &ctx,
                rmcp::model::LoggingLevel::Warning,
                format!(
                    "search: {} entries were not searched to their end in time (a hung mount, or a pattern costly on them; each says which); their later hits are missing",
                    found.problems.iter().filter(|(_, e)| e.code == canopy_core::ErrorCode::Timeout).count()
                ),
            )
            .await;
        }
        if let Some(why) = &found.cut {
            if found.more && !args.count {
                // The page is whole; only the count past it stopped.
                footer.push_str(&format!(
                    "[BUDGET] counting stopped early ({why}): the totals are at least these\n"
                ));
            } else {
                let resumes = !args.count && (!found.hits.is_empty() || found.resume.is_some());
                let then = if resumes {
                    "; [NEXT] reads on from where it stopped"
                } else {
                    ", and hits may be missing; search a smaller folder"
                };
                footer.push_str(&format!(
                    "[BUDGET] the search stopped early ({why}): the counts are at least these{then}\n"
                ));
            }
            self.notify(
                &ctx,
                rmcp::model::LoggingLevel::Info,
                format!("search cut: {why}"),
            )
            .await;
        }
        let widest = structured_chars(&SearchOutput {
            shown: u64::MAX,
            offset: u64::MAX,
            hits: Vec::new(),
            counts: Vec::new(),
            total: Some(u64::MAX),
            files_with_hits: Some(u64::MAX),
            total_is_lower_bound: true,
            problems: problems.clone(),
            cut: found.cut.clone(),
            next_cursor: None,
        }) + r#","hits":[],"counts":[]"#.len();
        // The longest cursor this page can end with: after one of its hits.
        let widest_cursor = found
            .hits
            .iter()
            .map(SearchPosition::after)
            .chain(found.resume.clone())
            .map(|at| encode_cursor(u64::MAX, key, &at))
            .max_by_key(String::len)
            .unwrap_or_default();
        let next_line = |c: &str| format!("[NEXT] call search with cursor \"{c}\"\n");
        let more_files = |n: usize| format!("[WARNING] {n} more files with hits not shown\n");
        let room = MCP_REPLY_CHARS.saturating_sub(
            widest
                + footer.chars().count()
                // Once in the text, once in the structured result.
                + next_line(&widest_cursor).chars().count()
                + widest_cursor.len()
                + r#","nextCursor":"""#.len()
                + more_files(usize::MAX).chars().count(),
        );
        let mut text = String::new();
        let mut used = 0;
        let mut shown = 0u64;
        let mut hits = Vec::new();
        let mut counts = Vec::new();
        if args.count {
            let listed = args.limit.map_or(usize::MAX, |l| l as usize);
            for (path, n) in found.file_counts.iter().take(listed) {
                let item = FileCount {
                    path: colon_path(path),
                    count: *n,
                };
                let line = format!("{}:{n}\n", item.path);
                let cost = line.chars().count() + item_chars(&item);
                if used + cost > room {
                    break;
                }
                used += cost;
                text.push_str(&line);
                counts.push(item);
            }
            let listable = found.file_counts.len().min(listed);
            if counts.len() < listable {
                text.push_str(&more_files(listable - counts.len()));
            }
        } else {
            for hit in &found.hits {
                let (line, item) = hit_line(hit);
                let cost = line.chars().count() + item_chars(&item);
                if used + cost > room && shown > 0 {
                    break;
                }
                used += cost;
                text.push_str(&line);
                hits.push(item);
                shown += 1;
            }
            if found.hits.is_empty() && !(args.limit == Some(0) && found.more) {
                text.push_str("No match.\n");
            }
        }
        text.push_str(&footer);
        // A page cut by the budget after some hits goes on from its last too.
        let more = !args.count
            && (found.more
                || (shown as usize) < found.hits.len()
                || (found.cut.is_some() && shown > 0));
        // A page the budget cut before its first hit reads on from where
        // the budget stopped it (the engine gives that only past where the
        // page began, so following cursors always gets further).
        let resume = (!args.count && shown == 0)
            .then_some(found.resume.as_ref())
            .flatten()
            .map(|at| encode_cursor(skip, key, at));
        let next_cursor = more
            .then(|| (shown as usize).checked_sub(1))
            .flatten()
            .and_then(|i| found.hits.get(i))
            .map(|last| encode_cursor(skip + shown, key, &SearchPosition::after(last)))
            .or(resume);
        if let Some(c) = &next_cursor {
            text.push_str(&next_line(c));
        }
        let out = SearchOutput {
            shown,
            offset: skip,
            hits,
            counts,
            total: counted.then_some(found.total),
            files_with_hits: (counted && args.content.is_some()).then_some(files_with_hits),
            total_is_lower_bound: counted && lower,
            problems,
            cut: found.cut,
            next_cursor,
        };
        Ok((text, out))
    }
}

#[tool_router(router = search_router, vis = "pub(crate)")]
impl Canopy {
    #[tool(
        name = "search",
        title = "Search names and contents below a folder",
        description = description(),
        input_schema = input_schema::<SearchArgs>(),
        annotations(title = "Search below a folder", read_only_hint = true, destructive_hint = false, open_world_hint = false)
    )]
    async fn search(&self, args: JsonObject, ctx: RequestContext<RoleServer>) -> CallToolResult {
        let outcome = self.search_call(args, ctx.clone()).await;
        self.finish_noted("search", &ctx, outcome).await
    }
}
