//! The `folder_sizes` tool: which children of a folder are biggest, counted
//! as `du -x` counts (the engine's [`canopy_core::sizes`]), a few levels
//! down, within the reply budget.
//!
//! Its arguments, its structured result, what it tells a model and its call.
//! A figure that could not be finished (a folder it could not read, a dead
//! mount, the request's budget) is printed with `≥` and the reason, never
//! as if it were exact.

use canopy_core::cancel::CancelToken;
use canopy_core::limits::{MCP_HEADING_PATH_CHARS, MCP_REPLY_CHARS, SIZES_LARGEST};
use canopy_core::text::{human_bytes, line_name, tag};
use canopy_core::wire::{ChildSize, EntryKind, FolderSizeReport, FolderSizes, SizesReport};
use canopy_core::{CanopyError, Reported, SizesCall};
use rmcp::model::{CallToolResult, JsonObject};
use rmcp::service::RequestContext;
use rmcp::{tool, tool_router, RoleServer};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::engine;
use crate::server::{input_schema, parse, Canopy};
use crate::tools::grouped;

/// Levels of children `folder_sizes` shows at most.
pub const MAX_LEVELS: u32 = 3;

/// What `folder_sizes` tells a model. Kept under 2 KB (a test checks).
pub fn description() -> String {
    format!(
        "What takes the space in a folder, as `du -x` counts (all entries, links not followed, \
         other filesystems not entered): its total, then its {SIZES_LARGEST} largest children with \
         size, share and items, the rest as `N others`, and the same inside the largest folders \
         down to `depth` levels (1-{MAX_LEVELS}). `≥` marks a lower bound (the reason follows). \
         `apparent` sums lengths instead of disk usage. At most {} characters.",
        grouped(MCP_REPLY_CHARS as u64)
    )
}

/// The numbers `folder_sizes`'s texts state (see [`super::Numbers`]).
#[cfg(test)]
pub(crate) const NUMBERS: super::Numbers = super::Numbers {
    constants: &[
        ("SIZES_LARGEST", SIZES_LARGEST as u64),
        ("MAX_LEVELS", MAX_LEVELS as u64),
        ("MCP_REPLY_CHARS", MCP_REPLY_CHARS as u64),
    ],
    examples: &["1-"],
};

/// `folder_sizes`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FolderSizesArgs {
    pub path: String,
    // Levels of children shown (default 1: the folder's own children).
    #[serde(default)]
    pub depth: Option<u32>,
    // Sum file lengths (`du -b`) instead of blocks on disk (`du`).
    #[serde(default)]
    pub apparent: bool,
}

/// One folder's figures in `folder_sizes`'s structured result.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SizedFolder {
    // Relative to the folder counted ("" for itself).
    pub path: String,
    pub bytes: u64,
    pub is_lower_bound: bool,
}

/// `folder_sizes`'s structured result.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FolderSizesOutput {
    // The folder counted first, then every folder whose children the text shows.
    pub folders: Vec<SizedFolder>,
    // The text stopped at the reply budget.
    pub truncated: bool,
}

/// Which of a report's figures the reply prints.
#[derive(Clone, Copy)]
struct Measure {
    apparent: bool,
}

impl Measure {
    fn of(self, sizes: &FolderSizes) -> u64 {
        if self.apparent {
            sizes.apparent
        } else {
            sizes.disk_usage
        }
    }

    fn of_child(self, child: &ChildSize) -> u64 {
        if self.apparent {
            child.apparent
        } else {
            child.disk_usage
        }
    }
}

/// `≥ ` before a lower bound.
fn bound(lower: bool) -> &'static str {
    if lower {
        "≥ "
    } else {
        ""
    }
}

/// `12.5%` of `whole` (`-` when the whole is nothing).
fn share(part: u64, whole: u64) -> String {
    if whole == 0 {
        return "-".into();
    }
    format!("{:.1}%", part as f64 * 100.0 / whole as f64)
}

/// `path` whole when it is at most [`MCP_HEADING_PATH_CHARS`] characters,
/// else its start and how much was left out (a heading line is written
/// before the reply's budget is counted, so it must stay short).
fn heading_path(path: &str) -> String {
    match path.char_indices().nth(MCP_HEADING_PATH_CHARS) {
        None => path.to_string(),
        Some((at, _)) => format!(
            "{} [cut: {} more characters]",
            &path[..at],
            grouped(path[at..].chars().count() as u64)
        ),
    }
}

fn reasons(sizes: &FolderSizes) -> Vec<String> {
    let mut out: Vec<String> = sizes
        .shortfalls
        .iter()
        .map(|s| {
            format!(
                "{} in {} folder(s), e.g. {}",
                s.code,
                s.count,
                heading_path(&s.example)
            )
        })
        .collect();
    if sizes.other_disk {
        out.push("another filesystem: not entered".into());
    }
    out
}

