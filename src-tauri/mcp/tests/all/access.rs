//! Which paths an agent reaches: only real paths inside the allowed roots
//! (symlinks and `..` resolved), narrowed by the client's roots; and each
//! error as a result with its code.

use crate::common;
use crate::deadfs;

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use common::{list_args, path_arg, Reply, Server, Start, Tree};
use deadfs::DeadMount;
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
        assert!(
            r.text.contains(&root_text),
            "the error names the allowed root: {}",
            r.text
        );
    }
    let file = s
        .call(
            "read_file",
            json!({ "path": format!("{root_text}/to_file") }),
        )
        .await;
    assert_eq!(
        common::Reply::of(file).code(),
        "DENIED",
        "a link to a file outside"
    );
    let missing_outside = s.list(json!({ "path": "/nonexistent/elsewhere" })).await;
    assert_eq!(
        missing_outside.code(),
        "DENIED",
        "nothing is said about paths outside, not even that they are missing"
    );

    let inside = s
        .list(json!({ "path": format!("{root_text}/to_inside") }))
        .await
        .ok();
    assert_eq!(
        inside.structured["path"],
        json!(format!("{root_text}/inside")),
        "a link inside the root is followed, and reported by its real path"
    );
    let relative = s.list(json!({ "path": "inside" })).await.ok();
    assert_eq!(
        relative.structured["path"],
        json!(format!("{root_text}/inside")),
        "a relative path starts at the first root"
    );
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
        (
            json!({ "path": p(""), "sort": "colour" }),
            "INVALID_ARGUMENT",
        ),
        (
            json!({ "path": p(""), "reverse": "yes" }),
            "INVALID_ARGUMENT",
        ),
        (json!({ "path": p(""), "cursor": "AQ" }), "INVALID_ARGUMENT"),
    ];
    for (args, code) in cases {
        let r = s.list(args.clone()).await;
        assert_eq!(r.code(), code, "{args}: {}", r.text);
        assert!(r.text.len() > code.len() + 2, "a message follows the code");
    }
    let listed = s.list(list_args(&root)).await.ok();
    assert!(
        listed.lines().contains(&"[DENIED] locked"),
        "below the listed folder an error is a line: {}",
        listed.text
    );
    let dir = common::Reply::of(s.call("read_file", json!({ "path": p("locked") })).await);
    assert_eq!(dir.code(), "NOT_A_FILE");
    assert!(
        dir.text.contains("list_directory"),
        "the message says what to call instead"
    );
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
    let s = Server::start_with(Start {
        roots: vec![root.clone()],
        client_roots: Some(roots.clone()),
        ..Start::default()
    })
    .await;
    // The first call makes the server ask for the roots.
    for refused in [&b, &root, &elsewhere] {
        let r = s.list(list_args(refused)).await;
        assert_eq!(r.code(), "DENIED", "{}: {}", refused.display(), r.text);
        assert!(
            r.text.contains(&path_arg(&a)),
            "the error names the allowed folders: {}",
            r.text
        );
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
    assert_eq!(
        s.list(list_args(&a)).await.code(),
        "DENIED",
        "the old root is gone"
    );
}

