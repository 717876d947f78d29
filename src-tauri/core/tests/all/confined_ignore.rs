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
