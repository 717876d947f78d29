//! Which paths an agent reaches: only real paths inside the allowed roots
//! (symlinks and `..` resolved), narrowed by the client's roots; and each
//! error as a result with its code.

mod common;

use std::sync::{Arc, Mutex};

use common::{list_args, path_arg, Server, Start, Tree};
use serde_json::json;

#[tokio::test]
async fn a_path_outside_the_roots_is_refused_naming_them() {
    let t = Tree::new();
    let root = t.dir("root");
    t.dir("root/inside");
    t.dir("rootevil/secret");
    t.file("outside.txt");
    t.link("root/up", "..");
    t.link("root/to_evil", t.at("rootevil"));
    t.link("root/to_file", t.at("outside.txt"));
    t.link("root/to_inside", "inside");
    let s = Server::start(&[&root]).await;
    let root_text = path_arg(&root);
    let attempts = [
        "/etc".to_string(),
        format!("{root_text}/.."),
        format!("{root_text}/inside/../../rootevil"),
        format!("{root_text}/up"),
        format!("{root_text}/up/rootevil/secret"),
        format!("{root_text}/to_evil"),
        format!("{root_text}evil"),
        "../rootevil".into(),
        format!("{root_text}/missing/../../outside.txt"),
    ];
    for path in &attempts {
        let r = s.list(json!({ "path": path })).await;
        assert_eq!(r.code(), "DENIED", "{path}: {}", r.text);
        assert!(r.text.contains(&root_text), "the error names the allowed root: {}", r.text);
    }
    let file = s.call("read_file", json!({ "path": format!("{root_text}/to_file") })).await;
    assert_eq!(common::Reply::of(file).code(), "DENIED", "a link to a file outside");
    let missing_outside = s.list(json!({ "path": "/nonexistent/elsewhere" })).await;
    assert_eq!(missing_outside.code(), "DENIED", "nothing is said about paths outside, not even that they are missing");

    let inside = s.list(json!({ "path": format!("{root_text}/to_inside") })).await.ok();
    assert_eq!(inside.structured["path"], json!(format!("{root_text}/inside")), "a link inside the root is followed, and reported by its real path");
    let relative = s.list(json!({ "path": "inside" })).await.ok();
    assert_eq!(relative.structured["path"], json!(format!("{root_text}/inside")), "a relative path starts at the first root");
}

#[tokio::test]
async fn each_error_is_a_result_with_its_code() {
    let t = Tree::new();
    let root = t.dir("root");
    t.file("root/file.txt");
    let locked = t.dir("root/locked");
    std::fs::set_permissions(&locked, std::os::unix::fs::PermissionsExt::from_mode(0o000)).unwrap();
    let s = Server::start(&[&root]).await;
    let p = |rel: &str| format!("{}/{rel}", path_arg(&root));
    let cases = [
        (json!({ "path": p("missing") }), "NOT_FOUND"),
        (json!({ "path": p("file.txt") }), "NOT_A_DIRECTORY"),
        (json!({ "path": p("locked") }), "DENIED"),
        (json!({ "path": p(""), "depth": 0 }), "INVALID_ARGUMENT"),
        (json!({ "path": p(""), "depth": 11 }), "INVALID_ARGUMENT"),
        (json!({ "path": "" }), "INVALID_ARGUMENT"),
        (json!({ "path": p("bad\\q") }), "INVALID_ARGUMENT"),
        (json!({ "path": p(""), "sort": "colour" }), "INVALID_ARGUMENT"),
        (json!({ "path": p(""), "reverse": "yes" }), "INVALID_ARGUMENT"),
        (json!({ "path": p(""), "cursor": "AQ" }), "INVALID_ARGUMENT"),
    ];
    for (args, code) in cases {
        let r = s.list(args.clone()).await;
        assert_eq!(r.code(), code, "{args}: {}", r.text);
        assert!(r.text.len() > code.len() + 2, "a message follows the code");
    }
    let listed = s.list(list_args(&root)).await.ok();
    assert!(listed.lines().contains(&"[DENIED] locked"), "below the listed folder an error is a line: {}", listed.text);
    let dir = common::Reply::of(s.call("read_file", json!({ "path": p("locked") })).await);
    assert_eq!(dir.code(), "NOT_A_FILE");
    assert!(dir.text.contains("list_directory"), "the message says what to call instead");
}

