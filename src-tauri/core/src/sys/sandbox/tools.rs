//! Where the renderer's programs are found: the system's own folders, never
//! `PATH` (an empty environment has none, and a `PATH` could name a folder
//! the user can write).

use std::path::{Path, PathBuf};

/// Where the renderer's programs are looked up, in order: the system's
/// folders only (an empty environment has no `PATH`, and a `PATH` could
/// name a folder the user can write).
pub const TOOL_FOLDERS: &[&str] = &["/usr/bin", "/bin", "/usr/local/bin"];

/// The program `name` in [`TOOL_FOLDERS`], when one of them has it. In the
/// `e2e` build, `CANOPY_TEST_TOOL_FOLDERS` (folders, `:`-separated) stands
/// for them: the missing-tool tests name an empty one.
pub fn find_tool(name: &str) -> Option<PathBuf> {
    #[cfg(feature = "e2e")]
    if let Some(folders) = std::env::var_os("CANOPY_TEST_TOOL_FOLDERS") {
        return std::env::split_paths(&folders)
            .map(|d| d.join(name))
            .find(|p| p.is_file());
    }
    TOOL_FOLDERS
        .iter()
        .map(|d| Path::new(d).join(name))
        .find(|p| p.is_file())
}
