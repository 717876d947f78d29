//! The allowlist's own shape: every extension lowercase and in one row only,
//! no launcher, installer, macro document, script or web document in it, and
//! extension case ignored. Hostile files themselves are tried in
//! `tests/all/openable.rs`.

use std::path::Path;

use super::*;

#[test]
fn every_extension_is_lowercase_and_in_one_row_only() {
    let mut seen = std::collections::BTreeSet::new();
    for row in OPENABLE {
        assert!(
            !row.mime.is_empty(),
            "{:?} names its MIME types",
            row.extensions
        );
        for ext in row.extensions {
            assert_eq!(
                *ext,
                ext.to_ascii_lowercase(),
                "extensions are compared lowercased"
            );
            assert!(seen.insert(*ext), ".{ext} is in two rows");
        }
    }
}

#[test]
fn launchers_installers_macros_scripts_and_web_documents_are_not_in_the_table() {
    for ext in [
        "desktop",
        "appimage",
        "jar",
        "deb",
        "rpm",
        "run",
        "msi",
        "msp",
        "exe",
        "com",
        "scr",
        "lnk",
        "url",
        "hta",
        "wsf",
        "vbs",
        "vbe",
        "js",
        "jse",
        "inf",
        "reg",
        "jnlp",
        "flatpakref",
        "flatpakrepo",
        "pyz",
        "docm",
        "xlsm",
        "pptm",
        "dotm",
        "xltm",
        "potm",
        "ppsm",
        "doc",
        "xls",
        "ppt",
        "rtf",
        "html",
        "htm",
        "xhtml",
        "mht",
        "svg",
        "xml",
        "epub",
        "ps",
        "eps",
        "sh",
        "bash",
        "zsh",
        "fish",
        "csh",
        "ksh",
        "py",
        "pyw",
        "pl",
        "rb",
        "php",
        "mjs",
        "cjs",
        "lua",
        "tcl",
        "ps1",
        "psm1",
        "bat",
        "cmd",
        "command",
        "tool",
        "scpt",
        "apk",
        "bin",
        "elf",
        "so",
        "ko",
        "swf",
        "class",
        "applescript",
        "workflow",
        "kdesktop",
        "service",
    ] {
        assert!(
            rule_for(Path::new(&format!("x.{ext}"))).is_none(),
            ".{ext} must never be openable"
        );
    }
}

#[test]
fn extension_case_is_ignored() {
    assert_eq!(
        rule_for(Path::new("A.PDF")).map(|r| r.family),
        Some(Family::Document)
    );
    assert!(rule_for(Path::new("no-extension")).is_none());
}
