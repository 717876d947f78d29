//! `ssh`'s password and passphrase prompts, asked by the app that runs it.
//!
//! `ssh` asks for a secret by running the program `SSH_ASKPASS` names, the
//! prompt as its one argument, and reading the answer from its output
//! (`SSH_ASKPASS_REQUIRE=force`: always so, never a terminal). An [`Askpass`]
//! names a program that calls [`run_as_askpass`] first thing (the window
//! names its own binary): that small client hands the prompt to the
//! `Askpass` over a Unix socket in a private folder (mode 0700, and a
//! random token the client must send) and prints the answer.
//!
//! What is asked is decided here, never by the client:
//! - a password, passphrase or keyboard-interactive prompt is shown to the
//!   user (the app's [`Asker`]) with the server it is for, known from the
//!   connect that started `ssh`, not from the prompt's words (a server
//!   chooses those);
//! - a yes/no question (a host key to accept, keys to update, a use to
//!   confirm) is refused without being shown, so an unknown host key fails
//!   as `HOST_KEY_UNKNOWN`, as in batch mode: host-key checking is never
//!   weakened;
//! - a prompt with a wrong token, or for a connect that has ended, is
//!   refused; a connect that ends withdraws its open prompts; a prompt not
//!   answered within the `Askpass`'s wait (`ASKPASS_WAIT`) is withdrawn and
//!   `ssh` is told no.
//!
//! The secret is in memory only while it crosses: never logged or stored,
//! and each buffer of ours that held it is wiped ([`Zeroizing`]).
//!
//! While a prompt is open the connect that asked waits for the user (its
//! own time restarts when the prompt closes).
#![forbid(unsafe_code)]

pub use zeroize::Zeroizing;

mod app;
mod client;
mod request;
mod serve;
mod sweep;

pub use app::Askpass;
pub use client::{run_as_askpass, Client};

#[cfg(test)]
mod tests;

/// The variables a client reads: the socket, the token, the connect.
const SOCKET_VAR: &str = "CANOPY_ASKPASS_SOCKET";
const TOKEN_VAR: &str = "CANOPY_ASKPASS_TOKEN";
const CONNECT_VAR: &str = "CANOPY_ASKPASS_CONNECT";

/// A prompt `ssh` wants answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SecretQuestion {
    /// Unique among the questions of this `Askpass`.
    pub id: u64,
    /// The server it is for, as `user@host:port`.
    pub server: String,
    /// `ssh`'s words (a key's passphrase, the password of `user@host`, or a
    /// server's keyboard-interactive prompt), at most `ASKPASS_PROMPT_CHARS`.
    pub prompt: String,
}

/// The user's answer: the secret, or `None` (cancelled).
pub type Answer = Option<Zeroizing<String>>;

/// Where the questions are shown: the app's side. Its answers come back
/// through [`Askpass::answer`].
pub trait Asker: Send + Sync {
    /// Shows `question` to the user.
    fn show(&self, question: &SecretQuestion);
    /// `id` is no longer asked (it waited too long, or its connect ended):
    /// it is closed unanswered.
    fn withdraw(&self, id: u64);
}
