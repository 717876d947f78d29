//! A FUSE filesystem that stops answering, mounted for real: the dead mount
//! that the engine must never wait on. Used by `tests/dead_mount.rs` and, as
//! the `dead_mount` example, by the end-to-end suite.
//!
//! ```text
//! <mount>/cold/        its lookup is never answered (an open that hangs
//!                      before the device it leads to is known)
//! <mount>/dead/        opens, but its readdir is never answered
//! <mount>/frozen.txt   its open is never answered
//! <mount>/live/        a.txt, b.txt: answers at once
//! <mount>/rules/       .gitignore (its open is never answered), c.txt
//! <mount>/stalled.webm  1 MiB; opens, and a read within its first 4 KiB
//!                      (a WebM header) answers, but any read past them is
//!                      never answered (direct I/O: reads reach the
//!                      filesystem as asked, without the kernel's read-ahead)
//! ```
//!
//! [`DeadMount::dead_root`] mounts one whose own root never answers readdir,
//! nor `statfs` (free space): a dead mount point seen from the folder that
//! holds it.
//! [`DeadMount::frozen_archive`] mounts one whose root holds `frozen.zip`
//! (its open is never answered) and `a.txt`.
//!
//! Requests that are never answered are held (a `fuser` reply answers `EIO`
//! when dropped). [`DeadMount`]'s drop aborts the connection through
//! `/sys/fs/fuse/connections/N/abort` (mounting `fusectl` there first if
//! needed), which fails every held request so stuck readers return, then
//! unmounts: a failing test never leaves a stuck mount behind.
#![allow(dead_code)]

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, UNIX_EPOCH};

use fuser::{
    Config, Errno, FileAttr, FileHandle, FileType, Filesystem, Generation, INodeNo, LockOwner,
    MountOption, OpenFlags, ReplyAttr, ReplyData, ReplyDirectory, ReplyEntry, ReplyOpen,
    ReplyStatfs, Request, SessionACL,
};

const ROOT: u64 = 1;
const DEAD: u64 = 2;
const COLD: u64 = 3;
const LIVE: u64 = 4;
const FROZEN: u64 = 5;
const A: u64 = 6;
const B: u64 = 7;
const RULES: u64 = 8;
const FROZEN_RULES: u64 = 9;
const C: u64 = 10;
const FROZEN_ZIP: u64 = 11;
const STALLED: u64 = 12;
const CONTENT: &[u8] = b"hello\n";
/// `stalled.webm`'s size, and how much of its start answers.
const STALLED_SIZE: u64 = 1024 * 1024;
const STALLED_ANSWERED: u64 = 4096;

/// The first bytes of `stalled.webm`: an EBML header naming WebM, then zeros.
fn stalled_bytes(offset: u64, size: u32) -> Vec<u8> {
    const HEAD: &[u8] = b"\x1a\x45\xdf\xa3\x9f\x42\x86\x81\x01\x42\xf7\x81\x01\x42\xf2\x81\x04\x42\xf3\x81\x08\x42\x82\x84webm\x42\x87\x81\x02\x42\x85\x81\x02";
    (offset..offset + u64::from(size))
        .map(|i| HEAD.get(i as usize).copied().unwrap_or(0))
        .collect()
}

/// How many requests of each kind are held unanswered.
#[derive(Debug, Default)]
pub struct Held {
    pub readdirs: AtomicUsize,
    pub lookups: AtomicUsize,
    pub opens: AtomicUsize,
    pub reads: AtomicUsize,
    pub statfs: AtomicUsize,
}

struct DeadFs {
    /// The mount's own root never answers readdir either.
    dead_root: bool,
    /// The root holds `frozen.zip` and `a.txt` only.
    frozen_archive: bool,
    held: Arc<Held>,
    // Replies held so that they are never sent (dropping one answers EIO).
    readdirs: Mutex<Vec<ReplyDirectory>>,
    lookups: Mutex<Vec<ReplyEntry>>,
    opens: Mutex<Vec<ReplyOpen>>,
    reads: Mutex<Vec<ReplyData>>,
    statfs: Mutex<Vec<ReplyStatfs>>,
}

fn attr(ino: u64) -> FileAttr {
    let (kind, perm, size) = match ino {
        ROOT | DEAD | COLD | LIVE | RULES => (FileType::Directory, 0o755, 0),
        STALLED => (FileType::RegularFile, 0o644, STALLED_SIZE),
        _ => (FileType::RegularFile, 0o644, CONTENT.len() as u64),
    };
    FileAttr {
        ino: INodeNo(ino),
        size,
        blocks: 1,
        atime: UNIX_EPOCH,
        mtime: UNIX_EPOCH,
        ctime: UNIX_EPOCH,
        crtime: UNIX_EPOCH,
        kind,
        perm,
        nlink: if kind == FileType::Directory { 2 } else { 1 },
        uid: 0,
        gid: 0,
        rdev: 0,
        blksize: 4096,
        flags: 0,
    }
}

