//! Folder sizes: every reported folder's figures are `du -sB1 -x` and
//! `du -sb -x` on that folder alone; what could not be counted makes its
//! ancestors lower bounds, with the reason.
use crate::common;
use crate::deadfs;

use std::cell::Cell;
use std::fs;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use canopy_core::cancel::CancelToken;
use canopy_core::names::decode_handle;
use canopy_core::testing::IoHooks;
use canopy_core::wire::{ErrorCode, FolderSizeReport, SizesProgress, SizesReport};
use canopy_core::{peak_nodes, sizes, LocalFs, Reported, SizesBudget, SizesCall};
use common::{is_root, stuck_calls_alone, Tree};
use proptest::prelude::*;

/// `du -s -x` in bytes: disk usage (`-B1`) or apparent (`-b`).
fn du(path: &Path, apparent: bool) -> u64 {
    let out = Command::new("du")
        .args(["-s", "-x", if apparent { "-b" } else { "-B1" }])
        .arg(path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "du failed on {}: {:?}",
        path.display(),
        out
    );
    let text = String::from_utf8_lossy(&out.stdout);
    text.split_whitespace().next().unwrap().parse().unwrap()
}

fn count(root: &Path, depth: u32) -> SizesReport {
    sizes(
        &LocalFs::new(),
        root,
        &SizesCall {
            report: Reported::Depth(depth),
            ..SizesCall::default()
        },
        None,
        None,
    )
    .unwrap()
}

fn every(report: &SizesReport) -> Vec<&FolderSizeReport> {
    std::iter::once(&report.root)
        .chain(&report.folders)
        .collect()
}

fn path_of(f: &FolderSizeReport) -> PathBuf {
    decode_handle(&f.handle).unwrap()
}

/// Every reported folder against du on that folder alone.
fn agrees_with_du(report: &SizesReport, context: &str) {
    for f in every(report) {
        let p = path_of(f);
        if f.sizes.other_disk {
            continue;
        }
        assert!(!f.sizes.is_lower_bound, "{context}: {} is exact", f.path);
        assert_eq!(
            f.sizes.disk_usage,
            du(&p, false),
            "{context}: disk usage of '{}' must equal du -sB1 -x",
            f.path
        );
        assert_eq!(
            f.sizes.apparent,
            du(&p, true),
            "{context}: apparent size of '{}' must equal du -sb -x",
            f.path
        );
    }
}

fn folder<'a>(report: &'a SizesReport, path: &str) -> &'a FolderSizeReport {
    every(report)
        .into_iter()
        .find(|f| f.path == path)
        .unwrap_or_else(|| panic!("{path} is reported"))
}

#[test]
fn a_plain_tree_counts_as_du_does() {
    let t = Tree::new();
    t.write("a/one", &[1u8; 5000]);
    t.write("a/b/two", &[2u8; 70000]);
    t.write("c/three", b"x");
    t.dir("empty");
    t.symlink("a", "link");
    let r = count(t.path(), 2);
    agrees_with_du(&r, "plain tree");
    assert_eq!(r.root.sizes.files, 4, "three files and a symlink");
    assert_eq!(r.root.sizes.folders, 4, "a, a/b, c, empty");
    assert_eq!(
        r.folders.len(),
        4,
        "every folder within depth 2 is reported"
    );
    assert_eq!(folder(&r, "a").sizes.files, 2);
}

#[test]
fn hard_links_inside_a_folder_count_once() {
    let t = Tree::new();
    let f = t.write("a/one", &[7u8; 50_000]);
    fs::hard_link(&f, t.at("a/two")).unwrap();
    fs::hard_link(&f, t.at("a/three")).unwrap();
    let r = count(t.path(), 1);
    agrees_with_du(&r, "links in one folder");
    assert_eq!(folder(&r, "a").sizes.files, 3, "each link is an entry");
}

#[test]
fn hard_links_across_siblings_count_in_each_and_once_in_their_parent() {
    let t = Tree::new();
    let f = t.write("p/a/one", &[7u8; 90_000]);
    t.dir("p/b/deep/er");
    fs::hard_link(&f, t.at("p/b/deep/er/two")).unwrap();
    fs::hard_link(
        &f,
        t.at("q/three")
            .parent()
            .map(|d| {
                fs::create_dir_all(d).unwrap();
                t.at("q/three")
            })
            .unwrap(),
    )
    .unwrap();
    let r = count(t.path(), 3);
    agrees_with_du(&r, "links across siblings");
    let (a, b, p) = (folder(&r, "p/a"), folder(&r, "p/b"), folder(&r, "p"));
    assert!(
        p.sizes.apparent < a.sizes.apparent + b.sizes.apparent,
        "the parent holds the shared inode once, each sibling holds it whole"
    );
}

