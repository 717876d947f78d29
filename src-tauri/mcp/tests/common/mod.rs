//! Driving the real `canopy-mcp` binary through rmcp's client over a child
//! process, fixture trees, and reading replies.
#![allow(dead_code)]
// Roots: the test client offers them, as protocol 2025-11-25 does.
#![allow(deprecated)]

use std::ffi::{CString, OsStr};
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig, Implementation,
    ListRootsResult, ProgressNotificationParam, Root,
};
use rmcp::service::{NotificationContext, RequestContext, RunningService};
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientHandler, ErrorData, RoleClient, ServiceExt};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{ChildStderr, Command};
use tokio::sync::mpsc;

/// The reply budget every text must fit.
pub const BUDGET: usize = 40_000;

pub fn is_root() -> bool {
    unsafe { libc::geteuid() == 0 }
}

/// The binary, copied where an unprivileged user can run it (removed when
/// the test process exits).
pub fn binary() -> PathBuf {
    static COPY: OnceLock<PathBuf> = OnceLock::new();
    COPY.get_or_init(|| {
        let dest = crate::scratch::dir_for_nobody("mcp-bin").join("canopy-mcp");
        fs::copy(env!("CARGO_BIN_EXE_canopy-mcp"), &dest).unwrap();
        fs::set_permissions(&dest, fs::Permissions::from_mode(0o755)).unwrap();
        dest
    })
    .clone()
}

/// A command running `program` as `nobody` when the tests run as root, so
/// permissions mean what they say.
pub fn unprivileged(program: &Path) -> Command {
    if is_root() {
        let mut c = Command::new("setpriv");
        c.args(["--reuid=nobody", "--regid=nogroup", "--clear-groups", "--"])
            .arg(program);
        c
    } else {
        Command::new(program)
    }
}

/// A temp folder an unprivileged user can read, removed on drop.
pub struct Tree {
    pub dir: tempfile::TempDir,
}

impl Tree {
    pub fn new() -> Self {
        Self::in_dir(std::env::temp_dir())
    }

    /// On tmpfs when there is one: for fixtures of 200,000 files.
    pub fn in_memory() -> Self {
        let shm = Path::new("/dev/shm");
        Self::in_dir(if shm.is_dir() {
            shm.to_path_buf()
        } else {
            std::env::temp_dir()
        })
    }

    fn in_dir(parent: PathBuf) -> Self {
        let dir = tempfile::Builder::new()
            .prefix("canopy-mcp-test-")
            .tempdir_in(parent)
            .unwrap();
        fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o755)).unwrap();
        Tree { dir }
    }

    pub fn path(&self) -> PathBuf {
        // The real path: tests compare with what the server reports.
        fs::canonicalize(self.dir.path()).unwrap()
    }

    pub fn at(&self, rel: impl AsRef<[u8]>) -> PathBuf {
        self.path().join(OsStr::from_bytes(rel.as_ref()))
    }

    pub fn dir(&self, rel: impl AsRef<[u8]>) -> PathBuf {
        let p = self.at(rel);
        fs::create_dir_all(&p).unwrap();
        p
    }

    pub fn write(&self, rel: impl AsRef<[u8]>, content: &[u8]) -> PathBuf {
        let p = self.at(rel);
        if let Some(parent) = p.parent() {
            fs::create_dir_all(parent).unwrap();
        }
        fs::write(&p, content).unwrap();
        p
    }

    pub fn file(&self, rel: impl AsRef<[u8]>) -> PathBuf {
        self.write(rel, b"")
    }

    pub fn fifo(&self, rel: impl AsRef<[u8]>) -> PathBuf {
        let p = self.at(rel);
        let c = CString::new(p.as_os_str().as_bytes()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
        p
    }

    pub fn link(&self, rel: impl AsRef<[u8]>, target: impl AsRef<Path>) -> PathBuf {
        let p = self.at(rel);
        std::os::unix::fs::symlink(target, &p).unwrap();
        p
    }
}

