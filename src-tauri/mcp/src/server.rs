//! The MCP server: the tools `list_directory`, `find_in_folder` and
//! `read_file` over Canopy's engine, for AI agents.
//!
//! Promises:
//! - every tool is read-only and closed-world (`readOnlyHint: true`,
//!   `openWorldHint: false`), has a title, a description written for a model
//!   (under 2 KB), an input schema and an output schema;
//! - a tool call that fails answers a result with `isError: true` and the
//!   text `CODE: message` (at most `MCP_ERROR_CHARS` characters, however
//!   much of the arguments it quotes), never a protocol error: bad arguments
//!   are `INVALID_ARGUMENT` results too (the model can correct them);
//! - a path is allowed only when the real path of what was opened lies in an
//!   allowed root (see [`crate::access`]); otherwise `DENIED`, naming the roots;
//! - `notifications/cancelled` stops a listing through the engine's cancel
//!   token; a request that carries a progress token gets a progress
//!   notification every `MCP_PROGRESS_INTERVAL` while its listing runs;
//! - at most `MCP_CONCURRENT_CALLS` tool calls touch the filesystem at once;
//!   the others wait their turn (logging `waiting`), and a cancelled one
//!   stops waiting.

use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use canopy_core::cancel::CancelToken;
use canopy_core::dirio::IoHooks;
use canopy_core::limits::{MCP_CONCURRENT_CALLS, MCP_MAX_DEPTH, MCP_MAX_OFFSET, MCP_PROGRESS_INTERVAL, MCP_READ_CHUNK, MCP_REPLY_CHARS, MCP_ROOTS_TIMEOUT};
use canopy_core::wire::{EntryKind, SortBy};
use canopy_core::{CanopyError, ErrorCode};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::schema_for_output;
use rmcp::model::{
    CallToolResult, ContentBlock, Implementation, JsonObject, ProgressNotificationParam, ProtocolVersion, ServerCapabilities,
    ServerConfig,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{tool, tool_handler, tool_router, RoleServer, ServerHandler};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::access;
use crate::engine::{self, ListCall, Opened};
use crate::page;
use crate::read::{self, ReadFileOutput};

/// What `list_directory` tells a model. Kept under 2 KB (a test checks).
pub const LIST_DESCRIPTION: &str = "List a folder, one line per entry: `[DIR] path`, `[FILE] path`, `[LINK] path -> target`, `[FIFO]`, `[SOCKET]`, `[CHAR_DEVICE]`, `[BLOCK_DEVICE]` or `[UNKNOWN]`, paths relative to the listed folder. A target ending in (outside the roots) is outside the allowed folders, not followed. A line `[CODE] path` (DENIED, NOT_FOUND, LOOP, TIMEOUT, ...) says what went wrong with the entry above it. Folders come first, then the rest, in natural name order (file2 before file10), or by `sort`: size (smallest first), modified (oldest first) or type (extension); `reverse` gives largest or newest first. The order covers the whole folder, not only what is shown.

Names are escaped so that no name can forge a line: \\n, \\t, \\r, \\xff (a byte that is not UTF-8), \\u{202e} (an invisible or bidi character), \\\\ (a backslash). Pass paths back exactly as printed: the tools read the escapes back.

Below the listed folder, each folder shows at most 100 entries. `[WARNING] path: N items hidden (showing first 100 of M total)` follows a folder shown in part, then `[REST] path: 95 .log, 3 folders` (what is hidden); `[BUDGET] path` stands for a folder whose entries did not fit this reply. To see the rest of such a folder, call list_directory with its path: the listed folder's path, a slash, the path as printed. To find names in a big folder, call find_in_folder.

Every reply (text and structuredContent) is at most 40,000 characters. When the folder has more entries than fit, the reply ends with `[NEXT] call list_directory with cursor \"<c>\"`: call again with the same path and options and that cursor. No [NEXT] line: the listing is complete. Use depth 1 to page quickly through a huge folder. `[PARTIAL_ORDER] path: order is partial: N of M checked`: only N sizes or times were read in time; the rest follow unsorted and cannot be paged in that order (use sort name).

Paths are absolute, or relative to the first allowed folder. structuredContent holds path, total, offset, shown, nextCursor, order, truncatedFolders and unexpandedFolders (counts).";

/// What `find_in_folder` tells a model. Kept under 2 KB (a test checks).
pub const FIND_DESCRIPTION: &str = "Find the entries of one folder whose names match a pattern, over the whole folder however big (its own entries, not its subfolders'). A plain pattern matches anywhere in the name (`report` finds `Q3_Report.pdf`); one with `*`, `?` or `[...]` is a glob over the whole name (`*.jpg`, `IMG_??.png`, `[ab]*`). Case is ignored; a `[` without a closing `]` is a plain character.

The first line counts the matches: `[MATCH] folder: M of N entries match \"PATTERN\"` (the pattern escaped like names). Then one line per match as list_directory prints entries (`[DIR] name`, `[FILE] name`, ...), folders first, in natural name order or by `sort` (size, modified, type; `reverse` for largest or newest first). Names are escaped as in list_directory; pass them back as printed.

Every reply (text and structuredContent) is at most 40,000 characters. When more match than fit, `[WARNING]` says how many are hidden and the reply ends with `[NEXT] call find_in_folder with cursor \"<c>\"`: call again with the same path, pattern and options and that cursor (also structuredContent.nextCursor). No [NEXT] line: every match was shown. To look inside a matching folder, call list_directory with its path (the searched folder's path, a slash, the name as printed).

A pattern that is empty, holds `/` or is longer than 1024 bytes is INVALID_ARGUMENT. structuredContent holds path, matching (substring or glob), matched M, total N, offset, shown, nextCursor and order.";

/// What `read_file` tells a model. Kept under 2 KB (a test checks).
pub const READ_DESCRIPTION: &str = "Read part of a file: at most 32768 bytes per call, from `offset` (default 0). The first line says what is shown, e.g. `[TEXT utf-8] showing bytes 0-32768 of 100000; call read_file with offset 32768 for more` (the encoding is detected: utf-8, utf-16le, utf-16be or windows-1252), or `[BINARY] showing bytes 0-4096 of 9000 as a hex dump` (a binary file shows at most 4096 bytes per call). A file whose size reads 0 but that has content, as in /proc, says `of unknown size`. The content follows a blank line; `end of file` in the first line means there is no more.

Only regular files are read. A folder, fifo, socket or device is refused with NOT_A_FILE and never opened. Paths are absolute, or relative to the first allowed folder, written as list_directory prints them (its escapes are read back). structuredContent holds offset, length, size, nextOffset (absent at the end), content (text or binary), encoding and lossy.";

/// The orders a listing can be in (folders first under each).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[schemars(inline)]
pub enum SortOrder {
    #[default]
    Name,
    Size,
    Modified,
    Type,
}

impl From<SortOrder> for SortBy {
    fn from(o: SortOrder) -> SortBy {
        match o {
            SortOrder::Name => SortBy::Name,
            SortOrder::Size => SortBy::Size,
            SortOrder::Modified => SortBy::Modified,
            SortOrder::Type => SortBy::Type,
        }
    }
}

fn default_depth() -> u32 {
    canopy_core::limits::DEFAULT_DEPTH
}
fn yes() -> bool {
    true
}

/// `list_directory`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListDirectoryArgs {
    /// The folder: absolute, or relative to the first allowed folder; names as listings print them.
    pub path: String,
    /// Levels to list: 1 is the folder's own entries, 2 adds theirs.
    #[serde(default = "default_depth")]
    #[schemars(range(min = 1, max = 10))]
    pub depth: u32,
    /// The nextCursor of the previous page of this same folder, to get the next page.
    #[serde(default)]
    pub cursor: Option<String>,
    /// The order of every folder listed, folders first: name (natural: file2 before file10), size (smallest first), modified (oldest first) or type (by extension, then name).
    #[serde(default)]
    pub sort: SortOrder,
    /// Reverse the order (size: largest first; modified: newest first). Ties stay in name order.
    #[serde(default)]
    pub reverse: bool,
    /// List names starting with a dot.
    #[serde(default = "yes")]
    pub show_dotfiles: bool,
}

/// `list_directory`'s structured result: what a client needs to page and to
/// act, in a few hundred characters (the text says the rest).
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListDirectoryOutput {
    /// The listed folder's real path, escaped as names are printed.
    pub path: String,
    /// Entries in the folder (after the dotfile setting); at least this many when `totalIsLowerBound`.
    pub total: u64,
    /// Reading the folder was cut short (it did not answer in time).
    pub total_is_lower_bound: bool,
    /// Position of this page's first entry in the folder's order.
    pub offset: u64,
    /// Top-level entries on this page.
    pub shown: u64,
    /// Pass as `cursor`, with the same path and options, for the next page; absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// The order every folder is listed in.
    pub sort: SortOrder,
    /// The order is reversed.
    pub reverse: bool,
    /// Whether the listed folder's order is whole.
    pub order: OrderState,
    /// Folders below the listed one shown in part: each has its `[WARNING] path` and `[REST] path` lines in the text.
    pub truncated_folders: u64,
    /// Folders below the listed one printed `[BUDGET] path`: list each by its path to see it.
    pub unexpanded_folders: u64,
}

/// `read_file`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadFileArgs {
    /// The file: absolute, or relative to the first allowed folder; names as listings print them.
    pub path: String,
    /// First byte to read.
    #[serde(default)]
    pub offset: u64,
    /// Bytes to read, at most 32768 (the default).
    #[serde(default)]
    #[schemars(range(min = 1, max = 32768))]
    pub length: Option<u64>,
}

