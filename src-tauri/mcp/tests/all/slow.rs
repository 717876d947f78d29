//! A listing that takes long (the engine's slow-folder seam, `e2e` build):
//! `notifications/cancelled` stops it through the engine's cancel token, and
//! a request with a progress token hears progress while it runs.

use crate::common;

use common::{path_arg, Reply, Server, Start, Tree};
use rmcp::model::CallToolRequestParams;
use serde_json::json;

/// `root/slow/slow/slow`, each folder of 3,000 names read 512 bytes at a
/// time, 200 ms apart: longer than the request's time budget.
fn slow_tree() -> Tree {
    let t = Tree::new();
    let mut rel = String::from("root");
    for _ in 0..3 {
        rel.push_str("/slow");
        for i in 0..3000 {
            t.file(format!("{rel}/entry_{i:05}"));
        }
    }
    t
}

async fn slow_server(t: &Tree) -> Server {
    Server::start_with(Start {
        roots: vec![t.path()],
        env: vec![
            ("CANOPY_TEST_SLOW_FOLDER".into(), "slow".into()),
            ("CANOPY_TEST_SLOW_DELAY_MS".into(), "200".into()),
        ],
        ..Start::default()
    })
    .await
}

fn list_call(t: &Tree) -> CallToolRequestParams {
    let args = json!({ "path": path_arg(&t.at("root")), "depth": 4 });
    CallToolRequestParams::new("list_directory").with_arguments(args.as_object().unwrap().clone())
}

#[tokio::test(flavor = "multi_thread")]
async fn cancelling_a_slow_listing_stops_the_engine() {
    let t = slow_tree();
    let mut s = slow_server(&t).await;
    let peer = s.client.peer().clone();
    let params = list_call(&t);
    let call = tokio::spawn(async move { peer.call_tool(params).await });
    s.wait_for_log("list_directory: started").await;
    // Dropping the call makes the client send notifications/cancelled.
    call.abort();
    let outcome = s.wait_for_log("list_directory: ").await;
    assert_eq!(
        outcome, "canopy-mcp: list_directory: CANCELLED",
        "the listing stopped through the engine's cancel path"
    );
    // The server goes on serving.
    let next = Reply::of(
        s.call(
            "list_directory",
            json!({ "path": path_arg(&t.path()), "depth": 1 }),
        )
        .await,
    )
    .ok();
    assert_eq!(next.lines(), ["[DIR] root"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_long_listing_reports_progress() {
    let t = slow_tree();
    let s = slow_server(&t).await;
    let r = Reply::of(s.client.call_tool(list_call(&t)).await.unwrap()).ok();
    assert!(
        r.lines().iter().any(|l| l.starts_with("[TIMEOUT] ")),
        "the slow folders ran out of time: {}",
        &r.text[..200.min(r.text.len())]
    );
    let progress = s.seen.progress.lock().unwrap().clone();
    assert!(
        !progress.is_empty(),
        "a listing of seconds reports progress"
    );
    assert!(
        progress.windows(2).all(|w| w[0].progress < w[1].progress),
        "progress only grows"
    );
    assert!(
        progress.iter().all(|p| p
            .message
            .as_deref()
            .is_some_and(|m| m.contains("folders read"))),
        "{progress:?}"
    );
}

/// `root/slow` of 300 files whose every `lstat` takes 20 ms (the engine's
/// slow-stat seam): reading all sizes takes 6 s, past the folder's budget.
async fn slow_stat_server() -> (Tree, Server) {
    let t = Tree::new();
    for i in 0..300 {
        t.write(format!("root/slow/f{i:03}"), &vec![b'x'; i]);
    }
    let s = Server::start_with(Start {
        roots: vec![t.path()],
        env: vec![
            ("CANOPY_TEST_SLOW_FOLDER".into(), "slow".into()),
            ("CANOPY_TEST_SLOW_DELAY_MS".into(), "0".into()),
            ("CANOPY_TEST_SLOW_STAT_MS".into(), "20".into()),
        ],
        ..Start::default()
    })
    .await;
    (t, s)
}

fn checked_of(line: &str, label: &str) -> u64 {
    let rest = line
        .strip_prefix(&format!("[PARTIAL_ORDER] {label}: order is partial: "))
        .unwrap_or_else(|| panic!("{line}"));
    let (n, of) = rest.split_once(" of ").unwrap();
    assert_eq!(of, "300 checked");
    n.parse().unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_size_order_cut_by_the_time_budget_says_it_is_partial() {
    let (t, s) = slow_stat_server().await;
    let r = Reply::of(s.call("list_directory", json!({ "path": path_arg(&t.at("root/slow")), "depth": 1, "sort": "size", "reverse": true })).await).ok();
    let line = r
        .lines()
        .into_iter()
        .find(|l| l.starts_with("[PARTIAL_ORDER] "))
        .unwrap_or_else(|| panic!("no [PARTIAL_ORDER] line: {}", r.text));
    let checked = checked_of(line, "slow");
    assert!(checked < 300, "the budget cut the stat scan: {checked}");
    assert_eq!(
        r.structured["order"],
        json!({ "partial": true, "checked": checked }),
        "structuredContent says it too"
    );

    let nested = Reply::of(
        s.call(
            "list_directory",
            json!({ "path": path_arg(&t.at("root")), "sort": "size" }),
        )
        .await,
    )
    .ok();
    let line = nested
        .lines()
        .into_iter()
        .find(|l| l.starts_with("[PARTIAL_ORDER] "))
        .unwrap_or_else(|| panic!("no [PARTIAL_ORDER] line: {}", nested.text));
    let checked = checked_of(line, "slow");
    assert!(
        checked < 300,
        "the truncated folder says how many were placed: {checked}"
    );
    assert_eq!(
        nested.structured["truncatedFolders"],
        json!(1),
        "structuredContent counts it"
    );
    assert_eq!(
        nested.structured["order"],
        json!({ "partial": false, "checked": 1 }),
        "the listed folder itself is whole"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn calls_beyond_a_few_at_once_wait_their_turn() {
    let t = slow_tree();
    let mut s = slow_server(&t).await;
    let calls: Vec<_> = (0..12)
        .map(|_| {
            let (peer, params) = (s.client.peer().clone(), list_call(&t));
            tokio::spawn(async move { peer.call_tool(params).await })
        })
        .collect();
    let (mut started, mut waiting) = (0, 0);
    while started + waiting < 12 {
        let line = s.wait_for_log("list_directory: ").await;
        match line.as_str() {
            "canopy-mcp: list_directory: started" => started += 1,
            "canopy-mcp: list_directory: waiting" => waiting += 1,
            other => panic!("a slow listing ended before every call arrived: {other}"),
        }
    }
    // MCP_CONCURRENT_CALLS: a client that floods the server gets a few threads' worth of work at once.
    assert_eq!(
        (started, waiting),
        (4, 8),
        "4 listings run, the others wait"
    );
    for c in &calls {
        c.abort();
    }
    // The waiting calls, cancelled, stop waiting; the running ones stop through the engine.
    let mut cancelled = 0;
    while cancelled < 12 {
        let line = s.wait_for_log("list_directory: ").await;
        if line == "canopy-mcp: list_directory: CANCELLED" {
            cancelled += 1;
        }
    }
    let next = Reply::of(
        s.call(
            "list_directory",
            json!({ "path": path_arg(&t.path()), "depth": 1 }),
        )
        .await,
    )
    .ok();
    assert_eq!(next.lines(), ["[DIR] root"], "the server goes on serving");
}
