//! Pending changes: what a command proposed to write into a suite and showed
//! as a diff, kept beside the suite until it is written, so that writing it
//! later writes exactly what was shown (no server called again), and refuses
//! when a file it changes is no longer what it was made from.
//!
//! ## Where
//!
//! `<specs>/<suite>/.toolspec/pending/<made_by>-<key>.json`, one file per
//! proposal. `<key>` is 16 hex digits of the SHA-256 of the command's
//! arguments (without `--write`) and of what they read that the arguments do
//! not say (the text of a `--calls` file), so the same command finds its
//! proposal again. The suite loader reads only the `*.yaml` files of a suite
//! folder, never a folder in it, so `.toolspec/` is never read as part of the
//! suite; `.toolspec/.gitignore` (`*`) keeps it out of version control.
//!
//! ## Format (JSON, `format: 1`)
//!
//! ```json
//! {
//!   "format": 1,
//!   "made_by": "record",
//!   "command": ["--specs", "mine/specs", "record", "--suite", "myserver", "..."],
//!   "files": {
//!     "recorded.yaml": { "before": "requirement: ...\n", "after": "requirement: ...\n" },
//!     "suite.yaml": { "before": null, "after": "suite: myserver\n..." },
//!     "../../fixtures/example/a.txt": { "before": null, "after": "alpha\n" },
//!     "../../fixtures/example/empty/": { "before": null, "after": "" }
//!   }
//! }
//! ```
//!
//! Each key of `files` is a path relative to the suite folder, `/`-separated
//! (a fixture tree's files are under `../../fixtures/`); `before` is the file's
//! whole text when the proposal was made (`null`: it did not exist), `after`
//! the whole text it proposes. A key ending in `/` is a folder to make (its
//! texts are `""`). A later `toolspec review` lists, diffs, accepts (writes
//! `after` where the file is still `before`) or rejects (removes the JSON)
//! each proposal; where a file was edited since, the proposal is merged onto
//! the edit (`resolve`), a scenario file it makes that another proposal made
//! first getting its scenarios at that file's end.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// The folder of a suite that holds its pending proposals.
pub(crate) const PENDING_DIR: &str = ".toolspec/pending";

/// One proposal.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Pending {
    pub format: u32,
    /// The command that made it (`record`, `bless` or `explore`).
    pub made_by: String,
    /// Its arguments (the program's name and `--write` left out).
    pub command: Vec<String>,
    /// Path relative to the suite folder -> the file's text before and after.
    pub files: BTreeMap<String, PendingFile>,
}

/// One file of a proposal.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PendingFile {
    /// Its text when the proposal was made; None: it did not exist.
    pub before: Option<String>,
    pub after: String,
}

/// Why a proposal could not be kept, read or written.
#[derive(Debug, thiserror::Error)]
pub(crate) enum PendingError {
    #[error("cannot {what} {}: {source}", .path.display())]
    Io {
        what: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{} is not a pending proposal of this toolspec: {why}", .path.display())]
    Malformed { path: PathBuf, why: String },
    #[error("{} changed since the proposal was shown ({}); nothing written: run the command again without --write to see the new proposal", .changed.join(", "), .path.display())]
    Changed { path: PathBuf, changed: Vec<String> },
    #[error("{}: {path} is outside the suite's folders", .proposal.display())]
    Outside { proposal: PathBuf, path: String },
    /// The file was edited since the proposal was made, where the proposal
    /// changes it too.
    #[error("{} was edited since the proposal was made, in the lines it changes; nothing written (reject it and make it again)", .file.display())]
    Conflict { file: PathBuf },
    #[error("{} was edited while the proposal was being written; nothing more written", .file.display())]
    ChangedWhileWriting { file: PathBuf },
}

/// One file of a proposal as it would be written now.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Resolved {
    pub path: PathBuf,
    /// A folder to make (its texts are empty).
    pub folder: bool,
    /// The file's text now; None: there is none.
    pub now: Option<String>,
    /// What is written.
    pub after: String,
    /// Whether `after` is the proposal merged onto an edit made since.
    pub merged: bool,
}

