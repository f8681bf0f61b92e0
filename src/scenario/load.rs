//! Reading a suite folder into typed scenarios.
//!
//! YAML is parsed with serde-saphyr in strict mode: duplicate keys are refused and
//! only `true`/`false` are booleans, so `on`, `yes` or a repeated `code:` can never
//! slip through as something the author did not mean.

use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;

use super::error::{find_line, LoadError};
use super::model::{Scenario, ScenarioFile, SuiteFile};
use super::validate::{id_part_problem, validate_file};

/// A loaded suite: its settings and every scenario file in it, sorted by file name.
#[derive(Debug, Clone)]
pub struct Suite {
    /// The folder name, which `suite.yaml` repeats.
    pub(crate) name: String,
    pub(crate) dir: PathBuf,
    /// Where `given.tree` names are looked up: `fixtures/` beside the specs folder.
    pub(crate) fixtures_dir: PathBuf,
    pub(crate) config: SuiteFile,
    pub(crate) files: Vec<SuiteScenarioFile>,
}

/// One scenario file of a suite, with the stem used in test names.
#[derive(Debug, Clone)]
pub(crate) struct SuiteScenarioFile {
    pub stem: String,
    pub path: PathBuf,
    pub content: ScenarioFile,
}

impl Suite {
    /// The suite's name: its folder under the specs folder.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The ids (`suite::file::name`) of its scenarios, in file order.
    pub fn ids(&self) -> impl Iterator<Item = String> + '_ {
        self.scenarios().map(|(f, s)| self.scenario_id(f, s))
    }

    /// Every scenario with its file stem, in a stable order.
    pub(crate) fn scenarios(&self) -> impl Iterator<Item = (&SuiteScenarioFile, &Scenario)> {
        self.files
            .iter()
            .flat_map(|f| f.content.scenarios.iter().map(move |s| (f, s)))
    }

    /// The stable id of a scenario: `suite::file::name`.
    pub(crate) fn scenario_id(&self, file: &SuiteScenarioFile, scenario: &Scenario) -> String {
        format!("{}::{}::{}", self.name, file.stem, scenario.name)
    }
}

/// Names of the suites under `specs_dir`: every folder with a `suite.yaml`, sorted.
pub(crate) fn suite_names(specs_dir: &Path) -> Result<Vec<String>, LoadError> {
    let entries = std::fs::read_dir(specs_dir)
        .map_err(|e| LoadError::new(specs_dir, None, format!("cannot read specs folder: {e}")))?;
    let mut names: Vec<String> = entries
        .filter_map(Result::ok)
        .filter(|e| e.path().join("suite.yaml").is_file())
        .filter_map(|e| e.file_name().into_string().ok())
        .collect();
    names.sort();
    Ok(names)
}

/// Loads every suite under `specs_dir`, or all the errors found.
pub fn load_suites(specs_dir: &Path) -> Result<Vec<Suite>, Vec<LoadError>> {
    let names = suite_names(specs_dir).map_err(|e| vec![e])?;
    let mut suites = Vec::new();
    let mut errors = Vec::new();
    for name in names {
        match load_suite(&specs_dir.join(&name)) {
            Ok(suite) => suites.push(suite),
            Err(mut e) => errors.append(&mut e),
        }
    }
    if errors.is_empty() {
        Ok(suites)
    } else {
        Err(errors)
    }
}

