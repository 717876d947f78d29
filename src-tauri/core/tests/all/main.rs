//! canopy-core's integration tests, one binary: each file here is a module
//! declared below (a new test file goes in this folder and gets its `mod`
//! line here; `scripts/test` fails on one that is not declared). One binary
//! links the engine and its test dependencies once, where one per file
//! linked them 20 times.
//!
//! A test that must be a process of its own (it changes the process's
//! environment, or leaves calls stuck in the engine's one registry of stuck
//! places, which would fail whichever test ran beside it) is a file directly
//! in `tests/`, with its own `[[test]]` in Cargo.toml saying why.

#[path = "../common/mod.rs"]
mod common;
#[path = "../deadfs/mod.rs"]
mod deadfs;

mod archives;
mod arrange;
mod budget;
mod confined_ignore;
mod copy_path;
mod find;
mod font;
mod git_index;
mod listing;
mod media;
mod openable;
mod photo_render;
mod preview;
mod props;
mod sizes;
mod supervisor;
mod tar_variants;
mod text_format;
mod tracked;
mod video;
