//! `canopy-mcp --root sftp://…`: a server's folder served to an agent, with
//! the same confinement as a local root, against the real OpenSSH server
//! canopy-sftp's tests start (its `tests/common`, shared by path).

use crate::common;
use crate::sshd;

use std::ffi::OsString;
use std::fs;
use std::os::unix::fs::{symlink, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::Command;

use common::{Reply, Server, Start};
use serde_json::json;
use sshd::{is_root, Sshd, HOST};

/// An `ssh_config` the server's user (`nobody` when the tests run as root)
/// can read, with a copy of the user key it owns.
fn config_for_the_server(sshd: &Sshd) -> PathBuf {
    let p = sshd.dir.path();
    fs::copy(p.join("user_key"), p.join("agent_key")).unwrap();
    fs::set_permissions(p.join("agent_key"), fs::Permissions::from_mode(0o600)).unwrap();
    let config = sshd.write_client_config("agent_config", "known_hosts", "agent_key");
    if is_root() {
        for f in ["agent_key", "agent_config", "known_hosts"] {
            let ok = Command::new("chown")
                .arg("nobody:nogroup")
                .arg(p.join(f))
                .status()
                .unwrap();
            assert!(ok.success());
        }
    }
    config
}

fn url(path: &Path) -> OsString {
    let mut u = OsString::from(format!("sftp://{HOST}"));
    u.push(path);
    u
}

/// A stand-in `ssh` first on the server's `PATH`: it writes its arguments
/// to `dir/ssh-args` and runs the real one.
fn recording_ssh(dir: &Path) -> String {
    let bin = dir.join("bin");
    fs::create_dir_all(&bin).unwrap();
    fs::set_permissions(&bin, fs::Permissions::from_mode(0o755)).unwrap();
    let log = dir.join("ssh-args");
    fs::write(&log, b"").unwrap();
    fs::set_permissions(&log, fs::Permissions::from_mode(0o666)).unwrap();
    let ssh = bin.join("ssh");
    fs::write(
        &ssh,
        format!(
            "#!/bin/sh\necho \"$@\" >> {}\nexec /usr/bin/ssh \"$@\"\n",
            log.display()
        ),
    )
    .unwrap();
    fs::set_permissions(&ssh, fs::Permissions::from_mode(0o755)).unwrap();
    format!("{}:/usr/bin:/bin", bin.display())
}

async fn start(sshd: &Sshd, root: &Path, path_env: Option<String>) -> Server {
    Server::start_with(Start {
        roots: vec![PathBuf::from(url(root))],
        args: vec!["--ssh-config".into(), config_for_the_server(sshd).into()],
        env: path_env
            .map(|p| vec![("PATH".into(), p)])
            .unwrap_or_default(),
        ..Start::default()
    })
    .await
}

/// The tree every test serves: `root` (the --root) and, beside it, what
/// lies outside.
fn tree(sshd: &Sshd) -> PathBuf {
    let d = sshd.data();
    let root = d.join("root");
    fs::create_dir_all(root.join("sub")).unwrap();
    fs::write(root.join("hello.txt"), b"hello from the server\n").unwrap();
    fs::write(root.join("sub/deep.txt"), b"deep\n").unwrap();
    fs::write(d.join("secret.txt"), b"TOP SECRET CONTENT\n").unwrap();
    symlink("/etc", root.join("to_etc")).unwrap();
    symlink("../secret.txt", root.join("to_secret")).unwrap();
    symlink("..", root.join("up")).unwrap();
    symlink("sub", root.join("to_sub")).unwrap();
    root
}

#[tokio::test(flavor = "multi_thread")]
async fn a_remote_root_is_listed_and_read_with_the_same_confinement() {
    let sshd = Sshd::start();
    let root = tree(&sshd);
    let dir = tempfile::tempdir().unwrap();
    fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o755)).unwrap();
    let s = start(&sshd, &root, Some(recording_ssh(dir.path()))).await;
    let root_text = root.to_str().unwrap();

    let listing = s.list(json!({ "path": root_text })).await.ok();
    let line = |name: &str| {
        listing
            .lines()
            .into_iter()
            .find(|l| l.contains(name))
            .unwrap_or_else(|| panic!("{name} listed: {}", listing.text))
            .to_string()
    };
    assert!(line("hello.txt").contains("hello.txt"));
    for out in ["to_etc", "to_secret", "up"] {
        assert!(
            line(out).contains("(outside the roots)"),
            "a link out of the root: {}",
            line(out)
        );
    }
    assert!(
        !line("to_sub").contains("outside"),
        "a link inside the root: {}",
        line("to_sub")
    );

    let read = Reply::of(
        s.call(
            "read_file",
            json!({ "path": format!("{root_text}/hello.txt") }),
        )
        .await,
    )
    .ok();
    assert!(read.text.contains("hello from the server"), "{}", read.text);

    let escapes = [
        "/etc".to_string(),
        format!("{root_text}/.."),
        format!("{root_text}/up"),
        format!("{root_text}/to_etc"),
        format!("{root_text}/sub/../../secret.txt"),
        "../secret.txt".into(),
    ];
    for path in &escapes {
        let r = s.list(json!({ "path": path })).await;
        assert_eq!(r.code(), "DENIED", "{path}: {}", r.text);
        let r = Reply::of(s.call("read_file", json!({ "path": path })).await);
        assert_eq!(r.code(), "DENIED", "read_file {path}: {}", r.text);
    }
    let r = Reply::of(
        s.call(
            "read_file",
            json!({ "path": format!("{root_text}/to_secret") }),
        )
        .await,
    );
    assert_eq!(r.code(), "DENIED", "a link to a file outside: {}", r.text);

    let found = Reply::of(
        s.call("search", json!({ "path": root_text, "content": "deep" }))
            .await,
    )
    .ok();
    assert!(found.text.contains("deep.txt"), "{}", found.text);
    assert!(!found.text.contains("secret"), "{}", found.text);

    let found = Reply::of(
        s.call(
            "find_in_folder",
            json!({ "path": root_text, "pattern": "hello*" }),
        )
        .await,
    )
    .ok();
    assert!(found.text.contains("hello.txt"), "{}", found.text);
    let both = Reply::of(
        s.call(
            "read_files",
            json!({ "paths": [format!("{root_text}/hello.txt"), format!("{root_text}/to_secret")] }),
        )
        .await,
    );
    assert!(both.text.contains("hello from the server"), "{}", both.text);
    assert!(
        !both.text.contains("TOP SECRET"),
        "what a link out leads to is never read: {}",
        both.text
    );

    let sizes = Reply::of(s.call("folder_sizes", json!({ "path": root_text })).await).ok();
    assert!(sizes.text.contains("sub"), "{}", sizes.text);

    // The facts a server tells (kind, size, time), from the registry's confined form.
    let info = Reply::of(s.call("file_info", json!({ "path": root_text })).await).ok();
    assert!(info.text.starts_with("[DIR] "), "{}", info.text);
    assert!(info.text.contains("entries 6"), "{}", info.text);
    let info = Reply::of(
        s.call(
            "file_info",
            json!({ "path": format!("{root_text}/hello.txt") }),
        )
        .await,
    )
    .ok();
    assert!(info.text.contains("size 22 bytes"), "{}", info.text);

    let args = fs::read_to_string(dir.path().join("ssh-args")).unwrap();
    assert!(
        args.lines()
            .next()
            .is_some_and(|l| l.contains("BatchMode=yes")),
        "ssh runs in batch mode: {args}"
    );
}

