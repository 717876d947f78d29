//! The `read_file` tool: one chunk of a regular file, as text in its
//! detected encoding or as a hex dump (rendered by [`crate::read`]).
//!
//! Its arguments, its structured result, what it tells a model and its call.

use canopy_core::limits::{
    ARCHIVE_RATIO_MAX, ARCHIVE_SKIP_MAX, HEX_VIEW_BYTES, MCP_MAX_OFFSET, MCP_READ_CHUNK,
};
use canopy_core::wire::EntryKind;
use canopy_core::{CanopyError, ErrorCode, LineWindow};
use rmcp::model::{CallToolResult, JsonObject};
use rmcp::service::RequestContext;
use rmcp::{tool, tool_router, RoleServer};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::grouped;
use crate::engine;
use crate::read;
use crate::server::{blocking, input_schema, kind_token, parse, Canopy};

/// The sizes of the files in the description's examples: each more than
/// one call reads, so the examples show a first part with more to come.
const EXAMPLE_TEXT_SIZE: u64 = 100_000;
const EXAMPLE_BINARY_SIZE: u64 = 9_000;
const _: () = assert!(
    EXAMPLE_TEXT_SIZE > MCP_READ_CHUNK && EXAMPLE_BINARY_SIZE > HEX_VIEW_BYTES,
    "an example file must take more than one call to read"
);

/// How far into a compressed archive entry a read may start, in MiB (the
/// data before it is decompressed to reach it).
const ARCHIVE_SKIP_MIB: u64 = ARCHIVE_SKIP_MAX >> 20;

/// What `read_file` tells a model, its limits taken from
/// [`canopy_core::limits`]. Kept under 2 KB (a test checks).
pub fn description() -> String {
    let ratio = grouped(ARCHIVE_RATIO_MAX);
    format!("Read part of a file: at most {MCP_READ_CHUNK} bytes per call, from `offset` (default 0). The first line says what is shown, e.g. `[TEXT utf-8] showing bytes 0-{MCP_READ_CHUNK} of {EXAMPLE_TEXT_SIZE}; call read_file with offset {MCP_READ_CHUNK} for more`, or `[BINARY] showing bytes 0-{HEX_VIEW_BYTES} of {EXAMPLE_BINARY_SIZE} as a hex dump` (a binary file shows at most {HEX_VIEW_BYTES} bytes per call). The content follows a blank line; `end of file` in the first line means there is no more.

By lines instead: `head` N, `tail` N, or `line_start` (from 1) with `line_count`, within the same byte cap; the first line then says `[TEXT utf-8] showing lines A-B of N (bytes X-Y of SIZE)`, `of at least N` when the file was not read whole. A line longer than the cap is cut there: go on by offset. A binary file is read by bytes only.

Only regular files are read. Anything else is NOT_A_FILE, never opened.

A file inside an archive is read the same way (`dl/site.zip/docs/readme.txt`), decompressed from its start, so an offset past {ARCHIVE_SKIP_MIB} MiB is TOO_LARGE (but in a plain tar); data that inflates more than {ratio} times its compressed size stops with RATIO (a zip bomb). An entry that is ENCRYPTED, CORRUPT or UNSUPPORTED is not read; one marked `[UNSAFE_NAME]` is never opened.")
}

/// The numbers `read_file`'s texts state (see [`super::Numbers`]).
#[cfg(test)]
pub(crate) const NUMBERS: super::Numbers = super::Numbers {
    constants: &[
        ("MCP_READ_CHUNK", MCP_READ_CHUNK),
        ("HEX_VIEW_BYTES", HEX_VIEW_BYTES),
        ("EXAMPLE_TEXT_SIZE", EXAMPLE_TEXT_SIZE),
        ("EXAMPLE_BINARY_SIZE", EXAMPLE_BINARY_SIZE),
        ("ARCHIVE_SKIP_MIB", ARCHIVE_SKIP_MIB),
        ("ARCHIVE_RATIO_MAX", ARCHIVE_RATIO_MAX),
    ],
    examples: &["(default 0)", "bytes 0-", "utf-8", "(from 1)"],
};

/// `read_file`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadFileArgs {
    /// The file (on disk or inside an archive): absolute, or relative to the first allowed folder; names as listings print them.
    pub path: String,
    /// First byte to read.
    #[serde(default)]
    pub offset: u64,
    /// Bytes to read, at most [`MCP_READ_CHUNK`] (the default).
    #[serde(default)]
    #[schemars(description = format!("Bytes to read, at most {MCP_READ_CHUNK} (the default)."))]
    #[schemars(range(min = 1, max = MCP_READ_CHUNK))]
    pub length: Option<u64>,
    /// Read the first N lines instead of bytes.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub head: Option<u64>,
    /// Read the last N lines.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub tail: Option<u64>,
    /// Read from this line (from 1), `line_count` lines (default: as many as fit).
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub line_start: Option<u64>,
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub line_count: Option<u64>,
}

