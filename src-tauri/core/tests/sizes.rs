//! Folder sizes: every reported folder's figures are `du -sB1 -x` and
//! `du -sb -x` on that folder alone; what could not be counted makes its
//! ancestors lower bounds, with the reason.
mod common;

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use canopy_core::names::decode_handle;
use canopy_core::wire::{ErrorCode, FolderSizeReport, SizesReport};
use canopy_core::{sizes, LocalFs, SizesCall};
use common::Tree;

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
            depth,
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
