//! `explore --into FILE`: the scenarios of a run's new divergences proposed into
//! one file of the explored suite itself, `<suite>/<FILE>.yaml`, added at its end
//! as `record` adds (`append.rs`) or made new. Each is checked as `--out`'s are
//! (three passes on the oracle, a failure on the subject, `round_trip.rs`), here
//! in the explored suite, and the whole file must load. A case whose signature a
//! scenario of the suite already names (`(explored <hash>)`, an earlier run's,
//! accepted) is left out, so proposing twice does not add it twice. The text is
//! returned, not written: the command keeps it as a pending proposal for
//! `toolspec review`, or writes it at once (`--write`).

use std::path::PathBuf;

use serde_json::json;

use super::append::{appended, AppendError};
use super::scenario_text::yaml_value;
use super::{checked_draft, Observed};
use crate::scenario::{scenario_file_from_text, LoadError, Suite};
use crate::server::Target;

/// The requirement of a file `--into` makes.
const REQUIREMENT: &str = "Found by toolspec explore";

/// What `--into` proposes: the file's text now and with the scenarios added.
#[derive(Debug, Default)]
pub(crate) struct Proposed {
    pub path: PathBuf,
    /// None: the file does not exist yet.
    pub before: Option<String>,
    /// None: no scenario to add, so nothing is proposed.
    pub after: Option<String>,
    /// How many scenarios are added.
    pub scenarios: usize,
    /// Each scenario (or whole case) not kept: its key and why.
    pub dropped: Vec<(String, String)>,
    /// The signatures left out as the suite already has a scenario of them.
    pub known: Vec<String>,
}

/// Why the scenarios cannot be proposed into the file.
#[derive(Debug, thiserror::Error)]
pub(crate) enum FoundFileError {
    #[error("`{0}` is no file name of the suite's folder: give one without `.yaml`, `/` or a leading `.`, other than suite, clauses and explore")]
    BadName(String),
    #[error("cannot read {}: {source}", .path.display())]
    Unreadable {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot add the found scenarios to {}: {source}", .path.display())]
    Append {
        path: PathBuf,
        #[source]
        source: AppendError,
    },
    #[error("{} with the found scenarios added would not load: {}", .path.display(), LoadError::one_a_line(.errors))]
    WouldNotLoad {
        path: PathBuf,
        errors: Vec<LoadError>,
    },
}

/// The file `into` names in `suite`'s folder, or why it cannot be one.
fn found_file_path(suite: &Suite, into: &str) -> Result<PathBuf, FoundFileError> {
    let bad = into.is_empty()
        || into.starts_with('.')
        || into.ends_with(".yaml")
        || into.contains(['/', '\\'])
        || ["suite", "clauses", "explore"].contains(&into);
    match bad {
        true => Err(FoundFileError::BadName(into.to_string())),
        false => Ok(suite.dir.join(format!("{into}.yaml"))),
    }
}

/// The file's text now (None: there is none yet).
fn read_found_file(path: &std::path::Path) -> Result<Option<String>, FoundFileError> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(FoundFileError::Unreadable {
            path: path.to_path_buf(),
            source,
        }),
    }
}

/// Whether `into` names a file of `suite` that scenarios can be added to the end
/// of (or none yet), asked before any case runs so a run is not spent on what
/// cannot be proposed.
pub(crate) fn check_found_file(suite: &Suite, into: &str) -> Result<(), FoundFileError> {
    let path = found_file_path(suite, into)?;
    if let Some(text) = read_found_file(&path)? {
        let probe = "  - name: probe\n";
        appended(Some(&text), "", probe)
            .map_err(|source| FoundFileError::Append { path, source })?;
    }
    Ok(())
}

/// The scenarios of `observed` that hold (round trip in `suite` against
/// `oracle` and `subject`), added to the end of `suite`'s file `into`.
pub(crate) fn propose_into(
    suite: &Suite,
    into: &str,
    observed: &[Observed],
    oracle: &Target,
    subject: Option<&Target>,
) -> Result<Proposed, FoundFileError> {
    let path = found_file_path(suite, into)?;
    let before = read_found_file(&path)?;
    let mut proposed = Proposed {
        path: path.clone(),
        before: before.clone(),
        ..Proposed::default()
    };
    let mut after = before;
    for case in observed {
        if suite_names(suite, &case.key) {
            proposed.known.push(case.key.clone());
            continue;
        }
        let Some(draft) = checked_draft(case, suite, suite, oracle, subject, &mut proposed.dropped)
        else {
            continue;
        };
        // Without the blank line after the last scenario: `appended` puts one
        // between scenarios itself.
        let item = format!("{}\n", draft.items.trim_end_matches('\n'));
        let text = appended(after.as_deref(), &yaml_value(&json!(REQUIREMENT)), &item).map_err(
            |source| FoundFileError::Append {
                path: path.clone(),
                source,
            },
        )?;
        after = Some(text);
        proposed.scenarios += draft.scenarios;
    }
    if proposed.scenarios == 0 {
        return Ok(proposed);
    }
    if let Some(text) = &after {
        scenario_file_from_text(&suite.config, &suite.fixtures_dir, &path, text).map_err(
            |errors| FoundFileError::WouldNotLoad {
                path: path.clone(),
                errors,
            },
        )?;
    }
    proposed.after = after;
    Ok(proposed)
}

/// Whether a scenario of `suite` was written from the signature `key`.
fn suite_names(suite: &Suite, key: &str) -> bool {
    let marker = format!("(explored {key})");
    suite.files.iter().any(|file| {
        file.content
            .scenarios
            .iter()
            .any(|s| s.name.contains(&marker))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_scenarios_cannot_be_added_to_the_end_of_is_refused_before_any_case() {
        let dir = tempfile::tempdir().expect("a folder");
        let folder = dir.path().join("specs/boris");
        std::fs::create_dir_all(&folder).expect("suite folder");
        let suite_yaml = include_str!("../../tests/data/explore/into/specs/boris/suite.yaml");
        std::fs::write(folder.join("suite.yaml"), suite_yaml).expect("suite.yaml");
        let suite = crate::scenario::load_suite(&folder).expect("the suite loads");
        assert!(check_found_file(&suite, "found").is_ok(), "none yet");
        for bad in ["x/y", "found.yaml", "suite", ".hidden", ""] {
            let why = check_found_file(&suite, bad).expect_err(bad).to_string();
            assert!(why.contains("is no file name"), "{why}");
        }
        std::fs::write(
            folder.join("found.yaml"),
            "requirement: R\nscenarios:\n  - name: a\nnote: after\n",
        )
        .expect("a file");
        let why = check_found_file(&suite, "found")
            .expect_err("keys after the list")
            .to_string();
        assert!(why.contains("not the file's last key"), "{why}");
    }
}
