//! canopy-watch's integration tests, one binary: each file here is a module
//! declared below (a new test file goes in this folder and gets its `mod`
//! line here; `scripts/test` fails on one that is not declared).

// canopy-core's dead FUSE filesystem, shared by path.
#[path = "../../../core/tests/deadfs/mod.rs"]
mod deadfs;

mod dead_mount;
