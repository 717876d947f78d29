//! `canopy-list --archives` over a hostile zip beside a benign one (issue
//! 29, section 1): the hostile one costs its own listing (shown in part,
//! `TOO_LARGE`), the benign one is read whole, and the listing exits 0.

use crate::{common, hostile};

use common::*;

#[test]
fn a_hostile_zip_beside_a_benign_one_costs_only_itself() {
    let t = Tree::new();
    // Listed first (names are in order), and seconds of work to index whole.
    hostile::deep_names_zip(&t.at("a-hostile.zip"), 400, hostile::ZIP_NAME_MAX);
    hostile::plain_zip(
        &t.at("b-benign.zip"),
        &["docs/", "docs/readme.txt", "main.c"],
    );
    let o = unprivileged(&cli())
        .arg(t.path())
        .arg("--archives")
        .env("XDG_CONFIG_HOME", "/nonexistent-canopy-test-config")
        .output()
        .expect("canopy-list runs");
    let out = String::from_utf8_lossy(&o.stdout);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "stderr: {err}");
    assert!(
        out.lines().any(|l| l == "[TOO_LARGE] a-hostile.zip"),
        "the hostile archive says why it is shown in part:\n{out}"
    );
    for line in ["[DIR] b-benign.zip/docs", "[FILE] b-benign.zip/main.c"] {
        assert!(out.lines().any(|l| l == line), "{line} missing:\n{out}");
    }
    assert!(
        !out.contains("[TIMEOUT]"),
        "nothing beside it is given up:\n{out}"
    );
}
