//! The job's private working folder: made mode 0700 under a name no other
//! job uses, and removed with everything in it when the job ends.

use std::io;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

/// Numbers the folders of this process's jobs.
static JOBS: AtomicU64 = AtomicU64::new(0);

/// A private folder, removed when dropped.
pub(super) struct TempFolder(pub(super) PathBuf);

impl TempFolder {
    pub(super) fn new() -> io::Result<TempFolder> {
        let base = std::env::temp_dir();
        loop {
            let n = JOBS.fetch_add(1, Ordering::Relaxed);
            let path = base.join(format!("canopy-render-{}-{n}", std::process::id()));
            match std::fs::DirBuilder::new().mode_private().create(&path) {
                Ok(()) => return Ok(TempFolder(path)),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e),
            }
        }
    }
}

trait Private {
    fn mode_private(&mut self) -> &mut Self;
}

impl Private for std::fs::DirBuilder {
    fn mode_private(&mut self) -> &mut Self {
        use std::os::unix::fs::DirBuilderExt;
        self.mode(0o700)
    }
}

impl Drop for TempFolder {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
