//! The request budget: breadth-first, entries, names and time, with `BUDGET`
//! on every folder that was not read and exact counts on every one that was.

use crate::common;

use std::sync::Arc;
use std::time::Duration;

use canopy_core::limits::{MAX_REPLY_ENTRIES, NESTED_CAP, PAGE};
use canopy_core::testing::IoHooks;
use canopy_core::wire::{Entry, Folder};
use canopy_core::ErrorCode;
use canopy_core::Observer;
use canopy_core::RequestBudget;
use common::*;

fn budget(entries: u64, names: u64) -> RequestBudget {
    RequestBudget {
        entries,
        names,
        ..RequestBudget::STANDARD
    }
}

fn code(e: &Entry) -> Option<ErrorCode> {
    e.error.as_ref().map(|e| e.code)
}

/// Every entry of a reply, depth first, with its path.
fn all_entries<'a>(f: &'a Folder, at: &str, out: &mut Vec<(String, &'a Entry)>) {
    for e in &f.entries {
        let path = if at.is_empty() {
            e.name.clone()
        } else {
            format!("{at}/{}", e.name)
        };
        out.push((path.clone(), e));
        if let Some(sub) = &e.folder {
            all_entries(sub, &path, out);
        }
    }
}

/// `n` folders of `n` folders of `files` files each: a small bushy tree.
fn bushy(t: &Tree, n: usize, files: usize) {
    for a in 0..n {
        for b in 0..n {
            t.files(&format!("bush/a{a}/b{b}"), "f", files);
        }
    }
}

#[test]
fn the_budget_is_spent_breadth_first_and_unread_folders_say_budget() {
    let t = Tree::new();
    bushy(&t, 5, 3);
    // Levels 1 and 2 show 5 + 25 entries; each level-3 folder needs room
    // for its cap (10) and adds 3: seven fit in 60, eighteen do not.
    let opts = ListOptions {
        depth: 3,
        cap: 10,
        request: budget(60, u64::MAX),
        ..ListOptions::default()
    };
    let l = list(&t.at("bush"), &opts).unwrap();
    let mut all = Vec::new();
    all_entries(folder(&l.root), "", &mut all);
    for a in 0..5 {
        let level2 = child(folder(&l.root), &format!("a{a}"));
        assert_eq!(
            code(level2),
            None,
            "every level-2 folder is read before any level-3 one"
        );
        assert_eq!(folder(level2).total, Some(5));
    }
    let level3: Vec<&(String, &Entry)> = all
        .iter()
        .filter(|(p, _)| p.matches('/').count() == 1)
        .collect();
    let read: Vec<&str> = level3
        .iter()
        .filter(|(_, e)| folder(e).total.is_some())
        .map(|(p, _)| p.as_str())
        .collect();
    assert_eq!(
        read,
        ["a0/b0", "a0/b1", "a0/b2", "a0/b3", "a0/b4", "a1/b0", "a1/b1"],
        "in order, until the budget is spent"
    );
    for (path, e) in &level3 {
        let f = folder(e);
        match f.total {
            Some(total) => {
                assert_eq!(total, 3, "{path}: a folder read is read to its end");
                assert_eq!(
                    f.entries.len() as u64 + f.unlisted.sum(),
                    total,
                    "{path}: counts must add up"
                );
            }
            None => {
                let err = e
                    .error
                    .as_ref()
                    .unwrap_or_else(|| panic!("{path} was neither read nor marked"));
                assert_eq!(err.code, ErrorCode::Budget, "{path}");
                assert!(
                    err.message.contains("entries"),
                    "{path}: the message says which budget: {}",
                    err.message
                );
                assert!(!f.children_loaded);
            }
        }
    }
    assert!(
        all.len() as u64 <= 60,
        "the reply holds {} entries, at most the budget",
        all.len()
    );
}

#[test]
fn a_folder_once_started_is_read_to_its_end_and_the_names_budget_stops_the_next() {
    let t = Tree::new();
    t.files("root/a-big", "f", 1_000);
    t.files("root/b-big", "f", 1_000);
    t.files("root/c-small", "f", 2);
    let opts = ListOptions {
        request: budget(u64::MAX, 500),
        ..ListOptions::default()
    };
    let l = list(&t.at("root"), &opts).unwrap();
    let root = folder(&l.root);
    let big = folder(child(root, "a-big"));
    assert_eq!(
        big.total,
        Some(1_000),
        "started under the budget, read to its end: the count stays exact"
    );
    assert!(!big.count_is_lower_bound);
    for later in ["b-big", "c-small"] {
        let e = child(root, later);
        assert_eq!(code(e), Some(ErrorCode::Budget), "{later}");
        assert!(
            e.error.as_ref().unwrap().message.contains("names"),
            "{later}: {}",
            e.error.as_ref().unwrap().message
        );
    }
}

