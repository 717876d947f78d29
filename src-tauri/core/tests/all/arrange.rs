//! Orders, filters, ignore rules and the rest, one promise each, on folders
//! bigger than the cap or the page so the whole folder has to be looked at.

use crate::common;

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::symlink;
use std::path::Path;
use std::time::{Duration, SystemTime};

use canopy_core::names::encode_handle;
use canopy_core::testing::IoHooks;
use canopy_core::testing::{compare_names, extension};
use canopy_core::wire::RestGroup;
use canopy_core::wire::{EntryKind, Folder, ListSettings, LocateRequest, SortBy};
use canopy_core::ErrorCode;
use common::*;

/// A small deterministic generator, so a fixture's sizes and times are
/// scattered but the same on every run.
fn scatter(i: u64) -> u64 {
    let mut z = i.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

fn sorted(opts: ListOptions) -> ListOptions {
    opts
}

fn with_order(by: SortBy, reverse: bool, depth: u32, cap: u32) -> ListOptions {
    sorted(ListOptions {
        sort: by,
        reverse,
        ..opts(depth, cap)
    })
}

/// `n` files in `rel` with scattered sizes (0..4000 bytes); returns name -> size.
fn sized_files(t: &Tree, rel: &str, n: u64) -> BTreeMap<String, u64> {
    let d = t.dir(rel);
    let mut sizes = BTreeMap::new();
    for i in 0..n {
        let size = scatter(i) % 4000;
        let name = format!("file{i}.bin");
        fs::write(d.join(&name), vec![b'x'; size as usize]).unwrap();
        sizes.insert(name, size);
    }
    sizes
}

/// The names of `sizes` in size order (descending when `reverse`), ties by natural name, ascending.
fn by_size(sizes: &BTreeMap<String, u64>, reverse: bool) -> Vec<String> {
    let mut v: Vec<(&String, &u64)> = sizes.iter().collect();
    v.sort_by(|a, b| {
        let by = if reverse { b.1.cmp(a.1) } else { a.1.cmp(b.1) };
        by.then_with(|| compare_names(a.0.as_bytes(), b.0.as_bytes()))
    });
    v.into_iter().map(|(n, _)| n.clone()).collect()
}

fn owned(f: &Folder) -> Vec<String> {
    names(f).into_iter().map(String::from).collect()
}

#[test]
fn a_size_order_shows_the_largest_of_a_folder_bigger_than_the_cap() {
    let t = Tree::new();
    let sizes = sized_files(&t, "top/big", 350);
    for d in ["b-sub", "a-sub", "c-sub"] {
        t.dir(format!("top/big/{d}"));
    }
    let l = list(&t.at("top"), &with_order(SortBy::Size, true, 2, 100)).unwrap();
    let big = folder(child(folder(&l.root), "big"));
    let shown = owned(big);
    assert_eq!(
        &shown[..3],
        ["a-sub", "b-sub", "c-sub"],
        "folders first, by name, under a size order"
    );
    assert_eq!(
        shown[3..],
        by_size(&sizes, true)[..97],
        "the 97 largest of all 350, largest first"
    );
    assert_eq!(
        (big.total, big.checked, big.partial_order),
        (Some(353), Some(353), false)
    );
    assert_eq!(
        big.entries.len() as u64 + big.unlisted.sum(),
        353,
        "counts must add up"
    );
    // Ascending: the smallest, and the sizes shown are the sizes that ordered them.
    let l = list(&t.at("top"), &with_order(SortBy::Size, false, 2, 100)).unwrap();
    let big = folder(child(folder(&l.root), "big"));
    assert_eq!(owned(big)[3..], by_size(&sizes, false)[..97]);
    let shown_sizes: Vec<u64> = big.entries[3..].iter().map(|e| e.size.unwrap()).collect();
    assert!(
        shown_sizes.windows(2).all(|w| w[0] <= w[1]),
        "{shown_sizes:?}"
    );
}

#[test]
fn a_modified_order_shows_the_newest_of_a_folder_bigger_than_the_cap() {
    let t = Tree::new();
    let d = t.dir("top/logs");
    let base = SystemTime::UNIX_EPOCH + Duration::from_secs(1_600_000_000);
    let mut times = Vec::new();
    for i in 0..300u64 {
        let name = format!("log{i}.txt");
        let p = d.join(&name);
        fs::write(&p, b"").unwrap();
        // Several share a time: they fall back to the name, ascending.
        let secs = scatter(i) % 200;
        fs::File::options()
            .write(true)
            .open(&p)
            .unwrap()
            .set_modified(base + Duration::from_secs(secs))
            .unwrap();
        times.push((secs, name));
    }
    times.sort_by(|a, b| {
        b.0.cmp(&a.0)
            .then_with(|| compare_names(a.1.as_bytes(), b.1.as_bytes()))
    });
    let want: Vec<String> = times.iter().take(100).map(|(_, n)| n.clone()).collect();
    let l = list(&t.at("top"), &with_order(SortBy::Modified, true, 2, 100)).unwrap();
    let logs = folder(child(folder(&l.root), "logs"));
    assert_eq!(
        owned(logs),
        want,
        "the 100 newest of 300, ties by name ascending"
    );
}

#[test]
fn a_type_order_groups_by_extension_then_name() {
    let t = Tree::new();
    for n in [
        "b.TXT", "a.txt", "Makefile", "z.c", ".hidden", "c.tar.gz", "x.", "d.C", "sub.d/",
    ] {
        if let Some(dir) = n.strip_suffix('/') {
            t.dir(format!("top/{dir}"));
        } else {
            t.file(format!("top/{n}"));
        }
    }
    let l = list(&t.at("top"), &with_order(SortBy::Type, false, 1, 100)).unwrap();
    assert_eq!(
        names(folder(&l.root)),
        ["sub.d", ".hidden", "Makefile", "x.", "d.C", "z.c", "c.tar.gz", "a.txt", "b.TXT"]
    );
    let l = list(&t.at("top"), &with_order(SortBy::Type, true, 1, 100)).unwrap();
    assert_eq!(
        names(folder(&l.root)),
        ["sub.d", "a.txt", "b.TXT", "c.tar.gz", "d.C", "z.c", ".hidden", "Makefile", "x."],
        "reversed: extensions backwards, names still ascending"
    );
}

#[test]
fn a_reversed_name_order_is_the_name_order_backwards_folders_still_first() {
    let t = Tree::new();
    t.files("top", "f", 30);
    t.dir("top/dir-a");
    t.dir("top/dir-b");
    let fwd = list(&t.at("top"), &with_order(SortBy::Name, false, 1, 100)).unwrap();
    let rev = list(&t.at("top"), &with_order(SortBy::Name, true, 1, 100)).unwrap();
    let mut files: Vec<String> = owned(folder(&fwd.root))[2..].to_vec();
    files.reverse();
    let r = owned(folder(&rev.root));
    assert_eq!(r[..2], ["dir-b", "dir-a"]);
    assert_eq!(r[2..], files[..]);
}

#[test]
fn cursor_pages_under_a_size_order_walk_every_entry_once_in_order() {
    let t = Tree::new();
    let sizes = sized_files(&t, "top", 1_234);
    let want = by_size(&sizes, true);
    let mut got = Vec::new();
    let mut after = None;
    loop {
        let o = ListOptions {
            after: after.clone(),
            limit: Some(100),
            ..with_order(SortBy::Size, true, 1, 100)
        };
        let l = list(&t.at("top"), &o).unwrap();
        let f = folder(&l.root);
        assert_eq!(
            f.offset as usize,
            got.len(),
            "each page starts where the last ended"
        );
        got.extend(owned(f));
        match l.next_cursor {
            Some(c) => after = Some(c),
            None => break,
        }
    }
    assert_eq!(got, want, "every entry exactly once, in size order");
    // A cursor of this order is refused by another order.
    let l = list(
        &t.at("top"),
        &ListOptions {
            limit: Some(10),
            ..with_order(SortBy::Size, true, 1, 100)
        },
    )
    .unwrap();
    let c = l.next_cursor.unwrap();
    for other in [
        with_order(SortBy::Size, false, 1, 100),
        with_order(SortBy::Name, false, 1, 100),
        with_order(SortBy::Modified, true, 1, 100),
    ] {
        let err = list(
            &t.at("top"),
            &ListOptions {
                after: Some(c.clone()),
                limit: Some(10),
                ..other
            },
        )
        .unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidArgument);
    }
}

