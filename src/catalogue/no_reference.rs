//! A suite with no `reference:` (one `record` made) runs only against a server
//! given: a command that would start the bundled reference server for it refuses
//! it, naming the suite.

use crate::scenario::Suite;

/// A command that needs the suite's reference server was given a suite without
/// `reference:`, and no server to use instead.
#[derive(Debug, thiserror::Error)]
#[error("suite `{suite}` has no reference server (its suite.yaml has no `reference:`): {what}")]
pub(crate) struct NoReference {
    suite: String,
    what: String,
}

/// Refuses the first of `suites` that has no `reference:`, for a command that
/// would start the bundled reference server for it; `what` says what to do
/// instead (give a server, or that the command needs one).
pub(crate) fn refuse_without_reference(suites: &[Suite], what: &str) -> Result<(), NoReference> {
    match suites.iter().find(|s| s.config.reference.is_none()) {
        Some(suite) => Err(NoReference {
            suite: suite.name.clone(),
            what: what.to_string(),
        }),
        None => Ok(()),
    }
}
