//! `canopy-mcp`: Canopy's bounded listing and preview served to AI agents
//! over the Model Context Protocol (stdio), through the official Rust SDK.
//!
//! [`tools`] defines the tools, one module each; [`server`] serves them and
//! holds what every call shares; [`page`] and [`read`] render replies within
//! the reply budget, [`access`] decides which folders may be seen, and
//! [`engine`] holds the calls that list and read (every call into Canopy's
//! engine goes through its front door: the crate root's functions, the wire
//! types, and the shared `limits`, `names`, `text` and `cancel`); [`transport`]
//! reads and writes the JSON-RPC lines; [`diagnostics`] writes stderr
//! without ever making a call wait for it.
#![forbid(unsafe_code)]

pub mod access;
pub mod diagnostics;
pub mod engine;
pub mod page;
pub mod read;
pub mod server;
pub mod tools;
pub mod transport;