#[test]
fn a_deep_page_under_a_size_order_either_way_is_the_same_slice_as_in_the_whole_order() {
    let t = Tree::new_in_memory();
    let sizes = sized_files(&t, "top", 5_000);
    for reverse in [false, true] {
        let want = by_size(&sizes, reverse);
        // Narrowing around the half; from the other end from 2,902 on
        // (2,048 entries or fewer after the page), and 2,901 just before.
        for offset in [
            2_049u64, 2_499, 2_500, 2_501, 2_901, 2_902, 3_500, 4_950, 4_990, 4_999,
        ] {
            let o = ListOptions {
                offset,
                limit: Some(50),
                ..with_order(SortBy::Size, reverse, 1, 100)
            };
            let l = list(&t.at("top"), &o).unwrap();
            let f = folder(&l.root);
            let end = (offset as usize + 50).min(want.len());
            assert_eq!(
                owned(f),
                want[offset as usize..end],
                "offset {offset}, reverse {reverse}"
            );
            assert_eq!(
                (f.offset, f.total),
                (offset, Some(5_000)),
                "offset {offset}, reverse {reverse}"
            );
        }
    }
}

#[test]
fn a_stat_scan_cut_by_the_budget_says_how_many_entries_were_placed() {
    let t = Tree::new();
    sized_files(&t, "top/slow", 300);
    // Every lstat in "slow" takes 5 ms: 300 of them cannot fit in a 600 ms budget.
    let hooks = IoHooks {
        slow_folder: Some(b"slow".to_vec()),
        slow_stat: Some(Duration::from_millis(5)),
        ..IoHooks::default()
    };
    let o = ListOptions {
        hooks,
        budget: Duration::from_millis(600),
        ..with_order(SortBy::Size, true, 1, 100)
    };
    let l = list(&t.at("top/slow"), &o).unwrap();
    let f = folder(&l.root);
    let checked = f.checked.expect("a size order says how many were placed");
    assert!(checked > 0 && checked < 300, "{checked} of 300 placed");
    assert_eq!(
        (f.total, f.count_is_lower_bound),
        (Some(300), false),
        "the names were all counted"
    );
    assert!(f.partial_order, "the order is partial");
    assert!(
        l.next_cursor.is_none(),
        "no cursor continues a partial order"
    );
    // The placed entries come first, largest first; the rest after, by name.
    let sizes: Vec<Option<u64>> = f.entries.iter().map(|e| e.size).collect();
    let placed = sizes
        .iter()
        .take(checked.min(100) as usize)
        .map(|s| s.unwrap())
        .collect::<Vec<_>>();
    assert!(
        placed.windows(2).all(|w| w[0] >= w[1]),
        "placed entries in size order: {placed:?}"
    );
}

/// `n` files `f0001.jpg`, `f0002.png`, ... alternating extensions.
fn photos(t: &Tree, rel: &str, n: u32) -> Vec<String> {
    let d = t.dir(rel);
    let mut all = Vec::new();
    for i in 1..=n {
        let name = format!("F{i:04}.{}", if i % 2 == 0 { "JPG" } else { "png" });
        fs::write(d.join(&name), b"").unwrap();
        all.push(name);
    }
    all.sort_by(|a, b| compare_names(a.as_bytes(), b.as_bytes()));
    all
}

#[test]
fn a_glob_filter_finds_every_match_of_a_folder_bigger_than_a_page_with_exact_counts() {
    let t = Tree::new();
    let all = photos(&t, "top", 1_300);
    t.dir("top/f-folder.jpg");
    let want: Vec<String> = std::iter::once("f-folder.jpg".to_string())
        .chain(all.iter().filter(|n| n.ends_with(".JPG")).cloned())
        .collect();
    let o = ListOptions {
        filter: Some("*.jpg".into()),
        ..opts(1, 100)
    };
    let l = list(&t.at("top"), &o).unwrap();
    let f = folder(&l.root);
    assert_eq!(
        (f.total, f.unfiltered_total),
        (Some(651), Some(1_301)),
        "651 of 1,301 match"
    );
    assert_eq!(
        owned(f),
        want[..500],
        "the first page of the matches, folders first"
    );
    assert_eq!(
        f.entries.len() as u64 + f.unlisted.sum(),
        651,
        "counts add up to the matches"
    );
    let next = list(
        &t.at("top"),
        &ListOptions {
            after: l.next_cursor.clone(),
            ..o.clone()
        },
    )
    .unwrap();
    assert_eq!(
        owned(folder(&next.root)),
        want[500..],
        "the next page holds the rest of the matches"
    );
    assert!(next.next_cursor.is_none());
    // The cursor belongs to this filter.
    let other = ListOptions {
        after: l.next_cursor.clone(),
        filter: Some("*.png".into()),
        ..opts(1, 100)
    };
    assert_eq!(
        list(&t.at("top"), &other).unwrap_err().code,
        ErrorCode::InvalidArgument
    );
}

