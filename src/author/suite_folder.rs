//! `DIR/<suite>/`: the suite the written scenarios go into, complete so that it
//! loads with `--specs DIR`. It takes the explored suite's `suite.yaml` (with the
//! oracle's `reference:`), its clause index (which the scenarios' `covers:` name)
//! and its `explore.yaml`, and refuses a folder that already holds anything, so no
//! file of an earlier run or of a person is overwritten.

use std::path::{Path, PathBuf};

use crate::scenario::{load_suite, Suite, CLAUSE_INDEX_FILE, EXPLORE_FILE};

/// The folder `out/<suite>`, or why it cannot be written to: it exists and is not
/// empty.
pub(crate) fn free_folder(out: &Path, suite: &str) -> Result<PathBuf, String> {
    let dir = out.join(suite);
    let occupied = std::fs::read_dir(&dir).is_ok_and(|mut entries| entries.next().is_some());
    match occupied {
        true => Err(format!(
            "{} is not empty: the scenarios are written into a new suite there; remove it or give another --out",
            dir.display()
        )),
        false => Ok(dir),
    }
}

/// Makes `out/<suite>` with the suite's own files and loads it (no scenarios yet).
pub(crate) fn prepare(out: &Path, suite: &Suite) -> Result<Suite, String> {
    let dir = free_folder(out, &suite.name)?;
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot make {}: {e}", dir.display()))?;
    for file in ["suite.yaml", CLAUSE_INDEX_FILE, EXPLORE_FILE] {
        let from = suite.dir.join(file);
        if from.is_file() {
            std::fs::copy(&from, dir.join(file))
                .map_err(|e| format!("cannot copy {} to {}: {e}", from.display(), dir.display()))?;
        }
    }
    load_suite(&dir).map_err(|errors| {
        errors
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("\n")
    })
}
