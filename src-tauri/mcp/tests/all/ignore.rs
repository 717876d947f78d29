//! Ignore-awareness: `list_directory` hides what git would ignore (and
//! `.git`) by default, says how much each folder hid, and lists it all with
//! `include_ignored`; `exclude` leaves out names no ignore file names.
//! Held to `git ls-files` on a real repository.

use crate::common;

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use common::{path_arg, Server, Tree};
use serde_json::json;

/// A repository as agents meet one: sources, tests, a `.gitignore`d
/// `node_modules` and `target` much bigger than the sources, and `.git`.
fn repository() -> Tree {
    let t = Tree::new();
    let git = |args: &[&str]| {
        let out = Command::new("git")
            .args(args)
            .current_dir(t.path())
            .output()
            .expect("git runs");
        assert!(out.status.success(), "git {args:?}: {out:?}");
    };
    git(&["init", "-q"]);
    t.write(".gitignore", b"node_modules/\n/target\n*.log\n!keep.log\n");
    t.write("README.md", b"readme\n");
    t.write("src/main.rs", b"fn main() {}\n");
    t.write("src/lib/mod.rs", b"\n");
    t.write("src/lib/util/deep.rs", b"\n");
    t.write("src/debug.log", b"log\n");
    t.write("src/keep.log", b"kept\n");
    t.write("tests/a_test.rs", b"\n");
    t.write("tests/fixtures/one.txt", b"\n");
    for i in 0..300 {
        t.write(format!("node_modules/pkg{i}/index.js"), b"x\n");
        t.write(format!("target/debug/obj{i}.o"), b"\0");
    }
    // Readable by the unprivileged server.
    let _ = Command::new("chmod")
        .args(["-R", "a+rX"])
        .arg(t.path())
        .status();
    t
}

