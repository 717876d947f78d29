//! How far a window's listing has got: the engine's [`Observer`] counts the
//! folders and names read (atomically, on the engine's workers), and the
//! command that awaits the listing sends the counts over the window's
//! channel at most every `LIST_PROGRESS_INTERVAL`, only when they changed,
//! and never after the listing ended (the sends happen on the task that
//! returns the reply, before it returns).

use std::future::Future;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use canopy_core::limits::LIST_PROGRESS_INTERVAL;
use canopy_core::wire::ListProgress;
use canopy_core::Observer;
use tauri::ipc::Channel;

/// Folders and names read so far by one listing.
#[derive(Default)]
struct ReadCount {
    folders: AtomicU64,
    names: AtomicU64,
}

impl Observer for ReadCount {
    fn folder_read(&self, _path: &Path, names: u64) {
        // Names first: a report never shows a folder without its names.
        self.names.fetch_add(names, Ordering::Relaxed);
        self.folders.fetch_add(1, Ordering::Release);
    }
}

/// One listing's reports to the window.
pub struct ProgressReport {
    channel: Channel<ListProgress>,
    request_id: u64,
    count: Arc<ReadCount>,
}

impl ProgressReport {
    /// Reports on request `request_id` over `channel`.
    pub fn new(channel: Channel<ListProgress>, request_id: u64) -> ProgressReport {
        ProgressReport {
            channel,
            request_id,
            count: Arc::default(),
        }
    }

    /// What the engine tells of each folder read (hand it to the listing).
    pub fn observer(&self) -> Arc<dyn Observer> {
        self.count.clone()
    }

    /// Awaits `listing`, reporting while it runs; returns its outcome. Once
    /// it is done nothing more is sent (a worker the engine left behind may
    /// still count, unheard).
    pub async fn during<T>(self, listing: impl Future<Output = T>) -> T {
        let mut listing = std::pin::pin!(listing);
        let mut sent = (0, 0);
        loop {
            match tokio::time::timeout(LIST_PROGRESS_INTERVAL, listing.as_mut()).await {
                Ok(done) => return done,
                Err(_elapsed) => {
                    let folders = self.count.folders.load(Ordering::Acquire);
                    let names = self.count.names.load(Ordering::Relaxed);
                    if (folders, names) != sent {
                        sent = (folders, names);
                        // A page that went away (reloaded) hears nothing; the listing goes on.
                        let _ = self.channel.send(ListProgress {
                            request_id: self.request_id,
                            folders,
                            names,
                        });
                    }
                }
            }
        }
    }
}
