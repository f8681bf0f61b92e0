//! The tools that act on named paths: `read_file`, `list_dir` and
//! `write_file` here, the string edits in [`edit`] and the unified diffs in
//! [`patch`].

mod edit;
mod patch;

pub(super) use edit::{edit_file, multi_edit};
pub(super) use patch::apply_patch;


use rmcp::model::JsonObject;
use serde_json::Value;

use super::super::{Context, Failure, Reply};
use super::mutations::Mutation;
use super::params::{argument_failure, int_at_least, invalid};
use super::text::{decode, read_text, split_lines};
use super::workspace::{self, with_path};
use crate::dialects::common::args::Args;
use crate::engine::confined_fs::LeadsTo;
use crate::engine::files::write_atomic;
use crate::engine::names::display_name;

/// Lines shown when `limit` is absent or 0, and characters kept per line.
const DEFAULT_LIMIT: usize = 2000;
const MAX_LINE_CHARS: usize = 2000;
const LINE_CUT_MARK: &str = " [... line truncated ...]";

pub(crate) fn read_file(ctx: &Context, raw: &JsonObject) -> Result<Reply, Failure> {
    let args = Args::new(raw, &["path", "offset", "limit"]).map_err(argument_failure)?;
    let path = args.string("path").map_err(argument_failure)?;
    let mut offset = args
        .opt_int("offset")
        .map_err(argument_failure)?
        .unwrap_or(1);
    if offset > 0 && ctx.mutations.is_active(Mutation::OffsetZeroBased) {
        // Treats the offset as a count of lines to skip.
        offset = offset.saturating_add(1);
    }
    let limit = int_at_least(&args, "limit", 0)?;
    let target = workspace::resolve(ctx, &path)?;
    let text = decode(&read_text(ctx, &target)?);
    if text.is_empty() {
        return Ok(Reply::text("(empty file)"));
    }
    let lines = split_lines(&text);
    let first = first_line(offset, lines.len()).map_err(|message| {
        let mut failure = with_path(invalid(message), &target.shown);
        if offset > 0 {
            failure
                .extra
                .insert("line_count".into(), Value::from(lines.len()));
        }
        failure
    })?;
    let limit = match limit {
        _ if ctx.mutations.is_active(Mutation::LimitIgnored) => DEFAULT_LIMIT,
        None | Some(0) => DEFAULT_LIMIT,
        Some(n) => usize::try_from(n).unwrap_or(usize::MAX),
    };
    Ok(Reply::text(number_lines(&lines, first, limit)))
}

/// The 1-based first line to show for `offset`, or why it is invalid.
fn first_line(offset: i64, total: usize) -> Result<usize, String> {
    let total_i = i64::try_from(total).unwrap_or(i64::MAX);
    match offset {
        0 => Err(
            "offset must not be 0: give a 1-based line, or a negative count of lines from the end"
                .into(),
        ),
        n if n < 0 => Ok(usize::try_from((total_i + n + 1).max(1)).unwrap_or(1)),
        n if n > total_i => Err(format!(
            "offset {n} is past the end of the file, which has {total} lines"
        )),
        n => Ok(usize::try_from(n).unwrap_or(1)),
    }
}

/// `<n padded to 6>\t<line>` rows from line `first` (1-based), at most
/// `limit` of them, then a note on how to continue if lines remain.
fn number_lines(lines: &[&str], first: usize, limit: usize) -> String {
    let start = first - 1;
    let end = lines.len().min(start.saturating_add(limit));
    let mut rows: Vec<String> = lines[start..end]
        .iter()
        .enumerate()
        .map(|(i, line)| format!("{:>6}\t{}", start + i + 1, shorten(line)))
        .collect();
    if end < lines.len() {
        rows.push(format!(
            "[... lines {first}-{end} of {} shown; continue with offset={} ...]",
            lines.len(),
            end + 1
        ));
    }
    rows.join("\n")
}

fn shorten(line: &str) -> std::borrow::Cow<'_, str> {
    match line.char_indices().nth(MAX_LINE_CHARS) {
        Some((cut, _)) => format!("{}{LINE_CUT_MARK}", &line[..cut]).into(),
        None => line.into(),
    }
}

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
        // A symlink is listed as what it leads to, wherever that is (only the
        // type is read); the size is that of a file inside the root, and 0 for
        // a dangling link or one to a file outside.
        let is_dir = entry.leads_to == LeadsTo::Directory;
        let size = if is_dir {
            0
        } else {
            ctx.policy
                .stat(&target.real.join(&entry.name))
                .map_or(0, |m| m.len())
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
    // Upstream puts no size limit on writes (too_large is about input files).
    write_atomic(&ctx.policy, &target.real, content.as_bytes(), u64::MAX)
        .map_err(|err| workspace::engine_failure(err, &target.shown))?;
    let bytes = if ctx.mutations.is_active(Mutation::WriteCountsChars) {
        content.chars().count()
    } else {
        content.len()
    };
    Ok(Reply::text(format!(
        "Wrote {} bytes to {} ({}).",
        bytes,
        target.shown,
        if existed { "overwritten" } else { "created" }
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_numbered_to_width_six_with_a_tab() {
        assert_eq!(
            number_lines(&["alpha", "beta"], 1, 2000),
            "     1\talpha\n     2\tbeta"
        );
        assert_eq!(
            number_lines(&["a", "b", "c"], 2, 1),
            "     2\tb\n[... lines 2-2 of 3 shown; continue with offset=3 ...]"
        );
    }

    #[test]
    fn offsets_count_from_either_end() {
        assert_eq!(first_line(1, 3), Ok(1));
        assert_eq!(first_line(-2, 3), Ok(2));
        assert_eq!(first_line(-10, 3), Ok(1));
        assert!(first_line(0, 3).is_err());
        assert!(first_line(4, 3).is_err());
    }

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

    #[test]
    fn long_lines_are_cut_with_a_mark() {
        let long = "x".repeat(MAX_LINE_CHARS + 5);
        let cut = shorten(&long);
        assert!(cut.ends_with(LINE_CUT_MARK));
        assert_eq!(cut.len(), MAX_LINE_CHARS + LINE_CUT_MARK.len());
    }
}
