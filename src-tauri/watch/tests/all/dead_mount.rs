//! Live refresh holds nothing on a dead mount, tested on the engine's real
//! FUSE filesystem that stops answering (`core/tests/deadfs`), whose drop
//! aborts the connection so every stuck call returns.

use crate::deadfs;

use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::{mpsc, Arc};
use std::time::Duration;

use canopy_core::bounded::Pool;
use canopy_core::names::encode_handle;
use canopy_core::wire::{WatchShortfallKind, WatchStatus};
use canopy_watch::FolderWatch;
use deadfs::DeadMount;

/// Liveness only: a call that has not returned within this long never will.
const PATIENCE: Duration = Duration::from_secs(30);

fn h(p: &Path) -> String {
    encode_handle(p)
}

/// `set_folders` on another thread; if it does not return in time, frees the
/// mount first (so the test cannot hang) and fails.
fn set_folders(
    watch: &Arc<FolderWatch>,
    handles: &[String],
    mount: &mut Option<DeadMount>,
) -> WatchStatus {
    let (tx, rx) = mpsc::channel();
    let (w, hs) = (Arc::clone(watch), handles.to_vec());
    std::thread::spawn(move || {
        let _ = tx.send(w.set_folders(&hs));
    });
    match rx.recv_timeout(PATIENCE) {
        Ok(status) => status,
        Err(_) => {
            drop(mount.take());
            panic!("set_folders did not return while a folder's filesystem was not answering");
        }
    }
}

#[test]
fn a_folder_on_a_dead_mount_is_left_unwatched_and_says_so_while_the_rest_is_watched() {
    let t = tempfile::tempdir().unwrap();
    let live = t.path().join("live");
    std::fs::create_dir(&live).unwrap();
    let point = t.path().join("mnt");
    std::fs::create_dir(&point).unwrap();
    let mut mount = Some(DeadMount::on(&point));
    let (tx, rx) = mpsc::channel();
    let watch = Arc::new(FolderWatch::new(move |c| {
        let _ = tx.send(c);
    }));
    // `cold`'s lookup is never answered: a stat of it hangs.
    let cold = h(&point.join("cold"));
    let asked = [h(&live), cold.clone()];
    let status = set_folders(&watch, &asked, &mut mount);
    assert_eq!(status.watched, 1, "the live folder is watched");
    assert_eq!(
        status.unwatched,
        std::slice::from_ref(&cold),
        "the dead one is not, and is named"
    );
    let shortfall = status.shortfall.expect("says why");
    assert_eq!(
        shortfall.kind,
        WatchShortfallKind::NotResponding,
        "{}",
        shortfall.message
    );
    assert!(
        shortfall.message.contains("not responding"),
        "{}",
        shortfall.message
    );
    let held = &mount.as_ref().unwrap().held;
    assert_eq!(held.lookups.load(Ordering::SeqCst), 1);
    // Asked again (the window's next expand): it fails at once, asking nothing more.
    let again = set_folders(&watch, &asked, &mut mount);
    assert_eq!((again.watched, again.unwatched), (1, vec![cold]));
    assert_eq!(
        mount.as_ref().unwrap().held.lookups.load(Ordering::SeqCst),
        1,
        "no second call parked on it"
    );
    assert_eq!(Pool::global().stuck_threads(), 1);
    // The live folder still reports its changes.
    std::fs::write(live.join("new.txt"), b"x").unwrap();
    let report = rx.recv_timeout(PATIENCE).expect("a report must come");
    assert_eq!(report.folders, [h(&live)]);
    drop(mount);
}
