//! `ssh`'s passphrase prompts through `canopy_sftp::askpass`, against the
//! tests' real `sshd` (see `common`) and the real `ssh`, with a user key
//! that has a passphrase. `ssh` runs this test binary as its `SSH_ASKPASS`,
//! as it runs the window's binary in the app: `main` first checks whether
//! it was started so (hence `harness = false`), else runs the tests, each
//! on a thread of its own (`cargo test … -- NAME` runs those whose name
//! contains NAME).

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use canopy_core::limits::SFTP_CONNECT_TIME;
use canopy_core::ErrorCode;
use canopy_sftp::askpass::{Asker, Askpass, SecretQuestion, Zeroizing};
use canopy_sftp::{ConnectionState, SftpFs, SshOptions, Target};
use common::*;

/// The askpass `ssh` runs: this binary.
fn this_binary() -> PathBuf {
    std::env::current_exe().unwrap()
}

/// A server that takes a key locked with `PASSPHRASE`, and the client
/// config that offers only that key.
fn locked_key_server() -> (Sshd, PathBuf) {
    let sshd = Sshd::start();
    let config = sshd.locked_key_config();
    (sshd, config)
}

type Asked = Arc<Mutex<Vec<SecretQuestion>>>;
type Answers = Box<dyn Fn(usize) -> Option<&'static str> + Send + Sync>;

/// The user, as the tests play them: each question is answered (from
/// another thread, as the window answers) with what `answers` says for
/// how many were asked before; `None` cancels.
struct User {
    asked: Asked,
    answers: Answers,
    askpass: Arc<Mutex<Weak<Askpass>>>,
}

impl Asker for User {
    fn show(&self, q: &SecretQuestion) {
        let n = {
            let mut log = self.asked.lock().unwrap();
            log.push(q.clone());
            log.len() - 1
        };
        let answer = (self.answers)(n).map(|s| Zeroizing::new(s.to_string()));
        let askpass = self.askpass.lock().unwrap().clone();
        let id = q.id;
        std::thread::spawn(move || {
            if let Some(askpass) = askpass.upgrade() {
                let _ = askpass.answer(id, answer);
            }
        });
    }

    fn withdraw(&self, _id: u64) {}
}

/// A source whose prompts are answered by `answers`, the questions asked,
/// and `ssh` run as `program` (default the real one).
fn source_running(
    config: &Path,
    batch: bool,
    program: Option<PathBuf>,
    answers: impl Fn(usize) -> Option<&'static str> + Send + Sync + 'static,
) -> (SftpFs, Asked) {
    let asked: Asked = Arc::default();
    let slot = Arc::new(Mutex::new(Weak::new()));
    let user = User {
        asked: asked.clone(),
        answers: Box::new(answers),
        askpass: slot.clone(),
    };
    let askpass = Askpass::start(this_binary(), user).unwrap();
    *slot.lock().unwrap() = Arc::downgrade(&askpass);
    let fs = SftpFs::new(
        Target {
            user: None,
            host: HOST.into(),
            port: None,
        },
        SshOptions {
            config: Some(config.to_path_buf()),
            batch,
            program,
            askpass: Some(askpass),
        },
    );
    (fs, asked)
}

fn source(
    config: &Path,
    batch: bool,
    answers: impl Fn(usize) -> Option<&'static str> + Send + Sync + 'static,
) -> (SftpFs, Asked) {
    source_running(config, batch, None, answers)
}

fn a_key_s_passphrase_is_asked_once_with_the_server_and_the_login_goes_through() {
    let (sshd, config) = locked_key_server();
    fs::write(sshd.data().join("hello.txt"), b"hi").unwrap();
    let (remote, asked) = source(&config, false, |_| Some(PASSPHRASE));
    remote.connect().unwrap();
    let asked = asked.lock().unwrap();
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert_eq!(asked[0].server, HOST);
    assert!(
        asked[0].prompt.contains("passphrase") && asked[0].prompt.contains("locked_key"),
        "ssh's own words: {}",
        asked[0].prompt
    );
}

