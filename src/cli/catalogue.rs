//! Where suites come from: the ones built into the binary, and those of a folder the
//! user names with `--specs`, which add to them or replace a built-in one of the
//! same name.
//!
//! The built-in `specs/` and `fixtures/` are compiled in with `include_dir`, so a
//! copy of `toolspec` works from any folder with nothing beside it. A built-in suite
//! a command selects is written out to a private temporary folder (with the fixture
//! trees, once) and loaded from there like any other suite: one loader, one
//! validator and one fixture builder serve both, and the files a scenario's
//! `given.tree` names are real files to copy from. Only the suites selected are
//! written, and nothing for a command that selects none, since each file written
//! and removed costs the filesystem an inode (writing out all 61 files for every
//! command was a tenth of the CPU of the harness tests). The folder is listed with
//! the fixture roots, so an interrupted run removes it too.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};

use include_dir::{include_dir, Dir};

use super::error::CliError;
use crate::fixture::{make_listed_dir, ListedDir};
use crate::report::matrix::ClauseOrder;
use crate::scenario::{load_suite, suite_names, LoadError, Suite};

/// The suites of this repository's `specs/`, as built.
static BUILT_IN_SPECS: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/specs");
/// The trees `given.tree` names, from this repository's `fixtures/`.
static BUILT_IN_FIXTURES: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/fixtures");

/// Where a suite comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Origin {
    /// Built into the binary.
    BuiltIn,
    /// A folder given with `--specs`.
    Folder(PathBuf),
}

impl Origin {
    /// How reports name it: `built-in`, or `from DIR`.
    pub(crate) fn describe(&self) -> String {
        match self {
            Origin::BuiltIn => "built-in".to_string(),
            Origin::Folder(dir) => format!("from {}", dir.display()),
        }
    }
}

/// Every suite a command can use, by name, with where it came from.
pub(crate) struct Catalogue {
    /// The built-in suites selected so far, written out; removed when the
    /// catalogue is dropped, or by an interrupt.
    written_out: Mutex<Option<WrittenOut>>,
    suites: BTreeMap<String, Origin>,
}

/// The folder built-in suites are written out to: `specs/<suite>/...` for those
/// written so far, and `fixtures/...`.
struct WrittenOut {
    dir: ListedDir,
    suites: BTreeSet<String>,
}

impl Catalogue {
    /// The built-in suites, with those under `extra` added (a suite of `extra` with
    /// a built-in suite's name replaces it).
    pub(crate) fn open(extra: Option<&Path>) -> Result<Catalogue, Vec<LoadError>> {
        Catalogue::opened(extra, false)
    }

    /// As [`Catalogue::open`], for `record`, which may make the first suite of
    /// `extra`: a folder with no suite in it, or none yet, is no error.
    pub(crate) fn open_to_record(extra: Option<&Path>) -> Result<Catalogue, Vec<LoadError>> {
        Catalogue::opened(extra, true)
    }

    fn opened(extra: Option<&Path>, may_be_empty: bool) -> Result<Catalogue, Vec<LoadError>> {
        let mut suites: BTreeMap<String, Origin> = built_in_names()
            .into_iter()
            .map(|name| (name, Origin::BuiltIn))
            .collect();
        if let Some(extra) = extra {
            let names = match suite_names(extra) {
                Err(_) if may_be_empty && !extra.exists() => Vec::new(),
                found => found.map_err(|e| vec![e])?,
            };
            if names.is_empty() && !may_be_empty {
                return Err(vec![LoadError::new(
                    extra,
                    None,
                    "--specs names a folder with no suite in it (no <suite>/suite.yaml)",
                )]);
            }
            for name in names {
                suites.insert(name, Origin::Folder(extra.to_path_buf()));
            }
        }
        Ok(Catalogue {
            written_out: Mutex::new(None),
            suites,
        })
    }

