//! `canopy-mcp` exits when its client closes the stream, even while one of
//! its calls is stuck on a dead mount: the pid the client started (a
//! supervisor) is collected and the stream ends, as `canopy-list` does. Its
//! own test binary: the call it leaves stuck outlives the test.

use crate::deadfs;

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, Stdio};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use deadfs::DeadMount;

/// A hang detector, not a speed check: the server answers `TIMEOUT` after
/// one folder deadline (about 2 s) and then exits at once.
const EXITS_WITHIN: Duration = Duration::from_secs(20);

#[test]
fn the_server_exits_when_its_client_leaves_while_a_call_on_a_dead_mount_is_stuck() {
    let t = tempfile::tempdir().unwrap();
    let point = t.path().join("mnt");
    std::fs::create_dir(&point).unwrap();
    let mount = DeadMount::on(&point);
    let mut child = Command::new(env!("CARGO_BIN_EXE_canopy-mcp"))
        .arg("--root")
        .arg(t.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("canopy-mcp runs");
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut send = |v: serde_json::Value| {
        writeln!(stdin, "{v}").unwrap();
        stdin.flush().unwrap();
    };
    send(
        serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "t", "version": "0"}}}),
    );
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    assert!(line.contains("\"id\":1"), "{line}");
    send(serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    // `dead` answers its lookup but never its readdir.
    send(
        serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "list_directory", "arguments": {"path": point.join("dead").to_str().unwrap()}}}),
    );
    loop {
        line.clear();
        assert!(
            stdout.read_line(&mut line).unwrap() > 0,
            "the stream ended before the reply"
        );
        if line.contains("\"id\":2") {
            break;
        }
    }
    assert!(line.contains("TIMEOUT"), "{line}");
    assert_eq!(
        mount.held.readdirs.load(Ordering::SeqCst),
        1,
        "the readdir is stuck"
    );
    // The client leaves.
    drop(stdin);
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > EXITS_WITHIN {
            drop(mount);
            let _ = child.wait();
            panic!("canopy-mcp did not exit within {EXITS_WITHIN:?} of its client leaving");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success(), "{status:?}");
    let mut rest = Vec::new();
    stdout.read_to_end(&mut rest).unwrap();
    assert_eq!(
        mount.held.readdirs.load(Ordering::SeqCst),
        1,
        "it exited while the dead readdir was still unanswered"
    );
    drop(mount);
}
