//! The stdio transport: one JSON-RPC message a line, in and out, with every
//! line that is not a message the server can take answered as JSON-RPC 2.0
//! says, rather than dropped.
//!
//! Promises:
//! - a line that is not JSON is answered `-32700` (parse error); a batch (a
//!   JSON array: MCP dropped batches in 2025-06-18), or anything else that
//!   is not a request, a notification or a response, `-32600` (invalid
//!   request), with the request's `id` when it has a usable one, else `null`;
//! - a request for a method of MCP whose `params` do not fit is answered
//!   `-32602` (invalid params); one for a method the server does not know,
//!   `-32601` (method not found). A notification is never answered;
//! - no error leaves the server longer than `MCP_ERROR_CHARS` characters
//!   of message: what it quotes of the request (a method name, a value) is
//!   cut, and error `data` of more is dropped;
//! - a line longer than `MAX_LINE_BYTES` is never held whole: it is skipped
//!   to its end and answered `-32600`;
//! - no request is read while `MCP_UNANSWERED_REQUESTS` requests wait for
//!   their replies to be written, or that many lines wait to be written: a
//!   client that sends and never reads costs that many replies, not one per
//!   request (the first such stop says so on stderr);
//! - a request whose id is that of one not yet answered is refused
//!   `-32600` (MCP never reuses an id), and the refusal written before the
//!   next line is read: owed requests are counted by their ids, so one id
//!   sent again and again would otherwise be read without bound.

use std::borrow::Cow;
use std::collections::HashSet;
use std::io;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use canopy_core::limits::{MCP_ERROR_CHARS, MCP_UNANSWERED_REQUESTS};
use rmcp::model::{ClientNotification, ClientRequest, JsonRpcMessage, RequestId};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::RoleServer;
use serde_json::{json, Map, Value};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{mpsc, oneshot, Notify};

/// The longest line read (as rmcp's own stdio transport allows).
pub const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// Lines read ahead of the server.
const READ_AHEAD: usize = 4;

/// The methods a client may call under MCP 2025-11-25 (and earlier revisions).
const MCP_METHODS: [&str; 17] = [
    "initialize",
    "ping",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
    "prompts/list",
    "prompts/get",
    "completion/complete",
    "logging/setLevel",
    "tasks/get",
    "tasks/result",
    "tasks/list",
    "tasks/cancel",
];

const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;
const METHOD_NOT_FOUND: i64 = -32601;
const INVALID_PARAMS: i64 = -32602;

/// What one line read from the client is.
enum Line {
    Bytes(Vec<u8>),
    /// Longer than `MAX_LINE_BYTES` (skipped to its end).
    TooLong,
}

/// What goes to the client: a line, who waits for it to be written, and
/// the request it answers.
struct Outgoing {
    line: Vec<u8>,
    written: Option<oneshot::Sender<()>>,
    answers: Option<RequestId>,
}

/// What the server owes the client: the requests read and not yet answered
/// (their reply not yet written), and the lines waiting to be written.
#[derive(Default)]
struct Owed {
    requests: Mutex<HashSet<RequestId>>,
    lines: AtomicUsize,
    /// Wakes a reader waiting for room when a line is written.
    written: Notify,
    said: AtomicBool,
}

impl Owed {
    /// Counts request `id` as owed; `false` when a request of that id is
    /// owed already.
    fn request(&self, id: RequestId) -> bool {
        self.requests
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(id)
    }

    /// `id` needs no reply any more: it was written, or the request was
    /// cancelled (rmcp then drops its reply).
    fn settle(&self, id: &RequestId) {
        self.requests
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(id);
        self.written.notify_waiters();
    }

    fn full(&self) -> bool {
        let requests = self
            .requests
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .len();
        requests >= MCP_UNANSWERED_REQUESTS
            || self.lines.load(Ordering::SeqCst) >= MCP_UNANSWERED_REQUESTS
    }

    /// Waits until a request may be read.
    async fn room(&self) {
        loop {
            // Made before the check, so a line written between the two wakes it.
            let written = self.written.notified();
            if !self.full() {
                return;
            }
            if !self.said.swap(true, Ordering::SeqCst) {
                crate::diagnostics::line(format!(
                    "stopped reading requests: {MCP_UNANSWERED_REQUESTS} wait for their replies \
                     to be written (the client is not reading them); reading resumes as it does \
                     (said once)"
                ));
            }
            written.await;
        }
    }
}

/// The server's side of a stdio connection (see the module's promises).
pub struct LineTransport {
    lines: mpsc::Receiver<Line>,
    out: mpsc::UnboundedSender<Outgoing>,
    owed: Arc<Owed>,
}