/// Every proposal kept in the suite folders of `specs`
/// (`<suite>/.toolspec/pending/*.json`), by suite and then by name: each with
/// its suite's folder. Only the suites of `only`, when it names any.
pub(crate) fn proposals_under(
    specs: &Path,
    only: &[String],
) -> Result<Vec<(PathBuf, PathBuf)>, PendingError> {
    let mut found = Vec::new();
    let suites = std::fs::read_dir(specs).map_err(io("read", specs))?;
    let mut suite_dirs: Vec<PathBuf> = suites
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.is_dir())
        .filter(|path| {
            only.is_empty()
                || path
                    .file_name()
                    .is_some_and(|name| only.iter().any(|o| name == o.as_str()))
        })
        .collect();
    suite_dirs.sort();
    for suite_dir in suite_dirs {
        let folder = suite_dir.join(PENDING_DIR);
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        let mut proposals: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .map(|entry| entry.path())
            .filter(|path| path.extension().is_some_and(|e| e == "json") && path.is_file())
            .collect();
        proposals.sort();
        found.extend(proposals.into_iter().map(|p| (suite_dir.clone(), p)));
    }
    Ok(found)
}

/// The proposal's text for a file edited since it was made: its change merged
/// onto the edit, line by line; where both only added to the file's end (two
/// recordings into one file), the proposal's addition after the edit's. None
/// where the two change the same lines.
fn merged_onto(before: &str, now: &str, after: &str) -> Option<String> {
    if let Ok(merged) = diffy::merge(before, now, after) {
        return Some(merged);
    }
    let (edit, change) = (now.strip_prefix(before)?, after.strip_prefix(before)?);
    Some(format!("{before}{edit}{change}"))
}

/// The proposal's text for a scenario file it makes new, which another
/// proposal (of `record`, or of `explore --into`) made first: its scenarios added
/// to the end of that file, as the command would have added them had the file
/// been there. None where the proposed file is not one such a command makes
/// (`requirement: ...` on one line, then `scenarios:` and its list), or where
/// the file there cannot take them at its end.
fn made_onto(now: &str, after: &str) -> Option<String> {
    let (head, items) = after.split_once("\nscenarios:\n")?;
    if head.contains('\n') || !head.starts_with("requirement:") {
        return None;
    }
    crate::author::append::appended(Some(now), "", items).ok()
}

fn io<'p>(what: &'static str, path: &'p Path) -> impl FnOnce(std::io::Error) -> PendingError + 'p {
    move |source| PendingError::Io {
        what,
        path: path.to_path_buf(),
        source,
    }
}

/// The file of the proposal `made_by` makes for the arguments `key`.
pub(crate) fn pending_path(suite_dir: &Path, made_by: &str, key: &[String]) -> PathBuf {
    let mut hash = Sha256::new();
    for part in key {
        hash.update(part.as_bytes());
        hash.update([0]);
    }
    let digest = hash.finalize();
    let hex: String = digest.iter().take(8).map(|b| format!("{b:02x}")).collect();
    suite_dir
        .join(PENDING_DIR)
        .join(format!("{made_by}-{hex}.json"))
}

/// `path` (a file of the suite's folder or of the fixtures folder beside
/// `specs/`) relative to `suite_dir`, as a proposal names it.
pub(crate) fn relative_to_suite(suite_dir: &Path, path: &Path) -> Option<String> {
    let text = |p: &Path| {
        p.components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join("/")
    };
    if let Ok(inside) = path.strip_prefix(suite_dir) {
        return Some(text(inside));
    }
    let top = suite_dir.parent()?.parent()?;
    path.strip_prefix(top)
        .ok()
        .map(|beside| format!("../../{}", text(beside)))
}

impl Pending {
    /// Keeps the proposal at `path` (replacing one the same command made).
    pub(crate) fn save(&self, path: &Path) -> Result<(), PendingError> {
        let folder = path.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(folder).map_err(io("make", folder))?;
        if let Some(own) = folder.parent() {
            let ignore = own.join(".gitignore");
            if !ignore.exists() {
                std::fs::write(&ignore, "*\n").map_err(io("write", &ignore))?;
            }
        }
        let text = serde_json::to_string_pretty(self).map_err(|e| PendingError::Malformed {
            path: path.to_path_buf(),
            why: e.to_string(),
        })?;
        crate::author::bless::write_in_place(path, &format!("{text}\n")).map_err(io("write", path))
    }

