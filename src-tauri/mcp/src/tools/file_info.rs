//! The `file_info` tool: the facts of entries (one `path`, or up to
//! `MCP_READ_FILES_MAX` `paths`), wherever they live (the registry's
//! confined form says: `canopy_places::Confined::facts`): kind, size and
//! modified time everywhere; on the local disk also the other times,
//! permissions and owner; the real path a link led to, and for a folder
//! how many entries it holds.
//!
//! Promises: with `paths`, a path that fails is that entry's `[CODE] path:
//! message` line, never a failed call; a path naming a link inside the roots
//! that leads outside them answers `[LINK] path` saying so, the link never
//! followed and nothing of its target told.
//!
//! Its arguments, its structured result, what it tells a model and its call.

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::sync::Arc;

use canopy_core::cancel::CancelToken;
use canopy_core::limits::MCP_READ_FILES_MAX;
use canopy_core::wire::{EntryKind, SortBy};
use canopy_core::{CanopyError, ErrorCode};
use rmcp::model::{CallToolResult, JsonObject};
use rmcp::service::RequestContext;
use rmcp::{tool, tool_router, RoleServer};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::engine::{self, AgentListing};
use crate::page::utc_time;
use crate::server::{blocking, input_schema, kind_token, parse, Canopy};

/// What `file_info` tells a model. Kept under 2 KB (a test checks).
pub fn description() -> String {
    format!("Facts of a file or folder on disk (`path`), or of up to {MCP_READ_FILES_MAX} (`paths`, each its own block, a failed one `[CODE] path: message`): kind, size, modified/accessed/changed times (UTC), permissions as `rwxr-xr-x`, owner and group ids, the real path when the path went through a link, and for a folder its entry count. A link leading outside the roots is `[LINK] path`, never followed.")
}

/// The numbers `file_info`'s texts state (see [`super::Numbers`]).
#[cfg(test)]
pub(crate) const NUMBERS: super::Numbers = super::Numbers {
    constants: &[("MCP_READ_FILES_MAX", MCP_READ_FILES_MAX as u64)],
    examples: &[],
};

/// `file_info`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FileInfoArgs {
    #[serde(default)]
    pub path: Option<String>,
    /// Several entries, instead of `path`.
    #[serde(default)]
    #[schemars(length(min = 1, max = MCP_READ_FILES_MAX))]
    pub paths: Option<Vec<String>>,
}

/// The facts of one entry (all but `path` absent when it failed, `error`
/// then its code).
#[derive(Debug, Clone, Default, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FileFacts {
    /// The real path, escaped (as given when it failed).
    pub path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub modified: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub permissions: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entries: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// `file_info`'s structured result: one item per path, in the order given
/// (no output schema: the text states every fact, and every definition
/// costs each agent's context on every turn).
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FileInfoOutput {
    pub files: Vec<FileFacts>,
}

/// Characters of a failed path `file_info` prints.
const SHOWN_PATH_CHARS: usize = 256;

/// `rwxr-xr-x` for the low nine bits of `mode`, with setuid, setgid and sticky.
fn permissions(mode: u32) -> String {
    let mut out = String::with_capacity(9);
    for (i, c) in "rwxrwxrwx".chars().enumerate() {
        out.push(if mode & (0o400 >> i) != 0 { c } else { '-' });
    }
    let mut b: Vec<char> = out.chars().collect();
    for (bit, at, set) in [(0o4000, 2, 's'), (0o2000, 5, 's'), (0o1000, 8, 't')] {
        if mode & bit != 0 {
            b[at] = if b[at] == 'x' {
                set
            } else {
                set.to_ascii_uppercase()
            };
        }
    }
    b.into_iter().collect()
}

impl Canopy {
    // Logging is deprecated from protocol 2026-07-28 on; the revisions this
    // server speaks have it.
    #[allow(deprecated)]
    async fn file_info_call(
        &self,
        args: JsonObject,
        ctx: RequestContext<RoleServer>,
    ) -> Result<(String, FileInfoOutput), CanopyError> {
        let args: FileInfoArgs = parse("file_info", args)?;
        let (paths, several) = match (args.path, args.paths) {
            (Some(p), None) => (vec![p], false),
            (None, Some(ps)) if (1..=MCP_READ_FILES_MAX).contains(&ps.len()) => (ps, true),
            (None, Some(ps)) => {
                return Err(CanopyError::invalid(format!(
                    "paths holds {} entries: give 1 to {MCP_READ_FILES_MAX}",
                    ps.len()
                )))
            }
            _ => return Err(CanopyError::invalid("give path or paths, not both")),
        };
        let _turn = self.turn("file_info", &ctx).await?;
        let roots = self.allowed(&ctx).await?;
        let mut text = String::new();
        let mut files = Vec::with_capacity(paths.len());
        for path in &paths {
            if several && !text.is_empty() {
                text.push('\n');
            }
            match self.facts_of(path, roots.clone(), &ctx).await {
                Ok((t, facts)) => {
                    text.push_str(&t);
                    files.push(facts);
                }
                Err(e) if several => {
                    let shown: String = path.chars().take(SHOWN_PATH_CHARS).collect();
                    let shown = engine::shown_path(std::path::Path::new(&shown));
                    text.push_str(&format!("[{}] {shown}: {}\n", e.code, e.message));
                    files.push(FileFacts {
                        path: shown,
                        error: Some(e.code.to_string()),
                        ..FileFacts::default()
                    });
                }
                Err(e) => return Err(e),
            }
        }
        Ok((text, FileInfoOutput { files }))
    }