#[tokio::test]
async fn client_roots_narrow_what_is_allowed_and_never_widen_it() {
    let t = Tree::new();
    let root = t.dir("root");
    let a = t.dir("root/a");
    let b = t.dir("root/b");
    let elsewhere = t.dir("elsewhere");
    let uri = |p: &std::path::Path| format!("file://{}", path_arg(p));
    let roots = Arc::new(Mutex::new(vec![uri(&a), uri(&elsewhere)]));
    let s = Server::start_with(Start { roots: vec![root.clone()], client_roots: Some(roots.clone()), ..Start::default() }).await;
    // The first call makes the server ask for the roots.
    for refused in [&b, &root, &elsewhere] {
        let r = s.list(list_args(refused)).await;
        assert_eq!(r.code(), "DENIED", "{}: {}", refused.display(), r.text);
        assert!(r.text.contains(&path_arg(&a)), "the error names the allowed folders: {}", r.text);
    }
    s.list(list_args(&a)).await.ok();
    // The client's roots change: the server asks again.
    *roots.lock().unwrap() = vec![uri(&b)];
    s.client.notify_roots_list_changed().await.unwrap();
    // The notification and the next call travel apart; wait for the change.
    let mut tries = 0;
    while s.list(list_args(&b)).await.is_error {
        tries += 1;
        assert!(tries < 1000, "the new roots never took effect");
        tokio::task::yield_now().await;
    }
    assert_eq!(s.list(list_args(&a)).await.code(), "DENIED", "the old root is gone");
}

#[tokio::test]
async fn whether_a_path_outside_the_roots_exists_is_never_told() {
    let t = Tree::new();
    let root = t.dir("root");
    t.write("outside/secret.txt", b"s");
    t.dir("outside/folder");
    t.link("root/slash", "/");
    t.link("root/rel_out", "../outside");
    t.link("root/to_missing_outside", t.at("outside/missing"));
    let s = Server::start(&[&root]).await;
    let r = path_arg(&root);
    // Pairs that differ only in whether something exists out there.
    let pairs = [
        (format!("{r}/slash/etc"), format!("{r}/slash/no-such-folder-anywhere")),
        (format!("{r}/rel_out/folder"), format!("{r}/rel_out/missing")),
        (format!("{r}/rel_out/secret.txt"), format!("{r}/rel_out/secret.txt/below")),
        (format!("{r}/rel_out"), format!("{r}/to_missing_outside")),
    ];
    for (exists, missing) in &pairs {
        for tool in ["list_directory", "read_file"] {
            let a = common::Reply::of(s.call(tool, json!({ "path": exists })).await);
            let b = common::Reply::of(s.call(tool, json!({ "path": missing })).await);
            assert_eq!(a.code(), "DENIED", "{tool} {exists}: {}", a.text);
            assert_eq!(b.code(), "DENIED", "{tool} {missing}: the reply must not tell it is missing: {}", b.text);
            assert_eq!(a.text.replace(exists.as_str(), "P"), b.text.replace(missing.as_str(), "P"), "the same words either way");
        }
    }
}

#[tokio::test]
async fn a_link_pointing_outside_the_roots_says_so_and_nothing_more() {
    let t = Tree::new();
    let root = t.dir("root");
    t.write("outside/secret.txt", b"s");
    t.link("outside/loop", "loop");
    t.write("root/inside.txt", b"i");
    t.link("root/to_secret", "../outside/secret.txt");
    t.link("root/to_missing", "../outside/missing");
    t.link("root/to_loop", "../outside/loop");
    t.link("root/to_etc", "/etc");
    t.link("root/to_nowhere", "/no/such/place");
    t.link("root/dangling", "missing_inside");
    t.link("root/ok", "inside.txt");
    t.link("root/abs_inside", root.join("inside.txt"));
    t.link("root/up_and_back", "../root/inside.txt");
    t.link("root/self", "self");
    let s = Server::start(&[&root]).await;
    let listed = s.list(json!({ "path": path_arg(&root), "depth": 1 })).await.ok();
    let lines = listed.lines();
    let abs_inside = format!("[LINK] abs_inside -> {}/inside.txt", path_arg(&root));
    for want in [
        "[LINK] to_secret -> ../outside/secret.txt (outside the roots)",
        "[LINK] to_missing -> ../outside/missing (outside the roots)",
        "[LINK] to_loop -> ../outside/loop (outside the roots)",
        "[LINK] to_etc -> /etc (outside the roots)",
        "[LINK] to_nowhere -> /no/such/place (outside the roots)",
        "[LINK] dangling -> missing_inside (dangling)",
        "[LINK] ok -> inside.txt",
        abs_inside.as_str(),
        "[LINK] up_and_back -> ../root/inside.txt",
        "[LINK] self -> self (loop)",
    ] {
        assert!(lines.contains(&want), "{want:?} in:\n{}", listed.text);
    }
    assert_eq!(lines.len(), 11, "one line each, no error line about following a link out: {}", listed.text);
}
