//! `view` of a directory: a tree two levels deep under the directory's own
//! name, drawn as Boris 1.0.0 draws it.
//!
//! ```text
//! d/
//! ├── a.txt
//! ├── m/
//! │   └── x.txt
//! └── z.txt
//! ```
//!
//! Entries come in name order; `.git` and `node_modules` are left out (as by
//! the searches); a directory ends with `/`, and its entries follow it, drawn
//! one level in; a symlink is shown as `name -> target`, its text as written,
//! and never entered. Only real subdirectories are entered, so the tree never
//! shows what lies outside the allowed scope; deny patterns do not hide them,
//! as in Boris.

use std::path::Path;

use super::mutations::Mutation;
use crate::engine::paths::PathPolicy;
use crate::engine::resolve::resolve_real;
use crate::engine::{files, EngineError};
use crate::mutations::Mutations;

/// Levels of entries shown below the directory itself.
const DEPTH: usize = 2;
/// Directory names never shown.
const LEFT_OUT: [&str; 2] = [".git", "node_modules"];

/// The tree of `dir` (a real, allowed directory).
pub(super) fn draw(
    policy: &PathPolicy,
    mutations: &Mutations,
    dir: &Path,
) -> Result<String, EngineError> {
    if mutations.is_active(Mutation::DirectoryFlatListing) {
        return Ok(files::list_dir(policy, dir)?
            .into_iter()
            .map(|e| format!("{}{}\n", e.name, if e.is_dir { "/" } else { "" }))
            .collect());
    }
    let name = if mutations.is_active(Mutation::TreeHeaderAbsolute) {
        dir.display().to_string()
    } else {
        dir.file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
    };
    let mut out = format!("{name}/\n");
    let glyphs = Glyphs::for_mutations(mutations);
    let depth = if mutations.is_active(Mutation::TreeOneLevel) {
        1
    } else {
        DEPTH
    };
    draw_level(policy, mutations, &glyphs, dir, "", depth, &mut out)?;
    Ok(out)
}

/// The strings a tree is drawn with.
struct Glyphs {
    branch: &'static str,
    last: &'static str,
    through: &'static str,
    after_last: &'static str,
}

impl Glyphs {
    /// Box-drawing branches, or the ASCII ones of the `tree-ascii-glyphs` mutation.
    fn for_mutations(mutations: &Mutations) -> Glyphs {
        if mutations.is_active(Mutation::TreeAsciiGlyphs) {
            Glyphs {
                branch: "|-- ",
                last: "`-- ",
                through: "|   ",
                after_last: "    ",
            }
        } else {
            Glyphs {
                branch: "├── ",
                last: "└── ",
                through: "│   ",
                after_last: "    ",
            }
        }
    }
}

fn draw_level(
    policy: &PathPolicy,
    mutations: &Mutations,
    glyphs: &Glyphs,
    dir: &Path,
    prefix: &str,
    levels: usize,
    out: &mut String,
) -> Result<(), EngineError> {
    if levels == 0 {
        return Ok(());
    }
    let hide_dotfiles = mutations.is_active(Mutation::TreeHidesDotfiles);
    // The folder asked for goes through the policy; a subfolder of it is
    // listed whatever the deny patterns say, as Boris lists it.
    let listed = if prefix.is_empty() {
        files::list_dir(policy, dir)?
    } else {
        files::list_dir_below_allowed(policy, dir)?
    };
    let entries: Vec<files::DirEntry> = listed
        .into_iter()
        .filter(|e| !LEFT_OUT.contains(&e.name.as_str()))
        .filter(|e| !(hide_dotfiles && e.name.starts_with('.')))
        .collect();
    for (i, entry) in entries.iter().enumerate() {
        let is_last = i + 1 == entries.len();
        let branch = if is_last { glyphs.last } else { glyphs.branch };
        // A link is named with where it points and never entered
        // (view.go:286-293); a folder ends with `/`.
        let shown = match (&entry.link_target, entry.is_dir) {
            (Some(target), _) => format!("{} -> {target}", entry.name),
            (None, true) => format!("{}/", entry.name),
            (None, false) => entry.name.clone(),
        };
        out.push_str(&format!("{prefix}{branch}{shown}\n"));
        let child = dir.join(&entry.name);
        if entry.is_dir && entry.link_target.is_none() && enterable(&child) {
            let inner = if is_last {
                glyphs.after_last
            } else {
                glyphs.through
            };
            // An unreadable subdirectory is shown without its entries.
            let _ = draw_level(
                policy,
                mutations,
                glyphs,
                &child,
                &format!("{prefix}{inner}"),
                levels - 1,
                out,
            );
        }
    }
    Ok(())
}

/// A real directory (not a symlink to one): inside the directory drawn, so
/// inside the allowed scope; Boris enters it whatever the deny patterns say
/// (view.go:296).
fn enterable(child: &Path) -> bool {
    resolve_real(child).is_ok_and(|real| real == child)
}
