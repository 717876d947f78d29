//! Why a server's path does not resolve: a link loop, or a missing name.
//!
//! SFTP v3 has no status for a loop, and OpenSSH's server answers a `stat`
//! that meets one with "no such file", as it does for a dangling link. When
//! a `stat` says so, the path is resolved here one name at a time (`lstat`
//! each, `readlink` each link, from the parent's `realpath`), as the kernel
//! resolves it: a link met again with the same names still to resolve (or
//! more of them after the same ones) is a loop, `ELOOP`; a missing name is
//! `ENOENT`, a file taken for a folder `ENOTDIR` (the parent itself a file
//! included: `x.zip/a` is `ENOTDIR`, so an archive layer goes on inside
//! it). At most
//! `SFTP_LINK_LOOKUPS` requests are spent; past them the answer is `EIO`
//! (unknown), never a guess.
#![forbid(unsafe_code)]

use std::collections::VecDeque;
use std::ffi::OsString;
use std::io;
use std::path::{Component, Path, PathBuf};

use canopy_core::limits::SFTP_LINK_LOOKUPS;

use crate::conn::Conn;

/// What stands in the way of resolving `path` on the server, whose `stat`
/// said `not_found` (returned when the resolution finds nothing wrong: the
/// server changed meanwhile).
pub(crate) fn why_unresolved(conn: &Conn, path: &Path, not_found: io::Error) -> io::Error {
    match Resolution::new(conn).run(path) {
        Ok(()) => not_found,
        Err(e) => e,
    }
}

struct Resolution<'a> {
    conn: &'a Conn,
    lookups: usize,
}

impl Resolution<'_> {
    fn new(conn: &Conn) -> Resolution<'_> {
        Resolution { conn, lookups: 0 }
    }

    /// One more request, or `EIO` when they are spent.
    fn spend(&mut self) -> io::Result<()> {
        self.lookups += 1;
        if self.lookups > SFTP_LINK_LOOKUPS {
            return Err(io::Error::from_raw_os_error(libc::EIO));
        }
        Ok(())
    }

    /// Resolves `path` name by name; `Ok` when every name resolved.
    fn run(&mut self, path: &Path) -> io::Result<()> {
        // From the parent's real path (no link in it: `..` is then exact),
        // or from the root when the server cannot give it.
        let (mut resolved, mut rest) = match (path.parent(), path.file_name()) {
            (Some(parent), Some(name)) => {
                self.spend()?;
                match self
                    .conn
                    .call(async { self.conn.sftp.fs().canonicalize(parent).await })
                {
                    // A parent that is a file (`x.zip/a`): the name is taken
                    // inside a file, `ENOTDIR` (an archive layer above may
                    // go on inside it), not a missing name.
                    Ok(real) => {
                        self.spend()?;
                        let parent = self
                            .conn
                            .call(async { self.conn.sftp.fs().metadata(&real).await })?;
                        if !parent.file_type().is_some_and(|t| t.is_dir()) {
                            return Err(io::Error::from_raw_os_error(libc::ENOTDIR));
                        }
                        (real, VecDeque::from([name.to_os_string()]))
                    }
                    Err(_) => (PathBuf::from("/"), names(path)),
                }
            }
            _ => (PathBuf::from("/"), names(path)),
        };
        // Each link expanded, with the names that were left after it.
        let mut expanded: Vec<(PathBuf, Vec<OsString>)> = Vec::new();
        while let Some(name) = rest.pop_front() {
            if name == ".." {
                resolved.pop();
                continue;
            }
            let candidate = resolved.join(&name);
            self.spend()?;
            let meta = self
                .conn
                .call(async { self.conn.sftp.fs().symlink_metadata(&candidate).await })?;
            match meta.file_type() {
                Some(t) if t.is_symlink() => {
                    let after: Vec<OsString> = rest.iter().cloned().collect();
                    // The same link with the same names after it (or more
                    // before those): resolving it leads here again, forever.
                    if expanded
                        .iter()
                        .any(|(link, before)| *link == candidate && after.ends_with(before))
                    {
                        return Err(io::Error::from_raw_os_error(libc::ELOOP));
                    }
                    expanded.push((candidate.clone(), after));
                    self.spend()?;
                    let target = self
                        .conn
                        .call(async { self.conn.sftp.fs().read_link(&candidate).await })?;
                    if target.is_absolute() {
                        resolved = PathBuf::from("/");
                    }
                    for n in names(&target).into_iter().rev() {
                        rest.push_front(n);
                    }
                }
                Some(t) if t.is_dir() => resolved = candidate,
                _ if rest.is_empty() => resolved = candidate,
                _ => return Err(io::Error::from_raw_os_error(libc::ENOTDIR)),
            }
        }
        Ok(())
    }
}

/// The names of `path` to resolve in turn (`..` kept, `.` and the root
/// dropped).
fn names(path: &Path) -> VecDeque<OsString> {
    path.components()
        .filter_map(|c| match c {
            Component::Normal(n) => Some(n.to_os_string()),
            Component::ParentDir => Some(OsString::from("..")),
            _ => None,
        })
        .collect()
}
