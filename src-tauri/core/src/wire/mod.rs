//! Every type that crosses to the UI (over IPC), to scripts (`canopy-list
//! --json`) and to agents (`canopy-mcp`'s structured replies), in one tree.
//!
//! They derive `Serialize` + `ts_rs::TS` and are exported to `ui/src/bindings/`;
//! the UI imports them from there and never redefines them. Requests are parsed
//! here too, so every malformed request, whoever sends it, gets `INVALID_ARGUMENT`.
//!
//! The tree depends on nothing else of the engine but [`crate::limits`] (the
//! defaults): the engine's modules use it, never the other way round.
#![forbid(unsafe_code)]

pub(crate) mod error;
mod find;
mod grid;
mod listing;
mod media;
mod places;
mod preview;
mod request;
mod shell;
mod sizes;

pub use error::{CanopyError, ErrorCode};
pub use find::*;
pub use grid::*;
pub use listing::*;
pub use media::*;
pub use places::*;
pub use preview::*;
pub use request::*;
pub use shell::*;
pub use sizes::*;

fn is_false(b: &bool) -> bool {
    !*b
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}
