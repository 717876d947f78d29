//! The `read_files` tool: up to `MCP_READ_FILES_MAX` files in one call, by
//! bytes or by lines as `read_file` reads one, sharing its byte cap.
//!
//! Its arguments, its structured result, what it tells a model and its call.

use canopy_core::limits::{MCP_READ_CHUNK, MCP_READ_FILES_MAX};
use canopy_core::CanopyError;
use rmcp::model::{CallToolResult, JsonObject};
use rmcp::service::RequestContext;
use rmcp::{tool, tool_router, RoleServer};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::read_file::ReadFileArgs;
use crate::engine;
use crate::server::{input_schema, parse, Canopy};

/// What `read_files` tells a model. Kept under 2 KB (a test checks).
pub fn description() -> String {
    format!("Read up to {MCP_READ_FILES_MAX} files in one call, each as read_file reads one (the same options apply to every file: offset/length, head, tail, or line_start/line_count). The {MCP_READ_CHUNK}-byte cap is shared: each file shows at most its share. Each file starts with `[PATH] path`, then read_file's reply for it, or `[CODE] path: message` when it could not be read (the others are still read).")
}

/// The numbers `read_files`' texts state (see [`super::Numbers`]).
#[cfg(test)]
pub(crate) const NUMBERS: super::Numbers = super::Numbers {
    constants: &[
        ("MCP_READ_FILES_MAX", MCP_READ_FILES_MAX as u64),
        ("MCP_READ_CHUNK", MCP_READ_CHUNK),
    ],
    examples: &[],
};

/// `read_files`' arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadFilesArgs {
    /// The files, as read_file takes a path.
    #[schemars(length(min = 1, max = MCP_READ_FILES_MAX))]
    pub paths: Vec<String>,
    #[serde(default)]
    pub offset: u64,
    #[serde(default)]
    pub length: Option<u64>,
    #[serde(default)]
    pub head: Option<u64>,
    #[serde(default)]
    pub tail: Option<u64>,
    #[serde(default)]
    pub line_start: Option<u64>,
    #[serde(default)]
    pub line_count: Option<u64>,
}

/// One file of a `read_files` reply.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FileRead {
    /// The path as given.
    pub path: String,
    /// The error code when the file could not be read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// First byte shown.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offset: Option<u64>,
    /// Bytes shown.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub length: Option<u64>,
    /// Pass as `offset` to read_file for more; absent at the end.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_offset: Option<u64>,
}

/// `read_files`' structured result.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReadFilesOutput {
    pub files: Vec<FileRead>,
}

/// Characters of a path `read_files` prints.
const SHOWN_PATH_CHARS: usize = 256;

/// `path` cut to `SHOWN_PATH_CHARS` characters, saying so.
fn shown_cut(path: &str) -> String {
    if path.chars().count() <= SHOWN_PATH_CHARS {
        return path.to_string();
    }
    let head: String = path.chars().take(SHOWN_PATH_CHARS).collect();
    format!("{head} [...]")
}

impl Canopy {
    async fn read_files_call(
        &self,
        args: JsonObject,
        ctx: RequestContext<RoleServer>,
    ) -> Result<(String, ReadFilesOutput), CanopyError> {
        let args: ReadFilesArgs = parse("read_files", args)?;
        let n = args.paths.len();
        if n == 0 || n > MCP_READ_FILES_MAX {
            return Err(CanopyError::invalid(format!(
                "paths holds {n} files: give 1 to {MCP_READ_FILES_MAX}"
            )));
        }
        let share = MCP_READ_CHUNK / n as u64;
        let _turn = self.turn("read_files", &ctx).await?;
        let roots = self.allowed(&ctx).await?;
        let mut text = String::new();
        let mut files = Vec::with_capacity(n);
        for path in args.paths {
            let one = ReadFileArgs {
                path: path.clone(),
                offset: args.offset,
                length: args.length,
                head: args.head,
                tail: args.tail,
                line_start: args.line_start,
                line_count: args.line_count,
            };
            // The path is printed as the agent gave it, escaped as names
            // are, and cut: ten long paths must not fill the reply.
            let shown = shown_cut(&engine::shown_path(std::path::Path::new(&path)));
            match self.read_one(&one, roots.clone(), share).await {
                Ok((body, out)) => {
                    text.push_str(&format!("[PATH] {shown}\n{body}"));
                    if !text.ends_with('\n') {
                        text.push('\n');
                    }
                    files.push(FileRead {
                        path: shown,
                        error: None,
                        offset: Some(out.offset),
                        length: Some(out.length),
                        next_offset: out.next_offset,
                    });
                }
                Err(e) => {
                    let message = crate::transport::cut(&e.message).into_owned();
                    text.push_str(&format!("[PATH] {shown}\n[{}] {message}\n", e.code));
                    files.push(FileRead {
                        path: shown,
                        error: Some(e.code.to_string()),
                        offset: None,
                        length: None,
                        next_offset: None,
                    });
                }
            }
            text.push('\n');
        }
        let timeouts = files
            .iter()
            .filter(|f| f.error.as_deref() == Some("TIMEOUT"))
            .count() as u64;
        self.note_partial(&ctx, "read_files", timeouts, None).await;
        Ok((text, ReadFilesOutput { files }))
    }
}

#[tool_router(router = read_files_router, vis = "pub(crate)")]
impl Canopy {
    #[tool(
        name = "read_files",
        title = "Read several files",
        description = description(),
        input_schema = input_schema::<ReadFilesArgs>(),
        annotations(title = "Read several files", read_only_hint = true, destructive_hint = false, open_world_hint = false)
    )]
    async fn read_files(
        &self,
        args: JsonObject,
        ctx: RequestContext<RoleServer>,
    ) -> CallToolResult {
        let outcome = self.read_files_call(args, ctx.clone()).await;
        self.finish_noted("read_files", &ctx, outcome).await
    }
}
