//! `list_directory` on a 200,000-entry folder, against `canopy-list` on the
//! same folder in the same run; `find_in_folder` against `ls -f | grep -c`
//! and a size order against `find -printf` on that folder; and (when
//! `CANOPY_BENCH_SEED` names the seed's server command, e.g.
//! `node .../desktop-commander/dist/index.js`) the seed format's
//! `list_directory` on the same folders.
//!
//! `cargo build --release -p canopy-list && cargo bench -p canopy-mcp`
//! (canopy-list is taken from beside canopy-mcp). Prints a table; asserts
//! nothing about time.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use rmcp::model::CallToolRequestParams;
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{json, Value};

const ENTRIES: usize = 200_000;
const RUNS: usize = 9;

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

async fn connect(cmd: Command) -> RunningService<RoleClient, ()> {
    let transport = TokioChildProcess::builder(tokio::process::Command::from(cmd))
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("the server starts")
        .0;
    ().serve(transport).await.expect("the client connects")
}

async fn call(
    client: &RunningService<RoleClient, ()>,
    tool: &str,
    args: Value,
) -> (String, Value, Duration) {
    let Value::Object(args) = args else {
        unreachable!()
    };
    let start = Instant::now();
    let r = client
        .call_tool(CallToolRequestParams::new(tool.to_string()).with_arguments(args))
        .await
        .expect("a reply");
    let took = start.elapsed();
    let text = r
        .content
        .iter()
        .filter_map(|c| c.as_text())
        .map(|t| t.text.clone())
        .collect::<Vec<_>>()
        .join("");
    (text, r.structured_content.unwrap_or(Value::Null), took)
}

fn entry_names(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| {
            l.strip_prefix("[FILE] ")
                .or_else(|| l.strip_prefix("[DIR] "))
        })
        .map(str::to_string)
        .collect()
}