#[test]
fn a_sparse_file_counts_its_length_apparent_and_its_blocks_on_disk() {
    let t = Tree::new();
    let f = fs::File::create(t.at("sparse")).unwrap();
    f.set_len(1 << 30).unwrap();
    f.write_all_at(&[1u8; 8192], 1 << 20).unwrap();
    f.sync_all().unwrap();
    let r = count(t.path(), 0);
    agrees_with_du(&r, "sparse file");
    assert!(r.root.sizes.apparent > 1 << 30, "1 GiB apparent");
    assert!(r.root.sizes.disk_usage < 1 << 24, "a few blocks on disk");
}

#[test]
fn symlinks_are_counted_as_entries_and_never_followed_even_in_a_loop() {
    let t = Tree::new();
    t.write("a/file", &[1u8; 10_000]);
    t.symlink("..", "a/up");
    t.symlink("loop", "a/loop");
    t.symlink("/", "a/root");
    t.write("big/file", &[1u8; 1_000_000]);
    t.symlink("../big", "a/big");
    let r = count(t.path(), 1);
    agrees_with_du(&r, "symlinks");
    let a = folder(&r, "a");
    assert_eq!(a.sizes.files, 5, "a file and four links");
    assert!(
        a.sizes.apparent < 100_000,
        "big/ is not reached through a/big"
    );
}

#[test]
fn empty_folders_fifos_and_sockets_count_as_du_counts_them() {
    let t = Tree::new();
    t.dir("e/f/g");
    t.fifo("e/pipe");
    let _s = t.socket("e/sock");
    let r = count(t.path(), 3);
    agrees_with_du(&r, "empty folders and specials");
    assert_eq!(folder(&r, "e").sizes.files, 2);
    assert_eq!(folder(&r, "e").sizes.folders, 2);
}

/// A tmpfs mounted in the tree, unmounted on drop.
struct Mounted(PathBuf);

impl Drop for Mounted {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
    }
}

#[test]
fn a_mount_point_below_is_left_out_as_du_x_leaves_it_and_flagged() {
    assert!(
        is_root(),
        "mounting a tmpfs needs root: this test must not pass without it"
    );
    let t = Tree::new();
    t.write("a/file", &[1u8; 20_000]);
    let point = t.dir("a/m");
    let ok = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=16m", "tmpfs"])
        .arg(&point)
        .status()
        .unwrap();
    assert!(ok.success(), "mount tmpfs");
    let _mounted = Mounted(point.clone());
    fs::write(point.join("inside"), vec![1u8; 3 << 20]).unwrap();
    let r = count(t.path(), 2);
    agrees_with_du(&r, "mount point below");
    let m = folder(&r, "a/m");
    assert!(
        m.sizes.other_disk,
        "the mount point says it is another disk"
    );
    assert_eq!(
        (m.sizes.disk_usage, m.sizes.apparent),
        (0, 0),
        "and is not entered"
    );
    assert!(
        folder(&r, "a").sizes.apparent < 1 << 20,
        "its 3 MiB are not counted"
    );
    let as_child = folder(&r, "a")
        .largest
        .as_ref()
        .unwrap()
        .iter()
        .find(|c| c.name == "m")
        .expect("the mount point is among a's children");
    assert!(
        as_child.other_disk,
        "among its parent's largest it says it is another disk too (a face showing only the parent's rows must not read it as empty)"
    );
    let file = folder(&r, "a")
        .largest
        .as_ref()
        .unwrap()
        .iter()
        .find(|c| c.name == "file")
        .unwrap();
    assert!(!file.other_disk);
}