#[test]
fn a_substring_filter_matches_anywhere_ignoring_case_with_exact_counts() {
    let t = Tree::new();
    let all = photos(&t, "top", 1_300);
    let want: Vec<&String> = all
        .iter()
        .filter(|n| n.to_lowercase().contains("1.p"))
        .collect();
    let o = ListOptions {
        filter: Some("1.P".into()),
        limit: Some(500),
        ..opts(1, 100)
    };
    let l = list(&t.at("top"), &o).unwrap();
    let f = folder(&l.root);
    assert_eq!(f.total, Some(want.len() as u64));
    assert_eq!(f.unfiltered_total, Some(1_300));
    assert_eq!(
        names(f),
        want.iter().map(|s| s.as_str()).collect::<Vec<_>>()
    );
}

#[test]
fn a_filter_applies_to_the_root_only_and_a_bad_one_is_invalid_argument() {
    let t = Tree::new();
    t.file("top/match-me.txt");
    t.file("top/other.txt");
    t.file("top/match-dir/inside.txt");
    let l = list(
        &t.at("top"),
        &ListOptions {
            filter: Some("match".into()),
            ..opts(2, 100)
        },
    )
    .unwrap();
    let f = folder(&l.root);
    assert_eq!(names(f), ["match-dir", "match-me.txt"]);
    assert_eq!(
        names(folder(child(f, "match-dir"))),
        ["inside.txt"],
        "the nested folder is not filtered"
    );
    assert!(folder(child(f, "match-dir")).unfiltered_total.is_none());
    for bad in ["", "a/b"] {
        let err = list(
            &t.at("top"),
            &ListOptions {
                filter: Some(bad.into()),
                ..opts(1, 100)
            },
        )
        .unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidArgument, "{bad:?}");
    }
}

#[test]
fn locate_finds_the_position_a_listing_has_under_every_order_and_filter() {
    let t = Tree::new();
    let sizes = sized_files(&t, "top", 240);
    let _ = sizes;
    t.dir("top/file-dir");
    for (by, reverse, filter) in [
        (SortBy::Name, false, None),
        (SortBy::Name, true, None),
        (SortBy::Size, true, None),
        (SortBy::Size, false, Some("*1*")),
        (SortBy::Modified, false, None),
        (SortBy::Type, true, Some("file2")),
    ] {
        let o = ListOptions {
            limit: None,
            filter: filter.map(String::from),
            ..with_order(by, reverse, 1, 100)
        };
        let all = owned(folder(&list(&t.at("top"), &o).unwrap().root));
        for prefix in ["file1", "FILE23", "file-d", "file239"] {
            let req = LocateRequest {
                folder: encode_handle(&t.at("top")),
                prefix: prefix.into(),
                settings: ListSettings {
                    sort: by,
                    reverse,
                    filter: filter.map(String::from),
                    ..ListSettings::default()
                },
            };
            let hit = locate(&req, &IoHooks::default()).unwrap();
            let first = all
                .iter()
                .position(|n| n.to_lowercase().starts_with(&prefix.to_lowercase()));
            assert_eq!(hit.total, all.len() as u64);
            match first {
                Some(i) => assert_eq!(
                    (hit.index, hit.matched),
                    (i as u64, true),
                    "{by:?} {reverse} {filter:?} {prefix}"
                ),
                None => assert!(!hit.matched, "{by:?} {reverse} {filter:?} {prefix}"),
            }
        }
    }
}

/// A repository: rules at the root, in a subfolder, a negation below, and
/// `.git/info/exclude`.
fn repository(t: &Tree) -> std::path::PathBuf {
    t.repo("repo");
    t.dir("repo/.git/info");
    t.write("repo/.git/info/exclude", b"# local only\nsecret*\n");
    t.write("repo/.gitignore", b"*.log\r\n/build/\nnode_modules\n");
    t.write("repo/src/.gitignore", b"*.tmp\n!keep.log\n");
    t.write("repo/src/deep/.gitignore", b"generated.*\n");
    for f in [
        "a.log",
        "b.txt",
        "secret.key",
        "build/out.o",
        "node_modules/x/y.js",
        "src/main.rs",
        "src/scratch.tmp",
        "src/keep.log",
        "src/other.log",
        "src/build/kept.o",
        "src/deep/generated.rs",
        "src/deep/real.rs",
        "src/deep/z.tmp",
        "src/node_modules/m.js",
    ] {
        t.file(format!("repo/{f}"));
    }
    t.at("repo")
}

fn hidden_by_rules(o: ListOptions, path: &Path) -> canopy_core::wire::Listing {
    list(
        path,
        &ListOptions {
            hide_ignored: true,
            ..o
        },
    )
    .unwrap()
}

#[test]
fn nested_ignore_files_and_info_exclude_hide_what_git_would() {
    let t = Tree::new();
    let repo = repository(&t);
    let l = hidden_by_rules(opts(3, 100), &repo);
    let root = folder(&l.root);
    assert_eq!(names(root), ["src", ".gitignore", "b.txt"]);
    assert_eq!(
        root.ignored_hidden, 5,
        ".git, a.log, secret.key (info/exclude), build/, node_modules"
    );
    let src = folder(child(root, "src"));
    assert_eq!(
        names(src),
        ["build", "deep", ".gitignore", "keep.log", "main.rs"],
        "/build/ is anchored at the root; !keep.log re-includes"
    );
    assert_eq!(
        src.ignored_hidden, 3,
        "scratch.tmp, other.log, node_modules"
    );
    let deep = folder(child(src, "deep"));
    assert_eq!(names(deep), [".gitignore", "real.rs"]);
    assert_eq!(
        deep.ignored_hidden, 2,
        "generated.rs (its own file) and z.tmp (its parent's)"
    );
    // Without the setting nothing is hidden or counted.
    let all = list(&repo, &opts(1, 100)).unwrap();
    assert_eq!(
        (folder(&all.root).total, folder(&all.root).ignored_hidden),
        (Some(8), 0)
    );
    // The listed folder's own rules come from the repository's root down.
    let l = hidden_by_rules(opts(1, 100), &t.at("repo/src/deep"));
    assert_eq!(names(folder(&l.root)), [".gitignore", "real.rs"]);
}

