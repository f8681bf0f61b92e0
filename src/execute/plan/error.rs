//! Why a run could not be planned: each a list of [`LoadError`]s, since every one
//! names a place in a file (a suite, the file of `--ids-from`, a target file).

use crate::scenario::LoadError;

/// Why a run's plan was refused before any scenario started.
#[derive(Debug, thiserror::Error)]
pub(crate) enum PlanError {
    /// A suite named that is no suite, or one that does not load.
    #[error("{}", LoadError::one_a_line(.0))]
    Suites(Vec<LoadError>),
    /// An id of `--id` or `--ids-from` that names no scenario of the suites.
    #[error("{}", LoadError::one_a_line(.0))]
    Ids(Vec<LoadError>),
    /// A target file whose pins or baseline name what the suites do not have.
    #[error("{}", LoadError::one_a_line(.0))]
    TargetFile(Vec<LoadError>),
}

impl PlanError {
    /// Each place that was wrong, for a caller that reports them one a line.
    pub(crate) fn into_load_errors(self) -> Vec<LoadError> {
        match self {
            PlanError::Suites(errors) | PlanError::Ids(errors) | PlanError::TargetFile(errors) => {
                errors
            }
        }
    }
}
