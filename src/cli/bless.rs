//! `run --bless`: the failing scenarios of a run, each run a second time in a
//! fresh fixture, their failed expectations given what the server answered
//! (`author::two_answers` makes what differed between the two runs a
//! placeholder), and each file's change shown as a unified diff (`--bless`,
//! `--bless=diff`) or written (`--bless=write`), only the blessed values' bytes
//! changed (`author::bless`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::catalogue::{Catalogue, Origin};
use super::error::CliError;
use super::output::say;
use super::Outcome;
use crate::author::bless::{bless_file, blessable, Blessing};
use crate::author::two_answers::merged;
use crate::execute::parallel::Planned;
use crate::execute::{run_scenario, RunOptions, ScenarioReport, Verdict};
use crate::judge::Mismatch;
use crate::report::Standing;
use crate::scenario::{parse_yaml_str, ScenarioFile, Suite};

/// What `--bless` does with what it would change.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BlessMode {
    /// Print each file's unified diff and write nothing (the default).
    Diff,
    /// Write the files.
    Write,
}

/// `--bless` on a built-in suite is refused: those are the project's own, and
/// built into the binary; exported, they are the user's to bless.
pub(crate) fn refuse_built_in(catalogue: &Catalogue, suites: &[Suite]) -> Result<(), CliError> {
    let built_in: Vec<&str> = suites
        .iter()
        .filter(|s| catalogue.origin(&s.name) == Some(&Origin::BuiltIn))
        .map(|s| s.name.as_str())
        .collect();
    if built_in.is_empty() {
        return Ok(());
    }
    Err(CliError::Bless(format!(
        "the built-in suite{} {} cannot be blessed; write {} out with `toolspec suites export DIR` \
         and bless the copy with `--specs DIR --suite NAME`",
        if built_in.len() == 1 { "" } else { "s" },
        built_in.join(", "),
        if built_in.len() == 1 { "it" } else { "them" },
    )))
}

/// The run's failing scenarios, gathered as their reports are handed on.
pub(crate) struct Collector {
    mode: BlessMode,
    failed: Vec<(usize, Vec<Mismatch>)>,
    /// Scenarios that broke the run and are not blessed (ERROR, FLAKY, ...).
    others: Vec<String>,
}

impl Collector {
    pub(crate) fn new(mode: BlessMode) -> Collector {
        Collector {
            mode,
            failed: Vec::new(),
            others: Vec::new(),
        }
    }

    /// Keeps the report of the scenario at `index` of the run's work if it failed
    /// (its mismatches the baseline does not excuse); a FLAKY or KNOWN one is not
    /// blessed, and an ERROR has no answer to bless.
    pub(crate) fn consider(&mut self, index: usize, report: &ScenarioReport) {
        let standing = Standing::of(report);
        match (&report.verdict, standing) {
            (Verdict::Fail(mismatches), Standing::Failed) => {
                let open: Vec<Mismatch> = mismatches
                    .iter()
                    .filter(|m| !report.excuse.covers(m))
                    .cloned()
                    .collect();
                self.failed.push((index, open));
            }
            (_, standing) if standing.breaks_the_run() => {
                self.others
                    .push(format!("{} ({})", report.id, report.verdict.label()))
            }
            _ => {}
        }
    }

