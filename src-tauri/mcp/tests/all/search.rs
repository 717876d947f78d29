//! `search` through a real MCP client: names and contents below a folder,
//! ignore-aware, held to `git ls-files` and `grep -rn`; paging to the end
//! shows every hit exactly once; a binary file is skipped and counted; a
//! search cut by its budget says "at least".

use crate::common;
use crate::deadfs;

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
                .take_while(|l| {
                    !l.starts_with("[SEARCHED]") && !l.starts_with("[TOTAL]") && *l != "No match."
                })
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
async fn a_name_is_the_whole_name_as_find_name_reads_it() {
    let t = Tree::new();
    for p in [
        "Cargo.toml",
        "core/Cargo.toml",
        "core/Cargo.toml.orig",
        "vendor/x/Cargo.toml.orig",
        "vendor/x/my-Cargo.toml",
        "web/app.config.js",
        "web/config",
    ] {
        t.write(p, b"x\n");
    }
    let s = Server::start(&[&t.path()]).await;
    for (name, find_args) in [
        ("Cargo.toml", vec!["-name", "Cargo.toml"]),
        ("*config*", vec!["-name", "*config*"]),
        (
            "{*config*,Cargo.toml}",
            vec!["(", "-name", "*config*", "-o", "-name", "Cargo.toml", ")"],
        ),
    ] {
        let (lines, _, last) =
            all_pages(&s, json!({"path": path_arg(&t.path()), "name": name})).await;
        let found: BTreeSet<String> = lines
            .iter()
            .map(|l| l.trim_start_matches("[FILE] ").to_string())
            .collect();
        let out = Command::new("find")
            .arg(".")
            .args(["-mindepth", "1"])
            .args(&find_args)
            .current_dir(t.path())
            .output()
            .unwrap();
        let want: BTreeSet<String> = String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|p| p.trim_start_matches("./").to_string())
            .collect();
        assert!(!want.is_empty());
        assert_eq!(found, want, "{name}: {}", last.text);
    }
    let bad = search(
        &s,
        json!({"path": path_arg(&t.path()), "name": "{*config*"}),
    )
    .await;
    assert_eq!(bad.code(), "INVALID_ARGUMENT", "{}", bad.text);
    assert!(bad.text.contains("never close"), "{}", bad.text);
}

/// Files `dir/fK.txt` holding `needle` on some lines (K+1 of them, up to
/// 40), a binary file holding it, and files without it: `hits` in all.
fn needles(t: &Tree, files: usize) -> u64 {
    let mut hits = 0;
    for k in 0..files {
        let n = (k % 40) + 1;
        let mut body = String::new();
        for i in 0..n {
            body.push_str(&format!("line {i} needle here\nfiller\n"));
        }
        t.write(format!("d{}/f{k}.txt", k % 7), body.as_bytes());
        hits += n as u64;
    }
    t.write("d0/bin.dat", b"needle\0binary\n");
    t.write("d1/none.txt", b"nothing\n");
    hits
}

#[tokio::test]
async fn count_answers_each_files_hits_and_the_totals_in_one_reply_as_rg_c_does() {
    let t = Tree::new();
    let hits = needles(&t, 60);
    let s = Server::start(&[&t.path()]).await;
    let r = search(
        &s,
        json!({"path": path_arg(&t.path()), "content": "needle", "count": true}),
    )
    .await
    .ok();
    assert!(r.next_cursor().is_none(), "one reply: {}", r.text);
    let got: BTreeSet<String> = r
        .lines()
        .into_iter()
        .take_while(|l| !l.starts_with('['))
        .map(str::to_string)
        .collect();
    let rg = Command::new("rg")
        .args(["-c", "--no-ignore", "--hidden", "needle", "."])
        .current_dir(t.path())
        .output()
        .unwrap();
    let want: BTreeSet<String> = String::from_utf8(rg.stdout)
        .unwrap()
        .lines()
        .map(|l| l.trim_start_matches("./").to_string())
        .collect();
    assert_eq!(got, want, "{}", r.text);
    assert!(
        r.text
            .contains(&format!("[TOTAL] {hits} hits in 60 files\n")),
        "{}",
        r.text
    );
    assert_eq!(r.structured["total"], hits);
    assert_eq!(r.structured["filesWithHits"], 60);
    assert_eq!(r.structured["counts"].as_array().unwrap().len(), 60);
}