#[test]
fn a_dead_folder_below_costs_that_folder_a_timeout_and_the_rest_completes() {
    let _alone = stuck_calls_alone();
    let t = Tree::new();
    let point = t.dir("mnt");
    let mount = deadfs::DeadMount::on(&point);
    let r = sizes(
        &LocalFs::new(),
        &point,
        &SizesCall {
            report: Reported::Depth(1),
            folder_time: Duration::from_millis(300),
            ..SizesCall::default()
        },
        None,
        None,
    )
    .unwrap();
    // Once a call is stuck on the device, the engine's rule is that later
    // calls there fail at once: live/ is exact if it was read first.
    let live = folder(&r, "live");
    assert!(
        live.sizes.files == 2 && !live.sizes.is_lower_bound
            || live.sizes.shortfalls[0].code == ErrorCode::Timeout,
        "live/ is exact or TIMEOUT: {live:?}"
    );
    for dead in ["dead", "cold"] {
        let f = folder(&r, dead);
        assert!(f.sizes.is_lower_bound, "{dead}/ never answers");
        assert_eq!(f.sizes.shortfalls[0].code, ErrorCode::Timeout, "{dead}");
    }
    assert!(
        r.root.sizes.is_lower_bound,
        "the root holds the dead folders"
    );
    assert!(
        r.root
            .sizes
            .shortfalls
            .iter()
            .any(|s| s.code == ErrorCode::Timeout),
        "and says why"
    );
    assert!(r.budget_cut.is_none(), "the request itself completed");
    drop(mount);
}

#[test]
fn a_dead_mount_point_below_is_another_disk_and_never_read() {
    let _alone = stuck_calls_alone();
    let t = Tree::new();
    t.write("local/file", &[1u8; 1000]);
    let point = t.dir("mnt");
    let mount = deadfs::DeadMount::dead_root(&point);
    let r = count(t.path(), 1);
    assert!(folder(&r, "mnt").sizes.other_disk);
    assert!(
        !r.root.sizes.is_lower_bound,
        "nothing of it is needed: du -x leaves it out"
    );
    assert_eq!(
        mount
            .held
            .readdirs
            .load(std::sync::atomic::Ordering::SeqCst),
        0,
        "its folder was never read"
    );
    drop(mount);
}

#[test]
fn a_cancel_stops_the_count_at_once_with_lower_bounds() {
    let t = Tree::new();
    t.files("slow", "f", 300);
    let hooks = IoHooks {
        slow_folder: Some(b"slow".to_vec()),
        slow_delay: Duration::from_millis(1),
        slow_stat: Some(Duration::from_millis(20)),
    };
    let token = CancelToken::default();
    let heard = Cell::new(0);
    let observer = |p: &SizesProgress| {
        heard.set(heard.get() + 1);
        assert!(p.entries < 10_000);
        token.cancel();
    };
    let r = sizes(
        &LocalFs::new().with_test_hooks(hooks),
        t.path(),
        &SizesCall {
            report: Reported::Depth(1),
            ..SizesCall::default()
        },
        Some(token.clone()),
        Some(&observer),
    )
    .unwrap();
    assert!(heard.get() >= 1, "the observer heard partial figures");
    assert_eq!(r.budget_cut, Some(ErrorCode::Cancelled));
    assert!(r.root.sizes.is_lower_bound);
    let slow = folder(&r, "slow");
    assert!(slow.sizes.is_lower_bound);
    assert!(
        slow.sizes.files < 300,
        "counting stopped part way ({} of 300 files)",
        slow.sizes.files
    );
}

#[test]
fn a_cancel_before_the_start_counts_nothing() {
    let t = Tree::new();
    t.files("a", "f", 50);
    let token = CancelToken::default();
    token.cancel();
    let r = sizes(
        &LocalFs::new(),
        t.path(),
        &SizesCall::default(),
        Some(token),
        None,
    )
    .unwrap();
    assert_eq!(r.budget_cut, Some(ErrorCode::Cancelled));
    assert!(r.root.sizes.is_lower_bound);
    assert_eq!(r.root.sizes.files, 0);
}

#[test]
fn a_spent_entries_budget_ends_with_lower_bounds_that_say_budget() {
    let t = Tree::new();
    for d in 0..20 {
        t.files(&format!("d{d:02}"), "f", 50);
    }
    let r = sizes(
        &LocalFs::new(),
        t.path(),
        &SizesCall {
            report: Reported::Depth(1),
            threads: 1,
            budget: SizesBudget {
                entries: 200,
                time: None,
            },
            ..SizesCall::default()
        },
        None,
        None,
    )
    .unwrap();
    assert_eq!(r.budget_cut, Some(ErrorCode::Budget));
    assert!(r.root.sizes.is_lower_bound);
    assert!(r
        .root
        .sizes
        .shortfalls
        .iter()
        .any(|s| s.code == ErrorCode::Budget));
    assert!(
        r.entries < 1000,
        "stopped near the budget, not at the end ({})",
        r.entries
    );
}