    /// Blesses what was gathered: each failing scenario run once more, the values
    /// of both runs merged, each file's change shown or written. Held when every
    /// failure was blessed and written and nothing else broke the run.
    pub(crate) fn finish(
        self,
        work: &[Planned<'_>],
        options: &RunOptions,
    ) -> Result<Outcome, CliError> {
        let once = RunOptions {
            repeat: 1,
            ..options.clone()
        };
        let mut files: BTreeMap<PathBuf, FilePlan<'_>> = BTreeMap::new();
        let mut needs_a_person: Vec<String> = Vec::new();
        let mut loosened: Vec<String> = Vec::new();
        for (index, first) in &self.failed {
            let Some(planned) = work.get(*index) else {
                continue;
            };
            let id = planned.suite.scenario_id(planned.file, planned.scenario);
            let Some(place) = planned
                .file
                .content
                .scenarios
                .iter()
                .position(|s| std::ptr::eq(s, planned.scenario))
            else {
                continue;
            };
            let second = run_scenario(
                planned.suite,
                &planned.file.stem,
                planned.scenario,
                planned.target,
                &once,
                planned.listed,
            );
            let second = match second.verdict {
                Verdict::Fail(mismatches) => mismatches,
                other => {
                    needs_a_person.push(format!(
                        "{id}: not blessed: a second run in a fresh fixture came to {}, so its answer changes from run to run",
                        other.headline()
                    ));
                    continue;
                }
            };
            let plan = files.entry(planned.file.path.clone()).or_insert(FilePlan {
                suite: planned.suite,
                loaded: &planned.file.content,
                blessings: Vec::new(),
                ids: Vec::new(),
            });
            for mismatch in first {
                let key = &mismatch.key;
                let value = match (&mismatch.blessed, blessable(key)) {
                    (Some(value), true) => value,
                    _ => {
                        needs_a_person.push(format!(
                            "{id}: `{}` needs a person: {}",
                            mismatch.expectation,
                            if blessable(key) {
                                "the answer has no value to write there"
                            } else {
                                "it says what must or must not appear, not what the answer is"
                            }
                        ));
                        continue;
                    }
                };
                let Some(again) = second
                    .iter()
                    .find(|m| m.key == *key)
                    .and_then(|m| m.blessed.as_ref())
                else {
                    needs_a_person.push(format!(
                        "{id}: `{}` not blessed: it held on a second run in a fresh fixture",
                        mismatch.expectation
                    ));
                    continue;
                };
                let template = !matches!(key.as_str(), "code" | "is_error");
                match merged(value, again, template) {
                    Ok(merged) => {
                        loosened.extend(
                            merged
                                .loosened
                                .iter()
                                .map(|l| format!("{id}: `{}`: {l}", mismatch.expectation)),
                        );
                        plan.blessings.push(Blessing {
                            scenario: place,
                            key: key.clone(),
                            value: merged.value,
                        });
                        plan.ids.push(id.clone());
                    }
                    Err(why) => needs_a_person.push(format!(
                        "{id}: `{}` not blessed: {why}",
                        mismatch.expectation
                    )),
                }
            }
        }
        let mut changed = 0;
        let mut scenarios = std::collections::BTreeSet::new();
        let mut changed_files = 0;
        for (path, plan) in &files {
            if plan.blessings.is_empty() {
                continue;
            }
            match bless_one_file(path, plan, self.mode) {
                Ok(written) => {
                    for (index, why) in &written.refused {
                        needs_a_person.push(format!(
                            "{}: `{}` not blessed: {why}",
                            plan.ids[*index], plan.blessings[*index].key
                        ));
                    }
                    if !written.written.is_empty() {
                        changed_files += 1;
                    }
                    for index in &written.written {
                        changed += 1;
                        scenarios.insert(plan.ids[*index].clone());
                    }
                }
                Err(why) => needs_a_person.push(format!("{}: not blessed: {why}", path.display())),
            }
        }
        for line in &loosened {
            say(format!("placeholder: {line}"));
        }
        for line in &needs_a_person {
            say(format!("needs a person: {line}"));
        }
        for line in &self.others {
            say(format!("not blessed: {line}"));
        }
        let counts = format!(
            "{changed} expectation{} in {} scenario{} of {changed_files} file{}",
            plural(changed),
            scenarios.len(),
            plural(scenarios.len()),
            plural(changed_files)
        );
        match self.mode {
            BlessMode::Diff => say(format!(
                "bless: {counts} would change; nothing written (review the diff, then --bless=write)"
            )),
            BlessMode::Write => say(format!("bless: {counts} changed and written")),
        }
        let all_done = needs_a_person.is_empty() && self.others.is_empty();
        Ok(if self.mode == BlessMode::Write && all_done {
            Outcome::Held
        } else {
            Outcome::Broken
        })
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// The blessings of one file.
struct FilePlan<'a> {
    suite: &'a Suite,
    /// The file as the run loaded it.
    loaded: &'a ScenarioFile,
    blessings: Vec<Blessing>,
    /// The scenario id of each blessing.
    ids: Vec<String>,
}

/// One file blessed: refused if it changed on disk since the run loaded it, its
/// diff printed, and with `Write` written in place of the old (a temporary file
/// beside it renamed over it, its permissions kept).
fn bless_one_file(
    path: &Path,
    plan: &FilePlan<'_>,
    mode: BlessMode,
) -> Result<crate::author::bless::BlessedFile, String> {
    let source = std::fs::read_to_string(path).map_err(|e| format!("cannot read it: {e}"))?;
    let now: ScenarioFile = parse_yaml_str(path, &source).map_err(|e| {
        format!("it changed on disk since the run loaded it and no longer loads ({e})")
    })?;
    if format!("{now:?}") != format!("{:?}", plan.loaded) {
        return Err(
            "it changed on disk since the run loaded it; nothing written, so no edit is lost (run again)"
                .into(),
        );
    }
    let done = bless_file(&source, &plan.blessings)?;
    if done.written.is_empty() {
        return Ok(done);
    }
    crate::scenario::scenario_file_from_text(
        &plan.suite.config,
        &plan.suite.fixtures_dir,
        path,
        &done.text,
    )
    .map_err(|errors| {
        let first = errors.first().map(ToString::to_string).unwrap_or_default();
        format!("the blessed file would not load ({first}); nothing written")
    })?;
    let shown = path.display().to_string();
    let diff = similar::TextDiff::from_lines(&source, &done.text)
        .unified_diff()
        .context_radius(3)
        .header(&shown, &shown)
        .to_string();
    for line in diff.lines() {
        say(line);
    }
    if mode == BlessMode::Write {
        let again = std::fs::read_to_string(path).map_err(|e| format!("cannot read it: {e}"))?;
        if again != source {
            return Err("it changed on disk while it was being blessed; nothing written".into());
        }
        write_in_place(path, &done.text).map_err(|e| format!("cannot write it: {e}"))?;
    }
    Ok(done)
}

/// Writes `text` to `path` whole or not at all: a temporary file in the same
/// folder, given the file's permissions, renamed over it.
fn write_in_place(path: &Path, text: &str) -> std::io::Result<()> {
    use std::io::Write as _;
    let folder = path.parent().unwrap_or(Path::new("."));
    let mut temporary = tempfile::NamedTempFile::new_in(folder)?;
    temporary.write_all(text.as_bytes())?;
    let permissions = std::fs::metadata(path)?.permissions();
    temporary.as_file().set_permissions(permissions)?;
    temporary.persist(path).map_err(|e| e.error)?;
    Ok(())
}
