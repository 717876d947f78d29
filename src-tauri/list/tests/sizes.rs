//! `canopy-list --sizes`: what could not be counted makes its ancestors
//! lower bounds, with the reason (run as an unprivileged user: root reads
//! anything). The figures themselves are tested against `du` in canopy-core's
//! `tests/sizes.rs`.

#[path = "../../core/tests/common/mod.rs"]
mod common;

use common::{cli, unprivileged, Tree};

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
}