    /// The folder of suite `name`: under `--specs`, or the built-in one, written out
    /// first if this is the first time it is asked for.
    fn folder(&self, name: &str, origin: &Origin) -> Result<PathBuf, Vec<LoadError>> {
        match origin {
            Origin::Folder(dir) => Ok(dir.join(name)),
            Origin::BuiltIn => {
                let mut written = self.written_out();
                let written = match &mut *written {
                    Some(written) => written,
                    empty => {
                        let dir = make_listed_dir("toolspec-suites-")
                            .map_err(|e| vec![cannot_write_out(&std::env::temp_dir(), &e)])?;
                        write_out(&BUILT_IN_FIXTURES, &dir.path().join("fixtures"))?;
                        empty.insert(WrittenOut {
                            dir,
                            suites: BTreeSet::new(),
                        })
                    }
                };
                let specs = written.dir.path().join("specs");
                if !written.suites.contains(name) {
                    if let Some(suite) = BUILT_IN_SPECS.get_dir(name) {
                        write_out(suite, &specs)?;
                    }
                    written.suites.insert(name.to_string());
                }
                Ok(specs.join(name))
            }
        }
    }

    fn written_out(&self) -> MutexGuard<'_, Option<WrittenOut>> {
        self.written_out
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// The names of every suite, sorted.
    pub(crate) fn names(&self) -> impl Iterator<Item = &str> {
        self.suites.keys().map(String::as_str)
    }

    /// Where the suite `name` comes from, if there is one.
    pub(crate) fn origin(&self, name: &str) -> Option<&Origin> {
        self.suites.get(name)
    }

    /// The suites named in `names`, or every suite when `names` is empty, loaded. A
    /// name that is no suite is an error that lists the suites there are.
    pub(crate) fn select(&self, names: &[String]) -> Result<Vec<Suite>, Vec<LoadError>> {
        let wanted: Vec<&str> = if names.is_empty() {
            self.names().collect()
        } else {
            names.iter().map(String::as_str).collect()
        };
        let mut suites = Vec::new();
        let mut errors = Vec::new();
        for name in wanted {
            match self.suites.get(name) {
                Some(origin) => match self.folder(name, origin).and_then(|dir| load_suite(&dir)) {
                    Ok(suite) => suites.push(suite),
                    Err(mut e) => errors.append(&mut e),
                },
                None => errors.push(LoadError::new(
                    Path::new(name),
                    None,
                    format!(
                        "no suite `{name}`; the suites are: {}",
                        self.names().collect::<Vec<_>>().join(", ")
                    ),
                )),
            }
        }
        if errors.is_empty() {
            Ok(suites)
        } else {
            Err(errors)
        }
    }
}

/// Refuses the first of `suites` that has no `reference:`, for a command that
/// would start the bundled reference server for it; `what` says what to do
/// instead (give a server, or that the command needs one).
pub(crate) fn refuse_without_reference(suites: &[Suite], what: &str) -> Result<(), CliError> {
    match suites.iter().find(|s| s.config.reference.is_none()) {
        Some(suite) => Err(CliError::NoReference {
            suite: suite.name.clone(),
            what: what.to_string(),
        }),
        None => Ok(()),
    }
}

/// The spec's order for the rows of a page of reports of the suites `names`: each
/// suite's clause index, read from the suite of that name that `toolspec` has
/// (built in, or under `specs`), whatever version the reports were run at. With it
/// come the names whose order is not known (no such suite here, no index, or a
/// suite that does not load), whose rows keep the reports' order.
pub(crate) fn clause_order(specs: Option<&Path>, names: &[String]) -> (ClauseOrder, Vec<String>) {
    let Ok(catalogue) = Catalogue::open(specs) else {
        return (ClauseOrder::default(), names.to_vec());
    };
    let mut order = ClauseOrder::default();
    for name in names {
        if let Ok(suites) = catalogue.select(std::slice::from_ref(name)) {
            suites.iter().for_each(|suite| order.include(suite));
        }
    }
    let unknown = names.iter().filter(|n| !order.knows(n)).cloned().collect();
    (order, unknown)
}

