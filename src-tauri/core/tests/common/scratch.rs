//! A folder in the temp dir for copies of programs that `nobody` must be able
//! to run (a build folder may sit in a home `nobody` cannot enter), removed
//! when this test process exits. The copies used to stay behind: 50-130 MB in
//! the temp dir after every run of the suite.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::sync::Mutex;

/// The folders made by this process, removed at its exit.
static MADE: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

extern "C" fn remove_made() {
    if let Ok(made) = MADE.lock() {
        for dir in made.iter() {
            let _ = fs::remove_dir_all(dir);
        }
    }
}

/// `canopy-KIND-PID` in the temp dir, readable and enterable by anyone.
pub fn dir_for_nobody(kind: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("canopy-{kind}-{}", std::process::id()));
    fs::create_dir_all(&dir).unwrap();
    fs::set_permissions(&dir, fs::Permissions::from_mode(0o755)).unwrap();
    let mut made = MADE.lock().unwrap();
    if made.is_empty() {
        // Runs on `exit` as on a return from main; the test harness does either.
        assert_eq!(unsafe { libc::atexit(remove_made) }, 0, "atexit refused");
    }
    made.push(dir.clone());
    dir
}