/// `find_in_folder`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FindInFolderArgs {
    /// The folder to search, as for list_directory.
    pub path: String,
    /// What entry names must match: text found anywhere in the name, or a glob over the whole name when it holds *, ? or [...]. Case is ignored.
    pub pattern: String,
    /// The nextCursor of the previous page of this same search (same path, pattern and options).
    #[serde(default)]
    pub cursor: Option<String>,
    /// The order of the matches, folders first: name, size, modified or type.
    #[serde(default)]
    pub sort: SortOrder,
    /// Reverse the order (size: largest first; modified: newest first).
    #[serde(default)]
    pub reverse: bool,
    /// Search names starting with a dot too.
    #[serde(default = "yes")]
    pub show_dotfiles: bool,
}

/// How `find_in_folder` read its pattern.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[schemars(inline)]
pub enum PatternKind {
    /// Found anywhere in the name.
    Substring,
    /// Matched against the whole name.
    Glob,
}

/// Whether a folder's order is whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct OrderState {
    /// The shown entries are the first of those that could be placed, not of the whole folder: under size or modified, the size or time of only `checked` entries could be read in time (the rest sort after them, and this order cannot be paged further: use sort name), or the folder was not read in full.
    pub partial: bool,
    /// Under size or modified: entries whose size or time was read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checked: Option<u64>,
}

