//! One SFTP session over one `ssh` child, and the host that keeps it:
//! at most one connection (and one connect or reconnect in flight) per
//! host, requests multiplexed over it.
//!
//! Every call waits at most `SFTP_REPLY_WAIT` for its reply. The engine
//! gives a step up earlier (its deadline plus `ABANDON_GRACE`) and marks
//! the place stuck; the call left behind then returns soon after with
//! `TIMEOUT`, and the connection is held lost: `ssh` is killed, every call
//! waiting on it fails at once, and the next request reconnects (a new
//! connection is a new device for the engine's dead-mount rules, so the
//! old one's stuck places hold nothing new back).
#![forbid(unsafe_code)]

use std::collections::BTreeMap;
use std::future::Future;
use std::io;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use canopy_core::limits::{SFTP_CONNECT_TIME, SFTP_REPLY_WAIT, TIME_BUDGET};
use canopy_core::{CanopyError, ErrorCode};
use openssh_sftp_client::error::SftpErrorKind;
use openssh_sftp_client::{Error as SftpError, Sftp, SftpOptions};

use crate::askpass::Askpass;
use crate::ssh::{self, Messages, SshOptions};
use crate::url::Target;

/// The runtime the SFTP sessions' tasks run on: one worker thread, shared
/// by every connection of the process. The engine's workers wait on it
/// with `block_on`.
fn runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("canopy-sftp")
            .enable_all()
            .build()
            .expect("the SFTP runtime starts")
    })
}

/// Where a connection stands (the window shows it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConnectionState {
    /// Never connected yet.
    Idle,
    Connecting,
    Connected,
    /// Connecting again after the connection was lost.
    Reconnecting,
    /// Lost, and not reconnected yet: why.
    Lost(String),
}

/// One SFTP session over one `ssh` child.
pub(crate) struct Conn {
    pub sftp: Sftp,
    /// The engine's device number for everything read over this connection.
    pub dev: u64,
    label: String,
    child: Mutex<tokio::process::Child>,
    lost: Mutex<Option<String>>,
    /// Calls waiting for a reply, by number, with when they were sent.
    pending: Mutex<(u64, BTreeMap<u64, Instant>)>,
}

impl Drop for Conn {
    fn drop(&mut self) {
        let mut child = self.child.lock().unwrap_or_else(|e| e.into_inner());
        let _ = child.start_kill();
    }
}

impl Conn {
    /// Starts `ssh` and the SFTP session on it. `may_ask`: `ssh` may ask
    /// for a password or passphrase through the askpass (only a connect made
    /// outside any folder's time: the user may take a while); otherwise it
    /// runs in batch mode.
    async fn open(
        target: &Target,
        options: &SshOptions,
        dev: u64,
        may_ask: bool,
    ) -> Result<Conn, CanopyError> {
        let label = label(target);
        let batch = options.batch || !may_ask;
        let mut cmd = tokio::process::Command::from(ssh::command(target, options, batch));
        // Its prompts go to the app's askpass, unless it runs in batch mode;
        // the connect's prompts end with it, however it ends.
        let asking = options
            .askpass
            .as_ref()
            .filter(|_| !batch)
            .map(|a| Begun::new(a.clone(), &label));
        if let Some(begun) = &asking {
            cmd.envs(begun.askpass.env(begun.connect));
        }
        Self::start(target, cmd, dev, label, asking.as_ref()).await
    }

