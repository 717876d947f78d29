//! Cooperative cancellation of listings by request id.
//!
//! A listing checks its token between directory batches, so a superseded
//! request stops within one batch and answers `CANCELLED`. A cancel may arrive
//! before its listing has started; the registry remembers it.
#![forbid(unsafe_code)]

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// Set once, read often.
#[derive(Debug, Clone, Default)]
pub struct CancelToken(Arc<AtomicBool>);

impl CancelToken {
    pub fn cancel(&self) {
        self.0.store(true, Ordering::Relaxed);
    }
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

/// Cancels remembered before their request arrived; old ones are forgotten.
const EARLY_CANCELS_KEPT: usize = 1024;

#[derive(Debug, Default)]
struct Inner {
    live: HashMap<u64, CancelToken>,
    early: VecDeque<u64>,
}

/// The tokens of requests in flight.
#[derive(Debug, Default)]
pub struct CancelRegistry {
    inner: Mutex<Inner>,
}

/// Keeps a request's token registered; unregisters on drop.
pub struct Registration<'r> {
    registry: &'r CancelRegistry,
    id: u64,
    pub token: CancelToken,
}

impl Drop for Registration<'_> {
    fn drop(&mut self) {
        if let Ok(mut inner) = self.registry.inner.lock() {
            inner.live.remove(&self.id);
        }
    }
}

impl CancelRegistry {
    /// Registers request `id`; the token is already cancelled if a cancel came first.
    pub fn register(&self, id: u64) -> Registration<'_> {
        let token = CancelToken::default();
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(pos) = inner.early.iter().position(|&e| e == id) {
            inner.early.remove(pos);
            token.cancel();
        }
        inner.live.insert(id, token.clone());
        Registration {
            registry: self,
            id,
            token,
        }
    }

    /// Cancels request `id`. Returns whether it was in flight.
    pub fn cancel(&self, id: u64) -> bool {
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(token) = inner.live.get(&id) {
            token.cancel();
            return true;
        }
        if inner.early.len() >= EARLY_CANCELS_KEPT {
            inner.early.pop_front();
        }
        inner.early.push_back(id);
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cancel_reaches_a_live_request() {
        let reg = CancelRegistry::default();
        let r = reg.register(7);
        assert!(!r.token.is_cancelled());
        assert!(reg.cancel(7));
        assert!(r.token.is_cancelled());
    }

    #[test]
    fn cancel_before_register_is_remembered() {
        let reg = CancelRegistry::default();
        assert!(!reg.cancel(9));
        assert!(
            reg.register(9).token.is_cancelled(),
            "an early cancel must not be lost"
        );
        assert!(!reg.register(10).token.is_cancelled());
    }
}
