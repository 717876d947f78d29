//! The watcher against the real kernel: real folders, real inotify.

use super::*;
use canopy_core::names::encode_handle;
use std::fs;
use std::process::Command;
use std::sync::mpsc;
use std::time::Duration;

/// Liveness only: a report that does not come within this long never will.
const PATIENCE: Duration = Duration::from_secs(20);

struct Probe {
    watch: FolderWatch,
    rx: mpsc::Receiver<Changes>,
}

impl Probe {
    fn new() -> Self {
        let (tx, rx) = mpsc::channel();
        let watch = FolderWatch::new(move |c| {
            let _ = tx.send(c);
        });
        Probe { watch, rx }
    }

    fn watch(&self, dirs: &[&Path]) -> WatchStatus {
        let handles: Vec<String> = dirs.iter().map(|d| h(d)).collect();
        self.watch.set_folders(&handles)
    }

    fn next(&self) -> Changes {
        self.rx.recv_timeout(PATIENCE).expect("a report must come")
    }

    /// Reports until one names `marker`'s folder; returns them all.
    fn until(&self, marker: &Path) -> Vec<Changes> {
        let want = h(marker);
        let mut all = Vec::new();
        loop {
            let c = self.next();
            let done = c.folders.contains(&want);
            all.push(c);
            if done {
                return all;
            }
        }
    }
}

fn h(p: &Path) -> String {
    encode_handle(p)
}

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v
}

fn dirs(n: usize) -> (tempfile::TempDir, Vec<PathBuf>) {
    let root = tempfile::tempdir().unwrap();
    let ds = (0..n)
        .map(|i| {
            let d = root.path().join(format!("d{i:04}"));
            fs::create_dir(&d).unwrap();
            d
        })
        .collect();
    (root, ds)
}

#[test]
fn a_created_file_reports_its_folder_and_no_other() {
    let (_root, d) = dirs(2);
    let p = Probe::new();
    assert_eq!(p.watch(&[&d[0], &d[1]]).watched, 2);
    fs::write(d[0].join("new.txt"), "x").unwrap();
    assert_eq!(
        p.next(),
        Changes {
            folders: vec![h(&d[0])],
            overflow: false
        }
    );
}

#[test]
fn renames_deletes_and_writes_report_their_folders() {
    let (_root, d) = dirs(2);
    fs::write(d[0].join("x"), "x").unwrap();
    let p = Probe::new();
    p.watch(&[&d[0], &d[1]]);
    fs::rename(d[0].join("x"), d[0].join("y")).unwrap();
    assert_eq!(p.next().folders, vec![h(&d[0])], "a rename in the folder");
    fs::OpenOptions::new()
        .append(true)
        .open(d[0].join("y"))
        .unwrap()
        .write_all(b"more")
        .unwrap();
    assert_eq!(
        p.next().folders,
        vec![h(&d[0])],
        "a write to an entry (its size changed)"
    );
    fs::rename(d[0].join("y"), d[1].join("y")).unwrap();
    let mut seen: Vec<String> = Vec::new();
    while seen.len() < 2 {
        for f in p.next().folders {
            if !seen.contains(&f) {
                seen.push(f);
            }
        }
    }
    assert_eq!(
        sorted(seen),
        sorted(vec![h(&d[0]), h(&d[1])]),
        "a move reports both folders"
    );
    fs::remove_file(d[1].join("y")).unwrap();
    assert_eq!(p.next().folders, vec![h(&d[1])], "a deletion");
}

use std::io::{Read, Write};

#[test]
fn reading_a_folder_or_a_file_reports_nothing() {
    let (_root, d) = dirs(2);
    fs::write(d[0].join("f.txt"), "content").unwrap();
    let p = Probe::new();
    p.watch(&[&d[0], &d[1]]);
    // What Canopy itself does to a watched folder: list it, stat and read its files.
    let _ = fs::read_dir(&d[0]).unwrap().count();
    let mut s = String::new();
    fs::File::open(d[0].join("f.txt"))
        .unwrap()
        .read_to_string(&mut s)
        .unwrap();
    let _ = fs::metadata(d[0].join("f.txt")).unwrap();
    // Events arrive in order: a report naming d0 would come before or with the marker's.
    fs::write(d[1].join("marker"), "").unwrap();
    assert_eq!(
        p.next().folders,
        vec![h(&d[1])],
        "reads must not be reported"
    );
}

#[test]
fn a_storm_is_coalesced_into_few_reports_naming_the_folder_once() {
    let (_root, d) = dirs(2);
    let p = Probe::new();
    p.watch(&[&d[0], &d[1]]);
    const N: usize = 20_000;
    for i in 0..N {
        fs::File::create(d[0].join(format!("f{i:05}"))).unwrap();
    }
    fs::write(d[1].join("marker"), "").unwrap();
    let reports = p.until(&d[1]);
    for r in &reports {
        assert!(
            r.folders.iter().filter(|f| **f == h(&d[0])).count() <= 1,
            "a report names a folder once"
        );
    }
    let storm_reports = reports
        .iter()
        .filter(|r| r.folders.contains(&h(&d[0])))
        .count();
    assert!(storm_reports >= 1, "the storm is reported");
    // Each file costs three events (create, open, close): 60,000 events.
    assert!(
        storm_reports * 100 <= N,
        "{storm_reports} reports for {N} creations: not coalesced"
    );
    eprintln!(
        "{N} creations (about {} events) gave {storm_reports} reports",
        3 * N
    );
}

