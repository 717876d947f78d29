//! "Hide ignored" never hides what git tracks: git's rule is that ignore
//! rules apply to untracked paths only. The shapes come from real
//! repositories: pyenv's placeholder `.gitignore` holding `*`, SvelteKit's
//! playgrounds and Tauri's `permissions/schemas` (a folder its rules name,
//! whose files are committed all the same). Each is held to what `git status
//! --ignored` says, and the repository's index is read, never written.

use crate::common;

use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

use canopy_core::wire::{Entry, Listing};
use canopy_core::ErrorCode;
use common::*;

/// Runs git in `dir` with `args`, as a user who has set nothing up.
fn git(dir: &Path, args: &[&str]) {
    let o = git_in(dir)
        .args(args)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@t")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@t")
        .output()
        .expect("git is needed for this test (scripts/test installs it)");
    assert!(
        o.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// What `git status --ignored` lists as ignored, each ignored folder once
/// with its `/`.
fn git_ignored(dir: &Path) -> Vec<String> {
    let o = git_in(dir)
        .args([
            "status",
            "--porcelain",
            "-z",
            "--ignored=matching",
            "--untracked-files=all",
        ])
        .output()
        .unwrap();
    assert!(o.status.success());
    let mut out: Vec<String> = o
        .stdout
        .split(|&b| b == 0)
        .filter_map(|r| r.strip_prefix(b"!! "))
        .map(|p| String::from_utf8_lossy(p).into_owned())
        .collect();
    out.sort();
    out
}

fn hiding(path: &Path, depth: u32) -> Listing {
    list(
        path,
        &ListOptions {
            hide_ignored: true,
            ..opts(depth, 100)
        },
    )
    .unwrap()
}

/// Every path the listing shows below `e`, relative to it, folders with a `/`.
fn shown(e: &Entry) -> Vec<String> {
    fn walk(e: &Entry, prefix: &str, out: &mut Vec<String>) {
        for c in e.folder.iter().flat_map(|f| f.entries.iter()) {
            let slash = if c.folder.is_some() { "/" } else { "" };
            let path = format!("{prefix}{}{slash}", c.name);
            out.push(path.clone());
            walk(c, &path, out);
        }
    }
    let mut out = Vec::new();
    walk(e, "", &mut out);
    out.sort();
    out
}

/// pyenv's `plugins/`: `/*` then `!/.gitignore` (a placeholder that keeps
/// the folder), and two plugins committed before the rule was written.
fn pyenv_like(t: &Tree) -> std::path::PathBuf {
    let repo = t.at("repo");
    git_init(&repo);
    t.write("repo/plugins/python-build/bin/build", b"#!/bin/sh\n");
    t.write("repo/plugins/pyenv-doctor/README", b"x\n");
    t.write("repo/test/tmp/.gitignore", b"*\n");
    git(&repo, &["add", "-A"]);
    // It ignores itself: committed with `add -f`, as pyenv's was.
    git(&repo, &["add", "-f", "test/tmp/.gitignore"]);
    git(&repo, &["commit", "-qm", "plugins"]);
    t.write("repo/plugins/.gitignore", b"/*\n!/.gitignore\n");
    t.write("repo/plugins/my-own-plugin/bin/x", b"");
    t.write("repo/test/tmp/scratch", b"");
    repo
}

#[test]
fn a_tracked_file_that_a_rule_matches_is_shown_as_git_shows_it() {
    let t = Tree::new();
    let repo = pyenv_like(&t);
    let l = hiding(&repo, 4);
    assert!(l.root.error.is_none(), "{:?}", l.root.error);
    let shown = shown(&l.root);
    for tracked in [
        "plugins/python-build/bin/build",
        "plugins/pyenv-doctor/README",
        "test/tmp/.gitignore",
    ] {
        assert!(
            shown.iter().any(|s| s == tracked),
            "{tracked} is tracked: git shows it whatever the rules say; shown: {shown:?}"
        );
    }
    assert_eq!(
        git_ignored(&repo),
        ["plugins/my-own-plugin/", "test/tmp/scratch"],
        "the fixture is what git says"
    );
    for ignored in ["plugins/my-own-plugin/", "test/tmp/scratch"] {
        assert!(
            !shown.iter().any(|s| s == ignored),
            "{ignored} is untracked and ignored: still hidden"
        );
    }
}

/// Tauri's `permissions/`: its `.gitignore` says `schemas/`, and the
/// schemas are committed.
fn tauri_like(t: &Tree) -> std::path::PathBuf {
    let repo = t.at("repo");
    git_init(&repo);
    t.write("repo/permissions/schemas/schema.json", b"{}\n");
    t.write("repo/permissions/schemas/deep/more.json", b"{}\n");
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-qm", "schemas"]);
    t.write("repo/permissions/.gitignore", b"schemas/\n");
    t.write("repo/permissions/schemas/generated.json", b"{}\n");
    t.write("repo/permissions/schemas/new/one.json", b"{}\n");
    t.write("repo/permissions/schemas/deep/new.json", b"{}\n");
    repo
}

#[test]
fn a_folder_the_rules_name_that_holds_tracked_files_is_shown_with_only_those() {
    let t = Tree::new();
    let repo = tauri_like(&t);
    let l = hiding(&repo, 4);
    assert_eq!(
        git_ignored(&repo),
        [
            "permissions/schemas/deep/new.json",
            "permissions/schemas/generated.json",
            "permissions/schemas/new/"
        ],
        "the fixture is what git says"
    );
    assert_eq!(
        shown(&l.root),
        [
            "permissions/",
            "permissions/.gitignore",
            "permissions/schemas/",
            "permissions/schemas/deep/",
            "permissions/schemas/deep/more.json",
            "permissions/schemas/schema.json",
        ],
        "the folder holds tracked files, so git shows it, its tracked files, and none of its untracked ones"
    );
}

#[test]
fn listed_from_inside_an_ignored_folder_only_what_is_tracked_is_shown() {
    let t = Tree::new();
    let repo = tauri_like(&t);
    for (inside, want) in [
        (
            "permissions/schemas",
            &["deep/", "deep/more.json", "schema.json"][..],
        ),
        ("permissions/schemas/deep", &["more.json"][..]),
        ("permissions/schemas/new", &[][..]),
    ] {
        let l = hiding(&repo.join(inside), 2);
        assert!(l.root.error.is_none(), "{inside}: {:?}", l.root.error);
        assert_eq!(shown(&l.root), want, "listing {inside} itself");
    }
}

#[test]
fn a_submodule_that_a_rule_matches_is_shown() {
    let t = Tree::new();
    let repo = t.at("repo");
    git_init(&repo);
    t.write("repo/.gitignore", b"vendor/\n");
    t.write("repo/vendor/lib/file", b"");
    t.write("repo/vendor/other/file", b"");
    // A gitlink entry, as `git submodule add` makes (no object is needed).
    git(
        &repo,
        &[
            "update-index",
            "--add",
            "--cacheinfo",
            "160000,1111111111111111111111111111111111111111,vendor/lib",
        ],
    );
    let l = hiding(&repo, 3);
    assert_eq!(git_ignored(&repo), ["vendor/other/"]);
    assert_eq!(
        shown(&l.root),
        [".gitignore", "vendor/", "vendor/lib/"],
        "vendor holds a submodule, which git shows; its other folder stays hidden"
    );
}

#[test]
fn a_worktree_reads_the_index_its_git_file_names() {
    let t = Tree::new();
    let repo = tauri_like(&t);
    git(&repo, &["commit", "-qam", "more", "--allow-empty"]);
    git(&repo, &["worktree", "add", "-q", "../wt"]);
    let wt = t.at("wt");
    assert!(wt.join(".git").is_file(), "a worktree's .git is a file");
    t.write("wt/permissions/.gitignore", b"schemas/\n");
    t.write("wt/permissions/schemas/generated.json", b"{}\n");
    git(&wt, &["add", "-f", "permissions/schemas/generated.json"]);
    let l = hiding(&wt, 4);
    assert!(l.root.error.is_none(), "{:?}", l.root.error);
    let shown = shown(&l.root);
    assert!(
        shown
            .iter()
            .any(|s| s == "permissions/schemas/generated.json"),
        "added in the worktree's own index: {shown:?}"
    );
}

#[test]
fn a_bare_repository_is_no_working_tree_and_hides_nothing() {
    let t = Tree::new();
    tauri_like(&t);
    git(t.path(), &["clone", "-q", "--bare", "repo", "bare.git"]);
    t.write("bare.git/.gitignore", b"*\n");
    let l = hiding(&t.at("bare.git"), 1);
    assert!(l.root.error.is_none(), "{:?}", l.root.error);
    let names = names(folder(&l.root));
    for n in ["HEAD", "objects", "refs", ".gitignore"] {
        assert!(
            names.contains(&n),
            "git has no working tree here: {names:?}"
        );
    }
}

#[test]
fn an_index_that_is_not_git_s_hides_nothing_and_says_corrupt() {
    let t = Tree::new();
    let repo = tauri_like(&t);
    let index = repo.join(".git/index");
    let mut bytes = fs::read(&index).unwrap();
    // Its entry count, past what its bytes hold.
    bytes[8..12].copy_from_slice(&u32::MAX.to_be_bytes());
    fs::write(&index, &bytes).unwrap();
    let l = hiding(&repo, 4);
    let err = l.root.error.as_ref().expect("the folder says why");
    assert_eq!(err.code, ErrorCode::Corrupt, "{}", err.message);
    assert!(err.message.contains(".git/index"), "{}", err.message);
    assert!(
        shown(&l.root).contains(&"permissions/schemas/generated.json".to_string()),
        "any entry may be tracked: none is hidden"
    );
    assert_eq!(folder(&l.root).ignored_hidden, 1, ".git alone");
}

#[test]
fn an_index_over_the_size_read_is_not_read_and_says_too_large() {
    let t = Tree::new();
    let repo = tauri_like(&t);
    let index = fs::File::options()
        .write(true)
        .open(repo.join(".git/index"))
        .unwrap();
    // Sparse: nothing is written but its size.
    index
        .set_len(canopy_core::limits::MAX_GIT_INDEX_BYTES + 1)
        .unwrap();
    let l = hiding(&repo, 2);
    let err = l.root.error.as_ref().expect("the folder says why");
    assert_eq!(err.code, ErrorCode::TooLarge, "{}", err.message);
}

#[test]
fn an_index_that_is_a_fifo_is_never_opened() {
    let t = Tree::new();
    let repo = tauri_like(&t);
    fs::remove_file(repo.join(".git/index")).unwrap();
    t.fifo("repo/.git/index");
    let l = hiding(&repo, 2);
    let err = l.root.error.as_ref().expect("the folder says why");
    assert_eq!(err.code, ErrorCode::NotAFile, "{}", err.message);
}

#[test]
fn reading_the_index_writes_nothing_and_takes_no_lock() {
    let t = Tree::new();
    let repo = tauri_like(&t);
    let git_dir = repo.join(".git");
    let before: Vec<(String, i64, u64)> = fs::read_dir(&git_dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            let m = fs::symlink_metadata(e.path()).unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                m.mtime_nsec(),
                m.len(),
            )
        })
        .collect();
    let index = fs::read(git_dir.join("index")).unwrap();
    // A lock git holds is left alone: git writes beside it, Canopy reads.
    t.write("repo/.git/index.lock", b"");
    hiding(&repo, 4);
    fs::remove_file(git_dir.join("index.lock")).unwrap();
    let after: Vec<(String, i64, u64)> = fs::read_dir(&git_dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            let m = fs::symlink_metadata(e.path()).unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                m.mtime_nsec(),
                m.len(),
            )
        })
        .collect();
    assert_eq!(before, after, "nothing in .git changed");
    assert_eq!(fs::read(git_dir.join("index")).unwrap(), index);
}