    /// The proposal at `path`, or None when there is none.
    pub(crate) fn load(path: &Path) -> Result<Option<Pending>, PendingError> {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(io("read", path)(e)),
        };
        let pending: Pending =
            serde_json::from_str(&text).map_err(|e| PendingError::Malformed {
                path: path.to_path_buf(),
                why: e.to_string(),
            })?;
        if pending.format != 1 {
            return Err(PendingError::Malformed {
                path: path.to_path_buf(),
                why: format!("format {} (this toolspec reads format 1)", pending.format),
            });
        }
        Ok(Some(pending))
    }

    /// Each file's path on disk, refusing a path that leaves the suite's
    /// folder and the fixtures folder beside `specs/`.
    fn places(
        &self,
        suite_dir: &Path,
        proposal: &Path,
    ) -> Result<Vec<(PathBuf, &String, &PendingFile)>, PendingError> {
        let mut places = Vec::new();
        for (name, file) in &self.files {
            let inside = name.strip_prefix("../../fixtures/").unwrap_or(name);
            let bad = inside.is_empty()
                || inside.starts_with('/')
                || inside.split('/').any(|part| part == ".." || part == ".");
            if bad {
                return Err(PendingError::Outside {
                    proposal: proposal.to_path_buf(),
                    path: name.clone(),
                });
            }
            places.push((suite_dir.join(name), name, file));
        }
        Ok(places)
    }

    /// Each file as it is now and as the proposal would leave it.
    fn now_and_after(
        &self,
        suite_dir: &Path,
        proposal: &Path,
    ) -> Result<Vec<(Resolved, Option<String>)>, PendingError> {
        let places = self.places(suite_dir, proposal)?;
        Ok(places
            .into_iter()
            .map(|(path, name, file)| {
                let folder = name.ends_with('/');
                let now = match folder {
                    true => path.is_dir().then(String::new),
                    false => std::fs::read_to_string(&path).ok(),
                };
                let before = match folder {
                    true => file.before.as_ref().map(|_| String::new()),
                    false => file.before.clone(),
                };
                let resolved = Resolved {
                    path,
                    folder,
                    now,
                    after: file.after.clone(),
                    merged: false,
                };
                (resolved, before)
            })
            .collect())
    }

    /// Every file as the proposal would write it now: `after` where the file is
    /// still `before`; where it was edited since, the proposal's change merged
    /// onto the edit (`Conflict` where they change the same lines).
    pub(crate) fn resolve(
        &self,
        suite_dir: &Path,
        proposal: &Path,
    ) -> Result<Vec<Resolved>, PendingError> {
        let mut resolved = Vec::new();
        for (mut file, before) in self.now_and_after(suite_dir, proposal)? {
            if file.now != before && !file.folder {
                let merged = match (&before, &file.now) {
                    (Some(before), Some(now)) => merged_onto(before, now, &file.after),
                    (None, Some(now)) => made_onto(now, &file.after),
                    (_, None) => None,
                };
                file.after = merged.ok_or_else(|| PendingError::Conflict {
                    file: file.path.clone(),
                })?;
                file.merged = true;
            }
            resolved.push(file);
        }
        Ok(resolved)
    }

    /// Writes every file's `after`, once every file is seen to be still its
    /// `before` (else nothing is written); the paths written.
    pub(crate) fn apply(
        &self,
        suite_dir: &Path,
        proposal: &Path,
    ) -> Result<Vec<PathBuf>, PendingError> {
        let files = self.now_and_after(suite_dir, proposal)?;
        let changed: Vec<String> = files
            .iter()
            .filter(|(file, before)| file.now != *before)
            .map(|(file, _)| file.path.display().to_string())
            .collect();
        if !changed.is_empty() {
            return Err(PendingError::Changed {
                path: proposal.to_path_buf(),
                changed,
            });
        }
        let files: Vec<Resolved> = files.into_iter().map(|(file, _)| file).collect();
        write_resolved(&files, proposal)
    }
}

