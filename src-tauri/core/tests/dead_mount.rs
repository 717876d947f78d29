//! Dead mounts never hold anything, tested on a real FUSE filesystem that
//! stops answering (see `tests/deadfs`). Each test mounts its own, and its
//! drop aborts the connection so every stuck call returns.

mod common;
mod deadfs;

use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use canopy_core::default_app::Desktop;
use canopy_core::limits::MAX_STUCK_THREADS;
use canopy_core::names::encode_handle;
use canopy_core::openable::check_openable_bounded;
use canopy_core::preview::{read_image_bounded, read_preview_bounded, FileRequest, PreviewRequest};
use canopy_core::startup::startup_from_arg;
use canopy_core::testing::Pool;
use canopy_core::wire::{FindProgress, FindRequest, LocateRequest, RootSpec};
use canopy_core::{resolve_root, ErrorCode};
use common::*;
use deadfs::DeadMount;

/// The pool of stuck threads is the process's: these tests run one at a time.
static SERIAL: Mutex<()> = Mutex::new(());

/// `local/` (on the temp dir's filesystem: `x.txt`, `sub/y.txt`) beside
/// `mnt/`, where the dead filesystem is mounted.
struct Scene {
    mount: Option<DeadMount>,
    t: Tree,
    _serial: MutexGuard<'static, ()>,
}

impl Scene {
    fn new(dead_root: bool) -> Scene {
        let serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        let t = Tree::new();
        t.file("local/x.txt");
        t.file("local/sub/y.txt");
        let point = t.dir("mnt");
        let mount = if dead_root {
            DeadMount::dead_root(&point)
        } else {
            DeadMount::on(&point)
        };
        Scene {
            mount: Some(mount),
            t,
            _serial: serial,
        }
    }

    fn at(&self, rel: &str) -> std::path::PathBuf {
        self.t.at(rel)
    }

    fn held(&self) -> &deadfs::Held {
        &self.mount.as_ref().unwrap().held
    }
}

impl Drop for Scene {
    fn drop(&mut self) {
        // Abort and unmount; stuck calls return, and their marks are cleared.
        drop(self.mount.take());
        let until = Instant::now() + Duration::from_secs(30);
        while Pool::global().stuck_threads() > 0 && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

fn quick(depth: u32) -> ListOptions {
    ListOptions {
        depth,
        budget: Duration::from_millis(300),
        ..ListOptions::default()
    }
}

fn error_of<'a>(f: &'a canopy_core::wire::Folder, name: &str) -> &'a canopy_core::CanopyError {
    child(f, name)
        .error
        .as_ref()
        .unwrap_or_else(|| panic!("{name} has no error"))
}

#[test]
fn a_folder_whose_entries_never_answer_a_stat_is_left_behind_and_its_siblings_are_read() {
    let s = Scene::new(false);
    // Describing mnt's entries looks `cold` up, which never answers.
    let l = list(s.t.path(), &quick(2)).expect("the listing returns though a folder never answers");
    let root = folder(&l.root);
    assert_eq!(
        names(folder(child(root, "local"))),
        ["sub", "x.txt"],
        "the folder beside it is read in full"
    );
    let mnt = error_of(root, "mnt");
    assert_eq!(mnt.code, ErrorCode::Timeout);
    assert!(mnt.message.contains("not responding"), "{}", mnt.message);
    assert_eq!(
        s.held().lookups.load(Ordering::SeqCst),
        1,
        "the hung lookup is still unanswered"
    );
    assert_eq!(Pool::global().stuck_threads(), 1);
}

#[test]
fn a_mount_whose_readdir_never_answers_is_left_behind_and_the_folder_beside_it_is_read() {
    let s = Scene::new(true);
    let l = list(s.t.path(), &quick(2)).expect("the listing returns though a folder never answers");
    let root = folder(&l.root);
    assert_eq!(
        names(folder(child(root, "local"))),
        ["sub", "x.txt"],
        "the live folder beside it is read in full"
    );
    let mnt = error_of(root, "mnt");
    assert_eq!(mnt.code, ErrorCode::Timeout);
    assert!(mnt.message.contains("not responding"), "{}", mnt.message);
    assert_eq!(
        s.held().readdirs.load(Ordering::SeqCst),
        1,
        "its readdir is still unanswered"
    );
    // Listing again does not ask the dead mount again.
    let again = list(s.t.path(), &quick(2)).unwrap();
    assert_eq!(
        error_of(folder(&again.root), "mnt").code,
        ErrorCode::Timeout
    );
    assert_eq!(
        s.held().readdirs.load(Ordering::SeqCst),
        1,
        "no second thread parked in it"
    );
    assert_eq!(Pool::global().stuck_threads(), 1);
}

