//! `toolspec run`'s flags: what `run` reads, and what `init` and `confinement`
//! set when they run a suite through it.

use std::path::{Path, PathBuf};

use crate::author::bless::BlessMode;
use crate::cli::error::CliError;
use crate::scenario::{Basis, Partition};

/// `toolspec run`.
#[derive(clap::Args, Debug)]
pub(crate) struct RunArgs {
    /// Suite to run; repeat for several (default: the suites a target file pins in
    /// `suites:`, else all).
    #[arg(long)]
    pub(in crate::cli) suite: Vec<String>,
    /// A stdio MCP server to test instead of the bundled one: 'CMD ARGS {root}'.
    #[arg(long, conflicts_with = "target")]
    pub(in crate::cli) server: Option<String>,
    /// A target file describing the server under test (command or URL, settings,
    /// renames, baseline of known failures).
    #[arg(long)]
    pub(in crate::cli) target: Option<PathBuf>,
    /// Write a JUnit XML report here.
    #[arg(long)]
    pub(super) junit: Option<PathBuf>,
    /// Write a JSON report here.
    #[arg(long)]
    pub(in crate::cli) json: Option<PathBuf>,
    /// Write a Markdown conformance matrix (one row per requirement) here.
    #[arg(long)]
    pub(super) markdown: Option<PathBuf>,
    /// Write the results page (one self-contained HTML file) here.
    #[arg(long)]
    pub(super) html: Option<PathBuf>,
    /// Write the ids of every failing scenario here, as a baseline file for a target.
    #[arg(long)]
    pub(super) write_baseline: Option<PathBuf>,
    /// Only scenarios whose id contains this text.
    #[arg(long)]
    pub(super) filter: Option<String>,
    /// Only the scenario with this exact id (`suite::file::scenario`); repeat for
    /// several. An id that names no scenario is refused. Without --suite, the
    /// suites the ids name run.
    #[arg(long = "id", value_name = "ID")]
    pub(super) ids: Vec<String>,
    /// Only the scenarios whose ids this file lists, one a line (as --id).
    #[arg(long, value_name = "FILE")]
    pub(super) ids_from: Option<PathBuf>,
    /// Per-call timeout in milliseconds, overriding the suites'.
    #[arg(long)]
    pub(in crate::cli) timeout_ms: Option<u64>,
    /// Deadline for a whole scenario in milliseconds, overriding the suites' (never
    /// less than three call timeouts).
    #[arg(long)]
    pub(super) scenario_timeout_ms: Option<u64>,
    /// Scenarios run at once (default: number of CPUs).
    #[arg(long, short)]
    pub(super) jobs: Option<usize>,
    /// Start the bundled server with this deliberate deviation (see its --mutate).
    #[arg(long, conflicts_with_all = ["server", "target"])]
    pub(super) mutate: Vec<String>,
    /// Leave the fixture of every failed or errored scenario on disk.
    #[arg(long)]
    pub(super) keep_failed: bool,
    /// Run every scenario N times, each in a fresh fixture and server; a scenario
    /// whose verdict changes is FLAKY, which fails the run unless the baseline lists it.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=100))]
    pub(super) repeat: u32,
    /// Run one shard of the selected scenarios: count:K/N (the K-th of N by
    /// position) or hash:K/N (by the scenario id's hash), as nextest splits tests;
    /// `toolspec report merge` joins the shards' JSON reports.
    #[arg(long, value_name = "count:K/N|hash:K/N")]
    pub(super) partition: Option<Partition>,
    /// Only scenarios of this conformance level: `spec` (the document requires it),
    /// `upstream` (the real program does it where the document is silent), or `all`.
    #[arg(long, value_enum, default_value_t = BasisFilter::All)]
    pub(super) basis: BasisFilter,
    /// Let a run that selects or judges no scenario pass (by default it fails: a gate
    /// must not pass on nothing).
    #[arg(long)]
    pub(super) allow_empty: bool,
    /// Print every scenario, not only the ones that did not pass.
    #[arg(long, short)]
    pub(super) verbose: bool,
    /// Run every server without isolation for this run: writes anywhere, the real
    /// home, the network (docs/isolation.md). The summary line says so.
    #[arg(long)]
    pub(in crate::cli) no_isolation: bool,
    #[command(flatten)]
    pub(in crate::cli) noise: crate::cli::target_flags::NoiseFlag,
    /// Accepted and does nothing: isolation is the default now.
    #[arg(long, hide = true)]
    pub(super) sandbox: bool,
    /// Give each failing scenario's failed `text`, `json`, `code`, `is_error` and
    /// file texts what the server answered (suites of --specs only): `diff` (the
    /// default) prints each file's change, `write` writes it (docs/authoring.md).
    #[arg(long, value_enum, value_name = "diff|write", num_args = 0..=1, require_equals = true, default_missing_value = "diff")]
    pub(super) bless: Option<BlessMode>,
}

impl RunArgs {
    /// What chose the scenarios, in words, for a run that chose none.
    pub(super) fn selection_words(&self) -> String {
        let mut parts = Vec::new();
        if !self.suite.is_empty() {
            parts.push(format!("--suite {}", self.suite.join(", --suite ")));
        }
        if let Some(filter) = &self.filter {
            parts.push(format!("--filter {filter:?} matches no scenario id"));
        }
        if !self.ids.is_empty() || self.ids_from.is_some() {
            parts.push("the ids given (--id, --ids-from)".to_string());
        }
        if let Some(partition) = &self.partition {
            parts.push(format!("--partition {partition} leaves none in this shard"));
        }
        if self.basis != BasisFilter::All {
            parts.push(format!("--basis {:?}", self.basis).to_lowercase());
        }
        if parts.is_empty() {
            "the suites hold no scenario".to_string()
        } else {
            parts.join("; ")
        }
    }

    /// The run `toolspec init` makes: one suite against the proposed target file,
    /// writing the ids of what fails as the first baseline.
    pub(in crate::cli) fn first_baseline(
        target: &Path,
        suite: &str,
        baseline: &Path,
    ) -> Result<RunArgs, CliError> {
        #[derive(clap::Parser)]
        struct Line {
            #[command(flatten)]
            args: RunArgs,
        }
        let line = [
            "run".into(),
            "--suite".into(),
            std::ffi::OsString::from(suite),
            "--target".into(),
            target.as_os_str().to_owned(),
            "--write-baseline".into(),
            baseline.as_os_str().to_owned(),
        ];
        <Line as clap::Parser>::try_parse_from(line)
            .map(|l| l.args)
            .map_err(|e| CliError::Init(format!("cannot make the first run: {e}")))
    }
}

/// `--basis`: which conformance levels to run.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum BasisFilter {
    Spec,
    Upstream,
    All,
}

impl BasisFilter {
    /// The one level the run takes; `None` for all.
    pub(super) fn level(self) -> Option<Basis> {
        match self {
            BasisFilter::All => None,
            BasisFilter::Spec => Some(Basis::Spec),
            BasisFilter::Upstream => Some(Basis::Upstream),
        }
    }
}
