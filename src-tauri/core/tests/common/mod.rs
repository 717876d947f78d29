//! Fixture trees in temp dirs, and running things as an unprivileged user.
#![allow(dead_code)]

pub mod scratch;
pub mod tar_tools;

use std::ffi::{CString, OsStr};
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::Duration;

use canopy_core::cancel::CancelToken;
use canopy_core::testing::IoHooks;
use canopy_core::wire::{
    Entry, Folder, ListRequest, ListSettings, Listing, LocateRequest, Located, SortBy,
};
use canopy_core::{CanopyError, ListCall, LocalFs, Observer, RequestBudget};

/// Everything one listing in these tests sets, as one struct (the front
/// door takes it as a [`ListSettings`] and a [`ListCall`]), with the test
/// seams of the local source.
#[derive(Clone)]
pub struct ListOptions {
    pub depth: u32,
    pub offset: u64,
    /// `None`: the whole top level.
    pub limit: Option<u64>,
    pub after: Option<String>,
    pub cap: u32,
    pub show_dotfiles: bool,
    pub budget: Duration,
    pub request: RequestBudget,
    pub cancel: Option<CancelToken>,
    pub hooks: IoHooks,
    pub observer: Option<Arc<dyn Observer>>,
    pub request_id: u64,
    pub details: bool,
    pub handles: bool,
    pub sort: SortBy,
    pub reverse: bool,
    pub filter: Option<String>,
    pub hide_ignored: bool,
    pub summary: bool,
}

impl Default for ListOptions {
    fn default() -> Self {
        let (settings, call) = (ListSettings::default(), ListCall::default());
        ListOptions {
            depth: settings.depth,
            offset: call.offset,
            limit: Some(u64::from(settings.limit)),
            after: call.after,
            cap: settings.cap,
            show_dotfiles: settings.show_dotfiles,
            budget: call.budget,
            request: call.request,
            cancel: call.cancel,
            hooks: IoHooks::default(),
            observer: None,
            request_id: call.request_id,
            details: call.details,
            handles: call.handles,
            sort: settings.sort,
            reverse: settings.reverse,
            filter: settings.filter,
            hide_ignored: settings.hide_ignored,
            summary: call.summary,
        }
    }
}

impl ListOptions {
    pub fn settings(&self) -> ListSettings {
        ListSettings {
            depth: self.depth,
            cap: self.cap,
            limit: self.limit.map_or(1, |l| l.min(u64::from(u32::MAX)) as u32),
            show_dotfiles: self.show_dotfiles,
            sort: self.sort,
            reverse: self.reverse,
            filter: self.filter.clone(),
            glob_filter: false,
            hide_ignored: self.hide_ignored,
        }
    }

    pub fn call(&self) -> ListCall {
        ListCall {
            offset: self.offset,
            after: self.after.clone(),
            whole_top_level: self.limit.is_none(),
            request_id: self.request_id,
            cancel: self.cancel.clone(),
            observer: self.observer.clone(),
            details: self.details,
            handles: self.handles,
            summary: self.summary,
            budget: self.budget,
            request: self.request,
            ..ListCall::default()
        }
    }
}

/// The local source with the test seams `hooks`.
pub fn local(hooks: &IoHooks) -> LocalFs {
    LocalFs::new().with_test_hooks(hooks.clone())
}

/// Lists `root` on the local filesystem through the front door.
pub fn list(root: &Path, opts: &ListOptions) -> Result<Listing, CanopyError> {
    canopy_core::list(&local(&opts.hooks), root, &opts.settings(), &opts.call())
}

/// `locate` on the local filesystem.
pub fn locate(req: &LocateRequest, hooks: &IoHooks) -> Result<Located, CanopyError> {
    canopy_core::locate(&local(hooks), req)
}

/// A `list_directory` request on the local filesystem.
pub fn list_request(
    req: &ListRequest,
    cancel: Option<CancelToken>,
    hooks: IoHooks,
) -> Result<Listing, CanopyError> {
    canopy_core::list_request(&local(&hooks), req, cancel, None)
}

/// A temp folder that an unprivileged user can reach, removed on drop (after
/// its modes are restored so removal works).
pub struct Tree {
    pub dir: tempfile::TempDir,
    modes_changed: std::cell::Cell<bool>,
}

