//! The protocol face of `canopy-mcp`: the tools it lists, how it starts and
//! refuses to start, and what it links.

use crate::common;

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use common::{binary, Server, Tree};
use serde_json::{json, Value};

#[tokio::test]
async fn tools_list_matches_its_snapshot() {
    let t = Tree::new();
    let s = Server::start(&[&t.path()]).await;
    let tools = s.client.list_all_tools().await.expect("tools/list answers");
    let got = serde_json::to_string_pretty(&serde_json::to_value(&tools).unwrap()).unwrap() + "\n";
    let file =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots/tools_list.json");
    if std::env::var_os("CANOPY_UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(&file, &got).unwrap();
    }
    let want = std::fs::read_to_string(&file).unwrap_or_default();
    if got != want {
        std::fs::write(file.with_extension("json.new"), &got).unwrap();
        panic!("tools/list changed: compare {} with tools_list.json.new (CANOPY_UPDATE_SNAPSHOTS=1 accepts it)", file.display());
    }
}

/// The most characters `tools/list`'s tools may take (compact JSON): a
/// client puts every tool definition in the model's context on every turn.
/// The reference filesystem server's take 14,066 as the official Python
/// SDK serializes them (`Tool.model_dump_json()` summed, which also writes
/// each absent field as `null`: about 90 characters more a tool here), so
/// this bound keeps canopy-mcp's below the reference server's that way too.
const TOOLS_LIST_CHARS: usize = 13_000;

#[tokio::test]
async fn the_tool_definitions_stay_under_their_budget() {
    let t = Tree::new();
    let s = Server::start(&[&t.path()]).await;
    let tools = s.client.list_all_tools().await.expect("tools/list answers");
    let chars = serde_json::to_string(&tools).unwrap().chars().count();
    assert!(
        chars < TOOLS_LIST_CHARS,
        "the tool definitions take {chars} characters, the budget is {TOOLS_LIST_CHARS}"
    );
}

#[tokio::test]
async fn every_tool_is_read_only_closed_world_titled_and_typed() {
    let t = Tree::new();
    let s = Server::start(&[&t.path()]).await;
    let tools = s.client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(
        names,
        [
            "file_info",
            "find_in_folder",
            "folder_sizes",
            "list_directory",
            "list_roots",
            "read_file",
            "read_files",
            "search"
        ]
    );
    for tool in &tools {
        let v = serde_json::to_value(tool).unwrap();
        assert!(
            v["title"].as_str().is_some_and(|t| !t.is_empty()),
            "{} has a title",
            tool.name
        );
        assert_eq!(
            v["annotations"]["readOnlyHint"],
            json!(true),
            "{} is read-only",
            tool.name
        );
        assert_eq!(
            v["annotations"]["openWorldHint"],
            json!(false),
            "{} is closed-world",
            tool.name
        );
        assert_eq!(v["inputSchema"]["type"], json!("object"));
        assert!(
            v.get("outputSchema").is_none(),
            "{} has no output schema: its text states each fact",
            tool.name
        );
        let description = v["description"].as_str().unwrap();
        assert!(
            description.len() < 2048,
            "{}'s description is {} bytes",
            tool.name,
            description.len()
        );
        let required = match tool.name.as_ref() {
            "find_in_folder" => json!(["path", "pattern"]),
            "list_roots" | "file_info" => Value::Null,
            "read_files" => json!(["paths"]),
            _ => json!(["path"]),
        };
        assert_eq!(
            v["inputSchema"]["required"], required,
            "only the path (find_in_folder's pattern, read_files' paths; file_info's path or paths) is required"
        );
    }
}

