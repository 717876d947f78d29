//! Remote folders against a real OpenSSH server started by the test (see
//! `common`): the same listing as the local one of the same folder, the
//! refusals `ssh` makes, a server that freezes or dies, and a record of
//! every request the server received.
use crate::common;

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use canopy_core::limits::{ABANDON_GRACE, REQUEST_TIME, SFTP_REPLY_WAIT, TIME_BUDGET};
use canopy_core::names::decode_handle;
use canopy_core::wire::{Entry, Listing};
use canopy_core::{list, ErrorCode, ListCall, ListSettings, LocalFs, RequestBudget};
use canopy_sftp::ConnectionState;
use common::*;

fn detailed() -> ListCall {
    ListCall {
        details: true,
        handles: true,
        summary: true,
        ..ListCall::default()
    }
}

fn settings(cap: u32) -> ListSettings {
    ListSettings {
        cap,
        ..ListSettings::default()
    }
}

/// Every entry of a listing by its path below the root (from its handle):
/// kind, size (files), mtime in seconds, and each folder's counts.
fn facts(listing: &Listing) -> BTreeMap<Vec<u8>, String> {
    let root = decode_handle(&listing.root.handle).unwrap();
    let mut out = BTreeMap::new();
    fn walk(e: &Entry, root: &Path, out: &mut BTreeMap<Vec<u8>, String>) {
        let path = decode_handle(&e.handle).unwrap();
        let rel = path
            .strip_prefix(root)
            .unwrap()
            .as_os_str()
            .as_bytes()
            .to_vec();
        let size = if e.kind == canopy_core::wire::EntryKind::File {
            e.size
        } else {
            None
        };
        let mut line = format!(
            "{:?} size={size:?} mtime_s={:?} error={:?}",
            e.kind,
            e.modified.map(|ms| ms / 1000),
            e.error.as_ref().map(|er| er.code)
        );
        if let Some(f) = &e.folder {
            line += &format!(
                " total={:?} unlisted={:?} kinds={:?} shown={} rest={:?}",
                f.total,
                f.unlisted,
                f.kinds,
                f.entries.len(),
                f.rest
            );
            for c in &f.entries {
                walk(c, root, out);
            }
        }
        out.insert(rel, line);
    }
    walk(&listing.root, &root, &mut out);
    out
}

#[test]
fn a_remote_listing_is_the_local_listing_of_the_same_folder() {
    let sshd = Sshd::start();
    let d = sshd.data();
    for (name, len) in [("b.txt", 10), ("a.rs", 2000), ("Z.md", 0), (".hidden", 3)] {
        fs::write(d.join(name), vec![b'x'; len]).unwrap();
    }
    fs::create_dir_all(d.join("big")).unwrap();
    for i in 0..250 {
        fs::write(
            d.join(format!("big/f{i:03}.{}", ["jpg", "json", "txt"][i % 3])),
            vec![0; i],
        )
        .unwrap();
    }
    fs::create_dir_all(d.join("empty")).unwrap();
    fs::create_dir_all(d.join("deep/er/est")).unwrap();
    std::os::unix::fs::symlink("b.txt", d.join("link")).unwrap();
    std::os::unix::fs::symlink("nowhere", d.join("dangling")).unwrap();
    std::os::unix::fs::symlink("big", d.join("to-folder")).unwrap();
    let fs_remote = sshd.source();
    fs_remote.connect().unwrap();
    for (cap, sort) in [
        (5, canopy_core::wire::SortBy::Name),
        (7, canopy_core::wire::SortBy::Size),
        (3, canopy_core::wire::SortBy::Modified),
    ] {
        let s = ListSettings {
            sort,
            ..settings(cap)
        };
        let local = list(&LocalFs::new(), &d, &s, &detailed()).unwrap();
        let remote = list(&fs_remote, &d, &s, &detailed()).unwrap();
        assert_eq!(
            facts(&remote),
            facts(&local),
            "remote and local listings of one folder must agree ({sort:?}, cap {cap})"
        );
        // (Sorted: SFTP v3 times are whole seconds, so ties under the
        // modified order fall by name where the local listing has them apart.)
        let links = |l: &Listing| -> Vec<_> {
            let mut v: Vec<_> = l
                .root
                .folder
                .as_ref()
                .unwrap()
                .entries
                .iter()
                .filter_map(|e| {
                    e.link.as_ref().map(|k| {
                        (
                            e.name.clone(),
                            k.target.clone(),
                            format!("{:?}", k.points_to),
                        )
                    })
                })
                .collect();
            v.sort();
            v
        };
        assert_eq!(
            links(&remote),
            links(&local),
            "links read and followed alike"
        );
    }
    // OpenSSH's own client agrees on the names.
    let theirs = sshd.sftp_batch(&format!("ls -1af {}/big\n", d.display()));
    let mut theirs: Vec<_> = theirs
        .lines()
        .filter(|l| !l.starts_with("sftp>"))
        .map(|l| l.rsplit('/').next().unwrap().to_string())
        .filter(|n| n != "." && n != "..")
        .collect();
    theirs.sort();
    let all = list(
        &fs_remote,
        &d.join("big"),
        &ListSettings {
            limit: 10_000,
            ..settings(5)
        },
        &detailed(),
    )
    .unwrap();
    let mut ours: Vec<_> = all
        .root
        .folder
        .unwrap()
        .entries
        .iter()
        .map(|e| e.name.clone())
        .collect();
    ours.sort();
    assert_eq!(ours, theirs, "the names `sftp ls` lists");
}

