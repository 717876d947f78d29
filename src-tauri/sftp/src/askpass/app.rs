//! The app's side: an [`Askpass`] owns the private folder and socket the
//! clients reach, the token they must send, and the [`Ledger`] of connects
//! and open questions; it hands `ssh` the environment that leads to it, and
//! takes the user's answers back.

use std::collections::HashMap;
use std::ffi::OsString;
use std::io::{self, Read};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::SyncSender;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use canopy_core::limits::ASKPASS_WAIT;
use canopy_core::CanopyError;

use super::serve::serve;
use super::sweep::sweep_dead;
use super::{Answer, Asker, SecretQuestion, CONNECT_VAR, SOCKET_VAR, TOKEN_VAR};

/// A connect that may ask (one run of `ssh`): its server and its prompts so far.
pub(super) struct Connect {
    pub(super) server: String,
    /// Prompts being answered now.
    pub(super) asking: usize,
    /// Prompts shown so far.
    pub(super) asked: usize,
    /// When the last prompt was answered.
    pub(super) answered: Option<Instant>,
    /// The prompts cancelled (or withdrawn): `ssh` asks the same again (a
    /// password is retried empty, a server may ask forever), so each is
    /// refused unshown from then on. Another prompt (a password after a
    /// key's passphrase was cancelled) is still asked.
    pub(super) cancelled: Vec<String>,
}

/// A question shown and not answered yet: its connect, and where its answer goes.
pub(super) struct Open {
    pub(super) connect: u64,
    pub(super) question: SecretQuestion,
    pub(super) reply: SyncSender<Answer>,
}

/// The connects and the questions open, under one lock.
#[derive(Default)]
pub(super) struct Ledger {
    pub(super) next_connect: u64,
    pub(super) next_question: u64,
    pub(super) connects: HashMap<u64, Connect>,
    pub(super) questions: HashMap<u64, Open>,
}

/// What the `Askpass` and its serving threads hold in common: the token a
/// client must send, the app's asker, how long a prompt waits, the ledger,
/// and the clients being served.
pub(super) struct Broker {
    pub(super) token: String,
    pub(super) asker: Box<dyn Asker>,
    pub(super) wait: Duration,
    pub(super) ledger: Mutex<Ledger>,
    pub(super) clients: AtomicUsize,
    pub(super) closing: AtomicBool,
}

/// The app's side: a socket the clients reach, and the questions open.
pub struct Askpass {
    program: PathBuf,
    pub(super) socket: PathBuf,
    pub(super) broker: Arc<Broker>,
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
        self.broker.closing.store(true, Ordering::SeqCst);
        // Wakes the accepting thread, which then ends.
        let _ = UnixStream::connect(&self.socket);
    }
}

impl Askpass {
    /// Listens for `program`'s prompts (a program that calls
    /// [`run_as_askpass`](super::run_as_askpass)) and shows them with
    /// `asker`; a prompt not answered within `ASKPASS_WAIT` is withdrawn.
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
        let broker = Arc::new(Broker {
            token: random_token()?,
            asker: Box::new(asker),
            wait,
            ledger: Mutex::default(),
            clients: AtomicUsize::new(0),
            closing: AtomicBool::new(false),
        });
        let serving = broker.clone();
        std::thread::Builder::new()
            .name("canopy-askpass".into())
            .spawn(move || serve(&listener, &serving))?;
        Ok(Arc::new(Askpass {
            program,
            socket,
            broker,
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
        match self.broker.lock().questions.remove(&id) {
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
            .broker
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
            self.broker.asker.show(question);
        }
        let still = self.asking();
        for gone in open.iter().filter(|q| !still.iter().any(|s| s.id == q.id)) {
            self.broker.asker.withdraw(gone.id);
        }
    }

    /// A connect to `server` begins (the one that runs `ssh`): its number,
    /// for [`Askpass::env`]; its prompts are asked until [`Askpass::end`].
    pub fn begin(&self, server: &str) -> u64 {
        let mut s = self.broker.lock();
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
            let mut s = self.broker.lock();
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
            self.broker.asker.withdraw(id);
        }
    }

    /// The environment `ssh` is run with for `connect`.
    pub fn env(&self, connect: u64) -> Vec<(&'static str, OsString)> {
        vec![
            ("SSH_ASKPASS", self.program.clone().into_os_string()),
            ("SSH_ASKPASS_REQUIRE", "force".into()),
            (SOCKET_VAR, self.socket.clone().into_os_string()),
            (TOKEN_VAR, self.broker.token.clone().into()),
            (CONNECT_VAR, connect.to_string().into()),
        ]
    }

    /// How long `connect` may still wait for its session: `wait` from now
    /// while the user is asked, `wait` from the last answer after one;
    /// `None` when nothing was asked.
    pub(crate) fn waits_until(&self, connect: u64, wait: Duration) -> Option<Instant> {
        let s = self.broker.lock();
        let connect = s.connects.get(&connect)?;
        if connect.asking > 0 {
            Some(Instant::now() + wait)
        } else {
            connect.answered.map(|at| at + wait)
        }
    }
}

impl Broker {
    pub(super) fn lock(&self) -> std::sync::MutexGuard<'_, Ledger> {
        self.ledger.lock().unwrap_or_else(|e| e.into_inner())
    }
}

fn random_token() -> io::Result<String> {
    let mut bytes = [0u8; 16];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}
