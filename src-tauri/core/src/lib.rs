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
pub mod supervisor;
pub(crate) mod select;
pub mod startup;
pub mod text;
pub mod wire;
pub(crate) use wire::error;

pub use error::{CanopyError, ErrorCode};
pub use locate::locate;
pub use root::resolve_root;
pub use startup::startup_from_arg;
pub use walk::{list, list_request, ListOptions};