#[tokio::test]
async fn count_with_limit_0_answers_the_totals_only() {
    let t = Tree::new();
    let hits = needles(&t, 60);
    let s = Server::start(&[&t.path()]).await;
    let r = search(
        &s,
        json!({"path": path_arg(&t.path()), "content": "needle", "count": true, "limit": 0}),
    )
    .await
    .ok();
    assert!(
        r.text
            .starts_with(&format!("[TOTAL] {hits} hits in 60 files\n")),
        "the totals, no file listed: {}",
        r.text
    );
    assert!(!r.text.contains("[WARNING]"), "{}", r.text);
    assert!(r.structured.get("counts").is_none(), "{}", r.structured);
    assert_eq!(r.structured["total"], hits);
}

#[tokio::test]
async fn limit_holds_a_page_to_that_many_hits_and_it_reads_on() {
    let t = Tree::new();
    let hits = needles(&t, 3);
    assert!(hits > 5);
    let s = Server::start(&[&t.path()]).await;
    let args = json!({"path": path_arg(&t.path()), "content": "needle", "limit": 5});
    let first = search(&s, args.clone()).await.ok();
    assert_eq!(first.structured["shown"], 5, "{}", first.text);
    let (all, _, _) = all_pages(&s, args).await;
    assert_eq!(all.len() as u64, hits, "every hit once across pages of 5");
}

#[tokio::test]
async fn the_first_page_states_the_totals_and_hits_are_structured() {
    let t = Tree::new();
    let hits = needles(&t, 80);
    assert!(hits > 1000);
    let s = Server::start(&[&t.path()]).await;
    let args = json!({"path": path_arg(&t.path()), "content": "needle"});
    let first = search(&s, args.clone()).await.ok();
    assert!(
        first
            .text
            .contains(&format!("[TOTAL] {hits} hits in 80 files\n")),
        "{}",
        first.text
    );
    let structured = first.structured["hits"].as_array().unwrap();
    assert_eq!(
        structured.len() as u64,
        first.structured["shown"].as_u64().unwrap()
    );
    let lines: Vec<&str> = first.lines().into_iter().take(structured.len()).collect();
    for (hit, line) in structured.iter().zip(&lines) {
        let want = format!("{}:{}: ", hit["path"].as_str().unwrap(), hit["line"]);
        assert!(
            line.starts_with(&want),
            "the structured hit is the text's: {hit} {line}"
        );
        assert!(
            hit.get("text").is_none(),
            "a hit's line is carried once, in the text: {hit}"
        );
    }
    let (all, pages, last) = all_pages(&s, args).await;
    assert!(pages > 1);
    assert_eq!(all.len() as u64, hits, "every hit once across pages");
    assert!(
        !last.text.contains("[TOTAL]"),
        "later pages do not count again"
    );
}

/// The bytes a page says it read: its `[SEARCHED] ... B bytes`.
fn bytes_read(r: &Reply) -> u64 {
    let line = r
        .lines()
        .into_iter()
        .find(|l| l.starts_with("[SEARCHED] "))
        .expect("a [SEARCHED] line")
        .to_string();
    let before = line.split(" bytes").next().unwrap();
    before.rsplit(' ').next().unwrap().parse().unwrap()
}

#[tokio::test]
async fn a_page_reads_on_from_where_the_last_ended() {
    let t = Tree::new();
    let mut longest = 0;
    for k in 0..60 {
        let body = format!("needle {k}\nfiller line\n").repeat(30);
        longest = longest.max(body.len() as u64);
        t.write(format!("d{}/f{k:02}.txt", k % 4), body.as_bytes());
    }
    let s = Server::start(&[&t.path()]).await;
    let mut args = json!({"path": path_arg(&t.path()), "content": "needle"});
    let first = search(&s, args.clone()).await.ok();
    assert!(
        first.text.contains("[TOTAL] 1800 hits in 60 files"),
        "{}",
        first.text
    );
    let whole = bytes_read(&first);
    let (mut later, mut pages, mut hits) = (0, 1, first.structured["shown"].as_u64().unwrap());
    let mut cursor = first.next_cursor();
    while let Some(c) = cursor {
        args["cursor"] = json!(c);
        let r = search(&s, args.clone()).await.ok();
        later += bytes_read(&r);
        hits += r.structured["shown"].as_u64().unwrap();
        pages += 1;
        cursor = r.next_cursor();
    }
    assert_eq!(hits, 1800, "every hit once");
    assert!(pages > 2, "{pages} pages");
    assert!(
        later <= whole + pages * longest,
        "the later pages read {later} bytes in all: each file once (the one a page ends in twice), not the tree again each page ({whole} bytes, {pages} pages)"
    );
}