#[test]
fn inside_an_ignored_folder_every_entry_is_ignored_and_outside_a_repository_none() {
    let t = Tree::new();
    let repo = repository(&t);
    let l = hidden_by_rules(opts(1, 100), &repo.join("build"));
    let f = folder(&l.root);
    assert_eq!(
        (f.total, f.ignored_hidden),
        (Some(0), 1),
        "the folder that looks empty says why"
    );
    let plain = Tree::new();
    plain.write("loose/.gitignore", b"*\n");
    plain.file("loose/a.txt");
    let l = hidden_by_rules(opts(1, 100), &plain.at("loose"));
    assert_eq!(
        folder(&l.root).total,
        Some(2),
        "no repository: git ignores nothing"
    );
}

#[test]
fn a_folder_holding_git_starts_its_own_repositorys_rules() {
    let t = Tree::new();
    t.write("outer/.gitignore", b"*.md\n");
    t.repo("outer");
    t.write("outer/inner/.gitignore", b"*.txt\n");
    t.repo("outer/inner");
    t.file("outer/inner/read.md");
    t.file("outer/inner/notes.txt");
    let l = hidden_by_rules(opts(2, 100), &t.at("outer"));
    let inner = folder(child(folder(&l.root), "inner"));
    assert_eq!(
        names(inner),
        [".gitignore", "read.md"],
        "the outer *.md does not reach into another repository"
    );
}

#[test]
fn an_ignore_file_that_is_a_fifo_or_a_link_is_never_opened_and_says_so() {
    let t = Tree::new();
    t.repo("repo");
    t.dir("repo/fifo");
    t.fifo("repo/fifo/.gitignore");
    t.file("repo/fifo/a.txt");
    t.dir("repo/link");
    symlink("/dev/zero", t.at("repo/link/.gitignore")).unwrap();
    t.file("repo/link/b.txt");
    let writer = BlockedWriter::on(&t.at("repo/fifo/.gitignore"));
    let l = hidden_by_rules(opts(2, 100), &t.at("repo"));
    assert!(
        writer.still_blocked(),
        "the fifo named .gitignore was never opened"
    );
    let root = folder(&l.root);
    for (name, inside) in [("fifo", "a.txt"), ("link", "b.txt")] {
        let e = child(root, name);
        let err = e
            .error
            .as_ref()
            .unwrap_or_else(|| panic!("{name} says its .gitignore was not used"));
        assert_eq!(err.code, ErrorCode::NotAFile, "{name}: {}", err.message);
        assert!(
            names(folder(e)).contains(&inside),
            "its entries are still listed"
        );
    }
}

#[test]
fn every_unusable_ignore_file_of_a_repository_is_counted_in_its_error() {
    let t = Tree::new();
    t.repo("top/repo");
    t.dir("top/repo/.git/info");
    symlink("/dev/zero", t.at("top/repo/.git/info/exclude")).unwrap();
    t.dir("top/repo/.gitignore");
    t.file("top/repo/a.txt");
    let says_both = |e: Option<&canopy_core::CanopyError>, how: &str| {
        let e = e
            .unwrap_or_else(|| panic!("{how}: the repository says its ignore files were not used"));
        assert!(
            e.message
                .contains("(and 1 more ignore file could not be used)"),
            "{how}: {}",
            e.message
        );
    };
    // Reached from above (a repository inside the listing) and listed as the root.
    let above = hidden_by_rules(opts(2, 100), &t.at("top"));
    says_both(
        child(folder(&above.root), "repo").error.as_ref(),
        "below the root",
    );
    let root = hidden_by_rules(opts(1, 100), &t.at("top/repo"));
    says_both(root.root.error.as_ref(), "as the root");
}

#[test]
fn an_ignore_file_over_the_cap_is_not_used_and_says_too_large() {
    let t = Tree::new();
    t.repo("repo");
    let mut big = b"*.txt\n".to_vec();
    big.resize(
        canopy_core::limits::MAX_IGNORE_FILE_BYTES as usize + 1,
        b'#',
    );
    t.write("repo/sub/.gitignore", &big);
    t.file("repo/sub/a.txt");
    let l = hidden_by_rules(opts(2, 100), &t.at("repo"));
    let sub = child(folder(&l.root), "sub");
    assert_eq!(
        sub.error.as_ref().map(|e| e.code),
        Some(ErrorCode::TooLarge)
    );
    assert!(
        names(folder(sub)).contains(&"a.txt"),
        "its rules are not used"
    );
}

/// `n` distinct ignore rules that match nothing the tests create, then `*.txt`.
fn many_rules(n: usize) -> Vec<u8> {
    let mut text = Vec::new();
    for i in 0..n - 1 {
        text.extend_from_slice(format!("*x{i}y*z\n").as_bytes());
    }
    text.extend_from_slice(b"*.txt\n");
    text
}

#[test]
fn an_ignore_file_with_more_rules_than_a_listing_compiles_says_too_large_never_silently() {
    // 60,000 globs fit in 1 MiB; compiled they took 500 MB, or failed to
    // compile and were dropped without a word (a.txt shown, no error).
    let t = Tree::new();
    t.repo("repo");
    t.write("repo/sub/.gitignore", &many_rules(60_000));
    t.file("repo/sub/a.txt");
    t.write("repo/fits/.gitignore", &many_rules(100));
    t.file("repo/fits/b.txt");
    let l = hidden_by_rules(opts(2, 100), &t.at("repo"));
    let sub = child(folder(&l.root), "sub");
    let err = sub
        .error
        .as_ref()
        .expect("the folder says its rules were not used");
    assert_eq!(err.code, ErrorCode::TooLarge, "{}", err.message);
    assert!(
        names(folder(sub)).contains(&"a.txt"),
        "its rules are not used, so nothing is hidden by them"
    );
    let fits = child(folder(&l.root), "fits");
    assert!(
        fits.error.is_none() && !names(folder(fits)).contains(&"b.txt"),
        "a file within the budget still applies"
    );
}

#[test]
fn the_rule_budget_counts_the_rules_of_one_folders_chain_not_the_whole_listing() {
    // As github/gitignore's templates, each in a folder of its own: every
    // folder's rules fit, all of them together do not. Listed in one go,
    // each folder must still hide what its own rules name.
    let t = Tree::new();
    t.repo("repo");
    let most = canopy_core::limits::MAX_IGNORE_RULES * 3 / 5;
    let folders: Vec<String> = (0..12).map(|i| format!("t{i:02}")).collect();
    for name in &folders {
        t.write(format!("repo/{name}/.gitignore"), &many_rules(most));
        t.file(format!("repo/{name}/x.txt"));
        t.file(format!("repo/{name}/kept.md"));
    }
    let l = hidden_by_rules(opts(2, 100), &t.at("repo"));
    for name in &folders {
        let f = child(folder(&l.root), name);
        assert!(
            f.error.is_none(),
            "{name}: its chain (the root's rules and its own) fits: {:?}",
            f.error
        );
        assert_eq!(
            names(folder(f)),
            [".gitignore", "kept.md"],
            "{name}: its own rules hide x.txt"
        );
    }
}