impl OrderState {
    fn of(folder: Option<&canopy_core::wire::Folder>) -> OrderState {
        OrderState { partial: folder.is_some_and(|f| f.partial_order), checked: folder.and_then(|f| f.checked) }
    }
}

/// `find_in_folder`'s structured result: what a client needs to page and
/// to act (the pattern is the one it sent).
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FindInFolderOutput {
    /// The searched folder's real path, escaped as names are printed.
    pub path: String,
    /// How the pattern was read.
    pub matching: PatternKind,
    /// Entries whose name matches.
    pub matched: u64,
    /// Entries in the folder (after the dotfile setting).
    pub total: u64,
    /// Reading the folder was cut short: at least `matched` of at least `total`.
    pub counts_are_lower_bounds: bool,
    /// Position of this page's first match among the matches.
    pub offset: u64,
    /// Matches on this page.
    pub shown: u64,
    /// Pass as `cursor`, with the same path, pattern and options, for the next page; absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// The order of the matches.
    pub sort: SortOrder,
    /// The order is reversed.
    pub reverse: bool,
    /// Whether the matches' order is whole.
    pub order: OrderState,
}

impl ListDirectoryOutput {
    /// The longest this result can serialize to, for the folder printed
    /// as `path` and a cursor of `cursor_chars`.
    fn widest(path: &str, cursor_chars: usize) -> usize {
        let widest = ListDirectoryOutput {
            path: path.into(),
            total: u64::MAX,
            total_is_lower_bound: true,
            offset: u64::MAX,
            shown: u64::MAX,
            next_cursor: Some("A".repeat(cursor_chars)),
            sort: SortOrder::Modified,
            reverse: true,
            order: OrderState { partial: true, checked: Some(u64::MAX) },
            truncated_folders: u64::MAX,
            unexpanded_folders: u64::MAX,
        };
        structured_chars(&widest)
    }
}

