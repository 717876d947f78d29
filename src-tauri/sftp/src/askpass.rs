//! `ssh`'s password and passphrase prompts, asked by the app that runs it.
//!
//! `ssh` asks for a secret by running the program `SSH_ASKPASS` names, the
//! prompt as its one argument, and reading the answer from its output
//! (`SSH_ASKPASS_REQUIRE=force`: always so, never a terminal). An [`Askpass`]
//! names a program that calls [`helper_main`] (the window names its own
//! binary): that small client hands the prompt to the `Askpass` over a Unix
//! socket in a private folder (mode 0700, and a random token the client must
//! send) and prints the answer.
//!
//! What is asked is decided here, never by the client:
//! - a password, passphrase or keyboard-interactive prompt reaches the app's
//!   `ask`, with the server it is for (known from the connect that started
//!   `ssh`, not from the prompt's words, which a server can choose);
//! - a host-key question ("continue connecting (yes/no)?") and every other
//!   yes/no confirmation are refused without being shown, so an unknown host
//!   key fails as `HOST_KEY_UNKNOWN`, as in batch mode; host-key checking is
//!   never weakened;
//! - a prompt for a connect that has ended, or with a wrong token, is refused.
//!
//! The secret is in memory only while it crosses: never logged or stored,
//! and each buffer that held it here is wiped ([`Zeroizing`]).
//!
//! While a prompt is open the connect that asked waits for the user (its
//! own time restarts when the prompt closes); the app's `ask` gives up
//! after `ASKPASS_WAIT`.
#![forbid(unsafe_code)]

use std::collections::HashMap;
use std::ffi::OsString;
use std::io::{self, Read, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use canopy_core::limits::ASKPASS_WAIT;
pub use zeroize::Zeroizing;

/// The variables a client reads: the socket, the token, the connect.
const SOCKET_VAR: &str = "CANOPY_ASKPASS_SOCKET";
const TOKEN_VAR: &str = "CANOPY_ASKPASS_TOKEN";
const CONNECT_VAR: &str = "CANOPY_ASKPASS_CONNECT";
/// Longest request a client may send (token, connect, kind, prompt).
const REQUEST_MAX: u64 = 16 * 1024;
/// Longest prompt shown, in characters (a server chooses its words).
const PROMPT_CHARS: usize = 1_000;
/// Longest secret passed back to `ssh`.
const SECRET_MAX: usize = 4 * 1024;
/// How long a client has to send its request.
const REQUEST_TIME: Duration = Duration::from_secs(5);

/// A prompt `ssh` wants answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SecretQuestion {
    /// Unique among the questions of this `Askpass`.
    pub id: u64,
    /// The server it is for, as `user@host:port`.
    pub server: String,
    /// `ssh`'s words (a key's passphrase, the password of `user@host`, or a
    /// server's keyboard-interactive prompt), at most 1,000 characters.
    pub prompt: String,
}

/// The app's answer: the secret, or `None` (cancelled, or no answer in time).
pub type Answer = Option<Zeroizing<String>>;
type Ask = dyn Fn(&SecretQuestion) -> Answer + Send + Sync;

#[derive(Default)]
struct Connects {
    next_connect: u64,
    next_question: u64,
    open: HashMap<u64, Connect>,
}

struct Connect {
    server: String,
    /// Prompts being answered now.
    asking: usize,
    /// When the last prompt closed.
    answered: Option<Instant>,
}

struct Shared {
    token: String,
    ask: Box<Ask>,
    connects: Mutex<Connects>,
    closing: AtomicBool,
}

/// The app's side: a socket the clients reach, and what it asks the user.
pub struct Askpass {
    program: PathBuf,
    socket: PathBuf,
    shared: Arc<Shared>,
    _dir: tempfile::TempDir,
}

impl std::fmt::Debug for Askpass {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Askpass")
            .field("program", &self.program)
            .field("socket", &self.socket)
            .finish_non_exhaustive()
    }
}

