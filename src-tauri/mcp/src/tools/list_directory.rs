//! The `list_directory` tool: a page of a folder, and of its folders below
//! it as far as `depth` and the reply budget allow, one line per entry.
//!
//! Its arguments, its structured result, what it tells a model and its call.

use rmcp::model::{CallToolResult, JsonObject};
use rmcp::service::RequestContext;
use rmcp::{tool, tool_router, RoleServer};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use canopy_core::limits::{MCP_MAX_DEPTH, MCP_REPLY_CHARS, NESTED_CAP};
use canopy_core::CanopyError;

use super::grouped;
use super::listing::{structured_chars, yes, Listed, OrderState, SortOrder, Wanted};
use crate::server::{input_schema, parse, Canopy};

/// What `list_directory` tells a model, its limits taken from
/// [`canopy_core::limits`]. Kept under 2 KB (a test checks).
pub fn description() -> String {
    let reply = grouped(MCP_REPLY_CHARS as u64);
    format!("List a folder, one line per entry: `[DIR] path`, `[FILE] path`, `[ARCHIVE] path`, `[LINK] path -> target` (never followed), `[FIFO]` ..., paths relative to the listed folder. `[CODE] path` (DENIED, TIMEOUT, ...) is the entry above's error. Folders come first, in natural name order (file2 before file10) or by `sort`, over the whole folder.

What git would ignore, and `.git`, is hidden unless `include_ignored`; `[IGNORED] path: N items hidden by ignore rules` counts it (and `exclude`d names). A folder named whose every entry is ignored is listed anyway, an `[IGNORED]` line first. `details` adds size and modified time after a tab.

An `[ARCHIVE]` (zip, tar) opens like a folder (`dl/site.zip/assets`). A name in it that would climb out prints `/` as \\u{{2f}}, then `[UNSAFE_NAME] path`: it is never opened.

Names are escaped so no name can forge a line: \\n, \\t, \\xff (not UTF-8), \\u{{202e}} (invisible or bidi), \\\\. Pass paths back exactly as printed.

Below the listed folder, each folder shows at most {NESTED_CAP} entries: `[WARNING] path: N items hidden (showing first {NESTED_CAP} of M total)`, then `[REST] path: 95 .log, 3 folders` (what is hidden); `[BUDGET] path` did not fit this reply: list it by its path.

Every reply is at most {reply} characters. When more entries exist, it ends with `[NEXT] call list_directory with cursor \"<c>\"`: call again with the same arguments and that cursor. `[PARTIAL_ORDER] path: ...`: only some sizes or times were read in time (use sort name to page).")
}

/// The numbers `list_directory`'s texts state (see [`super::Numbers`]).
#[cfg(test)]
pub(crate) const NUMBERS: super::Numbers = super::Numbers {
    constants: &[
        ("MCP_REPLY_CHARS", MCP_REPLY_CHARS as u64),
        ("NESTED_CAP", NESTED_CAP as u64),
    ],
    examples: &[
        "file2 before file10",
        "not UTF-8",
        "\\u{202e}",
        "\\u{2f}",
        "95 .log, 3 folders",
        "1 is the folder's own entries, 2 adds theirs",
    ],
};

fn default_depth() -> u32 {
    canopy_core::limits::DEFAULT_DEPTH
}

/// `list_directory`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListDirectoryArgs {
    /// The folder, an archive, or a folder inside one: absolute, or relative to the first allowed folder; names as listings print them.
    pub path: String,
    /// Levels to list: 1 is the folder's own entries, 2 adds theirs.
    #[serde(default = "default_depth")]
    #[schemars(range(min = 1, max = MCP_MAX_DEPTH))]
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
    /// Also list what git would ignore and `.git` (hidden by default, counted in `[IGNORED]` lines).
    #[serde(default)]
    pub include_ignored: bool,
    /// Names to leave out of every folder, each a glob over the whole name: `target`, `*.log`, `[._]*`. Case is ignored.
    #[serde(default)]
    pub exclude: Vec<String>,
    /// Add each entry's size and modified time to its line (after a tab).
    #[serde(default)]
    pub details: bool,
}