impl Drop for Tree {
    fn drop(&mut self) {
        // Restore modes a test took away, so removal works.
        let _ = std::process::Command::new("chmod")
            .args(["-R", "u+rwx"])
            .arg(self.dir.path())
            .status();
    }
}

/// What the test client saw besides replies.
#[derive(Clone, Default)]
pub struct Seen {
    pub progress: Arc<Mutex<Vec<ProgressNotificationParam>>>,
    /// `notifications/message` the server sent: (level, text).
    pub logs: Arc<Mutex<Vec<(String, String)>>>,
}

/// A client that offers `roots` (when set) and records progress.
#[derive(Clone)]
pub struct TestClient {
    pub roots: Option<Arc<Mutex<Vec<String>>>>,
    pub seen: Seen,
}

impl ClientHandler for TestClient {
    fn get_info(&self) -> ClientConfig {
        let caps = if self.roots.is_some() {
            ClientCapabilities::builder()
                .enable_roots()
                .enable_roots_list_changed()
                .build()
        } else {
            ClientCapabilities::default()
        };
        ClientConfig::new(caps, Implementation::new("canopy-mcp-tests", "0"))
    }

    #[allow(deprecated)]
    async fn list_roots(
        &self,
        _ctx: RequestContext<RoleClient>,
    ) -> Result<ListRootsResult, ErrorData> {
        let uris = self
            .roots
            .as_ref()
            .map(|r| r.lock().unwrap().clone())
            .unwrap_or_default();
        Ok(ListRootsResult::new(
            uris.into_iter().map(Root::new).collect(),
        ))
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _ctx: NotificationContext<RoleClient>,
    ) {
        self.seen.progress.lock().unwrap().push(params);
    }

    async fn on_logging_message(
        &self,
        params: rmcp::model::LoggingMessageNotificationParam,
        _ctx: NotificationContext<RoleClient>,
    ) {
        let level = serde_json::to_value(params.level).unwrap();
        let text = params.data.as_str().unwrap_or_default().to_string();
        self.seen
            .logs
            .lock()
            .unwrap()
            .push((level.as_str().unwrap_or_default().to_string(), text));
    }
}

/// A running server and the client connected to it.
pub struct Server {
    pub client: RunningService<RoleClient, TestClient>,
    pub stderr: mpsc::UnboundedReceiver<String>,
    pub seen: Seen,
    /// Each tool's advertised outputSchema, asked once.
    output_schemas: tokio::sync::OnceCell<std::collections::HashMap<String, Value>>,
}