impl LineTransport {
    /// A transport over `read` and `write` (stdin and stdout), reading and
    /// writing on tasks of the current runtime.
    pub fn new<R, W>(read: R, write: W) -> LineTransport
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let (line_tx, lines) = mpsc::channel(READ_AHEAD);
        tokio::spawn(async move {
            let mut read = BufReader::new(read);
            while let Some(line) = read_line(&mut read).await {
                if line_tx.send(line).await.is_err() {
                    break;
                }
            }
        });
        let (out, mut out_rx) = mpsc::unbounded_channel::<Outgoing>();
        let owed = Arc::new(Owed::default());
        let writing = owed.clone();
        tokio::spawn(async move {
            let mut write = write;
            while let Some(o) = out_rx.recv().await {
                let ok = write.write_all(&o.line).await.is_ok() && write.flush().await.is_ok();
                if let Some(w) = o.written {
                    let _ = w.send(());
                }
                // (The line's count and the request's are settled together.)
                writing.lines.fetch_sub(1, Ordering::SeqCst);
                match &o.answers {
                    Some(id) => writing.settle(id),
                    None => writing.written.notify_waiters(),
                }
                if !ok {
                    break;
                }
            }
        });
        LineTransport { lines, out, owed }
    }

    /// Writes an error reply to a line that was no request, and waits until
    /// it is written: a client that floods bad lines and never reads its
    /// replies stops being read from, instead of queueing replies in memory.
    async fn answer(&self, reply: Value) {
        let mut line = serde_json::to_vec(&reply).unwrap_or_default();
        line.push(b'\n');
        self.owed.lines.fetch_add(1, Ordering::SeqCst);
        let (tx, rx) = oneshot::channel();
        if self
            .out
            .send(Outgoing {
                line,
                written: Some(tx),
                answers: None,
            })
            .is_ok()
        {
            let _ = rx.await;
        }
    }

    /// Waits until every line queued so far is written.
    async fn drain(&self) {
        self.owed.lines.fetch_add(1, Ordering::SeqCst);
        let (tx, rx) = oneshot::channel();
        if self
            .out
            .send(Outgoing {
                line: Vec::new(),
                written: Some(tx),
                answers: None,
            })
            .is_ok()
        {
            let _ = rx.await;
        }
    }
}

/// One line, at most `MAX_LINE_BYTES` of it held; `None` at the end.
async fn read_line(read: &mut (impl AsyncBufRead + Unpin)) -> Option<Line> {
    let mut line = Vec::new();
    let mut too_long = false;
    loop {
        let buf = match read.fill_buf().await {
            Ok(b) => b,
            Err(e) => {
                crate::diagnostics::line(format!("IO: cannot read stdin: {e}"));
                return None;
            }
        };
        if buf.is_empty() {
            // The end: an unterminated last line is still a line.
            return (!line.is_empty() || too_long).then_some(if too_long {
                Line::TooLong
            } else {
                Line::Bytes(line)
            });
        }
        let (chunk, done) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (&buf[..i], Some(i + 1)),
            None => (buf, None),
        };
        if !too_long {
            if line.len() + chunk.len() > MAX_LINE_BYTES {
                too_long = true;
                line = Vec::new();
            } else {
                line.extend_from_slice(chunk);
            }
        }
        let used = done.unwrap_or(buf.len());
        read.consume(used);
        if done.is_some() {
            return Some(if too_long {
                Line::TooLong
            } else {
                Line::Bytes(line)
            });
        }
    }
}

/// `text` cut to `MCP_ERROR_CHARS` characters, saying so.
pub fn cut(text: &str) -> Cow<'_, str> {
    let total = text.chars().count();
    if total <= MCP_ERROR_CHARS {
        return Cow::Borrowed(text);
    }
    let tail = format!("... (cut: {total} characters in all)");
    let keep = MCP_ERROR_CHARS - tail.chars().count();
    Cow::Owned(text.chars().take(keep).chain(tail.chars()).collect())
}

fn error(id: Value, code: i64, message: &str) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "error": { "code": code, "message": cut(message) } })
}

/// A usable request id: a string or an integer.
fn usable_id(m: &Map<String, Value>) -> Option<Value> {
    m.get("id")
        .filter(|id| id.is_string() || id.is_i64() || id.is_u64())
        .cloned()
}

