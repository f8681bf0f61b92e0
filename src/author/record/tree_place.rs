//! `record --files DIR` puts DIR in the suite once, as a fixture tree of the
//! suite's fixtures folder (`fixtures/` beside `specs/`), which every recorded
//! scenario names with `given: { tree: NAME }` instead of a copy of its files.
//! NAME is DIR's own name; when a tree of that name holds other files, the
//! first free `NAME-2`, `NAME-3`... is taken (or one that holds the same files),
//! and a note says so: a tree other scenarios use is never changed.

use std::collections::BTreeMap;
use std::path::Path;

use super::live_call::{folder_files, FixtureFileError};

/// Where DIR goes: the tree's name, the files to write there (none when a
/// tree of that name already holds them), and a note when the name is not
/// DIR's own.
#[derive(Debug, PartialEq)]
pub(crate) struct PlacedTree {
    pub name: String,
    /// Path under the tree -> text (an empty folder: None), to be written.
    pub new_files: BTreeMap<String, Option<String>>,
    pub note: Option<String>,
}

/// The tree of `fixtures_dir` that `folder` becomes.
pub(crate) fn place_tree(
    fixtures_dir: &Path,
    folder: &Path,
) -> Result<PlacedTree, FixtureFileError> {
    let files = folder_files(folder)?;
    let own = folder
        .canonicalize()
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .map(|n| {
            n.replace(
                |c: char| !(c.is_ascii_alphanumeric() || "._-".contains(c)),
                "-",
            )
        })
        .filter(|n| !n.is_empty() && !n.starts_with('.'))
        .unwrap_or_else(|| "recorded".to_string());
    for n in 1.. {
        let name = match n {
            1 => own.clone(),
            n => format!("{own}-{n}"),
        };
        let at = fixtures_dir.join(&name);
        let note = (n > 1).then(|| {
            format!(
                "fixture tree `{own}` ({}) exists with other files; this one is `{name}`",
                fixtures_dir.join(&own).display()
            )
        });
        if !at.exists() {
            return Ok(PlacedTree {
                name,
                new_files: files,
                note,
            });
        }
        if folder_files(&at).ok().as_ref() == Some(&files) {
            return Ok(PlacedTree {
                name,
                new_files: BTreeMap::new(),
                note,
            });
        }
    }
    unreachable!("some name is free")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tree_is_reused_when_the_same_and_renamed_when_not() {
        let dir = tempfile::tempdir().expect("a folder");
        let fixtures = dir.path().join("fixtures");
        let example = dir.path().join("example");
        std::fs::create_dir_all(&example).expect("example");
        std::fs::write(example.join("a.txt"), "alpha\n").expect("a.txt");
        let placed = place_tree(&fixtures, &example).expect("placed");
        assert_eq!(placed.name, "example");
        assert_eq!(placed.new_files.len(), 1);
        assert_eq!(placed.note, None);
        std::fs::create_dir_all(fixtures.join("example")).expect("tree");
        std::fs::write(fixtures.join("example/a.txt"), "alpha\n").expect("same");
        let placed = place_tree(&fixtures, &example).expect("reused");
        assert_eq!(
            (placed.name.as_str(), placed.new_files.len()),
            ("example", 0)
        );
        std::fs::write(fixtures.join("example/a.txt"), "other\n").expect("other");
        let placed = place_tree(&fixtures, &example).expect("renamed");
        assert_eq!(placed.name, "example-2");
        assert!(placed
            .note
            .expect("a note")
            .contains("exists with other files"));
    }
}
