//! The system's `ssh`, started as `ssh -s … sftp`: the command line, and
//! what its messages say when it could not connect.
//!
//! The user's `~/.ssh/config`, agent, keys, `ProxyJump`, `ControlMaster` and
//! `known_hosts` apply as in a terminal; Canopy adds only what bounds the
//! connection (`ConnectTimeout`), keeps the session to SFTP (no tty, no X11
//! or agent forwarding, no port forwards) and, for scripts, `BatchMode=yes`
//! (no prompt). Host keys are checked as the user's config says, never
//! less: an unknown key fails unless the config itself accepts new keys.
#![forbid(unsafe_code)]

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use canopy_core::limits::{SFTP_CONNECT_TIME, SSH_MESSAGE_LINES, SSH_MESSAGE_LINE_BYTES};
use canopy_core::{CanopyError, ErrorCode};
use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};

use crate::url::Target;

/// How `ssh` is run.
#[derive(Debug, Clone, Default)]
pub struct SshOptions {
    /// `-F FILE`: this config file instead of `~/.ssh/config`.
    pub config: Option<PathBuf>,
    /// `BatchMode=yes`: never prompt (scripts, agents). Without it a
    /// password or passphrase is asked through `SSH_ASKPASS`.
    pub batch: bool,
    /// The `ssh` program (default `ssh`, found on `PATH`).
    pub program: Option<PathBuf>,
    /// Where a password or passphrase prompt goes when `batch` is off
    /// (without one, `ssh` finds no way to ask and the login fails).
    pub askpass: Option<std::sync::Arc<crate::askpass::Askpass>>,
}

/// The `ssh` command that opens the SFTP subsystem on `target`.
/// `batch`: with `BatchMode=yes` (no prompt), whatever `options` say.
pub(crate) fn command(target: &Target, options: &SshOptions, batch: bool) -> std::process::Command {
    let program = options
        .program
        .clone()
        .unwrap_or_else(|| PathBuf::from("ssh"));
    let mut cmd = std::process::Command::new(program);
    if let Some(config) = &options.config {
        cmd.arg("-F").arg(config);
    }
    // debug1 says which host key the server offered (the fingerprint an
    // unknown key is refused with); its lines are kept apart from ssh's
    // own messages.
    cmd.arg("-v");
    let connect = SFTP_CONNECT_TIME.as_secs().max(1);
    cmd.args(["-T", "-x", "-a", "-o", "ClearAllForwardings=yes"])
        .arg("-o")
        .arg(format!("ConnectTimeout={connect}"));
    if batch || options.batch {
        cmd.args(["-o", "BatchMode=yes"]);
    }
    if let Some(port) = target.port {
        cmd.arg("-p").arg(port.to_string());
    }
    if let Some(user) = &target.user {
        cmd.arg("-l").arg(user);
    }
    // `--`: whatever the host is, it is never read as an option.
    cmd.args(["-s", "--", &target.host, "sftp"]);
    cmd
}

/// Reads what `ssh` prints (its own messages and the server's stderr) into
/// `messages` until it ends: at most `SSH_MESSAGE_LINE_BYTES` of a line is
/// ever held, the rest of a longer one is dropped as it arrives.
pub(crate) async fn hear(stderr: impl AsyncRead + Unpin, messages: Arc<Mutex<Messages>>) {
    let mut read = BufReader::new(stderr);
    let mut line = Vec::new();
    let mut cut = false;
    loop {
        let buf = match read.fill_buf().await {
            Ok(b) if !b.is_empty() => b,
            _ => break,
        };
        let end = buf.iter().position(|&b| b == b'\n');
        let chunk = &buf[..end.unwrap_or(buf.len())];
        let room = SSH_MESSAGE_LINE_BYTES - line.len();
        cut |= chunk.len() > room;
        line.extend_from_slice(&chunk[..chunk.len().min(room)]);
        let used = end.map_or(buf.len(), |i| i + 1);
        read.consume(used);
        if end.is_some() {
            heard(&messages, &line, cut);
            line.clear();
            cut = false;
        }
    }
    if !line.is_empty() {
        heard(&messages, &line, cut);
    }
}

fn heard(messages: &Mutex<Messages>, line: &[u8], cut: bool) {
    let mut text = String::from_utf8_lossy(line).into_owned();
    if cut {
        text.push_str(&format!(" (cut at {SSH_MESSAGE_LINE_BYTES} bytes)"));
    }
    messages
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .add(&text, SSH_MESSAGE_LINES);
}

/// What `ssh` printed, sorted: its debug lines are dropped except the host
/// key it was offered.
#[derive(Debug, Default, Clone)]
pub(crate) struct Messages {
    pub lines: std::collections::VecDeque<String>,
    pub offered_key: Option<String>,
}