/// What a line is: a message for the server, an answer of the transport's
/// own, or nothing to do (a blank line, a notification that does not fit).
fn classify(bytes: &[u8]) -> Result<RxJsonRpcMessage<RoleServer>, Option<Value>> {
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(None);
    }
    let value: Value = match serde_json::from_slice(bytes) {
        Ok(v) => v,
        Err(e) => {
            return Err(Some(error(
                Value::Null,
                PARSE_ERROR,
                &format!("Parse error: the line is not JSON ({e})"),
            )))
        }
    };
    let Value::Object(m) = &value else {
        let what = if value.is_array() {
            "a batch (a JSON array) is not supported: MCP takes one message a line"
        } else {
            "a message is a JSON object"
        };
        return Err(Some(error(
            Value::Null,
            INVALID_REQUEST,
            &format!("Invalid Request: {what}"),
        )));
    };
    let id = usable_id(m);
    let method = m.get("method").and_then(Value::as_str);
    let parsed = serde_json::from_value::<RxJsonRpcMessage<RoleServer>>(value.clone());
    let known = method.is_some_and(|name| MCP_METHODS.contains(&name));
    match (parsed, method, id) {
        (Ok(RxJsonRpcMessage::<RoleServer>::Request(r)), Some(name), Some(id))
            if matches!(r.request, ClientRequest::CustomRequest(_)) =>
        {
            // A method of MCP read as a custom one: its params did not fit.
            if known {
                Err(Some(error(
                    id,
                    INVALID_PARAMS,
                    &format!("Invalid params: {name} was called with params that do not fit it"),
                )))
            } else {
                Err(Some(error(
                    id,
                    METHOD_NOT_FOUND,
                    &format!("Method not found: {name}"),
                )))
            }
        }
        (Ok(message), _, _) => Ok(message),
        (Err(e), _, id) if m.get("jsonrpc") != Some(&json!("2.0")) => Err(Some(error(
            id.unwrap_or(Value::Null),
            INVALID_REQUEST,
            &format!("Invalid Request: \"jsonrpc\" must be \"2.0\" ({e})"),
        ))),
        // A notification is never answered, even when it does not fit.
        (Err(e), Some(name), None) if !m.contains_key("id") => {
            crate::diagnostics::line(format!(
                "a notification that does not fit was ignored: {}",
                cut(&format!("{name}: {e}"))
            ));
            Err(None)
        }
        (Err(e), Some(name), Some(id)) if known => Err(Some(error(
            id,
            INVALID_PARAMS,
            &format!("Invalid params: {name}: {e}"),
        ))),
        (Err(_), Some(name), Some(id)) => Err(Some(error(
            id,
            METHOD_NOT_FOUND,
            &format!("Method not found: {name}"),
        ))),
        (Err(e), _, id) => Err(Some(error(
            id.unwrap_or(Value::Null),
            INVALID_REQUEST,
            &format!("Invalid Request: {e}"),
        ))),
    }
}

/// An outgoing message with every error's message cut (see [`cut`]) and
/// error data longer than that dropped.
fn bounded(message: &TxJsonRpcMessage<RoleServer>) -> Vec<u8> {
    let mut value = serde_json::to_value(message).unwrap_or(Value::Null);
    if let Some(err) = value.get_mut("error").and_then(Value::as_object_mut) {
        if let Some(Value::String(text)) = err.get_mut("message") {
            if let Cow::Owned(short) = cut(text) {
                *text = short;
            }
        }
        if err.get("data").is_some_and(|d| {
            serde_json::to_string(d).map_or(0, |s| s.chars().count()) > MCP_ERROR_CHARS
        }) {
            err.remove("data");
        }
    }
    let mut line = serde_json::to_vec(&value).unwrap_or_default();
    line.push(b'\n');
    line
}

