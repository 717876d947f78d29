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
//! - [`resolve_within`] finds where a path leads without ever looking
//!   outside the roots: the moment its resolution leaves them (through `..`,
//!   an absolute symlink or a relative one), the answer is [`Leads::Outside`],
//!   whether or not anything is there. Inside them it looks only through
//!   descriptors, each entry relative to the folder held before it and never
//!   followed, so a link swapped in meanwhile is read as a link. So no reply
//!   says whether a path outside the roots exists, what it is, or that it
//!   cannot be reached.

use std::ffi::OsString;
use std::io;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Component, Path, PathBuf};

use canopy_core::dirio::Anchor;
use canopy_core::wire::EntryKind;
use canopy_core::CanopyError;

/// Links followed in one resolution before it is a loop (the kernel's `MAXSYMLINKS`).
const MAX_LINK_HOPS: u32 = 40;

/// True when `path` is `root` or lies below it. Both are real paths.
pub fn within(path: &Path, root: &Path) -> bool {
    let (p, r) = (path.as_os_str().as_bytes(), root.as_os_str().as_bytes());
    p.starts_with(r) && (p.len() == r.len() || r.ends_with(b"/") || p[r.len()] == b'/')
}

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

/// The path a `file://` URI names (percent-escapes decoded to bytes), or
/// `None` for any other URI, a host other than the local one, or a path
/// that is not absolute.
pub fn file_uri_path(uri: &str) -> Option<PathBuf> {
    let rest = uri.strip_prefix("file://")?;
    let path = match rest.strip_prefix("localhost") {
        Some(p) => p,
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

/// Where a path leads, as far as the roots let one look.
#[derive(Debug)]
pub enum Leads {
    /// Inside a root: the real path, and the entry there, held (see [`Anchor`]).
    Inside(PathBuf, Anchor),
    /// The resolution left the roots; nothing was looked at out there.
    Outside,
    /// The resolution failed inside the roots (`NOT_FOUND`, `LOOP`, `DENIED`, ...).
    Fails(CanopyError),
}

enum Step {
    Up,
    Name(OsString),
}

fn steps(path: &Path) -> impl DoubleEndedIterator<Item = Step> + '_ {
    path.components().filter_map(|c| match c {
        Component::ParentDir => Some(Step::Up),
        Component::Normal(n) => Some(Step::Name(n.to_os_string())),
        Component::RootDir | Component::CurDir | Component::Prefix(_) => None,
    })
}

/// Resolves the absolute `path` one component at a time, as the kernel
/// would, following symlinks, but looking only inside `roots` (real paths),
/// and there only through descriptors: each entry is looked up relative to
/// the folder held before it, without following it (see [`Anchor`]), and a
/// symlink's text is read from the link that was looked up. So a link
/// swapped in anywhere along the way, at any moment, is read as a link and
/// judged by its text; nothing outside the roots is ever looked up. Outside
/// them it only walks up (`..`) or down the roots' own ancestors, which are
/// real folders by construction; any other step out there answers
/// [`Leads::Outside`]. The entry reached is held, to be listed or read
/// through that same descriptor.
pub fn resolve_within(path: &Path, roots: &[PathBuf]) -> Leads {
    let inside = |p: &Path| roots.iter().any(|r| within(p, r));
    let toward_a_root = |p: &Path| roots.iter().any(|r| within(r, p));
    let fails = |e: &io::Error, doing: &str| Leads::Fails(CanopyError::from_io(e, doing));
    let fail = |errno: i32, doing: &str| fails(&io::Error::from_raw_os_error(errno), doing);
    let mut cur = PathBuf::from("/");
    // The folders walked inside the roots, innermost last, each with its real path.
    let mut held: Vec<(PathBuf, Anchor)> = Vec::new();
    let mut kind = EntryKind::Folder;
    // The steps still to take, the next one last.
    let mut todo: Vec<Step> = steps(path).rev().collect();
    let mut hops = 0;
    while let Some(step) = todo.pop() {
        if kind != EntryKind::Folder {
            return fail(libc::ENOTDIR, "cannot open");
        }
        let name = match step {
            Step::Up => {
                if held.last().is_some_and(|(p, _)| *p == cur) {
                    held.pop();
                }
                cur.pop();
                continue;
            }
            Step::Name(n) => n,
        };
        let next = cur.join(&name);
        if !inside(&cur) {
            if toward_a_root(&next) {
                cur = next;
                continue;
            }
            return Leads::Outside;
        }
        if held.last().is_none_or(|(p, _)| *p != cur) {
            match hold(&cur, roots) {
                Ok(a) => held.push((cur.clone(), a)),
                Err(e) => return fails(&e, "cannot open"),
            }
        }
        let Some((_, parent)) = held.last() else { return fail(libc::ENOENT, "cannot open") };
        let entry = match parent.child(name.as_bytes()) {
            Ok(a) => a,
            Err(e) => return fails(&e, "cannot open"),
        };
        kind = entry.kind;
        if kind != EntryKind::Symlink {
            cur = next;
            held.push((cur.clone(), entry));
            continue;
        }
        hops += 1;
        if hops > MAX_LINK_HOPS {
            return fail(libc::ELOOP, "cannot open");
        }
        let target = match entry.link_target() {
            Ok(t) => PathBuf::from(OsString::from_vec(t)),
            Err(e) => return fails(&e, "cannot read the link"),
        };
        if target.is_absolute() {
            cur = PathBuf::from("/");
            held.clear();
        }
        kind = EntryKind::Folder;
        todo.extend(steps(&target).rev());
    }
    if !inside(&cur) {
        return Leads::Outside;
    }
    match held.pop() {
        Some((p, a)) if p == cur => Leads::Inside(cur, a),
        _ => match hold(&cur, roots) {
            Ok(a) => Leads::Inside(cur, a),
            Err(e) => fails(&e, "cannot open"),
        },
    }
}

/// Holds the folder `path` (a real path inside a root) by walking down to
/// it from that root without following anything.
fn hold(path: &Path, roots: &[PathBuf]) -> io::Result<Anchor> {
    let Some(root) = roots.iter().find(|r| within(path, r)) else { return Err(io::Error::from_raw_os_error(libc::EXDEV)) };
    let mut at = Anchor::real_folder(root)?;
    let below = path.strip_prefix(root).map_err(|_| io::Error::from_raw_os_error(libc::EXDEV))?;
    for c in below.components() {
        if at.kind != EntryKind::Folder {
            return Err(io::Error::from_raw_os_error(libc::ENOTDIR));
        }
        at = at.child(c.as_os_str().as_bytes())?;
    }
    if at.kind != EntryKind::Folder {
        return Err(io::Error::from_raw_os_error(libc::ENOTDIR));
    }
    Ok(at)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> PathBuf {
        PathBuf::from(s)
    }

    #[test]
    fn within_compares_whole_components() {
        assert!(within(&p("/a/b"), &p("/a/b")));
        assert!(within(&p("/a/b/c"), &p("/a/b")));
        assert!(!within(&p("/a/bc"), &p("/a/b")), "a sibling that shares a prefix is outside");
        assert!(!within(&p("/a"), &p("/a/b")));
        assert!(within(&p("/etc"), &p("/")), "everything is inside /");
    }

    #[test]
    fn client_roots_narrow_and_never_widen() {
        let server = [p("/home/u/proj"), p("/srv/data")];
        let client = [p("/home/u"), p("/srv/data/one"), p("/etc"), p("/home/u/projects")];
        assert_eq!(intersect(&server, &client), vec![p("/home/u/proj"), p("/srv/data/one")]);
        assert!(intersect(&server, &[p("/tmp")]).is_empty(), "disjoint roots allow nothing");
    }

    #[test]
    fn file_uris_decode_to_bytes() {
        assert_eq!(file_uri_path("file:///home/u/my%20proj"), Some(p("/home/u/my proj")));
        assert_eq!(file_uri_path("file://localhost/tmp/x"), Some(p("/tmp/x")));
        let raw = file_uri_path("file:///tmp/caf%E9").unwrap();
        assert_eq!(raw.as_os_str().as_bytes(), b"/tmp/caf\xe9");
        for bad in ["http://x/y", "file://host/tmp", "file:///a%2", "file:///a%00b", "file:relative"] {
            assert_eq!(file_uri_path(bad), None, "{bad}");
        }
    }
}
