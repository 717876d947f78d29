//! What dragging entries out of the window or copying them (Ctrl+C) offers
//! other applications: their URIs as `text/uri-list` (RFC 2483: one a line,
//! CRLF) and as GNOME's `x-special/gnome-copied-files` (`copy`, then one URI
//! a line), which Nautilus, Thunar, PCManFM and Dolphin paste as files.
//! Nothing is written: the other application reads the files itself.
#![forbid(unsafe_code)]

use std::path::Path;

use crate::error::{CanopyError, ErrorCode};
use crate::wire::TransferOffer;

/// The `file://` URI of a local entry that is there (an `lstat` on a
/// bounded worker): an entry inside an archive has no file to hand over.
///
/// # Errors
/// `NOT_FOUND` when nothing is at the path (inside an archive, or gone:
/// `lstat` says `ENOENT`, or `ENOTDIR` below an archive file);
/// `TIMEOUT` on a dead mount.
pub fn local_uri(path: &Path) -> Result<String, CanopyError> {
    crate::facts::entry_meta(path).map_err(|e| match e.code {
        ErrorCode::NotFound | ErrorCode::NotADirectory => CanopyError::new(
            ErrorCode::NotFound,
            "not a file on disk (inside an archive, or gone): drag or copy the archive itself",
        ),
        _ => e,
    })?;
    Ok(crate::places::bookmarks::file_uri(path))
}

/// The offer of these URIs, in each format.
pub fn offer(uris: Vec<String>) -> TransferOffer {
    let mut uri_list = String::new();
    let mut copied = String::from("copy");
    for u in &uris {
        uri_list.push_str(u);
        uri_list.push_str("\r\n");
        copied.push('\n');
        copied.push_str(u);
    }
    TransferOffer {
        uris,
        uri_list,
        gnome_copied_files: copied,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_offer_has_each_format_of_the_same_uris() {
        let o = offer(vec!["file:///a%20b".into(), "sftp://ann@host/srv/x".into()]);
        assert_eq!(
            o.uri_list, "file:///a%20b\r\nsftp://ann@host/srv/x\r\n",
            "RFC 2483: CRLF after each"
        );
        assert_eq!(
            o.gnome_copied_files, "copy\nfile:///a%20b\nsftp://ann@host/srv/x",
            "GNOME's: the verb, then a URI a line"
        );
    }

    #[test]
    fn an_entry_that_is_not_on_disk_has_no_uri() {
        let dir = tempfile::tempdir().unwrap();
        let inside = dir.path().join("a.zip/readme.txt");
        assert_eq!(local_uri(&inside).unwrap_err().code, ErrorCode::NotFound);
        std::fs::write(dir.path().join("x y"), "").unwrap();
        let uri = local_uri(&dir.path().join("x y")).unwrap();
        assert!(
            uri.starts_with("file:///") && uri.ends_with("/x%20y"),
            "{uri}"
        );
    }
}
