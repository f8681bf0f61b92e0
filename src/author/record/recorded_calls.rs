//! The calls of an agent's session `toolspec record --log` makes into
//! scenarios, each with its fixture and name: every `tools/call` request of a newline-delimited JSON log
//! (`--log`), its fixture the files its arguments name in the folder the session
//! worked in (`--from`, `log_fixture.rs`).

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::call_log::{read_call_log, CallLogError};
use super::log_fixture::{call_fixture, Folder, LogFixtureError};
use super::names::default_name;

/// One scenario to record: tool, arguments, fixture, name.
pub(crate) struct CallToRecord {
    pub tool: String,
    pub args: Map<String, Value>,
    /// The fixture: path under the root -> the file's text (a folder: None).
    pub files: BTreeMap<String, Option<String>>,
    pub name: String,
}

/// The calls of a log, and what else it held, in words.
pub(crate) struct LoggedCalls {
    pub calls: Vec<CallToRecord>,
    pub skipped: String,
}

/// Why the calls to record could not be read.
#[derive(Debug, thiserror::Error)]
pub(crate) enum CallsError {
    #[error("cannot read {}: {source}", .log.display())]
    UnreadableLog { log: PathBuf, source: io::Error },
    /// A line of the log that is no call.
    #[error("{}: {source}", .log.display())]
    Log {
        log: PathBuf,
        #[source]
        source: CallLogError,
    },
    /// A call whose fixture cannot be made (boxed: it carries the argument's
    /// place, text and the folder, which would make every `Result` large).
    #[error("{}: {source}", .log.display())]
    Fixture {
        log: PathBuf,
        #[source]
        source: Box<LogFixtureError>,
    },
    #[error("--from {}: {source}", .from.display())]
    UnreadableFrom { from: PathBuf, source: io::Error },
    #[error("{} holds no tools/call request; {skipped}", .log.display())]
    NoCall { log: PathBuf, skipped: String },
    #[error("--args must be a JSON object")]
    ArgsNotAnObject,
    #[error("--args is not JSON: {0}")]
    ArgsNotJson(serde_json::Error),
}

/// Every `tools/call` request of the log `log`, each with the files its
/// arguments name under `from` (which the log names `log_root`, when given) as
/// its fixture, named by its tool, arguments and line.
pub(crate) fn calls_from_log(
    log: &Path,
    from: &Path,
    log_root: Option<&str>,
) -> Result<LoggedCalls, CallsError> {
    let opened = std::fs::File::open(log).map_err(|source| CallsError::UnreadableLog {
        log: log.to_path_buf(),
        source,
    })?;
    let read = read_call_log(opened).map_err(|source| CallsError::Log {
        log: log.to_path_buf(),
        source,
    })?;
    let canonical = from
        .canonicalize()
        .map_err(|source| CallsError::UnreadableFrom {
            from: from.to_path_buf(),
            source,
        })?;
    let own = canonical.to_string_lossy().into_owned();
    let folder = Folder {
        from: &canonical,
        logged: log_root.unwrap_or(&own),
    };
    let mut calls = Vec::new();
    for logged in &read.calls {
        let made = call_fixture(logged, &folder).map_err(|source| CallsError::Fixture {
            log: log.to_path_buf(),
            source: Box::new(source),
        })?;
        calls.push(CallToRecord {
            name: format!(
                "{} (log line {})",
                default_name(&logged.tool, &made.args, false),
                logged.line
            ),
            tool: logged.tool.clone(),
            args: made.args,
            files: made.files,
        });
    }
    if calls.is_empty() {
        return Err(CallsError::NoCall {
            log: log.to_path_buf(),
            skipped: read.skipped(),
        });
    }
    Ok(LoggedCalls {
        calls,
        skipped: read.skipped(),
    })
}

/// The arguments of `--args`: a JSON object's text.
pub(crate) fn args_object(args: &str) -> Result<Map<String, Value>, CallsError> {
    match serde_json::from_str::<Value>(args) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err(CallsError::ArgsNotAnObject),
        Err(e) => Err(CallsError::ArgsNotJson(e)),
    }
}
