//! Canopy's engine: the capped recursive listing and the bounded preview,
//! and the policies of the file actions ([`openable`] with [`default_app`]
//! for "Open…", [`shell_quote`] for "Copy path").
//!
//! This crate has no GUI dependency. The Tauri shell (`src-tauri/src`) wraps
//! each public entry point in a thin command, and the `canopy-list` binary
//! serves the same listing to scripts. Wire types live in [`wire`] and are
//! exported to TypeScript by ts-rs; every number that bounds work lives in
//! [`limits`].

pub mod bounded;
pub mod cancel;
pub mod cursor;
pub mod default_app;
pub mod dirio;
pub mod error;
pub mod filter;
pub(crate) mod ignore_pattern;
pub mod ignore_rules;
pub mod limits;
pub mod listing;
pub mod names;
pub mod openable;
pub mod order;
pub mod preview;
pub mod rest;
pub mod saved_view;
pub mod shell_quote;
pub mod supervisor;
pub(crate) mod select;
pub mod startup;
pub mod text;
pub mod wire;

pub use error::{CanopyError, ErrorCode};
pub use listing::{list, list_request, locate, resolve_root, startup_from_arg, ListOptions};