impl FindInFolderOutput {
    /// The longest this result can serialize to, for the folder printed
    /// as `path` and a cursor of `cursor_chars`.
    fn widest(path: &str, cursor_chars: usize) -> usize {
        let widest = FindInFolderOutput {
            path: path.into(),
            matching: PatternKind::Substring,
            matched: u64::MAX,
            total: u64::MAX,
            counts_are_lower_bounds: true,
            offset: u64::MAX,
            shown: u64::MAX,
            next_cursor: Some("A".repeat(cursor_chars)),
            sort: SortOrder::Modified,
            reverse: true,
            order: OrderState { partial: true, checked: Some(u64::MAX) },
        };
        structured_chars(&widest)
    }
}

/// Characters of `structuredContent` as sent (compact JSON): they count in
/// the reply's budget with the text's.
fn structured_chars<T: Serialize>(value: &T) -> usize {
    serde_json::to_string(value).map_or(0, |s| s.chars().count())
}

/// What a listing call asks, whichever tool makes it.
struct Wanted {
    path: String,
    depth: u32,
    cursor: Option<String>,
    sort: SortOrder,
    reverse: bool,
    show_dotfiles: bool,
    filter: Option<String>,
}

/// A listing and its rendered page.
struct Listed {
    listing: canopy_core::wire::Listing,
    page: page::Page,
    /// The listed folder's real path, escaped.
    path: String,
    next_cursor: Option<String>,
}

fn input_schema<T: JsonSchema + 'static>() -> Arc<JsonObject> {
    rmcp::handler::server::tool::schema_for_input::<T>().unwrap_or_else(|e| panic!("{e}"))
}

/// The client's roots, as far as this session knows them.
#[derive(Debug, Default)]
struct ClientRoots {
    /// Real paths of the client's roots, once listed.
    known: Option<Vec<PathBuf>>,
    /// Bumped by `notifications/roots/list_changed`: a listing begun
    /// before is not kept.
    generation: u64,
}

/// The server: allowed roots, and the session's view of the client's.
#[derive(Clone)]
pub struct Canopy {
    roots: Arc<Vec<PathBuf>>,
    client_roots: Arc<Mutex<ClientRoots>>,
    /// Turns of the filesystem: a call holds one while it runs.
    turns: Arc<Semaphore>,
    hooks: IoHooks,
    tool_router: ToolRouter<Canopy>,
}

/// `CODE: message`, cut to `MCP_ERROR_CHARS`: a message may quote what the
/// agent sent (a path of a megabyte, a value), and a reply keeps its budget.
fn error_text(e: &CanopyError) -> String {
    crate::transport::cut(&format!("{}: {}", e.code, e.message)).into_owned()
}

fn error_result(e: &CanopyError) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(error_text(e))])
}

fn success<T: Serialize>(text: String, structured: &T) -> CallToolResult {
    let mut r = CallToolResult::success(vec![ContentBlock::text(text)]);
    r.structured_content = serde_json::to_value(structured).ok();
    r
}

fn parse<T: serde::de::DeserializeOwned>(tool: &str, args: JsonObject) -> Result<T, CanopyError> {
    serde_json::from_value(serde_json::Value::Object(args))
        .map_err(|e| CanopyError::invalid(format!("the arguments do not fit {tool}'s input schema: {e}")))
}

/// One line on stderr per call: what it came to (never a name).
fn log(tool: &str, what: &str) {
    crate::diagnostics::line(format!("{tool}: {what}"));
}

fn finish<T: Serialize>(tool: &str, outcome: Result<(String, T), CanopyError>) -> CallToolResult {
    match outcome {
        Ok((text, out)) => {
            log(tool, "ok");
            success(text, &out)
        }
        Err(e) => {
            log(tool, e.code.as_str());
            error_result(&e)
        }
    }
}

fn kind_token(kind: EntryKind) -> &'static str {
    canopy_core::text::tag(kind).trim_end()
}

fn roots_text(roots: &[PathBuf]) -> String {
    if roots.is_empty() {
        return "none (the client's roots and the server's --root folders do not overlap)".into();
    }
    roots.iter().map(|r| engine::shown_path(r)).collect::<Vec<_>>().join(", ")
}

