//! Reading a suite folder into typed scenarios: every file parsed (strictly, by
//! `yaml`) and validated, every mistake reported.

use std::path::{Path, PathBuf};

use super::clause_index::{read_clause_index, ClauseIndex, CLAUSE_INDEX_FILE};
use super::error::{find_line, LoadError};
use super::model::{Scenario, ScenarioFile, SuiteFile};
use super::validate::{id_part_problem, validate_file};
use super::yaml::{parse_yaml_str, read_text};

/// The file beside a suite's scenarios that tells `toolspec explore` what each tool
/// argument means. It is not a scenario file, so loading leaves it to the explore
/// stage, which reads it strictly when a command explores the suite.
pub(crate) const EXPLORE_FILE: &str = "explore.yaml";

/// A loaded suite: its settings and every scenario file in it, sorted by file name.
#[derive(Debug, Clone)]
pub struct Suite {
    /// The folder name, which `suite.yaml` repeats.
    pub(crate) name: String,
    pub(crate) dir: PathBuf,
    /// Where `given.tree` names are looked up: `fixtures/` beside the specs folder.
    pub(crate) fixtures_dir: PathBuf,
    pub(crate) config: SuiteFile,
    /// The clauses of its spec documents (`clauses.yaml`), when it has the file.
    pub(crate) clause_index: Option<ClauseIndex>,
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
    let config = read_text(&suite_path)
        .and_then(|text| suite_file_from_text(&suite_path, &text, &name))
        .map_err(|mut e| {
            if e.message.contains("unknown field `documents`") {
                e.message.push_str(&format!(
                    "\nhint: a suite's documents are listed in its clause index, {CLAUSE_INDEX_FILE}, \
                     with their clauses; `toolspec scaffold --spec FILE --suite {name}` writes it"
                ));
            }
            vec![e]
        })?;

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
                && p.file_name().is_some_and(|n| {
                    n != "suite.yaml" && n != CLAUSE_INDEX_FILE && n != EXPLORE_FILE
                })
        })
        .collect();
    paths.sort();

    let fixtures_dir = fixtures_dir_for(dir);
    let mut files = Vec::new();
    let mut errors = Vec::new();
    let clause_index = read_clause_index(dir).unwrap_or_else(|mut e| {
        errors.append(&mut e);
        None
    });
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
        let loaded = read_text(&path)
            .map_err(|e| vec![e])
            .and_then(|text| scenario_file_from_text(&config, &fixtures_dir, &path, &text));
        match loaded {
            Ok(content) => files.push(SuiteScenarioFile {
                stem,
                path,
                content,
            }),
            Err(mut problems) => errors.append(&mut problems),
        }
    }
    if errors.is_empty() {
        Ok(Suite {
            name,
            dir: dir.to_path_buf(),
            fixtures_dir,
            config,
            clause_index,
            files,
        })
    } else {
        Err(errors)
    }
}

/// The suite file at `path` from its `text`, for the suite folder `name`.
pub(crate) fn suite_file_from_text(
    path: &Path,
    text: &str,
    name: &str,
) -> Result<SuiteFile, LoadError> {
    let config: SuiteFile = parse_yaml_str(path, text)?;
    if config.version == 0 {
        return Err(LoadError::new(
            path,
            find_line(text, "version:"),
            "`version: 0`: versions start at 1",
        ));
    }
    if config.suite != name {
        return Err(LoadError::new(
            path,
            find_line(text, "suite:"),
            format!(
                "`suite: {}` does not match its folder `{name}`; rename one of them",
                config.suite
            ),
        ));
    }
    let unknown = config
        .confinement
        .iter()
        .flat_map(|c| &c.when_settings)
        .find(|s| !config.settings().contains_key(*s));
    if let Some(unknown) = unknown {
        return Err(LoadError::new(
            path,
            find_line(text, "when_settings:"),
            format!(
                "confinement.when_settings: `{unknown}` is not a setting of this suite (`reference.settings`)"
            ),
        ));
    }
    Ok(config)
}

/// The scenario file at `path` from its `text`: parsed, then validated against the
/// suite's `config` (given trees are looked up in `fixtures_dir`).
pub(crate) fn scenario_file_from_text(
    config: &SuiteFile,
    fixtures_dir: &Path,
    path: &Path,
    text: &str,
) -> Result<ScenarioFile, Vec<LoadError>> {
    let mut content = parse_yaml_str::<ScenarioFile>(path, text).map_err(|e| vec![e])?;
    // Kept for the whole command: no room for scenarios that will never come.
    content.scenarios.shrink_to_fit();
    let problems = validate_file(config, fixtures_dir, &content, path, text);
    if problems.is_empty() {
        Ok(content)
    } else {
        Err(problems)
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