#[test]
fn without_a_root_it_exits_2() {
    let none = Command::new(binary()).output().unwrap();
    assert_eq!(none.status.code(), Some(2), "no --root");
    assert!(
        String::from_utf8_lossy(&none.stderr).contains("--root"),
        "the message says what is missing"
    );
    let t = Tree::new();
    let file = t.file("plain.txt");
    for bad in [
        vec!["--root".into()],
        vec!["--root".into(), t.at("missing").into_os_string()],
        vec!["--root".into(), file.into_os_string()],
        vec!["--bogus".into()],
    ] {
        let out = Command::new(binary()).args(&bad).output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(2),
            "{bad:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn the_binary_links_no_gui_library() {
    let out = Command::new("ldd")
        .arg(env!("CARGO_BIN_EXE_canopy-mcp"))
        .output()
        .expect("ldd runs");
    let libs = String::from_utf8_lossy(&out.stdout);
    assert!(libs.contains("libc.so"), "ldd listed the libraries: {libs}");
    for gui in ["gtk", "webkit", "gdk", "javascriptcore", "soup"] {
        assert!(
            !libs.to_lowercase().contains(gui),
            "{gui} is linked:\n{libs}"
        );
    }
}

#[tokio::test]
async fn a_malformed_call_is_the_only_protocol_error() {
    let t = Tree::new();
    let s = Server::start(&[&t.path()]).await;
    let unknown = s
        .client
        .call_tool(rmcp::model::CallToolRequestParams::new("delete_everything"))
        .await;
    assert!(unknown.is_err(), "an unknown tool is a protocol error");
    // Arguments of the wrong type or unknown name are the model's to fix: results.
    for bad in [
        json!({}),
        json!({"path": 5}),
        json!({"path": "x", "depth": "deep"}),
        json!({"path": "x", "colour": true}),
    ] {
        let r = common::Reply::of(s.call("list_directory", bad.clone()).await);
        assert_eq!(r.code(), "INVALID_ARGUMENT", "{bad}: {}", r.text);
    }
    let _: Value = json!(null);
}

#[tokio::test]
async fn an_error_quoting_a_huge_argument_stays_within_the_budget() {
    let t = Tree::new();
    let s = Server::start(&[&t.path()]).await;
    let huge = "a".repeat(1_000_000);
    let root = common::path_arg(&t.path());
    let cases = [
        (
            "list_directory",
            json!({ "path": format!("/{huge}") }),
            "DENIED",
        ),
        ("read_file", json!({ "path": format!("/{huge}") }), "DENIED"),
        (
            "list_directory",
            json!({ "path": root, "depth": huge }),
            "INVALID_ARGUMENT",
        ),
        (
            "find_in_folder",
            json!({ "path": root, "pattern": "x", huge.clone(): 1 }),
            "INVALID_ARGUMENT",
        ),
    ];
    for (tool, args, code) in cases {
        let r = common::Reply::of(s.call(tool, args).await);
        assert_eq!(r.code(), code, "{tool}: {}", &r.text[..200]);
        let n = r.text.chars().count();
        assert!(
            n <= common::BUDGET,
            "{tool}'s {code} reply is {n} characters"
        );
        assert!(
            r.text.ends_with(" characters in all)"),
            "the cut says so: ...{}",
            &r.text[r.text.len() - 60..]
        );
    }
}

#[test]
fn the_schema_check_catches_what_breaks_a_schema() {
    let defs = json!({ "K": { "type": "object", "properties": { "n": { "type": "integer", "minimum": 0 } }, "required": ["n"] } });
    let schema = json!({ "type": "object", "properties": { "k": { "$ref": "#/$defs/K" }, "e": { "oneOf": [{ "const": "a" }, { "const": "b" }] }, "s": { "type": ["string", "null"] } }, "required": ["k"] });
    assert_eq!(
        common::schema_breaks(
            &json!({ "k": { "n": 1 }, "e": "a", "s": null }),
            &schema,
            &defs,
            "v"
        ),
        None
    );
    for bad in [
        json!({}),
        json!({ "k": { "n": -1 } }),
        json!({ "k": { "n": 1 }, "e": "c" }),
        json!({ "k": { "n": 1 }, "x": 1 }),
        json!({ "k": { "n": 1 }, "s": 2 }),
    ] {
        assert!(
            common::schema_breaks(&bad, &schema, &defs, "v").is_some(),
            "{bad}"
        );
    }
}

/// The server on raw pipes: lines written to its stdin, its replies read
/// back line by line, past the handshake.
struct RawServer {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    tree: Tree,
}

impl RawServer {
    fn start() -> RawServer {
        RawServer::start_with_stderr(Stdio::null())
    }

    fn start_with_stderr(stderr: Stdio) -> RawServer {
        let tree = Tree::new();
        let mut child = Command::new(binary())
            .arg("--root")
            .arg(tree.path())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .unwrap();
        let (stdin, stdout) = (
            child.stdin.take().unwrap(),
            BufReader::new(child.stdout.take().unwrap()),
        );
        let mut s = RawServer {
            child,
            stdin,
            stdout,
            tree,
        };
        s.send(r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#);
        assert_eq!(s.reply()["id"], json!(0), "initialize is answered");
        s.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        s
    }

    fn send(&mut self, line: &str) {
        self.stdin.write_all(line.as_bytes()).unwrap();
        self.stdin.write_all(b"\n").unwrap();
        self.stdin.flush().unwrap();
    }

    /// The next line the server writes, and its length in bytes.
    fn raw_reply(&mut self) -> (Value, usize) {
        let mut line = String::new();
        assert!(
            self.stdout.read_line(&mut line).unwrap() > 0,
            "the server closed stdout"
        );
        (
            serde_json::from_str(&line).unwrap_or_else(|e| panic!("the reply is JSON: {e}")),
            line.len(),
        )
    }

    fn reply(&mut self) -> Value {
        self.raw_reply().0
    }

    /// Sends `line`, then a ping: the line's own reply must come before the
    /// ping's (a line that is dropped shows as the ping's reply first).
    fn answer_to(&mut self, line: &str, n: u64) -> (Value, usize) {
        self.send(line);
        self.send(&format!(
            r#"{{"jsonrpc":"2.0","id":"ping-{n}","method":"ping"}}"#
        ));
        let got = self.raw_reply();
        assert_ne!(
            got.0["id"],
            json!(format!("ping-{n}")),
            "the line before ping {n} got no reply: {}",
            &line[..line.len().min(200)]
        );
        assert_eq!(
            self.reply()["id"],
            json!(format!("ping-{n}")),
            "then the ping is answered"
        );
        got
    }

    /// Sends a well-formed request and reads its reply (other requests'
    /// replies may come first: requests run at once).
    fn call(&mut self, line: &str, id: &Value) -> (Value, usize) {
        self.send(line);
        loop {
            let got = self.raw_reply();
            if &got.0["id"] == id {
                return got;
            }
        }
    }
}

impl Drop for RawServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn every_line_that_is_not_a_request_gets_the_json_rpc_error_for_it() {
    let mut s = RawServer::start();
    let cases = [
        (
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"",
            json!(null),
            -32700,
            "not JSON (an unclosed object)",
        ),
        ("hello", json!(null), -32700, "not JSON (a word)"),
        (
            r#"[{"jsonrpc":"2.0","id":2,"method":"ping"}]"#,
            json!(null),
            -32600,
            "a batch",
        ),
        ("[]", json!(null), -32600, "an empty batch"),
        ("42", json!(null), -32600, "JSON that is no message"),
        (
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":"x"}"#,
            json!(3),
            -32602,
            "params that are not an object",
        ),
        (
            r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"arguments":{}}}"#,
            json!(4),
            -32602,
            "tools/call without a name",
        ),
        (
            r#"{"jsonrpc":"2.0","id":"five","method":"no/such/method"}"#,
            json!("five"),
            -32601,
            "an unknown method",
        ),
    ];
    for (n, (line, id, code, what)) in cases.into_iter().enumerate() {
        let (reply, _) = s.answer_to(line, n as u64);
        assert_eq!(reply["error"]["code"], json!(code), "{what}: {reply}");
        assert_eq!(
            reply["id"], id,
            "{what}: the request's id, or null when it has none"
        );
        assert_eq!(reply["jsonrpc"], json!("2.0"), "{what}");
    }
    // A notification is never answered, whatever it holds.
    s.send(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":"x"}"#);
    s.send(r#"{"jsonrpc":"2.0","id":"last","method":"ping"}"#);
    assert_eq!(
        s.reply()["id"],
        json!("last"),
        "no reply to the notification"
    );
}

#[test]
fn no_error_echoes_a_huge_value_whole() {
    let mut s = RawServer::start();
    let huge = "m".repeat(5_000_000);
    let (reply, bytes) = s.answer_to(
        &format!(r#"{{"jsonrpc":"2.0","id":1,"method":"{huge}"}}"#),
        1,
    );
    within_limit(&reply, bytes, -32601, "a 5 MB method name");
    let (reply, bytes) = s.answer_to(
        &format!(r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":"{huge}"}}"#),
        2,
    );
    within_limit(&reply, bytes, -32602, "5 MB params of the wrong type");
    // A well-formed call of a tool that does not exist: rmcp's own error quotes the name.
    let (reply, bytes) = s.call(
        &format!(
            r#"{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{{"name":"{huge}"}}}}"#
        ),
        &json!(3),
    );
    within_limit(&reply, bytes, -32602, "a 5 MB tool name");
}

#[test]
fn a_client_that_never_reads_stderr_still_gets_every_reply() {
    // One log line a call: 4,000 calls write far more than a pipe holds
    // (64 KiB), so a server that waits for its stderr to drain stops answering.
    const CALLS: u64 = 4_000;
    let mut s = RawServer::start_with_stderr(Stdio::piped());
    let unread = s.child.stderr.take();
    let root = serde_json::to_string(&s.tree.path().to_string_lossy()).unwrap();
    let (done, finished) = std::sync::mpsc::channel();
    let caller = std::thread::spawn(move || {
        for n in 1..=CALLS {
            let line = format!(
                r#"{{"jsonrpc":"2.0","id":{n},"method":"tools/call","params":{{"name":"list_directory","arguments":{{"path":{root}}}}}}}"#
            );
            let (reply, _) = s.call(&line, &json!(n));
            assert!(
                reply.get("result").is_some(),
                "call {n} is answered with a result: {reply}"
            );
            let _ = done.send(n);
        }
        s
    });
    let mut answered = 0;
    // A liveness bound only: a stuck server answers nothing more, ever.
    while let Ok(n) = finished.recv_timeout(std::time::Duration::from_secs(60)) {
        answered = n;
    }
    assert_eq!(
        answered, CALLS,
        "the server stopped answering after {answered} calls while its stderr was full"
    );
    drop(caller.join().unwrap());
    drop(unread);
}

fn within_limit(reply: &Value, bytes: usize, code: i64, what: &str) {
    let text = reply.to_string();
    assert_eq!(
        reply["error"]["code"],
        json!(code),
        "{what}: {}",
        &text[..text.len().min(300)]
    );
    let message = reply["error"]["message"].as_str().unwrap();
    assert!(
        message.chars().count() <= 2_000,
        "{what}: a message of {} characters",
        message.chars().count()
    );
    assert!(bytes <= 2_200, "{what}: a reply of {bytes} bytes");
}
