//! One `toolspec explore` run from its resolved sides to its written files: the
//! oracle's tools read, the explore file loaded, the cases generated and compared,
//! their divergences classified, the new ones shrunk, the baseline's unseen
//! witnesses run again, and what was asked for written (`--out`, the found
//! baseline), or proposed into the suite itself (`--into`, a pending proposal
//! for `toolspec review`, or written at once with `--write`). The command only resolves the two sides and renders what this tells
//! its reporter, in the order a reader wants it: the run's heading, the settings
//! and the tools the subject lacks before the cases run, the findings after.

use std::collections::{BTreeMap, BTreeSet};
use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::cases::budget::{Budget, Shard};
use super::cases::run::{run_cases, ExplorePlan, Explored};
use super::cases::watch::Watch;
use super::compare::differential::Sides;
use super::compare::pass_over::KnownSignatures;
use super::compare::tools_listed::{list_oracle_tools, listed_in_suite_names, ToolsListError};
use super::derived_file::derive_explore_text;
use super::explore_file::{explore_data_from_text, explore_file_path, ExploreData};
use super::shrink::transcript::observe;
use super::triage::baseline::{Baseline, BaselineError, FoundClass, KnownClass, Witness};
use super::triage::baseline_file::{baseline_text, is_yaml, read_baseline};
use super::triage::baseline_yaml::baseline_yaml;
use super::triage::classes::{classify, shrink_new, Classified, DivergenceClass};
use super::triage::stale::{recheck_unseen, WitnessRun};
use super::triage::tally::Tally;
use crate::author::found_file::{check_found_file, propose_into, Proposed};
use crate::author::pending::{relative_to_suite, Pending, PendingFile};
use crate::author::suite_folder::free_folder;
use crate::author::{write_suite, Observed, Written};
use crate::execute::parallel::default_jobs;
use crate::execute::schedule;
use crate::scenario::{read_text, LoadError, Suite};
use crate::server::preflight::{describe, PreflightError};
use crate::server::ListedTool;
use crate::server::Target;

/// What one run explores and what it writes, the sides already resolved.
pub(crate) struct SessionRequest<'a> {
    pub suite: &'a Suite,
    pub oracle: &'a Target,
    pub subject: &'a Target,
    /// No subject was given, so the oracle is explored against itself and its
    /// tools/list is not read a second time.
    pub subject_is_oracle: bool,
    /// Both sides are the bundled server, whose cases mostly wait on process
    /// starts and pipes, so more run at once by default.
    pub both_bundled: bool,
    /// Whether the servers run isolated (the heading says when not).
    pub isolated: bool,
    pub seed: u64,
    pub budget: Budget,
    pub shard: Shard,
    /// Per-call timeout in milliseconds, overriding the suite's.
    pub timeout_ms: Option<u64>,
    /// Cases run at once; None: the default for the sides.
    pub jobs: Option<usize>,
    pub baseline: Option<&'a Path>,
    /// Re-runs each new divergence may take to shrink.
    pub shrink_budget: usize,
    /// Where new divergences are written as a suite.
    pub out: Option<&'a Path>,
    /// Where new divergences are proposed into the explored suite itself.
    pub into: Option<&'a FoundInto>,
    /// Where every signature found is written as a baseline.
    pub write_baseline: Option<&'a Path>,
    /// Stop starting cases at the first new divergence (`--fail-fast`).
    pub fail_fast: bool,
    /// Write the explore file derived for a suite that has none beside its
    /// `suite.yaml` (`--write-explore-file`).
    pub write_explore_file: bool,
}

/// `--into FILE`: the new divergences' scenarios added to the suite's file
/// `FILE.yaml`, kept as a pending proposal (`record`'s kind, `made_by:
/// explore`) or, with `--write`, written at once.
pub(crate) struct FoundInto {
    /// The file's name without `.yaml`.
    pub file: String,
    /// Where the proposal is kept (`author::pending::pending_path`).
    pub proposal: PathBuf,
    /// The command's arguments, for the proposal's `command`.
    pub command: Vec<String>,
    /// Write the file at once instead of keeping the proposal.
    pub write: bool,
}

