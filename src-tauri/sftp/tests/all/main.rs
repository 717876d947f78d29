//! canopy-sftp's integration tests, one binary: each file here is a module
//! declared below (a new test file goes in this folder and gets its `mod`
//! line here; `scripts/test` fails on one that is not declared). The
//! askpass tests are their own binary (`tests/askpass.rs`: `ssh` runs that
//! binary as its askpass, so it has a main of its own).

#[path = "../common/mod.rs"]
mod common;

mod hostile_replies;
mod hostile_server;
mod remote;
