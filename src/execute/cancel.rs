//! Cutting short scenarios whose verdict nobody needs any more.
//!
//! `toolspec mutants` stops scoring a mutation at its first killing scenario; the
//! other scenarios of that mutation still running are then cancelled. A cancelled
//! scenario ends the way a scenario past its deadline does: its calls are dropped,
//! its server is stopped with everything it started, and its fixture is removed.
//! Each scenario runs on a runtime of its own, so the signal is a `watch` channel,
//! which any runtime can await and any thread can send on.

use tokio::sync::watch;

/// Cancels every scenario started with one of its [`Cancel`] tokens, at once and
/// for good.
#[derive(Debug)]
pub(crate) struct Canceller(watch::Sender<bool>);

impl Canceller {
    pub(crate) fn new() -> Canceller {
        Canceller(watch::channel(false).0)
    }

    /// Cancels the scenarios holding a token of this canceller, and those that
    /// will be started with one.
    pub(crate) fn cancel(&self) {
        self.0.send_replace(true);
    }

    /// A token for one more scenario.
    pub(crate) fn token(&self) -> Cancel {
        Cancel(Some(self.0.subscribe()))
    }
}

/// What a scenario watches to learn that it is no longer wanted.
#[derive(Debug, Clone)]
pub(crate) struct Cancel(Option<watch::Receiver<bool>>);

impl Cancel {
    /// A token that is never cancelled, for runs that want every verdict.
    pub(crate) fn never() -> Cancel {
        Cancel(None)
    }

    /// Whether the scenario has been cancelled already.
    pub(crate) fn is_cancelled(&self) -> bool {
        self.0.as_ref().is_some_and(|watched| *watched.borrow())
    }

    /// Resolves once the scenario is cancelled; never, for [`Cancel::never`] or
    /// when its canceller is gone without cancelling.
    pub(crate) async fn cancelled(&self) {
        if let Some(watched) = &self.0 {
            let mut watched = watched.clone();
            if watched.wait_for(|cancelled| *cancelled).await.is_ok() {
                return;
            }
        }
        std::future::pending::<()>().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolves_now(cancel: &Cancel) -> bool {
        let runtime = crate::server::runtime::thread_runtime().expect("runtime");
        runtime.block_on(async {
            tokio::time::timeout(std::time::Duration::from_millis(20), cancel.cancelled())
                .await
                .is_ok()
        })
    }

    #[test]
    fn a_token_resolves_once_its_canceller_cancels_and_not_before() {
        let canceller = Canceller::new();
        let early = canceller.token();
        assert!(!early.is_cancelled());
        assert!(!resolves_now(&early));
        canceller.cancel();
        assert!(early.is_cancelled());
        assert!(resolves_now(&early));
        // A token taken after the cancel is cancelled from the start.
        assert!(canceller.token().is_cancelled());
    }

    #[test]
    fn never_and_a_dropped_canceller_never_resolve() {
        assert!(!resolves_now(&Cancel::never()));
        let orphan = Canceller::new().token();
        assert!(!orphan.is_cancelled());
        assert!(!resolves_now(&orphan));
    }
}
