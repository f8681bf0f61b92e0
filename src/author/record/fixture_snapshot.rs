//! What a recorded call did to its fixture: the root read before and after the
//! call (without following links), and the difference as the paths whose file
//! was created or changed (text or not) and those removed. A folder or a link
//! the call made is not among them: `then.files` describes files.

use std::collections::BTreeMap;
use std::path::Path;

/// The most entries read: a call that made more has changed the fixture past
/// what a scenario should pin, and a walk must end.
const MOST_ENTRIES: usize = 10_000;
/// The largest file read whole; a larger one is compared by size and time.
const MOST_BYTES: u64 = 16 << 20;

/// One entry under the root.
#[derive(Debug, PartialEq)]
pub(crate) enum Entry {
    File(Vec<u8>),
    /// A file too large to read whole: its size and time.
    Large(u64, Option<std::time::SystemTime>),
    Folder,
    Other,
}

/// Every entry under a root, by its path there (`/`-separated).
pub(crate) type Snapshot = BTreeMap<String, Entry>;

/// How a path changed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Change {
    /// A UTF-8 text file was created or its bytes changed.
    Text,
    /// A file that is not UTF-8 text (or too large to read) was created or changed.
    Binary,
    /// What was there is gone (the top-most gone entry only).
    Removed,
}

/// Reads every entry under `root`.
pub(crate) fn snapshot(root: &Path) -> Snapshot {
    let mut found = Snapshot::new();
    let mut pending = vec![(root.to_path_buf(), String::new())];
    while let Some((dir, below)) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            if found.len() >= MOST_ENTRIES {
                return found;
            }
            let name = entry.file_name().to_string_lossy().into_owned();
            let relative = match below.is_empty() {
                true => name,
                false => format!("{below}/{name}"),
            };
            let path = entry.path();
            let Ok(meta) = std::fs::symlink_metadata(&path) else {
                continue;
            };
            let read = if meta.is_dir() {
                pending.push((path, relative.clone()));
                Entry::Folder
            } else if meta.is_file() && meta.len() > MOST_BYTES {
                Entry::Large(meta.len(), meta.modified().ok())
            } else if meta.is_file() {
                std::fs::read(&path).map_or(Entry::Other, Entry::File)
            } else {
                Entry::Other
            };
            found.insert(relative, read);
        }
    }
    found
}

/// What changed from `before` to `after`, by path.
pub(crate) fn changes(before: &Snapshot, after: &Snapshot) -> Vec<(String, Change)> {
    let mut changed = Vec::new();
    for (path, entry) in after {
        if before.get(path) == Some(entry) {
            continue;
        }
        match entry {
            Entry::File(bytes) if std::str::from_utf8(bytes).is_ok() => {
                changed.push((path.clone(), Change::Text));
            }
            Entry::File(_) | Entry::Large(..) => changed.push((path.clone(), Change::Binary)),
            Entry::Folder | Entry::Other => {}
        }
    }
    for path in before.keys() {
        let gone = |p: &str| !after.contains_key(p);
        let parent_gone = path
            .rsplit_once('/')
            .is_some_and(|(parent, _)| gone(parent));
        let replaced = matches!(
            (before.get(path), after.get(path)),
            (Some(Entry::File(_) | Entry::Large(..)), Some(Entry::Folder))
        );
        if (gone(path) && !parent_gone) || replaced {
            changed.push((path.clone(), Change::Removed));
        }
    }
    changed.sort_by(|a, b| a.0.cmp(&b.0));
    changed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn created_changed_and_removed_files_are_seen() {
        let dir = tempfile::tempdir().expect("a folder");
        let root = dir.path();
        std::fs::create_dir_all(root.join("gone/deep")).expect("folders");
        std::fs::write(root.join("gone/deep/x.txt"), "x").expect("x");
        std::fs::write(root.join("same.txt"), "same").expect("same");
        std::fs::write(root.join("edit.txt"), "old").expect("edit");
        let before = snapshot(root);
        std::fs::remove_dir_all(root.join("gone")).expect("removed");
        std::fs::write(root.join("edit.txt"), "new").expect("edit");
        std::fs::write(root.join("new.bin"), [0xff, 0x00]).expect("bin");
        std::fs::create_dir(root.join("made")).expect("folder");
        let after = snapshot(root);
        assert_eq!(
            changes(&before, &after),
            [
                ("edit.txt".to_string(), Change::Text),
                ("gone".to_string(), Change::Removed),
                ("new.bin".to_string(), Change::Binary),
            ]
        );
    }
}