/// The reply: the counted folder's line, then each shown folder's largest
/// children, depth-first in size order, indented by level; stops before the
/// reply budget.
fn render(report: &SizesReport, shown: &str, measure: Measure) -> (String, FolderSizesOutput) {
    // Children are found by handle: a display path is escaped, a handle exact.
    let by_handle: std::collections::HashMap<&str, &FolderSizeReport> = report
        .folders
        .iter()
        .map(|f| (f.handle.as_str(), f))
        .collect();
    let mut out = FolderSizesOutput {
        folders: Vec::new(),
        truncated: false,
    };
    let measure_name = if measure.apparent {
        "apparent"
    } else {
        "disk usage"
    };
    let root = &report.root.sizes;
    let mut text = format!(
        "[SIZE] {} {}{} {} ({} files, {} folders below)\n",
        heading_path(shown),
        bound(root.is_lower_bound),
        human_bytes(measure.of(root)),
        measure_name,
        grouped(root.files),
        grouped(root.folders),
    );
    for reason in reasons(root) {
        text.push_str(&format!("[LOWER BOUND] {reason}\n"));
    }
    if let Some(cut) = report.budget_cut {
        text.push_str(&format!(
            "[BUDGET] counting stopped ({cut}): figures marked ≥ are at least that\n"
        ));
    }
    // The tail a cut reply ends with, kept free in the budget.
    const CUT_NOTE: &str =
        "[TRUNCATED] the reply budget is spent: ask for a deeper folder or a smaller depth\n";
    let budget = MCP_REPLY_CHARS.saturating_sub(CUT_NOTE.len());
    // What the structured content takes besides its folders.
    let mut structured = 64;
    let mut stack: Vec<(&FolderSizeReport, usize)> = vec![(&report.root, 0)];
    while let Some((folder, level)) = stack.pop() {
        let entry = SizedFolder {
            path: folder.path.clone(),
            bytes: measure.of(&folder.sizes),
            is_lower_bound: folder.sizes.is_lower_bound,
        };
        // The structured content counts against the reply too (compact JSON, and a comma).
        let entry_len = serde_json::to_string(&entry).map_or(0, |j| j.len() + 1);
        let whole = measure.of(&folder.sizes);
        let indent = "  ".repeat(level + 1);
        let mut lines = String::new();
        if level > 0 {
            // Which folder the block below is: its rows do not say.
            lines.push_str(&format!(
                "{}[IN] {}  {}{}\n",
                "  ".repeat(level),
                folder.path,
                bound(folder.sizes.is_lower_bound),
                human_bytes(whole)
            ));
        }
        let mut deeper = Vec::new();
        for child in folder.largest.iter().flatten() {
            let bytes = measure.of_child(child);
            let name = line_name(&child.name, child.name_parts.as_deref());
            if child.other_disk {
                // Its zero is "not counted", never "empty".
                lines.push_str(&format!(
                    "{indent}{}{name}  another filesystem: not entered\n",
                    tag(child.kind)
                ));
                continue;
            }
            lines.push_str(&format!(
                "{indent}{}{name}  {}{}  {}  {} item(s)\n",
                tag(child.kind),
                bound(child.is_lower_bound),
                human_bytes(bytes),
                share(bytes, whole),
                grouped(child.items),
            ));
            if child.kind == EntryKind::Folder {
                if let Some(report) = by_handle.get(child.handle.as_str()) {
                    deeper.push(*report);
                }
            }
        }
        if let Some(others) = folder.others.as_ref().filter(|o| o.count > 0) {
            let bytes = if measure.apparent {
                others.apparent
            } else {
                others.disk_usage
            };
            lines.push_str(&format!(
                "{indent}{} others  {}  {}\n",
                grouped(others.count),
                human_bytes(bytes),
                share(bytes, whole),
            ));
        }
        if text.len() + lines.len() + structured + entry_len > budget {
            out.truncated = true;
            break;
        }
        text.push_str(&lines);
        structured += entry_len;
        out.folders.push(entry);
        // Largest first: pushed in reverse so the biggest is popped next.
        for report in deeper.into_iter().rev() {
            stack.push((report, level + 1));
        }
    }
    if out.truncated {
        text.push_str(CUT_NOTE);
    }
    (text, out)
}

