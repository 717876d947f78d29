//! The window's side of `ssh`'s password and passphrase prompts (see
//! `canopy_sftp::askpass`): each question goes to the window as an
//! `askSecret` event and waits, at most `ASKPASS_WAIT`, for its
//! `answer_secret`. A question not answered in time is withdrawn (the
//! window closes its dialog) and `ssh` is told no.
//!
//! A secret is held here only while it is handed on, in a buffer that is
//! wiped after; it is never logged or stored. (The copies the IPC layer
//! made while decoding the request are not ours to wipe.)

use std::collections::HashMap;
use std::sync::mpsc::{sync_channel, SyncSender};
use std::sync::{Arc, Mutex};

use canopy_core::limits::ASKPASS_WAIT;
use canopy_core::wire::ShellEvent;
use canopy_core::CanopyError;
use canopy_sftp::askpass::{Answer, SecretQuestion};

use crate::outbox::Outbox;

/// The questions waiting for the window's answer.
pub struct Secrets {
    outbox: Arc<Outbox>,
    waiting: Mutex<HashMap<u64, SyncSender<Answer>>>,
}

impl Secrets {
    pub fn new(outbox: Arc<Outbox>) -> Secrets {
        Secrets {
            outbox,
            waiting: Mutex::default(),
        }
    }

    /// Asks the window `question` and waits for its answer: `None` when
    /// cancelled or not answered within `ASKPASS_WAIT`.
    pub fn ask(&self, question: &SecretQuestion) -> Answer {
        let (send, answered) = sync_channel(1);
        self.lock().insert(question.id, send);
        self.outbox.send(ShellEvent::AskSecret {
            id: question.id,
            server: question.server.clone(),
            prompt: question.prompt.clone(),
        });
        let answer = answered.recv_timeout(ASKPASS_WAIT);
        if self.lock().remove(&question.id).is_some() {
            // Still asked: nobody answered in time.
            self.outbox
                .send(ShellEvent::SecretWithdrawn { id: question.id });
        }
        answer.ok().flatten()
    }

    /// The window's answer to question `id` (`None`: cancelled).
    ///
    /// # Errors
    /// `INVALID_ARGUMENT` when `id` is not asked (any more).
    pub fn answer(&self, id: u64, answer: Answer) -> Result<(), CanopyError> {
        match self.lock().remove(&id) {
            Some(waiting) => {
                let _ = waiting.try_send(answer);
                Ok(())
            }
            None => Err(CanopyError::invalid(
                "this password prompt is no longer asked (it waited too long, or the connection ended)",
            )),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, SyncSender<Answer>>> {
        self.waiting.lock().unwrap_or_else(|e| e.into_inner())
    }
}
