//! Blessing a run's failing scenarios, for `toolspec run --bless` and for the
//! `cargo test` runner's `TOOLSPEC_BLESS`: each failing scenario run a second
//! time in a fresh fixture, its failed expectations given what the server
//! answered (`author::two_answers` makes what differed between the two runs a
//! placeholder, and says so), and each file's change shown as a unified diff
//! (`diff`) or written (`write`), only the blessed values' bytes changed
//! (`in_place.rs`). It reads each report's standing (`execute::standing`): FLAKY
//! and KNOWN scenarios are not blessed. The runner and the command both call it;
//! `author::record` is its sibling for a scenario not yet written.

pub(crate) mod gathered;
pub(crate) mod in_place;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::author::two_answers::{merged, Unmergeable};
use crate::execute::standing::Standing;
use crate::execute::{run_scenario, RunOptions, ScenarioReport, Verdict};
use crate::judge::Mismatch;
use crate::scenario::{parse_yaml_str, Scenario, ScenarioFile, Suite, SuiteScenarioFile};
use crate::server::Target;
use in_place::{bless_file, blessable, BlessFileError, BlessedFile, Blessing};

/// `TOOLSPEC_BLESS` set to what is neither `diff` nor `write`.
#[derive(Debug, thiserror::Error)]
#[error("{BLESS_ENV}={value:?}: say `diff` or `write`")]
pub(crate) struct BlessEnvError {
    pub value: String,
}

/// Why one failed expectation is not blessed.
#[derive(Debug, thiserror::Error)]
enum NotBlessed {
    #[error("needs a person: it says what must or must not appear, not what the answer is")]
    NotBlessable,
    #[error(
        "needs a person: the answer cannot be written there (no value was read, or its text \
         holds what a template reads as a placeholder, such as `{{int}}` or `[..]`)"
    )]
    NoValue,
    #[error("not blessed: it held on a second run in a fresh fixture")]
    HeldAgain,
    #[error("not blessed: {0}")]
    Differs(#[source] Unmergeable),
}