impl Transport<RoleServer> for LineTransport {
    type Error = io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl std::future::Future<Output = Result<(), io::Error>> + Send + 'static {
        let line = bounded(&item);
        let answers = match &item {
            JsonRpcMessage::Response(r) => Some(r.id.clone()),
            JsonRpcMessage::Error(e) => e.id.clone(),
            _ => None,
        };
        // Queued and counted now, not when the future runs (rmcp spawns it).
        self.owed.lines.fetch_add(1, Ordering::SeqCst);
        let (tx, rx) = oneshot::channel();
        let sent = self
            .out
            .send(Outgoing {
                line,
                written: Some(tx),
                answers,
            })
            .is_ok();
        async move {
            let gone = || io::Error::new(io::ErrorKind::BrokenPipe, "stdout is closed");
            if !sent {
                return Err(gone());
            }
            rx.await.map_err(|_| gone())
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            self.owed.room().await;
            let Some(line) = self.lines.recv().await else {
                // The client is gone: what was answered is written first.
                self.drain().await;
                return None;
            };
            let bytes = match line {
                Line::Bytes(b) => b,
                Line::TooLong => {
                    let what = format!("Invalid Request: the line is longer than {MAX_LINE_BYTES} bytes and was skipped");
                    self.answer(error(Value::Null, INVALID_REQUEST, &what))
                        .await;
                    continue;
                }
            };
            match classify(&bytes) {
                Ok(JsonRpcMessage::Request(r)) if !self.owed.request(r.id.clone()) => {
                    let what = format!(
                        "Invalid Request: the id {} is that of a request not yet answered \
                         (MCP: a request's id is never used again)",
                        r.id
                    );
                    let id = serde_json::to_value(&r.id).unwrap_or(Value::Null);
                    self.answer(error(id, INVALID_REQUEST, &what)).await;
                }
                Ok(message) => {
                    match &message {
                        JsonRpcMessage::Request(_) => {}
                        JsonRpcMessage::Notification(n) => {
                            if let ClientNotification::CancelledNotification(c) = &n.notification {
                                if let Some(id) = &c.params.request_id {
                                    self.owed.settle(id);
                                }
                            }
                        }
                        _ => {}
                    }
                    return Some(message);
                }
                Err(Some(reply)) => self.answer(reply).await,
                Err(None) => {}
            }
        }
    }

    async fn close(&mut self) -> Result<(), io::Error> {
        self.drain().await;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(line: &str) -> Option<(Value, i64)> {
        match classify(line.as_bytes()) {
            Ok(_) => None,
            Err(reply) => reply.map(|r| (r["id"].clone(), r["error"]["code"].as_i64().unwrap())),
        }
    }

    #[test]
    fn each_kind_of_bad_line_gets_its_code() {
        assert_eq!(code("{not json"), Some((Value::Null, PARSE_ERROR)));
        assert_eq!(
            code(r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#),
            Some((Value::Null, INVALID_REQUEST))
        );
        assert_eq!(code("7"), Some((Value::Null, INVALID_REQUEST)));
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":"x"}"#),
            Some((json!(3), INVALID_PARAMS))
        );
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":"a","method":"no/such"}"#),
            Some((json!("a"), METHOD_NOT_FOUND))
        );
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","method":"notifications/bogus","params":"x"}"#),
            None,
            "a notification is never answered"
        );
        assert_eq!(code("  "), None);
        assert_eq!(
            code(r#"{"id":6,"method":"ping"}"#),
            Some((json!(6), INVALID_REQUEST)),
            "no jsonrpc member"
        );
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","method":1}"#),
            Some((Value::Null, INVALID_REQUEST)),
            "a method that is no string"
        );
        assert!(classify(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#).is_ok());
    }

    #[tokio::test]
    async fn a_request_reusing_the_id_of_one_not_yet_answered_is_refused() {
        use tokio::io::AsyncBufReadExt;
        // A client that reuses one id would otherwise be read without
        // bound: the requests owed are counted by their ids.
        const AGAIN: usize = 3 * MCP_UNANSWERED_REQUESTS;
        let (mut client_out, server_in) = tokio::io::duplex(1 << 20);
        let (server_out, client_in) = tokio::io::duplex(1 << 20);
        let mut transport = LineTransport::new(server_in, server_out);
        let ping = |id: u64| format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"ping\"}}\n");
        let mut sent = ping(7);
        for _ in 0..AGAIN {
            sent.push_str(&ping(7));
        }
        sent.push_str(&ping(8));
        client_out.write_all(sent.as_bytes()).await.unwrap();
        let id_of = |m: Option<RxJsonRpcMessage<RoleServer>>| match m {
            Some(JsonRpcMessage::Request(r)) => r.id,
            _ => panic!("a request"),
        };
        assert_eq!(id_of(transport.receive().await), RequestId::Number(7));
        // Nothing answers 7: each request reusing its id is refused, and
        // the server is handed the next one.
        assert_eq!(id_of(transport.receive().await), RequestId::Number(8));
        let mut replies = BufReader::new(client_in).lines();
        for n in 0..AGAIN {
            let line = replies.next_line().await.unwrap().unwrap();
            let reply: Value = serde_json::from_str(&line).unwrap();
            assert_eq!(reply["id"], json!(7), "reply {n}: {line}");
            assert_eq!(reply["error"]["code"], json!(INVALID_REQUEST), "{line}");
        }
    }

    #[test]
    fn an_echoed_value_is_cut() {
        let name = "m".repeat(100_000);
        let line = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"{name}"}}"#);
        let Err(Some(reply)) = classify(line.as_bytes()) else {
            panic!("answered")
        };
        let message = reply["error"]["message"].as_str().unwrap();
        assert!(
            message.chars().count() <= MCP_ERROR_CHARS,
            "{} characters",
            message.chars().count()
        );
    }
}
