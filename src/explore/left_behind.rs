//! What a side's fixture holds after a call: every entry under the temporary
//! folder (the root and the canary beside it), its type and its contents, as one
//! listing, so the two sides compare as texts and a difference diffs as lines.
//! Read through the fixture's directory handle, so no link is followed out of it.

use std::path::{Path, PathBuf};

use cap_std::fs::Dir;

use super::compare::Masking;

/// One line per entry, in name order: `path/` for a folder, `path -> target` for a
/// link, `path: <contents>` for a file (its root masked, whitespace made visible).
pub(crate) fn listing(handle: &Dir, masking: &Masking<'_>) -> String {
    let mut lines = Vec::new();
    walk(handle, Path::new(""), masking, &mut lines);
    lines.sort();
    lines.join("\n")
}

fn walk(handle: &Dir, folder: &Path, masking: &Masking<'_>, lines: &mut Vec<String>) {
    let entries = if folder.as_os_str().is_empty() {
        handle.entries()
    } else {
        handle.read_dir(folder)
    };
    let entries = match entries {
        Ok(entries) => entries,
        Err(e) => {
            lines.push(format!(
                "{}/: cannot be read ({})",
                folder.display(),
                e.kind()
            ));
            return;
        }
    };
    for entry in entries.flatten() {
        let path: PathBuf = folder.join(entry.file_name());
        let shown = path.display();
        match entry.file_type() {
            Ok(kind) if kind.is_dir() => {
                lines.push(format!("{shown}/"));
                walk(handle, &path, masking, lines);
            }
            Ok(kind) if kind.is_symlink() => {
                let target = handle
                    .read_link_contents(&path)
                    .map(|t| masking.apply(&t.display().to_string()))
                    .unwrap_or_else(|_| "?".to_string());
                lines.push(format!("{shown} -> {target}"));
            }
            Ok(kind) if kind.is_file() => {
                let contents = match handle.read(&path) {
                    Ok(bytes) => crate::visible::excerpt(
                        &masking.apply(&String::from_utf8_lossy(&bytes)),
                        8000,
                    ),
                    Err(e) => format!("cannot be read ({})", e.kind()),
                };
                lines.push(format!("{shown}: {contents}"));
            }
            Ok(_) => lines.push(format!("{shown}: special file")),
            Err(e) => lines.push(format!("{shown}: cannot be read ({})", e.kind())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_listing_shows_every_entry_and_masks_the_root() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().join("root");
        std::fs::create_dir_all(root.join("sub")).expect("mkdir");
        let root_text = root.display().to_string();
        std::fs::write(root.join("sub/a.txt"), format!("at {root_text}\r\n")).expect("write");
        let handle = Dir::open_ambient_dir(dir.path(), cap_std::ambient_authority()).expect("open");
        let fixture = dir.path().display().to_string();
        let masking = Masking {
            root: &root_text,
            fixture: &fixture,
            masks: &[],
        };
        let listed = listing(&handle, &masking);
        assert!(listed.contains("root/sub/\n"), "{listed}");
        assert!(listed.contains("root/sub/a.txt: at {root}"), "{listed}");
        assert!(listed.contains("␍⏎"), "{listed}");
    }
}