/// `n - 1` distinct rules that match nothing the tests create, then `last`.
fn filler_then(n: usize, last: &[u8]) -> Vec<u8> {
    let mut text = many_rules(n);
    text.truncate(text.len() - b"*.txt\n".len());
    text.extend_from_slice(last);
    text.push(b'\n');
    text
}

#[test]
fn a_chain_of_ignore_files_over_the_budget_says_too_large_wherever_the_listing_starts() {
    // One folder's chain: the root's rules, then a/, a/b/ and a/b/c/. Each
    // file fits alone; c's chain does not, however the folder is reached.
    let t = Tree::new();
    t.repo("repo");
    let most = canopy_core::limits::MAX_IGNORE_RULES * 3 / 5;
    t.write("repo/a/.gitignore", &filler_then(most, b"/x.txt"));
    t.write("repo/a/b/.gitignore", b"*.md\n");
    t.write("repo/a/b/c/.gitignore", &filler_then(most, b"*.c"));
    for f in [
        "a/x.txt",
        "a/b/y.md",
        "a/b/c/x.txt",
        "a/b/c/y.md",
        "a/b/c/z.c",
    ] {
        t.file(format!("repo/{f}"));
    }
    let from_top = hidden_by_rules(opts(4, 100), &t.at("repo"));
    let a = child(folder(&from_top.root), "a");
    let b = child(folder(a), "b");
    let c = child(folder(b), "c");
    let as_root = hidden_by_rules(opts(1, 100), &t.at("repo/a/b/c"));
    for (how, err, shown) in [
        ("below the root", c.error.as_ref(), names(folder(c))),
        (
            "as the root",
            as_root.root.error.as_ref(),
            names(folder(&as_root.root)),
        ),
    ] {
        let err = err.unwrap_or_else(|| panic!("{how}: c's chain is over the budget"));
        assert_eq!(err.code, ErrorCode::TooLarge, "{how}: {}", err.message);
        assert!(
            err.message.contains("a/b/c/.gitignore"),
            "{how}: the error names the file not used: {}",
            err.message
        );
        assert_eq!(
            shown,
            [".gitignore", "x.txt", "z.c"],
            "{how}: c's own rules (*.c) are not used; b's (*.md) still are"
        );
    }
    assert!(
        a.error.is_none() && b.error.is_none(),
        "a's and b's chains fit: {:?} {:?}",
        a.error,
        b.error
    );
    assert_eq!(
        names(folder(a)),
        ["b", ".gitignore"],
        "a's rules hide x.txt"
    );
}

#[test]
fn info_exclude_reached_through_a_symlink_is_used_as_git_does() {
    // Git follows a symlinked .git/info/exclude (and global file); only a
    // .gitignore in the worktree is never followed. A link to a device is
    // still never opened.
    let t = Tree::new();
    t.repo("repo");
    t.dir("repo/.git/info");
    t.write("rules/exclude", b"*.log\n");
    t.symlink("../../../rules/exclude", "repo/.git/info/exclude");
    t.file("repo/a.log");
    t.file("repo/b.txt");
    let l = hidden_by_rules(opts(1, 100), &t.at("repo"));
    let root = folder(&l.root);
    assert!(l.root.error.is_none(), "{:?}", l.root.error);
    assert_eq!(
        (names(root), root.ignored_hidden),
        (vec!["b.txt"], 2),
        "a.log and .git"
    );
    fs::remove_file(t.at("repo/.git/info/exclude")).unwrap();
    t.symlink("/dev/zero", "repo/.git/info/exclude");
    let l = hidden_by_rules(opts(1, 100), &t.at("repo"));
    assert_eq!(
        l.root.error.as_ref().map(|e| e.code),
        Some(ErrorCode::NotAFile)
    );
}

#[test]
fn a_byte_order_mark_before_the_first_rule_is_skipped_as_git_does() {
    let t = Tree::new();
    t.repo("repo");
    t.write("repo/.gitignore", b"\xef\xbb\xbf*.log\n*.tmp\n");
    for f in ["a.log", "b.tmp", "c.txt"] {
        t.file(format!("repo/{f}"));
    }
    let l = hidden_by_rules(opts(1, 100), &t.at("repo"));
    assert_eq!(
        names(folder(&l.root)),
        [".gitignore", "c.txt"],
        "the first rule, *.log, applies"
    );
}

/// The names git keeps in a repository whose `.gitignore` is `rules`, of `files`.
fn kept_by(rules: &[u8], files: &[&[u8]]) -> Vec<String> {
    let t = Tree::new();
    t.repo("repo");
    t.write("repo/.gitignore", rules);
    for f in files {
        let mut path = b"repo/".to_vec();
        path.extend_from_slice(f);
        t.file(path);
    }
    let l = hidden_by_rules(opts(1, 100), &t.at("repo"));
    assert!(l.root.error.is_none(), "{:?}", l.root.error);
    names(folder(&l.root))
        .into_iter()
        .filter(|n| *n != ".git" && *n != ".gitignore")
        .map(String::from)
        .collect()
}

#[test]
fn braces_and_commas_in_a_rule_are_literal_as_in_git() {
    let files: &[&[u8]] = &[b"p.jpg", b"p.png", b"p.{jpg,png}", b"br{ace", b"brace"];
    assert_eq!(
        kept_by(b"*.{jpg,png}\nbr{ace\n", files),
        ["brace", "p.jpg", "p.png"],
        "only the names with the braces themselves"
    );
}

#[test]
fn a_rule_with_an_unclosed_bracket_matches_nothing_as_in_git() {
    let files: &[&[u8]] = &[b"[unclosed", b"[", b"unclosed", b"u"];
    assert_eq!(
        kept_by(b"[unclosed\n[\n", files),
        ["[", "[unclosed", "u", "unclosed"]
    );
}

#[test]
fn a_backslash_inside_brackets_escapes_as_in_git() {
    let files: &[&[u8]] = &[
        b"]x", b"\\]x", b"-cls", b"acls", b"zcls", b"bcls", b"\\cls", b"ss\\", b"ss!",
    ];
    let kept = kept_by(b"[\\]]x\n[a\\-z]cls\nss[\\!]\n", files);
    assert_eq!(
        kept,
        ["\\]x", "\\cls", "bcls", "ss\\"],
        "]x, -cls, acls, zcls and ss! are ignored"
    );
}