    async fn start(
        target: &Target,
        mut cmd: tokio::process::Command,
        dev: u64,
        label: String,
        asking: Option<&Begun>,
    ) -> Result<Conn, CanopyError> {
        cmd.stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .kill_on_drop(true);
        let mut child = cmd
            .spawn()
            .map_err(|e| CanopyError::new(ErrorCode::Io, format!("cannot start ssh: {e}")))?;
        let (stdin, stdout, stderr) = (
            child.stdin.take().expect("piped"),
            child.stdout.take().expect("piped"),
            child.stderr.take().expect("piped"),
        );
        let messages = Arc::new(Mutex::new(Messages::default()));
        let heard = messages.clone();
        let listener = tokio::spawn(ssh::hear(stderr, heard));
        let options = SftpOptions::new().flush_interval(Duration::ZERO);
        let wait = SFTP_CONNECT_TIME + Duration::from_secs(1);
        let mut session = std::pin::pin!(Sftp::new(stdin, stdout, options));
        let mut deadline = Instant::now() + wait;
        let started = loop {
            match tokio::time::timeout_at(deadline.into(), &mut session).await {
                Ok(done) => break Ok(done),
                // While the user is asked for a secret the connect waits
                // for them; its own time runs again from the answer.
                Err(late) => match asking.and_then(|b| b.askpass.waits_until(b.connect, wait)) {
                    Some(later) if later > Instant::now() => deadline = later,
                    _ => break Err(late),
                },
            }
        };
        match started {
            Ok(Ok(sftp)) => Ok(Conn {
                sftp,
                dev,
                label,
                child: Mutex::new(child),
                lost: Mutex::new(None),
                pending: Mutex::new((0, BTreeMap::new())),
            }),
            failed => {
                // ssh said why on its way out: wait for it (briefly) and read it.
                let _ = child.start_kill();
                let _ = tokio::time::timeout(Duration::from_secs(2), child.wait()).await;
                let _ = tokio::time::timeout(Duration::from_secs(1), listener).await;
                let said = messages.lock().unwrap_or_else(|e| e.into_inner()).clone();
                let mut error = ssh::connect_error(target, &said);
                if said.lines.is_empty() {
                    let timed_out = failed.is_err();
                    let why = match failed {
                        Err(_) => {
                            let asked = asking
                                .is_some_and(|b| b.askpass.waits_until(b.connect, wait).is_some());
                            let from = if asked {
                                " of the last password answer"
                            } else {
                                ""
                            };
                            format!("no SFTP session within {} s{from}", wait.as_secs())
                        }
                        Ok(Err(e)) => e.to_string(),
                        Ok(Ok(_)) => unreachable!(),
                    };
                    error = CanopyError::new(
                        if timed_out {
                            ErrorCode::Timeout
                        } else {
                            ErrorCode::Io
                        },
                        format!("cannot connect to {label}: {why}"),
                    );
                }
                Err(error)
            }
        }
    }

    /// Why the connection is lost, once it is.
    pub fn lost(&self) -> Option<String> {
        self.lost.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Holds the connection lost: `ssh` is killed, so every call waiting
    /// on it returns.
    pub fn lose(&self, why: String) {
        let mut lost = self.lost.lock().unwrap_or_else(|e| e.into_inner());
        if lost.is_none() {
            *lost = Some(why);
            let _ = self
                .child
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .start_kill();
        }
    }

    /// Whether `ssh` has ended (the server closed the connection, or it
    /// was killed): the connection is lost even before a call finds out.
    fn ended(&self) -> bool {
        let mut child = self.child.lock().unwrap_or_else(|e| e.into_inner());
        matches!(child.try_wait(), Ok(Some(_)))
    }

    /// A call has waited for its reply longer than the engine waits for a step.
    fn stalled(&self) -> bool {
        let pending = self.pending.lock().unwrap_or_else(|e| e.into_inner());
        pending
            .1
            .values()
            .next()
            .is_some_and(|sent| sent.elapsed() > TIME_BUDGET)
    }

    fn lost_error(&self, why: &str) -> io::Error {
        CanopyError::new(
            ErrorCode::Io,
            format!(
                "the connection to {} was lost ({why}); the next request reconnects",
                self.label
            ),
        )
        .into_io()
    }

    /// Runs one SFTP exchange, waiting at most `SFTP_REPLY_WAIT` for it.
    ///
    /// # Errors
    /// The server's status as an OS error (`ENOENT`, `EACCES`, `EIO` with
    /// its words); `TIMEOUT` when no reply came in time and `IO` when the
    /// connection is lost (both hold it lost).
    pub fn call<T>(&self, exchange: impl Future<Output = Result<T, SftpError>>) -> io::Result<T> {
        if let Some(why) = self.lost() {
            return Err(self.lost_error(&why));
        }
        let number = {
            let mut pending = self.pending.lock().unwrap_or_else(|e| e.into_inner());
            pending.0 += 1;
            let n = pending.0;
            pending.1.insert(n, Instant::now());
            n
        };
        let reply = runtime()
            .handle()
            .block_on(async { tokio::time::timeout(SFTP_REPLY_WAIT, exchange).await });
        self.pending
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .1
            .remove(&number);
        match reply {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(SftpError::SftpError(kind, message))) => Err(status_error(kind, &message)),
            Ok(Err(other)) => {
                // A call only learns that the session's reader stopped; the
                // session knows why (a reply that breaks the protocol says how).
                let why = self.lost().unwrap_or_else(|| match self.sftp.failure() {
                    Some(failure) => format!("the SFTP session failed: {failure}"),
                    None => other.to_string(),
                });
                self.lose(why.clone());
                Err(self.lost_error(&why))
            }
            Err(_) => {
                let why = format!(
                    "the server did not answer for {:.1} s",
                    SFTP_REPLY_WAIT.as_secs_f64()
                );
                self.lose(why.clone());
                Err(CanopyError::new(
                    ErrorCode::Timeout,
                    format!("not responding: {} {why}", self.label),
                )
                .into_io())
            }
        }
    }
}

