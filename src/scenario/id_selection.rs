//! `--id ID` and `--ids-from FILE`: an exact set of scenario ids to run. A test
//! runner (the pytest plugin, the node:test registration) collects every scenario as
//! a test, lets its user deselect some, and hands the binary exactly the ones left;
//! `--filter`'s substring cannot say that. An id that names no scenario is refused,
//! so a renamed scenario or a typo never turns into a run of nothing.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use super::error::LoadError;
use super::load::Suite;

/// The scenario ids a run is limited to, each `suite::file::scenario name`.
#[derive(Debug, Clone)]
pub(crate) struct IdSelection {
    /// Each id with where it was given: the file and line of `--ids-from`, or none
    /// for `--id`.
    given: Vec<(String, Option<(PathBuf, usize)>)>,
    ids: BTreeSet<String>,
}

impl IdSelection {
    /// The selection of `--id` (repeated) and `--ids-from` (one id a line, blank
    /// lines skipped); `None` when neither was given, and everything is selected.
    pub(crate) fn gather(ids: &[String], file: Option<&Path>) -> Result<Option<Self>, LoadError> {
        let mut given: Vec<(String, Option<(PathBuf, usize)>)> =
            ids.iter().map(|id| (id.clone(), None)).collect();
        if let Some(file) = file {
            let text = std::fs::read_to_string(file).map_err(|e| {
                LoadError::new(file, None, format!("cannot read the ids to run: {e}"))
            })?;
            for (at, line) in text.lines().enumerate() {
                let id = line.strip_suffix('\r').unwrap_or(line);
                if !id.trim().is_empty() {
                    given.push((id.to_string(), Some((file.to_path_buf(), at + 1))));
                }
            }
            if given.is_empty() {
                return Err(LoadError::new(
                    file,
                    None,
                    "--ids-from names no scenario id (one `suite::file::scenario` a line): a run of nothing is refused",
                ));
            }
        }
        if given.is_empty() {
            return Ok(None);
        }
        let ids = given.iter().map(|(id, _)| id.clone()).collect();
        Ok(Some(IdSelection { given, ids }))
    }

    /// The suites the ids name (the part before the first `::`), each once, in the
    /// order first named: what runs when no `--suite` is given.
    pub(crate) fn suites(&self) -> Vec<String> {
        let mut suites: Vec<String> = Vec::new();
        for (id, _) in &self.given {
            let suite = id.split("::").next().unwrap_or_default().to_string();
            if !suites.contains(&suite) {
                suites.push(suite);
            }
        }
        suites
    }

    /// Refuses every id that names no scenario of `suites`, saying where it was
    /// given and how to list the ids that exist.
    pub(crate) fn check(&self, suites: &[Suite]) -> Result<(), Vec<LoadError>> {
        let known: BTreeSet<String> = suites.iter().flat_map(|s| s.ids()).collect();
        let names: Vec<&str> = suites.iter().map(Suite::name).collect();
        let errors: Vec<LoadError> = self
            .given
            .iter()
            .filter(|(id, _)| !known.contains(id))
            .map(|(id, place)| {
                let suite = id.split("::").next().unwrap_or_default();
                let why = if names.contains(&suite) {
                    format!("`toolspec list --suite {suite}` lists its ids")
                } else {
                    format!("the suites this run selected are {}", names.join(", "))
                };
                let message = format!("no scenario has the id `{id}` ({why})");
                match place {
                    Some((file, line)) => LoadError::new(file, Some(*line), message),
                    None => LoadError::new(Path::new("--id"), None, message),
                }
            })
            .collect();
        if errors.is_empty() {
            Ok(())
        } else {
            Err(errors)
        }
    }

    /// Whether the scenario `id` is one of those given.
    pub(crate) fn admits(&self, id: &str) -> bool {
        self.ids.contains(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_from_a_file_skip_blank_lines_and_keep_the_rest_exact() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("ids.txt");
        std::fs::write(&file, "boris::read::a b\r\n\n  \ngemini-cli::x::y\n").unwrap();
        let ids = IdSelection::gather(&["boris::glob::z".into()], Some(&file))
            .unwrap()
            .unwrap();
        assert!(ids.admits("boris::read::a b"));
        assert!(ids.admits("gemini-cli::x::y"));
        assert!(ids.admits("boris::glob::z"));
        assert!(!ids.admits("boris::read::a"));
        assert_eq!(ids.suites(), ["boris", "gemini-cli"]);
    }

    #[test]
    fn no_ids_select_everything_and_an_empty_file_is_refused() {
        assert!(IdSelection::gather(&[], None).unwrap().is_none());
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("ids.txt");
        std::fs::write(&file, "\n").unwrap();
        let error = IdSelection::gather(&[], Some(&file)).unwrap_err();
        assert!(
            error.to_string().contains("names no scenario id"),
            "{error}"
        );
    }
}
