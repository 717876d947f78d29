//! The window's sidebar, Places: the home folder, the XDG user folders that
//! exist, the GTK bookmarks (read, and "Bookmark this folder"), and the
//! mounted filesystems a person cares about with their free space; and a
//! watch on the mount table, so a mount that comes or goes shows at once.
//!
//! Promises:
//! - listing the places never waits on a mounted filesystem: the mounts
//!   come from the kernel's table; the home folder, the config files and
//!   the user folders are looked at on bounded workers (a dead home costs
//!   `TIME_BUDGET` once, then fails at once), and a place that did not
//!   answer is listed with `TIMEOUT`;
//! - a mount's free space is one `statvfs` on a bounded worker at the
//!   mount's device: a dead mount answers `TIMEOUT` ("not responding")
//!   within `TIME_BUDGET` and at once after that, holding at most one thread;
//! - the bookmarks file is the only file of the user's Canopy writes, and
//!   only on "Bookmark this folder" (see [`bookmarks`]).
#![forbid(unsafe_code)]

pub mod bookmarks;
pub(crate) mod mounts;
mod user_dirs;

use std::ffi::{OsStr, OsString};
use std::io::Read;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use crate::bounded::{self, Place as At};
use crate::error::{CanopyError, ErrorCode};
use crate::limits::{BOOKMARKS_MAX_BYTES, MOUNT_WATCH_WAIT, TIME_BUDGET};
use crate::names::{encode_handle, DisplayName};
use crate::wire::{BookmarkOutcome, Place, PlaceKind, PlaceSpace, Places, RootSpec};

pub use bookmarks::Target as BookmarkTarget;

const MOUNT_TABLE: &str = "/proc/self/mountinfo";

/// Where the places come from: the user's folders and the mount table.
#[derive(Debug, Clone)]
pub struct PlacesEnv {
    pub home: PathBuf,
    /// `$XDG_CONFIG_HOME`, else `~/.config`.
    pub config: PathBuf,
    /// The login name (for `/run/media/USER`).
    pub user: Option<OsString>,
    /// The mount table (`/proc/self/mountinfo`; a test gives its own).
    pub mount_table: PathBuf,
}

impl PlacesEnv {
    /// From `$HOME`, `$XDG_CONFIG_HOME` and `$USER` (else `$LOGNAME`);
    /// `None` without a home folder.
    pub fn from_env() -> Option<PlacesEnv> {
        let home = PathBuf::from(std::env::var_os("HOME").filter(|h| !h.is_empty())?);
        let config = std::env::var_os("XDG_CONFIG_HOME")
            .filter(|c| Path::new(c).is_absolute())
            .map_or_else(|| home.join(".config"), PathBuf::from);
        let user = std::env::var_os("USER").or_else(|| std::env::var_os("LOGNAME"));
        Some(PlacesEnv {
            home,
            config,
            user,
            mount_table: PathBuf::from(MOUNT_TABLE),
        })
    }

    /// The GTK bookmarks file.
    pub fn bookmarks_file(&self) -> PathBuf {
        self.config.join("gtk-3.0/bookmarks")
    }
}

/// The sidebar's places, in its order (see the module's promises).
pub fn list_places(env: &PlacesEnv) -> Places {
    let mut problem = None;
    let mut folders = Vec::new();
    let home = match real_folder(&env.home) {
        Ok(Some(real)) => {
            folders.push(place(PlaceKind::Home, b"Home", &real, None));
            real
        }
        Ok(None) => env.home.clone(),
        Err(e) => {
            folders.push(place(PlaceKind::Home, b"Home", &env.home, Some(e)));
            env.home.clone()
        }
    };
    let dirs = read_small(&env.config.join("user-dirs.dirs")).unwrap_or_else(|e| {
        problem = Some(e);
        Vec::new()
    });
    for (kind, path) in user_dirs::parse(&dirs, &env.home) {
        let label = base_name(&path);
        match real_folder(&path) {
            Ok(Some(real)) => folders.push(place(kind, &label, &real, None)),
            Ok(None) => {}
            Err(e) => folders.push(place(kind, &label, &path, Some(e))),
        }
    }
    let marks = read_small(&env.bookmarks_file()).unwrap_or_else(|e| {
        problem = Some(e);
        Vec::new()
    });
    let bookmarks = bookmarks::parse(&marks)
        .into_iter()
        .map(|b| match b.target {
            bookmarks::Target::Folder(path) => {
                let label = b.label.unwrap_or_else(|| base_name(&path));
                place(PlaceKind::Bookmark, &label, &path, None)
            }
            bookmarks::Target::Server(url) => {
                let label = b.label.unwrap_or_else(|| url.as_bytes().to_vec());
                let shown = DisplayName::new(&label);
                Place {
                    kind: PlaceKind::Bookmark,
                    label: shown.text,
                    label_parts: shown.parts,
                    shown: url.clone(),
                    root: RootSpec::Text(url),
                    fs_type: None,
                    mount: None,
                    error: None,
                }
            }
        })
        .collect();
    let table = std::fs::read(&env.mount_table).unwrap_or_default();
    let mounts = mounts::shown_mounts(&table, &home, env.user.as_deref())
        .into_iter()
        .map(|m| {
            let root = m.point == Path::new("/");
            let label = if root {
                b"Filesystem root".to_vec()
            } else {
                base_name(&m.point)
            };
            let kind = if root {
                PlaceKind::Root
            } else {
                PlaceKind::Mount
            };
            let mut p = place(kind, &label, &m.point, None);
            p.fs_type = Some(m.fs_type);
            p.mount = Some(encode_handle(&m.point));
            p
        })
        .collect();
    Places {
        folders,
        bookmarks,
        mounts,
        problem,
    }
}

