//! Where a listing starts: what a person typed, or a handle, as an absolute path.
#![forbid(unsafe_code)]

use std::path::{Component, Path, PathBuf};

use crate::bounded::{self, Place};
use crate::error::CanopyError;
use crate::limits::TIME_BUDGET;
use crate::names::decode_handle;
use crate::wire::RootSpec;

/// Turns what a person typed or a handle into an absolute path.
///
/// `~` and `~/…` expand to the home folder; a relative path is taken from the
/// current folder; a path with `..` is resolved by the filesystem.
///
/// # Errors
/// `INVALID_ARGUMENT` for empty text, NUL bytes or an undecodable handle;
/// the filesystem's code when `..` cannot be resolved.
pub fn resolve_root(spec: &RootSpec) -> Result<PathBuf, CanopyError> {
    let raw = match spec {
        RootSpec::Handle(h) => decode_handle(h)?,
        RootSpec::Text(t) => {
            if t.is_empty() {
                return Err(CanopyError::invalid("the path is empty"));
            }
            if t.contains('\0') {
                return Err(CanopyError::invalid("the path contains a NUL character"));
            }
            expand_home(t)
        }
    };
    absolute(&raw)
}

fn expand_home(text: &str) -> PathBuf {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    match (text, home) {
        ("~", Some(home)) => home,
        (t, Some(home)) if t.starts_with("~/") => home.join(&t[2..]),
        (t, _) => PathBuf::from(t),
    }
}

pub(crate) fn absolute(path: &Path) -> Result<PathBuf, CanopyError> {
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir()
            .map_err(|e| CanopyError::from_io(&e, "cannot find the current folder"))?
            .join(path)
    };
    if joined.components().any(|c| c == Component::ParentDir) {
        // Resolving `..` asks the filesystem, which may not answer.
        let place = Place::path(&joined);
        return bounded::call(place, TIME_BUDGET, move |_| std::fs::canonicalize(&joined))?
            .map_err(|e| CanopyError::from_io(&e, "cannot open folder"));
    }
    // Drops `.` components and trailing slashes.
    Ok(joined.components().collect())
}
