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

use std::collections::HashMap;
use std::ffi::OsString;
use std::io::{self, Read, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{sync_channel, SyncSender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use canopy_core::limits::{
    ASKPASS_CLIENTS, ASKPASS_PROMPTS, ASKPASS_PROMPT_CHARS, ASKPASS_REQUEST_MAX,
    ASKPASS_REQUEST_TIME, ASKPASS_SECRET_MAX, ASKPASS_WAIT,
};
use canopy_core::CanopyError;
pub use zeroize::Zeroizing;

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

struct Connect {
    server: String,
    /// Prompts being answered now.
    asking: usize,
    /// Prompts shown so far.
    asked: usize,
    /// When the last prompt was answered.
    answered: Option<Instant>,
    /// The prompts cancelled (or withdrawn): `ssh` asks the same again (a
    /// password is retried empty, a server may ask forever), so each is
    /// refused unshown from then on. Another prompt (a password after a
    /// key's passphrase was cancelled) is still asked.
    cancelled: Vec<String>,
}

struct Open {
    connect: u64,
    question: SecretQuestion,
    reply: SyncSender<Answer>,
}

#[derive(Default)]
struct State {
    next_connect: u64,
    next_question: u64,
    connects: HashMap<u64, Connect>,
    questions: HashMap<u64, Open>,
}

struct Shared {
    token: String,
    asker: Box<dyn Asker>,
    wait: Duration,
    state: Mutex<State>,
    clients: AtomicUsize,
    closing: AtomicBool,
}

/// The app's side: a socket the clients reach, and the questions open.
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
    /// [`run_as_askpass`]) and shows them with `asker`; a prompt not
    /// answered within `ASKPASS_WAIT` is withdrawn.
    ///
    /// # Errors
    /// When the private folder or the socket cannot be made.
    pub fn start(program: PathBuf, asker: impl Asker + 'static) -> io::Result<Arc<Askpass>> {
        Self::waiting(program, asker, ASKPASS_WAIT)
    }

    /// As [`Askpass::start`], with prompts withdrawn after `wait`.
    ///
    /// # Errors
    /// As [`Askpass::start`].
    pub fn waiting(
        program: PathBuf,
        asker: impl Asker + 'static,
        wait: Duration,
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
            .tempdir_in(&base)?;
        sweep_dead(&base, dir.path());
        let socket = dir.path().join("s");
        let listener = UnixListener::bind(&socket)?;
        let shared = Arc::new(Shared {
            token: random_token()?,
            asker: Box::new(asker),
            wait,
            state: Mutex::default(),
            clients: AtomicUsize::new(0),
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

    /// Removes the socket and its folder now (an app ended by a signal
    /// never runs the `Drop` that would); no prompt reaches it after.
    pub fn close(&self) {
        if let Some(dir) = self.socket.parent() {
            let _ = std::fs::remove_dir_all(dir);
        }
    }

    /// The user's answer to question `id`.
    ///
    /// # Errors
    /// `INVALID_ARGUMENT` when `id` is not asked (any more).
    pub fn answer(&self, id: u64, answer: Answer) -> Result<(), CanopyError> {
        match self.shared.lock().questions.remove(&id) {
            Some(open) => {
                let _ = open.reply.try_send(answer);
                Ok(())
            }
            None => Err(CanopyError::invalid(
                "this password prompt is no longer asked (it waited too long, or the connection ended)",
            )),
        }
    }

    /// The questions open now, oldest first (to show them again, e.g. to a
    /// window that was reloaded).
    pub fn asking(&self) -> Vec<SecretQuestion> {
        let mut open: Vec<SecretQuestion> = self
            .shared
            .lock()
            .questions
            .values()
            .map(|o| o.question.clone())
            .collect();
        open.sort_by_key(|q| q.id);
        open
    }

    /// Shows the questions open now again (to a window that was reloaded),
    /// oldest first; one withdrawn meanwhile is withdrawn again after, as
    /// its withdrawal may have gone before this show.
    pub fn show_again(&self) {
        let open = self.asking();
        for question in &open {
            self.shared.asker.show(question);
        }
        let still = self.asking();
        for gone in open.iter().filter(|q| !still.iter().any(|s| s.id == q.id)) {
            self.shared.asker.withdraw(gone.id);
        }
    }

    /// A connect to `server` begins (the one that runs `ssh`): its number,
    /// for [`Askpass::env`]; its prompts are asked until [`Askpass::end`].
    pub fn begin(&self, server: &str) -> u64 {
        let mut s = self.shared.lock();
        s.next_connect += 1;
        let n = s.next_connect;
        s.connects.insert(
            n,
            Connect {
                server: server.to_string(),
                asking: 0,
                asked: 0,
                answered: None,
                cancelled: Vec::new(),
            },
        );
        n
    }

    /// The connect has ended: its open prompts are withdrawn, and any of
    /// its prompts is refused from now on.
    pub fn end(&self, connect: u64) {
        let withdrawn: Vec<u64> = {
            let mut s = self.shared.lock();
            s.connects.remove(&connect);
            let ids: Vec<u64> = s
                .questions
                .iter()
                .filter(|(_, o)| o.connect == connect)
                .map(|(id, _)| *id)
                .collect();
            for id in &ids {
                if let Some(open) = s.questions.remove(id) {
                    let _ = open.reply.try_send(None);
                }
            }
            ids
        };
        for id in withdrawn {
            self.shared.asker.withdraw(id);
        }
    }

    /// The environment `ssh` is run with for `connect`.
    pub fn env(&self, connect: u64) -> Vec<(&'static str, OsString)> {
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
        let s = self.shared.lock();
        let connect = s.connects.get(&connect)?;
        if connect.asking > 0 {
            Some(Instant::now() + wait)
        } else {
            connect.answered.map(|at| at + wait)
        }
    }
}

impl Shared {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// How old a socket nobody listens on must be to be swept.
const DEAD_AFTER: Duration = Duration::from_secs(60);

/// Removes the folders in `base` that an `Askpass` of this user left when
/// its process died (killed, it never cleaned up): ours by name and owner
/// (the owner of `ours`, just made), with a socket nobody listens on.
fn sweep_dead(base: &Path, ours: &Path) {
    use std::os::unix::fs::MetadataExt;
    let Ok(me) = std::fs::metadata(ours).map(|m| m.uid()) else {
        return;
    };
    let Ok(entries) = std::fs::read_dir(base) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let named = entry
            .file_name()
            .to_str()
            .is_some_and(|n| n.starts_with("canopy-askpass-"));
        let owned_folder =
            std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir() && m.uid() == me);
        if !named || !owned_folder || path == ours {
            continue;
        }
        // A socket made over a minute ago that nobody listens on: an app
        // just starting (bound, not listening yet) is younger than that.
        let socket = path.join("s");
        let old_socket = std::fs::symlink_metadata(&socket).is_ok_and(|m| {
            use std::os::unix::fs::FileTypeExt;
            m.file_type().is_socket()
                && m.modified()
                    .is_ok_and(|t| t.elapsed().is_ok_and(|age| age > DEAD_AFTER))
        });
        let dead = old_socket
            && matches!(
                UnixStream::connect(&socket),
                Err(e) if e.kind() == io::ErrorKind::ConnectionRefused
            );
        if dead {
            let _ = std::fs::remove_dir_all(&path);
        }
    }
}

fn random_token() -> io::Result<String> {
    let mut bytes = [0u8; 16];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Counts a client served, until dropped.
struct Served(Arc<Shared>);

impl Drop for Served {
    fn drop(&mut self) {
        self.0.clients.fetch_sub(1, Ordering::SeqCst);
    }
}

fn serve(listener: &UnixListener, shared: &Arc<Shared>) {
    for stream in listener.incoming() {
        if shared.closing.load(Ordering::SeqCst) {
            return;
        }
        let Ok(mut stream) = stream else {
            // Out of descriptors, say: wait a little rather than spin.
            std::thread::sleep(Duration::from_millis(100));
            continue;
        };
        if shared.clients.fetch_add(1, Ordering::SeqCst) >= ASKPASS_CLIENTS {
            shared.clients.fetch_sub(1, Ordering::SeqCst);
            let _ = stream.set_write_timeout(Some(Duration::from_millis(100)));
            let _ = stream.write_all(b"0\n");
            continue;
        }
        let served = Served(shared.clone());
        // A prompt waits for the user: a thread each (at most ASKPASS_CLIENTS).
        let spawned = std::thread::Builder::new()
            .name("canopy-askpass-prompt".into())
            .spawn(move || {
                let _ = answer(stream, &served.0);
                drop(served);
            });
        drop(spawned);
    }
}

/// What a client asks, as it sent it.
struct Request {
    token: String,
    connect: u64,
    /// `SSH_ASKPASS_PROMPT` as `ssh` set it: `confirm` (a yes/no question),
    /// `none` (a notice), or empty (a secret).
    kind: String,
    /// Whether the whole prompt, before it was cut, is a yes/no question.
    yes_no: bool,
    prompt: String,
}

/// Reads a request, up to its closing NUL (a prompt from `ssh`'s command
/// line holds none): at most `ASKPASS_REQUEST_MAX` bytes within
/// `ASKPASS_REQUEST_TIME` in all. The client keeps its side open after it,
/// so its going away can be seen while the user is asked.
fn read_request(stream: &mut UnixStream) -> io::Result<Request> {
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

/// Marks a question being asked, until dropped (a panic included): the
/// question is closed; its connect's time runs again from now when it was
/// answered; when it was not, its prompt is not asked again.
struct Asking<'a> {
    shared: &'a Shared,
    connect: u64,
    id: u64,
    prompt: String,
    answered: bool,
}

impl Drop for Asking<'_> {
    fn drop(&mut self) {
        let mut s = self.shared.lock();
        s.questions.remove(&self.id);
        if let Some(connect) = s.connects.get_mut(&self.connect) {
            connect.asking -= 1;
            if self.answered {
                connect.answered = Some(Instant::now());
            } else {
                connect.cancelled.push(std::mem::take(&mut self.prompt));
            }
        }
    }
}

/// Whether the client that sent a request has gone (`ssh` ended it, or it
/// died): its question is no longer asked by anyone.
fn client_gone(stream: &mut UnixStream) -> bool {
    if stream.set_nonblocking(true).is_err() {
        return true;
    }
    let mut byte = [0u8; 1];
    let gone = match stream.read(&mut byte) {
        Ok(0) => true,
        Ok(_) => false,
        Err(e) => e.kind() != io::ErrorKind::WouldBlock,
    };
    gone || stream.set_nonblocking(false).is_err()
}

/// How often a waiting prompt checks that its client is still there.
const CLIENT_CHECK: Duration = Duration::from_millis(200);

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
    if request.yes_no {
        return refuse(stream);
    }
    let (send, answered) = sync_channel(1);
    let (question, mut asking) = {
        let mut s = shared.lock();
        let Some(connect) = s
            .connects
            .get_mut(&request.connect)
            .filter(|c| c.asked < ASKPASS_PROMPTS && !c.cancelled.contains(&request.prompt))
        else {
            drop(s);
            return refuse(stream);
        };
        connect.asking += 1;
        connect.asked += 1;
        let server = connect.server.clone();
        s.next_question += 1;
        let id = s.next_question;
        let question = SecretQuestion {
            id,
            server,
            prompt: request.prompt,
        };
        s.questions.insert(
            id,
            Open {
                connect: request.connect,
                question: question.clone(),
                reply: send,
            },
        );
        let asking = Asking {
            shared,
            connect: request.connect,
            id,
            prompt: question.prompt.clone(),
            answered: false,
        };
        (question, asking)
    };
    shared.asker.show(&question);
    if !shared.lock().questions.contains_key(&question.id) {
        // Its connect ended between the question's making and its showing:
        // the withdrawal may have gone first, so it goes again.
        shared.asker.withdraw(question.id);
    }
    let until = Instant::now() + shared.wait;
    let answer = loop {
        let left = until.saturating_duration_since(Instant::now());
        match answered.recv_timeout(left.min(CLIENT_CHECK)) {
            Ok(answer) => break answer,
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break None,
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                if !left.is_zero() && !client_gone(&mut stream) {
                    continue;
                }
                // Not answered in time, or nobody waits for the answer any
                // more: withdrawn, unless the answer came just now.
                let still_asked = shared.lock().questions.remove(&question.id).is_some();
                if still_asked {
                    shared.asker.withdraw(question.id);
                    break None;
                }
                break answered.try_recv().ok().flatten();
            }
        }
    };
    let connect_open = shared.lock().connects.contains_key(&request.connect);
    asking.answered = answer.is_some();
    drop(asking);
    match answer {
        Some(secret)
            if connect_open && secret.len() <= ASKPASS_SECRET_MAX && !secret.contains('\n') =>
        {
            let mut reply = Zeroizing::new(Vec::with_capacity(secret.len() + 2));
            reply.extend_from_slice(b"1\n");
            reply.extend_from_slice(secret.as_bytes());
            stream.write_all(&reply)
        }
        _ => refuse(stream),
    }
}

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
    /// The client the variables name (as [`Askpass::env`] sets them), read
    /// with `var`; `None` without a socket.
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

fn ask_over(socket: &Path, request: &[u8]) -> io::Result<Answer> {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// An asker that answers each question with what `answer` says
    /// (`None`: leaves it open), and records what it was shown and told.
    #[derive(Default)]
    struct Recorder {
        shown: Mutex<Vec<SecretQuestion>>,
        withdrawn: Mutex<Vec<u64>>,
    }

    struct Answering {
        record: Arc<Recorder>,
        askpass: Arc<Mutex<Option<std::sync::Weak<Askpass>>>>,
        answer: Option<&'static str>,
    }

    impl Asker for Answering {
        fn show(&self, q: &SecretQuestion) {
            self.record.shown.lock().unwrap().push(q.clone());
            if let Some(a) = self.answer {
                let askpass = self.askpass.lock().unwrap().clone().unwrap();
                let id = q.id;
                // Answers from another thread, as the window does.
                std::thread::spawn(move || {
                    if let Some(askpass) = askpass.upgrade() {
                        let _ = askpass.answer(id, Some(Zeroizing::new(a.to_string())));
                    }
                });
            }
        }
        fn withdraw(&self, id: u64) {
            self.record.withdrawn.lock().unwrap().push(id);
        }
    }

    fn asked(answer: Option<&'static str>, wait: Duration) -> (Arc<Askpass>, Arc<Recorder>) {
        let record = Arc::new(Recorder::default());
        let slot = Arc::new(Mutex::new(None));
        let asker = Answering {
            record: record.clone(),
            askpass: slot.clone(),
            answer,
        };
        let askpass = Askpass::waiting(PathBuf::from("/nonexistent"), asker, wait).unwrap();
        *slot.lock().unwrap() = Some(Arc::downgrade(&askpass));
        (askpass, record)
    }

    fn request(
        askpass: &Askpass,
        token: &str,
        connect: u64,
        kind: &str,
        prompt: &str,
    ) -> Option<String> {
        let text = format!("{token}\n{connect}\n{kind}\n{prompt}\0");
        ask_over(&askpass.socket, text.as_bytes())
            .unwrap()
            .map(|s| s.to_string())
    }

    fn token(askpass: &Askpass) -> String {
        askpass.shared.token.clone()
    }

    const LONG: Duration = Duration::from_secs(60);

    #[test]
    fn a_passphrase_prompt_reaches_the_app_with_the_server_it_is_for() {
        let (askpass, record) = asked(Some("open sesame"), LONG);
        let c = askpass.begin("ann@example:2222");
        let got = request(
            &askpass,
            &token(&askpass),
            c,
            "",
            "Enter passphrase for key '/k':",
        );
        assert_eq!(got.as_deref(), Some("open sesame"));
        let shown = record.shown.lock().unwrap();
        assert_eq!(shown.len(), 1);
        assert_eq!(shown[0].server, "ann@example:2222");
        assert_eq!(shown[0].prompt, "Enter passphrase for key '/k':");
        assert!(askpass.waits_until(c, Duration::from_secs(10)).is_some());
        assert!(askpass.asking().is_empty(), "answered: no longer open");
    }

    #[test]
    fn a_wrong_token_is_refused_unasked() {
        let (askpass, record) = asked(Some("x"), LONG);
        let c = askpass.begin("h");
        assert_eq!(request(&askpass, "guess", c, "", "Password:"), None);
        assert!(record.shown.lock().unwrap().is_empty());
    }

    #[test]
    fn yes_no_questions_are_refused_unasked() {
        let (askpass, record) = asked(Some("yes"), LONG);
        let c = askpass.begin("h");
        let t = token(&askpass);
        let host_key = "The authenticity of host 'h (1.2.3.4)' can't be established.\n\
             ED25519 key fingerprint is SHA256:x.\n\
             Are you sure you want to continue connecting (yes/no/[fingerprint])?";
        assert_eq!(request(&askpass, &t, c, "", host_key), None);
        assert_eq!(
            request(&askpass, &t, c, "", "Accept updated hostkeys? (yes/no): "),
            None
        );
        assert_eq!(
            request(&askpass, &t, c, "confirm", "Allow use of key?"),
            None
        );
        assert_eq!(
            request(&askpass, &t, c, "", "Please type 'yes' or 'no': "),
            None
        );
        // The question at the end of a long warning (a long known_hosts
        // path): told apart before the prompt is cut for the user.
        let warning = format!(
            "Warning: the ED25519 host key for 'h' differs from the key for the IP address '1.2.3.4'\n\
             Offending key for IP in {}:1\nMatching host key in {}:1\n\
             Are you sure you want to continue connecting (yes/no)? ",
            "/k".repeat(300),
            "/k".repeat(300)
        );
        assert!(warning.chars().count() > ASKPASS_PROMPT_CHARS);
        assert_eq!(request(&askpass, &t, c, "", &warning), None);
        // ...and one so long that ssh itself cut it before the question.
        let cut = format!(
            "Warning: the ED25519 host key for 'h' differs from {}",
            "x".repeat(1_000)
        );
        assert_eq!(request(&askpass, &t, c, "", &cut), None);
        assert!(record.shown.lock().unwrap().is_empty());
    }

    #[test]
    fn ssh_s_secret_prompts_are_asked_whatever_names_they_hold() {
        let (askpass, record) = asked(Some("pw"), LONG);
        let c = askpass.begin("h");
        let t = token(&askpass);
        for prompt in [
            "Enter passphrase for key '/home/ann/.ssh/fingerprint_key': ",
            "Enter passphrase for key '/keys/host key (yes/no)': ",
            "fingerprint@build.fingerprint.com's password: ",
            "(fingerprint@127.0.0.1) Verification code: ",
            "Enter PIN for ED25519-SK key /home/ann/.ssh/yes/no: ",
        ] {
            assert_eq!(
                request(&askpass, &t, c, "", prompt).as_deref(),
                Some("pw"),
                "{prompt}"
            );
        }
        assert_eq!(record.shown.lock().unwrap().len(), 5);
        // A server's own words after the login are still read.
        assert_eq!(
            request(
                &askpass,
                &t,
                c,
                "",
                "(ann@h) Trust this host key? (yes/no): "
            ),
            None
        );
    }

    #[test]
    fn a_cancelled_prompt_is_not_asked_again_but_another_is() {
        let (askpass, record) = asked(None, Duration::from_millis(300));
        let c = askpass.begin("h");
        let t = token(&askpass);
        // Nobody answers: withdrawn, as a Cancel is.
        assert_eq!(
            request(&askpass, &t, c, "", "Enter passphrase for key '/k':"),
            None
        );
        assert_eq!(request(&askpass, &t, c, "", "h's password:"), None);
        assert_eq!(request(&askpass, &t, c, "", "h's password:"), None);
        assert_eq!(
            request(&askpass, &t, c, "", "Enter passphrase for key '/k':"),
            None
        );
        let shown: Vec<String> = record
            .shown
            .lock()
            .unwrap()
            .iter()
            .map(|q| q.prompt.clone())
            .collect();
        assert_eq!(
            shown,
            ["Enter passphrase for key '/k':", "h's password:"],
            "each retry was not shown"
        );
        assert_eq!(
            askpass.waits_until(c, LONG),
            None,
            "nor does it hold the connect's time"
        );
    }

    #[test]
    fn a_connect_is_asked_at_most_askpass_prompts_times() {
        let (askpass, record) = asked(Some("wrong"), LONG);
        let c = askpass.begin("h");
        let t = token(&askpass);
        for _ in 0..ASKPASS_PROMPTS {
            assert_eq!(
                request(&askpass, &t, c, "", "Password:").as_deref(),
                Some("wrong")
            );
        }
        assert_eq!(request(&askpass, &t, c, "", "Password:"), None);
        assert_eq!(record.shown.lock().unwrap().len(), ASKPASS_PROMPTS);
    }

    #[test]
    fn a_prompt_whose_client_went_away_is_withdrawn() {
        let (askpass, record) = asked(None, LONG);
        let c = askpass.begin("h");
        let mut client = UnixStream::connect(&askpass.socket).unwrap();
        client
            .write_all(format!("{}\n{c}\n\nPassword:\0", token(&askpass)).as_bytes())
            .unwrap();
        while askpass.asking().is_empty() {
            std::thread::sleep(Duration::from_millis(5));
        }
        let id = askpass.asking()[0].id;
        drop(client);
        let until = Instant::now() + Duration::from_secs(10);
        while record.withdrawn.lock().unwrap().is_empty() {
            assert!(Instant::now() < until, "withdrawn");
            std::thread::sleep(Duration::from_millis(20));
        }
        assert_eq!(*record.withdrawn.lock().unwrap(), [id]);
        assert!(askpass.asking().is_empty());
    }

    #[test]
    fn a_prompt_for_an_ended_or_unknown_connect_is_refused_unasked() {
        let (askpass, record) = asked(Some("x"), LONG);
        let c = askpass.begin("h");
        askpass.end(c);
        assert_eq!(
            request(&askpass, &token(&askpass), c, "", "Password:"),
            None
        );
        assert_eq!(
            request(&askpass, &token(&askpass), 999, "", "Password:"),
            None
        );
        assert!(record.shown.lock().unwrap().is_empty());
    }

    #[test]
    fn a_notice_is_shown_to_nobody_and_answered_empty() {
        let (askpass, record) = asked(None, LONG);
        let c = askpass.begin("h");
        let got = request(
            &askpass,
            &token(&askpass),
            c,
            "none",
            "Confirm user presence for key",
        );
        assert_eq!(got.as_deref(), Some(""));
        assert!(record.shown.lock().unwrap().is_empty());
    }

    #[test]
    fn a_connect_that_ends_withdraws_its_open_prompt_and_ssh_is_told_no() {
        let (askpass, record) = asked(None, LONG);
        let c = askpass.begin("h");
        let t = token(&askpass);
        let a = askpass.clone();
        let asking = std::thread::spawn(move || request(&a, &t, c, "", "Password:"));
        while askpass.asking().is_empty() {
            std::thread::sleep(Duration::from_millis(5));
        }
        let id = askpass.asking()[0].id;
        askpass.end(c);
        assert_eq!(asking.join().unwrap(), None);
        assert_eq!(*record.withdrawn.lock().unwrap(), [id]);
        assert!(askpass
            .answer(id, Some(Zeroizing::new("late".into())))
            .is_err());
        assert_eq!(askpass.waits_until(c, LONG), None, "the connect is gone");
    }

    #[test]
    fn a_prompt_nobody_answers_is_withdrawn_after_the_wait() {
        let (askpass, record) = asked(None, Duration::from_millis(300));
        let c = askpass.begin("h");
        let got = request(&askpass, &token(&askpass), c, "", "Password:");
        assert_eq!(got, None);
        assert_eq!(record.withdrawn.lock().unwrap().len(), 1);
        assert!(askpass.asking().is_empty());
    }

    #[test]
    fn an_open_prompt_can_be_shown_again_and_is_answered_once() {
        let (askpass, _) = asked(None, LONG);
        let c = askpass.begin("h");
        let t = token(&askpass);
        let a = askpass.clone();
        let asking = std::thread::spawn(move || request(&a, &t, c, "", "Password:"));
        while askpass.asking().is_empty() {
            std::thread::sleep(Duration::from_millis(5));
        }
        let open = askpass.asking();
        assert_eq!(open.len(), 1);
        assert_eq!(open[0].prompt, "Password:");
        askpass
            .answer(open[0].id, Some(Zeroizing::new("pw".into())))
            .unwrap();
        assert!(askpass.answer(open[0].id, None).is_err(), "answered once");
        assert_eq!(asking.join().unwrap().as_deref(), Some("pw"));
    }

    #[test]
    fn a_server_chosen_prompt_is_cut_and_an_answer_with_a_line_break_is_refused() {
        let (askpass, record) = asked(Some("two\nlines"), LONG);
        let c = askpass.begin("h");
        let long = "P".repeat(5_000);
        assert_eq!(request(&askpass, &token(&askpass), c, "", &long), None);
        let shown = record.shown.lock().unwrap();
        assert_eq!(shown[0].prompt.chars().count(), ASKPASS_PROMPT_CHARS);
    }

    #[test]
    fn clients_past_the_limit_are_refused_at_once() {
        let (askpass, record) = asked(None, LONG);
        // Clients that never finish sending hold their places.
        let held: Vec<UnixStream> = (0..ASKPASS_CLIENTS)
            .map(|_| UnixStream::connect(&askpass.socket).unwrap())
            .collect();
        std::thread::sleep(Duration::from_millis(200));
        let c = askpass.begin("h");
        let text = format!("{}\n{c}\n\nPassword:\0", token(&askpass));
        // Refused: told no, or cut off (the client exits 1 either way).
        let got = ask_over(&askpass.socket, text.as_bytes()).map(|a| a.map(|s| s.to_string()));
        assert!(matches!(got, Ok(None) | Err(_)), "{got:?}");
        assert!(record.shown.lock().unwrap().is_empty());
        drop(held);
    }

    #[test]
    fn a_folder_left_by_a_dead_app_is_swept_and_a_live_ones_kept() {
        let (live, _) = asked(None, LONG);
        let base = live
            .socket
            .parent()
            .unwrap()
            .parent()
            .unwrap()
            .to_path_buf();
        // A dead app's folder: a socket file nobody listens on.
        let dead = tempfile::Builder::new()
            .prefix("canopy-askpass-")
            .tempdir_in(&base)
            .unwrap()
            .keep();
        drop(UnixListener::bind(dead.join("s")).unwrap());
        // A young one may be an app that has bound but not yet listens.
        let (young, _) = asked(None, LONG);
        assert!(dead.exists(), "a socket under a minute old is kept");
        drop(young);
        let aged = std::process::Command::new("touch")
            .args(["-h", "-d", "2 minutes ago"])
            .arg(dead.join("s"))
            .status()
            .unwrap();
        assert!(aged.success());
        let (next, _) = asked(None, LONG);
        assert!(!dead.exists(), "swept");
        assert!(live.socket.exists(), "a live app's socket is kept");
        next.close();
        assert!(!next.socket.exists(), "closed");
    }

    #[test]
    fn the_private_folder_is_the_users_alone() {
        use std::os::unix::fs::PermissionsExt;
        let (askpass, _) = asked(None, LONG);
        let dir = askpass.socket.parent().unwrap();
        let mode = std::fs::metadata(dir).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700);
        let socket = askpass.socket.clone();
        drop(askpass);
        assert!(!socket.exists(), "removed with the Askpass");
    }
}
