//! The local filesystem as a [`crate::Source`], and its test seams.

use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use super::anchor::Anchor;
use super::dirio::Dir;
use crate::error::CanopyError;

/// The local source's test seams (set only in the `e2e` build and in
/// tests; the default does nothing).
///
/// `slow_folder`: a folder with exactly this name is read slowly (small
/// batches, each after `slow_delay`), standing in for a hung network mount so
/// the time budget and the UI's handling of it can be tested for real.
/// `slow_stat`: each `lstat` of an entry of the slow folder takes this long
/// (a slow network filesystem under a size or modified order).
#[derive(Clone, Default)]
pub struct IoHooks {
    pub slow_folder: Option<Vec<u8>>,
    pub slow_delay: Duration,
    pub slow_stat: Option<Duration>,
}

impl std::fmt::Debug for IoHooks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IoHooks")
            .field("slow_folder", &self.slow_folder)
            .field("slow_delay", &self.slow_delay)
            .field("slow_stat", &self.slow_stat)
            .finish()
    }
}

impl IoHooks {
    /// Reads `CANOPY_TEST_SLOW_FOLDER` (a folder name),
    /// `CANOPY_TEST_SLOW_DELAY_MS` (default 200) and
    /// `CANOPY_TEST_SLOW_STAT_MS` (unset: stats are not slowed) from the environment.
    /// Only in the `e2e` build: elsewhere the environment is not read and
    /// the hooks do nothing, so what users run has no such seam.
    #[cfg(feature = "e2e")]
    pub fn from_env() -> Self {
        let slow_folder =
            std::env::var_os("CANOPY_TEST_SLOW_FOLDER").map(|v| v.as_bytes().to_vec());
        let ms = std::env::var("CANOPY_TEST_SLOW_DELAY_MS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(200);
        let stat_ms: Option<u64> = std::env::var("CANOPY_TEST_SLOW_STAT_MS")
            .ok()
            .and_then(|v| v.parse().ok());
        IoHooks {
            slow_folder,
            slow_delay: Duration::from_millis(ms),
            slow_stat: stat_ms.map(Duration::from_millis),
        }
    }

    pub(super) fn delay_for(&self, name: &[u8]) -> Option<Duration> {
        match &self.slow_folder {
            Some(slow) if slow.as_slice() == name => Some(self.slow_delay),
            _ => None,
        }
    }

    /// What a folder keeps for its children: the seams, when a folder is slowed.
    pub(super) fn seams(&self) -> Option<std::sync::Arc<IoHooks>> {
        self.slow_folder
            .is_some()
            .then(|| std::sync::Arc::new(self.clone()))
    }

    pub(super) fn stat_delay_for(&self, name: &[u8]) -> Option<Duration> {
        self.delay_for(name).and(self.slow_stat)
    }
}

/// The local filesystem as a [`crate::Source`]: folders opened as folders
/// and read with `getdents64` (see the module docs).
///
/// [`LocalFs::new`] follows a symlink given as the folder to list, and
/// follows a listed link to say where it leads. [`LocalFs::confined`]
/// follows none: the folder to list must be a real path (each component is
/// opened without following a link, so a link swapped in fails the open),
/// and asking where a listed link leads answers `EXDEV` at once, as
/// `RESOLVE_BENEATH` would, for the caller to judge the link's text itself
/// (`canopy-mcp`, whose links may lead outside the folders an agent may see).
#[derive(Debug, Clone, Default)]
pub struct LocalFs {
    /// Follow no link (see [`LocalFs::confined`]).
    confined: bool,
    /// The test seams (slowed folders; nothing outside tests).
    hooks: IoHooks,
    /// For a confined source: the folders whose repositories' ignore rules
    /// may be read (see [`LocalFs::with_ignore_rules_within`]).
    ignore_within: Option<Arc<[PathBuf]>>,
}

impl LocalFs {
    /// The local filesystem, following links (the window, `canopy-list`).
    pub fn new() -> LocalFs {
        LocalFs::default()
    }

    /// The local filesystem without following any link (see the type's docs).
    pub fn confined() -> LocalFs {
        LocalFs {
            confined: true,
            ..LocalFs::default()
        }
    }

    /// The same source (its test seams kept), following no link (see
    /// [`LocalFs::confined`]).
    pub fn confine(self) -> LocalFs {
        LocalFs {
            confined: true,
            ..self
        }
    }

    /// The same confined source, hiding what git would ignore from the
    /// repositories found inside `roots` (real paths): a folder's
    /// repository is looked for only among its ancestors inside them, and
    /// the user's global excludes file (outside them) is not read.
    pub fn with_ignore_rules_within(self, roots: Vec<PathBuf>) -> LocalFs {
        LocalFs {
            ignore_within: Some(roots.into()),
            ..self
        }
    }

    /// Where a confined source may read ignore rules, if anywhere.
    pub(crate) fn ignore_within(&self) -> Option<&[PathBuf]> {
        self.ignore_within.as_deref()
    }

    /// The same source with the test seams `hooks` (the `e2e` build only).
    #[cfg(feature = "e2e")]
    pub fn with_test_hooks(self, hooks: IoHooks) -> LocalFs {
        LocalFs { hooks, ..self }
    }