fn children(ino: u64) -> &'static [(u64, FileType, &'static str)] {
    match ino {
        ROOT => &[
            (COLD, FileType::Directory, "cold"),
            (DEAD, FileType::Directory, "dead"),
            (FROZEN, FileType::RegularFile, "frozen.txt"),
            (LIVE, FileType::Directory, "live"),
            (RULES, FileType::Directory, "rules"),
            (STALLED, FileType::RegularFile, "stalled.webm"),
        ],
        LIVE => &[
            (A, FileType::RegularFile, "a.txt"),
            (B, FileType::RegularFile, "b.txt"),
        ],
        RULES => &[
            (FROZEN_RULES, FileType::RegularFile, ".gitignore"),
            (C, FileType::RegularFile, "c.txt"),
        ],
        _ => &[],
    }
}

const TTL: Duration = Duration::from_secs(1);

const ARCHIVE_ROOT: &[(u64, FileType, &str)] = &[
    (A, FileType::RegularFile, "a.txt"),
    (FROZEN_ZIP, FileType::RegularFile, "frozen.zip"),
];

impl DeadFs {
    fn kids(&self, ino: u64) -> &'static [(u64, FileType, &'static str)] {
        if self.frozen_archive && ino == ROOT {
            ARCHIVE_ROOT
        } else {
            children(ino)
        }
    }
}

impl Filesystem for DeadFs {
    fn lookup(&self, _req: &Request, parent: INodeNo, name: &OsStr, reply: ReplyEntry) {
        let found = self
            .kids(parent.0)
            .iter()
            .find(|(_, _, n)| n.as_bytes() == name.as_bytes());
        match found {
            Some((COLD, _, _)) => {
                self.held.lookups.fetch_add(1, Ordering::SeqCst);
                self.lookups.lock().unwrap().push(reply);
            }
            Some((ino, _, _)) => reply.entry(&TTL, &attr(*ino), Generation(0)),
            None => reply.error(Errno::ENOENT),
        }
    }

    fn getattr(&self, _req: &Request, ino: INodeNo, _fh: Option<FileHandle>, reply: ReplyAttr) {
        reply.attr(&TTL, &attr(ino.0));
    }

    fn open(&self, _req: &Request, ino: INodeNo, _flags: OpenFlags, reply: ReplyOpen) {
        if ino.0 == FROZEN || ino.0 == FROZEN_RULES || ino.0 == FROZEN_ZIP {
            self.held.opens.fetch_add(1, Ordering::SeqCst);
            self.opens.lock().unwrap().push(reply);
        } else if ino.0 == STALLED {
            reply.opened(FileHandle(0), fuser::FopenFlags::FOPEN_DIRECT_IO);
        } else {
            reply.opened(FileHandle(0), fuser::FopenFlags::empty());
        }
    }

    fn read(
        &self,
        _req: &Request,
        ino: INodeNo,
        _fh: FileHandle,
        offset: u64,
        size: u32,
        _flags: OpenFlags,
        _lock: Option<LockOwner>,
        reply: ReplyData,
    ) {
        if ino.0 == STALLED {
            if offset + u64::from(size) <= STALLED_ANSWERED {
                reply.data(&stalled_bytes(offset, size));
            } else {
                self.held.reads.fetch_add(1, Ordering::SeqCst);
                self.reads.lock().unwrap().push(reply);
            }
            return;
        }
        let start = (offset as usize).min(CONTENT.len());
        let end = (start + size as usize).min(CONTENT.len());
        reply.data(&CONTENT[start..end]);
    }

    fn statfs(&self, _req: &Request, _ino: INodeNo, reply: ReplyStatfs) {
        if self.dead_root {
            self.held.statfs.fetch_add(1, Ordering::SeqCst);
            self.statfs.lock().unwrap().push(reply);
        } else {
            reply.statfs(0, 0, 0, 0, 0, 512, 255, 0);
        }
    }