#[test]
fn the_observer_hears_each_reported_folder_done_once_with_its_largest() {
    let t = Tree::new();
    t.write("a/big", &[1u8; 300_000]);
    t.write("a/small", &[1u8; 10]);
    t.write("b/mid", &[1u8; 30_000]);
    let done = std::cell::RefCell::new(Vec::new());
    let observer = |p: &SizesProgress| {
        for f in &p.folders {
            if f.done {
                done.borrow_mut().push(f.path.clone());
            }
        }
    };
    let r = sizes(
        &LocalFs::new(),
        t.path(),
        &SizesCall {
            report: Reported::Depth(1),
            ..SizesCall::default()
        },
        None,
        Some(&observer),
    )
    .unwrap();
    let mut heard = done.into_inner();
    heard.sort();
    assert_eq!(
        heard,
        vec!["", "a", "b"],
        "each reported folder once, as soon as it is done"
    );
    let largest = r.root.largest.as_ref().unwrap();
    let names: Vec<&str> = largest.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, vec!["a", "b"], "largest first");
    assert_eq!(largest[0].items, 3, "a itself and its two files");
    let a = folder(&r, "a");
    let inner: Vec<&str> = a
        .largest
        .as_ref()
        .unwrap()
        .iter()
        .map(|c| c.name.as_str())
        .collect();
    assert_eq!(inner, vec!["big", "small"]);
    assert_eq!(a.others.as_ref().unwrap().count, 0);
}

#[test]
fn among_equal_sizes_the_largest_are_the_first_names_whatever_order_they_finish_in() {
    let t = Tree::new();
    // Equal sizes, made in an order that is neither the names' nor (likely) the folder's.
    let mut names: Vec<String> = (0..40).map(|i| format!("f{i:02}")).collect();
    names.sort_by_key(|n| n.bytes().rev().collect::<Vec<u8>>());
    for n in &names {
        t.write(format!("eq/{n}"), &[7u8; 5000]);
    }
    for threads in [1, 4] {
        let r = sizes(
            &LocalFs::new(),
            &t.path().join("eq"),
            &SizesCall {
                report: Reported::Depth(0),
                threads,
                ..SizesCall::default()
            },
            None,
            None,
        )
        .unwrap();
        let kept: Vec<&str> = r
            .root
            .largest
            .as_ref()
            .unwrap()
            .iter()
            .map(|c| c.name.as_str())
            .collect();
        let first: Vec<String> = (0..10).map(|i| format!("f{i:02}")).collect();
        assert_eq!(
            kept, first,
            "{threads} thread(s): ties go to the first names"
        );
    }
}

#[test]
fn a_large_folder_shared_out_in_chunks_counts_every_entry() {
    let t = Tree::new_in_memory();
    t.files("many", "f", 5000);
    let r = sizes(
        &LocalFs::new(),
        t.path(),
        &SizesCall {
            report: Reported::Depth(1),
            threads: 4,
            ..SizesCall::default()
        },
        None,
        None,
    )
    .unwrap();
    agrees_with_du(&r, "a large folder");
    assert_eq!(folder(&r, "many").sizes.files, 5000);
    let others = folder(&r, "many").others.clone().unwrap();
    assert_eq!(
        others.count,
        5000 - 10,
        "ten largest named, the rest summed"
    );
}

