//! One place, one answer: the window, `canopy-list` and `canopy-mcp` show
//! the same entries for a local folder, an archive, an archive on a server
//! and a server's folder, because each asks the one registry
//! (`canopy_places::standard`) where a path lives. The server is the test
//! `sshd` (canopy-sftp's `tests/common`), serving this machine's own files.
//!
//! The window's face is its `list_directory` command on the mock runtime;
//! the others are the `canopy-list` and `canopy-mcp` binaries beside this
//! test's (`target/debug`), which the test build (`scripts/test`) builds
//! with it.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use canopy_core::wire::EntryKind;
use serde_json::{json, Value};

use super::ipc::{json, stored_zip, Fixture};
use super::sshd::{Sshd, HOST};

/// What a face shows of a folder's top level: each entry's kind (as the
/// wire names it) and name, sorted.
type Shown = Vec<(String, String)>;

/// A binary of the workspace, built beside this test.
fn sibling(name: &str) -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let bin = exe.parent().and_then(Path::parent).unwrap().join(name);
    assert!(
        bin.is_file(),
        "{} is built with the tests (cargo build -p canopy-list -p canopy-mcp)",
        bin.display()
    );
    bin
}

/// The wire's name of a kind.
fn wire_kind(kind: EntryKind) -> String {
    serde_json::to_value(kind)
        .unwrap()
        .as_str()
        .unwrap()
        .to_string()
}