/// A connect that may ask the user, begun with the askpass until dropped.
pub(crate) struct Begun {
    askpass: Arc<Askpass>,
    connect: u64,
}

impl Begun {
    fn new(askpass: Arc<Askpass>, server: &str) -> Begun {
        let connect = askpass.begin(server);
        Begun { askpass, connect }
    }
}

impl Drop for Begun {
    fn drop(&mut self) {
        self.askpass.end(self.connect);
    }
}

/// An SFTP status as the OS error the engine reads.
fn status_error(kind: SftpErrorKind, message: &impl std::fmt::Display) -> io::Error {
    match kind {
        SftpErrorKind::NoSuchFile => io::Error::from_raw_os_error(libc::ENOENT),
        SftpErrorKind::PermDenied => io::Error::from_raw_os_error(libc::EACCES),
        _ => CanopyError::new(ErrorCode::Io, format!("the server said: {message}")).into_io(),
    }
}

/// `user@host:port`, for messages.
pub(crate) fn label(target: &Target) -> String {
    let mut out = String::new();
    if let Some(u) = &target.user {
        out.push_str(u);
        out.push('@');
    }
    out.push_str(&target.host);
    if let Some(p) = target.port {
        out.push_str(&format!(":{p}"));
    }
    out
}

/// A server and its one connection.
pub(crate) struct Host {
    pub target: Target,
    options: SshOptions,
    conn: Mutex<Option<Arc<Conn>>>,
    /// Held while connecting: at most one connect in flight per host. It
    /// holds the last attempt's failure, which the requests that waited for
    /// that attempt share instead of each making one more.
    connecting: Mutex<Option<CanopyError>>,
    /// Connect attempts finished (counted while `connecting` is held).
    attempts: AtomicU64,
    state: Mutex<ConnectionState>,
    reconnects: AtomicU64,
}

impl Host {
    pub fn new(target: Target, options: SshOptions) -> Host {
        Host {
            target,
            options,
            conn: Mutex::new(None),
            connecting: Mutex::new(None),
            attempts: AtomicU64::new(0),
            state: Mutex::new(ConnectionState::Idle),
            reconnects: AtomicU64::new(0),
        }
    }

    pub fn state(&self) -> ConnectionState {
        let state = self.state.lock().unwrap_or_else(|e| e.into_inner()).clone();
        match (&state, self.current()) {
            (ConnectionState::Connected, Some(conn)) => match conn.lost() {
                Some(why) => ConnectionState::Lost(why),
                None if conn.ended() => {
                    ConnectionState::Lost("the server closed the connection".into())
                }
                // The next request reconnects: it is as good as lost.
                None if conn.stalled() => ConnectionState::Lost(format!(
                    "not responding: no answer for over {} s",
                    TIME_BUDGET.as_secs()
                )),
                None => state,
            },
            _ => state,
        }
    }

    pub fn reconnects(&self) -> u64 {
        self.reconnects.load(Ordering::Relaxed)
    }

