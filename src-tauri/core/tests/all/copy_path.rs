//! "Copy path" text pasted into a shell: exactly the path's bytes, one word,
//! and nothing run. Checked by letting bash evaluate it.

use crate::common;

use std::os::unix::ffi::OsStrExt;
use std::process::Command;

use canopy_core::names::encode_handle;
use canopy_core::preview::FileRequest;
use canopy_core::shell_quote::{copy_text, path_text};
use common::*;
use proptest::prelude::*;

/// What bash, in the folder `dir`, makes of `text` pasted as a command's
/// arguments: how many words, and the first one's bytes.
fn pasted(dir: &std::path::Path, text: &str) -> (usize, Vec<u8>) {
    let out = Command::new("bash")
        .current_dir(dir)
        .args([
            "-c",
            r#"eval "set -- $1"; printf '%s:' "$#"; printf %s "$1""#,
            "paste",
        ])
        .arg(text)
        .output()
        .expect("bash runs");
    assert!(
        out.status.success(),
        "bash failed on {text:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let colon = out
        .stdout
        .iter()
        .position(|&b| b == b':')
        .expect("a word count");
    let words = std::str::from_utf8(&out.stdout[..colon])
        .unwrap()
        .parse()
        .unwrap();
    (words, out.stdout[colon + 1..].to_vec())
}

#[test]
fn a_name_with_a_newline_and_a_semicolon_is_quoted_and_pastes_back_exactly() {
    let t = Tree::new();
    let p = t.file(b"report\n;touch pwned;.txt");
    let copied = copy_text(&FileRequest {
        handle: encode_handle(&p),
    })
    .unwrap();
    assert!(copied.quoted, "a newline and ; must be quoted");
    assert!(
        !copied.text.contains('\n'),
        "the copied text is one line: {:?}",
        copied.text
    );
    let (words, bytes) = pasted(t.path(), &copied.text);
    assert_eq!(words, 1, "one word");
    assert_eq!(bytes, p.as_os_str().as_bytes(), "the exact path");
    assert!(!t.at("pwned").exists(), "nothing ran");
}

#[test]
fn command_substitution_and_globs_in_a_name_do_not_run_or_expand() {
    let t = Tree::new();
    t.file("x.txt");
    for name in [
        "$(touch pwned)",
        "`touch pwned`",
        "a b",
        "*",
        "~root",
        "{a,b}",
        "!!",
        "it's",
        "back\\slash",
        "a\tb",
    ] {
        let p = t.at(name);
        let copied = path_text(p.as_os_str().as_bytes());
        assert!(copied.quoted, "{name:?} must be quoted");
        let (words, bytes) = pasted(t.path(), &copied.text);
        assert_eq!(
            (words, bytes),
            (1, p.as_os_str().as_bytes().to_vec()),
            "{name:?}"
        );
    }
    assert!(!t.at("pwned").exists(), "nothing ran");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn any_path_pastes_back_as_its_exact_bytes(name in proptest::collection::vec(1u8..=255, 1..24)) {
        let raw = [b"/tmp/".as_slice(), &name].concat();
        let copied = path_text(&raw);
        prop_assert_eq!(pasted(std::path::Path::new("/"), &copied.text), (1, raw.clone()), "{:?} copied as {:?}", raw, copied.text);
        if !copied.quoted {
            prop_assert!(std::str::from_utf8(&raw).is_ok(), "bare only when UTF-8");
        }
    }
}