    fn readdir(
        &self,
        _req: &Request,
        ino: INodeNo,
        _fh: FileHandle,
        offset: u64,
        mut reply: ReplyDirectory,
    ) {
        if ino.0 == DEAD || (self.dead_root && ino.0 == ROOT) {
            self.held.readdirs.fetch_add(1, Ordering::SeqCst);
            self.readdirs.lock().unwrap().push(reply);
            return;
        }
        for (i, (child, kind, name)) in self.kids(ino.0).iter().enumerate().skip(offset as usize) {
            if reply.add(INodeNo(*child), (i + 1) as u64, *kind, name) {
                break;
            }
        }
        reply.ok();
    }
}

/// A mounted [`DeadFs`]; aborted and unmounted on drop.
pub struct DeadMount {
    pub path: PathBuf,
    pub held: Arc<Held>,
    connection: u64,
    session: Option<fuser::BackgroundSession>,
}

fn fusectl_ready(connection: u64) -> bool {
    Path::new(&format!("/sys/fs/fuse/connections/{connection}/abort")).exists()
}

impl DeadMount {
    /// Mounts the filesystem on `path` (an empty folder).
    ///
    /// # Panics
    /// When it cannot be mounted (no `/dev/fuse`, not root): the tests that
    /// use it must not pass without it.
    pub fn on(path: &Path) -> DeadMount {
        Self::mount(path, false)
    }

    /// Mounts one whose root never answers readdir.
    ///
    /// # Panics
    /// As [`DeadMount::on`].
    pub fn dead_root(path: &Path) -> DeadMount {
        Self::mount(path, true)
    }

    /// Mounts one whose root holds `frozen.zip` (never opens) and `a.txt`.
    ///
    /// # Panics
    /// As [`DeadMount::on`].
    pub fn frozen_archive(path: &Path) -> DeadMount {
        Self::mount_as(path, false, true)
    }

    fn mount(path: &Path, dead_root: bool) -> DeadMount {
        Self::mount_as(path, dead_root, false)
    }

    fn mount_as(path: &Path, dead_root: bool, frozen_archive: bool) -> DeadMount {
        let held = Arc::new(Held::default());
        let fs = DeadFs {
            dead_root,
            frozen_archive,
            held: held.clone(),
            readdirs: Mutex::default(),
            lookups: Mutex::default(),
            opens: Mutex::default(),
            reads: Mutex::default(),
            statfs: Mutex::default(),
        };
        let mut config = Config::default();
        config.mount_options = vec![MountOption::RO, MountOption::FSName("canopy-dead".into())];
        config.acl = SessionACL::All;
        let session = fuser::spawn_mount(fs, path, &config).unwrap_or_else(|e| {
            panic!(
                "cannot mount the dead FUSE filesystem on {}: {e}",
                path.display()
            )
        });
        let meta = std::fs::metadata(path).expect("the mount root answers");
        use std::os::unix::fs::MetadataExt;
        // FUSE's devices have major 0: the connection is named by the minor number.
        let connection = libc::minor(meta.dev()) as u64;
        let mount = DeadMount {
            path: path.to_path_buf(),
            held,
            connection,
            session: Some(session),
        };
        if !fusectl_ready(connection) {
            let target = std::ffi::CString::new("/sys/fs/fuse/connections").unwrap();
            let kind = std::ffi::CString::new("fusectl").unwrap();
            // SAFETY: valid C strings; mounting the FUSE control filesystem.
            unsafe {
                libc::mount(
                    kind.as_ptr(),
                    target.as_ptr(),
                    kind.as_ptr(),
                    0,
                    std::ptr::null(),
                )
            };
        }
        assert!(
            fusectl_ready(connection),
            "no /sys/fs/fuse/connections/{connection}/abort: cannot clean up a stuck mount"
        );
        mount
    }

    /// The file that [`DeadMount::abort`] writes: for a caller that must
    /// abort from a thread of its own.
    pub fn abort_file(&self) -> PathBuf {
        PathBuf::from(format!(
            "/sys/fs/fuse/connections/{}/abort",
            self.connection
        ))
    }

    /// Fails every request held and every later one: stuck readers return.
    pub fn abort(&self) {
        let _ = std::fs::write(
            format!("/sys/fs/fuse/connections/{}/abort", self.connection),
            b"1",
        );
    }
}

impl Drop for DeadMount {
    fn drop(&mut self) {
        self.abort();
        let c = std::ffi::CString::new(self.path.as_os_str().as_bytes()).unwrap();
        // SAFETY: valid C string. Lazy unmount: nothing on it can hold it now.
        unsafe { libc::umount2(c.as_ptr(), libc::MNT_DETACH) };
        if let Some(session) = self.session.take() {
            // The session ends when its connection is gone; unmounting again is harmless.
            let _ = session.umount_and_join();
        }
    }
}