/// `path` without `.` and with `..` taken lexically (for a path that could not be opened).
fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// A client's root as a real folder, looked up only where this server may
/// look: `..` is taken lexically, and the path is resolved only when it lies
/// within a server root or above one (whose ancestors are known to exist).
/// Any other is dropped without being looked at, so the roots a client
/// lists tell nothing of what exists outside (a client root reached only
/// through a symlink elsewhere is dropped too).
fn client_root(path: &Path, server: &[PathBuf]) -> Option<PathBuf> {
    let path = lexical(path);
    let near = server.iter().any(|r| access::within(&path, r) || access::within(r, &path));
    if !near {
        return None;
    }
    engine::real_folder(&path).ok()
}

async fn blocking<T: Send + 'static>(job: impl FnOnce() -> Result<T, CanopyError> + Send + 'static) -> Result<T, CanopyError> {
    tokio::task::spawn_blocking(job)
        .await
        .unwrap_or_else(|e| Err(CanopyError::new(ErrorCode::Io, format!("the engine stopped unexpectedly: {e}"))))
}

impl Canopy {
    /// A server for the real folders `roots` (at least one).
    pub fn new(roots: Vec<PathBuf>, hooks: IoHooks) -> Self {
        Canopy {
            roots: Arc::new(roots),
            client_roots: Arc::default(),
            turns: Arc::new(Semaphore::new(MCP_CONCURRENT_CALLS)),
            hooks, tool_router: Self::tool_router() }
    }

    /// Waits for a turn of the filesystem (see `MCP_CONCURRENT_CALLS`), or
    /// for the request to be cancelled.
    async fn turn(&self, tool: &str, ctx: &RequestContext<RoleServer>) -> Result<OwnedSemaphorePermit, CanopyError> {
        if let Ok(p) = self.turns.clone().try_acquire_owned() {
            return Ok(p);
        }
        log(tool, "waiting");
        tokio::select! {
            p = self.turns.clone().acquire_owned() => p.map_err(|_| CanopyError::new(ErrorCode::Io, "the server is stopping")),
            _ = ctx.ct.cancelled() => Err(CanopyError::cancelled()),
        }
    }

    /// The folders this call may see: `--root`, narrowed by the client's roots when it offers them.
    // Roots are deprecated from protocol 2026-07-28 on; this server speaks
    // the revisions before it, where `roots/list` is how a client says them.
    #[allow(deprecated)]
    async fn allowed(&self, ctx: &RequestContext<RoleServer>) -> Result<Vec<PathBuf>, CanopyError> {
        let offers = ctx.peer.peer_info().is_some_and(|info| info.capabilities.roots.is_some());
        if !offers {
            return Ok(self.roots.to_vec());
        }
        let generation = {
            let known = self.client_roots.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(client) = &known.known {
                return Ok(access::intersect(&self.roots, client));
            }
            known.generation
        };
        let listed = tokio::time::timeout(MCP_ROOTS_TIMEOUT, ctx.peer.list_roots()).await;
        let listed = match listed {
            Ok(Ok(r)) => r,
            Ok(Err(e)) => return Err(CanopyError::new(ErrorCode::Io, format!("the client offers roots but could not list them: {e}"))),
            Err(_) => return Err(CanopyError::new(ErrorCode::Timeout, "the client offers roots but did not list them in time")),
        };
        let uris: Vec<PathBuf> = listed.roots.iter().filter_map(|r| access::file_uri_path(&r.uri)).collect();
        let server = self.roots.clone();
        let client = blocking(move || Ok(uris.iter().filter_map(|p| client_root(p, &server)).collect::<Vec<_>>())).await?;
        let allowed = access::intersect(&self.roots, &client);
        let mut known = self.client_roots.lock().unwrap_or_else(|e| e.into_inner());
        if known.generation == generation {
            known.known = Some(client);
        }
        Ok(allowed)
    }

    /// Opens the path an agent gave, and checks that what was opened lies in `roots`.
    async fn open_allowed(&self, text: &str, roots: Vec<PathBuf>) -> Result<Opened, CanopyError> {
        if text.is_empty() {
            return Err(CanopyError::invalid("the path is empty"));
        }
        let given = engine::printed_path(text)?;
        let outside = move |roots: &[PathBuf]| {
            CanopyError::new(
                ErrorCode::Denied,
                format!("{text} is outside the folders this server may show: {}", roots_text(roots)),
            )
        };
        let Some(first) = roots.first().cloned() else { return Err(outside(&roots)) };
        let path = if given.is_absolute() { given } else { first.join(given) };
        // Where it leads is found looking only inside the roots, through
        // descriptors, so whether a path outside them exists (or answers) is
        // never told, and never looked at, even while links are swapped; what
        // that walk holds at its end is what is listed or read.
        let shared = Arc::new(roots.clone());
        let asked = lexical(&path);
        match blocking(move || engine::leads(&path, shared)).await? {
            access::Leads::Inside(real, held) => Ok(Opened::from(real, held)),
            access::Leads::Outside => Err(outside(&roots)),
            // A path that names a place outside, failing inside on its way.
            access::Leads::Fails(_) if !roots.iter().any(|r| access::within(&asked, r)) => Err(outside(&roots)),
            access::Leads::Fails(e) => Err(e),
        }
    }

