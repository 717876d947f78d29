//! `canopy-list sftp://…` against a real OpenSSH server the test starts
//! (canopy-sftp's `tests/common`, shared by path): every flag prints what it
//! prints for the same folder listed locally (the server serves this
//! machine's own files), and the connection's refusals are exit 1 with
//! their codes.

use crate::sshd as common;

use std::fs;
use std::path::Path;
use std::process::{Command, Output};

use common::*;

fn canopy_list(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_canopy-list"))
        .args(args)
        .env("XDG_CONFIG_HOME", "/nonexistent-canopy-test-config")
        .output()
        .expect("canopy-list runs")
}

fn text(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn fixture(root: &Path) {
    for (name, len) in [
        ("b.txt", 10),
        ("a.rs", 2000),
        ("Z.md", 0),
        (".hidden", 3),
        ("new\nline.txt", 1),
    ] {
        fs::write(root.join(name), vec![b'x'; len]).unwrap();
    }
    fs::create_dir_all(root.join("photos")).unwrap();
    for i in 0..120 {
        fs::write(
            root.join(format!("photos/img_{i:03}.{}", ["jpg", "json"][i % 2])),
            vec![0; i],
        )
        .unwrap();
    }
    fs::create_dir_all(root.join("docs/deeper/deepest")).unwrap();
    fs::write(root.join("docs/a.md"), b"# a").unwrap();
    std::os::unix::fs::symlink("docs", root.join("link")).unwrap();
    std::os::unix::fs::symlink("gone", root.join("dangling")).unwrap();
}

#[test]
fn every_flag_lists_a_server_folder_as_it_lists_the_same_folder_here() {
    let sshd = Sshd::start();
    let data = sshd.data();
    fixture(&data);
    let config = sshd.config();
    let url = format!("sftp://{HOST}{}", data.display());
    let local = data.to_str().unwrap();
    let flag_sets: &[&[&str]] = &[
        &[],
        &["--depth", "1"],
        &["--depth", "3", "--cap", "2"],
        &["--cap", "3", "--limit", "2", "--offset", "1"],
        &["--limit", "3", "--offset", "99"],
        &["--sort", "size", "--reverse", "--cap", "4"],
        &["--sort", "type", "--cap", "4"],
        &["--filter", "*.md"],
        &["--filter", "TXT", "--summary"],
        &["--summary", "--cap", "5"],
        &["--no-dotfiles", "--all"],
        &["--archives", "--cap", "2"],
    ];
    for flags in flag_sets {
        let remote = canopy_list(
            &[
                &[url.as_str(), "--ssh-config", config.to_str().unwrap()],
                *flags,
            ]
            .concat(),
        );
        let here = canopy_list(&[&[local], *flags].concat());
        assert!(
            remote.status.success(),
            "{flags:?}: {}",
            String::from_utf8_lossy(&remote.stderr)
        );
        assert_eq!(
            text(&remote),
            text(&here),
            "canopy-list {flags:?}: remote and local output differ"
        );
    }
    // --json and a cursor made by one page, continued by the next.
    let page = canopy_list(&[
        &url,
        "--ssh-config",
        config.to_str().unwrap(),
        "--json",
        "--limit",
        "2",
    ]);
    let page: serde_json::Value = serde_json::from_slice(&page.stdout).unwrap();
    assert_eq!(page["root"]["folder"]["total"], serde_json::json!(9));
    let cursor = page["nextCursor"].as_str().expect("a next cursor");
    let remote = canopy_list(&[
        &url,
        "--ssh-config",
        config.to_str().unwrap(),
        "--after",
        cursor,
        "--limit",
        "3",
    ]);
    let here = canopy_list(&[local, "--after", cursor, "--limit", "3"]);
    assert!(
        remote.status.success(),
        "{}",
        String::from_utf8_lossy(&remote.stderr)
    );
    assert_eq!(
        text(&remote),
        text(&here),
        "the cursor continues the same order"
    );
}

#[test]
fn refused_connections_exit_1_with_their_codes() {
    let sshd = Sshd::start();
    let data = sshd.data();
    let url = format!("sftp://{HOST}{}", data.display());
    fs::write(sshd.dir.path().join("none_known"), b"").unwrap();
    let unknown = sshd.write_client_config("config-unknown", "none_known", "user_key");
    let wrong_key = sshd.write_client_config("config-key", "known_hosts", "other_key");
    for (config, code) in [(&unknown, "HOST_KEY_UNKNOWN"), (&wrong_key, "AUTH_FAILED")] {
        let out = canopy_list(&[&url, "--ssh-config", config.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(1), "{code}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.starts_with(&format!("canopy-list: {code}: ")), "{err}");
    }
    let missing = canopy_list(&[
        &format!("{url}/nothing-here"),
        "--ssh-config",
        sshd.config().to_str().unwrap(),
    ]);
    assert_eq!(missing.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&missing.stderr).starts_with("canopy-list: NOT_FOUND: "));
    for bad in ["sftp://-oProxyCommand=x/", "sftp://host:0/", "ssh://"] {
        let out = canopy_list(&[bad]);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{bad}: a bad URL is a bad argument"
        );
    }
    let out = canopy_list(&[data.to_str().unwrap(), "--ssh-config", "x"]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "--ssh-config is for a remote PATH"
    );
}

#[test]
fn gitignore_hides_on_a_server_folder_what_it_hides_here() {
    let sshd = Sshd::start();
    let repo = sshd.data().join("repo");
    fs::create_dir_all(repo.join("src/deep")).unwrap();
    let git = Command::new("git")
        .args(["init", "-q"])
        .arg(&repo)
        .status()
        .unwrap();
    assert!(git.success());
    fs::write(repo.join(".gitignore"), b"*.log\nbuild/\n").unwrap();
    fs::write(repo.join(".git/info/exclude"), b"secret*\n").unwrap();
    fs::create_dir_all(repo.join("build")).unwrap();
    fs::write(repo.join("build/out.o"), b"o").unwrap();
    for f in ["a.log", "b.txt", "secret.env", "src/main.rs", "src/x.log"] {
        fs::write(repo.join(f), b"x").unwrap();
    }
    fs::write(repo.join("src/.gitignore"), b"!x.log\ndeep/\n").unwrap();
    fs::write(repo.join("src/deep/hidden.txt"), b"x").unwrap();
    // A folder of the repository listed by itself: the rules above it apply.
    let config = sshd.config();
    for (folder, depth) in [(repo.clone(), "3"), (repo.join("src"), "2")] {
        let url = format!("sftp://{HOST}{}", folder.display());
        let args = ["--gitignore", "--depth", depth];
        let remote = canopy_list(
            &[
                &[url.as_str(), "--ssh-config", config.to_str().unwrap()][..],
                &args[..],
            ]
            .concat(),
        );
        let local = canopy_list(&[&[folder.to_str().unwrap()][..], &args[..]].concat());
        assert!(
            remote.status.success(),
            "{}",
            String::from_utf8_lossy(&remote.stderr)
        );
        assert_eq!(
            text(&remote),
            text(&local),
            "{folder:?}: the same entries hidden"
        );
        assert!(!text(&remote).contains("UNSUPPORTED"), "{}", text(&remote));
    }
    let all = text(&canopy_list(&[
        &format!("sftp://{HOST}{}", repo.display()),
        "--ssh-config",
        config.to_str().unwrap(),
        "--gitignore",
        "--depth",
        "3",
    ]));
    for hidden in ["a.log", "build", "secret.env", "hidden.txt"] {
        assert!(!all.contains(hidden), "{hidden} hidden: {all}");
    }
    assert!(all.contains("x.log"), "a deeper !negation wins: {all}");

    // An ignore file over the cap is not used, and the folder says so.
    fs::write(
        repo.join("src/.gitignore"),
        vec![b'#'; canopy_core::limits::MAX_IGNORE_FILE_BYTES as usize + 1],
    )
    .unwrap();
    let big = text(&canopy_list(&[
        &format!("sftp://{HOST}{}", repo.join("src").display()),
        "--ssh-config",
        config.to_str().unwrap(),
        "--gitignore",
    ]));
    assert!(big.contains("TOO_LARGE"), "{big}");
}

#[test]
fn a_server_claiming_4_billion_names_is_exit_1_saying_so_not_an_abort() {
    let dir = tempfile::tempdir().unwrap();
    let path = FakeServer::new()
        .file("/srv/a", 1, b"a")
        .hostile("READDIR", name_reply(u32::MAX, &[b"a"]))
        .path_env(dir.path());
    let out = Command::new(env!("CARGO_BIN_EXE_canopy-list"))
        .arg(format!("sftp://fake{FAKE_ROOT}"))
        .env("PATH", path)
        .env("XDG_CONFIG_HOME", "/nonexistent-canopy-test-config")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "exit 1, not a signal: {err}");
    assert!(
        err.starts_with("canopy-list: IO: ") && err.contains("claims 4294967295 entries"),
        "the error says what the server claimed: {err}"
    );
}

#[test]
fn a_servers_error_message_is_one_bounded_line_on_stderr() {
    let dir = tempfile::tempdir().unwrap();
    // A STATUS of "failure" whose message is 200 KiB of line breaks and text.
    let text: Vec<u8> = b"forged\n[FILE] line\n".repeat(10 << 10);
    let mut body = vec![101, 0, 0, 0, 0, 0, 0, 0, 4];
    body.extend_from_slice(&(text.len() as u32).to_be_bytes());
    body.extend_from_slice(&text);
    body.extend_from_slice(&[0, 0, 0, 0]);
    let path = FakeServer::new()
        .hostile("OPENDIR", frame(&body))
        .path_env(dir.path());
    let out = Command::new(env!("CARGO_BIN_EXE_canopy-list"))
        .arg(format!("sftp://fake{FAKE_ROOT}"))
        .env("PATH", path)
        .env("XDG_CONFIG_HOME", "/nonexistent-canopy-test-config")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(
        err.lines().count(),
        1,
        "one line: {}",
        &err[..err.len().min(300)]
    );
    assert!(
        err.len() <= canopy_core::limits::LIST_LINE_BYTES && err.contains("\\cut{"),
        "bounded, saying what was cut: {} bytes",
        err.len()
    );
}