#[test]
fn folders_beyond_the_cap_are_unwatched_and_say_why() {
    let (_root, d) = dirs(MAX_WATCHED_FOLDERS + 6);
    let p = Probe::new();
    let refs: Vec<&Path> = d.iter().map(|x| x.as_path()).collect();
    let status = p.watch(&refs);
    assert_eq!(status.watched as usize, MAX_WATCHED_FOLDERS);
    assert_eq!(
        status.unwatched,
        d[MAX_WATCHED_FOLDERS..]
            .iter()
            .map(|x| h(x))
            .collect::<Vec<_>>(),
        "the last ones in tree order"
    );
    assert_eq!(
        status.shortfall.map(|s| s.kind),
        Some(WatchShortfallKind::Cap)
    );
    fs::write(d[MAX_WATCHED_FOLDERS + 3].join("unseen"), "").unwrap();
    fs::write(d[0].join("marker"), "").unwrap();
    assert_eq!(
        p.next().folders,
        vec![h(&d[0])],
        "an unwatched folder is not reported"
    );
}

#[test]
fn a_folder_no_longer_asked_for_is_no_longer_reported() {
    let (_root, d) = dirs(2);
    let p = Probe::new();
    p.watch(&[&d[0], &d[1]]);
    assert_eq!(p.watch(&[&d[1]]).watched, 1);
    fs::write(d[0].join("unseen"), "").unwrap();
    fs::write(d[1].join("marker"), "").unwrap();
    assert_eq!(p.next().folders, vec![h(&d[1])]);
}

#[test]
fn a_link_and_its_target_share_a_watch_and_are_both_reported() {
    let (root, d) = dirs(1);
    let link = root.path().join("link");
    std::os::unix::fs::symlink(&d[0], &link).unwrap();
    let p = Probe::new();
    assert_eq!(p.watch(&[&d[0], &link]).watched, 1, "one folder, one watch");
    fs::write(d[0].join("new"), "").unwrap();
    assert_eq!(sorted(p.next().folders), sorted(vec![h(&d[0]), h(&link)]));
}

#[test]
fn a_watched_folder_that_is_deleted_reports_itself_and_its_parent() {
    let (root, _) = dirs(0);
    let sub = root.path().join("sub");
    fs::create_dir(&sub).unwrap();
    let p = Probe::new();
    p.watch(&[root.path(), &sub]);
    fs::remove_dir(&sub).unwrap();
    let mut seen: HashSet<String> = HashSet::new();
    while seen.len() < 2 {
        seen.extend(p.next().folders);
    }
    assert_eq!(seen, HashSet::from([h(root.path()), h(&sub)]));
}

#[test]
fn a_queue_overflow_reports_every_watched_folder_once() {
    let (_root, d) = dirs(3);
    let p = Probe::new();
    p.watch(&[&d[0], &d[1], &d[2]]);
    let queue: usize = fs::read_to_string("/proc/sys/fs/inotify/max_queued_events")
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    p.watch.hold_events(true);
    // Three events a file: well past the kernel's queue while notify's thread is held.
    for i in 0..queue / 2 {
        fs::File::create(d[0].join(format!("f{i:05}"))).unwrap();
    }
    p.watch.hold_events(false);
    let report = loop {
        let c = p.next();
        if c.overflow {
            break c;
        }
    };
    assert_eq!(
        sorted(report.folders),
        sorted(d.iter().map(|x| h(x)).collect()),
        "every watched folder, each once"
    );
}

const CHILD: &str = "CANOPY_WATCH_TEST_IN_USER_NAMESPACE";

/// Runs the test `name` again in a new user namespace whose
/// `/proc/sys/user/<limit>` is `value` (inotify's limits are per user
/// namespace), and checks that it passed there. Returns true in that child.
fn in_user_namespace(name: &str, limit: &str, value: &str) -> bool {
    if std::env::var_os(CHILD).is_some() {
        fs::write(format!("/proc/sys/user/{limit}"), value)
            .expect("the namespace's owner may lower its limits");
        return true;
    }
    let out = Command::new("unshare")
        .args(["--user", "--map-root-user", "--"])
        .arg(std::env::current_exe().unwrap())
        .args(["--exact", name, "--test-threads=1", "--nocapture"])
        .env(CHILD, "1")
        .output()
        .expect("unshare (util-linux) must run");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("1 passed"),
        "{name} in a user namespace with {limit}={value}:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    false
}

#[test]
fn the_systems_watch_limit_leaves_the_rest_unwatched_and_says_why() {
    if !in_user_namespace(
        "tests::the_systems_watch_limit_leaves_the_rest_unwatched_and_says_why",
        "max_inotify_watches",
        "5",
    ) {
        return;
    }
    let (_root, d) = dirs(8);
    let p = Probe::new();
    let refs: Vec<&Path> = d.iter().map(|x| x.as_path()).collect();
    let status = p.watch(&refs);
    assert_eq!(status.watched, 5);
    assert_eq!(
        status.unwatched,
        d[5..].iter().map(|x| h(x)).collect::<Vec<_>>()
    );
    assert_eq!(
        status.shortfall.map(|s| s.kind),
        Some(WatchShortfallKind::SystemLimit)
    );
    fs::write(d[0].join("still"), "").unwrap();
    assert_eq!(
        p.next().folders,
        vec![h(&d[0])],
        "the watched ones still report"
    );
}

#[test]
fn no_inotify_at_all_leaves_everything_unwatched_and_says_why() {
    if !in_user_namespace(
        "tests::no_inotify_at_all_leaves_everything_unwatched_and_says_why",
        "max_inotify_instances",
        "0",
    ) {
        return;
    }
    let (_root, d) = dirs(2);
    let p = Probe::new();
    let status = p.watch(&[&d[0], &d[1]]);
    assert_eq!(status.watched, 0);
    assert_eq!(status.unwatched, vec![h(&d[0]), h(&d[1])]);
    assert_eq!(
        status.shortfall.map(|s| s.kind),
        Some(WatchShortfallKind::Unavailable)
    );
}
