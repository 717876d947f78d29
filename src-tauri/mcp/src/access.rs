//! Which folders an agent may see: the `--root` folders, narrowed by the
//! client's `roots` when it offers them.
//!
//! Promises:
//! - every root is a real path (no symlink, no `..`), and a path is inside
//!   a root only when its real path is the root or lies below it, compared
//!   component by component on the raw bytes (`/a/bc` is not inside `/a/b`);
//! - when the client offers roots, the allowed set is their intersection
//!   with `--root`: a client root inside a `--root` folder, or a `--root`
//!   folder inside a client root. A client can narrow what the server shows,
//!   never widen it;
//! - where a path leads is found by the engine without ever looking
//!   outside the roots (`canopy_core::resolve_within`).

use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;
use std::path::PathBuf;

pub use canopy_core::within;

/// The folders both sets allow: each client root inside a server root, and
/// each server root inside a client root, without repeats.
pub fn intersect(server: &[PathBuf], client: &[PathBuf]) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    for s in server {
        for c in client {
            let both = if within(c, s) {
                Some(c)
            } else if within(s, c) {
                Some(s)
            } else {
                None
            };
            if let Some(p) = both {
                if !out.contains(p) {
                    out.push(p.clone());
                }
            }
        }
    }
    out
}

/// The path a `file:` URI names (percent-escapes decoded to bytes), or
/// `None` for any other URI, a host other than the local one, or a path
/// that is not absolute. As RFC 8089 reads it: the scheme in any case,
/// `file:///p`, `file://localhost/p` and `file:/p` alike.
pub fn file_uri_path(uri: &str) -> Option<PathBuf> {
    let (scheme, rest) = uri.split_once(':')?;
    if !scheme.eq_ignore_ascii_case("file") {
        return None;
    }
    let path = match rest.strip_prefix("//") {
        Some(authority_and_path) => {
            let slash = authority_and_path.find('/')?;
            let host = &authority_and_path[..slash];
            if !(host.is_empty() || host.eq_ignore_ascii_case("localhost")) {
                return None;
            }
            &authority_and_path[slash..]
        }
        None => rest,
    };
    if !path.starts_with('/') {
        return None;
    }
    let raw = path.as_bytes();
    let mut bytes = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        if raw[i] == b'%' {
            let hex = std::str::from_utf8(raw.get(i + 1..i + 3)?).ok()?;
            bytes.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            bytes.push(raw[i]);
            i += 1;
        }
    }
    if bytes.contains(&0) {
        return None;
    }
    Some(PathBuf::from(OsString::from_vec(bytes)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::ffi::OsStrExt;

    fn p(s: &str) -> PathBuf {
        PathBuf::from(s)
    }

    #[test]
    fn within_compares_whole_components() {
        assert!(within(&p("/a/b"), &p("/a/b")));
        assert!(within(&p("/a/b/c"), &p("/a/b")));
        assert!(
            !within(&p("/a/bc"), &p("/a/b")),
            "a sibling that shares a prefix is outside"
        );
        assert!(!within(&p("/a"), &p("/a/b")));
        assert!(within(&p("/etc"), &p("/")), "everything is inside /");
    }

    #[test]
    fn client_roots_narrow_and_never_widen() {
        let server = [p("/home/u/proj"), p("/srv/data")];
        let client = [
            p("/home/u"),
            p("/srv/data/one"),
            p("/etc"),
            p("/home/u/projects"),
        ];
        assert_eq!(
            intersect(&server, &client),
            vec![p("/home/u/proj"), p("/srv/data/one")]
        );
        assert!(
            intersect(&server, &[p("/tmp")]).is_empty(),
            "disjoint roots allow nothing"
        );
    }

    #[test]
    fn file_uris_decode_to_bytes() {
        assert_eq!(
            file_uri_path("file:///home/u/my%20proj"),
            Some(p("/home/u/my proj"))
        );
        assert_eq!(file_uri_path("file://localhost/tmp/x"), Some(p("/tmp/x")));
        // RFC 8089: no authority, and the scheme and host in any case.
        assert_eq!(file_uri_path("file:/tmp/x"), Some(p("/tmp/x")));
        assert_eq!(file_uri_path("FILE:///tmp/x"), Some(p("/tmp/x")));
        assert_eq!(file_uri_path("File://LocalHost/tmp/x"), Some(p("/tmp/x")));
        assert_eq!(file_uri_path("file:tmp/x"), None, "not absolute");
        assert_eq!(file_uri_path("files:///tmp/x"), None);
        let raw = file_uri_path("file:///tmp/caf%E9").unwrap();
        assert_eq!(raw.as_os_str().as_bytes(), b"/tmp/caf\xe9");
        for bad in [
            "http://x/y",
            "file://host/tmp",
            "file:///a%2",
            "file:///a%00b",
            "file:relative",
        ] {
            assert_eq!(file_uri_path(bad), None, "{bad}");
        }
    }
}