    /// Runs a listing on a blocking thread, stopping it when the request is
    /// cancelled and reporting progress while it runs.
    async fn run_listing(
        &self,
        ctx: &RequestContext<RoleServer>,
        cancel: CancelToken,
        folders: Arc<AtomicU64>,
        job: impl FnOnce() -> Result<(canopy_core::wire::Listing, Opened), CanopyError> + Send + 'static,
    ) -> Result<(canopy_core::wire::Listing, Opened), CanopyError> {
        let mut task = tokio::task::spawn_blocking(job);
        let token = ctx.meta.get_progress_token();
        let start = Instant::now();
        let mut tick = tokio::time::interval_at(tokio::time::Instant::now() + MCP_PROGRESS_INTERVAL, MCP_PROGRESS_INTERVAL);
        loop {
            tokio::select! {
                done = &mut task => {
                    return done.unwrap_or_else(|e| Err(CanopyError::new(ErrorCode::Io, format!("the engine stopped unexpectedly: {e}"))));
                }
                _ = ctx.ct.cancelled(), if !cancel.is_cancelled() => {
                    // The engine checks its token between batches: the listing stops within one.
                    cancel.cancel();
                }
                _ = tick.tick(), if token.is_some() => {
                    if let Some(token) = &token {
                        let secs = start.elapsed().as_secs_f64();
                        let n = folders.load(Ordering::Relaxed);
                        let note = ProgressNotificationParam::new(token.clone(), (secs * 10.0).round() / 10.0)
                            .with_message(format!("listing: {n} folders read in {secs:.1} s"));
                        let _ = ctx.peer.notify_progress(note).await;
                    }
                }
            }
        }
    }

    /// Lists a folder for `tool`: checks the arguments and the roots, runs
    /// the engine (cancellable, with progress) and renders the page.
    async fn listing_call(&self, tool: &'static str, want: Wanted, ctx: &RequestContext<RoleServer>) -> Result<Listed, CanopyError> {
        if !(1..=MCP_MAX_DEPTH).contains(&want.depth) {
            return Err(CanopyError::invalid(format!("depth must be 1 to {MCP_MAX_DEPTH}, not {}", want.depth)));
        }
        let _turn = self.turn(tool, ctx).await?;
        let roots = self.allowed(ctx).await?;
        let opened = self.open_allowed(&want.path, roots.clone()).await?;
        if opened.kind != EntryKind::Folder {
            let hint = if opened.kind == EntryKind::File { ": call read_file to read it" } else { "" };
            return Err(CanopyError::new(
                ErrorCode::NotADirectory,
                format!("{} is not a folder ({}){hint}", want.path, kind_token(opened.kind)),
            ));
        }
        let (dev, ino) = (opened.dev, opened.ino);
        let after = want.cursor.as_deref().map(|c| page::decode_cursor(c, dev, ino)).transpose()?;
        let filter_bytes = want.filter.as_ref().map_or(0, String::len);
        let cancel = CancelToken::default();
        let folders = Arc::new(AtomicU64::new(0));
        let counter = folders.clone();
        let call = ListCall {
            depth: want.depth,
            after,
            show_dotfiles: want.show_dotfiles,
            sort: want.sort.into(),
            reverse: want.reverse,
            filter: want.filter,
            cancel: cancel.clone(),
            on_folder: Arc::new(move || {
                counter.fetch_add(1, Ordering::Relaxed);
            }),
            hooks: self.hooks.clone(),
        };
        log(tool, "started");
        let job = move || {
            let mut listing = engine::list(&opened, call)?;
            engine::confine_links(&mut listing, &opened.real, &roots);
            Ok((listing, opened))
        };
        let (listing, opened) = self.run_listing(ctx, cancel, folders, job).await?;
        let label = match opened.real.file_name() {
            Some(name) => canopy_core::names::escape_for_line(name.as_bytes()),
            None => engine::shown_path(&opened.real),
        };
        let reserve = page::next_line_reserve(tool, filter_bytes);
        // The structured result counts in the budget too: the text gets what
        // its widest form leaves.
        let cursor_chars = page::max_cursor_len(filter_bytes);
        let path = engine::shown_path(&opened.real);
        let structured = match tool {
            "find_in_folder" => FindInFolderOutput::widest(&path, cursor_chars),
            _ => ListDirectoryOutput::widest(&path, cursor_chars),
        };
        let mut page = page::render(&listing, &label, MCP_REPLY_CHARS.saturating_sub(structured), reserve);
        let engine_next = if page.cut { engine::cursor_after(&listing, page.shown - 1)? } else { listing.next_cursor.clone() };
        let next_cursor = engine_next.map(|c| page::encode_cursor(dev, ino, &c));
        if let Some(c) = &next_cursor {
            page.text.push_str(&page::next_line(tool, c));
        }
        Ok(Listed { listing, page, path, next_cursor })
    }

