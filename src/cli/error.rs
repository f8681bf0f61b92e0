//! What can stop a command before or after its work, each naming what failed. The
//! scenario files' own mistakes keep their file, line and column ([`LoadError`]);
//! everything else says which flag, file or step it was, without inventing a path.

use std::io;
use std::path::PathBuf;

use crate::author::record::recorded_calls::CallsError;
use crate::catalogue::NoReference;
use crate::execute::plan::PlanError;
use crate::proof::mutants::MutantsError;
use crate::scenario::LoadError;
use crate::server::CommandLineError;

/// Why a command could not do its work. Every variant exits with
/// [`super::exit::REFUSED`].
#[derive(Debug, thiserror::Error)]
pub(crate) enum CliError {
    /// Suite or scenario files that do not load, or a target file that does not.
    #[error("{}", LoadError::one_a_line(.0))]
    Files(Vec<LoadError>),
    #[error("--server `{line}`: {source}")]
    ServerLine {
        line: String,
        #[source]
        source: CommandLineError,
    },
    #[error("cannot write report {}: {source}", .path.display())]
    WriteReport {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("cannot find my own executable: {0}")]
    OwnExecutable(#[source] io::Error),
    #[error("{0}")]
    Mutants(#[from] MutantsError),
    #[error("--spec needs exactly one --suite (the suite whose `covers:` are checked)")]
    SpecNeedsOneSuite,
    #[error(
        "say where the files go: --out DIR, or --specs DIR with --suite NAME (its folder there); built-in suites are not written to (`toolspec suites export DIR` writes them out to edit)"
    )]
    ScaffoldNeedsAPlace,
    /// A JSON report (for `diff`, `matrix` or `history`) that could not be read.
    #[error("{0}")]
    ReadReport(#[from] crate::report::ReadError),
    /// `matrix` could not run a target or write its folder.
    #[error("matrix: {0}")]
    Matrix(String),
    /// `history` was given releases it cannot line up.
    #[error("history: {0}")]
    History(String),
    /// `init` could not propose or write a target.
    #[error("init: {0}")]
    Init(String),
    /// `explore` could not start: the oracle did not start or list its tools.
    #[error("explore: {0}")]
    Explore(String),
    /// `report merge` refused its shards.
    #[error("report merge: {0}")]
    Merge(String),
    /// `run --bless` was asked to write where it may not, or could not write.
    #[error("bless: {0}")]
    Bless(String),
    /// A command that needs the suite's reference server was given a suite
    /// without `reference:` (one `record` made), and no server to use instead.
    #[error(transparent)]
    NoReference(#[from] NoReference),
    /// `record` could not make or write its scenario.
    #[error("record: {0}")]
    Record(String),
    /// `review` could not find or read the proposals.
    #[error("review: {0}")]
    Review(String),
    /// `record` could not read the calls to make.
    #[error("record: {0}")]
    RecordCalls(#[from] CallsError),
    /// `list --json` could not put its object together.
    #[error("list --json: {0}")]
    ListJson(#[source] serde_json::Error),
    /// The server did not start with its own settings (`run`'s first start).
    #[error("run: {0}")]
    DidNotStart(#[from] crate::execute::plan::DidNotStart),
    /// `confinement` could not read the server's tools or write its suite.
    #[error("confinement: {0}")]
    Confinement(String),
}

impl From<Vec<LoadError>> for CliError {
    fn from(errors: Vec<LoadError>) -> Self {
        CliError::Files(errors)
    }
}

impl From<PlanError> for CliError {
    /// Each place the plan found wrong becomes a line of its own, as a file's
    /// load errors do.
    fn from(error: PlanError) -> Self {
        CliError::Files(error.into_load_errors())
    }
}

impl From<LoadError> for CliError {
    fn from(error: LoadError) -> Self {
        CliError::Files(vec![error])
    }
}

impl CliError {
    /// A shard that could not be read, as a merge error.
    pub(crate) fn merge(error: crate::report::ReadError) -> CliError {
        CliError::Merge(error.to_string())
    }

    /// One message per line, so each gets its own `error: ` when printed.
    pub(crate) fn messages(&self) -> Vec<String> {
        match self {
            CliError::Files(errors) => errors.iter().map(ToString::to_string).collect(),
            other => vec![other.to_string()],
        }
    }
}

impl From<crate::explore::session::ExploreError> for CliError {
    fn from(error: crate::explore::session::ExploreError) -> Self {
        use crate::explore::session::ExploreError;
        match error {
            ExploreError::ExploreFile(errors) => CliError::Files(errors),
            ExploreError::Report(failed) => CliError::WriteReport {
                path: failed.path,
                source: failed.source,
            },
            other => CliError::Explore(other.to_string()),
        }
    }
}