#[test]
fn a_nul_byte_ends_a_rule_and_a_rule_need_not_be_utf8() {
    let files: &[&[u8]] = &[b"nul", b"nultail", b"caf\xe9.log", b"cafe.log"];
    assert_eq!(
        kept_by(b"nul\0tail\ncaf\xe9*\n", files),
        ["cafe.log", "nultail"],
        "git matches a rule's bytes as they are"
    );
}

/// 100 names of 24 random lowercase letters, the same on every run.
fn random_names() -> Vec<String> {
    (0..100u64)
        .map(|i| {
            (0..24u64)
                .map(|j| (b'a' + (scatter(i * 24 + j) % 26) as u8) as char)
                .collect()
        })
        .collect()
}

/// True when `name` holds the bytes of `letters` in that order (what `*l*e*t*...*` matches).
fn holds_in_order(name: &str, letters: &[u8]) -> bool {
    let mut rest = letters.iter().peekable();
    for b in name.bytes() {
        if rest.peek() == Some(&&b) {
            rest.next();
        }
    }
    rest.peek().is_none()
}

#[test]
fn thousands_of_star_heavy_rules_hide_what_they_match_within_the_folders_budget() {
    // Issue 16's attack: 5,000 rules like *e*s*c*i*d*p*o*u*m*g*v* (120 kB, within
    // the rule budget) over 100 random names. Compiled as regular expressions
    // they took 3.1 GB and ended TIMEOUT; matched without backtracking they
    // cost at most (tokens + 2) steps a byte of a name.
    let t = Tree::new();
    t.repo("repo");
    let mut rules = Vec::new();
    let mut letter_sets = Vec::new();
    for i in 0..5_000u64 {
        let letters: Vec<u8> = (0..11)
            .map(|j| b'a' + (scatter(1_000_000 + i * 11 + j) % 26) as u8)
            .collect();
        for &l in &letters {
            rules.push(b'*');
            rules.push(l);
        }
        rules.extend_from_slice(b"*\n");
        letter_sets.push(letters);
    }
    assert!(rules.len() > 110_000 && rules.len() <= canopy_core::limits::MAX_IGNORE_RULE_BYTES);
    t.write("repo/big/.gitignore", &rules);
    let names = random_names();
    for n in &names {
        t.file(format!("repo/big/{n}"));
    }
    let matched = names
        .iter()
        .filter(|n| letter_sets.iter().any(|l| holds_in_order(n, l)))
        .count();
    let l = hidden_by_rules(opts(1, 200), &t.at("repo/big"));
    let f = folder(&l.root);
    assert!(
        l.root.error.is_none(),
        "no TIMEOUT, no TOO_LARGE: {:?}",
        l.root.error
    );
    assert_eq!(
        f.ignored_hidden as usize, matched,
        "exactly the names some rule matches are hidden"
    );
    assert_eq!(
        f.total,
        Some((names.len() + 1 - matched) as u64),
        "the rest and .gitignore are shown"
    );
}

#[test]
fn matching_that_outlasts_the_folders_deadline_stops_itself_and_says_timeout() {
    let _alone = stuck_calls_alone();
    // 4,000 distinct rules that every name nearly matches (ten a's, then a
    // class without a; anchored by their `/`, so their stars stop at `/` and
    // the automaton runs): each of 100 names costs millions of steps. Matching
    // checks the deadline as it goes, so the folder's own read ends with
    // TIMEOUT and its worker returns; were it not checked, the worker would
    // be left behind still matching ("not responding", a stuck thread).
    let t = Tree::new();
    t.repo("repo");
    let mut rules = Vec::new();
    for i in 0..4_000u32 {
        let class: String = [i % 25, i / 25 % 25, i / 625]
            .iter()
            .map(|&k| (b'b' + k as u8) as char)
            .collect();
        rules.extend_from_slice(format!("/*a*a*a*a*a*a*a*a*a*a[{class}]\n").as_bytes());
    }
    t.write("repo/.gitignore", &rules);
    for i in 0..100 {
        t.file(format!("repo/b{i:03}{}", "a".repeat(240)));
    }
    let quick = ListOptions {
        hide_ignored: true,
        budget: Duration::from_millis(300),
        ..opts(1, 100)
    };
    let l = list(&t.at("repo"), &quick).unwrap();
    let err = l
        .root
        .error
        .as_ref()
        .expect("the folder says it was cut short");
    assert_eq!(err.code, ErrorCode::Timeout, "{}", err.message);
    assert!(
        err.message.contains("took longer than"),
        "its own read timed out, not a worker left behind: {}",
        err.message
    );
    assert!(folder(&l.root).count_is_lower_bound);
    assert_eq!(
        canopy_core::testing::Pool::global().stuck_threads(),
        0,
        "no worker is left matching"
    );
}

#[test]
fn an_ignore_file_that_would_compile_past_the_budget_says_too_large_with_its_path() {
    // 5,000 distinct rules of eight classes each: within the rule count and
    // text budget, but 32 bytes a class compiled.
    let t = Tree::new();
    t.repo("repo");
    let mut rules = Vec::new();
    for i in 0..5_000u32 {
        let [x, y, z] = [i % 26, i / 26 % 26, i / 676].map(|k| (b'a' + k as u8) as char);
        rules.extend_from_slice(format!("[a][b][c][d][e][{x}][{y}][{z}]\n").as_bytes());
    }
    assert!(rules.len() <= canopy_core::limits::MAX_IGNORE_RULE_BYTES);
    t.write("repo/.gitignore", &rules);
    t.file("repo/abcdefgh");
    let l = hidden_by_rules(opts(1, 100), &t.at("repo"));
    let err = l
        .root
        .error
        .as_ref()
        .expect("the folder says its rules were not used");
    assert_eq!(err.code, ErrorCode::TooLarge, "{}", err.message);
    let path = t.at("repo/.gitignore");
    assert!(
        err.message.contains(&*path.to_string_lossy()),
        "the message names the file: {}",
        err.message
    );
    assert!(
        names(folder(&l.root)).contains(&"abcdefgh"),
        "its rules are not used"
    );
}

// What git takes for a repository (setup.c's `is_git_directory` and
// `read_gitfile`): a `.git` folder holding HEAD, objects and refs, or a
// `.git` file saying `gitdir: PATH` of one. Any other `.git` git passes over,
// and the rules of the repository around keep applying. Each verdict is
// also asked of git itself.