/// Why one file's blessings were not written.
#[derive(Debug, thiserror::Error)]
enum FileNotBlessed {
    #[error("cannot read it: {0}")]
    Unreadable(#[source] std::io::Error),
    /// It changed on disk and no longer loads; the loader's error.
    #[error("it changed on disk since the run loaded it and no longer loads ({0})")]
    NoLongerLoads(#[source] crate::scenario::LoadError),
    #[error("it changed on disk since the run loaded it; nothing written, so no edit is lost (run again)")]
    Changed,
    #[error(transparent)]
    Edit(#[from] BlessFileError),
    /// The blessed text does not load in its suite; the first error.
    #[error("the blessed file would not load ({0}); nothing written")]
    WouldNotLoad(String),
    #[error("it changed on disk while it was being blessed; nothing written")]
    ChangedWhileBlessed,
    #[error("cannot write it: {0}")]
    Unwritable(#[source] std::io::Error),
}

/// What `--bless` does with what it would change.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BlessMode {
    /// Print each file's unified diff and write nothing (the default).
    Diff,
    /// Write the files.
    Write,
}

/// Why `--bless` is refused for the built-in suites `names`: those are the
/// project's own, built into the binary; exported, they are the user's to bless.
pub(crate) fn built_in_refusal(names: &[&str]) -> String {
    format!(
        "the built-in suite{} {} cannot be blessed; write {} out with `toolspec suites export DIR` \
         and bless the copy with `--specs DIR --suite NAME`",
        if names.len() == 1 { "" } else { "s" },
        names.join(", "),
        if names.len() == 1 { "it" } else { "them" },
    )
}

/// `TOOLSPEC_BLESS`: `diff` or `write` makes the `cargo test` runner bless.
pub const BLESS_ENV: &str = "TOOLSPEC_BLESS";

impl BlessMode {
    /// The mode `TOOLSPEC_BLESS` names: None when unset or empty, an error for a
    /// value that is neither `diff` nor `write`.
    pub(crate) fn from_env() -> Result<Option<BlessMode>, BlessEnvError> {
        match std::env::var(BLESS_ENV) {
            Ok(v) if v == "diff" => Ok(Some(BlessMode::Diff)),
            Ok(v) if v == "write" => Ok(Some(BlessMode::Write)),
            Ok(v) if v.is_empty() => Ok(None),
            Ok(value) => Err(BlessEnvError { value }),
            Err(_) => Ok(None),
        }
    }
}

/// A failing scenario to bless, and where to run it again.
pub(crate) struct FailedScenario<'a> {
    pub suite: &'a Suite,
    pub file: &'a SuiteScenarioFile,
    pub scenario: &'a Scenario,
    pub target: &'a Target,
    pub listed: Option<&'a BTreeSet<String>>,
    /// Its mismatches that the baseline does not excuse.
    pub mismatches: Vec<Mismatch>,
}

/// The mismatches to bless of a report: those of a FAIL the baseline does not
/// excuse; None for any other standing (a FLAKY or KNOWN scenario is not
/// blessed, and an ERROR has no answer to bless).
pub(crate) fn to_bless(report: &ScenarioReport) -> Option<Vec<Mismatch>> {
    match (&report.verdict, Standing::of(report)) {
        (Verdict::Fail(mismatches), Standing::Failed) => Some(
            mismatches
                .iter()
                .filter(|m| !report.excuse.covers(m))
                .cloned()
                .collect(),
        ),
        _ => None,
    }
}

/// Blesses `failed`: each scenario run once more, the values of both runs
/// merged, each file's change shown (and with `Write` written). Every line for
/// a person goes to `say`: the diffs, the placeholders made, what needs a person
/// and what was not blessed (`others`: scenarios that broke the run otherwise),
/// then a count. True when every failure was blessed and written and nothing
/// else broke the run.
pub(crate) fn bless(
    failed: &[FailedScenario<'_>],
    others: &[String],
    options: &RunOptions,
    mode: BlessMode,
    say: &mut dyn FnMut(&str),
) -> bool {
    let once = RunOptions {
        repeat: 1,
        ..options.clone()
    };
    let mut files: BTreeMap<PathBuf, FilePlan<'_>> = BTreeMap::new();
    let mut needs_a_person: Vec<String> = Vec::new();
    let mut loosened: Vec<String> = Vec::new();
    for one in failed {
        let id = one.suite.scenario_id(one.file, one.scenario);
        let Some(place) = one
            .file
            .content
            .scenarios
            .iter()
            .position(|s| std::ptr::eq(s, one.scenario))
        else {
            continue;
        };
        let second = run_scenario(
            one.suite,
            &one.file.stem,
            one.scenario,
            one.target,
            &once,
            one.listed,
        );
        let second = match second.verdict {
            Verdict::Fail(mismatches) => mismatches,
            other => {
                needs_a_person.push(format!(
                    "{id}: not blessed: a second run in a fresh fixture came to {}, so its answer \
                     changes from run to run",
                    other.headline()
                ));
                continue;
            }
        };
        let plan = files.entry(one.file.path.clone()).or_insert(FilePlan {
            suite: one.suite,
            loaded: &one.file.content,
            blessings: Vec::new(),
            ids: Vec::new(),
        });
        for mismatch in &one.mismatches {
            match blessing_of(mismatch, &second, place) {
                Ok((blessing, made)) => {
                    loosened.extend(
                        made.iter()
                            .map(|l| format!("{id}: `{}`: {l}", mismatch.expectation)),
                    );
                    plan.blessings.push(blessing);
                    plan.ids.push(id.clone());
                }
                Err(why) => needs_a_person.push(format!("{id}: `{}` {why}", mismatch.expectation)),
            }
        }
    }
    let mut changed = 0;
    let mut scenarios = BTreeSet::new();
    let mut changed_files = 0;
    for (path, plan) in &files {
        if plan.blessings.is_empty() {
            continue;
        }
        match bless_one_file(path, plan, mode, say) {
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
        say(&format!("placeholder: {line}"));
    }
    for line in &needs_a_person {
        say(&format!("needs a person: {line}"));
    }
    for line in others {
        say(&format!("not blessed: {line}"));
    }
    let counts = format!(
        "{changed} expectation{} in {} scenario{} of {changed_files} file{}",
        plural(changed),
        scenarios.len(),
        plural(scenarios.len()),
        plural(changed_files)
    );
    say(&match mode {
        BlessMode::Diff => format!(
            "bless: {counts} would change; nothing written (review the diff, then --bless=write, \
             or accept each with `toolspec review`)"
        ),
        BlessMode::Write => format!("bless: {counts} changed and written"),
    });
    mode == BlessMode::Write && needs_a_person.is_empty() && others.is_empty()
}

/// The blessing of one failed expectation from its two runs' values, with the
/// placeholders made; or why it is not blessed.
fn blessing_of(
    mismatch: &Mismatch,
    second: &[Mismatch],
    place: usize,
) -> Result<(Blessing, Vec<String>), NotBlessed> {
    let key = &mismatch.key;
    if !blessable(key) {
        return Err(NotBlessed::NotBlessable);
    }
    let value = mismatch.blessed.as_ref().ok_or(NotBlessed::NoValue)?;
    let again = second
        .iter()
        .find(|m| m.key == *key)
        .and_then(|m| m.blessed.as_ref())
        .ok_or(NotBlessed::HeldAgain)?;
    let template = !matches!(key.as_str(), "code" | "is_error");
    let merged = merged(value, again, template).map_err(NotBlessed::Differs)?;
    Ok((
        Blessing {
            scenario: place,
            key: key.clone(),
            value: merged.value,
        },
        merged.loosened,
    ))
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
    say: &mut dyn FnMut(&str),
) -> Result<BlessedFile, FileNotBlessed> {
    let source = std::fs::read_to_string(path).map_err(FileNotBlessed::Unreadable)?;
    let now: ScenarioFile = parse_yaml_str(path, &source).map_err(FileNotBlessed::NoLongerLoads)?;
    if format!("{now:?}") != format!("{:?}", plan.loaded) {
        return Err(FileNotBlessed::Changed);
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
        FileNotBlessed::WouldNotLoad(errors.first().map(ToString::to_string).unwrap_or_default())
    })?;
    for line in file_diff(Some(&source), &done.text, path).lines() {
        say(line);
    }
    if mode == BlessMode::Diff {
        keep_pending(plan.suite, path, &source, &done.text, say);
    }
    if mode == BlessMode::Write {
        let again = std::fs::read_to_string(path).map_err(FileNotBlessed::Unreadable)?;
        if again != source {
            return Err(FileNotBlessed::ChangedWhileBlessed);
        }
        write_in_place(path, &done.text).map_err(FileNotBlessed::Unwritable)?;
    }
    Ok(done)
}

/// A file's blessing shown and not written, kept as a pending proposal beside
/// its suite (one per file, replacing the last one for it), for `toolspec
/// review` to accept or reject; a proposal that cannot be kept is said, since
/// the diff was shown anyway.
fn keep_pending(suite: &Suite, path: &Path, before: &str, after: &str, say: &mut dyn FnMut(&str)) {
    use crate::author::pending::{pending_path, relative_to_suite, Pending, PendingFile};
    let Some(name) = relative_to_suite(&suite.dir, path) else {
        return;
    };
    let proposal = pending_path(&suite.dir, "bless", std::slice::from_ref(&name));
    let pending = Pending {
        format: 1,
        made_by: "bless".into(),
        command: std::env::args().skip(1).collect(),
        files: BTreeMap::from([(
            name,
            PendingFile {
                before: Some(before.to_string()),
                after: after.to_string(),
            },
        )]),
    };
    if let Err(why) = pending.save(&proposal) {
        say(&format!(
            "note: the blessing of {} is not kept for review: {why}",
            path.display()
        ));
    }
}

/// The unified diff that turns `before` into `after` in the file at `path`, as
/// review shows it before anything is written; a file made new (`before` none)
/// comes from `/dev/null`.
pub(crate) fn file_diff(before: Option<&str>, after: &str, path: &Path) -> String {
    let shown = path.display().to_string();
    let from = if before.is_some() {
        shown.as_str()
    } else {
        "/dev/null"
    };
    similar::TextDiff::from_lines(before.unwrap_or_default(), after)
        .unified_diff()
        .context_radius(3)
        .header(from, &shown)
        .to_string()
}

/// Writes `text` to `path` whole or not at all: a temporary file in the same
/// folder, given the file's permissions, renamed over it.
pub(crate) fn write_in_place(path: &Path, text: &str) -> std::io::Result<()> {
    use std::io::Write as _;
    let folder = path.parent().unwrap_or(Path::new("."));
    let mut temporary = tempfile::NamedTempFile::new_in(folder)?;
    temporary.write_all(text.as_bytes())?;
    if let Ok(metadata) = std::fs::metadata(path) {
        temporary
            .as_file()
            .set_permissions(metadata.permissions())?;
    }
    temporary.persist(path).map_err(|e| e.error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const FILE: &str = "requirement: R\nscenarios:\n  - name: one\n    covers: upstream/x\n    basis: upstream\n    note: n\n    when: { tool: view, args: { path: \"{root}/a\" } }\n    then:\n      code: 'OLD'   # kept\n";

    /// A suite `mine` in a temporary folder, its one scenario file `FILE`.
    fn suite() -> (tempfile::TempDir, Suite) {
        let dir = tempfile::tempdir().expect("temporary folder");
        let folder = dir.path().join("mine");
        std::fs::create_dir(&folder).expect("suite folder");
        let config = std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("specs/boris/suite.yaml"),
        )
        .expect("boris suite.yaml")
        .replace("suite: boris ", "suite: mine ");
        std::fs::write(folder.join("suite.yaml"), config).expect("suite.yaml");
        std::fs::write(folder.join("own.yaml"), FILE).expect("own.yaml");
        let suite = crate::scenario::load_suite(&folder).expect("loads");
        (dir, suite)
    }

    fn plan(suite: &Suite) -> FilePlan<'_> {
        FilePlan {
            suite,
            loaded: &suite.files[0].content,
            blessings: vec![Blessing {
                scenario: 0,
                key: "code".into(),
                value: json!("NEW"),
            }],
            ids: vec!["mine::own::one".into()],
        }
    }

    #[test]
    fn a_file_is_written_in_place_unless_it_changed_on_disk_since_it_was_loaded() {
        let (_dir, suite) = suite();
        let path = suite.files[0].path.clone();
        let mut said = Vec::new();
        let done = bless_one_file(&path, &plan(&suite), BlessMode::Diff, &mut |l| {
            said.push(l.to_string())
        })
        .expect("blessed");
        assert_eq!(done.written, vec![0]);
        assert!(
            said.contains(&"-      code: 'OLD'   # kept".to_string()),
            "{said:?}"
        );
        assert!(
            said.contains(&"+      code: 'NEW'   # kept".to_string()),
            "{said:?}"
        );
        assert_eq!(
            std::fs::read_to_string(&path).expect("file"),
            FILE,
            "diff wrote"
        );

        bless_one_file(&path, &plan(&suite), BlessMode::Write, &mut |_| {}).expect("written");
        assert_eq!(
            std::fs::read_to_string(&path).expect("file"),
            FILE.replace("'OLD'", "'NEW'")
        );

        // Changed since the suite was loaded (here: by the write above): refused,
        // and the file stays as it is on disk.
        let edited = FILE.replace("'OLD'", "'MINE'");
        std::fs::write(&path, &edited).expect("an edit of one's own");
        let why = bless_one_file(&path, &plan(&suite), BlessMode::Write, &mut |_| {})
            .expect_err("refused")
            .to_string();
        assert!(
            why.contains("changed on disk since the run loaded it"),
            "{why}"
        );
        assert_eq!(std::fs::read_to_string(&path).expect("file"), edited);
    }
}
