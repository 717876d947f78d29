//! Servers' folders through the window's own commands, against a real
//! OpenSSH server the test starts (canopy-sftp's `tests/common`): the same
//! commands list, expand, locate, preview and count a server's folder as a
//! local one, its handles say which server they are on, what only a local
//! file can do is refused with `UNSUPPORTED`, and the connection's state
//! (connected, lost, reconnected) is what the window is told.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::time::{Duration, Instant};

use canopy_core::names::{decode_handle, encode_handle};
use serde_json::{json, Value};

use super::ipc::{json, recorded, Fixture};
use super::sshd::{signal, Sshd, HOST};

/// A server whose `data` folder holds a note, a name with a space, a name
/// that is not UTF-8, and `many` (150 files: more than a nested folder shows).
fn server() -> (Sshd, Fixture) {
    let sshd = Sshd::start();
    let data = sshd.data();
    std::fs::write(data.join("notes.txt"), "hello from the server\n").unwrap();
    std::fs::write(data.join("a b.txt"), "spaced\n").unwrap();
    std::fs::write(data.join(OsStr::from_bytes(b"\xff.txt")), "bytes\n").unwrap();
    std::fs::create_dir(data.join("many")).unwrap();
    for i in 0..150 {
        std::fs::write(data.join(format!("many/f{i:03}.txt")), "x").unwrap();
    }
    let f = Fixture::with(
        canopy_core::LocalFs::new(),
        Some(sshd.options(&sshd.config())),
    );
    (sshd, f)
}

fn url(sshd: &Sshd) -> String {
    format!("sftp://{HOST}{}", sshd.data().display())
}

fn call(f: &Fixture, command: &str, request: Value) -> Result<Value, Value> {
    f.invoke(command, json!({ "request": request })).map(json)
}

fn list(f: &Fixture, root: Value) -> Result<Value, Value> {
    call(f, "list_directory", json!({ "requestId": 1, "root": root }))
}

fn entries(folder: &Value) -> Vec<&Value> {
    folder["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .collect()
}

fn entry<'a>(listing: &'a Value, name: &str) -> &'a Value {
    entries(&listing["root"]["folder"])
        .into_iter()
        .find(|e| e["name"] == name)
        .unwrap_or_else(|| panic!("{name} is listed: {listing}"))
}

/// What a listing shows of each entry: name, kind, size, count.
fn shape(listing: &Value) -> Vec<(String, String, Value, Value)> {
    entries(&listing["root"]["folder"])
        .into_iter()
        .map(|e| {
            (
                e["name"].as_str().unwrap().to_string(),
                e["kind"].as_str().unwrap().to_string(),
                e["size"].clone(),
                e["folder"]["total"].clone(),
            )
        })
        .collect()
}

fn state(f: &Fixture, handle: &Value) -> Value {
    call(f, "server_state", json!({ "handle": handle })).expect("a server's state")
}