/// The top level of a listing as the window and `canopy-list --json` send it.
fn of_listing(listing: &Value) -> Shown {
    let mut shown: Shown = listing["root"]["folder"]["entries"]
        .as_array()
        .unwrap_or_else(|| panic!("a listing with entries: {listing}"))
        .iter()
        .map(|e| {
            (
                e["kind"].as_str().unwrap().to_string(),
                e["name"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    shown.sort();
    shown
}

/// The top level of `canopy-mcp`'s `list_directory` text at depth 1: each
/// line that starts with a kind's tag (`[FILE] name ...`, `[LINK] name ->
/// target`; the fixture's names hold neither two spaces nor ` -> `).
fn of_text(text: &str) -> Shown {
    let kinds = [
        EntryKind::File,
        EntryKind::Folder,
        EntryKind::Symlink,
        EntryKind::Fifo,
        EntryKind::Socket,
        EntryKind::CharDevice,
        EntryKind::BlockDevice,
        EntryKind::Unknown,
    ];
    let mut shown: Shown = text
        .lines()
        .filter_map(|line| {
            kinds.iter().find_map(|&kind| {
                let rest = line.strip_prefix(canopy_core::text::tag(kind))?;
                let name = rest.split("  ").next()?.split(" -> ").next()?;
                let name = name.trim_end_matches('/');
                Some((wire_kind(kind), name.to_string()))
            })
        })
        .collect();
    shown.sort();
    shown
}

fn window(f: &Fixture, root: &str) -> Shown {
    let request = json!({ "request": { "requestId": 1, "root": { "text": root } } });
    let listing = f
        .invoke("list_directory", request)
        .map(json)
        .unwrap_or_else(|e| panic!("the window lists {root}: {e}"));
    of_listing(&listing)
}

fn canopy_list(root: &str, config: &Path) -> Shown {
    let mut command = Command::new(sibling("canopy-list"));
    command.args([root, "--json", "--depth", "1"]);
    if root.starts_with("sftp://") {
        command.arg("--ssh-config").arg(config);
    }
    let out = command.output().unwrap();
    assert!(
        out.status.success(),
        "canopy-list {root}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    of_listing(&serde_json::from_slice(&out.stdout).unwrap())
}

/// `canopy-mcp --root ROOT`, spoken to line by line.
struct Mcp {
    child: std::process::Child,
    out: BufReader<std::process::ChildStdout>,
    next: u64,
}

impl Mcp {
    fn start(root: &str, config: &Path) -> Mcp {
        let mut command = Command::new(sibling("canopy-mcp"));
        command.arg("--root").arg(root);
        if root.starts_with("sftp://") {
            command.arg("--ssh-config").arg(config);
        }
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let out = BufReader::new(child.stdout.take().unwrap());
        let mut mcp = Mcp {
            child,
            out,
            next: 0,
        };
        mcp.ask(
            "initialize",
            json!({ "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": { "name": "faces", "version": "0" } }),
        );
        mcp.send(&json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }));
        mcp
    }

    fn send(&mut self, message: &Value) {
        let stdin = self.child.stdin.as_mut().unwrap();
        writeln!(stdin, "{message}").unwrap();
        stdin.flush().unwrap();
    }

    fn ask(&mut self, method: &str, params: Value) -> Value {
        self.next += 1;
        let id = self.next;
        self.send(&json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
        loop {
            let mut line = String::new();
            assert!(
                self.out.read_line(&mut line).unwrap() > 0,
                "canopy-mcp ended"
            );
            let reply: Value = serde_json::from_str(&line).unwrap();
            if reply["id"] == json!(id) {
                return reply;
            }
        }
    }

    fn list(&mut self, path: &str) -> Shown {
        let reply = self.ask(
            "tools/call",
            json!({ "name": "list_directory", "arguments": { "path": path, "depth": 1 } }),
        );
        let result = &reply["result"];
        assert_ne!(
            result["isError"],
            json!(true),
            "canopy-mcp lists {path}: {reply}"
        );
        of_text(result["content"][0]["text"].as_str().unwrap())
    }
}

impl Drop for Mcp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn every_face_lists_each_kind_of_place_the_same() {
    let sshd = Sshd::start();
    let data = sshd.data();
    std::fs::create_dir_all(data.join("folder/inner")).unwrap();
    std::fs::write(data.join("folder/notes.txt"), "notes\n").unwrap();
    std::os::unix::fs::symlink("notes.txt", data.join("folder/link")).unwrap();
    let zipped = [
        ("readme.txt", "hello from inside\n"),
        ("assets/logo.txt", "logo\n"),
    ];
    let zip = stored_zip(&zipped, "three faces");
    std::fs::write(data.join("site.zip"), &zip).unwrap();
    // An archive inside a folder that is itself inside the archive's place.
    std::fs::write(data.join("folder/inner/nested.zip"), &zip).unwrap();
    let config = sshd.config();
    let f = Fixture::with(canopy_core::LocalFs::new(), Some(sshd.options(&config)));
    let local = data.to_str().unwrap().to_string();
    let server = format!("sftp://{HOST}{local}");
    let mut mcp_local = Mcp::start(&local, &config);
    let mut mcp_server = Mcp::start(&server, &config);

    let cases = [
        ("a local folder", "folder", false),
        ("an archive", "site.zip", false),
        ("a folder inside an archive", "site.zip/assets", false),
        ("a server's folder", "folder", true),
        ("an archive on a server", "site.zip", true),
        (
            "a folder inside an archive on a server",
            "site.zip/assets",
            true,
        ),
        (
            "an archive in a server's folder",
            "folder/inner/nested.zip",
            true,
        ),
    ];
    for (what, below, remote) in cases {
        let path = format!("{local}/{below}");
        let root = if remote {
            format!("{server}/{below}")
        } else {
            path.clone()
        };
        let mcp = if remote {
            &mut mcp_server
        } else {
            &mut mcp_local
        };
        let seen = [
            ("the window", window(&f, &root)),
            ("canopy-list", canopy_list(&root, &config)),
            ("canopy-mcp", mcp.list(&path)),
        ];
        // The same place listed here is the truth every face must give.
        let truth = window(&f, &path);
        assert!(!truth.is_empty(), "{what}: the fixture lists something");
        for (face, shown) in seen {
            assert_eq!(shown, truth, "{what} ({root}) in {face}");
        }
    }

    // The archive's own pane: what it is, the same on the server as here.
    let summary = |folder: &str| {
        let request = json!({ "request": { "requestId": 2, "root": { "text": folder } } });
        let listing = json(f.invoke("list_directory", request).unwrap());
        let zip = listing["root"]["folder"]["entries"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["name"] == "site.zip")
            .unwrap_or_else(|| panic!("site.zip is listed in {folder}: {listing}"))
            .clone();
        assert_eq!(zip["archive"], "zip", "{folder}: the zip says it opens");
        let request = json!({ "request": { "handle": zip["handle"] } });
        json(
            f.invoke("archive_summary", request)
                .unwrap_or_else(|e| panic!("{folder}: {e}")),
        )
    };
    assert_eq!(
        summary(&server),
        summary(&local),
        "an archive on a server is summed up as here"
    );
}
