//! The MCP server: its state (the allowed roots, the client's roots, the
//! turns of the filesystem), the handler that serves the tools of
//! [`crate::tools`] over Canopy's engine, and the helpers every tool call
//! uses (parsing arguments, opening a path inside the roots, running on a
//! blocking thread, answering a result).
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
//!   allowed root (see [`crate::access`]); otherwise `DENIED`, naming the
//!   roots. A path inside an archive is allowed when the archive file's is;
//! - `notifications/cancelled` stops a listing through the engine's cancel
//!   token; a request that carries a progress token gets a progress
//!   notification every `MCP_PROGRESS_INTERVAL` while its listing runs;
//! - at most `MCP_CONCURRENT_CALLS` tool calls touch the filesystem at once;
//!   the others wait their turn (logging `waiting`), and a cancelled one
//!   stops waiting.

use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use canopy_core::cancel::CancelToken;
use canopy_core::limits::{
    MCP_CONCURRENT_CALLS, MCP_PROGRESS_INTERVAL, MCP_REPLY_CHARS, MCP_ROOTS_TIMEOUT,
};
use canopy_core::wire::EntryKind;
use canopy_core::{CanopyError, ErrorCode};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::{
    CallToolResult, ContentBlock, Implementation, JsonObject, ProgressNotificationParam,
    ProtocolVersion, ServerCapabilities, ServerConfig,
};
#[allow(deprecated)]
use rmcp::model::{LoggingLevel, LoggingMessageNotificationParam, SetLevelRequestParams};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{tool_handler, RoleServer, ServerHandler};
use schemars::JsonSchema;
use serde::Serialize;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::access;
use crate::engine::{self, Opened};
use crate::tools;

/// The least severe log notification sent before the client sets a level.
#[allow(deprecated)]
const MCP_DEFAULT_LOG_LEVEL: LoggingLevel = LoggingLevel::Info;

pub(crate) fn input_schema<T: JsonSchema + 'static>() -> Arc<JsonObject> {
    lean(rmcp::handler::server::tool::schema_for_input::<T>().unwrap_or_else(|e| panic!("{e}")))
}