#[test]
fn a_server_folder_lists_expands_locates_previews_and_counts_through_the_same_commands() {
    let (sshd, f) = server();
    let listing = list(&f, json!({ "text": url(&sshd) })).expect("the server's folder lists");
    assert_eq!(listing["path"], url(&sshd), "the path bar shows the URL");
    let crumbs: Vec<&str> = listing["crumbs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(crumbs[0], HOST, "the server is the first step: {crumbs:?}");
    assert_eq!(crumbs.last(), Some(&"data"));
    let root = &listing["root"]["handle"];
    let path = decode_handle(root.as_str().unwrap()).unwrap();
    assert!(
        path.starts_with(format!("sftp:/{HOST}")),
        "the handle says which server: {path:?}"
    );

    // What the place allows is on the wire, with why not: the window reads it.
    assert_eq!(listing["server"], HOST, "the listing says which server");
    for refused in ["openWithDesktop", "reveal", "watch", "renderMedia"] {
        let why = listing["capabilities"][refused]
            .as_str()
            .unwrap_or_default();
        assert!(why.contains("on a server"), "{refused}: {listing}");
    }
    assert_eq!(listing["capabilities"]["readArchives"], Value::Null);

    // Parity: the same folder listed here.
    let local = list(&f, json!({ "handle": encode_handle(&sshd.data()) })).unwrap();
    assert_eq!(local["server"], Value::Null, "this machine's folder");
    assert!(
        local["capabilities"]
            .as_object()
            .unwrap()
            .values()
            .all(Value::is_null),
        "everything is available here: {}",
        local["capabilities"]
    );
    assert_eq!(
        shape(&listing),
        shape(&local),
        "names, kinds, sizes, counts"
    );
    let many = entry(&listing, "many");
    assert_eq!(many["folder"]["total"], 150);
    let shown = entries(&many["folder"]).len();
    assert!(shown < 150, "a nested folder is capped: {shown}");

    // Expanding the capped folder by its handle: the server's, exact total.
    let expanded = list(&f, json!({ "handle": many["handle"] })).expect("expands");
    assert_eq!(expanded["root"]["folder"]["total"], 150);
    assert_eq!(expanded["path"], format!("{}/many", url(&sshd)));

    // A name that is not UTF-8 previews by its handle, exactly.
    let odd = entries(&listing["root"]["folder"])
        .into_iter()
        .find(|e| e["nameLossy"] == true)
        .expect("the non-UTF-8 name is listed, lossy");
    let chunk = call(
        &f,
        "read_preview",
        json!({ "handle": odd["handle"], "offset": 0, "length": 100 }),
    )
    .expect("previews");
    assert!(chunk["content"].to_string().contains("bytes"), "{chunk}");
    let notes = entry(&listing, "notes.txt");
    let chunk = call(
        &f,
        "read_preview",
        json!({ "handle": notes["handle"], "offset": 0, "length": 100 }),
    )
    .unwrap();
    assert!(chunk["content"]
        .to_string()
        .contains("hello from the server"));

    let located = call(&f, "locate", json!({ "folder": root, "prefix": "not" }))
        .expect("type-ahead on the server");
    assert_eq!(located["matched"], true);
    let local_located = call(
        &f,
        "locate",
        json!({ "folder": encode_handle(&sshd.data()), "prefix": "not" }),
    )
    .unwrap();
    assert_eq!(
        located, local_located,
        "same position as the local folder's"
    );

    let sizes = call(
        &f,
        "folder_sizes",
        json!({ "requestId": 3, "root": { "handle": root }, "depth": 1 }),
    )
    .expect("a server's folder is counted");
    assert_eq!(sizes["requestId"], 3);

    let s = state(&f, root);
    assert_eq!(s["phase"], "connected", "{s}");
    assert_eq!(s["server"], HOST);
}

#[test]
fn what_only_a_local_file_can_do_is_refused_for_a_servers_entry() {
    let (sshd, f) = server();
    let listing = list(&f, json!({ "text": url(&sshd) })).unwrap();
    let notes = entry(&listing, "notes.txt")["handle"].clone();
    let root = listing["root"]["handle"].clone();
    for (command, request) in [
        ("reveal", json!({ "handle": notes })),
        ("open_default", json!({ "handle": notes })),
        ("photo_details", json!({ "handle": notes })),
        ("pdf_document", json!({ "handle": notes, "requestId": 4 })),
        (
            "photo_render",
            json!({ "handle": notes, "width": 64, "requestId": 5 }),
        ),
        (
            "font_preview",
            json!({ "handle": notes, "width": 400, "requestId": 6 }),
        ),
        ("open_media_stream", json!({ "handle": notes })),
        ("watch_folders", json!({ "folders": [root] })),
    ] {
        let refusal = call(&f, command, request).expect_err(command);
        assert_eq!(refusal["code"], "UNSUPPORTED", "{command}: {refusal}");
        assert!(
            refusal["message"].as_str().unwrap().contains("on a server"),
            "{command} says why: {refusal}"
        );
    }
    if cfg!(feature = "e2e") {
        let spaced = entry(&listing, "a b.txt")["handle"].clone();
        let copied = call(&f, "copy_path", json!({ "handle": spaced })).unwrap();
        assert_eq!(copied, json!({ "quoted": false }), "a URL needs no quoting");
        let expected = format!("{}/a%20b.txt", url(&sshd));
        assert_eq!(
            recorded(Path::new(&expected)),
            [format!("copy {expected}")],
            "the sftp:// URL is copied, encoded"
        );
    }
}

#[test]
fn a_stopped_server_is_lost_and_the_next_request_reconnects() {
    let (sshd, f) = server();
    let listing = list(&f, json!({ "text": url(&sshd) })).unwrap();
    let root = listing["root"]["handle"].clone();
    let sessions = sshd.sessions();
    assert!(!sessions.is_empty(), "a session is up");
    for pid in &sessions {
        signal(*pid, "STOP");
    }
    let frozen = list(&f, json!({ "handle": root }));
    let stalled = state(&f, &root);
    // Until the call left behind gives up (then ssh is killed: lost for
    // good, whatever the server does next).
    let until = Instant::now() + Duration::from_secs(20);
    let mut lost = state(&f, &root);
    while !lost["message"]
        .as_str()
        .unwrap_or("")
        .contains("did not answer")
        && Instant::now() < until
    {
        std::thread::sleep(Duration::from_millis(20));
        lost = state(&f, &root);
    }
    for pid in &sessions {
        signal(*pid, "CONT");
    }
    assert_eq!(
        stalled["phase"], "lost",
        "not responding is lost: {stalled}"
    );
    match &frozen {
        Err(e) => assert_eq!(e["code"], "TIMEOUT", "{e}"),
        Ok(l) => assert!(
            l["root"]["error"]["code"] == "TIMEOUT"
                || l["root"]["folder"]["countIsLowerBound"] == true,
            "a frozen server costs a TIMEOUT: {l}"
        ),
    }
    assert_eq!(lost["phase"], "lost", "{lost}");
    assert!(lost["message"].is_string(), "and says why: {lost}");
    let again = list(&f, json!({ "handle": root })).expect("the next request reconnects");
    assert_eq!(shape(&again), shape(&listing));
    let back = state(&f, &root);
    assert_eq!(back["phase"], "connected", "{back}");
    assert_eq!(back["reconnects"], 1);
}

#[test]
fn a_server_that_closes_the_connection_is_lost_before_any_request() {
    let (mut sshd, f) = server();
    let listing = list(&f, json!({ "text": url(&sshd) })).unwrap();
    let root = listing["root"]["handle"].clone();
    sshd.kill();
    // Bounded wait for ssh to notice its end of the link is gone.
    let until = Instant::now() + Duration::from_secs(20);
    let mut seen = state(&f, &root);
    while seen["phase"] != "lost" && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(50));
        seen = state(&f, &root);
    }
    assert_eq!(seen["phase"], "lost", "{seen}");
    let refused = list(&f, json!({ "handle": root })).expect_err("nothing answers");
    assert!(
        ["IO", "TIMEOUT"].contains(&refused["code"].as_str().unwrap()),
        "{refused}"
    );
}