#[test]
fn a_lookup_that_never_answers_marks_its_device_and_the_siblings_fail_at_once() {
    let s = Scene::new(false);
    // Without details (as in text mode) mnt's own entries are not looked up
    // while it is described, only when its subfolders are opened.
    let l = list(
        s.t.path(),
        &ListOptions {
            details: false,
            ..quick(3)
        },
    )
    .expect("the listing returns");
    let root = folder(&l.root);
    let sub = folder(child(folder(child(root, "local")), "sub"));
    assert_eq!(
        sub.total,
        Some(1),
        "the folder on another device is read in full"
    );
    let mnt = folder(child(root, "mnt"));
    assert_eq!(
        names(mnt),
        [
            "cold",
            "dead",
            "live",
            "rules",
            "frozen.txt",
            "stalled.webm"
        ],
        "the mount's own root answers"
    );
    let cold = error_of(mnt, "cold");
    assert_eq!(cold.code, ErrorCode::Timeout);
    assert!(cold.message.contains("not responding"), "{}", cold.message);
    for sibling in ["dead", "live", "rules"] {
        let e = error_of(mnt, sibling);
        assert_eq!(
            e.code,
            ErrorCode::Timeout,
            "{sibling}: the device has a stuck call: calls on it fail at once"
        );
        assert!(
            e.message.contains("earlier call"),
            "{sibling}: {}",
            e.message
        );
    }
    assert_eq!(
        s.held().lookups.load(Ordering::SeqCst),
        1,
        "one lookup is still unanswered"
    );
    assert_eq!(
        s.held().readdirs.load(Ordering::SeqCst),
        0,
        "nothing else was asked of the device"
    );
    assert_eq!(
        Pool::global().stuck_threads(),
        1,
        "one thread left behind, none for the refused ones"
    );
}

#[test]
fn retries_of_a_dead_folder_fail_at_once_and_park_no_more_threads() {
    let s = Scene::new(false);
    let dead = s.at("mnt/dead");
    let err = list(&dead, &quick(2)).unwrap_err();
    assert_eq!(
        err.code,
        ErrorCode::Timeout,
        "a root that never answers is TIMEOUT: {}",
        err.message
    );
    assert_eq!(Pool::global().stuck_threads(), 1);
    let workers = Pool::global().workers();
    for _ in 0..20 {
        let err = list(&dead, &quick(2)).unwrap_err();
        assert_eq!(err.code, ErrorCode::Timeout);
    }
    assert_eq!(
        s.held().readdirs.load(Ordering::SeqCst),
        1,
        "no retry reached the filesystem again"
    );
    assert_eq!(Pool::global().stuck_threads(), 1);
    assert!(
        Pool::global().workers() <= workers + 2,
        "20 retries add no thread beyond the idle ones"
    );
    // The rest of the dead mount fails at once; other devices are unaffected.
    assert_eq!(
        list(&s.at("mnt/live"), &quick(1)).unwrap_err().code,
        ErrorCode::Timeout
    );
    assert_eq!(
        s.held().lookups.load(Ordering::SeqCst),
        0,
        "nothing else on the mount was asked"
    );
    assert_eq!(
        names(folder(&list(&s.at("local"), &quick(1)).unwrap().root)),
        ["sub", "x.txt"]
    );
}

