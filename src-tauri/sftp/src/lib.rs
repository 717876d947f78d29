//! Canopy's remote folders: a server's folders over SFTP, read through the
//! system's OpenSSH client (`ssh -s sftp`), as an engine [`Source`]
//! ([`SftpFs`]). The engine lists them with the same caps, counts, orders
//! and deadlines as a local folder; this crate knows how to reach a server
//! and read a folder, a link and a file on it, and nothing of listings.
//!
//! Promises:
//! - **Read-only.** The only SFTP requests sent are `limits` (at start),
//!   `opendir`, `readdir`, `close`, `stat`, `lstat`, `fstat`, `readlink`,
//!   `realpath` (as OpenSSH's `expand-path` where the server has it), `open`
//!   with the read flag alone, and `read` (a test records every request the
//!   server receives).
//! - **A server's word is checked.** Every length and count in a reply is
//!   checked against the bytes that carry it before anything is allocated
//!   (a reply is at most 256 KiB, as OpenSSH's own client takes); a reply
//!   that breaks the protocol fails the session, saying how.
//! - **A link loop is a loop.** SFTP v3 has no status for one; a link the
//!   server cannot resolve is followed (`lstat`, `readlink`, at most
//!   `SFTP_LINK_LOOKUPS` requests) to tell a loop from a dangling link, as
//!   the local disk tells them (see [`links`](crate::links)).
//! - **Bounded.** Each call waits at most `SFTP_REPLY_WAIT`; a connection
//!   that stops answering is dropped and the next request reconnects, at most
//!   one connect in flight per host (see [`conn`](crate::conn)).
//! - **Names are bytes.** SFTP v3 sends bytes; they reach the engine as sent.
//! - **Host keys are checked as `ssh` checks them.** An unknown or changed
//!   key is `HOST_KEY_UNKNOWN` / `HOST_KEY_CHANGED` with the server's
//!   fingerprint; a refused login is `AUTH_FAILED` with `ssh`'s reason.
//!
//! It depends on tokio (the SFTP client's tasks run on one worker thread of
//! its own); the engine does not.
#![forbid(unsafe_code)]

pub mod askpass;
mod conn;
mod links;
pub mod places;
mod source;
mod ssh;
pub mod url;

pub use askpass::{Askpass, SecretQuestion};
pub use conn::{lasting_device, ConnectionState};
pub use places::{ServerFs, Servers};
pub use source::{SftpFile, SftpFolder, SftpFs};
pub use ssh::SshOptions;
pub use url::{is_remote, parse, url_of, RemotePath, RemoteUrl, Target};

#[allow(unused_imports)]
use canopy_core::Source;

/// FNV-1a: a folder's number on its connection (its path's hash) and a
/// host's part of a device number.
pub(crate) fn fnv(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}
