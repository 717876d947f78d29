//! Canopy's engine: the capped recursive listing and the bounded preview,
//! and the policies of the file actions ([`openable`] with [`default_app`]
//! for "Open…", [`shell_quote`] for "Copy path").
//!
//! This crate has no GUI dependency. The Tauri shell (`src-tauri/src`) wraps
//! each public entry point in a thin command, and the `canopy-list` binary
//! serves the same listing to scripts. Wire types live in [`wire`] and are
//! exported to TypeScript by ts-rs; every number that bounds work lives in
//! [`limits`].
// Every module but `sys` (the system-call boundary) forbids `unsafe` itself.
#![deny(unsafe_code)]

pub mod bounded;
pub mod cancel;
mod confine;
pub mod cursor;
pub mod default_app;
pub mod filter;
pub(crate) mod ignore_pattern;
pub mod ignore_rules;
pub mod limits;
pub mod walk;
pub mod root;
pub mod locate;
pub mod names;
pub mod openable;
pub mod order;
pub mod preview;
pub mod rest;
pub mod saved_view;
pub mod shell_quote;
pub(crate) mod select;
pub mod source;
mod sys;
pub(crate) use sys::dirio;
pub use sys::supervisor;
pub mod startup;
pub mod text;
pub mod wire;
pub(crate) use wire::error;

pub use error::{CanopyError, ErrorCode};
pub use locate::locate;
pub use root::resolve_root;
pub use startup::startup_from_arg;
pub use confine::{confine_links, real_path, resolve_within, within, Leads};
pub use cursor::{after_entry as cursor_after, max_len as max_cursor_len};
pub use dirio::LocalFs;
pub use filter::is_glob as filter_is_glob;
pub use preview::read_chunk_at;
pub use source::{Observer, Source};
pub use walk::{list, list_request, ListCall, RequestBudget};
pub use wire::ListSettings;

/// The test seams (the `e2e` build only): the local source's slowed
/// folders, and what the dead-mount tests count.
#[cfg(feature = "e2e")]
pub mod testing {
    pub use crate::bounded::Pool;
    pub use crate::dirio::IoHooks;
    pub use crate::order::{compare_names, extension};
}