    /// The facts of the entry `path` names (see the module docs).
    #[allow(deprecated)]
    async fn facts_of(
        &self,
        path: &str,
        roots: Vec<std::path::PathBuf>,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<(String, FileFacts), CanopyError> {
        let opened = match self.open_allowed(path, roots.clone()).await {
            Ok(opened) => opened,
            Err(e) if e.code == ErrorCode::Denied => {
                let Some(link) = self.link_out(path, roots).await else {
                    return Err(e);
                };
                let shown = engine::shown_path(&link);
                let text = format!("[LINK] {shown}: a link leading outside the folders this server may show (never followed; its target is not told)\n");
                let facts = FileFacts {
                    path: shown,
                    kind: Some("LINK".into()),
                    ..FileFacts::default()
                };
                return Ok((text, facts));
            }
            Err(e) => return Err(e),
        };
        // Inside an archive: the entry's own path (the archive file's real
        // path and the names inside it).
        let real = opened.path();
        let facts = {
            let (source, opened) = (self.source.clone(), opened.clone());
            // On the engine's bounded workers: a dead mount costs TIMEOUT.
            blocking(move || source.facts(&opened)).await?
        };
        // An archive file listed as a folder is the file it is.
        let kind = facts.kind;
        let mut uncounted = None;
        let entries = if kind == EntryKind::Folder {
            let source = self.source.clone();
            let listing = blocking(move || {
                engine::list(
                    &opened,
                    AgentListing {
                        depth: 1,
                        after: None,
                        show_dotfiles: true,
                        sort: SortBy::Name,
                        reverse: false,
                        filter: None,
                        cancel: CancelToken::default(),
                        on_folder: Arc::new(|| {}),
                        source,
                        include_ignored: true,
                        exclude: None,
                        details: false,
                    },
                )
            })
            .await;
            match listing {
                Ok(l) => l.root.folder.and_then(|f| f.total),
                // The facts stand; only the count is missing.
                Err(e) if e.code == canopy_core::ErrorCode::Timeout => {
                    uncounted = Some(e);
                    None
                }
                Err(e) => return Err(e),
            }
        } else {
            None
        };
        let time = |secs: i64| utc_time(secs.saturating_mul(1000));
        let shown = engine::shown_path(&real);
        let modified = facts.modified_ms.map(utc_time);
        let mut text = format!(
            "{} {shown}\nsize {} bytes\nmodified {}\n",
            kind_token(kind),
            facts.size,
            modified.as_deref().unwrap_or("unknown"),
        );
        let mode = facts.disk.as_ref().map(|meta| meta.permissions().mode());
        match &facts.disk {
            Some(meta) => text.push_str(&format!(
                "accessed {}\nchanged {}\npermissions {} ({:o}), owner {} group {}\n",
                time(meta.atime()),
                time(meta.ctime()),
                permissions(meta.permissions().mode()),
                meta.permissions().mode() & 0o7777,
                meta.uid(),
                meta.gid()
            )),
            // A server's entry or an archive's member: what its place tells.
            None => text.push_str("owner, permissions and other times: not told by this place\n"),
        }
        if let Some(n) = entries {
            text.push_str(&format!("entries {n}\n"));
        }
        if let Some(e) = &uncounted {
            text.push_str(&format!(
                "[{}] entries not counted: {}\n",
                e.code, e.message
            ));
            self.notify(
                ctx,
                rmcp::model::LoggingLevel::Warning,
                format!("file_info: {}: {}", e.code, e.message),
            )
            .await;
        }
        if engine::printed_path(path).is_ok_and(|p| p.is_absolute() && p != real) {
            text.push_str(&format!("reached through a link or `..`: {shown}\n"));
        }
        let facts = FileFacts {
            path: shown,
            kind: Some(kind_token(kind).trim_matches(['[', ']']).to_string()),
            size: Some(facts.size),
            modified,
            permissions: mode.map(permissions),
            entries,
            error: None,
        };
        Ok((text, facts))
    }
}

#[tool_router(router = file_info_router, vis = "pub(crate)")]
impl Canopy {
    #[tool(
        name = "file_info",
        title = "Facts of a file or folder",
        description = description(),
        input_schema = input_schema::<FileInfoArgs>(),
        annotations(title = "Facts of a file or folder", read_only_hint = true, destructive_hint = false, open_world_hint = false)
    )]
    async fn file_info(&self, args: JsonObject, ctx: RequestContext<RoleServer>) -> CallToolResult {
        let outcome = self.file_info_call(args, ctx.clone()).await;
        self.finish_noted("file_info", &ctx, outcome).await
    }
}

#[cfg(test)]
mod tests {
    use super::permissions;

    #[test]
    fn permissions_read_as_ls_prints_them() {
        assert_eq!(permissions(0o755), "rwxr-xr-x");
        assert_eq!(permissions(0o640), "rw-r-----");
        assert_eq!(permissions(0o4755), "rwsr-xr-x");
        assert_eq!(permissions(0o1777), "rwxrwxrwt");
        assert_eq!(permissions(0o2644), "rw-r-Sr--");
    }
}
