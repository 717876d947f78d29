//! The tests' OpenSSH server (`tests/common`: Debian's `sshd` as an
//! unprivileged user on 127.0.0.1 at a free port, keys and a client
//! `ssh_config` in a temporary folder) for a test that is not written in
//! Rust: the window's end-to-end tests (`tests/e2e/remote.test.mjs`).
//!
//! Prints one JSON line: `{"config", "lockedConfig", "passphrase", "data",
//! "host", "port"}` (the client config to give `ssh -F`, one that offers
//! only a key locked with `passphrase`, the folder the server's files are made in, the
//! config's `Host` alias, the port). Then reads commands, one a line:
//! `stop` / `cont` send SIGSTOP / SIGCONT to the sessions' `sshd`
//! processes (a server that freezes), `kill` kills the server and every
//! session; each is answered `ok`. At the end of its input it stops the
//! server and removes the folder.

#[path = "../tests/common/mod.rs"]
mod common;

use std::io::{BufRead, Write};

fn main() {
    let mut sshd = common::Sshd::start();
    let line = serde_json::json!({
        "config": sshd.config(),
        "lockedConfig": sshd.locked_key_config(),
        "passphrase": common::PASSPHRASE,
        "data": sshd.data(),
        "host": common::HOST,
        "port": sshd.port,
    });
    let mut out = std::io::stdout();
    writeln!(out, "{line}").unwrap();
    out.flush().unwrap();
    for command in std::io::stdin().lock().lines() {
        let Ok(command) = command else { break };
        match command.trim() {
            "stop" => sshd
                .sessions()
                .into_iter()
                .for_each(|p| common::signal(p, "STOP")),
            "cont" => sshd
                .sessions()
                .into_iter()
                .for_each(|p| common::signal(p, "CONT")),
            "kill" => sshd.kill(),
            other => {
                writeln!(out, "unknown command {other}").unwrap();
                continue;
            }
        }
        writeln!(out, "ok").unwrap();
        out.flush().unwrap();
    }
    sshd.kill();
}
