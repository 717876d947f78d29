//! The `find_in_folder` tool: the entries of one folder whose names match a
//! pattern, over the whole folder however big, a page at a time.
//!
//! Its arguments, its structured result, what it tells a model and its call.

use rmcp::model::{CallToolResult, JsonObject};
use rmcp::service::RequestContext;
use rmcp::{tool, tool_router, RoleServer};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use canopy_core::limits::{MAX_FILTER_BYTES, MCP_REPLY_CHARS};
use canopy_core::CanopyError;

use super::grouped;
use super::listing::{structured_chars, yes, Listed, OrderState, SortOrder, Wanted};
use crate::engine;
use crate::server::{input_schema, parse, Canopy};

/// What `find_in_folder` tells a model, its limits taken from
/// [`canopy_core::limits`]. Kept under 2 KB (a test checks).
pub fn description() -> String {
    let reply = grouped(MCP_REPLY_CHARS as u64);
    format!("Find the entries of one folder (not its subfolders': call search for those) whose names match a pattern, over the whole folder however big; an archive or a folder in one too. The pattern is a glob over the whole name, as `find -name` reads it: `Cargo.toml` is that name only, `*config*` holds it, `*.jpg`, `IMG_??.png`, `[ab]*`, `{{*.rs,Cargo.*}}` alternatives. Case is ignored; `[*]` matches a `*` itself.

The first line is `[MATCH] folder: M of N entries match \"PATTERN\"`, then one line per match as list_directory prints entries, in its order (`sort`, `reverse`).

Every reply is at most {reply} characters. When more match than fit, `[WARNING]` says how many are hidden and the reply ends with `[NEXT] call find_in_folder with cursor \"<c>\"`: call again with the same arguments and that cursor.

A pattern that is empty, malformed (an unclosed `[` or `{{`), holds `/` or is longer than {MAX_FILTER_BYTES} bytes is INVALID_ARGUMENT with the reason.")
}

/// The numbers `find_in_folder`'s texts state (see [`super::Numbers`]).
#[cfg(test)]
pub(crate) const NUMBERS: super::Numbers = super::Numbers {
    constants: &[
        ("MCP_REPLY_CHARS", MCP_REPLY_CHARS as u64),
        ("MAX_FILTER_BYTES", MAX_FILTER_BYTES as u64),
    ],
    examples: &[],
};

/// `find_in_folder`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FindInFolderArgs {
    /// The folder to search, as for list_directory (an archive or a folder inside one too).
    pub path: String,
    /// A glob over the whole name (`*`, `?`, `[...]`, `{a,b}`); case is ignored.
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
    /// Also search what git would ignore and `.git`.
    #[serde(default)]
    pub include_ignored: bool,
}

/// `find_in_folder`'s structured result: what a client needs to page and
/// to act (the pattern is the one it sent).
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FindInFolderOutput {
    /// The searched folder's real path, escaped.
    pub path: String,
    pub matched: u64,
    pub total: u64,
    /// At least `matched` of at least `total`.
    pub counts_are_lower_bounds: bool,
    /// Position of the page's first match.
    pub offset: u64,
    pub shown: u64,
    /// For the next page; absent on the last.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    pub sort: SortOrder,
    pub reverse: bool,
    pub order: OrderState,
}

impl FindInFolderOutput {
    /// The longest this result can serialize to, for the folder printed
    /// as `path` and a cursor of `cursor_chars`.
    fn widest(path: &str, cursor_chars: usize) -> usize {
        let widest = FindInFolderOutput {
            path: path.into(),
            matched: u64::MAX,
            total: u64::MAX,
            counts_are_lower_bounds: true,
            offset: u64::MAX,
            shown: u64::MAX,
            next_cursor: Some("A".repeat(cursor_chars)),
            sort: SortOrder::Modified,
            reverse: true,
            order: OrderState {
                partial: true,
                checked: Some(u64::MAX),
            },
        };
        structured_chars(&widest)
    }
}

impl Canopy {
    async fn find_in_folder_call(
        &self,
        args: JsonObject,
        ctx: RequestContext<RoleServer>,
    ) -> Result<(String, FindInFolderOutput), CanopyError> {
        let args: FindInFolderArgs = parse("find_in_folder", args)?;
        engine::check_pattern(&args.pattern)?;
        let want = Wanted {
            path: args.path,
            depth: 1,
            cursor: args.cursor,
            sort: args.sort,
            reverse: args.reverse,
            show_dotfiles: args.show_dotfiles,
            filter: Some(args.pattern.clone()),
            include_ignored: args.include_ignored,
            exclude: Vec::new(),
            details: false,
            extra: 0,
            widest: FindInFolderOutput::widest,
        };
        let Listed {
            listing,
            page,
            path,
            next_cursor,
        } = self.listing_call("find_in_folder", want, &ctx).await?;
        let folder = listing.root.folder.as_deref();
        let out = FindInFolderOutput {
            path,
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
}

#[tool_router(router = find_in_folder_router, vis = "pub(crate)")]
impl Canopy {
    #[tool(
        name = "find_in_folder",
        title = "Find entries in a folder by name",
        description = description(),
        input_schema = input_schema::<FindInFolderArgs>(),
        annotations(title = "Find entries in a folder by name", read_only_hint = true, destructive_hint = false, open_world_hint = false)
    )]
    async fn find_in_folder(
        &self,
        args: JsonObject,
        ctx: RequestContext<RoleServer>,
    ) -> CallToolResult {
        let outcome = self.find_in_folder_call(args, ctx.clone()).await;
        self.finish_noted("find_in_folder", &ctx, outcome).await
    }
}
