//! Roots that never lock an agent out: a client that offers roots and
//! lists none (or none usable) gets the server's `--root` folders, told in
//! a log notification; `list_roots` names the folders; `logging/setLevel`
//! sets which notifications are sent.
#![allow(deprecated)]

use crate::common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{list_args, path_arg, Server, Start, Tree};
use rmcp::model::{LoggingLevel, SetLevelRequestParams};
use serde_json::json;

async fn logs_after(s: &Server, n: usize) -> Vec<(String, String)> {
    // A notification and the reply after it travel in order on one
    // stream, but the client hands them to different tasks.
    for _ in 0..200 {
        let logs = s.seen.logs.lock().unwrap().clone();
        if logs.len() >= n {
            return logs;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    s.seen.logs.lock().unwrap().clone()
}

fn start(t: &Tree, client: Vec<String>) -> Start {
    Start {
        roots: vec![t.path()],
        client_roots: Some(Arc::new(Mutex::new(client))),
        ..Start::default()
    }
}

#[tokio::test]
async fn empty_client_roots_fall_back_to_the_server_folders_and_say_so() {
    let t = Tree::new();
    t.file("a.txt");
    let s = Server::start_with(start(&t, vec![])).await;
    let r = s.list(list_args(&t.path())).await.ok();
    assert!(r.text.contains("[FILE] a.txt"), "{}", r.text);
    let logs = logs_after(&s, 1).await;
    assert_eq!(logs.len(), 1, "one warning: {logs:?}");
    assert_eq!(logs[0].0, "warning");
    assert!(
        logs[0].1.contains("lists no roots") && logs[0].1.contains(&path_arg(&t.path())),
        "{logs:?}"
    );
    let roots = s.call("list_roots", json!({})).await;
    let roots = common::Reply::of(roots).ok();
    assert_eq!(roots.structured["roots"], json!([path_arg(&t.path())]));
    assert!(roots.text.contains("[FALLBACK]"), "{}", roots.text);
    assert!(
        roots
            .text
            .starts_with(&format!("[ROOT] {}\n", path_arg(&t.path()))),
        "{}",
        roots.text
    );
}

#[tokio::test]
async fn client_roots_that_are_not_local_folders_fall_back_too() {
    let t = Tree::new();
    let s = Server::start_with(start(&t, vec!["https://example.com/x".into()])).await;
    s.list(list_args(&t.path())).await.ok();
    let logs = logs_after(&s, 1).await;
    assert!(
        logs.iter().any(|(_, m)| m.contains("local folder")),
        "{logs:?}"
    );
}

#[tokio::test]
async fn usable_client_roots_outside_the_server_folders_still_allow_nothing() {
    let t = Tree::new();
    let root = t.dir("root");
    let elsewhere = t.dir("elsewhere");
    let s = Server::start_with(Start {
        roots: vec![root.clone()],
        client_roots: Some(Arc::new(Mutex::new(vec![format!(
            "file://{}",
            path_arg(&elsewhere)
        )]))),
        ..Start::default()
    })
    .await;
    assert_eq!(s.list(list_args(&root)).await.code(), "DENIED");
    let roots = common::Reply::of(s.call("list_roots", json!({})).await).ok();
    assert_eq!(roots.structured["roots"], json!([]), "{}", roots.text);
    assert!(
        !roots.text.contains("[FALLBACK]"),
        "no fallback: {}",
        roots.text
    );
    let logs = logs_after(&s, 1).await;
    assert!(
        logs.len() == 1 && logs[0].1.contains("share no folder"),
        "but the agent is told why everything is refused: {logs:?}"
    );
}

#[tokio::test]
async fn rfc_8089_file_uris_narrow_like_the_usual_form_never_widen() {
    let t = Tree::new();
    let a = t.dir("a");
    let b = t.dir("b");
    for uri in [
        format!("file:{}", path_arg(&a)),
        format!("FILE://{}", path_arg(&a)),
        format!("file://LOCALHOST{}", path_arg(&a)),
    ] {
        let s = Server::start_with(Start {
            roots: vec![a.clone(), b.clone()],
            client_roots: Some(Arc::new(Mutex::new(vec![uri.clone()]))),
            ..Start::default()
        })
        .await;
        s.list(list_args(&a)).await.ok();
        assert_eq!(s.list(list_args(&b)).await.code(), "DENIED", "{uri}");
        let roots = common::Reply::of(s.call("list_roots", json!({})).await).ok();
        assert_eq!(roots.structured["roots"], json!([path_arg(&a)]), "{uri}");
    }
}

#[tokio::test]
async fn client_roots_that_are_no_folder_here_fall_back_and_say_so() {
    let t = Tree::new();
    t.file("f.txt");
    let s = Server::start_with(start(
        &t,
        vec![
            format!("file://{}", path_arg(&t.at("missing"))),
            format!("file://{}", path_arg(&t.at("f.txt"))),
        ],
    ))
    .await;
    let r = s.list(list_args(&t.path())).await.ok();
    assert!(r.text.contains("[FILE] f.txt"), "{}", r.text);
    let logs = logs_after(&s, 1).await;
    assert!(
        logs.iter()
            .any(|(l, m)| l == "warning" && m.contains("is a folder on this machine")),
        "{logs:?}"
    );
}

#[tokio::test]
async fn narrowed_roots_are_named_by_list_roots() {
    let t = Tree::new();
    let a = t.dir("a");
    let s = Server::start_with(start(&t, vec![format!("file://{}", path_arg(&a))])).await;
    let roots = common::Reply::of(s.call("list_roots", json!({})).await).ok();
    assert_eq!(roots.structured["roots"], json!([path_arg(&a)]));
    assert_eq!(roots.structured["narrowedByClient"], json!(true));
}

#[tokio::test]
async fn set_level_above_warning_silences_the_fallback_notice() {
    let t = Tree::new();
    let s = Server::start_with(start(&t, vec![])).await;
    s.client
        .set_level(SetLevelRequestParams::new(LoggingLevel::Error))
        .await
        .expect("logging/setLevel answers");
    s.list(list_args(&t.path())).await.ok();
    // The reply came after any notice would have: none was sent.
    assert!(logs_after(&s, 1).await.is_empty());
    let info = s.client.peer_info().expect("server info");
    assert!(info.capabilities.logging.is_some(), "logging is advertised");
}

#[tokio::test]
async fn file_info_states_the_facts_stat_states() {
    let t = Tree::new();
    let f = t.write("dir/a.txt", b"12345");
    std::fs::set_permissions(&f, std::os::unix::fs::PermissionsExt::from_mode(0o640)).unwrap();
    t.file("dir/b");
    t.link("link", "dir/a.txt");
    let s = Server::start(&[&t.path()]).await;
    let r = common::Reply::of(s.call("file_info", json!({"path": path_arg(&f)})).await).ok();
    let stat = std::process::Command::new("stat")
        .args(["-c", "%s %A"])
        .arg(&f)
        .output()
        .unwrap();
    let stat = String::from_utf8(stat.stdout).unwrap();
    let (size, mode) = stat.trim().split_once(' ').unwrap();
    assert!(r.text.contains(&format!("size {size} bytes")), "{}", r.text);
    assert!(
        r.text
            .contains(&format!("permissions {} (640)", &mode[1..])),
        "{}",
        r.text
    );
    let d = common::Reply::of(
        s.call("file_info", json!({"path": path_arg(&t.at("dir"))}))
            .await,
    )
    .ok();
    assert!(
        d.text.starts_with("[DIR] ") && d.text.contains("entries 2\n"),
        "{}",
        d.text
    );
    let l = common::Reply::of(
        s.call("file_info", json!({"path": path_arg(&t.at("link"))}))
            .await,
    )
    .ok();
    assert!(
        l.text
            .contains(&format!("reached through a link or `..`: {}", path_arg(&f))),
        "{}",
        l.text
    );
}

#[tokio::test]
async fn file_info_takes_several_paths_and_a_failed_one_is_its_own_line() {
    let t = Tree::new();
    let f = t.write("dir/a.txt", b"12345");
    let s = Server::start(&[&t.path()]).await;
    let missing = format!("{}/missing", path_arg(&t.path()));
    let r = common::Reply::of(
        s.call(
            "file_info",
            json!({"paths": [path_arg(&f), path_arg(&t.at("dir")), missing]}),
        )
        .await,
    )
    .ok();
    let stat = std::process::Command::new("stat")
        .args(["-c", "%s"])
        .arg(&f)
        .output()
        .unwrap();
    let size = String::from_utf8(stat.stdout).unwrap();
    assert!(
        r.text.starts_with(&format!(
            "[FILE] {}\nsize {} bytes\n",
            path_arg(&f),
            size.trim()
        )),
        "{}",
        r.text
    );
    assert!(
        r.text
            .contains(&format!("\n[DIR] {}\n", path_arg(&t.at("dir")))),
        "{}",
        r.text
    );
    assert!(r.text.contains("entries 1\n"), "{}", r.text);
    assert!(
        r.text.contains(&format!("[NOT_FOUND] {missing}: ")),
        "{}",
        r.text
    );
    let files = r.structured["files"].as_array().unwrap();
    assert_eq!(files.len(), 3);
    assert_eq!(files[0]["size"], 5);
    assert_eq!(files[2]["error"], "NOT_FOUND");
    for bad in [
        json!({"paths": []}),
        json!({"paths": vec!["a"; 11]}),
        json!({"path": "a", "paths": ["a"]}),
        json!({}),
    ] {
        let r = common::Reply::of(s.call("file_info", bad.clone()).await);
        assert_eq!(r.code(), "INVALID_ARGUMENT", "{bad}: {}", r.text);
    }
}

#[tokio::test]
async fn a_link_out_of_the_roots_says_it_is_a_link_and_tells_nothing_of_its_target() {
    let t = Tree::new();
    let root = t.dir("root");
    t.write("elsewhere/secret/plans.txt", b"x");
    t.link("root/to_secret", t.at("elsewhere/secret"));
    t.link("root/to_nothing", t.at("elsewhere/nothing"));
    let s = Server::start(&[&root]).await;
    let mut texts = Vec::new();
    for name in ["to_secret", "to_nothing"] {
        let link = format!("{}/{name}", path_arg(&root));
        let info = common::Reply::of(s.call("file_info", json!({"path": link})).await).ok();
        assert_eq!(
            info.text,
            format!("[LINK] {link}: a link leading outside the folders this server may show (never followed; its target is not told)\n")
        );
        assert_eq!(info.structured["files"][0]["kind"], "LINK");
        let list = s.list(json!({"path": link})).await;
        assert_eq!(list.code(), "DENIED", "{}", list.text);
        assert!(
            list.text
                .contains(&format!("{link} is a link leading outside the folders")),
            "{}",
            list.text
        );
        texts.push(info.text.replace(name, "NAME") + &list.text.replace(name, "NAME"));
    }
    for text in &texts {
        assert!(
            !text.contains("elsewhere") && !text.contains("secret") && !text.contains("plans"),
            "{text}"
        );
    }
    assert_eq!(texts[0], texts[1], "whether the target exists is not told");
    // A path through the link is outside, as before: not called a link.
    let through = s
        .list(json!({"path": format!("{}/to_secret/x", path_arg(&root))}))
        .await;
    assert_eq!(through.code(), "DENIED");
    assert!(!through.text.contains("is a link"), "{}", through.text);
}
