//! `canopy-list --sizes` as a user runs it: a folder the user cannot read
//! makes every figure above it a lower bound, with the reason and where.

use crate::common;

use common::*;

#[test]
fn an_unreadable_folder_makes_its_ancestors_lower_bounds_with_the_reason() {
    let t = Tree::new();
    t.write("top/open/file", &[1u8; 5000]);
    t.write("top/secret/hidden", &[1u8; 500_000]);
    t.write("other/file", b"x");
    t.chmod("top/secret", 0o000);
    // Root reads anything: the count runs as `nobody`.
    let out = unprivileged(&cli())
        .arg(t.path())
        .args(["--sizes", "--json", "--depth", "2"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let root = &v["root"]["folder"]["sizes"];
    assert_eq!(
        root["isLowerBound"], true,
        "the root holds what could not be read: {root}"
    );
    assert_eq!(root["shortfalls"][0]["code"], "DENIED");
    assert_eq!(root["shortfalls"][0]["example"], "top/secret");
    let child = |f: &serde_json::Value, name: &str| -> serde_json::Value {
        f["entries"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["name"] == name)
            .unwrap_or_else(|| panic!("{name} listed"))["folder"]
            .clone()
    };
    let top = child(&v["root"]["folder"], "top");
    assert_eq!(
        top["sizes"]["isLowerBound"], true,
        "an ancestor of the unreadable folder"
    );
    assert_eq!(child(&top, "secret")["sizes"]["isLowerBound"], true);
    assert_eq!(
        child(&top, "open")["sizes"]["isLowerBound"],
        false,
        "a sibling is exact"
    );
    assert_eq!(
        child(&v["root"]["folder"], "other")["sizes"]["isLowerBound"],
        false,
        "an unrelated folder is exact"
    );
    // In text, each "≥" says why on the line below it (past its error line).
    let out = unprivileged(&cli())
        .arg(t.path())
        .args(["--sizes", "--depth", "2"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let reason = "[LOWER BOUND] DENIED in 1 folder(s), e.g. top/secret";
    let below = |line: &str| {
        let at = lines
            .iter()
            .position(|l| l.starts_with(line))
            .unwrap_or_else(|| panic!("{line} in {text}"));
        lines[at + 1..]
            .iter()
            .take_while(|l| !l.starts_with("[DIR]") && !l.starts_with("[FILE]"))
            .any(|l| *l == reason)
    };
    assert!(
        lines[0].starts_with("[SIZE] ") && lines[0].contains("(≥ "),
        "{text}"
    );
    assert_eq!(lines[1], reason, "the listed folder's reason first: {text}");
    assert!(below("[DIR] top (≥ "), "{text}");
    assert!(below("[DIR] top/secret (≥ "), "{text}");
    assert_eq!(
        text.matches("[LOWER BOUND]").count(),
        3,
        "only below a lower bound: {text}"
    );
}

/// Peak RSS of `canopy-list PATH --sizes --depth 1 --json` (KiB, from
/// `/usr/bin/time`, which counts the worker the supervisor waits for), and
/// what it printed.
fn peak_rss(path: &std::path::Path) -> (u64, serde_json::Value) {
    let out = std::process::Command::new("/usr/bin/time")
        .args(["-f", "%M"])
        .arg(cli())
        .arg(path)
        .args(["--sizes", "--depth", "1", "--json"])
        .output()
        .expect("/usr/bin/time runs (GNU time)");
    assert!(out.status.success(), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let kib = stderr
        .lines()
        .last()
        .and_then(|l| l.trim().parse().ok())
        .unwrap_or_else(|| panic!("a peak RSS in {stderr:?}"));
    (kib, serde_json::from_slice(&out.stdout).unwrap())
}

/// Memory grows with what is printed, not with the folders below it: a
/// folder of 300,000 subfolders, and 300,763 folders three levels deep,
/// each cost at most 16 MiB of peak RSS over a 10-file tree, counted in the
/// same run (the count once cost 190 MB: a node and a queued job per folder).
#[test]
fn three_hundred_thousand_folders_cost_at_most_16_mib_over_ten_files() {
    let t = Tree::new_in_memory();
    for i in 0..300_000 {
        std::fs::create_dir_all(t.at(format!("wide/d{i:06}"))).unwrap();
    }
    for a in 0..67 {
        for b in 0..67 {
            for c in 0..67 {
                std::fs::create_dir_all(t.at(format!("deep/a{a:02}/b{b:02}/c{c:02}"))).unwrap();
            }
        }
    }
    for f in 0..10 {
        t.write(format!("small/f{f}"), b"x");
    }
    let (base, _) = peak_rss(&t.at("small"));
    for (tree, folders) in [("wide", 300_000u64), ("deep", 67 + 67 * 67 + 67 * 67 * 67)] {
        let (kib, v) = peak_rss(&t.at(tree));
        let sizes = &v["root"]["folder"]["sizes"];
        assert_eq!(
            sizes["folders"], folders,
            "{tree}: every folder counted: {sizes}"
        );
        assert_eq!(sizes["isLowerBound"], false, "{tree}: exact: {sizes}");
        assert!(
            kib <= base + 16 * 1024,
            "{tree}: peak RSS {kib} KiB, against {base} KiB for 10 files: more than 16 MiB over"
        );
    }
}
