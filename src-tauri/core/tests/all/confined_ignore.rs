//! A confined source (canopy-mcp's) hides what git ignores when it is told
//! where it may read the rules, and only from repositories inside those folders.

use std::path::PathBuf;
use std::process::Command;

use canopy_core::{list, ListCall, ListSettings, LocalFs};

fn repo() -> (tempfile::TempDir, PathBuf) {
    let t = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(t.path()).unwrap();
    assert!(Command::new("git")
        .args(["init", "-q"])
        .current_dir(&root)
        .status()
        .unwrap()
        .success());
    std::fs::write(root.join(".gitignore"), "node_modules/\n").unwrap();
    std::fs::create_dir_all(root.join("node_modules/x")).unwrap();
    std::fs::create_dir_all(root.join("src/inner")).unwrap();
    (t, root)
}

fn names(source: &LocalFs, path: &std::path::Path) -> (Vec<String>, u64, Option<String>) {
    let settings = ListSettings {
        hide_ignored: true,
        ..ListSettings::default()
    };
    let l = list(source, path, &settings, &ListCall::default()).unwrap();
    let f = l.root.folder.unwrap();
    (
        f.entries.iter().map(|e| e.name.clone()).collect(),
        f.ignored_hidden,
        l.root.error.map(|e| e.code.to_string()),
    )
}

#[test]
fn a_confined_source_hides_ignored_entries_of_a_repository_inside_its_folders() {
    let (_t, root) = repo();
    let source = LocalFs::confined().with_ignore_rules_within(vec![root.clone()]);
    let (shown, hidden, error) = names(&source, &root);
    assert_eq!(shown, ["src", ".gitignore"].map(String::from), "{error:?}");
    assert_eq!(hidden, 2, "node_modules and .git");
}

#[test]
fn a_confined_source_reads_no_repository_above_its_folders() {
    let (_t, root) = repo();
    let below = root.join("src");
    let source = LocalFs::confined().with_ignore_rules_within(vec![below.clone()]);
    std::fs::write(root.join(".gitignore"), "inner\n").unwrap();
    let (shown, hidden, _) = names(&source, &below);
    assert_eq!(
        shown,
        ["inner"].map(String::from),
        "the rules above the folder are not read"
    );
    assert_eq!(hidden, 0);
}

fn git(dir: &std::path::Path, args: &[&str]) {
    let o = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@t")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@t")
        .output()
        .unwrap();
    assert!(o.status.success(), "git {args:?}: {o:?}");
}

#[test]
fn a_confined_source_keeps_tracked_files_of_a_repository_inside_its_folders() {
    let (_t, root) = repo();
    std::fs::write(root.join("node_modules/x/patched.js"), "").unwrap();
    git(&root, &["add", "-f", "node_modules/x/patched.js"]);
    let source = LocalFs::confined().with_ignore_rules_within(vec![root.clone()]);
    let (shown, hidden, error) = names(&source, &root);
    assert_eq!(
        shown,
        ["node_modules", "src", ".gitignore"].map(String::from),
        "node_modules holds a tracked file: {error:?}"
    );
    assert_eq!(hidden, 1, ".git");
}

#[test]
fn a_confined_source_reads_no_index_outside_its_folders() {
    // A worktree inside the folders whose git folder (in the main
    // repository's .git) is outside them: which files it tracks is not
    // known there, so nothing is hidden, and the folder says why.
    let (_t, root) = repo();
    git(&root, &["commit", "-q", "--allow-empty", "-m", "x"]);
    let outside = tempfile::tempdir().unwrap();
    let wt = std::fs::canonicalize(outside.path()).unwrap().join("wt");
    git(&root, &["worktree", "add", "-q", wt.to_str().unwrap()]);
    std::fs::write(wt.join(".gitignore"), "*.o\n").unwrap();
    std::fs::write(wt.join("a.o"), "").unwrap();
    let source = LocalFs::confined().with_ignore_rules_within(vec![wt.clone()]);
    let (shown, hidden, error) = names(&source, &wt);
    assert_eq!(error.as_deref(), Some("DENIED"));
    assert!(shown.contains(&"a.o".to_string()), "{shown:?}");
    assert_eq!(hidden, 1, ".git alone");
}