/// Where `value` breaks `schema` (the JSON Schema subset schemars writes:
/// `$ref` into `$defs`, `type`, `properties`, `required`, `items`, `enum`,
/// `const`, `oneOf`, `minimum`), or `None`. A property the schema does not
/// name counts as a break too: what is sent must be what is advertised.
pub fn schema_breaks(value: &Value, schema: &Value, defs: &Value, at: &str) -> Option<String> {
    if let Some(r) = schema.get("$ref").and_then(Value::as_str) {
        let name = r
            .strip_prefix("#/$defs/")
            .unwrap_or_else(|| panic!("an unexpected $ref {r}"));
        return schema_breaks(value, &defs[name], defs, at);
    }
    if let Some(types) = schema.get("type") {
        let fits = |t: &str| match t {
            "object" => value.is_object(),
            "array" => value.is_array(),
            "string" => value.is_string(),
            "boolean" => value.is_boolean(),
            "integer" => value.is_i64() || value.is_u64(),
            "number" => value.is_number(),
            "null" => value.is_null(),
            other => panic!("an unexpected type {other}"),
        };
        let ok = match types {
            Value::String(t) => fits(t),
            Value::Array(ts) => ts.iter().any(|t| fits(t.as_str().unwrap())),
            _ => panic!("type is a string or a list"),
        };
        if !ok {
            return Some(format!("{at}: {value} is not {types}"));
        }
    }
    if let Some(min) = schema.get("minimum").and_then(Value::as_f64) {
        if value.as_f64().is_some_and(|v| v < min) {
            return Some(format!("{at}: {value} is below {min}"));
        }
    }
    if let Some(c) = schema.get("const") {
        if c != value {
            return Some(format!("{at}: {value} is not {c}"));
        }
    }
    if let Some(options) = schema.get("enum").and_then(Value::as_array) {
        if !options.contains(value) {
            return Some(format!("{at}: {value} is not one of {options:?}"));
        }
    }
    if let Some(options) = schema.get("oneOf").and_then(Value::as_array) {
        let fits = options
            .iter()
            .filter(|o| schema_breaks(value, o, defs, at).is_none())
            .count();
        if fits != 1 {
            return Some(format!("{at}: {value} fits {fits} of oneOf"));
        }
    }
    if let (Some(obj), Some(props)) = (
        value.as_object(),
        schema.get("properties").and_then(Value::as_object),
    ) {
        for name in schema
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if !obj.contains_key(name.as_str().unwrap()) {
                return Some(format!("{at}: {name} is required"));
            }
        }
        for (k, v) in obj {
            let Some(sub) = props.get(k) else {
                return Some(format!("{at}: {k} is sent but not in the schema"));
            };
            if let Some(b) = schema_breaks(v, sub, defs, &format!("{at}.{k}")) {
                return Some(b);
            }
        }
    }
    if let (Some(items), Some(schema)) = (value.as_array(), schema.get("items")) {
        for (i, v) in items.iter().enumerate() {
            if let Some(b) = schema_breaks(v, schema, defs, &format!("{at}[{i}]")) {
                return Some(b);
            }
        }
    }
    None
}

/// How to start a server.
#[derive(Default)]
pub struct Start {
    pub roots: Vec<PathBuf>,
    pub env: Vec<(String, String)>,
    pub client_roots: Option<Arc<Mutex<Vec<String>>>>,
    /// More arguments after the roots (`--ssh-config FILE`).
    pub args: Vec<std::ffi::OsString>,
}

impl Server {
    pub async fn start(roots: &[&Path]) -> Server {
        Self::start_with(Start {
            roots: roots.iter().map(|p| p.to_path_buf()).collect(),
            ..Start::default()
        })
        .await
    }

    pub async fn start_with(start: Start) -> Server {
        let mut cmd = unprivileged(&binary());
        for r in &start.roots {
            cmd.arg("--root").arg(r);
        }
        cmd.args(&start.args);
        for (k, v) in &start.env {
            cmd.env(k, v);
        }
        let (transport, stderr) = TokioChildProcess::builder(cmd)
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("the server starts");
        let (tx, rx) = mpsc::unbounded_channel();
        let stderr: ChildStderr = stderr.expect("stderr is piped");
        tokio::spawn(async move {
            let mut lines = BufReader::new(stderr).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                let _ = tx.send(line);
            }
        });
        let seen = Seen::default();
        let handler = TestClient {
            roots: start.client_roots,
            seen: seen.clone(),
        };
        let client = handler.serve(transport).await.expect("the client connects");
        Server {
            client,
            stderr: rx,
            seen,
            output_schemas: tokio::sync::OnceCell::new(),
        }
    }

    /// Calls a tool and returns its result (a protocol error fails the
    /// test, and so does a success whose structuredContent is missing or
    /// does not fit the tool's advertised outputSchema).
    pub async fn call(&self, tool: &str, args: Value) -> CallToolResult {
        let Value::Object(args) = args else {
            panic!("arguments are an object")
        };
        let r = self
            .client
            .call_tool(CallToolRequestParams::new(tool.to_string()).with_arguments(args))
            .await
            .unwrap_or_else(|e| panic!("{tool} answered a protocol error: {e}"));
        if r.is_error != Some(true) {
            let schemas = self
                .output_schemas
                .get_or_init(|| async {
                    let tools = self
                        .client
                        .list_all_tools()
                        .await
                        .expect("tools/list answers");
                    tools
                        .iter()
                        .map(|t| {
                            (
                                t.name.to_string(),
                                serde_json::to_value(t).unwrap()["outputSchema"].clone(),
                            )
                        })
                        .collect()
                })
                .await;
            let schema = &schemas[tool];
            let sent = r
                .structured_content
                .as_ref()
                .unwrap_or_else(|| panic!("{tool} succeeded without structuredContent"));
            if let Some(b) = schema_breaks(sent, schema, &schema["$defs"], "structuredContent") {
                panic!("{tool}'s structuredContent does not fit its outputSchema: {b}");
            }
        }
        r
    }

    pub async fn list(&self, args: Value) -> Reply {
        Reply::of(self.call("list_directory", args).await)
    }

    /// Waits for a line on the server's stderr that contains `needle`.
    pub async fn wait_for_log(&mut self, needle: &str) -> String {
        while let Some(line) = self.stderr.recv().await {
            if line.contains(needle) {
                return line;
            }
        }
        panic!("the server's stderr ended without a line containing {needle:?}");
    }
}