#[tokio::test]
async fn name_pages_read_on_and_show_each_name_once_as_find_lists_them() {
    let t = Tree::in_memory();
    for k in 0..3000 {
        t.file(format!("n{}/m{}/f{k:04}.txt", k % 3, k % 5));
    }
    let s = Server::start(&[&t.path()]).await;
    let (lines, pages, _) =
        all_pages(&s, json!({"path": path_arg(&t.path()), "name": "*.txt"})).await;
    assert!(pages > 1, "3,000 names take more than one page");
    let got: Vec<String> = lines
        .iter()
        .map(|l| l.trim_start_matches("[FILE] ").to_string())
        .collect();
    let unique: BTreeSet<String> = got.iter().cloned().collect();
    assert_eq!(
        unique.len(),
        got.len(),
        "no name twice across {pages} pages"
    );
    let out = Command::new("find")
        .args([".", "-name", "*.txt"])
        .current_dir(t.path())
        .output()
        .unwrap();
    let want: BTreeSet<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|p| p.trim_start_matches("./").to_string())
        .collect();
    assert_eq!(unique, want);
}

#[tokio::test]
async fn a_path_holding_colons_cannot_be_misread() {
    let t = Tree::new();
    t.write("a:1: x.txt", b"needle\n");
    t.write("b.txt", b"a:1: x.txt:1: needle\n");
    let s = Server::start(&[&t.path()]).await;
    let r = search(
        &s,
        json!({"path": path_arg(&t.path()), "content": "needle"}),
    )
    .await
    .ok();
    assert_eq!(
        r.lines()[..2],
        [
            "a\\u{3a}1\\u{3a} x.txt:1: needle",
            "b.txt:1: a:1: x.txt:1: needle"
        ],
        "{}",
        r.text
    );
    let hit = &r.structured["hits"][0];
    assert_eq!(hit["line"], 1);
    let read = Reply::of(
        s.call(
            "read_file",
            json!({"path": format!("{}/{}", path_arg(&t.path()), hit["path"].as_str().unwrap())}),
        )
        .await,
    )
    .ok();
    assert!(
        read.text.contains("needle"),
        "the escaped path reads back: {}",
        read.text
    );
}