impl Messages {
    pub fn add(&mut self, line: &str, keep: usize) {
        let line = line.trim_end_matches(['\r', '\n']);
        if let Some(key) = line.strip_prefix("debug1: Server host key: ") {
            self.offered_key = Some(key.to_string());
            return;
        }
        // `-v` also prints ssh's version first: not a reason (a server
        // silent after its banner would read as "ssh: OpenSSH_9.2p1 …").
        if line.starts_with("debug") || line.starts_with("OpenSSH_") || line.is_empty() {
            return;
        }
        if self.lines.len() >= keep {
            self.lines.pop_front();
        }
        self.lines.push_back(line.to_string());
    }

    /// ssh's last line that says something (not a warning about a key added).
    fn reason(&self) -> Option<&str> {
        self.lines
            .iter()
            .rev()
            .map(String::as_str)
            .find(|l| !l.starts_with("Warning: Permanently added"))
    }
}

/// The error for a connection `ssh` could not make, from what it printed.
pub(crate) fn connect_error(target: &Target, messages: &Messages) -> CanopyError {
    let all = |needle: &str| messages.lines.iter().any(|l| l.contains(needle));
    let host = match target.port {
        Some(p) => format!("[{}]:{p}", target.host),
        None => target.host.clone(),
    };
    let login = match &target.user {
        Some(u) => format!("{u}@{}", target.host),
        None => target.host.clone(),
    };
    let port_arg = target.port.map(|p| format!("-p {p} ")).unwrap_or_default();
    if all("REMOTE HOST IDENTIFICATION HAS CHANGED")
        || all("has changed and you have requested strict checking")
    {
        // The fingerprint is on the line after "The fingerprint for the … key sent by the remote host is".
        let fingerprint = messages
            .lines
            .iter()
            .skip_while(|l| !l.contains("sent by the remote host is"))
            .nth(1)
            .cloned()
            .or_else(|| messages.offered_key.clone())
            .unwrap_or_else(|| "(not shown by ssh)".into());
        return CanopyError::new(
            ErrorCode::HostKeyChanged,
            format!(
                "the host key of {host} is not the one in known_hosts; the server sent {fingerprint}. \
                 If the server was reinstalled, remove the old key with `ssh-keygen -R '{host}'` and connect once with `ssh {port_arg}{login}`"
            ),
        );
    }
    if all("Host key verification failed") || all("host key is known for") {
        let fingerprint = messages
            .offered_key
            .clone()
            .unwrap_or_else(|| "(not shown by ssh)".into());
        return CanopyError::new(
            ErrorCode::HostKeyUnknown,
            format!(
                "the host key of {host} is not known; the server offers {fingerprint}. \
                 Check it with the server's owner, then add it by connecting once with `ssh {port_arg}{login}` and answering yes"
            ),
        );
    }
    if let Some(line) =
        messages.lines.iter().rev().find(|l| {
            l.contains("Permission denied") || l.contains("Too many authentication failures")
        })
    {
        return CanopyError::new(ErrorCode::AuthFailed, format!("ssh: {line}"));
    }
    let reason = messages.reason().unwrap_or("ssh ended without saying why");
    let code = if reason.contains("timed out") || reason.contains("Timeout") {
        ErrorCode::Timeout
    } else {
        ErrorCode::Io
    };
    CanopyError::new(code, format!("cannot connect to {host}: ssh: {reason}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target() -> Target {
        Target {
            user: Some("ann".into()),
            host: "127.0.0.1".into(),
            port: Some(2222),
        }
    }

    fn said(lines: &[&str]) -> Messages {
        let mut m = Messages::default();
        for l in lines {
            m.add(l, 64);
        }
        m
    }

    #[test]
    fn an_unknown_host_key_is_refused_with_the_offered_fingerprint() {
        let m = said(&[
            "debug1: Connecting to 127.0.0.1 [127.0.0.1] port 2222.",
            "debug1: Server host key: ssh-ed25519 SHA256:abcDEF",
            "No ED25519 host key is known for [127.0.0.1]:2222 and you have requested strict checking.",
            "Host key verification failed.",
        ]);
        let e = connect_error(&target(), &m);
        assert_eq!(e.code, ErrorCode::HostKeyUnknown);
        assert!(e.message.contains("SHA256:abcDEF"), "{}", e.message);
        assert!(
            e.message.contains("ssh -p 2222 ann@127.0.0.1"),
            "{}",
            e.message
        );
    }

    #[test]
    fn ssh_s_version_line_is_no_reason() {
        let m = said(&["OpenSSH_9.2p1 Debian-2+deb12u3, OpenSSL 3.0.15 3 Sep 2024"]);
        assert!(m.lines.is_empty(), "{:?}", m.lines);
    }

    #[test]
    fn the_command_never_reads_the_host_as_an_option() {
        let cmd = command(
            &target(),
            &SshOptions {
                batch: true,
                ..Default::default()
            },
            false,
        );
        let args: Vec<_> = cmd
            .get_args()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        let tail = &args[args.len() - 4..];
        assert_eq!(tail, ["-s", "--", "127.0.0.1", "sftp"]);
        assert!(args.windows(2).any(|w| w == ["-o", "BatchMode=yes"]));
    }
}