    async fn list_directory_call(&self, args: JsonObject, ctx: RequestContext<RoleServer>) -> Result<(String, ListDirectoryOutput), CanopyError> {
        let args: ListDirectoryArgs = parse("list_directory", args)?;
        let want = Wanted {
            path: args.path,
            depth: args.depth,
            cursor: args.cursor,
            sort: args.sort,
            reverse: args.reverse,
            show_dotfiles: args.show_dotfiles,
            filter: None,
        };
        let Listed { listing, page, path, next_cursor } = self.listing_call("list_directory", want, &ctx).await?;
        let folder = listing.root.folder.as_deref();
        let out = ListDirectoryOutput {
            path,
            total: folder.and_then(|f| f.total).unwrap_or(0),
            total_is_lower_bound: folder.is_some_and(|f| f.count_is_lower_bound),
            offset: folder.map_or(0, |f| f.offset),
            shown: page.shown as u64,
            next_cursor,
            sort: args.sort,
            reverse: args.reverse,
            order: OrderState::of(folder),
            truncated_folders: page.truncated,
            unexpanded_folders: page.unexpanded,
        };
        Ok((page.text, out))
    }

    async fn find_in_folder_call(&self, args: JsonObject, ctx: RequestContext<RoleServer>) -> Result<(String, FindInFolderOutput), CanopyError> {
        let args: FindInFolderArgs = parse("find_in_folder", args)?;
        let glob = engine::check_pattern(&args.pattern)?;
        let want = Wanted {
            path: args.path,
            depth: 1,
            cursor: args.cursor,
            sort: args.sort,
            reverse: args.reverse,
            show_dotfiles: args.show_dotfiles,
            filter: Some(args.pattern.clone()),
        };
        let Listed { listing, page, path, next_cursor } = self.listing_call("find_in_folder", want, &ctx).await?;
        let folder = listing.root.folder.as_deref();
        let out = FindInFolderOutput {
            path,
            matching: if glob { PatternKind::Glob } else { PatternKind::Substring },
            matched: folder.and_then(|f| f.total).unwrap_or(0),
            total: folder.and_then(|f| f.unfiltered_total).unwrap_or(0),
            counts_are_lower_bounds: folder.is_some_and(|f| f.count_is_lower_bound),
            offset: folder.map_or(0, |f| f.offset),
            shown: page.shown as u64,
            next_cursor,
            sort: args.sort,
            reverse: args.reverse,
            order: OrderState::of(folder),
        };
        Ok((page.text, out))
    }

    async fn read_file_call(&self, args: JsonObject, ctx: RequestContext<RoleServer>) -> Result<(String, ReadFileOutput), CanopyError> {
        let args: ReadFileArgs = parse("read_file", args)?;
        let asked = args.length.unwrap_or(MCP_READ_CHUNK);
        if asked == 0 {
            return Err(CanopyError::invalid("length must be at least 1"));
        }
        if args.offset > MCP_MAX_OFFSET {
            return Err(CanopyError::invalid(format!("offset must be at most {MCP_MAX_OFFSET}, not {}", args.offset)));
        }
        let length = asked.min(MCP_READ_CHUNK);
        let _turn = self.turn("read_file", &ctx).await?;
        let roots = self.allowed(&ctx).await?;
        let opened = self.open_allowed(&args.path, roots).await?;
        match opened.kind {
            EntryKind::File => {}
            EntryKind::Folder => {
                return Err(CanopyError::new(
                    ErrorCode::NotAFile,
                    format!("{} is a folder ([DIR]): call list_directory to list it", args.path),
                ))
            }
            kind => {
                return Err(CanopyError::new(
                    ErrorCode::NotAFile,
                    format!("{} is {} ({}): only regular files are read, and it was not opened", args.path, kind_name(kind), kind_token(kind)),
                ))
            }
        }
        let offset = args.offset;
        let chunk = blocking(move || engine::read(opened, offset, length)).await?;
        let clamped = (asked > MCP_READ_CHUNK).then_some(MCP_READ_CHUNK);
        Ok(read::render(&chunk, clamped))
    }
}

