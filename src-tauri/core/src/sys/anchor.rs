//! Holding an entry by an `O_PATH` descriptor: a walk made of anchors never
//! leaves the folders it walked, whatever is renamed or swapped meanwhile.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path};

use super::{check, cstr, fstat_fd, kind_of_mode, read_link_at};
use crate::source::Identity;
use crate::wire::EntryKind;

/// One entry held by an `O_PATH` descriptor, looked up relative to its
/// folder's own descriptor without following a final symlink: a walk made of
/// anchors never leaves the folders it walked, whatever is renamed or
/// swapped meanwhile, and opens no contents and runs no driver on the way.
#[derive(Debug)]
pub struct Anchor {
    fd: OwnedFd,
    /// What the entry is (a symlink is itself, not its target).
    pub kind: EntryKind,
    pub identity: Identity,
}

impl Anchor {
    /// Holds the folder `path` (absolute, no symlink in it: a real path),
    /// walking it one component at a time from `/` without following any.
    ///
    /// # Errors
    /// The OS error; `ELOOP` or `ENOTDIR` when a component is not a folder.
    pub fn real_folder(path: &Path) -> io::Result<Anchor> {
        let mut at = Anchor::open(libc::AT_FDCWD, b"/")?;
        for comp in path.components() {
            match comp {
                Component::RootDir | Component::CurDir => {}
                Component::Normal(name) => {
                    if at.kind != EntryKind::Folder {
                        return Err(io::Error::from_raw_os_error(libc::ENOTDIR));
                    }
                    at = at.child(name.as_bytes())?;
                }
                Component::ParentDir | Component::Prefix(_) => {
                    return Err(io::Error::from_raw_os_error(libc::EINVAL))
                }
            }
        }
        if at.kind != EntryKind::Folder {
            return Err(io::Error::from_raw_os_error(libc::ENOTDIR));
        }
        Ok(at)
    }

    /// The entry `name` (one component: no `/`) of this folder, a symlink
    /// not followed.
    ///
    /// # Errors
    /// The OS error (`ENOENT`, `EACCES`, `ENOTDIR` when this is no folder).
    pub fn child(&self, name: &[u8]) -> io::Result<Anchor> {
        if name.is_empty() || name.contains(&b'/') || name == b"." || name == b".." {
            return Err(io::Error::from_raw_os_error(libc::EINVAL));
        }
        Anchor::open(self.fd.as_raw_fd(), name)
    }

    fn open(at: RawFd, name: &[u8]) -> io::Result<Anchor> {
        let c = cstr(name)?;
        // SAFETY: valid C string; `at` is a live fd or AT_FDCWD. O_PATH opens
        // no contents and runs no driver; O_NOFOLLOW holds a symlink itself.
        let raw = check(unsafe {
            libc::openat(
                at,
                c.as_ptr(),
                libc::O_PATH | libc::O_NOFOLLOW | libc::O_CLOEXEC,
            )
        })?;
        // SAFETY: fresh fd, owned here.
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        let st = fstat_fd(fd.as_raw_fd())?;
        Ok(Anchor {
            fd,
            kind: kind_of_mode(st.st_mode),
            identity: Identity {
                dev: st.st_dev,
                ino: st.st_ino,
            },
        })
    }

    /// The target text of the symlink this anchor holds (`readlinkat` on
    /// the descriptor itself: the link read is the one looked up).
    ///
    /// # Errors
    /// The OS error; `EINVAL` when it is not a symlink.
    pub fn link_target(&self) -> io::Result<Vec<u8>> {
        // An empty path names the descriptor itself.
        read_link_at(self.fd.as_raw_fd(), c"")
    }

    /// The descriptor, borrowed (to open what is below the held folder).
    pub(super) fn raw_fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }

    /// The descriptor, for listing or reading what was held.
    pub fn into_fd(self) -> OwnedFd {
        self.fd
    }
}
