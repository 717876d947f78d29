//! The `file_info` tool: the facts of one entry on disk: kind, size,
//! times, permissions, the real path a link led to, and for a folder how
//! many entries it holds.
//!
//! Its arguments, its structured result, what it tells a model and its call.

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::sync::Arc;

use canopy_core::cancel::CancelToken;
use canopy_core::wire::{EntryKind, SortBy};
use canopy_core::{CanopyError, ErrorCode};
use rmcp::model::{CallToolResult, JsonObject};
use rmcp::service::RequestContext;
use rmcp::{tool, tool_router, RoleServer};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::engine::{self, AgentListing};
use crate::page::utc_time;
use crate::server::{blocking, input_schema, kind_token, output_schema, parse, Canopy};

/// What `file_info` tells a model. Kept under 2 KB (a test checks).
pub fn description() -> String {
    "Facts of one file or folder on disk: kind, size, modified/accessed/changed times (UTC), permissions as `rwxr-xr-x`, owner and group ids, the real path when the path went through a link, and for a folder its entry count.".into()
}

/// The numbers `file_info`'s texts state (see [`super::Numbers`]).
#[cfg(test)]
pub(crate) const NUMBERS: super::Numbers = super::Numbers {
    constants: &[],
    examples: &[],
};

/// `file_info`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FileInfoArgs {
    pub path: String,
}

/// `file_info`'s structured result.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FileInfoOutput {
    pub real_path: String,
    pub kind: String,
    pub size: u64,
    pub modified: String,
    pub permissions: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entries: Option<u64>,
}

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
        if let Some(host) = self.remote_host() {
            // Its owner, permissions and times come from the local disk's `lstat`.
            return Err(CanopyError::new(
                ErrorCode::Unsupported,
                format!(
                    "file_info reads the local disk; the roots are on {host}: list the folder with details: true for sizes and times"
                ),
            ));
        }
        let _turn = self.turn("file_info", &ctx).await?;
        let roots = self.allowed(&ctx).await?;
        let opened = self.open_allowed(&args.path, roots).await?;
        if opened.inside.is_some() {
            return Err(CanopyError::invalid(
                "file_info reads entries on disk: list the folder inside the archive with details: true",
            ));
        }
        let real = opened.real.clone();
        let kind = opened.kind;
        let meta = {
            let real = real.clone();
            // On the engine's bounded workers: a dead mount costs TIMEOUT.
            blocking(move || canopy_core::entry_meta(&real)).await?
        };
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
        let mode = meta.permissions().mode();
        let mut text = format!(
            "{} {shown}\nsize {} bytes\nmodified {}\naccessed {}\nchanged {}\npermissions {} ({:o}), owner {} group {}\n",
            kind_token(kind),
            meta.len(),
            time(meta.mtime()),
            time(meta.atime()),
            time(meta.ctime()),
            permissions(mode),
            mode & 0o7777,
            meta.uid(),
            meta.gid()
        );
        if let Some(n) = entries {
            text.push_str(&format!("entries {n}\n"));
        }
        if let Some(e) = &uncounted {
            text.push_str(&format!(
                "[{}] entries not counted: {}\n",
                e.code, e.message
            ));
            self.notify(
                &ctx,
                rmcp::model::LoggingLevel::Warning,
                format!("file_info: {}: {}", e.code, e.message),
            )
            .await;
        }
        if engine::printed_path(&args.path).is_ok_and(|p| p.is_absolute() && p != real) {
            text.push_str(&format!("reached through a link or `..`: {shown}\n"));
        }
        let out = FileInfoOutput {
            real_path: shown,
            kind: kind_token(kind).trim_matches(['[', ']']).to_string(),
            size: meta.len(),
            modified: time(meta.mtime()),
            permissions: permissions(mode),
            entries,
        };
        Ok((text, out))
    }
}

#[tool_router(router = file_info_router, vis = "pub(crate)")]
impl Canopy {
    #[tool(
        name = "file_info",
        title = "Facts of a file or folder",
        description = description(),
        input_schema = input_schema::<FileInfoArgs>(),
        output_schema = output_schema::<FileInfoOutput>(),
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
