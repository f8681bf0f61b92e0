//! What a side's fixture holds after a call: every entry under the temporary
//! folder (the root and the canary beside it), its type, its permission bits, its
//! contents or a link's target, as one listing, so the two sides compare as texts and a difference diffs as lines.
//! Read through the fixture's directory handle, so no link is followed out of it.

use std::path::{Path, PathBuf};

use cap_std::fs::{Dir, DirEntry, PermissionsExt};

use super::compare::Masking;

/// One line per entry, in name order: `path/ [755]` for a folder, `path -> target`
/// for a link (its target as written, root masked), `path [644]: <contents>` for a
/// file (its root masked, whitespace made visible).
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
                lines.push(format!("{shown}/ {}", mode_of(&entry)));
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
                lines.push(format!("{shown} {}: {contents}", mode_of(&entry)));
            }
            Ok(_) => lines.push(format!("{shown}: special file")),
            Err(e) => lines.push(format!("{shown}: cannot be read ({})", e.kind())),
        }
    }
}

/// An entry's permission bits in octal, `[644]`, read without following a link.
fn mode_of(entry: &DirEntry) -> String {
    match entry.metadata() {
        Ok(meta) => format!("[{:o}]", meta.permissions().mode() & 0o7777),
        Err(e) => format!("[mode unreadable: {}]", e.kind()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt as _;

    #[test]
    fn a_listing_shows_every_entry_and_masks_the_root() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().join("root");
        std::fs::create_dir_all(root.join("sub")).expect("mkdir");
        let root_text = root.display().to_string();
        std::fs::write(root.join("sub/a.txt"), format!("at {root_text}\r\n")).expect("write");
        std::fs::set_permissions(
            root.join("sub/a.txt"),
            std::fs::Permissions::from_mode(0o640),
        )
        .expect("chmod");
        std::os::unix::fs::symlink("../../outside", root.join("sub/out")).expect("link");
        let handle = Dir::open_ambient_dir(dir.path(), cap_std::ambient_authority()).expect("open");
        let fixture = dir.path().display().to_string();
        let masking = Masking {
            root: &root_text,
            fixture: &fixture,
            masks: &[],
        };
        let listed = listing(&handle, &masking);
        assert!(listed.contains("root/sub/ [7"), "{listed}");
        assert!(
            listed.contains("root/sub/a.txt [640]: at {root}"),
            "{listed}"
        );
        assert!(listed.contains("root/sub/out -> ../../outside"), "{listed}");
        assert!(listed.contains("␍⏎"), "{listed}");
    }
}
