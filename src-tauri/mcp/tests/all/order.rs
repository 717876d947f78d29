//! `list_directory`'s `sort` and `reverse` through the real binary: the
//! order is the engine's over the whole folder (folders first, ties by
//! name), a page cut by the reply budget continues in that order, and a
//! cursor continues only the order it was made in.

use crate::common;

use std::collections::HashSet;
use std::fs::File;
use std::path::Path;
use std::time::{Duration, SystemTime};

use canopy_core::wire::SortBy;
use common::{entry_paths, path_arg, Server, Tree, BUDGET};
use serde_json::{json, Value};

const FILES: usize = 6000;

/// A distinct size for each file, scrambled against the name order.
fn size_of(i: usize) -> u64 {
    ((i * 7919) % FILES + 1) as u64
}

/// `FILES` files `f00000`.. of distinct sizes (sparse), and three folders.
fn sized_folder(t: &Tree, rel: &str) -> std::path::PathBuf {
    let dir = t.dir(rel);
    for i in 0..FILES {
        File::create(dir.join(format!("f{i:05}")))
            .unwrap()
            .set_len(size_of(i))
            .unwrap();
    }
    for d in ["d2", "d0", "d1"] {
        t.dir(format!("{rel}/{d}"));
    }
    dir
}

/// Every top-level entry of `args`' folder, following cursors to the end;
/// checks each page on the way.
async fn all_pages(s: &Server, args: Value) -> (Vec<String>, usize) {
    let (mut seen, mut cursor, mut pages) = (Vec::new(), None::<String>, 0);
    loop {
        let mut a = args.clone();
        if let Some(c) = &cursor {
            a["cursor"] = json!(c);
        }
        let r = s.list(a).await.ok();
        pages += 1;
        assert!(r.text.chars().count() <= BUDGET);
        assert_eq!(
            r.structured.get("offset").cloned().unwrap_or(json!(0)),
            json!(seen.len()),
            "page {pages} starts where the last ended"
        );
        assert_eq!(
            r.structured["order"],
            json!({ "partial": false, "checked": FILES + 3 }),
            "every size was read"
        );
        seen.extend(entry_paths(&r.text));
        match r.next_cursor() {
            Some(c) => cursor = Some(c),
            None => return (seen, pages),
        }
    }
}

fn by_size(descending: bool) -> Vec<String> {
    let mut files: Vec<usize> = (0..FILES).collect();
    files.sort_by_key(|&i| size_of(i));
    if descending {
        files.reverse();
    }
    let mut want: Vec<String> = ["d0", "d1", "d2"].map(String::from).to_vec();
    want.extend(files.into_iter().map(|i| format!("f{i:05}")));
    want
}