/// A random tree from `seed`: folders, files of random lengths (some
/// sparse), hard links anywhere, symlinks, empty folders.
fn random_tree(seed: u64) -> Tree {
    let t = Tree::new();
    let mut x = seed | 1;
    let mut next = move |n: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % n
    };
    let mut folders = vec![t.path().to_path_buf()];
    let mut files: Vec<PathBuf> = Vec::new();
    for i in 0..(20 + next(40)) {
        let parent = folders[next(folders.len() as u64) as usize].clone();
        match next(10) {
            0..=2 => {
                let d = parent.join(format!("d{i}"));
                fs::create_dir(&d).unwrap();
                folders.push(d);
            }
            3..=6 => {
                let f = parent.join(format!("f{i}"));
                let len = [0, 1, 100, 4095, 4096, 4097, 70_000][next(7) as usize];
                fs::write(&f, vec![b'x'; len]).unwrap();
                files.push(f);
            }
            7 => {
                let f = parent.join(format!("s{i}"));
                let file = fs::File::create(&f).unwrap();
                file.set_len(1 << (10 + next(20))).unwrap();
                file.write_all_at(b"data", next(1 << 16)).unwrap();
                files.push(f);
            }
            8 if !files.is_empty() => {
                let target = &files[next(files.len() as u64) as usize];
                fs::hard_link(target, parent.join(format!("h{i}"))).unwrap();
            }
            _ => {
                std::os::unix::fs::symlink("..", parent.join(format!("l{i}"))).unwrap();
            }
        }
    }
    t
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    /// The differential test: every reported folder of a random tree
    /// against `du -sB1 -x` and `du -sb -x` on that folder alone.
    #[test]
    fn every_reported_folder_equals_du_on_random_trees(seed in any::<u64>(), threads in 1usize..5) {
        let t = random_tree(seed);
        let r = sizes(&LocalFs::new(), t.path(), &SizesCall { report: Reported::Depth(3), threads, ..SizesCall::default() }, None, None).unwrap();
        agrees_with_du(&r, &format!("seed {seed}, {threads} threads"));
    }
}

#[test]
fn hostile_names_are_escaped_in_paths_and_their_handles_round_trip() {
    let t = Tree::new();
    let name: &[u8] = b"evil\n[DIR] x (1 B)\xff";
    let dir = t.dir(name);
    fs::write(dir.join("f"), [1u8; 3000]).unwrap();
    let r = count(t.path(), 1);
    agrees_with_du(&r, "hostile names");
    let f = &r.folders[0];
    assert!(!f.path.contains('\n'), "no raw line break: {:?}", f.path);
    assert!(
        f.path.contains("\\xff"),
        "a byte that is not UTF-8 is escaped"
    );
    assert_eq!(path_of(f), dir, "the handle names the exact bytes");
    let child = &r.root.largest.as_ref().unwrap()[0];
    assert_eq!(decode_handle(&child.handle).unwrap(), dir);
}

#[test]
fn inside_an_archive_disk_usage_is_the_apparent_size() {
    let t = Tree::new();
    let zip = t.at("a.zip");
    let made = Command::new("python3")
        .arg("-c")
        .arg("import sys, zipfile\nwith zipfile.ZipFile(sys.argv[1], 'w') as z:\n    z.writestr('d/x.txt', b'a' * 1000)\n    z.writestr('d/e/y.txt', b'b' * 20)\n    z.writestr('z.txt', b'c' * 5)\n")
        .arg(&zip)
        .status()
        .unwrap();
    assert!(made.success());
    let source = canopy_core::WithArchives::new(LocalFs::new());
    let r = sizes(&source, &zip, &SizesCall::default(), None, None).unwrap();
    assert_eq!(r.root.sizes.files, 3);
    assert_eq!(r.root.sizes.folders, 2, "d and d/e");
    let d = folder(&r, "d");
    assert_eq!(d.sizes.files, 2);
    assert_eq!(
        d.sizes.disk_usage, d.sizes.apparent,
        "no blocks inside an archive"
    );
    assert!(
        d.sizes.apparent >= 1020,
        "the members' lengths: {:?}",
        d.sizes
    );
    assert!(!r.root.sizes.is_lower_bound);
}

#[test]
fn a_folder_slower_in_all_than_its_deadline_but_answering_each_call_is_counted_whole() {
    let t = Tree::new();
    t.files("slow", "f", 400);
    // About 20 small batches of 40 ms each: 800 ms in all, each well within 300 ms.
    let hooks = IoHooks {
        slow_folder: Some(b"slow".to_vec()),
        slow_delay: Duration::from_millis(40),
        slow_stat: None,
    };
    let r = sizes(
        &LocalFs::new().with_test_hooks(hooks),
        t.path(),
        &SizesCall {
            report: Reported::Depth(1),
            folder_time: Duration::from_millis(300),
            ..SizesCall::default()
        },
        None,
        None,
    )
    .unwrap();
    let slow = folder(&r, "slow");
    assert!(
        !slow.sizes.is_lower_bound,
        "a slow folder is not a dead one: {slow:?}"
    );
    assert_eq!(slow.sizes.files, 400);
}