impl Drop for Askpass {
    fn drop(&mut self) {
        self.shared.closing.store(true, Ordering::SeqCst);
        // Wakes the accepting thread, which then ends.
        let _ = UnixStream::connect(&self.socket);
    }
}

impl Askpass {
    /// Listens for `program`'s prompts (a program that calls
    /// [`helper_main`]) and asks them with `ask`, which blocks until the
    /// user answers and should give up after `ASKPASS_WAIT`.
    ///
    /// # Errors
    /// When the private folder or the socket cannot be made.
    pub fn start(
        program: PathBuf,
        ask: impl Fn(&SecretQuestion) -> Answer + Send + Sync + 'static,
    ) -> io::Result<Arc<Askpass>> {
        // The user's runtime folder when there is one (private to the
        // user), else the temporary folder; a folder of our own (0700) in it.
        let base = std::env::var_os("XDG_RUNTIME_DIR")
            .map(PathBuf::from)
            .filter(|p| p.is_absolute() && p.is_dir())
            .unwrap_or_else(std::env::temp_dir);
        let dir = tempfile::Builder::new()
            .prefix("canopy-askpass-")
            .permissions(std::os::unix::fs::PermissionsExt::from_mode(0o700))
            .tempdir_in(base)?;
        let socket = dir.path().join("s");
        let listener = UnixListener::bind(&socket)?;
        let shared = Arc::new(Shared {
            token: random_token()?,
            ask: Box::new(ask),
            connects: Mutex::default(),
            closing: AtomicBool::new(false),
        });
        let serving = shared.clone();
        std::thread::Builder::new()
            .name("canopy-askpass".into())
            .spawn(move || serve(&listener, &serving))?;
        Ok(Arc::new(Askpass {
            program,
            socket,
            shared,
            _dir: dir,
        }))
    }

    /// A connect to `server` begins: its number, for [`Askpass::env`].
    pub(crate) fn begin(&self, server: &str) -> u64 {
        let mut c = self.shared.lock();
        c.next_connect += 1;
        let n = c.next_connect;
        c.open.insert(
            n,
            Connect {
                server: server.to_string(),
                asking: 0,
                answered: None,
            },
        );
        n
    }

    /// The connect has ended: its prompts are refused from now on.
    pub(crate) fn end(&self, connect: u64) {
        self.shared.lock().open.remove(&connect);
    }

    /// The environment `ssh` is run with for `connect`.
    pub(crate) fn env(&self, connect: u64) -> Vec<(&'static str, OsString)> {
        vec![
            ("SSH_ASKPASS", self.program.clone().into_os_string()),
            ("SSH_ASKPASS_REQUIRE", "force".into()),
            (SOCKET_VAR, self.socket.clone().into_os_string()),
            (TOKEN_VAR, self.shared.token.clone().into()),
            (CONNECT_VAR, connect.to_string().into()),
        ]
    }

    /// How long `connect` may still wait for its session: `wait` from now
    /// while the user is asked, `wait` from the last answer after one;
    /// `None` when nothing was asked.
    pub(crate) fn waits_until(&self, connect: u64, wait: Duration) -> Option<Instant> {
        let c = self.shared.lock();
        let connect = c.open.get(&connect)?;
        if connect.asking > 0 {
            Some(Instant::now() + wait)
        } else {
            connect.answered.map(|at| at + wait)
        }
    }
}

impl Shared {
    fn lock(&self) -> std::sync::MutexGuard<'_, Connects> {
        self.connects.lock().unwrap_or_else(|e| e.into_inner())
    }
}