#[test]
fn an_empty_git_folder_below_a_repository_does_not_start_one() {
    let t = Tree::new();
    let repo = t.at("r");
    git_init(&repo);
    t.write("r/.gitignore", b"build/\n");
    t.dir("r/a/.git");
    t.file("r/a/build/x");
    t.file("r/a/keep.c");
    assert!(
        git_ignores(&repo, "a/build/x"),
        "git: the root's build/ reaches a/build"
    );
    let l = hidden_by_rules(opts(3, 100), &repo);
    let a = folder(child(folder(&l.root), "a"));
    assert_eq!(
        (names(a), a.ignored_hidden),
        (vec!["keep.c"], 2),
        "build and .git hidden"
    );
}

#[test]
fn a_dangling_git_link_below_a_repository_does_not_start_one() {
    let t = Tree::new();
    let repo = t.at("r");
    git_init(&repo);
    t.write("r/.gitignore", b"*.o\n");
    t.dir("r/a");
    t.symlink("nowhere", "r/a/.git");
    t.file("r/a/x.o");
    t.file("r/a/y.c");
    assert!(git_ignores(&repo, "a/x.o"));
    let l = hidden_by_rules(opts(2, 100), &repo);
    assert_eq!(names(folder(child(folder(&l.root), "a"))), ["y.c"]);
}

#[test]
fn a_git_file_starts_a_repository_only_when_its_gitdir_names_one() {
    let t = Tree::new();
    let repo = t.at("r");
    git_init(&repo);
    git_init(&t.at("other"));
    t.write("r/.gitignore", b"*.o\n");
    // A worktree's or a submodule's `.git`: a file naming the repository, relative to its folder.
    t.write("r/c/.git", b"gitdir: ../../other/.git\n");
    t.write("r/c/.gitignore", b"*.txt\n");
    t.file("r/c/x.o");
    t.file("r/c/y.txt");
    // One naming nothing, and one naming a folder that is no repository.
    t.write("r/d/.git", b"gitdir: ../nowhere\n");
    t.file("r/d/x.o");
    t.dir("r/empty");
    t.write("r/e/.git", b"gitdir: ../empty\n");
    t.file("r/e/x.o");
    assert_eq!(
        (
            git_ignores(&t.at("r/c"), "x.o"),
            git_ignores(&t.at("r/c"), "y.txt")
        ),
        (false, true),
        "git in c: c's rules alone"
    );
    assert!(git_ignores(&repo, "d/x.o") && git_ignores(&repo, "e/x.o"));
    let l = hidden_by_rules(opts(2, 100), &repo);
    let root = folder(&l.root);
    assert_eq!(
        names(folder(child(root, "c"))),
        [".gitignore", "x.o"],
        "the outer *.o does not reach into another repository"
    );
    assert_eq!(
        names(folder(child(root, "d"))),
        Vec::<&str>::new(),
        "d/.git names nothing: the outer *.o applies"
    );
    assert_eq!(
        names(folder(child(root, "e"))),
        Vec::<&str>::new(),
        "e/.git names no repository: the outer *.o applies"
    );
}

#[test]
fn a_worktree_whose_own_folder_has_no_refs_is_a_repository_through_its_commondir() {
    // What git 2.39 (Debian 12) leaves for `git worktree add`: the worktree's
    // folder holds HEAD and `commondir`, while objects and refs are only in
    // the common folder it names.
    let t = Tree::new();
    let repo = t.repo("r");
    t.write("r/.gitignore", b"*.o\n");
    let main = t.repo("main");
    t.write("main/.git/worktrees/wt/HEAD", b"ref: refs/heads/wt\n");
    t.write("main/.git/worktrees/wt/commondir", b"../..\n");
    t.write(
        "r/wt/.git",
        format!("gitdir: {}\n", main.join(".git/worktrees/wt").display()).as_bytes(),
    );
    t.file("r/wt/x.o");
    let l = hidden_by_rules(opts(2, 100), &repo);
    assert_eq!(
        names(folder(child(folder(&l.root), "wt"))),
        ["x.o"],
        "wt is its own repository: r's *.o does not reach it"
    );
}

#[test]
fn a_worktree_is_a_repository_of_its_own() {
    // `git worktree add`: the worktree's `.git` file names
    // `.git/worktrees/NAME`, which has `commondir` in place of `objects`.
    let t = Tree::new();
    let repo = t.at("r");
    git_init(&repo);
    t.write("r/.gitignore", b"*.o\n");
    let other = t.at("other");
    git_init(&other);
    let ok = |o: std::process::Output| {
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr))
    };
    ok(git_in(&other)
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "commit",
            "-q",
            "--allow-empty",
            "-m",
            "x",
        ])
        .output()
        .unwrap());
    ok(git_in(&other)
        .args(["worktree", "add", "-q", "../r/wt"])
        .output()
        .unwrap());
    t.file("r/wt/x.o");
    assert!(
        !git_ignores(&t.at("r/wt"), "x.o"),
        "git in wt: the worktree's own rules, not r's"
    );
    let l = hidden_by_rules(opts(2, 100), &repo);
    assert_eq!(names(folder(child(folder(&l.root), "wt"))), ["x.o"]);
    let l = hidden_by_rules(opts(1, 100), &t.at("r/wt"));
    assert_eq!(
        names(folder(&l.root)),
        ["x.o"],
        "listed itself, wt is its own repository's root"
    );
}

#[test]
fn an_invalid_git_above_the_listed_folder_is_passed_over_for_the_repository_above() {
    let t = Tree::new();
    let repo = t.at("r");
    git_init(&repo);
    t.write("r/.gitignore", b"*.o\n");
    t.dir("r/mid/.git");
    t.file("r/mid/sub/x.o");
    t.file("r/mid/sub/y.c");
    t.symlink("nowhere", "r/mid/sub/.git");
    assert!(
        git_ignores(&t.at("r/mid/sub"), "x.o"),
        "git run in sub passes over sub and mid and finds r"
    );
    let l = hidden_by_rules(opts(1, 100), &t.at("r/mid/sub"));
    assert_eq!(names(folder(&l.root)), ["y.c"]);
}

#[test]
fn a_fifo_named_git_does_not_make_a_repository() {
    let t = Tree::new();
    t.repo("repo");
    t.write("repo/.gitignore", b"*.o\n");
    t.file("repo/sub/x.o");
    t.fifo("repo/sub/.git");
    t.file("repo/sub/y.c");
    t.write("loose/.gitignore", b"*.o\n");
    t.fifo("loose/.git");
    t.file("loose/a.o");
    let l = hidden_by_rules(opts(2, 100), &t.at("repo"));
    let sub = folder(child(folder(&l.root), "sub"));
    assert_eq!(
        names(sub),
        ["y.c"],
        "the repository's *.o still reaches into sub, and git never lists an entry named .git"
    );
    let l = hidden_by_rules(opts(1, 100), &t.at("loose"));
    assert_eq!(
        names(folder(&l.root)),
        [".git", ".gitignore", "a.o"],
        "no repository: nothing is ignored"
    );
}