/// Loads one suite folder. Every file is checked, so one run reports every mistake.
pub fn load_suite(dir: &Path) -> Result<Suite, Vec<LoadError>> {
    let name = dir
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default()
        .to_string();
    let suite_path = dir.join("suite.yaml");
    let config: SuiteFile = parse_yaml_file(&suite_path).map_err(|e| vec![e])?;
    if config.version == 0 {
        return Err(vec![LoadError::new(
            &suite_path,
            find_line(&read_or_empty(&suite_path), "version:"),
            "`version: 0`: versions start at 1",
        )]);
    }
    if config.suite != name {
        return Err(vec![LoadError::new(
            &suite_path,
            find_line(&read_or_empty(&suite_path), "suite:"),
            format!(
                "`suite: {}` does not match its folder `{name}`; rename one of them",
                config.suite
            ),
        )]);
    }

    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| {
            vec![LoadError::new(
                dir,
                None,
                format!("cannot read suite folder: {e}"),
            )]
        })?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p.extension().is_some_and(|x| x == "yaml" || x == "yml")
                && p.file_name().is_some_and(|n| n != "suite.yaml")
        })
        .collect();
    paths.sort();

    let fixtures_dir = fixtures_dir_for(dir);
    let mut files = Vec::new();
    let mut errors = Vec::new();
    for path in paths {
        let stem = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default()
            .to_string();
        if let Some(why) = id_part_problem(&stem) {
            errors.push(LoadError::new(
                &path,
                None,
                format!("the file name {why}; rename the file"),
            ));
            continue;
        }
        match parse_yaml_file::<ScenarioFile>(&path) {
            Ok(content) => {
                let source = read_or_empty(&path);
                let mut problems = validate_file(&config, &fixtures_dir, &content, &path, &source);
                if problems.is_empty() {
                    files.push(SuiteScenarioFile {
                        stem,
                        path,
                        content,
                    });
                } else {
                    errors.append(&mut problems);
                }
            }
            Err(e) => errors.push(e),
        }
    }
    if errors.is_empty() {
        Ok(Suite {
            name,
            dir: dir.to_path_buf(),
            fixtures_dir,
            config,
            files,
        })
    } else {
        Err(errors)
    }
}

/// `specs/<suite>` -> `fixtures/`, the folder beside `specs/`.
fn fixtures_dir_for(suite_dir: &Path) -> PathBuf {
    suite_dir
        .parent()
        .and_then(Path::parent)
        .map(|top| top.join("fixtures"))
        .unwrap_or_else(|| PathBuf::from("fixtures"))
}

fn read_or_empty(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

/// Parses a YAML file strictly; a parse error keeps serde-saphyr's line and column.
pub(crate) fn parse_yaml_file<T: DeserializeOwned>(path: &Path) -> Result<T, LoadError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| LoadError::new(path, None, format!("cannot read: {e}")))?;
    parse_yaml_str(path, &text)
}

pub(crate) fn parse_yaml_str<T: DeserializeOwned>(path: &Path, text: &str) -> Result<T, LoadError> {
    let options = serde_saphyr::options! {
        strict_booleans: true,
        duplicate_keys: serde_saphyr::DuplicateKeyPolicy::Error,
    };
    serde_saphyr::from_str_with_options::<T>(text, options).map_err(|e| {
        let location = e.location();
        LoadError {
            column: location.map(|l| l.column() as usize),
            ..LoadError::new(
                path,
                location.map(|l| l.line() as usize),
                reword_yaml_error(&e.to_string(), path),
            )
        }
    })
}

/// serde-saphyr's message without the location it repeats, with its snippet pointing
/// at the real file, and with advice that fits a scenario author rather than a
/// library user.
fn reword_yaml_error(raw: &str, path: &Path) -> String {
    let (first, snippet) = raw.split_once('\n').unwrap_or((raw, ""));
    let message = first.strip_prefix("error: ").unwrap_or(first);
    let message = match message.strip_prefix("line ") {
        Some(rest) => rest.split_once(": ").map_or(message, |(_, m)| m),
        None => message,
    };
    let fix = |s: &str| {
        s.replace(
            ", set DuplicateKeyPolicy in Options if acceptable",
            " (each key may appear only once)",
        )
        .replace("<input>", &path.display().to_string())
    };
    if snippet.is_empty() {
        fix(message)
    } else {
        format!("{}\n{}", fix(message), fix(snippet))
    }
}
