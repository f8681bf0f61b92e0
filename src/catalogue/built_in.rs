//! The suites and fixture trees built into the binary (`specs/` and `fixtures/`,
//! compiled in with `include_dir`, so a copy of `toolspec` works from any folder
//! with nothing beside it), and writing them out as files: for the catalogue, a
//! suite at a time as a command selects it; for `suites export`, to fork or extend.

use std::path::Path;

use include_dir::{include_dir, Dir};

use crate::scenario::LoadError;

/// The suites of this repository's `specs/`, as built.
pub(super) static BUILT_IN_SPECS: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/specs");
/// The trees `given.tree` names, from this repository's `fixtures/`.
pub(super) static BUILT_IN_FIXTURES: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/fixtures");

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
pub(super) fn built_in_names() -> Vec<String> {
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
pub(super) fn write_out(dir: &Dir<'_>, into: &Path) -> Result<(), Vec<LoadError>> {
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

pub(super) fn cannot_write_out(path: &Path, e: &std::io::Error) -> LoadError {
    LoadError::new(
        path,
        None,
        format!("cannot write the built-in suites out: {e}"),
    )
}