#[test]
fn a_large_remote_folder_gives_its_first_page_with_the_exact_total() {
    let sshd = Sshd::start();
    let d = sshd.data().join("huge");
    fs::create_dir(&d).unwrap();
    // 20,000 names: 200 `readdir` replies, well inside a folder's time on a
    // loaded machine (benches/sftp.sh measures 200,000 against `sftp`).
    for i in 0..20_000 {
        fs::File::create(d.join(format!("n{i}"))).unwrap();
    }
    let fs_remote = sshd.source();
    fs_remote.connect().unwrap();
    let listing = list(&fs_remote, &d, &ListSettings::default(), &detailed()).unwrap();
    let f = listing.root.folder.unwrap();
    assert_eq!(
        f.total,
        Some(20_000),
        "the exact total ({:?})",
        f.count_is_lower_bound
    );
    assert!(!f.count_is_lower_bound);
    assert_eq!(f.entries.len(), 500, "one page");
    assert_eq!(f.entries[0].name, "n0");
    assert_eq!(
        f.entries[1].name, "n1",
        "natural order over the whole folder"
    );
    assert_eq!(f.unlisted.files, 20_000 - 500, "counts add up");
}

/// The relayed server's folder `big` of `n` empty files (`n0`...).
fn big_folder(dir: &Path, n: usize) -> PathBuf {
    let d = dir.join("big");
    fs::create_dir(&d).unwrap();
    for i in 0..n {
        fs::File::create(d.join(format!("n{i}"))).unwrap();
    }
    d
}

/// A call whose batches have `batch` each and whose request has `request`.
fn paced_call(batch: Duration, request: Duration) -> ListCall {
    ListCall {
        budget: batch,
        request: RequestBudget {
            time: Some(request),
            ..RequestBudget::STANDARD
        },
        ..detailed()
    }
}

#[test]
fn a_folder_that_streams_longer_than_one_batchs_time_gets_its_exact_total() {
    let dir = tempfile::tempdir().unwrap();
    // 6,000 names: 60 `readdir` replies of 100, each held 25 ms by the
    // relay: 1.5 s in all, three times the 500 ms each batch is given.
    let d = big_folder(dir.path(), 6_000);
    let remote = relayed_source(dir.path(), 25, &[]);
    remote.connect().unwrap();
    let call = paced_call(Duration::from_millis(500), Duration::from_secs(60));
    let started = Instant::now();
    let listing = list(&remote, &d, &ListSettings::default(), &call).unwrap();
    let took = started.elapsed();
    assert!(
        took > 2 * call.budget,
        "the fixture must stream for longer than a batch's time ({took:?})"
    );
    let f = listing.root.folder.as_ref().unwrap();
    assert_eq!(
        (f.total, f.count_is_lower_bound),
        (Some(6_000), false),
        "each batch is a step of its own, so the folder is read to its end: {:?}",
        listing.root.error
    );
    assert!(listing.root.error.is_none(), "{:?}", listing.root.error);
    assert_eq!(
        f.unlisted.files + f.entries.len() as u64,
        6_000,
        "counts add up"
    );
}

