//! The facts of one entry on disk (`file_info`): its `lstat`, asked on a
//! bounded worker, so a dead mount costs `TIMEOUT`, never a hang.
#![forbid(unsafe_code)]

use std::path::Path;

use crate::bounded::{self, Place};
use crate::error::CanopyError;
use crate::limits::TIME_BUDGET;

/// What `lstat` says of `path` (a link itself, never its target), within
/// `TIME_BUDGET`.
///
/// # Errors
/// The OS code (`NOT_FOUND`, `DENIED` ...); `TIMEOUT` when the call does
/// not return in time, or the place already has a call stuck on it.
pub fn entry_meta(path: &Path) -> Result<std::fs::Metadata, CanopyError> {
    let path = path.to_path_buf();
    bounded::call(Place::path(&path), TIME_BUDGET, move |_| {
        std::fs::symlink_metadata(&path).map_err(|e| CanopyError::from_io(&e, "cannot examine it"))
    })?
}