#[test]
fn two_listings_reaching_a_dead_device_first_at_once_leave_one_thread_behind() {
    let s = Scene::new(false);
    let dead = s.at("mnt/dead");
    let start = std::sync::Barrier::new(2);
    let errors: Vec<_> = std::thread::scope(|scope| {
        let one = || {
            start.wait();
            list(&dead, &quick(1)).map(|_| ()).unwrap_err()
        };
        let a = scope.spawn(one);
        let b = scope.spawn(one);
        vec![a.join().unwrap(), b.join().unwrap()]
    });
    for e in &errors {
        assert_eq!(e.code, ErrorCode::Timeout, "{}", e.message);
    }
    assert_eq!(
        s.held().readdirs.load(Ordering::SeqCst),
        1,
        "the second waited for the first's outcome instead of asking too"
    );
    assert_eq!(Pool::global().stuck_threads(), 1);
}

#[test]
fn a_preview_of_a_file_whose_open_never_answers_times_out_once() {
    let s = Scene::new(false);
    let frozen = encode_handle(&s.at("mnt/frozen.txt"));
    let chunk = |handle: &str| {
        read_preview_bounded(&PreviewRequest {
            handle: handle.into(),
            offset: 0,
            length: 64,
        })
    };
    assert_eq!(chunk(&frozen).unwrap_err().code, ErrorCode::Timeout);
    assert_eq!(
        chunk(&frozen).unwrap_err().code,
        ErrorCode::Timeout,
        "again, at once"
    );
    let file = FileRequest { handle: frozen };
    assert_eq!(
        read_image_bounded(&file).unwrap_err().code,
        ErrorCode::Timeout
    );
    assert_eq!(
        check_openable_bounded(&file, Desktop::system())
            .unwrap_err()
            .code,
        ErrorCode::Timeout
    );
    assert_eq!(
        s.held().opens.load(Ordering::SeqCst),
        1,
        "one open left behind, no more"
    );
    let a =
        chunk(&encode_handle(&s.at("mnt/live/a.txt"))).expect("a file beside it still previews");
    assert!(
        matches!(a.content, canopy_core::preview::PreviewContent::Text { ref text, .. } if text == "hello\n")
    );
}

#[test]
fn resolving_locating_and_starting_up_through_a_dead_path_are_bounded() {
    let s = Scene::new(false);
    let through = format!("{}/mnt/cold/../live", s.t.path().display());
    assert_eq!(
        resolve_root(&RootSpec::Text(through)).unwrap_err().code,
        ErrorCode::Timeout
    );
    assert_eq!(s.held().lookups.load(Ordering::SeqCst), 1);
    let startup = startup_from_arg(Some(s.at("mnt/cold/file.txt").into_os_string()));
    assert_eq!(
        startup.folder,
        RootSpec::Handle(encode_handle(&s.at("mnt/cold/file.txt"))),
        "a path that does not answer is opened as a folder, whose listing then says TIMEOUT"
    );
    let req = LocateRequest {
        folder: encode_handle(&s.at("mnt/dead")),
        prefix: "a".into(),
        settings: Default::default(),
    };
    assert_eq!(
        locate(&req, &Default::default()).unwrap_err().code,
        ErrorCode::Timeout
    );
    assert!(Pool::global().stuck_threads() <= MAX_STUCK_THREADS);
}

#[test]
fn a_link_into_a_dead_mount_costs_the_link_not_its_folder() {
    let s = Scene::new(false);
    s.t.symlink("../mnt/cold", "local/into-dead");
    let l = list(&s.at("local"), &quick(2)).expect("the folder holding the link is listed");
    let f = folder(&l.root);
    let link = child(f, "into-dead");
    assert_eq!(
        link.error.as_ref().map(|e| e.code),
        Some(ErrorCode::Timeout)
    );
    assert_eq!(
        link.link.as_ref().map(|l| l.target.as_str()),
        Some("../mnt/cold"),
        "its target text is still shown"
    );
    assert_eq!(
        folder(child(f, "sub")).total,
        Some(1),
        "the rest of the folder is read"
    );
    assert!(child(f, "x.txt").error.is_none());
    // The link is stuck now: the next listing refuses it at once and has
    // time to describe everything else.
    let again = list(&s.at("local"), &quick(2)).unwrap();
    let f = folder(&again.root);
    assert_eq!(
        child(f, "into-dead").error.as_ref().map(|e| e.code),
        Some(ErrorCode::Timeout)
    );
    assert!(again.root.error.is_none(), "{:?}", again.root.error);
    assert!(
        child(f, "x.txt").size.is_some(),
        "every other entry is described"
    );
    assert_eq!(
        s.held().lookups.load(Ordering::SeqCst),
        1,
        "the link was followed once"
    );
}