impl Tree {
    pub fn new() -> Self {
        let dir = tempfile::Builder::new()
            .prefix("canopy-test-")
            .tempdir()
            .unwrap();
        fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o755)).unwrap();
        Tree {
            dir,
            modes_changed: std::cell::Cell::new(false),
        }
    }

    /// A tree on tmpfs (`/dev/shm`) when there is one: for fixtures of a
    /// million files, whose creation on a disk filesystem is slow and leaves
    /// its inode allocator slow for a while after they are deleted.
    pub fn new_in_memory() -> Self {
        let shm = Path::new("/dev/shm");
        let dir = if shm.is_dir() {
            tempfile::Builder::new()
                .prefix("canopy-test-")
                .tempdir_in(shm)
        } else {
            tempfile::Builder::new().prefix("canopy-test-").tempdir()
        }
        .unwrap();
        fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o755)).unwrap();
        Tree {
            dir,
            modes_changed: std::cell::Cell::new(false),
        }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn at(&self, rel: impl AsRef<[u8]>) -> PathBuf {
        self.path().join(OsStr::from_bytes(rel.as_ref()))
    }

    pub fn file(&self, rel: impl AsRef<[u8]>) -> PathBuf {
        self.write(rel, b"")
    }

    pub fn write(&self, rel: impl AsRef<[u8]>, content: &[u8]) -> PathBuf {
        let p = self.at(rel);
        if let Some(parent) = p.parent() {
            fs::create_dir_all(parent).unwrap();
        }
        fs::write(&p, content).unwrap();
        p
    }

    pub fn dir(&self, rel: impl AsRef<[u8]>) -> PathBuf {
        let p = self.at(rel);
        fs::create_dir_all(&p).unwrap();
        p
    }

    /// Makes `rel` a repository's root, as git decides one without running
    /// git: see [`make_repository`]. Returns the root.
    pub fn repo(&self, rel: impl AsRef<[u8]>) -> PathBuf {
        let root = self.dir(rel);
        make_repository(&root);
        root
    }

    pub fn symlink(&self, target: impl AsRef<[u8]>, rel: impl AsRef<[u8]>) -> PathBuf {
        let p = self.at(rel);
        std::os::unix::fs::symlink(OsStr::from_bytes(target.as_ref()), &p).unwrap();
        p
    }

    pub fn fifo(&self, rel: impl AsRef<[u8]>) -> PathBuf {
        let p = self.at(rel);
        let c = CString::new(p.as_os_str().as_bytes()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0, "mkfifo");
        p
    }

    pub fn socket(&self, rel: impl AsRef<[u8]>) -> std::os::unix::net::UnixListener {
        std::os::unix::net::UnixListener::bind(self.at(rel)).unwrap()
    }

    /// `n` empty files named `prefix{i:width}` in `rel`.
    pub fn files(&self, rel: &str, prefix: &str, n: usize) {
        let d = self.dir(rel);
        for i in 1..=n {
            fs::write(d.join(format!("{prefix}{i:03}")), b"").unwrap();
        }
    }

    pub fn chmod(&self, rel: impl AsRef<[u8]>, mode: u32) {
        self.modes_changed.set(true);
        fs::set_permissions(self.at(rel), fs::Permissions::from_mode(mode)).unwrap();
    }
}

impl Drop for Tree {
    fn drop(&mut self) {
        // Restore modes so the temp dir can be removed.
        if self.modes_changed.get() {
            let _ = Command::new("chmod")
                .arg("-R")
                .arg("u+rwx")
                .arg(self.path())
                .status();
        }
    }
}

pub fn opts(depth: u32, cap: u32) -> ListOptions {
    ListOptions {
        depth,
        cap,
        ..ListOptions::default()
    }
}

pub fn list_at(path: &Path, depth: u32, cap: u32) -> Listing {
    list(path, &opts(depth, cap)).expect("listing should succeed")
}

pub fn folder(e: &Entry) -> &Folder {
    e.folder
        .as_ref()
        .unwrap_or_else(|| panic!("{} has no folder", e.name))
}

pub fn names(f: &Folder) -> Vec<&str> {
    f.entries.iter().map(|e| e.name.as_str()).collect()
}

pub fn child<'a>(f: &'a Folder, name: &str) -> &'a Entry {
    f.entries
        .iter()
        .find(|e| e.name == name)
        .unwrap_or_else(|| panic!("no entry {name} in {:?}", names(f)))
}

pub fn is_root() -> bool {
    unsafe { libc::geteuid() == 0 }
}