/// The files git would list: tracked or untracked, not ignored.
fn git_files(root: &Path) -> BTreeSet<String> {
    let out = Command::new("git")
        .args(["ls-files", "--cached", "--others", "--exclude-standard"])
        .current_dir(root)
        .output()
        .expect("git runs");
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

fn files_in(text: &str) -> BTreeSet<String> {
    text.lines()
        .filter_map(|l| l.strip_prefix("[FILE] "))
        .map(|p| p.split('\t').next().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn depth_three_of_a_repository_shows_what_git_shows_and_expands_the_sources() {
    let t = repository();
    let s = Server::start(&[&t.path()]).await;
    let r = s
        .list(json!({ "path": path_arg(&t.path()), "depth": 4 }))
        .await
        .ok();
    assert_eq!(
        files_in(&r.text),
        git_files(&t.path()),
        "the files listed are those git lists: {}",
        r.text
    );
    for hidden in ["node_modules", "target", ".git", "debug.log"] {
        assert!(
            !common::entry_paths(&r.text)
                .iter()
                .any(|p| p.split('/').any(|name| name == hidden)),
            "{hidden} is ignored and not listed: {}",
            r.text
        );
    }
    let d3 = s
        .list(json!({ "path": path_arg(&t.path()), "depth": 3 }))
        .await
        .ok();
    for expanded in ["[DIR] src/lib/util", "[FILE] tests/fixtures/one.txt"] {
        assert!(d3.text.contains(expanded), "{expanded}: {}", d3.text);
    }
    let root_line = format!(
        "[IGNORED] {}: 3 items hidden by ignore rules",
        t.path().file_name().unwrap().to_str().unwrap()
    );
    assert!(
        d3.text.lines().any(|l| l == root_line),
        "the root says it hid node_modules, target and .git: {}",
        d3.text
    );
    assert!(
        d3.text
            .lines()
            .any(|l| l == "[IGNORED] src: 1 items hidden by ignore rules"),
        "src hid debug.log: {}",
        d3.text
    );
}

#[tokio::test]
async fn tracked_files_that_a_rule_matches_are_listed_as_git_lists_them() {
    // pyenv's plugins/ (a placeholder `/*` written after plugins were
    // added) and Tauri's permissions/ (`schemas/` ignored, its files added).
    let t = Tree::new();
    let git = |args: &[&str]| {
        let out = Command::new("git")
            .args(args)
            .current_dir(t.path())
            .output()
            .expect("git runs");
        assert!(out.status.success(), "git {args:?}: {out:?}");
    };
    git(&["init", "-q"]);
    t.write("plugins/python-build/bin/build", b"#!/bin/sh\n");
    t.write("permissions/schemas/schema.json", b"{}\n");
    git(&["add", "-A"]);
    t.write("plugins/.gitignore", b"/*\n!/.gitignore\n");
    t.write("plugins/mine/x", b"");
    t.write("permissions/.gitignore", b"schemas/\n");
    t.write("permissions/schemas/generated.json", b"{}\n");
    let _ = Command::new("chmod")
        .args(["-R", "a+rX"])
        .arg(t.path())
        .status();
    let s = Server::start(&[&t.path()]).await;
    let r = s
        .list(json!({ "path": path_arg(&t.path()), "depth": 4 }))
        .await
        .ok();
    let want = git_files(&t.path());
    assert!(
        want.contains("plugins/python-build/bin/build")
            && want.contains("permissions/schemas/schema.json"),
        "the fixture: git lists the tracked files {want:?}"
    );
    assert_eq!(
        files_in(&r.text),
        want,
        "tracked files are listed whatever the rules say; untracked ones they match are not: {}",
        r.text
    );
}

#[tokio::test]
async fn include_ignored_lists_everything_and_counts_nothing_hidden() {
    let t = repository();
    let s = Server::start(&[&t.path()]).await;
    let r = s
        .list(json!({ "path": path_arg(&t.path()), "depth": 1, "include_ignored": true }))
        .await
        .ok();
    for shown in ["[DIR] node_modules", "[DIR] target", "[DIR] .git"] {
        assert!(r.text.lines().any(|l| l == shown), "{shown}: {}", r.text);
    }
    assert!(!r.text.contains("[IGNORED]"), "{}", r.text);
    let inside = s
        .list(
            json!({ "path": path_arg(&t.at("node_modules")), "depth": 1, "include_ignored": true }),
        )
        .await
        .ok();
    assert_eq!(inside.structured["total"], 300, "{}", inside.text);
}

#[tokio::test]
async fn a_named_ignored_folder_is_listed_saying_it_is_ignored() {
    let t = repository();
    let s = Server::start(&[&t.path()]).await;
    let folder = t.at("node_modules");
    let ignored = Command::new("git")
        .args(["check-ignore", "-q", "node_modules/pkg0"])
        .current_dir(t.path())
        .status()
        .unwrap();
    assert!(ignored.success(), "git ignores what is inside");
    let r = s
        .list(json!({ "path": path_arg(&folder), "depth": 1 }))
        .await
        .ok();
    assert_eq!(
        r.lines()[0],
        format!(
            "[IGNORED] {}: git ignores all 300 entries; listed as named",
            path_arg(&folder)
        ),
        "{}",
        r.text
    );
    assert!(
        r.text.contains("[DIR] pkg0\n"),
        "its entries listed: {}",
        r.text
    );
    assert_eq!(r.structured["total"], 300, "{}", r.text);
    // A folder git does not ignore, with nothing ignored in it, has no note.
    let src = s
        .list(json!({ "path": path_arg(&t.at("tests")), "depth": 1 }))
        .await
        .ok();
    assert!(!src.text.contains("[IGNORED]"), "{}", src.text);
}

#[tokio::test]
async fn exclude_leaves_names_out_of_every_folder_and_counts_them() {
    let t = repository();
    let s = Server::start(&[&t.path()]).await;
    let r = s
        .list(json!({ "path": path_arg(&t.path()), "depth": 4, "exclude": ["fixtures", "*.RS"] }))
        .await
        .ok();
    let files = files_in(&r.text);
    assert_eq!(
        files,
        ["README.md", ".gitignore", "src/keep.log"]
            .iter()
            .map(|s| s.to_string())
            .collect(),
        "every *.rs (case folded) and the fixtures folder left out: {}",
        r.text
    );
    assert!(
        r.text.contains("[DIR] src/lib") && !r.text.contains("my_fixtures"),
        "{}",
        r.text
    );
    assert!(
        r.text
            .lines()
            .any(|l| l == "[IGNORED] tests: 2 items hidden by ignore rules"),
        "tests hid a_test.rs and fixtures: {}",
        r.text
    );
    // A whole-name pattern: `src` does not leave out `src2`.
    t.write("src2/x.txt", b"");
    let _ = Command::new("chmod")
        .args(["-R", "a+rX"])
        .arg(t.path())
        .status();
    let r = s
        .list(json!({ "path": path_arg(&t.path()), "depth": 1, "exclude": ["src"] }))
        .await
        .ok();
    assert!(r.text.lines().any(|l| l == "[DIR] src2"), "{}", r.text);
    assert!(!r.text.lines().any(|l| l == "[DIR] src"), "{}", r.text);
    let bad = s
        .list(json!({ "path": path_arg(&t.path()), "exclude": ["a/b"] }))
        .await;
    assert_eq!(bad.code(), "INVALID_ARGUMENT", "{}", bad.text);
}

#[tokio::test]
async fn a_cursor_is_refused_under_other_excludes() {
    let t = Tree::new();
    for i in 0..6000 {
        t.file(format!("f{i:05}"));
    }
    let s = Server::start(&[&t.path()]).await;
    let first = s
        .list(json!({ "path": path_arg(&t.path()), "depth": 1, "exclude": ["x"] }))
        .await
        .ok();
    let cursor = first.next_cursor().expect("more than a page");
    let other = s
        .list(json!({ "path": path_arg(&t.path()), "depth": 1, "cursor": cursor }))
        .await;
    assert_eq!(other.code(), "INVALID_ARGUMENT", "{}", other.text);
    let same = s
        .list(
            json!({ "path": path_arg(&t.path()), "depth": 1, "exclude": ["x"], "cursor": cursor }),
        )
        .await
        .ok();
    assert!(same.structured["offset"].as_u64().unwrap() > 0);
}

#[tokio::test]
async fn details_add_size_and_time_after_a_tab() {
    let t = Tree::new();
    t.write("a.txt", b"12345");
    let s = Server::start(&[&t.path()]).await;
    let r = s
        .list(json!({ "path": path_arg(&t.path()), "details": true }))
        .await
        .ok();
    let line = r
        .text
        .lines()
        .find(|l| l.starts_with("[FILE] a.txt"))
        .expect("the file's line");
    let (_, facts) = line.split_once('\t').expect("facts after a tab");
    assert!(facts.starts_with("size 5\tmodified 20"), "{line}");
    assert!(line.ends_with('Z'), "{line}");
}

#[tokio::test]
async fn details_are_in_the_structured_content_too() {
    let t = Tree::new();
    t.write("a.txt", b"12345");
    t.write("sub/b.bin", &[7u8; 1234]);
    let s = Server::start(&[&t.path()]).await;
    let r = s
        .list(json!({ "path": path_arg(&t.path()), "details": true, "depth": 2 }))
        .await
        .ok();
    let entries = r.structured["entries"]
        .as_array()
        .unwrap_or_else(|| panic!("entries in {}", r.structured));
    let paths: Vec<&str> = entries
        .iter()
        .map(|e| e["path"].as_str().unwrap())
        .collect();
    assert_eq!(
        paths,
        ["sub", "sub/b.bin", "a.txt"],
        "in the order of the lines"
    );
    for e in entries {
        let p = t.at(e["path"].as_str().unwrap());
        let stat = std::process::Command::new("stat")
            .args(["-c", "%s %Y %F"])
            .arg(&p)
            .output()
            .unwrap();
        let stat = String::from_utf8(stat.stdout).unwrap();
        let mut f = stat.trim().splitn(3, ' ');
        let (size, secs, kind) = (f.next().unwrap(), f.next().unwrap(), f.next().unwrap());
        if kind == "directory" {
            assert!(e.get("size").is_none(), "a folder has no size: {e}");
        } else {
            assert_eq!(e["size"].to_string(), size, "{e}");
        }
        let line = r
            .text
            .lines()
            .find(|l| {
                l.split('\t')
                    .next()
                    .unwrap()
                    .ends_with(&format!(" {}", e["path"].as_str().unwrap()))
            })
            .expect("its line");
        let modified = e["modified"].as_str().unwrap();
        assert!(
            line.ends_with(&format!("modified {modified}")),
            "{line} / {e}"
        );
        let date = std::process::Command::new("date")
            .args(["-u", "-d", &format!("@{secs}"), "+%Y-%m-%dT%H:%M:%SZ"])
            .output()
            .unwrap();
        assert_eq!(String::from_utf8(date.stdout).unwrap().trim(), modified);
    }
    let plain = s.list(json!({ "path": path_arg(&t.path()) })).await.ok();
    assert!(
        plain.structured.get("entries").is_none(),
        "only with details"
    );
}

#[tokio::test]
async fn a_page_with_details_keeps_the_reply_budget_facts_included() {
    let t = Tree::new();
    for i in 0..3000 {
        t.write(format!("big/\\\"quoted\"name-{i:05}.txt"), b"x");
    }
    let s = Server::start(&[&t.path()]).await;
    let mut args = json!({ "path": path_arg(&t.at("big")), "details": true, "depth": 1 });
    let mut seen = 0;
    loop {
        let r = s.list(args.clone()).await.ok();
        assert!(r.chars() <= common::BUDGET, "{} characters", r.chars());
        let n = r.structured["entries"].as_array().unwrap().len();
        assert_eq!(n as u64, r.structured["shown"].as_u64().unwrap());
        seen += n;
        match r.next_cursor() {
            Some(c) => args["cursor"] = json!(c),
            None => break,
        }
    }
    assert_eq!(seen, 3000, "every entry once, with its facts");
}