#[test]
fn a_folder_longer_than_the_requests_time_says_its_count_is_a_lower_bound() {
    let dir = tempfile::tempdir().unwrap();
    let d = big_folder(dir.path(), 6_000);
    let remote = relayed_source(dir.path(), 25, &[]);
    remote.connect().unwrap();
    // Each batch is quick; the request's time (600 ms) ends before the
    // folder's 1.5 s of replies do.
    let call = paced_call(Duration::from_millis(500), Duration::from_millis(600));
    let listing = list(&remote, &d, &ListSettings::default(), &call).unwrap();
    let f = listing.root.folder.as_ref().unwrap();
    let total = f.total.unwrap();
    assert!(f.count_is_lower_bound, "a cut count says so");
    assert!(total > 0 && total < 6_000, "what was read by then: {total}");
    let err = listing.root.error.as_ref().expect("the cut is said");
    assert_eq!(err.code, ErrorCode::Timeout, "{err:?}");
    assert!(err.message.contains("lower bound"), "{}", err.message);
    let mut text = Vec::new();
    canopy_core::text::write_text(&listing, &mut text).unwrap();
    let text = String::from_utf8(text).unwrap();
    assert!(text.contains("at least"), "canopy-list's words: {text}");
}

#[test]
fn a_hostile_servers_name_with_a_slash_is_flagged_and_never_used_as_a_path() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("data");
    fs::create_dir(&d).unwrap();
    fs::write(d.join("plain"), b"plain").unwrap();
    fs::write(d.join("slashfile"), b"x").unwrap();
    fs::write(d.join("nulfile"), b"x").unwrap();
    fs::create_dir(d.join("slashdir")).unwrap();
    fs::write(d.join("slashdir/inside"), b"x").unwrap();
    fs::write(d.join(OsStr::from_bytes(b"caf\xe9")), b"x").unwrap();
    // Names a real folder cannot hold, as a hostile server sends them.
    let remote = relayed_source(
        dir.path(),
        0,
        &[
            (b"slashfile", b"a/b"),
            (b"slashdir", b"../../etc"),
            (b"nulfile", b"n\0l"),
        ],
    );
    remote.connect().unwrap();
    let listing = list(&remote, &d, &settings(100), &detailed()).unwrap();
    let f = listing.root.folder.as_ref().unwrap();
    assert_eq!(f.total, Some(5), "every entry is counted");
    for e in &f.entries {
        let path = decode_handle(&e.handle).unwrap();
        assert_eq!(
            path.parent(),
            Some(d.as_path()),
            "{:?} stays a child",
            e.name
        );
        let raw = path.file_name().unwrap().as_bytes();
        match raw {
            b"plain" => assert!(e.error.is_none() && e.can_preview),
            b"caf\xe9" => assert!(e.error.is_none() && e.can_preview, "a name of bytes"),
            _ => {
                let err = e
                    .error
                    .as_ref()
                    .unwrap_or_else(|| panic!("{:?} flagged", e.name));
                assert_eq!(err.code, ErrorCode::UnsafeName, "{:?}: {err:?}", e.name);
                assert!(
                    !e.can_expand && !e.can_preview && e.folder.is_none(),
                    "{:?}",
                    e.name
                );
                assert!(!raw.contains(&b'/'), "the handle escapes the name: {raw:?}");
            }
        }
    }
    let log = fs::read_to_string(dir.path().join("sftp.log")).unwrap();
    assert!(
        !log.contains("/etc") && !log.contains("a/b"),
        "nothing was asked of a hostile name's path: {log}"
    );
    // The byte name reads back through its handle.
    let cafe = f
        .entries
        .iter()
        .find(|e| e.name_lossy == Some(true))
        .unwrap();
    let chunk = canopy_core::preview(&remote, &decode_handle(&cafe.handle).unwrap(), 0, 8).unwrap();
    assert_eq!(chunk.size, 1);
}

