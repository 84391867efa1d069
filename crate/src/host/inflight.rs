//! The uploads an instance is handling now: a count each upload holds a [`Guard`] of from its first
//! byte until its answer and its cleanup are done (also when the client goes away and the handler
//! is dropped), the work it hands to a task of its own too. [`InFlight::settled`] waits for none
//! (what a stopping host waits on before it exits); [`InFlight::settled_after`] for none once `n`
//! uploads have begun (what a test of a refused or cut upload waits on before it looks at the store).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use tokio::sync::Notify;

/// How many uploads are in flight, and a wake-up for those waiting for none.
#[derive(Debug, Default)]
pub struct InFlight {
    n: AtomicUsize,
    begun: AtomicUsize,
    idle: Notify,
}

/// One upload in flight; the count goes down when it is dropped.
pub struct Guard(Arc<InFlight>);

impl InFlight {
    /// An upload begins: counted in flight until the guard is dropped.
    pub fn begin(self: &Arc<Self>) -> Guard {
        self.begun.fetch_add(1, Ordering::SeqCst);
        self.enter()
    }

    /// More work of an upload that began (a task it spawned): in flight until the guard is dropped.
    pub fn enter(self: &Arc<Self>) -> Guard {
        self.n.fetch_add(1, Ordering::SeqCst);
        Guard(self.clone())
    }

    /// The uploads begun since the start.
    pub fn begun(&self) -> usize {
        self.begun.load(Ordering::SeqCst)
    }

    /// The uploads in flight now.
    pub fn count(&self) -> usize {
        self.n.load(Ordering::SeqCst)
    }

    /// Resolves once no upload is in flight (at once when none is).
    pub async fn settled(&self) {
        self.settled_after(0).await;
    }

    /// Resolves once at least `n` uploads have begun and none is in flight.
    pub async fn settled_after(&self, n: usize) {
        loop {
            let woken = self.idle.notified();
            tokio::pin!(woken);
            // Registered before the count is read: a guard dropped in between still wakes us.
            woken.as_mut().enable();
            if self.begun() >= n && self.count() == 0 {
                return;
            }
            woken.await;
        }
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        if self.0.n.fetch_sub(1, Ordering::SeqCst) == 1 {
            self.0.idle.notify_waiters();
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use std::time::Duration;

    #[tokio::test]
    async fn settled_waits_for_the_last_guard() {
        use futures_util::FutureExt;
        let f = Arc::new(InFlight::default());
        assert!(f.settled().now_or_never().is_some(), "none in flight: settled at once");
        let a = f.begin();
        let b = f.begin();
        assert_eq!(f.count(), 2);
        let waiter = tokio::spawn({
            let f = f.clone();
            async move { f.settled().await }
        });
        drop(a);
        assert!(f.settled().now_or_never().is_none(), "one upload is still in flight");
        drop(b);
        // The waiter started before the last guard went is woken by it.
        tokio::time::timeout(Duration::from_secs(10), waiter).await.unwrap().unwrap();
        assert_eq!(f.count(), 0);
        // Waiting for a third upload: not settled until it has begun and ended.
        let third = tokio::spawn({
            let f = f.clone();
            async move { f.settled_after(3).await }
        });
        let c = f.begin();
        let more = f.enter();
        drop(c);
        assert!(f.settled_after(3).now_or_never().is_none(), "its spawned work is still in flight");
        drop(more);
        tokio::time::timeout(Duration::from_secs(10), third).await.unwrap().unwrap();
        assert_eq!(f.begun(), 3);
    }
}