/// `schema` without what a model needs no reading of: the `$schema`
/// dialect (MCP's default, 2020-12), the Rust integer widths in `format`
/// (`minimum` still says an integer is never negative), and on an
/// optional argument its `null` type and `null` default (leaving it out
/// says the same). Every tool definition is in the model's context on
/// every turn, and no tool has an output schema: its text states each
/// fact its structured result holds.
fn lean(schema: Arc<JsonObject>) -> Arc<JsonObject> {
    fn strip(v: &mut serde_json::Value) {
        match v {
            serde_json::Value::Object(map) => {
                map.remove("$schema");
                if map
                    .get("format")
                    .and_then(|f| f.as_str())
                    .is_some_and(|f| f.starts_with("int") || f.starts_with("uint"))
                {
                    map.remove("format");
                }
                if map.get("default").is_some_and(serde_json::Value::is_null) {
                    map.remove("default");
                }
                let one = match map.get("type") {
                    Some(serde_json::Value::Array(types)) => {
                        let kept: Vec<_> = types.iter().filter(|t| *t != "null").collect();
                        (kept.len() == 1).then(|| kept[0].clone())
                    }
                    _ => None,
                };
                if let Some(t) = one {
                    map.insert("type".into(), t);
                }
                map.values_mut().for_each(strip);
            }
            serde_json::Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    let mut value = serde_json::Value::Object((*schema).clone());
    strip(&mut value);
    match value {
        serde_json::Value::Object(map) => Arc::new(map),
        _ => schema,
    }
}

/// The client's roots, as far as this session knows them.
#[derive(Debug, Default)]
struct ClientRoots {
    /// Real paths of the client's roots, once listed (the server's roots
    /// when the client's could not be used).
    known: Option<Vec<PathBuf>>,
    /// Why the client's roots could not be used, when they could not.
    fallback: Option<String>,
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
    /// The registry's confined form every call lists and reads through
    /// (the local disk or one server), which opens archives like folders;
    /// one for the server, so its small cache of archive indexes serves
    /// every call.
    pub(crate) source: engine::AgentSource,
    /// The least severe `notifications/message` the client wants (see [`rank`]).
    log_level: Arc<AtomicU8>,
    tool_router: ToolRouter<Canopy>,
}

/// Where a logging level stands, least severe first.
#[allow(deprecated)]
fn rank(level: LoggingLevel) -> u8 {
    match level {
        LoggingLevel::Debug => 0,
        LoggingLevel::Info => 1,
        LoggingLevel::Notice => 2,
        LoggingLevel::Warning => 3,
        LoggingLevel::Error => 4,
        LoggingLevel::Critical => 5,
        LoggingLevel::Alert => 6,
        LoggingLevel::Emergency => 7,
    }
}

/// What the server's roots come to for this call, and whether the client's narrowed them.
#[derive(Debug, Clone)]
pub(crate) struct RootsState {
    pub allowed: Vec<PathBuf>,
    /// The client's usable roots, when it offers and lists some.
    pub client: Option<Vec<PathBuf>>,
    /// Why the client's roots were not used, when they were not.
    pub fallback: Option<String>,
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

pub(crate) fn parse<T: serde::de::DeserializeOwned>(
    tool: &str,
    args: JsonObject,
) -> Result<T, CanopyError> {
    serde_json::from_value(serde_json::Value::Object(args)).map_err(|e| {
        CanopyError::invalid(format!(
            "the arguments do not fit {tool}'s input schema: {e}"
        ))
    })
}

/// One line on stderr per call: what it came to (never a name).
pub(crate) fn log(tool: &str, what: &str) {
    crate::diagnostics::line(format!("{tool}: {what}"));
}

pub(crate) fn finish<T: Serialize>(
    tool: &str,
    outcome: Result<(String, T), CanopyError>,
) -> CallToolResult {
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

impl Canopy {
    /// [`finish`], after a log notification when the whole call failed for
    /// a timeout (a warning) or a budget (info), at the level
    /// `logging/setLevel` asked for.
    // Logging is deprecated from protocol 2026-07-28 on; the revisions this
    // server speaks have it.
    #[allow(deprecated)]
    pub(crate) async fn finish_noted<T: Serialize>(
        &self,
        tool: &str,
        ctx: &RequestContext<RoleServer>,
        outcome: Result<(String, T), CanopyError>,
    ) -> CallToolResult {
        if let Err(e) = &outcome {
            let level = match e.code {
                ErrorCode::Timeout => Some(LoggingLevel::Warning),
                ErrorCode::Budget => Some(LoggingLevel::Info),
                _ => None,
            };
            if let Some(level) = level {
                let note = crate::transport::cut(&format!("{tool}: {}: {}", e.code, e.message))
                    .into_owned();
                self.notify(ctx, level, note).await;
            }
        }
        finish(tool, outcome)
    }

    /// Tells the client, by log notification, that a reply is partial:
    /// `timeouts` entries did not answer in time (a warning), or a budget
    /// cut it (`budget` says how; info). Nothing when neither.
    #[allow(deprecated)]
    pub(crate) async fn note_partial(
        &self,
        ctx: &RequestContext<RoleServer>,
        tool: &str,
        timeouts: u64,
        budget: Option<String>,
    ) {
        if timeouts > 0 {
            let note = format!("{tool}: {timeouts} entries did not answer in time (TIMEOUT: a dead or hung mount?); the reply is partial");
            self.notify(ctx, LoggingLevel::Warning, note).await;
        }
        if let Some(why) = budget {
            self.notify(ctx, LoggingLevel::Info, format!("{tool}: {why}"))
                .await;
        }
    }
}

pub(crate) fn kind_token(kind: EntryKind) -> &'static str {
    canopy_core::text::tag(kind).trim_end()
}

pub(crate) fn roots_text(roots: &[PathBuf]) -> String {
    if roots.is_empty() {
        return "none (the client's roots and the server's --root folders do not overlap)".into();
    }
    roots
        .iter()
        .map(|r| engine::shown_path(r))
        .collect::<Vec<_>>()
        .join(", ")
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
/// A client root as a real folder: `Err` when it is no folder here (it
/// cannot be used), `Ok(None)` when it shares nothing with the server's
/// roots (it narrows them to nothing).
fn client_root(path: &Path, server: &[PathBuf]) -> Result<Option<PathBuf>, CanopyError> {
    let real = engine::real_folder(&lexical(path))?;
    let near = server
        .iter()
        .any(|r| access::within(&real, r) || access::within(r, &real));
    Ok(near.then_some(real))
}

pub(crate) async fn blocking<T: Send + 'static>(
    job: impl FnOnce() -> Result<T, CanopyError> + Send + 'static,
) -> Result<T, CanopyError> {
    tokio::task::spawn_blocking(job).await.unwrap_or_else(|e| {
        Err(CanopyError::new(
            ErrorCode::Io,
            format!("the engine stopped unexpectedly: {e}"),
        ))
    })
}

impl Canopy {
    /// A server for the real folders `roots` (at least one) of the place
    /// `source` reads (the registry's confined form: the local disk, or a
    /// server, whose roots the client's never narrow: they name folders on
    /// its own machine).
    pub fn new(roots: Vec<PathBuf>, source: engine::AgentSource) -> Self {
        Canopy {
            source,
            roots: Arc::new(roots),
            client_roots: Arc::default(),
            turns: Arc::new(Semaphore::new(MCP_CONCURRENT_CALLS)),
            log_level: Arc::new(AtomicU8::new(rank(MCP_DEFAULT_LOG_LEVEL))),
            tool_router: tools::router(),
        }
    }

    /// The server the roots are on, when they are remote (`user@host:port`).
    pub(crate) fn remote_host(&self) -> Option<String> {
        self.source.server_label()
    }

    /// Waits for a turn of the filesystem (see `MCP_CONCURRENT_CALLS`), or
    /// for the request to be cancelled.
    pub(crate) async fn turn(
        &self,
        tool: &str,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<OwnedSemaphorePermit, CanopyError> {
        if let Ok(p) = self.turns.clone().try_acquire_owned() {
            return Ok(p);
        }
        log(tool, "waiting");
        tokio::select! {
            p = self.turns.clone().acquire_owned() => p.map_err(|_| CanopyError::new(ErrorCode::Io, "the server is stopping")),
            _ = ctx.ct.cancelled() => Err(CanopyError::cancelled()),
        }
    }

    /// Sends `message` to the client as a `notifications/message` of
    /// `level`, when the client asked for that level or a less severe one.
    #[allow(deprecated)]
    pub(crate) async fn notify(
        &self,
        ctx: &RequestContext<RoleServer>,
        level: LoggingLevel,
        message: String,
    ) {
        if rank(level) < self.log_level.load(Ordering::Relaxed) {
            return;
        }
        let note = LoggingMessageNotificationParam::new(level, serde_json::Value::String(message))
            .with_logger("canopy-mcp");
        let _ = ctx.peer.notify_logging_message(note).await;
    }

    /// The folders this call may see: `--root`, narrowed by the client's roots when it offers them.
    pub(crate) async fn allowed(
        &self,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<Vec<PathBuf>, CanopyError> {
        Ok(self.roots_state(ctx).await?.allowed)
    }

    /// The folders this call may see, and how they came about: `--root`,
    /// narrowed by the client's roots when it offers them. A client whose
    /// roots cannot be used (it lists none, none is a `file:` folder, or
    /// listing them fails or times out) gets the `--root` folders, and a
    /// warning saying so; a client whose roots are usable but lie outside
    /// every `--root` folder is given none (client roots never widen).
    // Roots are deprecated from protocol 2026-07-28 on; this server speaks
    // the revisions before it, where `roots/list` is how a client says them.
    #[allow(deprecated)]
    pub(crate) async fn roots_state(
        &self,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<RootsState, CanopyError> {
        let server = self.roots.to_vec();
        // A client's roots are folders on its own machine: a server's are not among them.
        let offers = self.remote_host().is_none()
            && ctx
                .peer
                .peer_info()
                .is_some_and(|info| info.capabilities.roots.is_some());
        if !offers {
            return Ok(RootsState {
                allowed: server,
                client: None,
                fallback: None,
            });
        }
        let generation = {
            let known = self.client_roots.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(client) = &known.known {
                return Ok(RootsState {
                    allowed: access::intersect(&server, client),
                    client: known.fallback.is_none().then(|| client.clone()),
                    fallback: known.fallback.clone(),
                });
            }
            known.generation
        };
        let listed = tokio::time::timeout(MCP_ROOTS_TIMEOUT, ctx.peer.list_roots()).await;
        let uris: Result<Vec<PathBuf>, String> = match listed {
            Ok(Ok(r)) if r.roots.is_empty() => Err("the client lists no roots".into()),
            Ok(Ok(r)) => {
                let uris: Vec<PathBuf> = r
                    .roots
                    .iter()
                    .filter_map(|r| access::file_uri_path(&r.uri))
                    .collect();
                if uris.is_empty() {
                    Err(format!(
                        "none of the client's {} roots is a local folder (file: URI)",
                        r.roots.len()
                    ))
                } else {
                    Ok(uris)
                }
            }
            Ok(Err(e)) => Err(format!("the client could not list its roots: {e}")),
            Err(_) => Err("the client did not list its roots in time".into()),
        };
        let uris = match uris {
            Ok(uris) => {
                let near = server.clone();
                let count = uris.len();
                let (client, usable) = blocking(move || {
                    let mut client = Vec::new();
                    let mut usable = 0;
                    for p in &uris {
                        if let Ok(found) = client_root(p, &near) {
                            usable += 1;
                            client.extend(found);
                        }
                    }
                    Ok((client, usable))
                })
                .await?;
                if usable == 0 {
                    Err(format!(
                        "none of the client's {count} roots is a folder on this machine"
                    ))
                } else {
                    if client.is_empty() {
                        self.notify(
                            ctx,
                            LoggingLevel::Warning,
                            format!(
                                "the client's roots share no folder with the server's --root folders ({}): every path is refused",
                                roots_text(&server)
                            ),
                        )
                        .await;
                    }
                    Ok(client)
                }
            }
            Err(why) => Err(why),
        };
        let (client, fallback) = match uris {
            Ok(client) => (client, None),
            Err(why) => {
                let why = format!(
                    "{why}; using the server's --root folders: {}",
                    roots_text(&server)
                );
                log("roots", "fallback");
                self.notify(ctx, LoggingLevel::Warning, why.clone()).await;
                (server.clone(), Some(why))
            }
        };
        let allowed = access::intersect(&server, &client);
        let mut known = self.client_roots.lock().unwrap_or_else(|e| e.into_inner());
        if known.generation == generation {
            known.known = Some(client.clone());
            known.fallback = fallback.clone();
        }
        Ok(RootsState {
            allowed,
            client: fallback.is_none().then_some(client),
            fallback,
        })
    }

    /// Opens the path an agent gave, and checks that what was opened lies in
    /// `roots` (for a path inside an archive: the archive file).
    pub(crate) async fn open_allowed(
        &self,
        text: &str,
        roots: Vec<PathBuf>,
    ) -> Result<Opened, CanopyError> {
        if text.is_empty() {
            return Err(CanopyError::invalid("the path is empty"));
        }
        let given = engine::printed_path(text)?;
        let outside = move |roots: &[PathBuf]| {
            CanopyError::new(
                ErrorCode::Denied,
                format!(
                    "{text} is outside the folders this server may show: {}",
                    roots_text(roots)
                ),
            )
        };
        let Some(first) = roots.first().cloned() else {
            return Err(outside(&roots));
        };
        let path = if given.is_absolute() {
            given
        } else {
            first.join(given)
        };
        // Where it leads is found looking only inside the roots, through
        // descriptors, so whether a path outside them exists (or answers) is
        // never told, and never looked at, even while links are swapped; what
        // it reaches is reopened without following any link.
        let shared = Arc::new(roots.clone());
        let asked = lexical(&path);
        let source = self.source.clone();
        match blocking(move || source.leads(&path, &shared)).await? {
            engine::Reached::Inside(opened) => Ok(opened),
            engine::Reached::Outside => match self.link_out(text, roots.clone()).await {
                Some(_) => Err(CanopyError::new(
                    ErrorCode::Denied,
                    format!(
                        "{text} is a link leading outside the folders this server may show ({}): it is never followed",
                        roots_text(&roots)
                    ),
                )),
                None => Err(outside(&roots)),
            },
            // A path that names a place outside, failing inside on its way.
            engine::Reached::Fails(_) if !roots.iter().any(|r| access::within(&asked, r)) => {
                Err(outside(&roots))
            }
            engine::Reached::Fails(e) => Err(e),
        }
    }

    /// The real path of the link `text` names, when it is a link inside the
    /// roots (see [`canopy_places::Confined::link_in`]): how a path that leads outside them
    /// says it is a link, telling nothing of where it leads. Only a path
    /// without `.` or `..` names its folder plainly enough to look.
    pub(crate) async fn link_out(&self, text: &str, roots: Vec<PathBuf>) -> Option<PathBuf> {
        let given = engine::printed_path(text).ok()?;
        let path = if given.is_absolute() {
            given
        } else {
            roots.first()?.join(given)
        };
        if path
            .components()
            .any(|c| matches!(c, Component::ParentDir | Component::CurDir))
        {
            return None;
        }
        let name = path.file_name()?.to_os_string();
        let folder = path.parent()?.to_path_buf();
        let source = self.source.clone();
        let shared = Arc::new(roots);
        blocking(move || {
            let reached = source.leads(&folder, &shared)?;
            Ok(source.link_in(reached, &name))
        })
        .await
        .ok()
        .flatten()
    }

    /// Runs a listing on a blocking thread, stopping it when the request is
    /// cancelled and reporting progress while it runs.
    pub(crate) async fn run_listing(
        &self,
        ctx: &RequestContext<RoleServer>,
        cancel: CancelToken,
        folders: Arc<AtomicU64>,
        job: impl FnOnce() -> Result<(canopy_core::wire::Listing, Opened), CanopyError> + Send + 'static,
    ) -> Result<(canopy_core::wire::Listing, Opened), CanopyError> {
        let mut task = tokio::task::spawn_blocking(job);
        let token = ctx.meta.get_progress_token();
        let start = Instant::now();
        let mut tick = tokio::time::interval_at(
            tokio::time::Instant::now() + MCP_PROGRESS_INTERVAL,
            MCP_PROGRESS_INTERVAL,
        );
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
}

/// What the server tells a model when it connects, for the folders `roots`.
fn instructions(roots: &[PathBuf], remote: Option<&str>) -> String {
    let (place, archives) = match remote {
        Some(host) => (format!(" on the server {host} (over SFTP)"), ""),
        None => (
            String::new(),
            " Zip and tar archives open like folders (a path can run through one).",
        ),
    };
    format!(
"Canopy lists folders (in name, size, modified or type order), searches a whole tree by name or content (search), reads files by bytes or lines (read_file, read_files), states a file's facts (file_info) and folder sizes (folder_sizes), read-only, under: {}{place} (list_roots names them).{archives} What git would ignore is hidden unless include_ignored is true. Every reply fits {} characters; follow [NEXT] cursors to page, list a folder by its path to see what a listing left out, and call search (a whole tree) or find_in_folder (one huge folder) rather than paging for a name.",
        roots_text(roots),
        tools::grouped(MCP_REPLY_CHARS as u64)
    )
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Canopy {
    // Logging is deprecated from protocol 2026-07-28 on; the revisions this
    // server speaks have it.
    #[allow(deprecated)]
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_logging()
                .build(),
        )
        .with_server_info(
            Implementation::new("canopy-mcp", env!("CARGO_PKG_VERSION")).with_title("Canopy"),
        )
        .with_instructions(instructions(&self.roots, self.remote_host().as_deref()))
    }

    /// The revisions with an `initialize` handshake, whose `roots/list`
    /// this server asks when the client offers roots.
    fn supported_protocol_versions(&self) -> std::borrow::Cow<'static, [ProtocolVersion]> {
        std::borrow::Cow::Borrowed(ProtocolVersion::known_up_to(&ProtocolVersion::V_2025_11_25))
    }

    async fn on_roots_list_changed(&self, _ctx: NotificationContext<RoleServer>) {
        let mut known = self.client_roots.lock().unwrap_or_else(|e| e.into_inner());
        known.known = None;
        known.fallback = None;
        known.generation += 1;
    }

    #[allow(deprecated)]
    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<(), rmcp::ErrorData> {
        self.log_level.store(rank(request.level), Ordering::Relaxed);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_instructions_state_the_reply_budget_from_its_constant() {
        let text = instructions(&[PathBuf::from("/srv/data")], None);
        assert!(
            text.contains(&format!(
                "fits {} characters",
                tools::grouped(MCP_REPLY_CHARS as u64)
            )),
            "{text}"
        );
        let digits: String = text
            .replace(&tools::grouped(MCP_REPLY_CHARS as u64), "")
            .chars()
            .filter(char::is_ascii_digit)
            .collect();
        assert_eq!(
            digits, "",
            "every number in the instructions comes from a constant: {text}"
        );
    }
}