#[test]
fn hiding_ignored_entries_hides_git_itself_and_counts_it() {
    let t = Tree::new();
    let repo = repository(&t);
    let l = hidden_by_rules(opts(1, 100), &repo);
    let root = folder(&l.root);
    assert!(
        !names(root).contains(&".git"),
        "as VS Code's files.exclude hides it: {:?}",
        names(root)
    );
    let shown = list(&repo, &opts(1, 100)).unwrap();
    assert_eq!(
        folder(&shown.root).total.unwrap(),
        root.total.unwrap() + root.ignored_hidden,
        "every entry is shown or counted as ignored, .git among them"
    );
}

#[test]
fn inside_git_itself_no_ignore_rule_applies() {
    let t = Tree::new();
    let repo = repository(&t);
    t.file("repo/.git/debug.log");
    t.file("repo/.git/info/secret.key");
    let l = hidden_by_rules(opts(2, 100), &repo.join(".git"));
    let git = folder(&l.root);
    assert_eq!(
        (names(git), git.ignored_hidden),
        (vec!["info", "objects", "refs", "debug.log", "HEAD"], 0),
        "*.log does not reach into .git"
    );
    assert_eq!(
        names(folder(child(git, "info"))),
        ["exclude", "secret.key"],
        "nor does info/exclude's secret*"
    );
}

#[test]
fn ignored_entries_change_the_cursor_and_locate_alike() {
    let t = Tree::new();
    let repo = repository(&t);
    let l = list(
        &repo,
        &ListOptions {
            hide_ignored: true,
            limit: Some(2),
            ..opts(1, 100)
        },
    )
    .unwrap();
    let c = l.next_cursor.unwrap();
    let err = list(
        &repo,
        &ListOptions {
            after: Some(c),
            limit: Some(2),
            ..opts(1, 100)
        },
    )
    .unwrap_err();
    assert_eq!(
        err.code,
        ErrorCode::InvalidArgument,
        "a cursor made hiding ignored entries is refused by a request that shows them"
    );
    let req = LocateRequest {
        folder: encode_handle(&repo),
        prefix: "b".into(),
        settings: ListSettings {
            hide_ignored: true,
            ..ListSettings::default()
        },
    };
    let hit = locate(&req, &IoHooks::default()).unwrap();
    assert_eq!(
        (hit.index, hit.total),
        (2, 3),
        "b.txt is 3rd of the 3 entries git keeps"
    );
}

#[test]
fn the_rest_of_a_truncated_folder_is_counted_by_group() {
    let t = Tree::new();
    for i in 0..443 {
        t.file(format!("top/photos/img_{i:04}.jpg"));
    }
    for i in 0..12 {
        t.file(format!("top/photos/meta{i}.JSON"));
    }
    for i in 0..3 {
        t.dir(format!("top/photos/album{i}"));
    }
    t.file("top/photos/README");
    let l = list(&t.at("top"), &opts(2, 100)).unwrap();
    let photos = folder(child(folder(&l.root), "photos"));
    // Shown: 3 folders and img_0000..img_0096.
    assert_eq!(
        photos.rest,
        [
            RestGroup::Extension {
                extension: "jpg".into(),
                count: 346
            },
            RestGroup::Extension {
                extension: "json".into(),
                count: 12
            },
            RestGroup::NoExtension { count: 1 }
        ]
    );
    let sum: u64 = photos.rest.iter().map(RestGroup::count).sum();
    assert_eq!(
        sum,
        photos.unlisted.sum(),
        "the groups add up to what is hidden"
    );
    // After "Show next" from the cursor, the rest is what follows that page.
    let page = list(
        &t.at("top/photos"),
        &ListOptions {
            limit: Some(100),
            ..opts(1, 100)
        },
    )
    .unwrap();
    let next = list(
        &t.at("top/photos"),
        &ListOptions {
            after: page.next_cursor,
            limit: Some(100),
            ..opts(1, 100)
        },
    )
    .unwrap();
    let groups = &folder(&next.root).rest;
    assert_eq!(
        groups[0],
        RestGroup::Extension {
            extension: "jpg".into(),
            count: 246
        }
    );
    assert_eq!(groups.iter().map(RestGroup::count).sum::<u64>(), 459 - 200);
    // A whole folder shown has no rest.
    assert!(folder(
        &list(
            &t.at("top/photos"),
            &ListOptions {
                limit: Some(1000),
                ..opts(1, 100)
            }
        )
        .unwrap()
        .root
    )
    .rest
    .is_empty());
}

#[test]
fn the_rest_names_five_groups_and_counts_the_others_together() {
    let t = Tree::new();
    for (ext, n) in [
        ("a", 9),
        ("b", 8),
        ("c", 7),
        ("d", 6),
        ("e", 5),
        ("f", 4),
        ("g", 3),
    ] {
        for i in 0..n {
            t.file(format!("top/x{i}.{ext}"));
        }
    }
    let l = list(
        &t.at("top"),
        &ListOptions {
            limit: Some(1),
            ..opts(1, 100)
        },
    )
    .unwrap();
    let labels: Vec<String> = folder(&l.root).rest.iter().map(RestGroup::label).collect();
    // x0.a is shown; 41 follow.
    assert_eq!(labels, ["8 .a", "8 .b", "7 .c", "6 .d", "5 .e", "7 other"]);
    let _ = extension(b"x.a");
}

#[test]
fn kinds_expandability_and_previewability_come_from_the_engine() {
    let t = Tree::new();
    t.file("top/f.txt");
    t.dir("top/d");
    symlink("d", t.at("top/to-dir")).unwrap();
    symlink("f.txt", t.at("top/to-file")).unwrap();
    symlink("nowhere", t.at("top/dangling")).unwrap();
    t.fifo("top/pipe");
    let l = list(&t.at("top"), &opts(1, 100)).unwrap();
    let f = folder(&l.root);
    let flags = |n: &str| (child(f, n).can_expand, child(f, n).can_preview);
    assert_eq!(flags("d"), (true, false));
    assert_eq!(flags("f.txt"), (false, true));
    assert_eq!(flags("to-dir"), (true, false));
    assert_eq!(flags("to-file"), (false, true));
    assert_eq!(flags("dangling"), (false, false));
    assert_eq!(flags("pipe"), (false, false));
    assert_eq!((f.kinds.folders, f.kinds.files, f.kinds.other), (1, 1, 4));
    assert!(child(f, "pipe").kind == EntryKind::Fifo);
}