fn kind_name(kind: EntryKind) -> &'static str {
    match kind {
        EntryKind::Fifo => "a fifo",
        EntryKind::Socket => "a socket",
        EntryKind::CharDevice => "a character device",
        EntryKind::BlockDevice => "a block device",
        EntryKind::Symlink => "a symlink",
        EntryKind::Folder => "a folder",
        EntryKind::File => "a file",
        EntryKind::Unknown => "of an unknown kind",
    }
}

#[tool_router]
impl Canopy {
    #[tool(
        name = "list_directory",
        title = "List a folder",
        description = LIST_DESCRIPTION,
        input_schema = input_schema::<ListDirectoryArgs>(),
        output_schema = schema_for_output::<ListDirectoryOutput>(),
        annotations(title = "List a folder", read_only_hint = true, destructive_hint = false, open_world_hint = false)
    )]
    async fn list_directory(&self, args: JsonObject, ctx: RequestContext<RoleServer>) -> CallToolResult {
        let outcome = self.list_directory_call(args, ctx).await;
        finish("list_directory", outcome)
    }

    #[tool(
        name = "find_in_folder",
        title = "Find entries in a folder by name",
        description = FIND_DESCRIPTION,
        input_schema = input_schema::<FindInFolderArgs>(),
        output_schema = schema_for_output::<FindInFolderOutput>(),
        annotations(title = "Find entries in a folder by name", read_only_hint = true, destructive_hint = false, open_world_hint = false)
    )]
    async fn find_in_folder(&self, args: JsonObject, ctx: RequestContext<RoleServer>) -> CallToolResult {
        let outcome = self.find_in_folder_call(args, ctx).await;
        finish("find_in_folder", outcome)
    }

    #[tool(
        name = "read_file",
        title = "Read part of a file",
        description = READ_DESCRIPTION,
        input_schema = input_schema::<ReadFileArgs>(),
        output_schema = schema_for_output::<ReadFileOutput>(),
        annotations(title = "Read part of a file", read_only_hint = true, destructive_hint = false, open_world_hint = false)
    )]
    async fn read_file(&self, args: JsonObject, ctx: RequestContext<RoleServer>) -> CallToolResult {
        let outcome = self.read_file_call(args, ctx).await;
        finish("read_file", outcome)
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Canopy {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("canopy-mcp", env!("CARGO_PKG_VERSION")).with_title("Canopy"))
            .with_instructions(format!(
                "Canopy lists folders (in name, size, modified or type order), finds entries of a folder by name, and reads files, read-only, under: {}. Every reply fits 40,000 characters; follow [NEXT] cursors to page, list a folder by its path to see what a listing left out, and call find_in_folder rather than paging a huge folder for a name.",
                roots_text(&self.roots)
            ))
    }

    /// The revisions with an `initialize` handshake, whose `roots/list`
    /// this server asks when the client offers roots.
    fn supported_protocol_versions(&self) -> std::borrow::Cow<'static, [ProtocolVersion]> {
        std::borrow::Cow::Borrowed(ProtocolVersion::known_up_to(&ProtocolVersion::V_2025_11_25))
    }

    async fn on_roots_list_changed(&self, _ctx: NotificationContext<RoleServer>) {
        let mut known = self.client_roots.lock().unwrap_or_else(|e| e.into_inner());
        known.known = None;
        known.generation += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptions_stay_under_two_kilobytes() {
        for d in [LIST_DESCRIPTION, FIND_DESCRIPTION, READ_DESCRIPTION] {
            assert!(d.len() < 2048, "{} bytes: {d}", d.len());
        }
    }
}