    fn current(&self) -> Option<Arc<Conn>> {
        self.conn.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    fn set_state(&self, state: ConnectionState) {
        *self.state.lock().unwrap_or_else(|e| e.into_inner()) = state;
    }

    /// The connection a new request runs on: the current one while it
    /// answers; otherwise a new one (a call stalled past a step's time, or
    /// the connection lost, is a reason to reconnect). `may_ask`: a new one
    /// may ask the user for a password (see [`Conn::open`]).
    pub fn for_request(&self, may_ask: bool) -> Result<Arc<Conn>, CanopyError> {
        if let Some(conn) = self.current() {
            if conn.lost().is_none() && !conn.stalled() && !conn.ended() {
                return Ok(conn);
            }
        }
        let seen = self.attempts.load(Ordering::SeqCst);
        let mut last_failure = self.connecting.lock().unwrap_or_else(|e| e.into_inner());
        // Another request may have reconnected while this one waited.
        let old = self.current();
        if let Some(conn) = &old {
            if conn.lost().is_none() && !conn.stalled() && !conn.ended() {
                return Ok(conn.clone());
            }
        }
        // ...or tried and failed: its answer is this request's too (a dead
        // server costs one connect's wait, not one per request queued).
        if self.attempts.load(Ordering::SeqCst) != seen {
            if let Some(e) = last_failure.as_ref() {
                return Err(e.clone());
            }
        }
        if let Some(conn) = &old {
            conn.lose(if conn.ended() {
                "the server closed the connection".into()
            } else {
                "a call waited for its reply longer than a folder's time".into()
            });
        }
        self.set_state(if old.is_some() {
            ConnectionState::Reconnecting
        } else {
            ConnectionState::Connecting
        });
        let dev = device_number(&self.target);
        let opened =
            runtime()
                .handle()
                .block_on(Conn::open(&self.target, &self.options, dev, may_ask));
        self.attempts.fetch_add(1, Ordering::SeqCst);
        *last_failure = opened.as_ref().err().cloned();
        match opened {
            Ok(conn) => {
                let conn = Arc::new(conn);
                *self.conn.lock().unwrap_or_else(|e| e.into_inner()) = Some(conn.clone());
                if old.is_some() {
                    self.reconnects.fetch_add(1, Ordering::Relaxed);
                }
                self.set_state(ConnectionState::Connected);
                Ok(conn)
            }
            Err(e) => {
                self.set_state(ConnectionState::Lost(e.message.clone()));
                Err(e)
            }
        }
    }

    /// The login's home folder (`realpath .`).
    pub fn home(&self, conn: &Conn) -> io::Result<std::path::PathBuf> {
        conn.call(async { conn.sftp.fs().canonicalize(Path::new(".")).await })
    }
}

/// A device number for the engine's dead-mount rules, new for every
/// connection of the process (two sources of one host, or a reconnect, never
/// share one: a stuck call on one holds nothing of the other back): the top
/// bit set (no local `st_dev` has it), the host, and a process-wide count.
fn device_number(target: &Target) -> u64 {
    static CONNECTIONS: AtomicU64 = AtomicU64::new(0);
    let n = CONNECTIONS.fetch_add(1, Ordering::Relaxed) + 1;
    let key = label(target);
    REMOTE_DEVICE | (crate::fnv(key.as_bytes()) & SERVER_BITS) | (n & CONNECTION_BITS)
}

/// A device number's parts for a connection: the top bit (no local
/// `st_dev` has it), 31 bits for the server, 32 counting connections.
const REMOTE_DEVICE: u64 = 1 << 63;
const SERVER_BITS: u64 = 0x7fff_ffff_0000_0000;
const CONNECTION_BITS: u64 = 0xffff_ffff;

/// The part of a device number of [`device_number`] that names its server:
/// the same for every connection to it (they differ in the low 32 bits);
/// any other device number (a local one) as it is. For what outlives one
/// connection, such as `canopy-mcp`'s paging cursors.
pub fn lasting_device(dev: u64) -> u64 {
    if dev & REMOTE_DEVICE != 0 {
        dev & !CONNECTION_BITS
    } else {
        dev
    }
}
