//! The signals that stop the server, over either transport: SIGTERM (a
//! supervisor), SIGINT (Ctrl-C) and SIGHUP (the terminal went away). Each
//! ends serving normally, so the shell's cleanup runs and nothing the server
//! started outlives it. Handlers are installed up front, where installing
//! one can still fail with a clear message.

use std::future::Future;

use thiserror::Error;
use tokio::signal::unix::{signal, SignalKind};

/// A handler that could not be installed.
#[derive(Debug, Error)]
#[error("cannot handle {signal}: {cause}")]
pub(crate) struct SignalError {
    signal: &'static str,
    cause: std::io::Error,
}

/// Installs the handlers; the future resolves when one of the signals arrives.
pub(crate) fn stop_signals() -> Result<impl Future<Output = ()>, SignalError> {
    let install = |kind: SignalKind, name: &'static str| {
        signal(kind).map_err(|cause| SignalError {
            signal: name,
            cause,
        })
    };
    let mut terminate = install(SignalKind::terminate(), "SIGTERM")?;
    let mut interrupt = install(SignalKind::interrupt(), "SIGINT")?;
    let mut hangup = install(SignalKind::hangup(), "SIGHUP")?;
    Ok(async move {
        tokio::select! {
            _ = terminate.recv() => {}
            _ = interrupt.recv() => {}
            _ = hangup.recv() => {}
        }
    })
}