#[test]
fn the_dead_mount_fixture_really_hangs_a_plain_reader() {
    // The scene is only worth its tests if a plain reader does hang on it.
    let s = Scene::new(false);
    let dead = s.at("mnt/dead");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let r = std::fs::read_dir(&dead).map(|d| d.count());
        let _ = tx.send(r.is_ok());
    });
    let until = Instant::now() + Duration::from_secs(30);
    while s.held().readdirs.load(Ordering::SeqCst) == 0 && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(
        s.held().readdirs.load(Ordering::SeqCst),
        1,
        "the reader's readdir reached the filesystem"
    );
    assert!(
        rx.try_recv().is_err(),
        "its answer is held, so the reader cannot have returned"
    );
    assert!(Path::new(&s.at("mnt/live/a.txt")).exists());
    drop(s);
    assert!(
        rx.recv_timeout(Duration::from_secs(30)).is_ok(),
        "aborting the connection frees the reader"
    );
}

#[test]
fn an_ignore_file_whose_open_never_answers_costs_its_folder_a_timeout_not_a_hang() {
    let s = Scene::new(false);
    // The repository is the temp tree; the dead mount lies inside it.
    s.t.repo("");
    // Without hiding ignored entries nothing opens it: the folder lists.
    let plain = list(
        &s.at("mnt/rules"),
        &ListOptions {
            details: false,
            ..quick(1)
        },
    )
    .unwrap();
    assert_eq!(names(folder(&plain.root)), [".gitignore", "c.txt"]);
    assert_eq!(s.held().opens.load(Ordering::SeqCst), 0);
    let o = ListOptions {
        hide_ignored: true,
        details: false,
        ..quick(1)
    };
    let err = list(&s.at("mnt/rules"), &o).expect_err("the folder's rules cannot be read");
    assert_eq!(err.code, ErrorCode::Timeout);
    assert!(err.message.contains("not responding"), "{}", err.message);
    assert_eq!(
        s.held().opens.load(Ordering::SeqCst),
        1,
        "its .gitignore's open is still unanswered, on a thread left behind"
    );
    assert_eq!(Pool::global().stuck_threads(), 1);
}

#[test]
fn an_archive_that_never_opens_costs_its_own_entry_and_listing_it_times_out_like_a_folder() {
    let serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let t = Tree::new();
    let point = t.dir("mnt");
    let mount = DeadMount::frozen_archive(&point);
    let source = canopy_core::WithArchives::new(canopy_core::LocalFs::new());
    let opts = quick(1);
    // The folder lists: looking at frozen.zip's first bytes hangs, and costs only that entry.
    let l = canopy_core::list(&source, &point, &opts.settings(), &opts.call())
        .expect("the folder lists");
    let root = folder(&l.root);
    assert_eq!(names(root), ["a.txt", "frozen.zip"]);
    let frozen = error_of(root, "frozen.zip");
    assert_eq!(frozen.code, ErrorCode::Timeout, "{frozen:?}");
    assert!(child(root, "frozen.zip").archive.is_none());
    assert_eq!(child(root, "a.txt").error, None);
    assert_eq!(
        mount.held.opens.load(Ordering::SeqCst),
        1,
        "one open is held"
    );
    // Listing the archive itself is a root that does not respond: TIMEOUT, and it returns.
    let err = canopy_core::list(
        &source,
        &point.join("frozen.zip"),
        &opts.settings(),
        &opts.call(),
    )
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::Timeout, "{err}");
    drop(mount);
    let until = Instant::now() + Duration::from_secs(30);
    while Pool::global().stuck_threads() > 0 && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(10));
    }
    drop(serial);
}

/// Children of this process running `program`, not yet reaped zombies.
fn live_children(program: &str) -> Vec<u32> {
    let me = std::process::id().to_string();
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
                return false;
            };
            let (Some(open), Some(close)) = (stat.find('('), stat.rfind(')')) else {
                return false;
            };
            let rest: Vec<&str> = stat[close + 2..].split(' ').collect();
            &stat[open + 1..close] == program && rest[1] == me && rest[0] != "Z"
        })
        .collect()
}

