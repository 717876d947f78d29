//! Line-addressed reads through a real MCP client: head, tail and line
//! ranges (held to `head`, `tail` and `sed -n`), CRLF, no trailing line
//! break, a 10 MB single line, invalid UTF-8; `read_files` with one file
//! missing.

use crate::common;

use std::process::Command;

use common::{path_arg, Reply, Server, Tree, BUDGET};
use serde_json::json;

async fn read(s: &Server, args: serde_json::Value) -> Reply {
    Reply::of(s.call("read_file", args).await)
}

/// The content after the header line and the blank line.
fn body(r: &Reply) -> &str {
    r.text
        .split_once("\n\n")
        .expect("header, blank line, content")
        .1
}

fn tool(cmd: &str, args: &[&str], file: &std::path::Path) -> String {
    let out = Command::new(cmd).args(args).arg(file).output().unwrap();
    String::from_utf8(out.stdout).unwrap()
}

#[tokio::test]
async fn head_tail_and_ranges_match_the_unix_tools() {
    let t = Tree::new();
    let crlf: String = (1..=500).map(|i| format!("row {i}\r\n")).collect();
    let bare = "one\ntwo\nthree";
    let s_crlf = t.write("crlf.txt", crlf.as_bytes());
    let s_bare = t.write("bare.txt", bare.as_bytes());
    let s = Server::start(&[&t.path()]).await;
    for file in [&s_crlf, &s_bare] {
        let p = path_arg(file);
        let cases = [
            (
                json!({"path": p, "head": 2}),
                tool("head", &["-n", "2"], file),
            ),
            (
                json!({"path": p, "tail": 2}),
                tool("tail", &["-n", "2"], file),
            ),
            (
                json!({"path": p, "line_start": 2, "line_count": 2}),
                tool("sed", &["-n", "2,3p"], file),
            ),
            (
                json!({"path": p, "head": 10_000}),
                std::fs::read_to_string(file).unwrap(),
            ),
        ];
        for (args, want) in cases {
            let r = read(&s, args.clone()).await.ok();
            assert_eq!(body(&r), want, "{args}: {}", r.text);
        }
    }
    let r = read(&s, json!({"path": path_arg(&s_crlf), "head": 50}))
        .await
        .ok();
    assert!(
        r.text
            .starts_with("[TEXT utf-8] showing lines 1-50 of 500 (bytes 0-"),
        "{}",
        r.text
    );
    assert_eq!(r.structured["lines"]["total"], 500);
    assert!(r
        .text
        .lines()
        .next()
        .unwrap()
        .ends_with("call read_file with line_start 51 for more"));
    let tail = read(&s, json!({"path": path_arg(&s_crlf), "tail": 3}))
        .await
        .ok();
    assert!(
        tail.text
            .starts_with("[TEXT utf-8] showing lines 498-500 of 500"),
        "{}",
        tail.text
    );
}

#[tokio::test]
async fn a_ten_megabyte_line_is_cut_at_the_byte_cap() {
    let t = Tree::new();
    let mut json = b"{\"k\":\"".to_vec();
    json.resize(10 << 20, b'x');
    json.extend_from_slice(b"\"}");
    let f = t.write("one.json", &json);
    let s = Server::start(&[&t.path()]).await;
    for args in [
        json!({"path": path_arg(&f), "head": 50}),
        json!({"path": path_arg(&f), "tail": 1}),
    ] {
        let r = read(&s, args).await.ok();
        assert!(r.chars() <= BUDGET);
        assert_eq!(r.structured["length"], 32 * 1024, "{}", r.text);
        assert_eq!(r.structured["lines"]["cut"], true);
        assert!(
            r.text
                .lines()
                .next()
                .unwrap()
                .contains("call read_file with offset 32768 for more"),
            "{}",
            r.text
        );
    }
}

#[tokio::test]
async fn invalid_utf8_and_binary_files() {
    let t = Tree::new();
    let latin = t.write("latin.txt", b"caf\xe9\nna\xefve\n");
    let bin = t.write("x.bin", b"\x7fELF\0\0\0\x01\n\n");
    let s = Server::start(&[&t.path()]).await;
    let r = read(&s, json!({"path": path_arg(&latin), "tail": 1}))
        .await
        .ok();
    assert_eq!(body(&r), "naïve\n");
    assert!(r.text.starts_with("[TEXT windows-1252]"), "{}", r.text);
    let b = read(&s, json!({"path": path_arg(&bin), "head": 1})).await;
    assert_eq!(b.code(), "INVALID_ARGUMENT", "{}", b.text);
    let both = read(
        &s,
        json!({"path": path_arg(&latin), "head": 1, "offset": 3}),
    )
    .await;
    assert_eq!(both.code(), "INVALID_ARGUMENT", "{}", both.text);
}

#[tokio::test]
async fn read_files_reads_each_and_says_which_failed() {
    let t = Tree::new();
    let a = t.write("a.txt", b"a1\na2\na3\n");
    let b = t.write("b.txt", b"b1\nb2\n");
    let s = Server::start(&[&t.path()]).await;
    let missing = t.at("missing.txt");
    let r = Reply::of(
        s.call(
            "read_files",
            json!({"paths": [path_arg(&a), path_arg(&missing), path_arg(&b)], "head": 1}),
        )
        .await,
    )
    .ok();
    let files = r.structured["files"].as_array().unwrap();
    assert_eq!(files.len(), 3);
    assert_eq!(files[1]["error"], "NOT_FOUND", "{}", r.text);
    assert!(files[0]["error"].is_null() && files[2]["error"].is_null());
    assert!(r.text.contains("\n\na1\n"), "{}", r.text);
    assert!(r.text.contains("\n\nb1\n"), "{}", r.text);
    assert!(
        !r.text.contains("a2") && !r.text.contains("b2"),
        "{}",
        r.text
    );
    assert!(
        r.text
            .contains(&format!("[PATH] {}\n[NOT_FOUND] ", path_arg(&missing))),
        "{}",
        r.text
    );
    let too_many: Vec<String> = (0..11).map(|_| path_arg(&a)).collect();
    let e = Reply::of(s.call("read_files", json!({"paths": too_many})).await);
    assert_eq!(e.code(), "INVALID_ARGUMENT");
}

#[tokio::test]
async fn ten_binary_files_or_ten_long_paths_stay_within_the_budget() {
    let t = Tree::new();
    let bin: Vec<u8> = (0..=255u8).cycle().take(64 * 1024).collect();
    let files: Vec<String> = (0..10)
        .map(|i| path_arg(&t.write(format!("b{i}.bin"), &bin)))
        .collect();
    let s = Server::start(&[&t.path()]).await;
    let r = Reply::of(s.call("read_files", json!({ "paths": files })).await).ok();
    assert_eq!(
        r.text.matches("[BINARY] showing bytes 0-").count(),
        10,
        "{}",
        r.text
    );
    let long: Vec<String> = (0..10)
        .map(|i| format!("{}/{}{i}", path_arg(&t.path()), "x".repeat(4000)))
        .collect();
    let r = Reply::of(s.call("read_files", json!({ "paths": long })).await).ok();
    assert_eq!(
        r.text.matches("\n[NAME_TOO_LONG]").count() + r.text.matches("\n[NOT_FOUND]").count(),
        10,
        "{}",
        r.text
    );
}