/// A cursor outlives the connection it was issued on: the server's
/// sessions are killed between two pages, and the next page comes over a
/// new connection.
#[tokio::test(flavor = "multi_thread")]
async fn a_cursor_continues_its_folder_after_a_reconnect() {
    let sshd = Sshd::start();
    let root = tree(&sshd);
    let many = root.join("many");
    fs::create_dir(&many).unwrap();
    for i in 0..6000 {
        fs::write(many.join(format!("{i:05}")), b"").unwrap();
    }
    let s = start(&sshd, &root, None).await;
    let path = many.to_str().unwrap();
    let first = s.list(json!({ "path": path, "depth": 1 })).await.ok();
    let cursor = first.next_cursor().expect("6000 names do not fit one page");
    for pid in sshd.sessions() {
        sshd::signal(pid, "KILL");
    }
    // The first request after the kill may find the connection gone (an
    // error that says so); the one after it reconnects.
    let mut next = s
        .list(json!({ "path": path, "depth": 1, "cursor": cursor }))
        .await;
    if next.is_error && next.code() == "IO" {
        next = s
            .list(json!({ "path": path, "depth": 1, "cursor": cursor }))
            .await;
    }
    let next = next.ok();
    let names = |text: &str| -> Vec<String> {
        text.lines()
            .filter_map(|l| l.strip_prefix("[FILE] "))
            .map(|l| l.split_whitespace().next().unwrap_or_default().to_string())
            .collect()
    };
    let (a, b) = (names(&first.text), names(&next.text));
    assert!(
        !a.is_empty() && !b.is_empty(),
        "{}\n{}",
        first.text,
        next.text
    );
    let number = |n: &String| n.parse::<u32>().unwrap();
    assert_eq!(
        number(&b[0]),
        number(a.last().unwrap()) + 1,
        "the next page starts where the first ended"
    );
}