#[test]
fn sizes_never_enter_or_look_up_a_hostile_servers_name_and_say_the_count_is_short() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("data");
    fs::create_dir(&d).unwrap();
    fs::write(d.join("plain"), b"plain").unwrap();
    fs::write(d.join("slashfile"), b"x").unwrap();
    fs::create_dir(d.join("slashdir")).unwrap();
    fs::write(d.join("slashdir/inside"), b"x").unwrap();
    let remote = relayed_source(
        dir.path(),
        0,
        &[(b"slashfile", b"a/b"), (b"slashdir", b"../../etc")],
    );
    remote.connect().unwrap();
    let r =
        canopy_core::sizes(&remote, &d, &canopy_core::SizesCall::default(), None, None).unwrap();
    let root = &r.root.sizes;
    assert!(root.is_lower_bound, "{root:?}");
    assert!(
        root.shortfalls
            .iter()
            .any(|s| s.code == ErrorCode::UnsafeName),
        "the reason is the name: {root:?}"
    );
    assert_eq!(root.folders, 0, "../../etc was never entered: {root:?}");
    let log = fs::read_to_string(dir.path().join("sftp.log")).unwrap();
    assert!(
        !log.contains("/etc") && !log.contains("a/b"),
        "nothing was asked of a hostile name's path: {log}"
    );
}

#[test]
fn non_utf8_and_hostile_names_round_trip() {
    let sshd = Sshd::start();
    let d = sshd.data();
    let names: [&[u8]; 7] = [
        b"caf\xe9",
        b"\xff\xfe",
        b"new\nline",
        b"<img src=x onerror=alert(1)>",
        b"-rf",
        b" lead",
        b"tab\tend ",
    ];
    for n in names {
        fs::write(d.join(OsStr::from_bytes(n)), n).unwrap();
    }
    fs::create_dir(d.join(OsStr::from_bytes(b"dir\xff"))).unwrap();
    fs::write(d.join(OsStr::from_bytes(b"dir\xff/inner\x01")), b"inside").unwrap();
    let fs_remote = sshd.source();
    fs_remote.connect().unwrap();
    let local = list(&LocalFs::new(), &d, &settings(100), &detailed()).unwrap();
    let remote = list(&fs_remote, &d, &settings(100), &detailed()).unwrap();
    assert_eq!(
        facts(&remote),
        facts(&local),
        "the same names, byte for byte"
    );
    let shown = |l: &Listing| -> Vec<_> {
        l.root
            .folder
            .as_ref()
            .unwrap()
            .entries
            .iter()
            .map(|e| {
                (
                    e.name.clone(),
                    e.name_lossy,
                    serde_json::to_string(&e.name_parts).unwrap(),
                )
            })
            .collect()
    };
    assert_eq!(
        shown(&remote),
        shown(&local),
        "shown and escaped as the engine shows local names"
    );
    for e in &remote.root.folder.as_ref().unwrap().entries {
        let path = decode_handle(&e.handle).unwrap();
        if e.kind == canopy_core::wire::EntryKind::File {
            // The handle reads the very file back over SFTP.
            let chunk = canopy_core::preview(&fs_remote, &path, 0, 64).unwrap();
            assert_eq!(
                chunk.size,
                path.file_name().unwrap().len() as u64,
                "{path:?}"
            );
        }
    }
    let inner = list(
        &fs_remote,
        &d.join(OsStr::from_bytes(b"dir\xff")),
        &settings(100),
        &detailed(),
    )
    .unwrap();
    let e = &inner.root.folder.unwrap().entries[0];
    assert_eq!(
        decode_handle(&e.handle)
            .unwrap()
            .file_name()
            .unwrap()
            .as_bytes(),
        b"inner\x01"
    );
}

