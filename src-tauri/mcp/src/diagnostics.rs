//! The server's diagnostic lines on stderr, which can never hold a call.
//!
//! A client may pipe the server's stderr and never read it (many do: the
//! reply is on stdout). Written directly, one line per call fills the pipe
//! after a few thousand calls, and then the call that writes blocks for ever,
//! holding its turn among the calls allowed at once. So lines go to one
//! writer thread through a bounded queue; when the queue is full (stderr is
//! not being read) a line is dropped, and the calls go on.

use std::io::Write;
use std::sync::mpsc::{sync_channel, SyncSender};
use std::sync::OnceLock;

/// Lines waiting for stderr before new ones are dropped.
const WAITING_MAX: usize = 256;

static WRITER: OnceLock<Option<SyncSender<String>>> = OnceLock::new();

/// Writes `canopy-mcp: {text}` to stderr, or drops it when stderr is full.
pub fn line(text: String) {
    let writer = WRITER.get_or_init(|| {
        let (tx, rx) = sync_channel::<String>(WAITING_MAX);
        let spawned = std::thread::Builder::new()
            .name("stderr".into())
            .spawn(move || {
                let mut err = std::io::stderr();
                for l in rx {
                    let _ = writeln!(err, "canopy-mcp: {l}");
                }
            });
        spawned.ok().map(|_| tx)
    });
    if let Some(tx) = writer {
        let _ = tx.try_send(text);
    }
}