#[tokio::test]
async fn a_client_root_through_a_place_outside_tells_nothing_of_it() {
    let t = Tree::new();
    let root = t.dir("root");
    let a = t.dir("root/a");
    let b = t.dir("root/b");
    let outside = t.dir("outside");
    let uri = |p: &std::path::Path| format!("file://{}", path_arg(p));
    // Both lead into the server's root by `..`: one through a folder that
    // exists outside it, one through a name that does not.
    let through_existing = uri(&outside.join("../root/a"));
    let through_missing = uri(&t.path().join("missing/../root/b"));
    let roots = Arc::new(Mutex::new(vec![through_existing, through_missing]));
    let s = Server::start_with(Start {
        roots: vec![root.clone()],
        client_roots: Some(roots),
        ..Start::default()
    })
    .await;
    for (folder, what) in [
        (&a, "through a folder that exists outside"),
        (&b, "through a name that exists nowhere"),
    ] {
        let r = s.list(list_args(folder)).await;
        assert!(
            !r.is_error,
            "a root {what} is taken the same way: {}",
            r.text
        );
    }
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
        (
            format!("{r}/slash/etc"),
            format!("{r}/slash/no-such-folder-anywhere"),
        ),
        (
            format!("{r}/rel_out/folder"),
            format!("{r}/rel_out/missing"),
        ),
        (
            format!("{r}/rel_out/secret.txt"),
            format!("{r}/rel_out/secret.txt/below"),
        ),
        (format!("{r}/rel_out"), format!("{r}/to_missing_outside")),
    ];
    for (exists, missing) in &pairs {
        for tool in ["list_directory", "read_file"] {
            let a = common::Reply::of(s.call(tool, json!({ "path": exists })).await);
            let b = common::Reply::of(s.call(tool, json!({ "path": missing })).await);
            assert_eq!(a.code(), "DENIED", "{tool} {exists}: {}", a.text);
            assert_eq!(
                b.code(),
                "DENIED",
                "{tool} {missing}: the reply must not tell it is missing: {}",
                b.text
            );
            assert_eq!(
                a.text.replace(exists.as_str(), "P"),
                b.text.replace(missing.as_str(), "P"),
                "the same words either way"
            );
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
    let listed = s
        .list(json!({ "path": path_arg(&root), "depth": 1 }))
        .await
        .ok();
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
    assert_eq!(
        lines.len(),
        11,
        "one line each, no error line about following a link out: {}",
        listed.text
    );
}

/// Swaps the entries `a` and `b` of `dir` in one step (`renameat2` with
/// `RENAME_EXCHANGE`): at every moment one of them is the folder and the
/// other the link.
fn exchange(dir: &Path, a: &str, b: &str) {
    let (a, b) = (
        CString::new(dir.join(a).as_os_str().as_bytes()).unwrap(),
        CString::new(dir.join(b).as_os_str().as_bytes()).unwrap(),
    );
    // SAFETY: valid C strings; AT_FDCWD with absolute paths.
    let r = unsafe {
        libc::renameat2(
            libc::AT_FDCWD,
            a.as_ptr(),
            libc::AT_FDCWD,
            b.as_ptr(),
            libc::RENAME_EXCHANGE,
        )
    };
    assert_eq!(r, 0, "renameat2: {}", std::io::Error::last_os_error());
}

/// Probes of each name while `root/x` is swapped again and again with
/// `root/y -> <outside>`.
const SWAP_PROBES: usize = 400;

#[tokio::test(flavor = "multi_thread")]
async fn a_link_swapped_in_mid_lookup_tells_nothing_of_what_lies_outside() {
    let t = Tree::new();
    let root = t.dir("root");
    t.dir("root/x");
    let out = Tree::new();
    // Outside the roots: a file whose name exists only there, and below it nothing.
    out.write("secret", b"outside");
    t.link("root/y", out.path());
    let s = Server::start(&[&root]).await;

    let stop = Arc::new(AtomicBool::new(false));
    let (flag, dir) = (stop.clone(), root.clone());
    let swapper = std::thread::spawn(move || {
        let mut swaps = 0u64;
        // Bounded: the probes end it, or this many swaps do.
        while !flag.load(Ordering::Relaxed) && swaps < 50_000_000 {
            exchange(&dir, "x", "y");
            swaps += 1;
        }
        if swaps % 2 == 1 {
            exchange(&dir, "x", "y");
        }
        swaps
    });
    // The name that exists only outside, a name that exists nowhere, and below each.
    let probes = ["x/secret", "x/absent", "x/secret/a", "x/absent/a"];
    let mut seen: Vec<BTreeMap<String, usize>> = vec![BTreeMap::new(); probes.len()];
    for _ in 0..SWAP_PROBES {
        for (i, probe) in probes.iter().enumerate() {
            let r = Reply::of(s.call("read_file", json!({ "path": probe })).await);
            let code = if r.is_error {
                r.code().to_string()
            } else {
                format!("read {:?}", r.text)
            };
            *seen[i].entry(code).or_default() += 1;
        }
    }
    stop.store(true, Ordering::Relaxed);
    let swaps = swapper.join().unwrap();
    let report: Vec<String> = probes
        .iter()
        .zip(&seen)
        .map(|(p, c)| format!("{p}: {c:?}"))
        .collect();
    let allowed: BTreeSet<String> = ["DENIED".to_string(), "NOT_FOUND".to_string()].into();
    for (probe, counts) in probes.iter().zip(&seen) {
        let codes: BTreeSet<String> = counts.keys().cloned().collect();
        assert!(
            codes.is_subset(&allowed),
            "{probe} answered {codes:?}: only DENIED (x is the link out) or NOT_FOUND (x is the folder) say nothing of outside ({swaps} swaps; {report:?})"
        );
    }
    let all: BTreeSet<&String> = seen.iter().flat_map(|c| c.keys()).collect();
    assert_eq!(
        all.len(),
        2,
        "the swap was seen both ways, so the probes raced it ({swaps} swaps; {report:?})"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_link_out_of_the_roots_is_never_followed_not_even_to_a_dead_mount() {
    let t = Tree::new();
    let root = t.dir("root");
    t.file("root/plain.txt");
    let point = t.dir("mnt");
    // Declared after the tree: dropped first (aborted, unmounted) so the tree can go.
    let mount = DeadMount::on(&point);
    // Following this link looks `cold` up on the dead mount: never answered.
    t.link("root/to-dead", point.join("cold/inside"));
    t.link("root/to-live", point.join("live/a.txt"));
    let s = Server::start(&[&root]).await;
    let r = s.list(list_args(&root)).await.ok();
    let point_text = path_arg(&point);
    for line in [
        format!("[LINK] to-dead -> {point_text}/cold/inside (outside the roots)"),
        format!("[LINK] to-live -> {point_text}/live/a.txt (outside the roots)"),
    ] {
        assert!(r.lines().contains(&line.as_str()), "{line} in:\n{}", r.text);
    }
    assert!(
        !r.text.contains("[TIMEOUT]"),
        "nothing outside was waited for:\n{}",
        r.text
    );
    assert_eq!(
        mount.held.lookups.load(Ordering::SeqCst),
        0,
        "nothing outside the roots was looked up"
    );
    let read = Reply::of(s.call("read_file", json!({ "path": "to-dead" })).await);
    assert_eq!(read.code(), "DENIED");
    assert_eq!(
        mount.held.lookups.load(Ordering::SeqCst),
        0,
        "nor by read_file"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn file_info_on_a_dead_mount_answers_timeout_never_hangs() {
    let t = Tree::new();
    let root = t.dir("root");
    let point = t.dir("root/mnt");
    // Declared after the tree: dropped first (aborted, unmounted) so the tree can go.
    let mount = DeadMount::on(&point);
    let s = Server::start(&[&root]).await;
    // `dead` answers its stat but never its readdir: the facts stand, the count times out.
    let dead = Reply::of(
        s.call(
            "file_info",
            json!({ "path": path_arg(&point.join("dead")) }),
        )
        .await,
    )
    .ok();
    assert!(dead.text.starts_with("[DIR] "), "{}", dead.text);
    assert!(
        dead.text.contains("[TIMEOUT] entries not counted: "),
        "{}",
        dead.text
    );
    assert!(dead.structured.get("entries").is_none(), "{}", dead.text);
    assert!(mount.held.readdirs.load(Ordering::SeqCst) > 0);
    // The device is stuck now: facts of anything on it fail at once.
    let live = Reply::of(
        s.call(
            "file_info",
            json!({ "path": path_arg(&point.join("live/a.txt")) }),
        )
        .await,
    );
    assert_eq!(live.code(), "TIMEOUT", "{}", live.text);
    let logs = s.seen.logs.lock().unwrap().clone();
    assert!(
        logs.iter()
            .any(|(l, m)| l == "warning" && m.starts_with("file_info: TIMEOUT")),
        "{logs:?}"
    );
}

/// The log notifications seen so far, after waiting for at least `n`.
async fn logs_after(s: &Server, n: usize) -> Vec<(String, String)> {
    // A notification and the reply after it travel in order on one
    // stream, but the client hands them to different tasks.
    for _ in 0..200 {
        let logs = s.seen.logs.lock().unwrap().clone();
        if logs.len() >= n {
            return logs;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    s.seen.logs.lock().unwrap().clone()
}

#[tokio::test(flavor = "multi_thread")]
#[allow(deprecated)]
async fn timeouts_in_every_tool_are_told_in_a_warning_unless_the_level_is_above_it() {
    let t = Tree::new();
    let root = t.dir("root");
    let point = t.dir("root/mnt");
    // Declared after the tree: dropped first (aborted, unmounted) so the tree can go.
    let _mount = DeadMount::on(&point);
    let s = Server::start(&[&root]).await;
    // A listing whose folder `dead` never answers its readdir.
    let listed = s
        .list(json!({ "path": path_arg(&point), "depth": 2 }))
        .await
        .ok();
    assert!(listed.text.contains("[TIMEOUT]"), "{}", listed.text);
    let logs = logs_after(&s, 1).await;
    assert!(
        logs.iter().any(|(l, m)| l == "warning"
            && m.starts_with("list_directory: ")
            && m.contains("did not answer in time")),
        "{logs:?}"
    );
    // A whole call that times out (the device is stuck now).
    let read = Reply::of(
        s.call(
            "read_file",
            json!({ "path": path_arg(&point.join("live/a.txt")) }),
        )
        .await,
    );
    assert_eq!(read.code(), "TIMEOUT", "{}", read.text);
    let files = Reply::of(
        s.call(
            "read_files",
            json!({ "paths": [path_arg(&point.join("live/b.txt"))] }),
        )
        .await,
    )
    .ok();
    assert_eq!(files.structured["files"][0]["error"], "TIMEOUT");
    let logs = logs_after(&s, 3).await;
    for tool in ["read_file: TIMEOUT", "read_files: 1 entries did not answer"] {
        assert!(
            logs.iter()
                .any(|(l, m)| l == "warning" && m.starts_with(tool)),
            "{tool} in {logs:?}"
        );
    }
    // Above warning: silent.
    s.client
        .set_level(rmcp::model::SetLevelRequestParams::new(
            rmcp::model::LoggingLevel::Error,
        ))
        .await
        .expect("logging/setLevel answers");
    let before = s.seen.logs.lock().unwrap().len();
    let again = Reply::of(
        s.call(
            "read_file",
            json!({ "path": path_arg(&point.join("live/a.txt")) }),
        )
        .await,
    );
    assert_eq!(again.code(), "TIMEOUT");
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    assert_eq!(s.seen.logs.lock().unwrap().len(), before, "no notice");
}

#[tokio::test]
async fn a_listing_cut_by_its_budget_is_told_in_an_info_notice() {
    let t = Tree::new();
    for d in 0..40 {
        for f in 0..100 {
            t.file(format!("root/d{d:02}/sub/file-with-a-long-name-{f:04}.txt"));
        }
    }
    let root = t.at("root");
    let s = Server::start(&[&root]).await;
    let r = s
        .list(json!({ "path": path_arg(&root), "depth": 3 }))
        .await
        .ok();
    assert!(r.text.contains("[BUDGET] "), "the reply was cut");
    let logs = logs_after(&s, 1).await;
    assert!(
        logs.iter().any(|(l, m)| l == "info"
            && m.starts_with("list_directory: ")
            && m.contains("[BUDGET]")),
        "{logs:?}"
    );
}