#[test]
fn an_unknown_host_key_is_refused_with_the_servers_fingerprint() {
    let sshd = Sshd::start();
    fs::write(sshd.dir.path().join("empty_known_hosts"), b"").unwrap();
    let config = sshd.write_client_config("config-unknown", "empty_known_hosts", "user_key");
    let e = sshd.source_with(&config).connect().unwrap_err();
    assert_eq!(e.code, ErrorCode::HostKeyUnknown, "{e:?}");
    let want = fingerprint(&sshd.dir.path().join("host_key.pub"));
    assert!(
        e.message.contains(&want),
        "the fingerprint {want} in: {}",
        e.message
    );
    assert!(
        e.message.contains("ssh "),
        "the command that adds it: {}",
        e.message
    );
    assert_eq!(
        fs::read(sshd.dir.path().join("empty_known_hosts")).unwrap(),
        b"",
        "nothing was added"
    );
    let listed = list(
        &sshd.source_with(&config),
        &sshd.data(),
        &settings(5),
        &detailed(),
    )
    .unwrap_err();
    assert_eq!(
        listed.code,
        ErrorCode::HostKeyUnknown,
        "a listing says it too"
    );
}

#[test]
fn a_changed_host_key_is_refused_with_the_servers_fingerprint() {
    let sshd = Sshd::start();
    let other = fs::read_to_string(sshd.dir.path().join("other_key.pub")).unwrap();
    let mut parts = other.split_whitespace();
    fs::write(
        sshd.dir.path().join("wrong_known_hosts"),
        format!(
            "[127.0.0.1]:{} {} {}\n",
            sshd.port,
            parts.next().unwrap(),
            parts.next().unwrap()
        ),
    )
    .unwrap();
    let config = sshd.write_client_config("config-changed", "wrong_known_hosts", "user_key");
    let e = sshd.source_with(&config).connect().unwrap_err();
    assert_eq!(e.code, ErrorCode::HostKeyChanged, "{e:?}");
    let want = fingerprint(&sshd.dir.path().join("host_key.pub"));
    assert!(
        e.message.contains(&want),
        "the fingerprint {want} in: {}",
        e.message
    );
}

#[test]
fn a_key_the_server_does_not_accept_is_auth_failed_with_ssh_s_reason() {
    let sshd = Sshd::start();
    let config = sshd.write_client_config("config-wrong-key", "known_hosts", "other_key");
    let e = sshd.source_with(&config).connect().unwrap_err();
    assert_eq!(e.code, ErrorCode::AuthFailed, "{e:?}");
    assert!(
        e.message.contains("Permission denied (publickey)"),
        "ssh's own line: {}",
        e.message
    );
}