fn run_cli(cli: &Path, args: &[&str]) -> (usize, Duration) {
    let start = Instant::now();
    let out = Command::new(cli)
        .args(args)
        .output()
        .expect("canopy-list runs");
    let took = start.elapsed();
    assert!(
        out.status.success(),
        "canopy-list {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    (String::from_utf8_lossy(&out.stdout).chars().count(), took)
}

#[tokio::main]
async fn main() {
    let exe = PathBuf::from(env!("CARGO_BIN_EXE_canopy-mcp"));
    let cli = exe.with_file_name("canopy-list");
    assert!(
        cli.exists(),
        "build canopy-list first: cargo build --release -p canopy-list ({})",
        cli.display()
    );
    let shm = if Path::new("/dev/shm").is_dir() {
        PathBuf::from("/dev/shm")
    } else {
        std::env::temp_dir()
    };
    let tmp = tempfile::Builder::new()
        .prefix("canopy-mcp-bench-")
        .tempdir_in(shm)
        .unwrap();
    let root = tmp.path().join("root");
    let big = root.join("big");
    std::fs::create_dir_all(&big).unwrap();
    // Created in a scrambled order, so readdir order is not name order.
    for i in 0..ENTRIES {
        let n = (i * 7919) % ENTRIES;
        std::fs::File::create(big.join(format!("file_{n:06}.txt"))).unwrap();
    }
    let numbered = root.join("numbered");
    std::fs::create_dir_all(&numbered).unwrap();
    for i in 1..=1000 {
        std::fs::File::create(numbered.join(format!("item{i}"))).unwrap();
    }
    std::fs::File::create(numbered.join("Zebra")).unwrap();
    let numbered_s = numbered.to_str().unwrap();
    let big_s = big.to_str().unwrap();
    let root_s = root.to_str().unwrap();
    println!("fixture: {ENTRIES} empty files in {big_s}\n");

    // canopy-list: the same engine, one process per page. Its runs and the
    // server's first pages alternate, so both see the same machine.
    let mut cmd = Command::new(&exe);
    cmd.arg("--root").arg(&root);
    let client = connect(cmd).await;
    let (mut first, mut firsts, mut first_chars, mut first_len) = (Vec::new(), Vec::new(), 0, 0);
    for _ in 0..RUNS {
        let (chars, took) = run_cli(&cli, &[big_s, "--limit", "4444"]);
        first_chars = chars;
        first.push(took);
        let (text, _, took) = call(&client, "list_directory", json!({ "path": big_s })).await;
        first_len = text.chars().count();
        firsts.push(took);
    }
    let (all_chars, all_time) = run_cli(&cli, &[big_s, "--all"]);
    println!(
        "canopy-list first page (--limit 4444): {} (median of {RUNS}), {first_chars} characters",
        ms(median(first.clone()))
    );
    println!(
        "canopy-list --all: {}, {all_chars} characters\n",
        ms(all_time)
    );
    let first_median = median(firsts);
    let start = Instant::now();
    let (mut pages, mut seen, mut longest, mut cursor) = (0usize, 0usize, 0usize, None::<String>);
    loop {
        let mut args = json!({ "path": big_s });
        if let Some(c) = &cursor {
            args["cursor"] = json!(c);
        }
        let (text, structured, _) = call(&client, "list_directory", args).await;
        pages += 1;
        longest = longest.max(text.chars().count());
        seen += entry_names(&text).len();
        match structured.get("nextCursor").and_then(Value::as_str) {
            Some(c) => cursor = Some(c.to_string()),
            None => break,
        }
    }
    let all = start.elapsed();
    let per_page = all / pages as u32;
    let (nested, _, _) = call(&client, "list_directory", json!({ "path": root_s })).await;
    println!(
        "canopy-mcp first page: {} (median of {RUNS}), {first_len} characters",
        ms(first_median)
    );
    println!("canopy-mcp all pages: {} for {pages} pages, {seen} entries ({} a page, longest reply {longest} characters)", ms(all), ms(per_page));
    let diff = |a: Duration, b: Duration| a.as_secs_f64() * 1000.0 - b.as_secs_f64() * 1000.0;
    let cli_first = median(first);
    println!(
        "server overhead: first page {:+.1} ms, each of all pages {:+.1} ms, against canopy-list's first page (its process start included)",
        diff(first_median, cli_first),
        diff(per_page, cli_first)
    );
    println!(
        "canopy-mcp on the parent (depth 2): {} characters, last line {:?}",
        nested.chars().count(),
        nested.lines().last()
    );
    let (order, _, _) = call(
        &client,
        "list_directory",
        json!({ "path": numbered_s, "depth": 1 }),
    )
    .await;
    println!(
        "canopy-mcp order of item1..item1000 and Zebra, first 12: {:?}\n",
        &entry_names(&order)[..12]
    );

    // find_in_folder against `ls -f | grep -c` (a name scan and a count),
    // and a size order against `find -printf '%s'` (a stat scan), runs
    // alternating so both see the same machine.
    for (pattern, grep) in [("77", "77"), ("*7?.TXT", "7.\\.txt$")] {
        let shell = format!("ls -f {big_s} | grep -ic '{grep}'");
        let (mut ours, mut theirs, mut matched, mut counted) =
            (Vec::new(), Vec::new(), Value::Null, String::new());
        for _ in 0..RUNS {
            let (_, structured, took) = call(
                &client,
                "find_in_folder",
                json!({ "path": big_s, "pattern": pattern }),
            )
            .await;
            matched = structured["matched"].clone();
            ours.push(took);
            let start = Instant::now();
            let out = Command::new("sh")
                .arg("-c")
                .arg(&shell)
                .output()
                .expect("sh runs");
            theirs.push(start.elapsed());
            counted = String::from_utf8_lossy(&out.stdout).trim().to_string();
        }
        let (ours, theirs) = (median(ours), median(theirs));
        println!(
            "find_in_folder {pattern:?} first page: {} (median of {RUNS}), {matched} matches; `{shell}`: {} ({counted} lines); ratio {:.2}x",
            ms(ours),
            ms(theirs),
            ours.as_secs_f64() / theirs.as_secs_f64()
        );
        assert_eq!(matched.to_string(), counted, "the same count as grep");
        let start = Instant::now();
        let (mut pages, mut seen, mut cursor) = (0usize, 0usize, None::<String>);
        loop {
            let mut args = json!({ "path": big_s, "pattern": pattern });
            if let Some(c) = &cursor {
                args["cursor"] = json!(c);
            }
            let (text, structured, _) = call(&client, "find_in_folder", args).await;
            pages += 1;
            seen += entry_names(&text).len();
            match structured.get("nextCursor").and_then(Value::as_str) {
                Some(c) => cursor = Some(c.to_string()),
                None => break,
            }
        }
        println!(
            "find_in_folder {pattern:?} all pages: {} for {pages} pages, {seen} matches",
            ms(start.elapsed())
        );
    }
    let shell = format!("find {big_s} -maxdepth 1 -printf '%s\\n' | wc -l");
    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    for _ in 0..RUNS {
        let (_, _, took) = call(
            &client,
            "list_directory",
            json!({ "path": big_s, "depth": 1, "sort": "size", "reverse": true }),
        )
        .await;
        ours.push(took);
        let start = Instant::now();
        Command::new("sh")
            .arg("-c")
            .arg(&shell)
            .output()
            .expect("sh runs");
        theirs.push(start.elapsed());
    }
    let (ours, theirs) = (median(ours), median(theirs));
    println!(
        "list_directory sort size, reverse, first page: {} (median of {RUNS}); `{shell}`: {}; ratio {:.2}x\n",
        ms(ours),
        ms(theirs),
        ours.as_secs_f64() / theirs.as_secs_f64()
    );
    client.cancel().await.ok();

    // The seed's format, when its server is at hand.
    let Ok(seed) = std::env::var("CANOPY_BENCH_SEED") else {
        println!("seed: set CANOPY_BENCH_SEED to the seed server's command to compare");
        return;
    };
    let home = tempfile::tempdir().unwrap();
    let mut words = seed.split_whitespace();
    let mut cmd = Command::new(words.next().unwrap());
    cmd.args(words).env("HOME", home.path());
    let client = connect(cmd).await;
    let (text, _, took) = call(&client, "list_directory", json!({ "path": big_s })).await;
    let names = entry_names(&text);
    let mut sorted = names.clone();
    sorted.sort();
    let in_order = names
        .iter()
        .take(100)
        .zip(sorted.iter())
        .filter(|(a, b)| a == b)
        .count();
    println!(
        "seed list_directory on the folder: {} characters in {}, {} entries",
        text.chars().count(),
        ms(took),
        names.len()
    );
    println!(
        "seed: first 100 entries in name order: {in_order} of 100 (first three: {:?})",
        &names[..3.min(names.len())]
    );
    let (nested, _, _) = call(&client, "list_directory", json!({ "path": root_s })).await;
    let (order, _, _) = call(
        &client,
        "list_directory",
        json!({ "path": numbered_s, "depth": 1 }),
    )
    .await;
    println!(
        "seed order of item1..item1000 and Zebra, first 12: {:?}",
        &entry_names(&order)[..12]
    );
    println!(
        "seed on the parent (depth 2): {} characters, {} entries shown: {:?}",
        nested.chars().count(),
        entry_names(&nested).len(),
        nested.lines().last()
    );
    client.cancel().await.ok();
}