/// Writes each file of a proposal as resolved, each only while it is still as it
/// was when resolved, and then removes the proposal; the paths written.
pub(crate) fn write_resolved(
    files: &[Resolved],
    proposal: &Path,
) -> Result<Vec<PathBuf>, PendingError> {
    let mut written = Vec::new();
    for file in files {
        let path = &file.path;
        if file.folder {
            std::fs::create_dir_all(path).map_err(io("make", path))?;
            continue;
        }
        if let Some(folder) = path.parent() {
            std::fs::create_dir_all(folder).map_err(io("make", folder))?;
        }
        match &file.now {
            None => write_new(path, &file.after)?,
            Some(now) => {
                let again = std::fs::read_to_string(path).map_err(io("read", path))?;
                if again != *now {
                    return Err(PendingError::ChangedWhileWriting { file: path.clone() });
                }
                crate::author::bless::write_in_place(path, &file.after)
                    .map_err(io("write", path))?;
            }
        }
        written.push(path.clone());
    }
    if proposal.exists() {
        std::fs::remove_file(proposal).map_err(io("remove", proposal))?;
    }
    Ok(written)
}

/// Writes a new file, refusing one that appeared since it was looked for.
fn write_new(path: &Path, text: &str) -> Result<(), PendingError> {
    use std::io::Write;
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .and_then(|mut file| file.write_all(text.as_bytes()))
        .map_err(io("write", path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scenario_file_two_proposals_make_gets_the_second_ones_scenarios_at_its_end() {
        let made = "requirement: R\nscenarios:\n  - name: a\n    then: {}\n";
        let also = "requirement: \"Found\"\nscenarios:\n  - name: b\n    then: {}\n";
        let both = made_onto(made, also).expect("merged");
        assert_eq!(both, format!("{made}\n  - name: b\n    then: {{}}\n"));
        assert_eq!(
            made_onto(made, "requirement: R\nnote: n\nscenarios:\n  - x\n"),
            None
        );
        assert_eq!(made_onto("[]\n", also), None);
    }

    #[test]
    fn a_proposal_is_written_only_while_its_files_are_as_shown() {
        let dir = tempfile::tempdir().expect("a folder");
        let suite = dir.path().join("specs/mine");
        std::fs::create_dir_all(&suite).expect("suite");
        std::fs::write(suite.join("recorded.yaml"), "old\n").expect("file");
        let proposal = pending_path(&suite, "record", &["--suite".into(), "mine".into()]);
        let mut files = BTreeMap::new();
        files.insert(
            "recorded.yaml".to_string(),
            PendingFile {
                before: Some("old\n".into()),
                after: "new\n".into(),
            },
        );
        let tree = suite.join("../../fixtures/t/a.txt");
        files.insert(
            relative_to_suite(&suite, &dir.path().join("fixtures/t/a.txt")).expect("beside"),
            PendingFile {
                before: None,
                after: "a\n".into(),
            },
        );
        let pending = Pending {
            format: 1,
            made_by: "record".into(),
            command: vec![],
            files,
        };
        pending.save(&proposal).expect("kept");
        assert_eq!(
            Pending::load(&proposal).expect("read"),
            Some(pending.clone())
        );
        assert!(suite.join(".toolspec/.gitignore").is_file());
        std::fs::write(suite.join("recorded.yaml"), "edited\n").expect("edit");
        let why = pending
            .apply(&suite, &proposal)
            .expect_err("changed")
            .to_string();
        assert!(
            why.contains("changed since the proposal was shown"),
            "{why}"
        );
        assert!(!tree.exists(), "nothing written");
        std::fs::write(suite.join("recorded.yaml"), "old\n").expect("back");
        pending.apply(&suite, &proposal).expect("written");
        assert_eq!(
            std::fs::read_to_string(suite.join("recorded.yaml")).expect("r"),
            "new\n"
        );
        assert_eq!(std::fs::read_to_string(&tree).expect("tree"), "a\n");
        assert!(!proposal.exists(), "the proposal is gone once written");
    }
}