/// The built-in suite `name` (or every one) and the fixture trees, written under
/// `into` as `specs/<suite>/...` and `fixtures/...`, for someone who wants to fork
/// or extend a suite. Returns the suites written.
pub(crate) fn export_built_in(into: &Path, name: Option<&str>) -> Result<Vec<String>, LoadError> {
    let specs = into.join("specs");
    let names: Vec<String> = built_in_names()
        .into_iter()
        .filter(|n| name.is_none_or(|wanted| wanted == n))
        .collect();
    if names.is_empty() {
        let all: Vec<String> = BUILT_IN_SPECS
            .dirs()
            .filter_map(|d| d.path().to_str().map(str::to_string))
            .collect();
        return Err(LoadError::new(
            Path::new(name.unwrap_or_default()),
            None,
            format!(
                "no built-in suite `{}`; the built-in suites are: {}",
                name.unwrap_or_default(),
                all.join(", ")
            ),
        ));
    }
    for suite in &names {
        let target = specs.join(suite);
        if target.exists() {
            return Err(LoadError::new(
                &target,
                None,
                "already exists; export into an empty folder, or move it away first",
            ));
        }
    }
    for suite in &names {
        if let Some(dir) = BUILT_IN_SPECS.get_dir(suite) {
            write_out(dir, &specs).map_err(|mut e| e.remove(0))?;
        }
    }
    write_out(&BUILT_IN_FIXTURES, &into.join("fixtures")).map_err(|mut e| e.remove(0))?;
    Ok(names)
}

/// The names of the built-in suites: every folder of `specs/` with a `suite.yaml`,
/// sorted.
fn built_in_names() -> Vec<String> {
    let mut names: Vec<String> = BUILT_IN_SPECS
        .dirs()
        .filter(|d| d.get_file(d.path().join("suite.yaml")).is_some())
        .filter_map(|d| d.path().to_str().map(str::to_string))
        .collect();
    names.sort();
    names
}

/// Writes every file of `dir` under `into`, at its path from the embedded root (so
/// the built-in suite folder `boris` lands as `into/boris/...`).
fn write_out(dir: &Dir<'_>, into: &Path) -> Result<(), Vec<LoadError>> {
    for file in all_files(dir) {
        let path = into.join(file.path());
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| vec![cannot_write_out(parent, &e)])?;
        }
        std::fs::write(&path, file.contents()).map_err(|e| vec![cannot_write_out(&path, &e)])?;
    }
    Ok(())
}

/// Every file under `dir`, at any depth.
fn all_files<'a>(dir: &'a Dir<'a>) -> Vec<&'a include_dir::File<'a>> {
    let mut files: Vec<&include_dir::File<'a>> = dir.files().collect();
    for sub in dir.dirs() {
        files.extend(all_files(sub));
    }
    files
}

fn cannot_write_out(path: &Path, e: &std::io::Error) -> LoadError {
    LoadError::new(
        path,
        None,
        format!("cannot write the built-in suites out: {e}"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The written-out folder's suites, and whether it has the fixture trees.
    fn written(catalogue: &Catalogue) -> Option<(Vec<String>, bool)> {
        let written = catalogue.written_out();
        written.as_ref().map(|w| {
            let specs = w.dir.path().join("specs");
            let mut on_disk: Vec<String> = std::fs::read_dir(&specs)
                .map(|entries| {
                    entries
                        .filter_map(Result::ok)
                        .filter_map(|e| e.file_name().into_string().ok())
                        .collect()
                })
                .unwrap_or_default();
            on_disk.sort();
            (on_disk, w.dir.path().join("fixtures").is_dir())
        })
    }

    #[test]
    fn only_the_built_in_suites_selected_are_written_out() {
        let catalogue = Catalogue::open(None).expect("catalogue");
        assert!(catalogue.names().any(|n| n == "ikigai"));
        assert_eq!(written(&catalogue), None, "written before any was selected");
        let suites = catalogue.select(&["boris".to_string()]).expect("boris");
        assert_eq!(suites.len(), 1);
        assert_eq!(written(&catalogue), Some((vec!["boris".to_string()], true)));
        catalogue
            .select(&["boris".to_string()])
            .expect("boris again");
        catalogue.select(&["ikigai".to_string()]).expect("ikigai");
        assert_eq!(
            written(&catalogue),
            Some((vec!["boris".to_string(), "ikigai".to_string()], true))
        );
    }

    #[test]
    fn suites_of_a_specs_folder_write_nothing_out() {
        let specs = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/specs");
        let catalogue = Catalogue::open(Some(&specs)).expect("catalogue");
        let suites = catalogue
            .select(&["features".to_string()])
            .expect("features");
        assert_eq!(suites.len(), 1);
        assert_eq!(catalogue.origin("features"), Some(&Origin::Folder(specs)));
        assert_eq!(written(&catalogue), None);
    }
}
