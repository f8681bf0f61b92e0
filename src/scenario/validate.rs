//! Checks a parsed scenario file for mistakes the YAML shape cannot express, so that
//! a scenario that could never fail, or could never run, is refused before any server
//! starts.

use std::collections::BTreeSet;
use std::path::{Component, Path};

use super::load::{find_line, LoadError};
use super::model::{FileDetail, FileExpect, FileSpec, Scenario, ScenarioFile, SuiteFile, Then};
use crate::dialect::Dialect;

/// Every problem in `file`, each with the line of the scenario it belongs to.
pub(crate) fn validate_file(
    suite: &SuiteFile,
    file: &ScenarioFile,
    path: &Path,
    source: &str,
) -> Vec<LoadError> {
    let mut errors = Vec::new();
    if file.scenarios.is_empty() {
        errors.push(LoadError::new(
            path,
            find_line(source, "scenarios:"),
            "`scenarios` is empty: add at least one scenario or delete the file",
        ));
    }
    let mut names = BTreeSet::new();
    for scenario in &file.scenarios {
        let line = find_line(source, &format!("name: {}", scenario.name))
            .or_else(|| find_line(source, &scenario.name));
        let mut fail = |message: String| {
            errors.push(LoadError::new(
                path,
                line,
                format!("scenario `{}`: {message}", scenario.name),
            ))
        };
        if scenario.name.trim().is_empty() {
            fail("`name` is empty".into());
        }
        if !names.insert(scenario.name.clone()) {
            fail("another scenario in this file has the same name; names must be unique".into());
        }
        if scenario.covers.trim().is_empty() {
            fail("`covers` is empty: name the spec clause this scenario checks".into());
        }
        for message in scenario_problems(suite, scenario) {
            fail(message);
        }
    }
    errors
}

fn scenario_problems(suite: &SuiteFile, scenario: &Scenario) -> Vec<String> {
    let mut problems = Vec::new();
    for (name, spec) in &scenario.given.files {
        if let Err(p) = check_relative(name) {
            problems.push(format!("given.files `{name}`: {p}"));
        }
        if let FileSpec::Detailed(detail) = spec {
            if let Err(p) = check_file_detail(detail) {
                problems.push(format!("given.files `{name}`: {p}"));
            }
        }
    }
    for key in scenario.given.settings.keys() {
        if !suite.reference.settings.contains_key(key) {
            let known: Vec<&str> = suite
                .reference
                .settings
                .keys()
                .map(String::as_str)
                .collect();
            problems.push(format!(
                "given.settings `{key}` is not a setting of this suite; known: {}",
                known.join(", ")
            ));
        }
    }
    for call in &scenario.given.calls {
        if call.repeat == 0 {
            problems.push(format!(
                "given.calls `{}`: `repeat` must be at least 1",
                call.tool
            ));
        }
    }
    for call in &scenario.when.0 {
        if call.repeat != 1 {
            problems.push(format!(
                "when `{}`: `repeat` is for set-up calls only; list the calls instead",
                call.tool
            ));
        }
    }
    problems.extend(then_problems(suite, scenario, &scenario.then));
    problems
}

fn then_problems(suite: &SuiteFile, scenario: &Scenario, then: &Then) -> Vec<String> {
    let mut problems = Vec::new();
    if !then.judges_the_result() && then.files.is_empty() {
        problems.push(
            "`then` checks nothing: add is_error, code, text, contains, matches or files".into(),
        );
    }
    if then.code.is_some() && !Dialect::new(suite.dialect).has_codes() {
        problems.push(format!(
            "`then.code` cannot be read in dialect {:?}: use text or contains",
            suite.dialect
        ));
    }
    for pattern in &then.matches {
        if let Err(e) = regex::Regex::new(pattern) {
            problems.push(format!(
                "then.matches `{pattern}` is not a valid regex: {e}"
            ));
        }
    }
    for (name, expect) in &then.files {
        if let Err(p) = check_relative(name) {
            problems.push(format!("then.files `{name}`: {p}"));
        }
        let FileExpect::Detailed(d) = expect else {
            continue;
        };
        let kinds = [
            d.absent,
            d.unchanged,
            d.text.is_some(),
            !d.contains.is_empty(),
        ];
        if kinds.iter().filter(|k| **k).count() == 0 {
            problems.push(format!(
                "then.files `{name}`: say one of absent, unchanged, text or contains"
            ));
        }
        if d.absent && kinds.iter().filter(|k| **k).count() > 1 {
            problems.push(format!("then.files `{name}`: `absent` cannot be combined"));
        }
        if d.unchanged {
            let is_content = matches!(
                scenario.given.files.get(name.as_str()),
                Some(FileSpec::Text(_))
                    | Some(FileSpec::Detailed(FileDetail {
                        symlink: None,
                        dir: false,
                        ..
                    }))
            );
            if !is_content {
                problems.push(format!(
                    "then.files `{name}`: `unchanged` needs `{name}` to be a file in given.files"
                ));
            }
        }
    }
    problems
}

fn check_relative(name: &str) -> Result<(), String> {
    let path = Path::new(name.trim_end_matches('/'));
    if name.is_empty() || path.is_absolute() {
        return Err("paths are relative to the fixture root".into());
    }
    if path
        .components()
        .any(|c| !matches!(c, Component::Normal(_)))
    {
        return Err("paths may not contain `..` or `.`; fixtures stay inside the root".into());
    }
    Ok(())
}

fn check_file_detail(d: &FileDetail) -> Result<(), String> {
    let kinds = [
        d.text.is_some(),
        d.bytes.is_some(),
        d.size.is_some(),
        d.dir,
        d.symlink.is_some(),
    ];
    if kinds.iter().filter(|k| **k).count() != 1 {
        return Err("give exactly one of text, bytes, size, dir, symlink".into());
    }
    if d.fill.is_some() && d.size.is_none() {
        return Err("`fill` goes with `size`".into());
    }
    if d.fill.as_deref() == Some("") {
        return Err("`fill` must not be empty".into());
    }
    if let Some(bytes) = &d.bytes {
        crate::fixture::decode_hex(bytes)?;
    }
    if let Some(mode) = &d.mode {
        crate::fixture::parse_mode(mode)?;
    }
    Ok(())
}
