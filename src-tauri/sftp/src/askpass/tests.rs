//! What is asked and what is refused, tried as `ssh` and a hostile server
//! would: the token, yes/no questions, `ssh`'s own prompts, cancelled and
//! repeated prompts, clients that go away, connects that end, the wait, the
//! client limit, the prompt and answer caps, and the private folder.

use std::io::Write;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use canopy_core::limits::{ASKPASS_CLIENTS, ASKPASS_PROMPTS, ASKPASS_PROMPT_CHARS};

use super::client::ask_over;
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
    askpass.broker.token.clone()
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