impl ReadFileArgs {
    /// The lines asked for, if any.
    ///
    /// # Errors
    /// `INVALID_ARGUMENT` for more than one way of choosing lines, or lines with an offset.
    pub(crate) fn lines(&self) -> Result<Option<LineWindow>, CanopyError> {
        let range =
            (self.line_start.is_some() || self.line_count.is_some()).then(|| LineWindow::Range {
                start: self.line_start.unwrap_or(1),
                count: self.line_count.unwrap_or(u64::MAX),
            });
        let ways: Vec<LineWindow> = [
            self.head.map(LineWindow::Head),
            self.tail.map(LineWindow::Tail),
            range,
        ]
        .into_iter()
        .flatten()
        .collect();
        if ways.len() > 1 {
            return Err(CanopyError::invalid(
                "choose lines one way: head, tail, or line_start/line_count",
            ));
        }
        if !ways.is_empty() && (self.offset != 0 || self.length.is_some()) {
            return Err(CanopyError::invalid(
                "offset and length read bytes; head, tail and line_start read lines: use one or the other",
            ));
        }
        Ok(ways.first().copied())
    }
}

/// `read_file`'s structured result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReadFileOutput {
    pub offset: u64,
    /// Bytes shown.
    pub length: u64,
    /// Absent when unknown (`/proc`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// Absent at the end of the file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_offset: Option<u64>,
    /// Where the file ended, before `size`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ended_at: Option<u64>,
    /// `text` or `binary`.
    pub content: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub encoding: Option<String>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub lossy: bool,
    /// An image's MIME type.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub image: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lines: Option<LinesOutput>,
}

/// The lines a read by lines showed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LinesOutput {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first: Option<u64>,
    pub shown: u64,
    pub total: u64,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub total_is_lower_bound: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub cut: bool,
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

impl Canopy {
    async fn read_file_call(
        &self,
        args: JsonObject,
        ctx: RequestContext<RoleServer>,
    ) -> Result<(String, ReadFileOutput), CanopyError> {
        let args: ReadFileArgs = parse("read_file", args)?;
        let _turn = self.turn("read_file", &ctx).await?;
        let roots = self.allowed(&ctx).await?;
        self.read_one(&args, roots, MCP_READ_CHUNK).await
    }

    /// Reads one file for `read_file` or `read_files`, showing at most `cap` bytes.
    pub(crate) async fn read_one(
        &self,
        args: &ReadFileArgs,
        roots: Vec<std::path::PathBuf>,
        cap: u64,
    ) -> Result<(String, ReadFileOutput), CanopyError> {
        let lines = args.lines()?;
        let asked = args.length.unwrap_or(cap);
        if asked == 0 {
            return Err(CanopyError::invalid("length must be at least 1"));
        }
        if args.offset > MCP_MAX_OFFSET {
            return Err(CanopyError::invalid(format!(
                "offset must be at most {MCP_MAX_OFFSET}, not {}",
                args.offset
            )));
        }
        let length = asked.min(cap);
        let opened = self.open_allowed(&args.path, roots).await?;
        match opened.kind {
            // Inside an archive, what the path names is the archive's to say.
            EntryKind::File => {}
            EntryKind::Folder => {
                return Err(CanopyError::new(
                    ErrorCode::NotAFile,
                    format!(
                        "{} is a folder ([DIR]): call list_directory to list it",
                        args.path
                    ),
                ))
            }
            kind => {
                return Err(CanopyError::new(
                    ErrorCode::NotAFile,
                    format!(
                        "{} is {} ({}): only regular files are read, and it was not opened",
                        args.path,
                        kind_name(kind),
                        kind_token(kind)
                    ),
                ))
            }
        }
        let source = self.source.clone();
        if let Some(window) = lines {
            let read = blocking(move || engine::read_lines(&source, opened, window, cap)).await?;
            return Ok(read::render_lines(&read));
        }
        let offset = args.offset;
        let chunk = blocking(move || engine::read(&source, opened, offset, length)).await?;
        // A hex dump takes about five characters a byte: a binary chunk
        // keeps to the bytes whose dump fits the cap.
        let chunk = match &chunk.content {
            canopy_core::wire::PreviewContent::Binary { .. }
                if read::hex_chars(chunk.length) > cap as usize =>
            {
                read::shortened(chunk, cap)
            }
            _ => chunk,
        };
        let clamped = (asked > cap).then_some(cap);
        Ok(read::render(&chunk, clamped))
    }
}

#[tool_router(router = read_file_router, vis = "pub(crate)")]
impl Canopy {
    #[tool(
        name = "read_file",
        title = "Read part of a file",
        description = description(),
        input_schema = input_schema::<ReadFileArgs>(),
        annotations(title = "Read part of a file", read_only_hint = true, destructive_hint = false, open_world_hint = false)
    )]
    async fn read_file(&self, args: JsonObject, ctx: RequestContext<RoleServer>) -> CallToolResult {
        let outcome = self.read_file_call(args, ctx.clone()).await;
        self.finish_noted("read_file", &ctx, outcome).await
    }
}