fn random_token() -> io::Result<String> {
    let mut bytes = [0u8; 16];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

fn serve(listener: &UnixListener, shared: &Arc<Shared>) {
    for stream in listener.incoming() {
        if shared.closing.load(Ordering::SeqCst) {
            return;
        }
        let Ok(stream) = stream else { continue };
        let shared = shared.clone();
        // A prompt waits for the user: one thread each (they are few).
        let _ = std::thread::Builder::new()
            .name("canopy-askpass-prompt".into())
            .spawn(move || {
                let _ = answer(stream, &shared);
            });
    }
}

/// What a client asks, as it sent it.
struct Request {
    token: String,
    connect: u64,
    /// `SSH_ASKPASS_PROMPT` as `ssh` set it: `confirm` (a yes/no question),
    /// `none` (a notice), or empty (a secret).
    kind: String,
    prompt: String,
}

fn read_request(stream: &mut UnixStream) -> io::Result<Request> {
    stream.set_read_timeout(Some(REQUEST_TIME))?;
    let mut raw = Vec::new();
    stream.take(REQUEST_MAX).read_to_end(&mut raw)?;
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
        prompt: prompt.chars().take(PROMPT_CHARS).collect(),
    })
}

/// Whether `ssh` asks a yes/no question about a host key rather than for a secret.
fn is_host_key_question(prompt: &str) -> bool {
    let p = prompt.to_ascii_lowercase();
    p.contains("continue connecting") || p.contains("authenticity of host")
}

fn answer(mut stream: UnixStream, shared: &Shared) -> io::Result<()> {
    let request = read_request(&mut stream)?;
    let refuse = |mut stream: UnixStream| stream.write_all(b"0\n");
    if request.token != shared.token || request.kind == "confirm" {
        return refuse(stream);
    }
    if request.kind == "none" {
        // A notice (e.g. "touch your security key"): nothing to answer.
        return stream.write_all(b"1\n");
    }
    if is_host_key_question(&request.prompt) {
        return refuse(stream);
    }
    let question = {
        let mut c = shared.lock();
        c.next_question += 1;
        let id = c.next_question;
        let Some(connect) = c.open.get_mut(&request.connect) else {
            drop(c);
            return refuse(stream);
        };
        connect.asking += 1;
        SecretQuestion {
            id,
            server: connect.server.clone(),
            prompt: request.prompt,
        }
    };
    let answer = (shared.ask)(&question);
    if let Some(connect) = shared.lock().open.get_mut(&request.connect) {
        connect.asking -= 1;
        connect.answered = Some(Instant::now());
    }
    match answer {
        Some(secret) if secret.len() <= SECRET_MAX && !secret.contains('\n') => {
            let mut reply = Zeroizing::new(Vec::with_capacity(secret.len() + 3));
            reply.extend_from_slice(b"1\n");
            reply.extend_from_slice(secret.as_bytes());
            stream.write_all(&reply)
        }
        _ => refuse(stream),
    }
}

/// Run first thing by a program that serves as `ssh`'s askpass: when its
/// environment names an `Askpass` socket, asks it the prompt (the one
/// argument) and prints the answer for `ssh`; returns the exit code (0
/// answered, 1 refused or cancelled). `None` when the program was not
/// started as an askpass (it goes on as itself).
pub fn helper_main() -> Option<i32> {
    let socket = std::env::var_os(SOCKET_VAR)?;
    let prompt = std::env::args_os().nth(1).unwrap_or_default();
    let token = std::env::var(TOKEN_VAR).unwrap_or_default();
    let connect = std::env::var(CONNECT_VAR).unwrap_or_default();
    let kind = std::env::var("SSH_ASKPASS_PROMPT").unwrap_or_default();
    let request = format!("{token}\n{connect}\n{kind}\n{}", prompt.to_string_lossy());
    match ask_over(Path::new(&socket), request.as_bytes()) {
        Ok(Some(secret)) => {
            let mut out = io::stdout().lock();
            let printed = out
                .write_all(secret.as_bytes())
                .and_then(|()| out.write_all(b"\n"))
                .and_then(|()| out.flush());
            Some(i32::from(printed.is_err()))
        }
        Ok(None) => Some(1),
        Err(e) => {
            eprintln!("canopy askpass: {e}");
            Some(1)
        }
    }
}

