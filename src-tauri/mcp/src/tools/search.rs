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
use canopy_core::{CanopyError, SearchHit, SearchQuery};
use rmcp::model::{CallToolResult, JsonObject};
use rmcp::service::RequestContext;
use rmcp::{tool, tool_router, RoleServer};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::grouped;
use super::listing::{excludes_key, parse_excludes, structured_chars, yes};
use crate::engine;
use crate::server::{input_schema, kind_token, output_schema, parse, Canopy};

/// Files larger than this many MiB are searched only that far.
const SEARCH_FILE_MIB: u64 = SEARCH_FILE_BYTES >> 20;

/// What `search` tells a model. Kept under 2 KB (a test checks).
pub fn description() -> String {
    let reply = grouped(MCP_REPLY_CHARS as u64);
    let secs = REQUEST_TIME.as_secs();
    format!("Search below a folder, breadth-first, skipping what git would ignore and `.git` (unless `include_ignored`) and names matched by `exclude`. `name` is a glob over the whole name, as find_in_folder's pattern (`Cargo.toml` that name only, `*config*`, `{{*.rs,*.toml}}`); each hit a `[FILE] path` line. `content` finds lines of files matching a regular expression (`literal: true` for plain text); each hit is `path:LINE: text`, the text cut at {SEARCH_LINE_CHARS} characters and escaped like names. With both, only files whose names match are read. Binary files are skipped and counted; a file is read up to {SEARCH_FILE_MIB} MiB.

The reply ends with `[SEARCHED] F folders, N files, B bytes` and, when the search stopped at its budget ({secs} s of time, names or bytes), `[BUDGET] ...`: its counts are then at least these, and hits may be missing: search a smaller folder. Every reply is at most {reply} characters; `[NEXT] call search with cursor \"<c>\"` continues with the same arguments.")
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
    examples: &[],
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
}

/// `search`'s structured result.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SearchOutput {
    /// Hits on this page, and hits before it.
    pub shown: u64,
    pub offset: u64,
    /// What was searched (at least, when `cut`).
    pub folders: u64,
    pub files: u64,
    pub bytes: u64,
    pub binary_skipped: u64,
    /// `CODE path` of each entry not read.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub problems: Vec<String>,
    /// Why the search stopped early.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cut: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

const CURSOR_VERSION: u8 = 1;

/// A number that tells one search's arguments from another's.
fn args_key(args: &SearchArgs, dev: u64, ino: u64) -> u64 {
    let mut h: u64 =
        0xcbf2_9ce4_8422_2325 ^ excludes_key(&args.exclude) ^ dev ^ ino.rotate_left(17);
    let flags = [
        args.literal,
        args.ignore_case,
        args.include_ignored,
        args.show_dotfiles,
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

fn encode_cursor(skip: u64, key: u64) -> String {
    let mut bytes = vec![CURSOR_VERSION];
    bytes.extend_from_slice(&skip.to_le_bytes());
    bytes.extend_from_slice(&key.to_le_bytes());
    URL_SAFE_NO_PAD.encode(bytes)
}

fn decode_cursor(text: &str, key: u64) -> Result<u64, CanopyError> {
    let bytes = URL_SAFE_NO_PAD
        .decode(text.trim().as_bytes())
        .ok()
        .filter(|b| b.len() == 17 && b[0] == CURSOR_VERSION)
        .ok_or_else(|| {
            CanopyError::invalid(
                "the cursor is not one search issued: pass nextCursor exactly as returned",
            )
        })?;
    let skip = u64::from_le_bytes(bytes[1..9].try_into().unwrap_or_default());
    let k = u64::from_le_bytes(bytes[9..17].try_into().unwrap_or_default());
    if k != key {
        return Err(CanopyError::invalid(
            "the cursor was issued for another search: call again with the same path and arguments",
        ));
    }
    Ok(skip)
}

/// The line's text escaped like names, cut at `SEARCH_LINE_CHARS` characters.
fn line_text(raw: &[u8]) -> String {
    let mut out = String::new();
    let mut chars = 0;
    let mut buf = [0u8; 4];
    for chunk in raw.utf8_chunks() {
        let pieces = chunk
            .valid()
            .chars()
            .map(|c| escape_for_line(c.encode_utf8(&mut buf).as_bytes()))
            .chain(chunk.invalid().iter().map(|b| escape_for_line(&[*b])));
        for piece in pieces.collect::<Vec<_>>() {
            if chars >= SEARCH_LINE_CHARS {
                out.push_str(" [...]");
                return out;
            }
            chars += 1;
            out.push_str(&piece);
        }
    }
    out
}

fn hit_line(hit: &SearchHit) -> String {
    let path = escape_for_line(hit.path.as_os_str().as_bytes());
    match &hit.line {
        Some((n, text)) => format!("{path}:{n}: {}\n", line_text(text)),
        None => {
            let tag = if hit.kind == EntryKind::Folder {
                "DIR"
            } else {
                kind_token(hit.kind).trim_matches(['[', ']'])
            };
            format!("[{tag}] {path}\n")
        }
    }
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
        let skip = args
            .cursor
            .as_deref()
            .map(|c| decode_cursor(c, key))
            .transpose()?
            .unwrap_or(0);
        let cancel = canopy_core::cancel::CancelToken::default();
        let query = SearchQuery {
            name: args.name.clone(),
            content: args.content.clone(),
            literal: args.literal,
            ignore_case: args.ignore_case,
            hide_ignored: !args.include_ignored,
            show_dotfiles: args.show_dotfiles,
            exclude,
            skip,
            limit: u64::from(MCP_PAGE),
            cancel: Some(cancel.clone()),
            time: None,
        };
        let source = self.source.clone();
        let path = opened.path();
        let mut job =
            tokio::task::spawn_blocking(move || canopy_core::search(&source, &path, &query));
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
            "[SEARCHED] {at_least}{} folders, {} files, {} bytes",
            found.folders, found.files, found.bytes
        ));
        if found.binary > 0 {
            footer.push_str(&format!("; {} binary files skipped", found.binary));
        }
        if found.ignored > 0 {
            footer.push_str(&format!(
                "; {} entries hidden as git would ignore them (include_ignored: true searches them)",
                found.ignored
            ));
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
                    "search: {} entries did not answer in time (a dead or hung mount?); their hits are missing",
                    found.problems.iter().filter(|(_, e)| e.code == canopy_core::ErrorCode::Timeout).count()
                ),
            )
            .await;
        }
        if let Some(why) = &found.cut {
            footer.push_str(&format!("[BUDGET] the search stopped early ({why}): the counts are at least these, and hits may be missing; search a smaller folder\n"));
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
            folders: u64::MAX,
            files: u64::MAX,
            bytes: u64::MAX,
            binary_skipped: u64::MAX,
            problems: problems.clone(),
            cut: found.cut.clone(),
            next_cursor: Some(encode_cursor(u64::MAX, u64::MAX)),
        });
        let next_line = |c: &str| format!("[NEXT] call search with cursor \"{c}\"\n");
        let room = MCP_REPLY_CHARS.saturating_sub(
            widest
                + footer.chars().count()
                + next_line(&encode_cursor(u64::MAX, u64::MAX))
                    .chars()
                    .count(),
        );
        let mut text = String::new();
        let mut used = 0;
        let mut shown = 0u64;
        for hit in &found.hits {
            let line = hit_line(hit);
            let n = line.chars().count();
            if used + n > room && shown > 0 {
                break;
            }
            used += n;
            text.push_str(&line);
            shown += 1;
        }
        if found.hits.is_empty() {
            text.push_str("No match.\n");
        }
        text.push_str(&footer);
        let more = found.more || (shown as usize) < found.hits.len();
        let next_cursor = more.then(|| encode_cursor(skip + shown, key));
        if let Some(c) = &next_cursor {
            text.push_str(&next_line(c));
        }
        let out = SearchOutput {
            shown,
            offset: skip,
            folders: found.folders,
            files: found.files,
            bytes: found.bytes,
            binary_skipped: found.binary,
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
        output_schema = output_schema::<SearchOutput>(),
        annotations(title = "Search below a folder", read_only_hint = true, destructive_hint = false, open_world_hint = false)
    )]
    async fn search(&self, args: JsonObject, ctx: RequestContext<RoleServer>) -> CallToolResult {
        let outcome = self.search_call(args, ctx.clone()).await;
        self.finish_noted("search", &ctx, outcome).await
    }
}