/// `canopy-list`, copied where an unprivileged user can run it (its tests
/// live in the canopy-list package, which includes this module).
pub fn cli() -> PathBuf {
    static COPY: OnceLock<PathBuf> = OnceLock::new();
    COPY.get_or_init(|| {
        let dir = scratch::dir_for_nobody("list-bin");
        let dest = dir.join("canopy-list");
        let Some(built) = option_env!("CARGO_BIN_EXE_canopy-list") else {
            panic!("canopy-list is built for the canopy-list package's tests only");
        };
        fs::copy(built, &dest).unwrap();
        fs::set_permissions(&dest, fs::Permissions::from_mode(0o755)).unwrap();
        dest
    })
    .clone()
}

/// A command that runs as `nobody` when we are root (permission checks mean
/// nothing to root), and as ourselves otherwise.
pub fn unprivileged(program: &Path) -> Command {
    if is_root() {
        let mut c = Command::new("setpriv");
        c.args(["--reuid=nobody", "--regid=nogroup", "--clear-groups", "--"])
            .arg(program);
        c
    } else {
        Command::new(program)
    }
}

/// A writer thread blocked in `open()` on a fifo until some reader opens it:
/// if the code under test opens the fifo, the writer is released.
///
/// "Blocked" is read from the kernel, not assumed after a pause: the thread's
/// `/proc/self/task/TID/wchan` names the function it sleeps in, and a writer
/// waiting in `open()` for a reader sleeps in `wait_for_partner`. A reader's
/// open wakes it at once (its wchan then reads `0`), so a check right after
/// the code under test ran is exact.
pub struct BlockedWriter {
    fifo: PathBuf,
    tid: libc::pid_t,
    released: std::sync::Arc<std::sync::atomic::AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

/// Where a writer waits in `open()` for a fifo's reader.
const FIFO_OPEN_WCHAN: &str = "wait_for_partner";

impl BlockedWriter {
    /// Starts the writer and returns once the kernel shows it waiting in `open()`.
    pub fn on(fifo: &Path) -> Self {
        let released = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let (flag, path) = (released.clone(), fifo.to_path_buf());
        let (tx, rx) = std::sync::mpsc::channel();
        let thread = std::thread::spawn(move || {
            tx.send(unsafe { libc::gettid() }).unwrap();
            let _w = fs::OpenOptions::new().write(true).open(&path).unwrap();
            flag.store(true, std::sync::atomic::Ordering::SeqCst);
        });
        let tid = rx.recv().unwrap();
        let writer = BlockedWriter {
            fifo: fifo.to_path_buf(),
            tid,
            released,
            thread: Some(thread),
        };
        // Wait for the thread to reach open(): it gets there without help, so
        // the deadline only turns a broken fixture into a failure, not a hang.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        while writer.wchan() != FIFO_OPEN_WCHAN {
            assert!(
                std::time::Instant::now() < deadline,
                "the writer never blocked in open(): wchan {:?}",
                writer.wchan()
            );
            assert!(
                !writer.released.load(std::sync::atomic::Ordering::SeqCst),
                "the writer was released before the test began"
            );
            std::thread::yield_now();
        }
        writer
    }

    /// The kernel function the writer thread sleeps in (`0` when it runs).
    pub fn wchan(&self) -> String {
        fs::read_to_string(format!("/proc/self/task/{}/wchan", self.tid)).unwrap_or_default()
    }

    /// True if the writer is still asleep in `open()`, waiting for a reader.
    pub fn still_blocked(&self) -> bool {
        self.wchan() == FIFO_OPEN_WCHAN && !self.released.load(std::sync::atomic::Ordering::SeqCst)
    }
}