#[test]
fn a_large_folder_read_slowly_shows_growing_figures_before_it_is_done() {
    let t = Tree::new();
    t.files("slow", "f", 4000);
    let hooks = IoHooks {
        slow_folder: Some(b"slow".to_vec()),
        slow_delay: Duration::from_millis(5),
        slow_stat: None,
    };
    // The most files heard for `slow` while it was still being counted.
    let partial = Cell::new(0u64);
    let observer = |p: &SizesProgress| {
        for f in p.folders.iter().filter(|f| f.path == "slow" && !f.done) {
            partial.set(partial.get().max(f.sizes.files));
        }
    };
    let r = sizes(
        &LocalFs::new().with_test_hooks(hooks),
        t.path(),
        &SizesCall {
            report: Reported::Depth(1),
            // One thread: the folder's own job counts most of its names.
            threads: 1,
            ..SizesCall::default()
        },
        None,
        Some(&observer),
    )
    .unwrap();
    assert_eq!(folder(&r, "slow").sizes.files, 4000);
    assert!(
        partial.get() > 0 && partial.get() < 4000,
        "a folder being read shows what it counted so far, not 0 until the end: {}",
        partial.get()
    );
}

/// Memory stays with what is reported, not with the folders below: a
/// folder of 20,000 subfolders and 21,952 folders three levels deep keep a
/// few hundred folder nodes and queued jobs at most (a node per child and a
/// job per subfolder at once would be 20,000), and the figures stay exact.
#[test]
fn many_folders_cost_nodes_and_queued_jobs_by_depth_not_by_their_number() {
    let t = Tree::new_in_memory();
    for i in 0..20_000 {
        t.dir(format!("wide/d{i:05}"));
    }
    for a in 0..28 {
        for b in 0..28 {
            for c in 0..28 {
                t.dir(format!("deep/a{a:02}/b{b:02}/c{c:02}"));
            }
        }
    }
    t.write("wide/d00007/big", &[1u8; 90_000]);
    t.write("deep/a03/b05/big", &[1u8; 90_000]);
    t.write("deep/a03/b05/c07/big", &[1u8; 40_000]);
    let cases = [
        (
            "wide",
            Reported::Shown(vec![t.at("wide/d00007"), t.at("wide/d19999")]),
        ),
        ("wide", Reported::Largest(2)),
        ("deep", Reported::Largest(2)),
        (
            "deep",
            Reported::Shown(vec![t.at("deep/a03"), t.at("deep/a03/b05")]),
        ),
    ];
    for (root, report) in cases {
        let context = format!("{root}, {report:?}");
        peak_nodes();
        let call = SizesCall {
            report: report.clone(),
            ..SizesCall::default()
        };
        let r = sizes(&LocalFs::new(), &t.at(root), &call, None, None).unwrap();
        let (nodes, queued) = peak_nodes();
        // Other tests of this binary count beside it: their nodes are few.
        assert!(nodes < 2_000, "{context}: {nodes} folder nodes at once");
        assert!(queued < 2_000, "{context}: {queued} jobs queued at once");
        agrees_with_du(&r, &context);
        let folders = if root == "wide" {
            20_000
        } else {
            28 + 28 * 28 + 28 * 28 * 28
        };
        assert_eq!(
            r.root.sizes.folders, folders,
            "{context}: every folder counted"
        );
        let largest = r.root.largest.as_ref().unwrap();
        assert_eq!(largest.len(), 10, "{context}: the 10 largest children");
        let big = if root == "wide" { "d00007" } else { "a03" };
        assert_eq!(largest[0].name, big, "{context}: the largest first");
        match report {
            Reported::Shown(mut paths) => {
                let mut got: Vec<PathBuf> = r.folders.iter().map(path_of).collect();
                got.sort();
                paths.sort();
                assert_eq!(got, paths, "{context}: the folders named, and no other");
            }
            Reported::Largest(_) if root == "deep" => {
                assert_eq!(r.folders.len(), 10 + 100, "{context}: 10, and 10 in each");
                let a03 = folder(&r, "a03");
                assert_eq!(a03.largest.as_ref().unwrap()[0].name, "b05");
                let b05 = folder(&r, "a03/b05");
                assert_eq!(b05.largest.as_ref().unwrap()[0].name, "big");
                assert_eq!(b05.largest.as_ref().unwrap()[1].name, "c07");
            }
            _ => {}
        }
    }
}
