//! The tools that act on named paths: `list_dir` and `write_file` here,
//! `read_file` in [`read`], the string edits in [`edit`] and the unified
//! diffs in [`patch`].

mod edit;
mod patch;
mod read;

pub(super) use edit::{edit_file, multi_edit};
pub(super) use patch::apply_patch;
pub(super) use read::read_file;


use rmcp::model::JsonObject;

use super::super::{Context, Failure, Reply};
use super::mutations::Mutation;
use super::params::argument_failure;
use super::workspace::{self, Target};
use crate::dialects::common::args::Args;
use crate::engine::confined_fs::LeadsTo;
use crate::engine::files::{self, Rewrite};
use crate::engine::names::display_name;

pub(crate) fn list_dir(ctx: &Context, raw: &JsonObject) -> Result<Reply, Failure> {
    let args = Args::new(raw, &["path"]).map_err(argument_failure)?;
    let path = args
        .opt_string("path")
        .map_err(argument_failure)?
        .unwrap_or_else(|| ".".into());
    let target = workspace::resolve(ctx, &path)?;
    let meta = ctx.policy.stat(&target.real)
        .map_err(|err| workspace::fs_failure(&err, &target.shown, "stat"))?;
    if !meta.is_dir() {
        return Err(workspace::not_directory(&target.shown));
    }
    let listed = ctx
        .policy
        .read_dir(&target.real)
        .map_err(|err| workspace::fs_failure(&err, &target.shown, "list"))?;
    let mut entries = Vec::new();
    for entry in listed {
        // As v0.1.0's `fs.stat` (src/tools/list-dir.ts:40-51): a link is listed
        // as what it leads to, with that file's size when it is inside the
        // root; a dangling one as a file of size 0. A link out of the root
        // shows its type only (size 0), where v0.1.0 shows the outside file's
        // size: containment comes first, and the baseline names the departure.
        // A folder itself shows no size.
        let is_dir = entry.leads_to == LeadsTo::Directory;
        let size = if entry.metadata.is_symlink() {
            ctx.policy
                .stat(&target.real.join(&entry.name))
                .ok()
                .filter(|meta| !meta.is_dir())
                .map_or(0, |meta| meta.len())
        } else if is_dir {
            0
        } else {
            entry.metadata.len()
        };
        entries.push(Entry {
            name: display_name(&entry.name),
            is_dir,
            size,
        });
    }
    if entries.is_empty() && ctx.mutations.is_active(Mutation::EmptyDirBlank) {
        return Ok(Reply::text(""));
    }
    Ok(Reply::text(render_listing(entries)))
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Entry {
    name: String,
    is_dir: bool,
    size: u64,
}

/// Directories first, each group in byte order of the name.
fn render_listing(mut entries: Vec<Entry>) -> String {
    if entries.is_empty() {
        return "(empty directory)".to_string();
    }
    entries.sort_by(|a, b| b.is_dir.cmp(&a.is_dir).then_with(|| a.name.cmp(&b.name)));
    entries
        .iter()
        .map(|e| {
            if e.is_dir {
                format!("{}/", e.name)
            } else {
                format!("{}\t{}", e.name, e.size)
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

pub(crate) fn write_file(ctx: &Context, raw: &JsonObject) -> Result<Reply, Failure> {
    let args = Args::new(raw, &["path", "content"]).map_err(argument_failure)?;
    let path = args.string("path").map_err(argument_failure)?;
    let mut content = args.string("content").map_err(argument_failure)?;
    if !content.ends_with('\n') && ctx.mutations.is_active(Mutation::WriteAddsFinalNewline) {
        content.push('\n');
    }
    let target = workspace::resolve(ctx, &path)?;
    let existed = match ctx.policy.stat(&target.real) {
        Ok(meta) if meta.is_dir() => return Err(workspace::is_directory(&target.shown)),
        Ok(_) => true,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => false,
        Err(err) => return Err(workspace::fs_failure(&err, &target.shown, "stat")),
    };
    write_whole(ctx, &target, content.as_bytes())?;
    let bytes = if ctx.mutations.is_active(Mutation::WriteCountsChars) {
        content.chars().count()
    } else {
        content.len()
    };
    Ok(Reply::text(format!(
        "Wrote {} bytes to {} ({}).",
        bytes,
        target.display,
        if existed { "overwritten" } else { "created" }
    )))
}

/// Writes `content` over `target` as v0.1.0's `writeAtomic` does
/// (src/lib/atomic.ts:88-101): never through a link, and always by a
/// temporary file beside it renamed into place, so a folder the server may
/// not write refuses it. No size limit: too_large is about input files.
pub(super) fn write_whole(ctx: &Context, target: &Target, content: &[u8]) -> Result<(), Failure> {
    workspace::refuse_link(ctx, target)?;
    files::write(
        &ctx.policy,
        &target.real,
        content,
        u64::MAX,
        Rewrite::RenamedOnly,
    )
    .map(|_| ())
    .map_err(|err| workspace::engine_failure(err, &target.shown))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listings_put_directories_first() {
        let entry = |name: &str, is_dir, size| Entry {
            name: name.into(),
            is_dir,
            size,
        };
        assert_eq!(
            render_listing(vec![
                entry("b.txt", false, 3),
                entry("z", true, 0),
                entry("a.txt", false, 12),
                entry("m", true, 0)
            ]),
            "m/\nz/\na.txt\t12\nb.txt\t3"
        );
        assert_eq!(render_listing(Vec::new()), "(empty directory)");
    }
}