#[tokio::test]
async fn what_ignore_rules_hid_is_counted_and_files_are_those_read() {
    let t = Tree::new();
    assert!(Command::new("git")
        .args(["init", "-q"])
        .current_dir(t.path())
        .status()
        .unwrap()
        .success());
    t.write(".gitignore", b"build/\n");
    t.write("build/out.txt", b"needle\n");
    t.write("src/a.txt", b"needle\n");
    t.write("src/b.log", b"needle\n");
    chmod(&t);
    let s = Server::start(&[&t.path()]).await;
    // An ignored folder asked for by its path: nothing silently missing.
    let r = search(
        &s,
        json!({"path": path_arg(&t.at("build")), "content": "needle"}),
    )
    .await
    .ok();
    assert!(
        r.text
            .contains("1 hidden as git ignores them (include_ignored: true"),
        "{}",
        r.text
    );
    let r = search(
        &s,
        json!({"path": path_arg(&t.at("build")), "content": "needle", "include_ignored": true}),
    )
    .await
    .ok();
    assert_eq!(r.lines()[0], "out.txt:1: needle", "{}", r.text);
    // A content search counts the files whose contents it read.
    let r = search(
        &s,
        json!({"path": path_arg(&t.at("src")), "name": "*.txt", "content": "needle"}),
    )
    .await
    .ok();
    assert!(
        r.text.contains("[SEARCHED] 1 folders, 1 files, 7 bytes"),
        "{}",
        r.text
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
    // The first page reads the whole tree (it counts every hit); later
    // pages read on from where the last ended, so it is the one that says.
    let first = search(
        &s,
        json!({"path": path_arg(&t.path()), "content": "need+le \\d"}),
    )
    .await
    .ok();
    assert!(
        first.text.contains("; 1 binary files skipped"),
        "{}",
        first.text
    );
    assert!(
        first.structured.get("binarySkipped").is_none() && first.structured.get("files").is_none(),
        "what was searched is said once, in the text: {}",
        first.structured
    );
    assert!(last.next_cursor().is_none());
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
    // Five folders of 1.6 s each (two reads, 800 ms apart): each within a
    // step's own time, all of them past the search's.
    for d in ["a", "b", "c", "d", "e"] {
        t.write(format!("{d}/slowpoke/x.txt"), b"needle\n");
    }
    let s = Server::start_with(Start {
        roots: vec![t.path()],
        env: vec![
            ("CANOPY_TEST_SLOW_FOLDER".into(), "slowpoke".into()),
            ("CANOPY_TEST_SLOW_DELAY_MS".into(), "800".into()),
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
    assert!(
        !r.text.contains("[TIMEOUT]"),
        "no step was left behind: {}",
        r.text
    );
    let logs = logs_after(&s, 1).await;
    assert!(
        logs.iter()
            .any(|(l, m)| l == "info" && m.starts_with("search cut: ")),
        "{logs:?}"
    );
}

async fn logs_after(s: &Server, n: usize) -> Vec<(String, String)> {
    // A notification and the reply after it travel in order on one
    // stream, but the client hands them to different tasks.
    for _ in 0..200 {
        let logs = s.seen.logs.lock().unwrap().clone();
        if logs.len() >= n {
            return logs;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    s.seen.logs.lock().unwrap().clone()
}

#[tokio::test]
async fn a_folder_that_does_not_answer_costs_only_itself_a_timeout() {
    let t = Tree::new();
    t.write("a/slowpoke/x.txt", b"needle\n");
    t.write("b/y.txt", b"needle\n");
    t.write("c/z.txt", b"needle\n");
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
    let lines = r.lines();
    assert!(lines.contains(&"b/y.txt:1: needle"), "{}", r.text);
    assert!(
        lines.contains(&"c/z.txt:1: needle"),
        "found after it: {}",
        r.text
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("[TIMEOUT] a/slowpoke: not responding")),
        "{}",
        r.text
    );
    assert!(
        r.text.contains("[SEARCHED] at least "),
        "the counts are lower bounds: {}",
        r.text
    );
    assert!(
        r.structured.get("cut").is_none(),
        "no budget cut: {}",
        r.text
    );
    assert_eq!(r.structured["problems"], json!(["TIMEOUT a/slowpoke"]));
    let logs = logs_after(&s, 1).await;
    assert!(
        logs.iter()
            .any(|(l, m)| l == "warning" && m.contains("were not searched to their end in time")),
        "{logs:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_file_in_the_searched_root_that_hangs_costs_only_that_file() {
    let t = Tree::new();
    let point = t.dir("mnt");
    chmod(&t);
    // Declared after the tree: dropped first (aborted, unmounted) so the tree can go.
    let mount = deadfs::DeadMount::on(&point);
    let s = Server::start(&[&t.at("mnt")]).await;
    // The mount's root answers; its frozen.txt never opens.
    let r = search(
        &s,
        json!({"path": path_arg(&t.at("mnt")), "content": "hello"}),
    )
    .await
    .ok();
    assert!(
        r.lines()
            .iter()
            .any(|l| l.starts_with("[TIMEOUT] frozen.txt: not responding")),
        "the hung file is named, the search answers: {}",
        r.text
    );
    assert!(r.text.contains("[SEARCHED] at least "), "{}", r.text);
    assert!(
        mount.held.opens.load(std::sync::atomic::Ordering::SeqCst) > 0,
        "the search did try to open it"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_dead_mount_below_costs_only_its_folder_a_timeout() {
    let t = Tree::new();
    t.write("root/top.txt", b"hello\n");
    t.write("root/zzz/after.txt", b"hello\n");
    let point = t.dir("root/mnt");
    chmod(&t);
    // Declared after the tree: dropped first (aborted, unmounted) so the tree can go.
    let mount = deadfs::DeadMount::on(&point);
    let s = Server::start(&[&t.at("root")]).await;
    let r = search(
        &s,
        json!({"path": path_arg(&t.at("root")), "content": "hello"}),
    )
    .await
    .ok();
    let lines = r.lines();
    assert!(lines.contains(&"top.txt:1: hello"), "{}", r.text);
    assert!(
        lines.contains(&"zzz/after.txt:1: hello"),
        "the folder after the dead one was searched: {}",
        r.text
    );
    assert!(
        lines.iter().any(|l| l.starts_with("[TIMEOUT] mnt")),
        "{}",
        r.text
    );
    assert!(r.text.contains("[SEARCHED] at least "), "{}", r.text);
    assert!(
        mount.held.opens.load(std::sync::atomic::Ordering::SeqCst)
            + mount
                .held
                .readdirs
                .load(std::sync::atomic::Ordering::SeqCst)
            + mount.held.lookups.load(std::sync::atomic::Ordering::SeqCst)
            > 0,
        "the search did reach the dead mount"
    );
    // The server still answers, at once, with the mount's device stuck.
    let again = search(
        &s,
        json!({"path": path_arg(&t.at("root/zzz")), "content": "hello"}),
    )
    .await
    .ok();
    assert_eq!(again.lines()[0], "after.txt:1: hello");
}

#[tokio::test]
async fn a_search_cut_by_its_budget_before_its_first_hit_reads_on_with_a_cursor() {
    let t = Tree::new();
    // Each `a` file costs this pattern a step's whole time (2 s, then it is
    // named TIMEOUT); the search's 5 s end in the third, before the one
    // file with a hit.
    let line = [vec![b'a'; 5_000], vec![b'\n']].concat();
    let costly: Vec<u8> = line.iter().copied().cycle().take(1 << 20).collect();
    for f in ["a1.txt", "a2.txt", "a3.txt"] {
        t.write(f, &costly);
    }
    t.write("b.txt", b"aaaz\n");
    let s = Server::start(&[&t.path()]).await;
    let args = json!({"path": path_arg(&t.path()), "content": "(?:a{1,100}){1,100}z"});
    let first = search(&s, args.clone()).await.ok();
    assert!(first.text.contains("[BUDGET]"), "{}", first.text);
    assert_eq!(first.structured["shown"], 0, "{}", first.text);
    let cursor = first
        .next_cursor()
        .unwrap_or_else(|| panic!("a cut page gets a cursor: {}", first.text));
    let mut next = args.clone();
    next["cursor"] = json!(cursor);
    let second = search(&s, next).await.ok();
    assert!(
        second.lines().contains(&"b.txt:1: aaaz"),
        "the next page reads on to the hit: {}",
        second.text
    );
}

#[tokio::test]
async fn a_page_reads_a_file_on_from_the_last_shown_line_never_from_its_start_again() {
    let t = Tree::new();
    // One file whose 2,000 hits take many pages, each hit on a long line.
    let mut body = String::new();
    for i in 0..4000 {
        if i % 2 == 0 {
            body.push_str(&format!("needle {i} {}\n", "x".repeat(300)));
        } else {
            body.push_str("filler\n");
        }
    }
    t.write("one.txt", body.as_bytes());
    let s = Server::start(&[&t.path()]).await;
    let mut args = json!({"path": path_arg(&t.path()), "content": "needle"});
    let first = search(&s, args.clone()).await.ok();
    let mut numbers: Vec<u64> = Vec::new();
    let (mut later, mut pages) = (0, 0);
    let mut r = first;
    loop {
        for hit in r.structured["hits"].as_array().unwrap() {
            numbers.push(hit["line"].as_u64().unwrap());
        }
        let Some(c) = r.next_cursor() else { break };
        args["cursor"] = json!(c);
        r = search(&s, args.clone()).await.ok();
        later += bytes_read(&r);
        pages += 1;
    }
    let want: Vec<u64> = (0..4000).step_by(2).map(|i| i + 1).collect();
    assert_eq!(
        numbers, want,
        "every hit once, at its line as grep -n numbers it"
    );
    assert!(pages > 5, "{pages} later pages");
    // The searcher reads ahead of a page's end by up to its buffer.
    const READ_AHEAD: u64 = 64 * 1024;
    assert!(
        later <= body.len() as u64 + pages * READ_AHEAD,
        "the later pages read {later} bytes in all: the file once (and a buffer ahead each), not from its start each page ({} bytes, {pages} pages)",
        body.len()
    );
}
