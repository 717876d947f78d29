//! A client that sends requests and never reads its replies: `canopy-mcp`
//! stops reading requests while `MCP_UNANSWERED_REQUESTS` of them wait for
//! their replies to be written, so its memory is that many replies, not one
//! per request sent; and once the client reads, every request is answered.

use crate::common;

use std::io::{BufRead, BufReader, Write};
use std::os::fd::{AsRawFd, RawFd};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use canopy_core::limits::{MCP_REPLY_CHARS, MCP_UNANSWERED_REQUESTS};
use serde_json::{json, Value};

/// Requests the client sends without reading (the attack's 832 MiB).
const SENT: usize = 20_000;

/// A process's resident memory from `/proc`, in bytes: `VmRSS` or `VmHWM`
/// (its peak).
fn memory(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let kb: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|l| l.trim_start_matches(':').split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{field} in /proc/{pid}/status"));
    kb * 1024
}

/// The program the supervisor started (the child of `pid`).
fn program_of(pid: u32) -> u32 {
    let until = std::time::Instant::now() + Duration::from_secs(30);
    loop {
        for entry in std::fs::read_dir("/proc").unwrap().flatten() {
            let Ok(child) = entry.file_name().to_string_lossy().parse::<u32>() else {
                continue;
            };
            let Ok(stat) = std::fs::read_to_string(format!("/proc/{child}/stat")) else {
                continue;
            };
            let after = &stat[stat.rfind(')').unwrap() + 2..];
            if after.split_whitespace().nth(1) == Some(&pid.to_string()) {
                return child;
            }
        }
        assert!(std::time::Instant::now() < until, "the program starts");
        std::thread::yield_now();
    }
}

/// Bytes written to a pipe and not yet read by the other end (`FIONREAD`).
fn unread(fd: RawFd) -> u64 {
    let mut n: libc::c_int = 0;
    // SAFETY: FIONREAD writes one int through the pointer given.
    let r = unsafe { libc::ioctl(fd, libc::FIONREAD, &mut n) };
    assert_eq!(r, 0, "FIONREAD on the request pipe");
    n as u64
}

enum Event {
    /// The writer sent every request (the server read them all but a pipe's worth).
    AllSent,
    Stderr(String),
}

#[test]
fn a_client_that_never_reads_costs_a_bounded_number_of_replies_and_is_served_once_it_reads() {
    // A folder whose listing fills a reply: 300 names of 120 characters.
    let tree = common::Tree::new();
    for i in 0..300 {
        tree.file(format!("{i:05}-{}.txt", "n".repeat(110)));
    }
    let mut child = Command::new(common::binary())
        .arg("--root")
        .arg(tree.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let program = program_of(child.id());
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let call = |id: usize| {
        let mut line = serde_json::to_vec(&json!({
            "jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": { "name": "list_directory", "arguments": { "path": tree.path() } }
        }))
        .unwrap();
        line.push(b'\n');
        line
    };
    let reply = |stdout: &mut BufReader<_>| -> Value {
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"))
    };
    // The handshake and one call, read: the baseline, and a reply's size.
    stdin
        .write_all(
            br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
"#,
        )
        .unwrap();
    stdin.write_all(&call(1)).unwrap();
    assert_eq!(reply(&mut stdout)["id"], json!(0));
    let first = reply(&mut stdout);
    let reply_bytes = serde_json::to_vec(&first).unwrap().len() as u64;
    assert!(
        reply_bytes as usize > MCP_REPLY_CHARS / 2,
        "a full reply ({reply_bytes} bytes)"
    );
    let baseline = memory(program, "VmRSS");

    // Then requests, and no reading.
    let (tx, events) = mpsc::channel();
    let request_pipe = stdin.as_raw_fd();
    let writer = {
        let tx = tx.clone();
        let lines: Vec<Vec<u8>> = (0..SENT).map(|i| call(1_000_000 + i)).collect();
        // The thread gives the pipe back rather than closing it: the server
        // would end at its end.
        std::thread::spawn(move || {
            for l in &lines {
                if stdin.write_all(l).is_err() {
                    break;
                }
            }
            let _ = tx.send(Event::AllSent);
            stdin
        })
    };
    let stderr = BufReader::new(child.stderr.take().unwrap());
    std::thread::spawn(move || {
        for l in stderr.lines().map_while(Result::ok) {
            let _ = tx.send(Event::Stderr(l));
        }
    });
    // The server says when it stops reading; without the bound it reads on
    // until the writer has sent everything.
    let stopped = loop {
        match events.recv_timeout(Duration::from_secs(300)) {
            Ok(Event::AllSent) => break false,
            Ok(Event::Stderr(l)) if l.contains("stopped reading requests") => break true,
            Ok(Event::Stderr(_)) => {}
            Err(e) => panic!("neither the writer ended nor the server stopped reading: {e}"),
        }
    };
    assert!(
        stopped,
        "the server read on: all {SENT} requests sent, {} bytes of them unread",
        unread(request_pipe)
    );
    // The peak so far: everything the server did while nobody read.
    let held = memory(program, "VmHWM");
    // What the bound allows: each request waiting holds its reply (text,
    // structured result, the line written), a few times its size at most,
    // and the requests read ahead of it.
    let allowed = (MCP_UNANSWERED_REQUESTS as u64 + 8) * reply_bytes * 4;
    assert!(
        held.saturating_sub(baseline) <= allowed,
        "a peak of {held} bytes, {baseline} before: over the {allowed} the bound allows"
    );

    // The client reads: every request is answered, in whatever order.
    let mut seen = std::collections::BTreeSet::new();
    while seen.len() < SENT {
        let r = reply(&mut stdout);
        let id = r["id"].as_u64().expect("a reply to a request") as usize;
        assert!(r.get("result").is_some(), "{r}");
        seen.insert(id);
    }
    assert_eq!(seen.len(), SENT, "every request answered once");
    drop(writer.join().unwrap());
    let _ = child.wait();
}