/// Lists `root`, freezing every session process of the server (SIGSTOP)
/// as soon as the root's names are read.
#[test]
fn a_server_frozen_mid_listing_costs_timeout_within_the_budget_then_reconnects() {
    let sshd = Arc::new(Sshd::start());
    let d = sshd.data();
    for sub in ["a", "b", "c"] {
        fs::create_dir(d.join(sub)).unwrap();
        fs::write(d.join(sub).join("f"), b"x").unwrap();
    }
    let fs_remote = sshd.source();
    fs_remote.connect().unwrap();
    let frozen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let (s, fz) = (sshd.clone(), frozen.clone());
    let observer = move |path: &Path, _names: u64| {
        let mut fz = fz.lock().unwrap();
        if fz.is_empty() && path.ends_with("data") {
            for pid in s.sessions() {
                signal(pid, "STOP");
                fz.push(pid);
            }
        }
    };
    let call = ListCall {
        observer: Some(Arc::new(observer)),
        ..detailed()
    };
    let started = Instant::now();
    let listing = list(&fs_remote, &d, &settings(5), &call).unwrap();
    let took = started.elapsed();
    assert!(
        !frozen.lock().unwrap().is_empty(),
        "the server's sessions were frozen"
    );
    assert!(
        took <= REQUEST_TIME + ABANDON_GRACE,
        "within the request budget: {took:?}"
    );
    let root = listing.root.folder.as_ref().unwrap();
    assert_eq!(root.total, Some(3), "what was read is shown");
    for e in &root.entries {
        let code = e.error.as_ref().map(|er| er.code);
        assert_eq!(
            code,
            Some(ErrorCode::Timeout),
            "{}: unread folders are TIMEOUT",
            e.name
        );
    }
    // The call left behind returns by itself (SFTP_REPLY_WAIT) and the
    // connection is held lost. (The state reads lost earlier, while that
    // call is merely stalled; waiting only for that raced the reply the
    // thawed server sends to the stalled call, which un-stalls it.)
    let until = Instant::now() + SFTP_REPLY_WAIT + TIME_BUDGET;
    while !matches!(fs_remote.state(), ConnectionState::Lost(why) if why.contains("did not answer"))
    {
        assert!(
            Instant::now() < until,
            "the stuck call returned: {:?}",
            fs_remote.state()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    for pid in frozen.lock().unwrap().iter() {
        signal(*pid, "CONT");
    }
    // As a face does before a request when the connection is not up: the
    // reconnect's handshake has its own time, not the root folder's.
    fs_remote.connect().unwrap();
    let again = list(&fs_remote, &d, &settings(5), &detailed()).unwrap();
    assert_eq!(fs_remote.reconnects(), 1, "the next request reconnected");
    assert_eq!(fs_remote.state(), ConnectionState::Connected);
    for e in &again.root.folder.as_ref().unwrap().entries {
        assert!(
            e.error.is_none(),
            "{}: read after the reconnect ({:?})",
            e.name,
            e.error
        );
        assert_eq!(e.folder.as_ref().unwrap().total, Some(1));
    }
}

#[test]
fn a_killed_server_fails_the_next_request_at_once_and_a_new_one_reconnects() {
    let mut sshd = Sshd::start();
    fs::create_dir(sshd.data().join("sub")).unwrap();
    let fs_remote = sshd.source();
    fs_remote.connect().unwrap();
    list(&fs_remote, &sshd.data(), &settings(5), &detailed()).unwrap();
    sshd.kill();
    let started = Instant::now();
    let e = list(&fs_remote, &sshd.data(), &settings(5), &detailed()).unwrap_err();
    assert!(
        started.elapsed() < TIME_BUDGET,
        "no wait on a dead connection: {:?}",
        started.elapsed()
    );
    assert!(
        matches!(e.code, ErrorCode::Io | ErrorCode::Timeout),
        "{e:?}"
    );
    // The server comes back (on a new port): the same source reconnects.
    sshd.launch();
    let known = fs::read_to_string(sshd.dir.path().join("host_key.pub")).unwrap();
    let mut parts = known.split_whitespace();
    fs::write(
        sshd.dir.path().join("known_hosts"),
        format!(
            "[127.0.0.1]:{} {} {}\n",
            sshd.port,
            parts.next().unwrap(),
            parts.next().unwrap()
        ),
    )
    .unwrap();
    sshd.write_client_config("config", "known_hosts", "user_key");
    fs_remote.connect().unwrap();
    let back = list(&fs_remote, &sshd.data(), &settings(5), &detailed()).unwrap();
    assert_eq!(back.root.folder.unwrap().total, Some(1));
    assert_eq!(fs_remote.reconnects(), 1);
}

/// Requests that read: anything else the server received is a failure.
const READING: [&str; 11] = [
    "limits",
    "realpath",
    "lstat",
    "stat",
    "fstat",
    "opendir",
    "readdir",
    "close",
    "open READ",
    "read",
    "readlink",
];

#[test]
fn no_request_that_writes_reaches_the_server() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("data");
    fs::create_dir_all(d.join("sub/deeper")).unwrap();
    fs::write(d.join("notes.txt"), b"hello\n").unwrap();
    fs::write(d.join("site.zip"), b"PK\x05\x06").unwrap();
    std::os::unix::fs::symlink("notes.txt", d.join("link")).unwrap();
    let source = recorded_source(dir.path());
    source.connect().unwrap();
    for sort in [
        canopy_core::wire::SortBy::Name,
        canopy_core::wire::SortBy::Size,
    ] {
        let s = ListSettings {
            sort,
            ..settings(5)
        };
        list(
            &canopy_core::WithArchives::new(source.clone()),
            &d,
            &s,
            &detailed(),
        )
        .unwrap();
    }
    canopy_core::preview(&source, &d.join("notes.txt"), 0, 100).unwrap();
    canopy_core::preview(&source, &d.join("notes.txt"), 3, 2).unwrap();
    assert!(canopy_core::preview(&source, &d.join("sub"), 0, 1).is_err());
    drop(source);
    let until = Instant::now() + Duration::from_secs(5);
    let seen = loop {
        let seen = requests_in(dir.path());
        if seen.contains(&"read".to_string()) || Instant::now() > until {
            break seen;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    for want in ["opendir", "readdir", "open READ", "read", "readlink"] {
        assert!(
            seen.iter().any(|r| r == want),
            "the recorder saw {want}: {seen:?}"
        );
    }
    let writing: Vec<_> = seen
        .iter()
        .filter(|r| !READING.contains(&r.as_str()))
        .collect();
    assert!(
        writing.is_empty(),
        "requests that are not reads: {writing:?}"
    );
    assert_eq!(fs::read(d.join("notes.txt")).unwrap(), b"hello\n");
}

#[test]
fn the_request_recorder_sees_a_write() {
    // The recorder above can fail: OpenSSH's own client making a folder is seen.
    let dir = tempfile::tempdir().unwrap();
    let wrapper = {
        let _ = recorded_source(dir.path());
        dir.path().join("sftp-recorded")
    };
    let out = std::process::Command::new("sftp")
        .arg("-S")
        .arg(&wrapper)
        .args(["-b", "-", "recorded"])
        .stdin(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            use std::io::Write;
            c.stdin
                .take()
                .unwrap()
                .write_all(format!("mkdir {}/made\n", dir.path().display()).as_bytes())?;
            c.wait()
        })
        .unwrap();
    assert!(out.success());
    let seen = requests_in(dir.path());
    assert!(
        seen.iter().any(|r| !READING.contains(&r.as_str())),
        "{seen:?}"
    );
    let _: PathBuf = dir.path().join("made");
}

#[test]
fn a_frozen_connection_holds_back_no_other_connection_to_the_same_host() {
    let sshd = Sshd::start();
    fs::create_dir_all(sshd.data().join("a/x")).unwrap();
    fs::create_dir_all(sshd.data().join("b")).unwrap();
    let frozen_source = sshd.source();
    frozen_source.connect().unwrap();
    let first = sshd.sessions();
    let other = sshd.source();
    other.connect().unwrap();
    // Frozen once `a`'s names are read: reading `a/x` hangs on the
    // connection's device, which the engine then marks stuck.
    let fz = first.clone();
    let observer = move |path: &Path, _names: u64| {
        if path.ends_with("a") {
            for pid in &fz {
                signal(*pid, "STOP");
            }
        }
    };
    let call = ListCall {
        observer: Some(Arc::new(observer)),
        ..detailed()
    };
    let frozen = list(&frozen_source, &sshd.data().join("a"), &settings(5), &call).unwrap();
    let x = &frozen.root.folder.as_ref().unwrap().entries[0];
    assert_eq!(x.error.as_ref().map(|e| e.code), Some(ErrorCode::Timeout));
    // The other connection is another device: it lists at once.
    let listing = list(&other, &sshd.data().join("b"), &settings(5), &detailed());
    for pid in &first {
        signal(*pid, "CONT");
    }
    assert_eq!(
        listing
            .expect("the other connection lists")
            .root
            .folder
            .unwrap()
            .total,
        Some(0)
    );
}

/// Requests queued behind a connect that fails share its answer: a server
/// that never answers costs one connect's wait, not one per request (every
/// selection move in the window asks for a connection).
#[test]
fn requests_waiting_on_a_failing_connect_share_its_failure_instead_of_each_trying_again() {
    use std::net::TcpListener;
    use std::sync::atomic::{AtomicUsize, Ordering};
    // A server that takes the connection and never says a word (no banner).
    let silent = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = silent.local_addr().unwrap().port();
    let accepted = Arc::new(AtomicUsize::new(0));
    {
        let accepted = accepted.clone();
        std::thread::spawn(move || {
            let mut held = Vec::new();
            for s in silent.incoming().flatten() {
                accepted.fetch_add(1, Ordering::SeqCst);
                held.push(s);
            }
        });
    }
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config");
    fs::write(
        &config,
        format!(
            "Host silent\n  HostName 127.0.0.1\n  Port {port}\n  User nobody\n  IdentitiesOnly yes\n\
             IdentityAgent none\n  UserKnownHostsFile /dev/null\n  GlobalKnownHostsFile /dev/null\n\
             StrictHostKeyChecking yes\n  ControlMaster no\n  LogLevel ERROR\n"
        ),
    )
    .unwrap();
    let source = Arc::new(canopy_sftp::SftpFs::new(
        canopy_sftp::Target {
            user: None,
            host: "silent".into(),
            port: None,
        },
        canopy_sftp::SshOptions {
            config: Some(config),
            batch: true,
            program: None,
            askpass: None,
        },
    ));
    let first = {
        let s = source.clone();
        std::thread::spawn(move || s.connect())
    };
    // The second asks while the first is still waiting for the banner.
    while accepted.load(Ordering::SeqCst) == 0 {
        std::thread::sleep(Duration::from_millis(10));
    }
    let second = {
        let s = source.clone();
        std::thread::spawn(move || s.connect())
    };
    let a = first.join().unwrap().expect_err("nobody answers");
    let b = second.join().unwrap().expect_err("nobody answers");
    assert_eq!(
        accepted.load(Ordering::SeqCst),
        1,
        "one connect for both requests ({a:?} / {b:?})"
    );
    assert_eq!(a, b, "the waiting request got the attempt's own answer");
    // A request after that failure tries again.
    let _ = source.connect();
    assert_eq!(accepted.load(Ordering::SeqCst), 2);
}

/// Each link of `listing`'s root: its name, its target and what it points to.
fn links_of(listing: &Listing) -> Vec<(String, String, String)> {
    let mut v: Vec<_> = listing
        .root
        .folder
        .as_ref()
        .unwrap()
        .entries
        .iter()
        .filter_map(|e| {
            let k = e.link.as_ref()?;
            Some((
                e.name.clone(),
                k.target.clone(),
                format!("{:?}", k.points_to),
            ))
        })
        .collect();
    v.sort();
    v
}

#[test]
fn a_link_loop_on_a_server_is_a_loop_as_it_is_here_and_a_dangling_link_dangling() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("data");
    fs::create_dir_all(d.join("real/deeper")).unwrap();
    fs::write(d.join("real/deeper/file"), b"x").unwrap();
    let link = |target: &str, name: &str| std::os::unix::fs::symlink(target, d.join(name)).unwrap();
    // Loops of one, two and three links, one met on the way (a folder
    // part of the target), one through `..`, and one that grows each turn.
    link("self", "self");
    link("loopB", "loopA");
    link("loopA", "loopB");
    link("ring2", "ring1");
    link("ring3", "ring2");
    link("../data/ring1", "ring3");
    link("loopA/file", "through_a_loop");
    link("grows/x", "grows");
    // Dangling: a missing target, a missing folder on the way, a file
    // taken for a folder, and a chain that ends nowhere.
    link("nowhere", "dangling");
    link("real/missing/file", "missing_on_the_way");
    link("real/deeper/file/x", "file_as_folder");
    link("dangling", "chain_to_nowhere");
    // And links that lead somewhere, through other links.
    link("real", "to_real");
    link("to_real/deeper/../deeper/file", "through_links");
    let remote = recorded_source(dir.path());
    remote.connect().unwrap();
    let local = list(&LocalFs::new(), &d, &settings(100), &detailed()).unwrap();
    let here = links_of(&local);
    assert_eq!(
        here.iter().filter(|l| l.2 == "Loop").count(),
        8,
        "the local disk's verdicts: {here:#?}"
    );
    let there = list(&remote, &d, &settings(100), &detailed()).unwrap();
    assert_eq!(
        links_of(&there),
        here,
        "a server's links are followed to the verdict the local disk gives"
    );
    // Opened, a loop is a loop there too, and a dangling link not found.
    for (name, code) in [
        ("loopA", ErrorCode::Loop),
        ("dangling", ErrorCode::NotFound),
    ] {
        let local = canopy_core::preview(&LocalFs::new(), &d.join(name), 0, 8).unwrap_err();
        let there = canopy_core::preview(&remote, &d.join(name), 0, 8).unwrap_err();
        assert_eq!((local.code, there.code), (code, code), "{name}");
    }
    // (`expand,` is OpenSSH's expand-path: `realpath` where the server has it.)
    let log = requests_in(dir.path());
    let reading = [
        "limits", "opendir", "readdir", "close", "stat", "lstat", "readlink", "realpath", "expand,",
    ];
    assert!(
        log.iter().all(|r| reading.contains(&r.as_str())),
        "only reading requests: {log:?}"
    );
}
