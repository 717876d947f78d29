//! The client: what runs as `SSH_ASKPASS`. It finds the `Askpass` through
//! the environment `ssh` was given, sends it the prompt with the token, and
//! prints the answer for `ssh`; the secret crosses only in buffers that are
//! wiped.

use std::ffi::OsString;
use std::io::{self, Read, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};

use canopy_core::limits::{ASKPASS_REQUEST_TIME, ASKPASS_SECRET_MAX, ASKPASS_WAIT};

use super::{Answer, Zeroizing, CONNECT_VAR, SOCKET_VAR, TOKEN_VAR};

/// Run first thing by a program that serves as `ssh`'s askpass: when its
/// environment names an `Askpass` (socket, token and connect all set), asks it the prompt (the one
/// argument) and prints the answer for `ssh`; returns the exit code (0
/// answered, 1 refused or cancelled). `None` when the program was not
/// started as an askpass (it goes on as itself).
pub fn run_as_askpass() -> Option<i32> {
    let client = Client::from(|name| std::env::var_os(name))?;
    let prompt = std::env::args_os().nth(1).unwrap_or_default();
    let kind = std::env::var("SSH_ASKPASS_PROMPT").unwrap_or_default();
    match client.ask(&kind, &prompt.to_string_lossy()) {
        Ok(Some(secret)) => {
            let mut line = Zeroizing::new(Vec::with_capacity(secret.len() + 1));
            line.extend_from_slice(secret.as_bytes());
            line.push(b'\n');
            let mut out = io::stdout().lock();
            let printed = out.write_all(&line).and_then(|()| out.flush());
            Some(i32::from(printed.is_err()))
        }
        Ok(None) => Some(1),
        Err(e) => {
            eprintln!("canopy askpass: {e}");
            Some(1)
        }
    }
}

/// An askpass client: what `ssh`'s environment says of the `Askpass` to ask.
pub struct Client {
    socket: PathBuf,
    token: String,
    connect: String,
}

impl Client {
    /// The client the variables name (as
    /// [`Askpass::env`](super::Askpass::env) sets them), read with `var`;
    /// `None` without a socket.
    pub fn from(var: impl Fn(&str) -> Option<OsString>) -> Option<Client> {
        let set = |name| var(name).filter(|v| !v.is_empty());
        Some(Client {
            socket: PathBuf::from(set(SOCKET_VAR)?),
            token: set(TOKEN_VAR)?.to_string_lossy().into_owned(),
            connect: set(CONNECT_VAR)?.to_string_lossy().into_owned(),
        })
    }

    /// Asks `prompt` (`kind`: `SSH_ASKPASS_PROMPT` as `ssh` set it) and
    /// waits for the answer: the secret, or `None` when refused or cancelled.
    ///
    /// # Errors
    /// When the `Askpass` cannot be reached, or cuts the client off.
    pub fn ask(&self, kind: &str, prompt: &str) -> io::Result<Answer> {
        let request = format!("{}\n{}\n{kind}\n{prompt}\0", self.token, self.connect);
        ask_over(&self.socket, request.as_bytes())
    }
}

pub(super) fn ask_over(socket: &Path, request: &[u8]) -> io::Result<Answer> {
    let mut stream = UnixStream::connect(socket)?;
    // NUL-terminated, and this side left open: the app sees the client go.
    stream.write_all(request)?;
    // The user may take their time: a little longer than the app waits.
    stream.set_read_timeout(Some(ASKPASS_WAIT + ASKPASS_REQUEST_TIME))?;
    // Room for the longest reply up front: the buffer never moves, so no
    // copy of the secret is left unwiped.
    let mut reply = Zeroizing::new(Vec::with_capacity(2 + ASKPASS_SECRET_MAX + 1));
    stream
        .take(2 + ASKPASS_SECRET_MAX as u64)
        .read_to_end(&mut reply)?;
    match reply.strip_prefix(b"1\n") {
        Some(secret) => match std::str::from_utf8(secret) {
            Ok(s) => Ok(Some(Zeroizing::new(s.to_string()))),
            Err(_) => Ok(None),
        },
        None => Ok(None),
    }
}