#[test]
fn the_root_is_never_cut_by_the_entries_or_names_budget() {
    let t = Tree::new();
    t.files("root", "f", 40);
    t.files("root/sub", "g", 2);
    let opts = ListOptions {
        limit: Some(100),
        request: budget(3, 1),
        ..ListOptions::default()
    };
    let l = list(&t.at("root"), &opts).unwrap();
    let root = folder(&l.root);
    assert_eq!(
        root.entries.len(),
        41,
        "the whole page, though it exceeds both budgets"
    );
    assert_eq!(code(&l.root), None);
    assert_eq!(
        code(child(root, "sub")),
        Some(ErrorCode::Budget),
        "below the root the budget holds"
    );
}

#[test]
fn a_default_depth_two_reply_with_a_full_page_is_never_cut() {
    let t = Tree::new_in_memory();
    for d in 0..PAGE {
        t.files(&format!("wide/d{d:03}"), "f", NESTED_CAP as usize + 1);
    }
    let l = list(&t.at("wide"), &ListOptions::default()).unwrap();
    let mut all = Vec::new();
    all_entries(folder(&l.root), "", &mut all);
    assert!(
        all.iter().all(|(_, e)| code(e).is_none()),
        "no folder is cut at the default depth and page"
    );
    assert_eq!(
        all.len() as u64,
        MAX_REPLY_ENTRIES,
        "a page of {PAGE} and {NESTED_CAP} of each folder"
    );
}

#[test]
fn when_the_requests_time_is_spent_the_remaining_folders_say_budget() {
    let t = Tree::new();
    t.files("root/a-slow", "s", 300);
    t.files("root/b", "f", 2);
    t.files("root/c", "f", 2);
    let hooks = IoHooks {
        slow_folder: Some(b"a-slow".to_vec()),
        slow_delay: Duration::from_millis(40),
        slow_stat: None,
    };
    let request = RequestBudget {
        time: Some(Duration::from_millis(150)),
        ..RequestBudget::STANDARD
    };
    let opts = ListOptions {
        hooks,
        request,
        ..ListOptions::default()
    };
    let l = list(&t.at("root"), &opts).unwrap();
    let root = folder(&l.root);
    let slow = child(root, "a-slow");
    assert_eq!(
        code(slow),
        Some(ErrorCode::Timeout),
        "the request's time cuts the folder being read"
    );
    assert!(folder(slow).count_is_lower_bound);
    for later in ["b", "c"] {
        let e = child(root, later);
        assert_eq!(code(e), Some(ErrorCode::Budget), "{later}");
        assert!(
            e.error.as_ref().unwrap().message.contains("time"),
            "{}",
            e.error.as_ref().unwrap().message
        );
    }
}

#[test]
fn the_describe_phase_counts_against_the_folder_budget() {
    let t = Tree::new();
    t.files("root", "f", 5);
    let root = t.at("root");
    let stall = root.clone();
    // The folder is read in time; its entries are examined after the budget.
    let observer: Arc<dyn Observer> = Arc::new(move |p: &std::path::Path, _names: u64| {
        if p == stall {
            std::thread::sleep(Duration::from_millis(150));
        }
    });
    let l = list(
        &root,
        &ListOptions {
            observer: Some(observer.clone()),
            budget: Duration::from_millis(100),
            ..ListOptions::default()
        },
    )
    .unwrap();
    let err = l
        .root
        .error
        .as_ref()
        .expect("the folder says its details were cut short");
    assert_eq!(err.code, ErrorCode::Timeout);
    let f = folder(&l.root);
    assert_eq!(f.entries.len(), 5, "every entry is still shown, by name");
    assert!(
        f.entries.iter().all(|e| e.size.is_none()),
        "none was stat'ed after the budget"
    );
    assert!(!f.count_is_lower_bound, "the count itself is exact");
}

#[test]
fn text_mode_marks_a_folder_not_read_as_budget() {
    let t = Tree::new();
    bushy(&t, 2, 1);
    let opts = ListOptions {
        depth: 3,
        cap: 10,
        request: budget(16, u64::MAX),
        details: false,
        handles: false,
        ..ListOptions::default()
    };
    let l = list(&t.at("bush"), &opts).unwrap();
    let mut out = Vec::new();
    canopy_core::text::write_text(&l, &mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(
        text.contains("[DIR] a0/b1\n[BUDGET] a0/b1\n"),
        "the folder's line, then its code:\n{text}"
    );
}