/// `list_directory`'s structured result: what a client needs to page and to
/// act, in a few hundred characters (the text says the rest). A false flag,
/// a zero count and an order read whole are absent: each costs an agent's
/// context on every reply.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListDirectoryOutput {
    /// The listed folder's real path, escaped.
    pub path: String,
    /// Entries in the folder (at least, when `totalIsLowerBound`).
    pub total: u64,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub total_is_lower_bound: bool,
    /// Position of the page's first entry.
    #[serde(skip_serializing_if = "is_zero")]
    pub offset: u64,
    pub shown: u64,
    /// For the next page; absent on the last.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    pub sort: SortOrder,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub reverse: bool,
    #[serde(skip_serializing_if = "OrderState::is_whole")]
    pub order: OrderState,
    /// Folders shown in part (`[WARNING]`).
    #[serde(skip_serializing_if = "is_zero")]
    pub truncated_folders: u64,
    /// Folders printed `[BUDGET] path`.
    #[serde(skip_serializing_if = "is_zero")]
    pub unexpanded_folders: u64,
    /// With `details`: each shown entry's path, size and modified time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entries: Option<Vec<crate::page::EntryFacts>>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl OrderState {
    /// Every entry was placed in the order, and none had to be read for it.
    fn is_whole(&self) -> bool {
        !self.partial && self.checked.is_none()
    }
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
            order: OrderState {
                partial: true,
                checked: Some(u64::MAX),
            },
            truncated_folders: u64::MAX,
            unexpanded_folders: u64::MAX,
            // Counted by the page, entry by entry.
            entries: None,
        };
        structured_chars(&widest)
    }
}

impl Canopy {
    async fn list_directory_call(
        &self,
        args: JsonObject,
        ctx: RequestContext<RoleServer>,
    ) -> Result<(String, ListDirectoryOutput), CanopyError> {
        let args: ListDirectoryArgs = parse("list_directory", args)?;
        let want = |include_ignored: bool, extra: usize| Wanted {
            path: args.path.clone(),
            depth: args.depth,
            cursor: args.cursor.clone(),
            sort: args.sort,
            reverse: args.reverse,
            show_dotfiles: args.show_dotfiles,
            filter: None,
            include_ignored,
            exclude: args.exclude.clone(),
            details: args.details,
            extra,
            widest: ListDirectoryOutput::widest,
        };
        let details = args.details;
        let mut listed = self
            .listing_call("list_directory", want(args.include_ignored, 0), &ctx)
            .await?;
        // A folder named on purpose whose every entry ignore rules hide (an
        // ignored folder, `node_modules`): listed with them, saying so,
        // rather than an empty page.
        let root = listed.listing.root.folder.as_deref();
        let note = (!args.include_ignored && args.cursor.is_none())
            .then_some(root)
            .flatten()
            .filter(|f| f.total == Some(0) && f.ignored_hidden > 0)
            .map(|f| f.ignored_hidden);
        if let Some(hidden) = note {
            let widest = ignored_note(&listed.path, hidden, true).chars().count();
            listed = self
                .listing_call("list_directory", want(true, widest), &ctx)
                .await?;
        }
        let Listed {
            listing,
            mut page,
            path,
            next_cursor,
        } = listed;
        if let Some(hidden) = note {
            page.text
                .insert_str(0, &ignored_note(&path, hidden, next_cursor.is_some()));
        }
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
            entries: details.then(|| std::mem::take(&mut page.facts)),
        };
        Ok((page.text, out))
    }
}

/// The line that opens the listing of a folder ignore rules hide whole;
/// how to page on only when there is a next page.
fn ignored_note(path: &str, hidden: u64, more: bool) -> String {
    let page_on = if more {
        " (page on with include_ignored: true)"
    } else {
        ""
    };
    format!("[IGNORED] {path}: git ignores all {hidden} entries; listed as named{page_on}\n")
}

#[tool_router(router = list_directory_router, vis = "pub(crate)")]
impl Canopy {
    #[tool(
        name = "list_directory",
        title = "List a folder",
        description = description(),
        input_schema = input_schema::<ListDirectoryArgs>(),
        annotations(title = "List a folder", read_only_hint = true, destructive_hint = false, open_world_hint = false)
    )]
    async fn list_directory(
        &self,
        args: JsonObject,
        ctx: RequestContext<RoleServer>,
    ) -> CallToolResult {
        let outcome = self.list_directory_call(args, ctx.clone()).await;
        self.finish_noted("list_directory", &ctx, outcome).await
    }
}