#[test]
fn an_unknown_host_key_is_refused_with_its_fingerprint() {
    let sshd = Sshd::start();
    let config = sshd.write_client_config("strict", "empty_known_hosts", "user_key");
    std::fs::write(sshd.dir.path().join("empty_known_hosts"), b"").unwrap();
    let f = Fixture::with(canopy_core::LocalFs::new(), Some(sshd.options(&config)));
    let refused = list(&f, json!({ "text": url(&sshd) })).expect_err("an unknown key");
    assert_eq!(refused["code"], "HOST_KEY_UNKNOWN", "{refused}");
    let fingerprint = super::sshd::fingerprint(&sshd.dir.path().join("host_key.pub"));
    let message = refused["message"].as_str().unwrap();
    assert!(message.contains(&fingerprint), "{message}");
    let root = encode_handle(&canopy_sftp::places::window_path(
        &canopy_sftp::parse(url(&sshd).as_bytes()).unwrap().target,
        &sshd.data(),
    ));
    let s = state(&f, &json!(root));
    assert_eq!(s["phase"], "lost", "{s}");
}

#[test]
fn a_url_argument_opens_the_servers_folder_as_typed() {
    let args = [
        OsString::from("canopy"),
        OsString::from("ssh://ann@files.example:2222/srv/data"),
    ];
    let launch = crate::launch_of(&args, Default::default());
    assert_eq!(
        launch.startup.folder,
        canopy_core::wire::RootSpec::Text("ssh://ann@files.example:2222/srv/data".into())
    );
    assert_eq!(launch.startup.select, None);
    let forwarded = crate::forwarded(
        &["canopy".into(), "sftp://files.example/x".into()],
        "/elsewhere",
    )
    .unwrap()
    .unwrap();
    assert_eq!(
        forwarded.folder,
        canopy_core::wire::RootSpec::Text("sftp://files.example/x".into()),
        "not taken as a path in the second instance's folder"
    );
}
