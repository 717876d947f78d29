//! `folder_sizes` through a real MCP client: the folder's total and each
//! shown folder's figure are `du`'s, children come largest first, deeper
//! levels open inside the largest folders, a reply stays within the budget,
//! and a bad depth or a file is refused with its code.

use crate::common;

use std::process::Command;

use common::{path_arg, Reply, Server, Tree, BUDGET};
use serde_json::{json, Value};

async fn sizes(s: &Server, args: Value) -> Reply {
    Reply::of(s.call("folder_sizes", args).await)
}

/// `du -s` of `path` with `flag` (`-B1` disk usage, `-b` apparent), one filesystem.
fn du(flag: &str, path: &std::path::Path) -> u64 {
    let out = Command::new("du")
        .args(["-s", "-x", flag])
        .arg(path)
        .output()
        .unwrap();
    String::from_utf8(out.stdout)
        .unwrap()
        .split('\t')
        .next()
        .unwrap()
        .parse()
        .unwrap()
}

fn tree() -> Tree {
    let t = Tree::new();
    t.write("big/a.bin", &vec![7u8; 300_000]);
    t.write("big/inner/b.bin", &vec![7u8; 200_000]);
    t.write("small/c.txt", b"hello");
    t.write("mid.bin", &vec![1u8; 100_000]);
    for i in 0..14 {
        t.write(format!("many/f{i:02}"), &vec![2u8; 1000 * (i + 1)]);
    }
    t
}

#[tokio::test]
async fn figures_are_du_s_and_children_come_largest_first() {
    let t = tree();
    let s = Server::start(&[&t.path()]).await;
    for (apparent, flag) in [(false, "-B1"), (true, "-b")] {
        let r = sizes(
            &s,
            json!({"path": path_arg(&t.path()), "apparent": apparent}),
        )
        .await
        .ok();
        let root = &r.structured["folders"][0];
        assert_eq!(
            root["bytes"].as_u64().unwrap(),
            du(flag, &t.path()),
            "the folder's total is du {flag}'s: {}",
            r.text
        );
        assert_eq!(root["isLowerBound"], false);
        let children: Vec<&str> = r
            .text
            .lines()
            .filter(|l| l.starts_with("  ["))
            .map(|l| l.split_whitespace().nth(1).unwrap())
            .collect();
        assert_eq!(children[0], "big", "the largest child first: {}", r.text);
        assert!(
            children.contains(&"mid.bin") && children.contains(&"small"),
            "files and folders alike: {}",
            r.text
        );
    }
}

#[tokio::test]
async fn deeper_levels_open_inside_the_largest_folders_with_du_s_figures() {
    let t = tree();
    let s = Server::start(&[&t.path()]).await;
    let r = sizes(&s, json!({"path": path_arg(&t.path()), "depth": 3}))
        .await
        .ok();
    let folders = r.structured["folders"].as_array().unwrap();
    let of = |p: &str| -> u64 {
        folders
            .iter()
            .find(|f| f["path"] == p)
            .unwrap_or_else(|| panic!("{p} shown: {}", r.text))["bytes"]
            .as_u64()
            .unwrap()
    };
    assert_eq!(of("big"), du("-B1", &t.at("big")));
    assert_eq!(of("big/inner"), du("-B1", &t.at("big/inner")));
    assert!(
        r.text.contains("    [FILE] b.bin"),
        "the third level, indented: {}",
        r.text
    );
    let many = r
        .text
        .lines()
        .find(|l| l.contains("others"))
        .expect("the children past the largest are summed as others");
    assert!(many.trim_start().starts_with("4 others"), "{many}");
}

#[tokio::test]
async fn a_wide_deep_tree_stays_within_the_reply_budget() {
    let t = Tree::new();
    for a in 0..40 {
        for b in 0..12 {
            t.write(
                format!("{a:03}-{}/{b:02}-{}/file", "x".repeat(60), "y".repeat(60)),
                &vec![0u8; 4096 * (a + b + 1)],
            );
        }
    }
    let s = Server::start(&[&t.path()]).await;
    let r = sizes(&s, json!({"path": path_arg(&t.path()), "depth": 3}))
        .await
        .ok();
    assert!(r.chars() <= BUDGET, "{} characters", r.chars());
    assert!(
        r.text.ends_with(
            "[TRUNCATED] the reply budget is spent: ask for a deeper folder or a smaller depth\n"
        ) && r.structured["truncated"] == true,
        "a cut reply says so: {}",
        &r.text[r.text.len().saturating_sub(300)..]
    );
}

#[tokio::test]
async fn a_bad_depth_or_a_file_is_refused_with_its_code() {
    let t = tree();
    let s = Server::start(&[&t.path()]).await;
    let r = sizes(&s, json!({"path": path_arg(&t.path()), "depth": 4})).await;
    assert_eq!(r.code(), "INVALID_ARGUMENT");
    let r = sizes(&s, json!({"path": path_arg(&t.at("mid.bin"))})).await;
    assert_eq!(r.code(), "NOT_A_DIRECTORY");
}

#[tokio::test]
async fn folders_with_hostile_names_are_opened_too_each_block_under_its_folder() {
    let t = Tree::new();
    t.write(b"bad\xff/sub/f".as_slice(), &vec![1u8; 200_000]);
    t.write("nl\nx/sub/f", &vec![1u8; 150_000]);
    t.write("good/sub/f", &vec![1u8; 100_000]);
    let s = Server::start(&[&t.path()]).await;
    let r = sizes(&s, json!({"path": path_arg(&t.path()), "depth": 2}))
        .await
        .ok();
    for name in ["bad\\xff", "nl\\nx", "good"] {
        assert!(
            r.text.contains(&format!("  [IN] {name}  ")),
            "{name} is opened under a line naming it: {}",
            r.text
        );
    }
    let blocks = r.text.lines().filter(|l| l.contains("[DIR] sub")).count();
    assert_eq!(blocks, 3, "each folder's child shown once: {}", r.text);
    assert!(
        !r.text.lines().any(|l| l.starts_with("x/")),
        "no forged line"
    );
}