/// Everything a run found, for the reporters, once its cases have run.
pub(crate) struct Findings<'f> {
    pub request: &'f SessionRequest<'f>,
    /// Each drawn setting with its values.
    pub settings_drawn: &'f BTreeMap<String, Vec<Value>>,
    pub subject_lacks: &'f [String],
    pub explored: &'f Explored,
    pub classified: &'f Classified<'f>,
    pub tally: Tally,
    /// The baseline the run was given, if one was.
    pub baseline: Option<&'f Baseline>,
    /// The baseline's classes the run saw.
    pub seen: &'f BTreeSet<usize>,
    /// The unseen classes whose witnesses ran again, with what they showed.
    pub rechecked: &'f [(usize, WitnessRun)],
    /// From the first case to the last shrink.
    pub elapsed: Duration,
}

impl<'f> Findings<'f> {
    /// The baseline's class that `class` belongs to; None when the run was given
    /// no baseline or the baseline does not know it. One answer for the text
    /// and the JSON report, which both name the known class.
    pub(crate) fn known_class(&self, class: &DivergenceClass<'_>) -> Option<&'f KnownClass> {
        self.baseline
            .zip(class.known)
            .and_then(|(baseline, index)| baseline.classes.get(index))
    }

    /// The baseline's classes whose witness no longer shows them, as (class
    /// index, what the witness showed instead), in class order: what fails the
    /// run and what the text report lists line by line, so the two cannot
    /// disagree.
    pub(crate) fn stale(&self) -> impl Iterator<Item = (usize, &'f str)> {
        self.rechecked.iter().filter_map(|(index, run)| match run {
            WitnessRun::Stale(why) => Some((*index, why.as_str())),
            WitnessRun::Shows => None,
        })
    }

    /// With `--fail-fast`, the case of the first new divergence, where the run
    /// stopped starting cases; None without the flag or without a new one. One
    /// answer for the text and the JSON report.
    pub(crate) fn fail_fast_stop(&self) -> Option<u64> {
        if !self.request.fail_fast {
            return None;
        }
        self.classified
            .classes
            .iter()
            .filter(|class| class.known.is_none())
            .map(|class| class.first.0.number)
            .min()
    }

    /// How many of the baseline's classes no longer diverge.
    pub(crate) fn stale_count(&self) -> usize {
        self.stale().count()
    }
}

/// What a run tells its reporter, in the order it happens.
pub(crate) enum SessionEvent<'e> {
    /// The run is about to start its cases: its heading.
    Began(&'e SessionRequest<'e>),
    /// The suite has no explore file, so one was derived from the oracle's
    /// tools/list: its text, and where it was written, if it was.
    Derived {
        suite: &'e str,
        text: &'e str,
        written: Option<&'e Path>,
    },
    /// The settings drawn, and those left out as a side cannot express them.
    Settings {
        request: &'e SessionRequest<'e>,
        drawn: &'e BTreeMap<String, Vec<Value>>,
        not_drawn: &'e [String],
    },
    /// Explored tools the subject does not list; `all` when that is every one,
    /// and then nothing is explored.
    SubjectLacks {
        suite: &'e str,
        lacks: &'e [String],
        all: bool,
    },
    /// The cases ran and were classified, shrunk and their baseline checked.
    Finished(&'e Findings<'e>),
    /// `--out` wrote a suite.
    Wrote(&'e Written),
    /// `--into` proposed scenarios into the suite: kept as a proposal at
    /// `kept`, or, when None, written.
    Proposed {
        suite: &'e str,
        proposed: &'e Proposed,
        kept: Option<&'e Path>,
    },
}

/// A reporter could not write a report file.
#[derive(Debug, thiserror::Error)]
#[error("cannot write report {}: {source}", .path.display())]
pub(crate) struct ReportFailed {
    pub path: PathBuf,
    #[source]
    pub source: io::Error,
}

/// Whoever renders a run: told of each case as it ends and of each phase (the
/// live progress line), and of each [`SessionEvent`].
pub(crate) trait SessionReporter: Watch {
    fn event(&self, event: SessionEvent<'_>) -> Result<(), ReportFailed>;
}

/// Why a run could not start or finish its writing.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ExploreError {
    /// The oracle did not start or list its tools.
    #[error("suite {suite}: {why}")]
    Oracle {
        suite: String,
        #[source]
        why: ToolsListError,
    },
    /// The subject did not start with its own settings: why, with the lines of
    /// its stderr that tell it.
    #[error("suite {suite}: the subject did not start: {why}")]
    Subject { suite: String, why: String },
    /// The suite's explore file does not load.
    #[error("the explore file does not load")]
    ExploreFile(Vec<LoadError>),
    #[error(transparent)]
    Baseline(#[from] BaselineError),
    /// `--write-explore-file` for a suite that has an explore file: it is read,
    /// not derived, so nothing is written over it.
    #[error("--write-explore-file: suite {suite} already has {}; it is read as it is, and nothing is derived", .path.display())]
    ExploreFileExists { suite: String, path: PathBuf },
    /// The derived explore file could not be written.
    #[error("cannot write the derived explore file {}: {source}", .path.display())]
    WriteExploreFile {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    /// `--out` names a folder that cannot take the suite, or writing it failed.
    #[error("{0}")]
    Out(String),
    /// `--into` names no file of the suite, or proposing into it failed.
    #[error("--into: {0}")]
    Into(String),
    #[error(transparent)]
    Report(#[from] ReportFailed),
}

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SessionEnd {
    /// No new divergence, no case not run, no stale class.
    Held,
    /// Something new, a case not run, a stale class, or nothing explorable.
    Broken,
}

/// Runs `request`, telling `reporter` as it goes.
pub(crate) fn explore_session(
    request: &SessionRequest<'_>,
    reporter: &dyn SessionReporter,
) -> Result<SessionEnd, ExploreError> {
    let suite = request.suite;
    let (oracle, subject) = (request.oracle, request.subject);
    let call_timeout =
        Duration::from_millis(request.timeout_ms.unwrap_or(suite.config.call_timeout_ms));
    let listed = list_oracle_tools(oracle, call_timeout).map_err(|why| ExploreError::Oracle {
        suite: suite.name.clone(),
        why,
    })?;
    let source = explore_source(request, &listed)?;
    let mut data =
        explore_data_from_text(&source.path, &source.text, &listed, suite.config.settings())
            .map_err(ExploreError::ExploreFile)?;
    let not_drawn = data.keep_settings(|name| oracle.expresses(name) && subject.expresses(name));
    data.confining = suite
        .config
        .confinement
        .as_ref()
        .map(|c| c.when_settings.clone())
        .unwrap_or_default();
    let baseline = match request.baseline {
        Some(path) => Some(read_baseline(path)?),
        None => None,
    };
    if let Some(out) = request.out {
        free_folder(out, &suite.name).map_err(|e| ExploreError::Out(e.to_string()))?;
    }
    if let Some(into) = request.into {
        check_found_file(suite, &into.file).map_err(|e| ExploreError::Into(e.to_string()))?;
    }
    reporter.event(SessionEvent::Began(request))?;
    if source.derived {
        if request.write_explore_file {
            std::fs::write(&source.path, &source.text).map_err(|e| {
                ExploreError::WriteExploreFile {
                    path: source.path.clone(),
                    source: e,
                }
            })?;
        }
        reporter.event(SessionEvent::Derived {
            suite: &suite.name,
            text: &source.text,
            written: request.write_explore_file.then_some(source.path.as_path()),
        })?;
    }
    reporter.event(SessionEvent::Settings {
        request,
        drawn: &data.settings,
        not_drawn: &not_drawn,
    })?;
    let subject_lacks = if request.subject_is_oracle {
        Vec::new()
    } else {
        tools_the_subject_lacks(&data, subject, call_timeout).map_err(|why| {
            ExploreError::Subject {
                suite: suite.name.clone(),
                why,
            }
        })?
    };
    if !subject_lacks.is_empty() {
        let all = subject_lacks.len() == data.tools.len();
        reporter.event(SessionEvent::SubjectLacks {
            suite: &suite.name,
            lacks: &subject_lacks,
            all,
        })?;
        if all {
            return Ok(SessionEnd::Broken);
        }
    }
    let plan = ExplorePlan {
        sides: Sides {
            oracle,
            subject,
            convention: suite.config.convention,
            masks: &data.masks,
            tasks: data.tasks.as_ref(),
            call_timeout,
            subject_lacks: &subject_lacks,
            confinement: suite.config.confinement.as_ref(),
            known: baseline.as_ref().map(|b| b as &dyn KnownSignatures),
            same_program: request.subject_is_oracle,
        },
        data: &data,
        seed: request.seed,
        budget: request.budget,
        shard: request.shard,
        // Both sides the bundled server: four a core, as `run` runs it
        // (execute/schedule.rs).
        jobs: schedule::workers(request.jobs, request.both_bundled, 0, default_jobs()).count,
        watch: reporter,
        fail_fast: request.fail_fast,
    };
    let started = Instant::now();
    let explored = run_cases(&plan);
    let empty = Baseline::default();
    let mut classified = classify(&explored.kept, baseline.as_ref().unwrap_or(&empty));
    reporter.phase(&format!(
        "shrinking {} new signatures",
        classified.new_count()
    ));
    shrink_new(
        &mut classified,
        &plan.sides,
        request.shrink_budget,
        plan.jobs,
    );
    let elapsed = started.elapsed();
    let seen: BTreeSet<usize> = classified.classes.iter().filter_map(|c| c.known).collect();
    let rechecked = match &baseline {
        Some(baseline) => {
            reporter.phase("running the witnesses of the baseline's unseen classes again");
            recheck_unseen(&plan.sides, &data, baseline, &seen, plan.jobs)
        }
        None => Vec::new(),
    };
    let findings = Findings {
        request,
        settings_drawn: &data.settings,
        subject_lacks: &subject_lacks,
        explored: &explored,
        classified: &classified,
        tally: Tally::of(&explored, &subject_lacks),
        baseline: baseline.as_ref(),
        seen: &seen,
        rechecked: &rechecked,
        elapsed,
    };
    reporter.event(SessionEvent::Finished(&findings))?;
    if let Some(out) = request.out {
        let observed = observe_new(&plan.sides, &classified, request.seed);
        let written = write_suite(out, suite, &observed, oracle, Some(subject))
            .map_err(|e| ExploreError::Out(e.to_string()))?;
        reporter.event(SessionEvent::Wrote(&written))?;
    }
    if let Some(into) = request.into {
        let observed = observe_new(&plan.sides, &classified, request.seed);
        let proposed = propose_into(suite, &into.file, &observed, oracle, Some(subject))
            .map_err(|e| ExploreError::Into(e.to_string()))?;
        let kept = keep_proposed(suite, into, &proposed)?;
        reporter.event(SessionEvent::Proposed {
            suite: &suite.name,
            proposed: &proposed,
            kept: kept.then_some(into.proposal.as_path()),
        })?;
    }
    if let Some(path) = request.write_baseline {
        write_found_baseline(path, &classified, request.seed)?;
    }
    let held =
        classified.new_count() == 0 && findings.tally.failed == 0 && findings.stale_count() == 0;
    Ok(if held {
        SessionEnd::Held
    } else {
        SessionEnd::Broken
    })
}

/// The explore file a run reads: the suite's own, or, when it has none, one
/// derived from the oracle's tools/list (the same path, so errors name where it
/// would be kept).
struct ExploreSource {
    path: PathBuf,
    text: String,
    derived: bool,
}

/// The suite's explore file, or one derived from `listed` when it has none;
/// `--write-explore-file` is refused for a suite that has one.
fn explore_source(
    request: &SessionRequest<'_>,
    listed: &[ListedTool],
) -> Result<ExploreSource, ExploreError> {
    let suite = request.suite;
    let path = explore_file_path(suite);
    if !path.is_file() {
        return Ok(ExploreSource {
            text: derive_explore_text(&suite.name, listed),
            path,
            derived: true,
        });
    }
    if request.write_explore_file {
        return Err(ExploreError::ExploreFileExists {
            suite: suite.name.clone(),
            path,
        });
    }
    let text = read_text(&path).map_err(|e| ExploreError::ExploreFile(vec![e]))?;
    Ok(ExploreSource {
        path,
        text,
        derived: false,
    })
}

/// The explored tools the subject does not list in its tools/list (read back
/// in the suite's names through its renames). None when its tools/list cannot
/// be read: then every call is made, and a subject that breaks shows as a broken
/// divergence. A subject that does not start with its own settings (this is its
/// first start) would make every case `broken`: the run ends with why.
fn tools_the_subject_lacks(
    data: &ExploreData,
    subject: &Target,
    timeout: Duration,
) -> Result<Vec<String>, String> {
    let listed = match describe(subject, timeout) {
        Ok(described) => listed_in_suite_names(described.tools, subject),
        Err(PreflightError::Start(why)) => return Err(why),
        Err(_) => return Ok(Vec::new()),
    };
    Ok(data
        .tools
        .iter()
        .filter(|tool| !listed.iter().any(|l| l.name == tool.name))
        .map(|tool| tool.name.clone())
        .collect())
}

/// Each new class's case (as shrunk) run once more and described for the writer.
fn observe_new(sides: &Sides<'_>, classified: &Classified<'_>, seed: u64) -> Vec<Observed> {
    let Ok(runtime) = crate::server::runtime::thread_runtime() else {
        return Vec::new();
    };
    classified
        .classes
        .iter()
        .filter(|class| class.known.is_none())
        .filter_map(|class| {
            let (case, divergence, how) = match &class.shrunk {
                Some(s) => (&s.case, &s.divergence, "shrunk"),
                None => (class.first.0, class.first.1, "not shrunk"),
            };
            let id = class.signature.id();
            let key = id.rsplit('/').next().unwrap_or_default().to_string();
            let provenance = format!(
                "toolspec explore, seed {seed}, case {} ({how}), signature {id}",
                class.first.0.number
            );
            let mut case = case.clone();
            divergence.drop_later_calls(&mut case.calls);
            runtime
                .block_on(observe(sides, &case, divergence, key, provenance))
                .ok()
        })
        .collect()
}

/// `--into`'s scenarios kept as a pending proposal beside the suite (true), or
/// with `--write` written into the file (false); nothing when there is none.
fn keep_proposed(
    suite: &Suite,
    into: &FoundInto,
    proposed: &Proposed,
) -> Result<bool, ExploreError> {
    let Some(after) = &proposed.after else {
        return Ok(false);
    };
    let fail = |why: String| ExploreError::Into(why);
    let name = relative_to_suite(&suite.dir, &proposed.path)
        .ok_or_else(|| fail(format!("{} is outside the suite", proposed.path.display())))?;
    let pending = Pending {
        format: 1,
        made_by: "explore".into(),
        command: into.command.clone(),
        files: BTreeMap::from([(
            name,
            PendingFile {
                before: proposed.before.clone(),
                after: after.clone(),
            },
        )]),
    };
    if into.write {
        pending
            .apply(&suite.dir, &into.proposal)
            .map_err(|e| fail(e.to_string()))?;
        return Ok(false);
    }
    pending
        .save(&into.proposal)
        .map_err(|e| fail(e.to_string()))?;
    Ok(true)
}

/// Every class the run found written to `path` as a baseline (YAML with each
/// class's witness when the name ends in .yaml, else a signature a line).
fn write_found_baseline(
    path: &Path,
    classified: &Classified<'_>,
    seed: u64,
) -> Result<(), ReportFailed> {
    let found: Vec<FoundClass> = classified
        .classes
        .iter()
        .map(|c| FoundClass {
            id: c.signature.id(),
            oracle: c.signature.oracle.join(" / "),
            subject: c.signature.subject.join(" / "),
            witness: Witness {
                seed,
                case: c.first.0.number,
            },
        })
        .collect();
    let text = if is_yaml(path) {
        baseline_yaml(&found)
    } else {
        baseline_text(&found)
    };
    std::fs::write(path, text).map_err(|source| ReportFailed {
        path: path.to_path_buf(),
        source,
    })
}
