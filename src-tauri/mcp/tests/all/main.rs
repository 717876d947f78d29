//! canopy-mcp's integration tests, one binary: each file here is a module
//! declared below (a new test file goes in this folder and gets its `mod`
//! line here; `scripts/test` fails on one that is not declared). Each test
//! drives the real `canopy-mcp` binary through an MCP client.

#[path = "../common/mod.rs"]
mod common;
// canopy-core's dead FUSE filesystem and canopy-sftp's real OpenSSH server,
// shared by path.
#[path = "../../../core/tests/deadfs/mod.rs"]
mod deadfs;
#[path = "../../../core/tests/hostile/mod.rs"]
mod hostile;
#[path = "../../../core/tests/common/scratch.rs"]
mod scratch;
#[path = "../../../sftp/tests/common/mod.rs"]
mod sshd;

mod access;
mod archives;
mod backpressure;
mod cpu_work;
mod dead_exit;
mod find;
mod ignore;
mod lines;
mod listing;
mod order;
mod protocol;
mod read_file;
mod remote;
mod roots;
// A search cut by its budget, or by a folder that does not answer, and
// cancellation and progress: they need the engine's slow folder seam, in the
// `e2e` build only (`cargo test -p canopy-mcp --features e2e`).
#[cfg(feature = "e2e")]
mod search;
mod sizes;
#[cfg(feature = "e2e")]
mod slow;