impl Drop for BlockedWriter {
    fn drop(&mut self) {
        // Release the writer ourselves so the test ends; non-blocking, so a
        // writer already gone (a failed test released it) cannot hang us.
        let _reader = fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(&self.fifo);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Sets a path's modification time (seconds and nanoseconds since the epoch),
/// without following a symlink.
pub fn set_mtime(path: &Path, secs: i64, nanos: i64) {
    let c = CString::new(path.as_os_str().as_bytes()).unwrap();
    let times = [
        libc::timespec {
            tv_sec: 0,
            tv_nsec: libc::UTIME_OMIT,
        },
        libc::timespec {
            tv_sec: secs,
            tv_nsec: nanos,
        },
    ];
    let rc = unsafe {
        libc::utimensat(
            libc::AT_FDCWD,
            c.as_ptr(),
            times.as_ptr(),
            libc::AT_SYMLINK_NOFOLLOW,
        )
    };
    assert_eq!(
        rc,
        0,
        "utimensat {}: {}",
        path.display(),
        std::io::Error::last_os_error()
    );
}

/// Makes the folder `root` a repository's root: a `.git` folder holding
/// what git's `is_git_directory` asks for (a `HEAD` naming a branch,
/// `objects` and `refs`). An empty `.git` folder is not one, for git.
pub fn make_repository(root: &Path) {
    fs::create_dir_all(root.join(".git/objects")).unwrap();
    fs::create_dir_all(root.join(".git/refs")).unwrap();
    fs::write(root.join(".git/HEAD"), b"ref: refs/heads/main\n").unwrap();
}

/// `git` run in `dir`, away from the user's and the system's configuration.
pub fn git_in(dir: &Path) -> Command {
    let mut c = Command::new("git");
    c.current_dir(dir)
        .env("HOME", "/nonexistent")
        .env("XDG_CONFIG_HOME", "/nonexistent")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env("LC_ALL", "C");
    c
}

/// Runs `git init -q` in `dir` (made if need be).
pub fn git_init(dir: &Path) {
    fs::create_dir_all(dir).unwrap();
    let o = git_in(dir)
        .args(["init", "-q"])
        .output()
        .expect("git is needed for this test (scripts/test installs it)");
    assert!(
        o.status.success(),
        "git init: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// What `git check-ignore --no-index` run in `dir` says of `path`
/// (relative to `dir`): true when ignored.
pub fn git_ignores(dir: &Path, path: &str) -> bool {
    let o = git_in(dir)
        .args(["check-ignore", "--no-index", "-q", path])
        .output()
        .expect("git is needed for this test (scripts/test installs it)");
    match o.status.code() {
        Some(0) => true,
        Some(1) => false,
        _ => panic!(
            "git check-ignore {path} in {}: {}",
            dir.display(),
            String::from_utf8_lossy(&o.stderr)
        ),
    }
}

/// What `git check-ignore --no-index -v -n` says of each path, run as
/// `git` is set up (its folder and environment): ignored or not, and by
/// which rule (source:line:pattern), one verdict a path.
pub fn check_ignore(mut git: Command, paths: &[Vec<u8>]) -> Vec<(bool, String)> {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = git
        .args(["check-ignore", "--no-index", "--stdin", "-z", "-v", "-n"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("git is needed for this test (scripts/test installs it): it could not be started");
    let input: Vec<u8> = paths
        .iter()
        .flat_map(|p| p.iter().copied().chain([0]))
        .collect();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "git check-ignore failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Four fields a path: source, line, pattern (with its `!`), path.
    let fields: Vec<&[u8]> = out.stdout.split(|&b| b == 0).collect();
    let verdicts: Vec<(bool, String)> = fields
        .chunks(4)
        .filter(|c| c.len() == 4)
        .map(|c| {
            let ignored = !c[0].is_empty() && !c[2].starts_with(b"!");
            let why = match c[0].is_empty() {
                true => "no rule matches".to_string(),
                false => format!(
                    "{}:{}: {}",
                    c[0].escape_ascii(),
                    c[1].escape_ascii(),
                    c[2].escape_ascii()
                ),
            };
            (ignored, why)
        })
        .collect();
    assert_eq!(verdicts.len(), paths.len(), "git gives one verdict a path");
    verdicts
}

/// The local disk, but a link's target is swapped for another file right
/// after a file was opened through it: what was opened must be what is shown.
#[derive(Clone)]
pub struct SwapAfterOpen {
    pub link: PathBuf,
    pub other: PathBuf,
}

impl canopy_core::Source for SwapAfterOpen {
    type Folder = <LocalFs as canopy_core::Source>::Folder;
    type File = <LocalFs as canopy_core::Source>::File;
    fn open_folder(&self, path: &Path) -> std::io::Result<Self::Folder> {
        LocalFs::new().open_folder(path)
    }
    fn open_file(&self, path: &Path) -> Result<Self::File, CanopyError> {
        let file = LocalFs::new().open_file(path)?;
        std::fs::remove_file(&self.link).unwrap();
        std::os::unix::fs::symlink(&self.other, &self.link).unwrap();
        Ok(file)
    }
}

/// The engine's registry of stuck calls is one per process. A test that
/// leaves a call stuck (on a dead mount) and a test that counts stuck
/// threads each hold this, so that in a binary of many tests they never run
/// beside each other.
pub fn stuck_calls_alone() -> MutexGuard<'static, ()> {
    static ALONE: Mutex<()> = Mutex::new(());
    ALONE.lock().unwrap_or_else(|e| e.into_inner())
}