fn a_cancelled_prompt_is_auth_failed_and_not_asked_again() {
    let (_sshd, config) = locked_key_server();
    let (remote, asked) = source(&config, false, |_| None);
    let e = remote.connect().unwrap_err();
    assert_eq!(e.code, ErrorCode::AuthFailed, "{e:?}");
    assert_eq!(asked.lock().unwrap().len(), 1);
}

fn a_wrong_passphrase_is_asked_again_as_ssh_does_then_the_right_one_logs_in() {
    let (_sshd, config) = locked_key_server();
    let (remote, asked) = source(&config, false, |n| {
        Some(if n == 0 { "wrong" } else { PASSPHRASE })
    });
    remote.connect().unwrap();
    assert_eq!(asked.lock().unwrap().len(), 2);
}

fn only_wrong_passphrases_end_auth_failed() {
    let (_sshd, config) = locked_key_server();
    let (remote, asked) = source(&config, false, |_| Some("wrong"));
    let e = remote.connect().unwrap_err();
    assert_eq!(e.code, ErrorCode::AuthFailed, "{e:?}");
    // ssh's NumberOfPasswordPrompts (3 by default).
    assert_eq!(asked.lock().unwrap().len(), 3);
}

fn scripts_in_batch_mode_are_never_asked_and_ssh_is_given_no_askpass() {
    let (sshd, config) = locked_key_server();
    // An `ssh` that writes down its environment, then runs the real one.
    let seen = sshd.dir.path().join("ssh-env");
    let wrapper = sshd.dir.path().join("ssh-recording-env");
    fs::write(
        &wrapper,
        format!("#!/bin/sh\nenv > '{}'\nexec ssh \"$@\"\n", seen.display()),
    )
    .unwrap();
    fs::set_permissions(
        &wrapper,
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let (remote, asked) = source_running(&config, true, Some(wrapper), |_| Some(PASSPHRASE));
    let e = remote.connect().unwrap_err();
    assert_eq!(e.code, ErrorCode::AuthFailed, "{e:?}");
    assert!(asked.lock().unwrap().is_empty());
    let env = fs::read_to_string(&seen).unwrap();
    assert!(
        env.lines().any(|l| l.starts_with("PATH=")),
        "the wrapper ran: {env}"
    );
    assert!(
        !env.contains("SSH_ASKPASS") && !env.contains("CANOPY_ASKPASS"),
        "no askpass in batch mode: {env}"
    );
}

fn the_connect_waits_for_a_user_slower_than_its_own_time() {
    let (_sshd, config) = locked_key_server();
    let slow = SFTP_CONNECT_TIME + Duration::from_secs(3);
    let (remote, asked) = source(&config, false, move |_| {
        std::thread::sleep(slow);
        Some(PASSPHRASE)
    });
    remote.connect().unwrap();
    assert_eq!(asked.lock().unwrap().len(), 1);
}

/// A request that finds its connection gone reconnects inside its
/// folder's time: it never asks (it fails as batch mode would); the next
/// connect, made outside any folder's time, asks again.
fn a_reconnect_inside_a_request_never_asks_the_next_connect_does() {
    let (sshd, config) = locked_key_server();
    let (remote, asked) = source(&config, false, |_| Some(PASSPHRASE));
    remote.connect().unwrap();
    assert_eq!(asked.lock().unwrap().len(), 1);
    for pid in sshd.sessions() {
        signal(pid, "KILL");
    }
    let until = std::time::Instant::now() + Duration::from_secs(10);
    while remote.state() == ConnectionState::Connected {
        assert!(
            std::time::Instant::now() < until,
            "the connection is seen lost"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let e = remote.real_path(&sshd.data()).unwrap_err();
    assert_eq!(e.code, ErrorCode::AuthFailed, "{e:?}");
    assert_eq!(
        asked.lock().unwrap().len(),
        1,
        "not asked inside the request"
    );
    remote.connect().unwrap();
    assert_eq!(asked.lock().unwrap().len(), 2, "asked by the connect");
    remote.real_path(&sshd.data()).unwrap();
}

fn an_unknown_host_key_is_never_asked_about_even_when_the_config_says_ask() {
    let (sshd, _) = locked_key_server();
    fs::write(sshd.dir.path().join("empty_known_hosts"), b"").unwrap();
    let config = sshd.write_client_config("config-ask", "empty_known_hosts", "locked_key");
    let text = fs::read_to_string(&config)
        .unwrap()
        .replace("StrictHostKeyChecking yes", "StrictHostKeyChecking ask");
    fs::write(&config, text).unwrap();
    let (remote, asked) = source(&config, false, |_| Some("yes"));
    let e = remote.connect().unwrap_err();
    assert_eq!(e.code, ErrorCode::HostKeyUnknown, "{e:?}");
    let fingerprint = fingerprint(&sshd.dir.path().join("host_key.pub"));
    assert!(e.message.contains(&fingerprint), "{}", e.message);
    assert!(asked.lock().unwrap().is_empty(), "the user was not asked");
    let known = fs::read_to_string(sshd.dir.path().join("empty_known_hosts")).unwrap();
    assert!(known.is_empty(), "no key was added: {known}");
}

type Case = (&'static str, fn());

const CASES: &[Case] = &[
    (
        "a_key_s_passphrase_is_asked_once_with_the_server_and_the_login_goes_through",
        a_key_s_passphrase_is_asked_once_with_the_server_and_the_login_goes_through,
    ),
    (
        "a_cancelled_prompt_is_auth_failed_and_not_asked_again",
        a_cancelled_prompt_is_auth_failed_and_not_asked_again,
    ),
    (
        "a_wrong_passphrase_is_asked_again_as_ssh_does_then_the_right_one_logs_in",
        a_wrong_passphrase_is_asked_again_as_ssh_does_then_the_right_one_logs_in,
    ),
    (
        "only_wrong_passphrases_end_auth_failed",
        only_wrong_passphrases_end_auth_failed,
    ),
    (
        "scripts_in_batch_mode_are_never_asked_and_ssh_is_given_no_askpass",
        scripts_in_batch_mode_are_never_asked_and_ssh_is_given_no_askpass,
    ),
    (
        "the_connect_waits_for_a_user_slower_than_its_own_time",
        the_connect_waits_for_a_user_slower_than_its_own_time,
    ),
    (
        "a_reconnect_inside_a_request_never_asks_the_next_connect_does",
        a_reconnect_inside_a_request_never_asks_the_next_connect_does,
    ),
    (
        "an_unknown_host_key_is_never_asked_about_even_when_the_config_says_ask",
        an_unknown_host_key_is_never_asked_about_even_when_the_config_says_ask,
    ),
];

fn main() {
    if let Some(code) = canopy_sftp::askpass::run_as_askpass() {
        std::process::exit(code);
    }
    let filter: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let chosen: Vec<&Case> = CASES
        .iter()
        .filter(|(name, _)| filter.is_empty() || filter.iter().any(|f| name.contains(f.as_str())))
        .collect();
    println!("\nrunning {} tests", chosen.len());
    let running: Vec<_> = chosen
        .iter()
        .map(|&&(name, case)| (name, std::thread::spawn(case)))
        .collect();
    let mut failed = Vec::new();
    for (name, thread) in running {
        let ok = thread.join().is_ok();
        println!("test {name} ... {}", if ok { "ok" } else { "FAILED" });
        if !ok {
            failed.push(name);
        }
    }
    println!(
        "\ntest result: {}. {} passed; {} failed",
        if failed.is_empty() { "ok" } else { "FAILED" },
        chosen.len() - failed.len(),
        failed.len()
    );
    if !failed.is_empty() {
        std::process::exit(101);
    }
}
