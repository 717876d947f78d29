//! The window's side of `ssh`'s password and passphrase prompts (see
//! `canopy_sftp::askpass`): a question is shown as an `askSecret` event
//! (its words escaped as names are), withdrawn with `secretWithdrawn`, and
//! answered with `answer_secret`. The askpass keeps the open questions, so
//! a page that listens again (a reload) is shown them again.
//!
//! A secret is held here only while it is handed on, in a buffer that is
//! wiped after; it is never logged or stored. (The copies the IPC layer and
//! the page made on the way are not ours to wipe.)

use std::sync::Arc;

use canopy_core::names::DisplayName;
use canopy_core::wire::ShellEvent;
use canopy_sftp::askpass::{Asker, SecretQuestion};

use crate::outbox::Outbox;

/// Shows the questions in the window, through its inbox.
pub struct WindowAsker {
    pub outbox: Arc<Outbox>,
}

/// The event that shows `question`.
fn ask_event(question: &SecretQuestion) -> ShellEvent {
    let prompt = DisplayName::new(question.prompt.as_bytes());
    ShellEvent::AskSecret {
        id: question.id,
        server: question.server.clone(),
        prompt: prompt.text,
        prompt_parts: prompt.parts,
    }
}

impl Asker for WindowAsker {
    fn show(&self, question: &SecretQuestion) {
        self.outbox.send(ask_event(question));
    }

    fn withdraw(&self, id: u64) {
        self.outbox.send(ShellEvent::SecretWithdrawn { id });
    }
}
