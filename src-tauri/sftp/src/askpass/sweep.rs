//! Leftovers of apps that died: the private folders an `Askpass` of this
//! user left behind when its process was killed, swept when a new one starts
//! (ours by name and owner, with an old socket nobody listens on).

use std::io;
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::time::Duration;

/// How old a socket nobody listens on must be to be swept.
const DEAD_AFTER: Duration = Duration::from_secs(60);

/// Removes the folders in `base` that an `Askpass` of this user left when
/// its process died (killed, it never cleaned up): ours by name and owner
/// (the owner of `ours`, just made), with a socket nobody listens on.
pub(super) fn sweep_dead(base: &Path, ours: &Path) {
    use std::os::unix::fs::MetadataExt;
    let Ok(me) = std::fs::metadata(ours).map(|m| m.uid()) else {
        return;
    };
    let Ok(entries) = std::fs::read_dir(base) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let named = entry
            .file_name()
            .to_str()
            .is_some_and(|n| n.starts_with("canopy-askpass-"));
        let owned_folder =
            std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir() && m.uid() == me);
        if !named || !owned_folder || path == ours {
            continue;
        }
        // A socket made over a minute ago that nobody listens on: an app
        // just starting (bound, not listening yet) is younger than that.
        let socket = path.join("s");
        let old_socket = std::fs::symlink_metadata(&socket).is_ok_and(|m| {
            use std::os::unix::fs::FileTypeExt;
            m.file_type().is_socket()
                && m.modified()
                    .is_ok_and(|t| t.elapsed().is_ok_and(|age| age > DEAD_AFTER))
        });
        let dead = old_socket
            && matches!(
                UnixStream::connect(&socket),
                Err(e) if e.kind() == io::ErrorKind::ConnectionRefused
            );
        if dead {
            let _ = std::fs::remove_dir_all(&path);
        }
    }
}