#[test]
fn a_remote_root_that_is_missing_or_mixed_exits_2() {
    let sshd = Sshd::start();
    let root = tree(&sshd);
    let config = config_for_the_server(&sshd);
    let run = |roots: &[OsString]| {
        let mut cmd = if is_root() {
            let mut c = Command::new("setpriv");
            c.args(["--reuid=nobody", "--regid=nogroup", "--clear-groups", "--"]);
            c.arg(common::binary());
            c
        } else {
            Command::new(common::binary())
        };
        for r in roots {
            cmd.arg("--root").arg(r);
        }
        cmd.arg("--ssh-config").arg(&config);
        cmd.output().unwrap()
    };
    let missing = run(&[url(&root.join("missing"))]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&missing.stderr).contains("NOT_FOUND"),
        "{}",
        String::from_utf8_lossy(&missing.stderr)
    );
    let file = run(&[url(&root.join("hello.txt"))]);
    assert_eq!(file.status.code(), Some(2));
    let mixed = run(&[url(&root), root.clone().into()]);
    assert_eq!(mixed.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&mixed.stderr).contains("mixed"));
}

/// `canopy-mcp` serving the fake server's root (its `ssh` on `PATH`).
async fn start_fake(server: &sshd::FakeServer, dir: &Path) -> Server {
    Server::start_with(Start {
        roots: vec![PathBuf::from(format!("sftp://fake{}", sshd::FAKE_ROOT))],
        env: vec![("PATH".into(), server.path_env(dir))],
        ..Start::default()
    })
    .await
}

#[tokio::test(flavor = "multi_thread")]
async fn a_server_claiming_4_billion_names_fails_the_call_and_the_next_call_is_answered() {
    let dir = tempfile::tempdir().unwrap();
    let server = sshd::FakeServer::new()
        .file("/srv/a", 5, b"hello")
        .hostile("READDIR", sshd::name_reply(u32::MAX, &[b"a"]));
    let s = start_fake(&server, dir.path()).await;
    let listed = s.list(json!({ "path": "/srv" })).await;
    assert_eq!(listed.code(), "IO", "{}", listed.text);
    assert!(
        listed.text.contains("claims 4294967295 entries"),
        "the error says what the server claimed: {}",
        listed.text
    );
    let read = Reply::of(s.call("read_file", json!({ "path": "/srv/a" })).await).ok();
    assert!(read.text.contains("hello"), "{}", read.text);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_server_file_that_ends_before_its_size_is_read_once_never_again() {
    let dir = tempfile::tempdir().unwrap();
    // 1 TiB says `stat`; the first read finds the end.
    let server = sshd::FakeServer::new().file("/srv/huge", 1 << 40, b"");
    let s = start_fake(&server, dir.path()).await;
    let mut offset = 0u64;
    let mut reads = 0;
    let last = loop {
        let r = Reply::of(
            s.call(
                "read_file",
                json!({ "path": "/srv/huge", "offset": offset }),
            )
            .await,
        )
        .ok();
        reads += 1;
        match r.structured["nextOffset"].as_u64() {
            Some(next) => {
                assert!(next > offset, "a continuation moves on: {}", r.text);
                assert!(
                    reads < 4,
                    "an agent following the replies loops: {}",
                    r.text
                );
                offset = next;
            }
            None => break r,
        }
    };
    let header = last.text.lines().next().unwrap();
    assert!(
        header.contains("ended at byte 0") && !header.contains("for more"),
        "the reply says the file ended early, with the bytes read: {header}"
    );
    // By lines, the same: no continuation that stays where it is.
    let r = Reply::of(
        s.call("read_file", json!({ "path": "/srv/huge", "head": 10 }))
            .await,
    )
    .ok();
    assert_eq!(
        r.structured["nextOffset"],
        json!(null),
        "nothing more to read: {}",
        r.text
    );
    let header = r.text.lines().next().unwrap();
    assert!(header.contains("ended at byte 0"), "{header}");
}
