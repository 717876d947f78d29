//! Serving the clients: at most `ASKPASS_CLIENTS` at once, a thread each;
//! each request is refused, or its question shown to the app's [`Asker`]
//! and waited for until answered, withdrawn (its wait passed, its connect
//! ended, its client went away) or cancelled, and the answer sent back.
//!
//! [`Asker`]: super::Asker

use std::io::{self, Read, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::sync::atomic::Ordering;
use std::sync::mpsc::sync_channel;
use std::sync::Arc;
use std::time::{Duration, Instant};

use canopy_core::limits::{ASKPASS_CLIENTS, ASKPASS_PROMPTS, ASKPASS_SECRET_MAX};

use super::app::{Broker, Open};
use super::request::read_request;
use super::{SecretQuestion, Zeroizing};

/// Counts a client served, until dropped.
struct Served(Arc<Broker>);

impl Drop for Served {
    fn drop(&mut self) {
        self.0.clients.fetch_sub(1, Ordering::SeqCst);
    }
}

pub(super) fn serve(listener: &UnixListener, broker: &Arc<Broker>) {
    for stream in listener.incoming() {
        if broker.closing.load(Ordering::SeqCst) {
            return;
        }
        let Ok(mut stream) = stream else {
            // Out of descriptors, say: wait a little rather than spin.
            std::thread::sleep(Duration::from_millis(100));
            continue;
        };
        if broker.clients.fetch_add(1, Ordering::SeqCst) >= ASKPASS_CLIENTS {
            broker.clients.fetch_sub(1, Ordering::SeqCst);
            let _ = stream.set_write_timeout(Some(Duration::from_millis(100)));
            let _ = stream.write_all(b"0\n");
            continue;
        }
        let served = Served(broker.clone());
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

/// Marks a question being asked, until dropped (a panic included): the
/// question is closed; its connect's time runs again from now when it was
/// answered; when it was not, its prompt is not asked again.
struct Asking<'a> {
    broker: &'a Broker,
    connect: u64,
    id: u64,
    prompt: String,
    answered: bool,
}

impl Drop for Asking<'_> {
    fn drop(&mut self) {
        let mut s = self.broker.lock();
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

fn answer(mut stream: UnixStream, broker: &Broker) -> io::Result<()> {
    let request = read_request(&mut stream)?;
    let refuse = |mut stream: UnixStream| stream.write_all(b"0\n");
    if request.token != broker.token || request.kind == "confirm" {
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
        let mut s = broker.lock();
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
            broker,
            connect: request.connect,
            id,
            prompt: question.prompt.clone(),
            answered: false,
        };
        (question, asking)
    };
    broker.asker.show(&question);
    if !broker.lock().questions.contains_key(&question.id) {
        // Its connect ended between the question's making and its showing:
        // the withdrawal may have gone first, so it goes again.
        broker.asker.withdraw(question.id);
    }
    let until = Instant::now() + broker.wait;
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
                let still_asked = broker.lock().questions.remove(&question.id).is_some();
                if still_asked {
                    broker.asker.withdraw(question.id);
                    break None;
                }
                break answered.try_recv().ok().flatten();
            }
        }
    };
    let connect_open = broker.lock().connects.contains_key(&request.connect);
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
