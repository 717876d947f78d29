//! canopy-list's integration tests, one binary: each file here is a module
//! declared below (a new test file goes in this folder and gets its `mod`
//! line here; `scripts/test` fails on one that is not declared).

// canopy-core's fixture trees and dead FUSE filesystem, and canopy-sftp's
// real OpenSSH server, shared by path.
#[path = "../../../core/tests/common/mod.rs"]
mod common;
#[path = "../../../core/tests/deadfs/mod.rs"]
mod deadfs;
#[path = "../../../core/tests/hostile/mod.rs"]
mod hostile;
#[path = "../../../sftp/tests/common/mod.rs"]
mod sshd;

mod cli;
mod cpu_work;
mod dead_mount;
mod lines;
mod remote;
mod sizes;