/// The free space of the filesystem mounted at `mount` (a handle's path),
/// asked on a bounded worker at its device (see the module's promises).
///
/// # Errors
/// `TIMEOUT` ("not responding") when the filesystem does not answer in
/// `TIME_BUDGET`, or has a call stuck already; the OS code of `statvfs`.
pub fn place_space(env: &PlacesEnv, mount: &Path) -> Result<PlaceSpace, CanopyError> {
    let table = std::fs::read(&env.mount_table).unwrap_or_default();
    let path = mount.to_path_buf();
    let first = match mounts::device_of(&table, mount) {
        Some(dev) => At::Device(dev),
        None => At::path(mount),
    };
    bounded::call(first, TIME_BUDGET, move |w| {
        w.reached(At::path(&path)).map_err(|u| u.error())?;
        crate::sys::space::free_space(&path)
            .map(|(free, total)| PlaceSpace { free, total })
            .map_err(|e| CanopyError::from_io(&e, "cannot read its free space"))
    })?
}

/// "Bookmark this folder": adds `target` to the GTK bookmarks file (see
/// [`bookmarks::add`]), on a bounded worker at the file's folder.
///
/// # Errors
/// As [`bookmarks::add`]; `TIMEOUT` when the config folder does not answer.
pub fn add_bookmark(
    env: &PlacesEnv,
    target: BookmarkTarget,
) -> Result<BookmarkOutcome, CanopyError> {
    let file = env.bookmarks_file();
    bounded::call(At::path(&env.config), TIME_BUDGET, move |_| {
        bookmarks::add(&file, &target).map(|a| match a {
            bookmarks::Added::Added => BookmarkOutcome::Added,
            bookmarks::Added::AlreadyThere => BookmarkOutcome::AlreadyThere,
        })
    })?
}

/// Calls `changed` on its own thread each time a filesystem is mounted or
/// unmounted, for as long as the process lives.
///
/// # Errors
/// The OS error when the mount table cannot be opened.
pub fn watch_mounts(changed: impl Fn() + Send + 'static) -> std::io::Result<()> {
    let table = std::fs::File::open(MOUNT_TABLE)?;
    std::thread::Builder::new()
        .name("canopy-mounts".into())
        .spawn(move || loop {
            match crate::sys::space::wait_mount_change(&table, MOUNT_WATCH_WAIT) {
                Ok(true) => changed(),
                Ok(false) => {}
                Err(_) => return,
            }
        })?;
    Ok(())
}

/// The real path of a folder, on a bounded worker: `None` when there is
/// no folder there.
fn real_folder(path: &Path) -> Result<Option<PathBuf>, CanopyError> {
    let p = path.to_path_buf();
    bounded::call(At::path(path), TIME_BUDGET, move |_| {
        std::fs::canonicalize(&p).ok().filter(|r| r.is_dir())
    })
}

/// A config file's bytes (none when there is no file), on a bounded worker.
fn read_small(path: &Path) -> Result<Vec<u8>, CanopyError> {
    let p = path.to_path_buf();
    bounded::call(At::path(path), TIME_BUDGET, move |_| {
        let f = match std::fs::File::open(&p) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => {
                return Err(CanopyError::from_io(
                    &e,
                    &format!("cannot read {}", p.display()),
                ))
            }
        };
        let mut bytes = Vec::new();
        f.take(BOOKMARKS_MAX_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| CanopyError::from_io(&e, &format!("cannot read {}", p.display())))?;
        if bytes.len() as u64 > BOOKMARKS_MAX_BYTES {
            return Err(CanopyError::new(
                ErrorCode::TooLarge,
                format!(
                    "{} is over {BOOKMARKS_MAX_BYTES} bytes: not read",
                    p.display()
                ),
            ));
        }
        Ok(bytes)
    })?
}

fn base_name(path: &Path) -> Vec<u8> {
    path.file_name()
        .unwrap_or(OsStr::new("/"))
        .as_bytes()
        .to_vec()
}

fn place(kind: PlaceKind, label: &[u8], path: &Path, error: Option<CanopyError>) -> Place {
    let shown = DisplayName::new(label);
    Place {
        kind,
        label: shown.text,
        label_parts: shown.parts,
        root: RootSpec::Handle(encode_handle(path)),
        shown: DisplayName::of(path.as_os_str()).text,
        fs_type: None,
        mount: None,
        error,
    }
}