fn ask_over(socket: &Path, request: &[u8]) -> io::Result<Option<Zeroizing<String>>> {
    let mut stream = UnixStream::connect(socket)?;
    stream.write_all(request)?;
    stream.shutdown(std::net::Shutdown::Write)?;
    // The user may take their time: a little longer than the app waits.
    stream.set_read_timeout(Some(ASKPASS_WAIT + REQUEST_TIME))?;
    let mut reply = Zeroizing::new(Vec::new());
    stream.take(2 + SECRET_MAX as u64).read_to_end(&mut reply)?;
    match reply.strip_prefix(b"1\n") {
        Some(secret) => match std::str::from_utf8(secret) {
            Ok(s) => Ok(Some(Zeroizing::new(s.to_string()))),
            Err(_) => Ok(None),
        },
        None => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn asked(answer: &'static str) -> (Arc<Askpass>, Arc<Mutex<Vec<SecretQuestion>>>) {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = seen.clone();
        let askpass = Askpass::start(PathBuf::from("/nonexistent"), move |q| {
            log.lock().unwrap().push(q.clone());
            Some(Zeroizing::new(answer.to_string()))
        })
        .unwrap();
        (askpass, seen)
    }

    fn request(
        askpass: &Askpass,
        token: &str,
        connect: u64,
        kind: &str,
        prompt: &str,
    ) -> Option<String> {
        let text = format!("{token}\n{connect}\n{kind}\n{prompt}");
        ask_over(&askpass.socket, text.as_bytes())
            .unwrap()
            .map(|s| s.to_string())
    }

    #[test]
    fn a_passphrase_prompt_reaches_the_app_with_the_server_it_is_for() {
        let (askpass, seen) = asked("open sesame");
        let c = askpass.begin("ann@example:2222");
        let token = askpass.shared.token.clone();
        let got = request(&askpass, &token, c, "", "Enter passphrase for key '/k':");
        assert_eq!(got.as_deref(), Some("open sesame"));
        let seen = seen.lock().unwrap();
        assert_eq!(seen.len(), 1);
        assert_eq!(seen[0].server, "ann@example:2222");
        assert_eq!(seen[0].prompt, "Enter passphrase for key '/k':");
        assert!(askpass.waits_until(c, Duration::from_secs(10)).is_some());
    }

    #[test]
    fn a_wrong_token_an_ended_connect_and_host_key_questions_are_refused_unasked() {
        let (askpass, seen) = asked("yes");
        let c = askpass.begin("h");
        let token = askpass.shared.token.clone();
        assert_eq!(request(&askpass, "guess", c, "", "Password:"), None);
        let host_key = "The authenticity of host 'h (1.2.3.4)' can't be established.\n\
             ED25519 key fingerprint is SHA256:x.\n\
             Are you sure you want to continue connecting (yes/no/[fingerprint])?";
        assert_eq!(request(&askpass, &token, c, "", host_key), None);
        assert_eq!(
            request(&askpass, &token, c, "confirm", "Allow use of key?"),
            None
        );
        askpass.end(c);
        assert_eq!(request(&askpass, &token, c, "", "Password:"), None);
        assert_eq!(request(&askpass, &token, 999, "", "Password:"), None);
        assert!(seen.lock().unwrap().is_empty(), "nothing reached the user");
    }

    #[test]
    fn a_server_chosen_prompt_is_cut_and_an_answer_with_a_line_break_is_refused() {
        let (askpass, seen) = asked("two\nlines");
        let c = askpass.begin("h");
        let token = askpass.shared.token.clone();
        let long = "P".repeat(5_000);
        assert_eq!(request(&askpass, &token, c, "", &long), None);
        assert_eq!(seen.lock().unwrap()[0].prompt.chars().count(), PROMPT_CHARS);
    }

    #[test]
    fn the_private_folder_is_the_users_alone() {
        use std::os::unix::fs::PermissionsExt;
        let (askpass, _) = asked("x");
        let dir = askpass.socket.parent().unwrap();
        let mode = std::fs::metadata(dir).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700);
        let socket = askpass.socket.clone();
        drop(askpass);
        assert!(!socket.exists(), "removed with the Askpass");
    }
}