#[test]
fn a_video_whose_open_never_answers_times_out_and_the_caller_is_answered() {
    let s = Scene::new(false);
    let frozen = s.at("mnt/frozen.txt");
    let started = Instant::now();
    let err = canopy_core::video_details(&canopy_core::LocalFs::new(), &frozen, None).unwrap_err();
    assert_eq!(err.code, ErrorCode::Timeout, "{err:?}");
    let err =
        canopy_core::video_poster(&canopy_core::LocalFs::new(), &frozen, 200, None).unwrap_err();
    assert_eq!(err.code, ErrorCode::Timeout, "again, at once: {err:?}");
    assert!(
        started.elapsed() < 10 * canopy_core::limits::TIME_BUDGET,
        "answered, not held by the mount: {:?}",
        started.elapsed()
    );
    assert_eq!(
        s.held().opens.load(Ordering::SeqCst),
        1,
        "one open left behind"
    );
}

#[test]
fn a_video_whose_reads_stall_has_its_renderer_killed_at_the_deadline() {
    let s = Scene::new(false);
    let stalled = s.at("mnt/stalled.webm");
    let mut stuck = Vec::new();
    for (what, program) in [("details", "ffprobe"), ("poster", "ffmpegthumbnail")] {
        let started = Instant::now();
        let err = if what == "details" {
            canopy_core::video_details(&canopy_core::LocalFs::new(), &stalled, None)
                .map(|_| ())
                .unwrap_err()
        } else {
            canopy_core::video_poster(&canopy_core::LocalFs::new(), &stalled, 200, None)
                .map(|_| ())
                .unwrap_err()
        };
        assert_eq!(err.code, ErrorCode::Timeout, "{what}: {err:?}");
        assert!(
            err.message.contains("was stopped"),
            "{what}: {}",
            err.message
        );
        let waited = started.elapsed();
        assert!(
            waited < 4 * canopy_core::limits::RENDER_DEADLINE,
            "{what}: answered at the deadline, not when the mount answers (never): {waited:?}"
        );
        // The child was stuck in the mount's read, and was killed there: a
        // FUSE read already sent waits for its answer even past SIGKILL,
        // so the child is either gone or dying with the kill pending.
        assert!(
            s.held().reads.load(Ordering::SeqCst) > 0,
            "{what}: the child read past the answered start"
        );
        for pid in live_children(program) {
            assert!(
                kill_pending(pid),
                "{what}: {program} {pid} was sent SIGKILL"
            );
            stuck.push((program, pid));
        }
    }
    // Once the mount answers (here: its connection aborted), they end.
    s.mount.as_ref().unwrap().abort();
    let until = Instant::now() + Duration::from_secs(10);
    while stuck.iter().any(|(p, _)| !live_children(p).is_empty()) && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(20));
    }
    for (program, _) in &stuck {
        assert_eq!(
            live_children(program),
            Vec::<u32>::new(),
            "no {program} left running"
        );
    }
}

/// Whether SIGKILL is pending for process `pid` (its own or its group's
/// pending mask), or it is gone already.
fn kill_pending(pid: u32) -> bool {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    if status.is_empty() {
        return true;
    }
    status
        .lines()
        .filter_map(|l| {
            l.strip_prefix("SigPnd:")
                .or_else(|| l.strip_prefix("ShdPnd:"))
        })
        .filter_map(|m| u64::from_str_radix(m.trim(), 16).ok())
        .any(|mask| mask & (1 << (libc::SIGKILL - 1)) != 0)
}

#[test]
fn a_video_render_stuck_on_a_dead_mount_is_cancelled_at_once() {
    let s = Scene::new(false);
    let stalled = s.at("mnt/stalled.webm");
    let token = canopy_core::cancel::CancelToken::default();
    let canceller = token.clone();
    let held = std::sync::Arc::clone(&s.mount.as_ref().unwrap().held);
    let t = std::thread::spawn(move || {
        // Cancel once the child is stuck in the mount (the selection moved on).
        while held.reads.load(Ordering::SeqCst) == 0 {
            std::thread::sleep(Duration::from_millis(5));
        }
        canceller.cancel();
        Instant::now()
    });
    let err = canopy_core::video_poster(&canopy_core::LocalFs::new(), &stalled, 200, Some(&token))
        .unwrap_err();
    let answered = Instant::now();
    let cancelled_at = t.join().unwrap();
    assert_eq!(err.code, ErrorCode::Cancelled, "{err:?}");
    assert!(
        answered - cancelled_at < canopy_core::limits::RENDER_DEADLINE,
        "answered at the cancel, not at the deadline"
    );
}