impl Canopy {
    async fn folder_sizes_call(
        &self,
        args: JsonObject,
        ctx: RequestContext<RoleServer>,
    ) -> Result<(String, FolderSizesOutput), CanopyError> {
        let args: FolderSizesArgs = parse("folder_sizes", args)?;
        let levels = args.depth.unwrap_or(1);
        if !(1..=MAX_LEVELS).contains(&levels) {
            return Err(CanopyError::invalid(format!(
                "depth must be 1 to {MAX_LEVELS}, not {levels}"
            )));
        }
        let _turn = self.turn("folder_sizes", &ctx).await?;
        let roots = self.allowed(&ctx).await?;
        let opened = self.open_allowed(&args.path, roots).await?;
        if opened.kind != EntryKind::Folder && opened.inside.is_none() {
            return Err(CanopyError::new(
                canopy_core::ErrorCode::NotADirectory,
                "folder_sizes counts a folder: use file_info for a file",
            ));
        }
        let path = opened.path();
        let shown = engine::shown_path(&path);
        let source = self.source.clone();
        let cancel = CancelToken::default();
        let measure = Measure {
            apparent: args.apparent,
        };
        // The folders whose `largest` the reply shows: the largest inside
        // the largest, levels - 1 below it (never every folder there).
        let call = SizesCall {
            report: Reported::Largest(levels - 1),
            by_apparent: args.apparent,
            ..SizesCall::default()
        };
        let token = cancel.clone();
        let mut job = tokio::task::spawn_blocking(move || {
            canopy_core::sizes(source.source(), &path, &call, Some(token), None)
        });
        let report = tokio::select! {
            r = &mut job => r,
            _ = ctx.ct.cancelled() => { cancel.cancel(); job.await }
        }
        .unwrap_or_else(|e| {
            Err(CanopyError::new(
                canopy_core::ErrorCode::Io,
                format!("the engine stopped unexpectedly: {e}"),
            ))
        })?;
        let timeouts = report
            .root
            .sizes
            .shortfalls
            .iter()
            .filter(|s| s.code == canopy_core::ErrorCode::Timeout)
            .map(|s| s.count)
            .sum();
        let (text, out) = render(&report, &shown, measure);
        let budget = match (report.budget_cut, out.truncated) {
            (Some(cut), _) => Some(format!(
                "counting stopped ({cut}): the figures are lower bounds"
            )),
            (None, true) => Some("the reply budget is spent: the reply is cut".to_string()),
            (None, false) => None,
        };
        self.note_partial(&ctx, "folder_sizes", timeouts, budget)
            .await;
        Ok((text, out))
    }
}

#[tool_router(router = folder_sizes_router, vis = "pub(crate)")]
impl Canopy {
    #[tool(
        name = "folder_sizes",
        title = "What is big in a folder",
        description = description(),
        input_schema = input_schema::<FolderSizesArgs>(),
        annotations(title = "What is big in a folder", read_only_hint = true, destructive_hint = false, open_world_hint = false)
    )]
    async fn folder_sizes(
        &self,
        args: JsonObject,
        ctx: RequestContext<RoleServer>,
    ) -> CallToolResult {
        let outcome = self.folder_sizes_call(args, ctx.clone()).await;
        self.finish_noted("folder_sizes", &ctx, outcome).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use canopy_core::wire::Shortfall;
    use canopy_core::ErrorCode;

    fn sizes(lower: bool, shortfalls: Vec<Shortfall>) -> FolderSizes {
        FolderSizes {
            disk_usage: 4096,
            apparent: 10,
            files: 1,
            folders: 0,
            is_lower_bound: lower,
            shortfalls,
            other_disk: false,
        }
    }

    fn child(name: &str) -> ChildSize {
        ChildSize {
            name: name.into(),
            name_parts: None,
            handle: format!("h-{name}"),
            kind: EntryKind::Folder,
            disk_usage: 4096,
            apparent: 10,
            items: 2,
            is_lower_bound: false,
            other_disk: false,
        }
    }

    fn report(path: &str, root_sizes: FolderSizes, largest: Vec<ChildSize>) -> SizesReport {
        SizesReport {
            request_id: 0,
            root: FolderSizeReport {
                handle: "h-root".into(),
                path: path.into(),
                depth: 0,
                sizes: root_sizes,
                done: true,
                largest: Some(largest),
                others: None,
            },
            folders: Vec::new(),
            entries: 2,
            elapsed_ms: 1,
            budget_cut: None,
        }
    }

    /// A path of 40 escaped 255-byte names: 61,239 characters.
    fn deep_escaped_path() -> String {
        vec!["\\u{1b}".repeat(255); 40].join("/")
    }

    #[test]
    fn headings_with_paths_longer_than_the_reply_stay_within_it_and_keep_the_rows() {
        let long = deep_escaped_path();
        let shortfalls = [ErrorCode::Denied, ErrorCode::Timeout, ErrorCode::UnsafeName]
            .into_iter()
            .map(|code| Shortfall {
                code,
                count: 1,
                example: long.clone(),
            })
            .collect();
        let r = report("", sizes(true, shortfalls), vec![child("only")]);
        let (text, out) = render(&r, &long, Measure { apparent: false });
        assert!(
            text.chars().count() <= MCP_REPLY_CHARS,
            "{} characters",
            text.chars().count()
        );
        assert!(
            text.contains("[DIR] only  "),
            "the one child row is shown, not cut for a heading: {text:.300}"
        );
        assert!(!out.truncated);
        assert_eq!(
            text.matches(&format!(
                " [cut: {} more characters]",
                grouped((long.chars().count() - MCP_HEADING_PATH_CHARS) as u64)
            ))
            .count(),
            4,
            "the counted folder's path and each reason's example say what they left out"
        );
    }

    #[test]
    fn a_mount_point_among_the_children_reads_not_entered_never_empty() {
        let mut m = child("mnt");
        m.other_disk = true;
        m.disk_usage = 0;
        let r = report("", sizes(false, Vec::new()), vec![child("data"), m]);
        let (text, _) = render(&r, "/t", Measure { apparent: false });
        assert!(
            text.contains("  [DIR] mnt  another filesystem: not entered\n"),
            "{text}"
        );
        assert!(!text.contains("[DIR] mnt  0 B"), "{text}");
    }
}
