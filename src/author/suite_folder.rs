//! `DIR/<suite>/`: the suite the written scenarios go into, complete so that it
//! loads with `--specs DIR`. It takes the explored suite's `suite.yaml` (with the
//! oracle's `reference:`), its clause index (which the scenarios' `covers:` name)
//! and its `explore.yaml`, and refuses a folder that already holds anything, so no
//! file of an earlier run or of a person is overwritten.

use std::path::{Path, PathBuf};

use crate::scenario::{load_suite, LoadError, Suite, CLAUSE_INDEX_FILE, EXPLORE_FILE};

/// Why the suite folder could not be made.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SuiteFolderError {
    #[error("{} is not empty: the scenarios are written into a new suite there; remove it or give another --out", .0.display())]
    NotEmpty(PathBuf),
    #[error("cannot make {}: {source}", .dir.display())]
    Make {
        dir: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot copy {} to {}: {source}", .from.display(), .dir.display())]
    Copy {
        from: PathBuf,
        dir: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The folder made does not load as a suite.
    #[error("{}", LoadError::one_a_line(.0))]
    DoesNotLoad(Vec<LoadError>),
}

/// The folder `out/<suite>`, or why it cannot be written to: it exists and is not
/// empty.
pub(crate) fn free_folder(out: &Path, suite: &str) -> Result<PathBuf, SuiteFolderError> {
    let dir = out.join(suite);
    let occupied = std::fs::read_dir(&dir).is_ok_and(|mut entries| entries.next().is_some());
    match occupied {
        true => Err(SuiteFolderError::NotEmpty(dir)),
        false => Ok(dir),
    }
}

/// Makes `out/<suite>` with the suite's own files and loads it (no scenarios yet).
pub(crate) fn prepare(out: &Path, suite: &Suite) -> Result<Suite, SuiteFolderError> {
    let dir = free_folder(out, &suite.name)?;
    std::fs::create_dir_all(&dir).map_err(|source| SuiteFolderError::Make {
        dir: dir.clone(),
        source,
    })?;
    for file in ["suite.yaml", CLAUSE_INDEX_FILE, EXPLORE_FILE] {
        let from = suite.dir.join(file);
        if from.is_file() {
            std::fs::copy(&from, dir.join(file)).map_err(|source| SuiteFolderError::Copy {
                from: from.clone(),
                dir: dir.clone(),
                source,
            })?;
        }
    }
    load_suite(&dir).map_err(SuiteFolderError::DoesNotLoad)
}