#[tokio::test(flavor = "multi_thread")]
async fn size_order_pages_every_entry_once_largest_first_when_reversed() {
    let t = Tree::in_memory();
    let big = sized_folder(&t, "big");
    let s = Server::start(&[&t.path()]).await;

    let (seen, pages) = all_pages(
        &s,
        json!({ "path": path_arg(&big), "depth": 1, "sort": "size", "reverse": true }),
    )
    .await;
    assert!(pages > 1, "{FILES} entries do not fit one reply");
    assert_eq!(seen.len(), FILES + 3, "every entry, once");
    assert_eq!(
        seen.iter().collect::<HashSet<_>>().len(),
        FILES + 3,
        "no entry twice"
    );
    assert_eq!(
        seen,
        by_size(true),
        "folders first (by name), then files largest first, across {pages} pages"
    );

    let (ascending, _) = all_pages(
        &s,
        json!({ "path": path_arg(&big), "depth": 1, "sort": "size" }),
    )
    .await;
    assert_eq!(ascending, by_size(false), "without reverse: smallest first");

    let first = s
        .list(json!({ "path": path_arg(&big), "depth": 1, "sort": "size", "reverse": true }))
        .await
        .ok();
    assert_eq!(first.structured["sort"], json!("size"));
    assert_eq!(first.structured["reverse"], json!(true));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_nested_folder_shows_its_largest_hundred_under_size_order() {
    let t = Tree::in_memory();
    sized_folder(&t, "top/big");
    let top = t.at("top");
    let s = Server::start(&[&t.path()]).await;
    let r = s
        .list(json!({ "path": path_arg(&top), "sort": "size", "reverse": true }))
        .await
        .ok();
    let nested: Vec<String> = entry_paths(&r.text)
        .into_iter()
        .filter_map(|p| p.strip_prefix("big/").map(str::to_string))
        .collect();
    assert_eq!(
        nested,
        by_size(true)[..100].to_vec(),
        "the 100 shown are the largest of all {FILES}, not of the first read"
    );
    let warning = format!(
        "[WARNING] big: {} items hidden (showing first 100 of {} total)",
        FILES + 3 - 100,
        FILES + 3
    );
    assert!(
        r.lines().contains(&warning.as_str()),
        "the nested folder says it shows 100 of all: {warning}"
    );
    assert_eq!(r.structured["truncatedFolders"], json!(1));
}

/// A folder whose entries differ in every order's key.
fn mixed_folder(t: &Tree) -> std::path::PathBuf {
    let dir = t.dir("mixed");
    let names = [
        "b.txt",
        "a.TXT",
        "c.jpg",
        "file10.md",
        "file9.md",
        "Zeta",
        ".hidden.jpg",
        "same1.log",
        "same2.log",
        "noext",
    ];
    let base = SystemTime::UNIX_EPOCH + Duration::from_secs(1_600_000_000);
    for (i, n) in names.iter().enumerate() {
        let f = File::create(dir.join(n)).unwrap();
        // same1/same2 tie on size and time: the name decides, ascending.
        let k = if n.starts_with("same") {
            3
        } else {
            (i * 7) % 10
        };
        f.set_len(k as u64 * 10).unwrap();
        f.set_modified(base + Duration::from_secs(((k * 3) % 10) as u64 * 60))
            .unwrap();
    }
    for d in ["sub2", "Sub10", "sub1"] {
        let sub = t.dir(format!("mixed/{d}"));
        File::open(sub).unwrap().set_modified(base).unwrap();
    }
    dir
}

fn engine_order(dir: &Path, sort: SortBy, reverse: bool) -> Vec<String> {
    let settings = canopy_core::ListSettings {
        depth: 1,
        sort,
        reverse,
        ..canopy_core::ListSettings::default()
    };
    let listing = canopy_core::list(
        &canopy_core::LocalFs::new(),
        dir,
        &settings,
        &canopy_core::ListCall::default(),
    )
    .unwrap();
    listing
        .root
        .folder
        .unwrap()
        .entries
        .into_iter()
        .map(|e| e.name)
        .collect()
}

#[tokio::test]
async fn every_order_and_direction_is_the_engines() {
    let t = Tree::new();
    let dir = mixed_folder(&t);
    let s = Server::start(&[&t.path()]).await;
    let mut seen_orders = HashSet::new();
    for (sort, by) in [
        ("name", SortBy::Name),
        ("size", SortBy::Size),
        ("modified", SortBy::Modified),
        ("type", SortBy::Type),
    ] {
        for reverse in [false, true] {
            let r = s
                .list(
                    json!({ "path": path_arg(&dir), "depth": 1, "sort": sort, "reverse": reverse }),
                )
                .await
                .ok();
            let got = entry_paths(&r.text);
            assert_eq!(
                got,
                engine_order(&dir, by, reverse),
                "sort {sort}, reverse {reverse}"
            );
            let folders = if reverse && sort == "name" {
                ["Sub10", "sub2", "sub1"]
            } else {
                ["sub1", "sub2", "Sub10"]
            };
            assert_eq!(&got[..3], folders, "sort {sort}, reverse {reverse}: folders first; of equal time, by name ascending unless the name order is reversed");
            seen_orders.insert(got);
        }
    }
    assert_eq!(
        seen_orders.len(),
        8,
        "the eight orders differ on this folder, so each was really applied"
    );
}

#[tokio::test]
async fn a_cursor_continues_only_the_order_and_search_it_was_made_in() {
    let t = Tree::in_memory();
    let big = sized_folder(&t, "big");
    let s = Server::start(&[&t.path()]).await;
    let p = path_arg(&big);
    let first = s
        .list(json!({ "path": p, "depth": 1, "sort": "size", "reverse": true }))
        .await
        .ok();
    let c = first.next_cursor().expect("more than a page");
    for (args, why) in [
        (json!({ "path": p, "cursor": c }), "name order"),
        (
            json!({ "path": p, "cursor": c, "sort": "size" }),
            "not reversed",
        ),
        (
            json!({ "path": p, "cursor": c, "sort": "modified", "reverse": true }),
            "another order",
        ),
        (
            json!({ "path": p, "cursor": c, "sort": "size", "reverse": true, "show_dotfiles": false }),
            "dotfiles hidden",
        ),
    ] {
        let r = s.list(args).await;
        assert_eq!(r.code(), "INVALID_ARGUMENT", "{why}: {}", r.text);
    }
    let find = s
        .call(
            "find_in_folder",
            json!({ "path": p, "pattern": "f", "cursor": c, "sort": "size", "reverse": true }),
        )
        .await;
    assert_eq!(
        common::Reply::of(find).code(),
        "INVALID_ARGUMENT",
        "a listing's cursor does not continue a search"
    );

    let search = common::Reply::of(
        s.call("find_in_folder", json!({ "path": p, "pattern": "f0*" }))
            .await,
    )
    .ok();
    let fc = search
        .next_cursor()
        .expect("6,000 matches do not fit one reply");
    let listing = s.list(json!({ "path": p, "cursor": fc })).await;
    assert_eq!(
        listing.code(),
        "INVALID_ARGUMENT",
        "a search's cursor does not continue a listing"
    );
    let other = common::Reply::of(
        s.call(
            "find_in_folder",
            json!({ "path": p, "pattern": "f1*", "cursor": fc }),
        )
        .await,
    );
    assert_eq!(
        other.code(),
        "INVALID_ARGUMENT",
        "nor a search for another pattern"
    );
    assert!(
        other.text.contains("another order or filter"),
        "{}",
        other.text
    );
    let same = common::Reply::of(
        s.call(
            "find_in_folder",
            json!({ "path": p, "pattern": "f0*", "cursor": fc }),
        )
        .await,
    )
    .ok();
    assert!(
        same.structured["offset"].as_u64().unwrap() > 0,
        "the same search continues"
    );
}
