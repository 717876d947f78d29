//! `search` through a real MCP client: names and contents below a folder,
//! ignore-aware, held to `git ls-files` and `grep -rn`; paging to the end
//! shows every hit exactly once; a binary file is skipped and counted; a
//! search cut by its budget says "at least".

mod common;

use std::collections::BTreeSet;
use std::process::Command;

use common::{path_arg, Reply, Server, Start, Tree, BUDGET};
use serde_json::{json, Value};

async fn search(s: &Server, args: Value) -> Reply {
    Reply::of(s.call("search", args).await)
}

/// Every page of a search, followed to the end: the hit lines of each.
async fn all_pages(s: &Server, mut args: Value) -> (Vec<String>, usize, Reply) {
    let mut lines = Vec::new();
    let mut pages = 0;
    loop {
        let r = search(s, args.clone()).await.ok();
        assert!(r.chars() <= BUDGET);
        pages += 1;
        lines.extend(
            r.text
                .lines()
                .take_while(|l| !l.starts_with("[SEARCHED]") && *l != "No match.")
                .map(str::to_string),
        );
        match r.next_cursor() {
            Some(c) => args["cursor"] = json!(c),
            None => return (lines, pages, r),
        }
    }
}

fn chmod(t: &Tree) {
    let _ = Command::new("chmod")
        .args(["-R", "a+rX"])
        .arg(t.path())
        .status();
}

#[tokio::test]
async fn names_below_a_repository_are_those_git_lists() {
    let t = Tree::new();
    assert!(Command::new("git")
        .args(["init", "-q"])
        .current_dir(t.path())
        .status()
        .unwrap()
        .success());
    t.write(".gitignore", b"node_modules/\nbuild/\n");
    for p in [
        "config.json",
        "src/app/config.ts",
        "src/a/b/c/tsconfig.base.json",
        "docs/Config.md",
        "src/main.rs",
    ] {
        t.write(p, b"x\n");
    }
    for i in 0..50 {
        t.write(format!("node_modules/p{i}/config.js"), b"x\n");
    }
    t.write("build/config.out", b"x\n");
    chmod(&t);
    let s = Server::start(&[&t.path()]).await;
    let (lines, _, last) =
        all_pages(&s, json!({"path": path_arg(&t.path()), "name": "*config*"})).await;
    let found: BTreeSet<String> = lines
        .iter()
        .map(|l| l.trim_start_matches("[FILE] ").to_string())
        .collect();
    let out = Command::new("git")
        .args(["ls-files", "-co", "--exclude-standard"])
        .current_dir(t.path())
        .output()
        .unwrap();
    let want: BTreeSet<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter(|p| {
            p.rsplit('/')
                .next()
                .unwrap()
                .to_lowercase()
                .contains("config")
        })
        .map(str::to_string)
        .collect();
    assert_eq!(found, want, "{}", last.text);
    assert!(last.text.contains("[SEARCHED] "), "{}", last.text);
    // Breadth-first: the top folder's hit comes before the deep one.
    assert_eq!(
        lines.first().map(String::as_str),
        Some("[FILE] config.json")
    );
}

#[tokio::test]
async fn content_hits_match_grep_and_every_page_shows_each_once() {
    let t = Tree::new();
    for d in 0..20 {
        for f in 0..20 {
            let body: String = (0..30)
                .map(|l| {
                    if l % 3 == 0 {
                        format!("needle {d} {f} {l}\n")
                    } else {
                        "hay\n".into()
                    }
                })
                .collect();
            t.write(format!("d{d:02}/f{f:02}.txt"), body.as_bytes());
        }
    }
    t.write("d00/bin.dat", b"needle\0binary\n");
    chmod(&t);
    let s = Server::start(&[&t.path()]).await;
    let (lines, pages, last) = all_pages(
        &s,
        json!({"path": path_arg(&t.path()), "content": "need+le \\d"}),
    )
    .await;
    assert!(pages > 1, "the hits take more than one page");
    let got: Vec<String> = lines.clone();
    let unique: BTreeSet<String> = got.iter().cloned().collect();
    assert_eq!(unique.len(), got.len(), "no hit twice");
    let grep = Command::new("grep")
        .args(["-rnIE", "need+le [0-9]", "."])
        .current_dir(t.path())
        .output()
        .unwrap();
    let want: BTreeSet<String> = String::from_utf8(grep.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            let l = l.trim_start_matches("./");
            let (path, rest) = l.split_once(':').unwrap();
            let (n, text) = rest.split_once(':').unwrap();
            format!("{path}:{n}: {text}")
        })
        .collect();
    assert_eq!(unique, want);
    assert!(
        last.text.contains("; 1 binary files skipped"),
        "{}",
        last.text
    );
    assert_eq!(last.structured["binarySkipped"], 1);
}

#[tokio::test]
async fn a_long_or_hostile_line_is_cut_and_escaped() {
    let t = Tree::new();
    let mut line = b"match \x1b[31m\xff".to_vec();
    line.extend(std::iter::repeat_n(b'y', 10_000));
    line.push(b'\n');
    t.write("x.txt", &line);
    let s = Server::start(&[&t.path()]).await;
    let r = search(
        &s,
        json!({"path": path_arg(&t.path()), "content": "match", "literal": true}),
    )
    .await
    .ok();
    let hit = r.text.lines().next().unwrap();
    assert!(
        hit.starts_with("x.txt:1: match \\u{1b}[31m\\xffyyy"),
        "{hit}"
    );
    assert!(
        hit.ends_with(" [...]") && hit.chars().count() < 260,
        "{hit}"
    );
    let bad = search(
        &s,
        json!({"path": path_arg(&t.path()), "content": "(unclosed"}),
    )
    .await;
    assert_eq!(bad.code(), "INVALID_ARGUMENT");
    let neither = search(&s, json!({"path": path_arg(&t.path())})).await;
    assert_eq!(neither.code(), "INVALID_ARGUMENT");
}

#[tokio::test]
async fn a_search_cut_by_its_budget_says_at_least() {
    let t = Tree::new();
    t.write("a/slowpoke/x.txt", b"needle\n");
    t.write("b/y.txt", b"needle\n");
    let s = Server::start_with(Start {
        roots: vec![t.path()],
        env: vec![
            ("CANOPY_TEST_SLOW_FOLDER".into(), "slowpoke".into()),
            ("CANOPY_TEST_SLOW_DELAY_MS".into(), "3000".into()),
        ],
        ..Start::default()
    })
    .await;
    let r = search(
        &s,
        json!({"path": path_arg(&t.path()), "content": "needle"}),
    )
    .await
    .ok();
    assert!(
        r.text.contains("[BUDGET] the search stopped early"),
        "{}",
        r.text
    );
    assert!(r.text.contains("at least"), "{}", r.text);
    assert!(r.structured["cut"].is_string());
}
