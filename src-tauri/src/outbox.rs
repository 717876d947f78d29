//! What the app pushes to the window unasked (folder changes, a second
//! instance's path), over the channel the window registers with
//! `listen_shell`. Messages sent before the window listens wait, a few at most.

use std::sync::Mutex;

use canopy_core::wire::ShellEvent;
use tauri::ipc::Channel;

/// Messages kept while no window listens; older ones are dropped first.
const WAITING_MAX: usize = 16;

#[derive(Default)]
struct Inner {
    channel: Option<Channel<ShellEvent>>,
    waiting: Vec<ShellEvent>,
}

/// The window's inbox, as seen from the app.
#[derive(Default)]
pub struct Outbox {
    inner: Mutex<Inner>,
}

impl Outbox {
    /// Sends `event` to the window, or keeps it until the window listens.
    pub fn send(&self, event: ShellEvent) {
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(channel) = &inner.channel {
            if channel.send(event.clone()).is_ok() {
                return;
            }
            // The page went away (reloaded): wait for the next listener.
            inner.channel = None;
        }
        if inner.waiting.len() >= WAITING_MAX {
            inner.waiting.remove(0);
        }
        inner.waiting.push(event);
    }

    /// Makes `channel` the window's inbox and delivers what was waiting.
    pub fn attach(&self, channel: Channel<ShellEvent>) {
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        for event in std::mem::take(&mut inner.waiting) {
            let _ = channel.send(event);
        }
        inner.channel = Some(channel);
    }
}