/// A tool result, read.
#[derive(Debug, Clone)]
pub struct Reply {
    pub text: String,
    pub is_error: bool,
    pub structured: Value,
}

impl Reply {
    pub fn of(r: CallToolResult) -> Reply {
        assert_eq!(r.content.len(), 1, "one text block: {r:?}");
        let text = r.content[0].as_text().expect("a text block").text.clone();
        Reply {
            text,
            is_error: r.is_error == Some(true),
            structured: r.structured_content.unwrap_or(Value::Null),
        }
    }

    pub fn ok(self) -> Reply {
        assert!(!self.is_error, "expected a listing, got {}", self.text);
        assert!(
            self.chars() <= BUDGET,
            "the reply is {} characters (text and structuredContent)",
            self.chars()
        );
        self
    }

    /// Characters of the whole reply: the text and structuredContent as sent (compact JSON).
    pub fn chars(&self) -> usize {
        let structured = if self.structured.is_null() {
            0
        } else {
            serde_json::to_string(&self.structured)
                .unwrap()
                .chars()
                .count()
        };
        self.text.chars().count() + structured
    }

    /// The error code of an error result (`CODE: message`).
    pub fn code(&self) -> &str {
        assert!(self.is_error, "expected an error result, got {}", self.text);
        assert_eq!(
            self.structured,
            Value::Null,
            "an error carries no structured result"
        );
        self.text.split_once(": ").expect("CODE: message").0
    }

    pub fn next_cursor(&self) -> Option<String> {
        self.structured
            .get("nextCursor")
            .and_then(Value::as_str)
            .map(str::to_string)
    }

    pub fn lines(&self) -> Vec<&str> {
        self.text.lines().collect()
    }
}

pub fn args(v: Value) -> Value {
    v
}

pub fn path_arg(p: &Path) -> String {
    // Test paths are plain ASCII temp paths.
    p.to_str().unwrap().to_string()
}

pub fn list_args(p: &Path) -> Value {
    json!({ "path": path_arg(p) })
}

/// Entry lines (`[KIND] path`), without links' targets.
pub fn entry_paths(text: &str) -> Vec<String> {
    const TAGS: [&str; 8] = [
        "[DIR] ",
        "[FILE] ",
        "[LINK] ",
        "[FIFO] ",
        "[SOCKET] ",
        "[CHAR_DEVICE] ",
        "[BLOCK_DEVICE] ",
        "[UNKNOWN] ",
    ];
    text.lines()
        .filter_map(|l| {
            let tag = TAGS.iter().find(|t| l.starts_with(**t))?;
            let rest = &l[tag.len()..];
            Some(rest.split_once(" -> ").map_or(rest, |(p, _)| p).to_string())
        })
        .collect()
}
