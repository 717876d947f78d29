//! What a client asks: its request read within a size and time bound, and
//! whether its prompt is a yes/no question (refused unshown, so host-key
//! checking is never weakened) rather than a request for a secret.

use std::io::{self, Read};
use std::os::unix::net::UnixStream;
use std::time::Instant;

use canopy_core::limits::{ASKPASS_PROMPT_CHARS, ASKPASS_REQUEST_MAX, ASKPASS_REQUEST_TIME};

/// What a client asks, as it sent it.
pub(super) struct Request {
    pub(super) token: String,
    pub(super) connect: u64,
    /// `SSH_ASKPASS_PROMPT` as `ssh` set it: `confirm` (a yes/no question),
    /// `none` (a notice), or empty (a secret).
    pub(super) kind: String,
    /// Whether the whole prompt, before it was cut, is a yes/no question.
    pub(super) yes_no: bool,
    pub(super) prompt: String,
}

/// Reads a request, up to its closing NUL (a prompt from `ssh`'s command
/// line holds none): at most `ASKPASS_REQUEST_MAX` bytes within
/// `ASKPASS_REQUEST_TIME` in all. The client keeps its side open after it,
/// so its going away can be seen while the user is asked.
pub(super) fn read_request(stream: &mut UnixStream) -> io::Result<Request> {
    let until = Instant::now() + ASKPASS_REQUEST_TIME;
    let mut raw = Vec::new();
    let mut byte = [0u8; 1];
    loop {
        let left = until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(io::ErrorKind::TimedOut.into());
        }
        stream.set_read_timeout(Some(left))?;
        // A byte at a time: nothing past the NUL is taken.
        if stream.read(&mut byte)? == 0 {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        if byte[0] == 0 {
            break;
        }
        raw.push(byte[0]);
        if raw.len() as u64 > ASKPASS_REQUEST_MAX {
            return Err(io::ErrorKind::InvalidData.into());
        }
    }
    let text = String::from_utf8_lossy(&raw);
    let mut parts = text.splitn(4, '\n');
    let bad = || io::Error::new(io::ErrorKind::InvalidData, "not an askpass request");
    let token = parts.next().ok_or_else(bad)?.to_string();
    let connect = parts.next().ok_or_else(bad)?.parse().map_err(|_| bad())?;
    let kind = parts.next().ok_or_else(bad)?.to_string();
    let prompt = parts.next().ok_or_else(bad)?;
    Ok(Request {
        token,
        connect,
        kind,
        // Told apart whole: a question cut short may have lost its words.
        yes_no: is_yes_no_question(prompt),
        prompt: prompt.chars().take(ASKPASS_PROMPT_CHARS).collect(),
    })
}

/// Whether `ssh` asks a yes/no question (a host key to accept, a warning
/// about one, keys to update, "type 'yes' or 'no'") rather than for a
/// secret. Erring towards yes: such a prompt is refused, never shown.
///
/// `ssh`'s own secret prompts are known by their shape, whatever names
/// they hold (a key's path, a user or host name may say "fingerprint"):
/// `Enter passphrase for key '…': `, `Enter PIN for …`, `…'s password: `,
/// each one line. A keyboard-interactive prompt is `(user@host) ` and the
/// server's words, which are read without that prefix. Anything else is
/// read whole, with every line (a host-key warning spans several).
fn is_yes_no_question(prompt: &str) -> bool {
    if !prompt.contains('\n') {
        let secret = (prompt.starts_with("Enter passphrase for ") && prompt.ends_with("': "))
            || prompt.starts_with("Enter PIN for ")
            || prompt.ends_with("'s password: ");
        if secret {
            return false;
        }
    }
    let words = match prompt.strip_prefix('(').and_then(|p| p.split_once(") ")) {
        Some((login, said)) if !prompt.contains('\n') && !login.contains(' ') => said,
        _ => prompt,
    };
    says_yes_or_no(words)
}

fn says_yes_or_no(words: &str) -> bool {
    let p = words.to_ascii_lowercase();
    [
        "yes/no",
        "'yes' or 'no'",
        "'yes', 'no'",
        "continue connecting",
        "authenticity of host",
        "host key",
        "fingerprint",
    ]
    .iter()
    .any(|words| p.contains(words))
}