/// Places for a home folder at the scene's root (so its `mnt` is a mount below home).
fn places_env(s: &Scene) -> canopy_core::places::PlacesEnv {
    canopy_core::places::PlacesEnv {
        home: s.t.path().to_path_buf(),
        config: s.at("local/.config"),
        user: None,
        mount_table: "/proc/self/mountinfo".into(),
    }
}

#[test]
fn places_list_a_dead_mount_at_once_without_touching_it() {
    let s = Scene::new(true);
    let started = Instant::now();
    let places = canopy_core::places::list_places(&places_env(&s));
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "listing places never waits on a mount"
    );
    let mnt = places
        .mounts
        .iter()
        .find(|p| p.label == "mnt")
        .expect("the mount below home is a place");
    assert_eq!(mnt.fs_type.as_deref(), Some("fuse"));
    assert!(mnt.mount.is_some(), "its free space can be asked");
    let held = s.held();
    let asked = held.readdirs.load(Ordering::SeqCst) + held.statfs.load(Ordering::SeqCst);
    assert_eq!(asked, 0, "nothing was asked of the dead mount");
}

#[test]
fn a_dead_mounts_free_space_is_not_responding_and_asking_again_fails_at_once() {
    let s = Scene::new(true);
    let env = places_env(&s);
    let started = Instant::now();
    let e = canopy_core::places::place_space(&env, &s.at("mnt")).unwrap_err();
    assert_eq!(e.code, ErrorCode::Timeout);
    assert!(e.message.contains("not responding"), "{}", e.message);
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "the caller is answered"
    );
    assert_eq!(
        s.held().statfs.load(Ordering::SeqCst),
        1,
        "its statfs is still unanswered"
    );
    let again = canopy_core::places::place_space(&env, &s.at("mnt")).unwrap_err();
    assert_eq!(again.code, ErrorCode::Timeout);
    assert_eq!(
        s.held().statfs.load(Ordering::SeqCst),
        1,
        "no second thread parked in it"
    );
    let root = canopy_core::places::place_space(&env, Path::new("/"))
        .expect("the root filesystem answers");
    assert!(root.total > 0 && root.free <= root.total);
}

#[test]
fn a_find_shows_its_hits_while_a_dead_folder_holds_it_up() {
    let s = Scene::new(true);
    let abort = s.mount.as_ref().unwrap().abort_file();
    let req = FindRequest {
        request_id: 1,
        root: RootSpec::Handle(encode_handle(s.t.path())),
        text: "x.txt".into(),
        contents: false,
        show_dotfiles: true,
        hide_ignored: false,
    };
    let heard: Arc<Mutex<Vec<String>>> = Arc::default();
    let h = heard.clone();
    // The window shows the hit; here, seeing it frees the dead folder (its
    // readdir then fails at once). Heard only after the folder's step ran
    // out of time, it would come too late: that folder would be a TIMEOUT.
    let report = canopy_core::find_request(
        &canopy_core::LocalFs::new(),
        &req,
        None,
        Arc::new(move |p: &FindProgress| {
            if !p.hits.is_empty() {
                h.lock()
                    .unwrap()
                    .extend(p.hits.iter().map(|x| x.name.clone()));
                let _ = std::fs::write(&abort, b"1");
            }
        }),
    )
    .expect("find answers");
    assert_eq!(
        *heard.lock().unwrap(),
        ["x.txt"],
        "local/x.txt, found before mnt"
    );
    let mnt = report
        .problems
        .iter()
        .find(|p| p.path == "mnt")
        .expect("mnt could not be read");
    assert_ne!(
        mnt.error.code,
        ErrorCode::Timeout,
        "the hit must reach the window while mnt's readdir hangs, not after its step times out: {:?}",
        mnt.error
    );
}
