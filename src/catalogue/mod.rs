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

mod built_in;
mod no_reference;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};

use crate::fixture::{make_listed_dir, ListedDir};
use crate::scenario::{load_suite, suite_names, LoadError, Suite};
use built_in::{built_in_names, cannot_write_out, write_out, BUILT_IN_FIXTURES, BUILT_IN_SPECS};

pub(crate) use built_in::export_built_in;
pub(crate) use no_reference::{refuse_without_reference, NoReference};

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