    /// The same source with the test seams read from the environment
    /// ([`IoHooks::from_env`]); without the `e2e` build, the same source.
    pub fn with_env_seams(self) -> LocalFs {
        #[cfg(feature = "e2e")]
        return self.with_test_hooks(IoHooks::from_env());
        #[cfg(not(feature = "e2e"))]
        self
    }

    /// This source follows no link (see [`LocalFs::confined`]).
    pub fn is_confined(&self) -> bool {
        self.confined
    }

    /// Opens the folder `path` only to look names up in it (see [`Dir::search_path`]).
    pub(crate) fn search_path(&self, path: &Path) -> io::Result<Dir> {
        Dir::search_path(path, self.confined)
    }

    /// Opens the folder at `path`, a real path, one component at a time
    /// without following a link.
    fn open_real(&self, path: &Path) -> io::Result<Dir> {
        match (path.parent(), path.file_name()) {
            (Some(parent), Some(name)) => {
                Dir::open_real_child(&Anchor::real_folder(parent)?, name.as_bytes(), &self.hooks)
            }
            _ => Dir::open_path(path, &self.hooks, true),
        }
    }
}

/// A regular file of the local filesystem, open for reading.
#[derive(Debug)]
pub struct LocalFile {
    file: std::fs::File,
    size: u64,
    stamp: Option<crate::source::FileStamp>,
}

impl LocalFile {
    /// A file opened (and checked regular) elsewhere, of `size` bytes.
    pub(crate) fn new(file: std::fs::File, size: u64) -> LocalFile {
        LocalFile {
            file,
            size,
            stamp: None,
        }
    }

    fn checked(file: std::fs::File, st: &libc::stat) -> LocalFile {
        let ns = |s: i64, n: i64| i128::from(s) * 1_000_000_000 + i128::from(n);
        let stamp = crate::source::FileStamp {
            dev: st.st_dev,
            ino: st.st_ino,
            size: st.st_size.max(0) as u64,
            changed_ns: ns(st.st_ctime, st.st_ctime_nsec),
            modified_ns: ns(st.st_mtime, st.st_mtime_nsec),
        };
        LocalFile {
            file,
            size: stamp.size,
            stamp: Some(stamp),
        }
    }
}

impl crate::source::SourceFile for LocalFile {
    fn size(&self) -> u64 {
        self.size
    }

    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        std::os::unix::fs::FileExt::read_at(&self.file, buf, offset)
    }

    fn stamp(&self) -> Option<crate::source::FileStamp> {
        self.stamp
    }

    fn descriptor(&self) -> Option<&std::fs::File> {
        Some(&self.file)
    }
}

impl crate::source::Source for LocalFs {
    type Folder = Dir;
    type File = LocalFile;

    fn open_file(&self, path: &Path) -> Result<LocalFile, CanopyError> {
        let (file, st) = if self.confined {
            super::file::open_real_regular(path)?
        } else {
            super::file::open_regular(path)?
        };
        Ok(LocalFile::checked(file, &st))
    }

    fn open_child_file(
        &self,
        folder: &Dir,
        name: &[u8],
        _path: &Path,
    ) -> Result<LocalFile, CanopyError> {
        // The folder was opened without following a link, confined or not.
        let (file, st) = folder.open_file_child(name)?;
        Ok(LocalFile::checked(file, &st))
    }

    fn open_folder(&self, path: &Path) -> io::Result<Dir> {
        if self.confined {
            self.open_real(path)
        } else {
            Dir::open_path(path, &self.hooks, false)
        }
    }

    fn ignore_rules(
        &self,
        path: &Path,
        meter: &mut crate::ignore_pattern::Meter<'_>,
    ) -> (crate::ignore_rules::IgnoreRules, Option<crate::CanopyError>) {
        if self.confined && self.ignore_within.is_none() {
            // Git's rules live above the folder (the repository's top, the
            // user's global excludes) and are found by following links: a
            // confined source hides nothing rather than look outside.
            let why = "hiding ignored entries needs the repository above this folder, which a confined source does not look at";
            return (
                crate::ignore_rules::IgnoreRules::none(),
                Some(CanopyError::new(crate::ErrorCode::Denied, why)),
            );
        }
        crate::ignore_rules::IgnoreRules::for_folder(path, self, meter)
    }

    fn child_ignore_rules(
        &self,
        parent: &crate::ignore_rules::IgnoreRules,
        name: &[u8],
        folder: &Dir,
        path: &Path,
    ) -> (crate::ignore_rules::IgnoreRules, Option<crate::CanopyError>) {
        // The work (matching the folder's name, reading a repository's
        // index) stops within a folder's time budget. The folder's own
        // deadline and the request's cancel are not passed down through
        // `Source` (the archive and server sources forward this call).
        let deadline = std::time::Instant::now() + crate::limits::TIME_BUDGET;
        let mut meter = crate::ignore_pattern::Meter::new(Some(deadline), None);
        parent.descend(name, folder, path, self, &mut meter)
    }
}
