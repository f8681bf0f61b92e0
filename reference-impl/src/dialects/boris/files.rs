//! The file tools: `view` (numbered lines, or a directory listing),
//! `str_replace` (with a numbered snippet around the edit) and
//! `create_file`.

use rmcp::model::JsonObject;

use super::failure::{argument_failure, as_requested, engine_failure, failure, invalid};
use super::mutations::Mutation;
use super::numbered::{number_lines, snippet};
use super::params::non_empty;
use super::tree;
use super::Outcome;
use crate::dialects::common::args::Args;
use crate::dialects::{Context, Reply};
use crate::engine::text_range::TextFile;
use crate::engine::error::IoOp;
use crate::engine::resolve::resolve_real;
use crate::engine::files::{self, Rewrite};
use crate::engine::EngineError;
use std::path::{Path, PathBuf};

/// Lines shown by `view` without a range.
const MAX_VIEW_LINES: usize = 2000;

pub(super) fn view(ctx: &Context, raw: &JsonObject) -> Outcome {
    let args = Args::new(raw, &["path", "view_range"]).map_err(argument_failure)?;
    let path_arg = non_empty(&args, "path")?;
    // Boris reads a range only from two numbers, and shows the whole file
    // for any other count (view.go:118).
    let range = match args.opt_int_array("view_range").map_err(argument_failure)? {
        Some(pair) if pair.len() == 2 => Some((pair[0], pair[1])),
        _ => None,
    };
    let path = ctx.policy.resolve(&path_arg).map_err(engine_failure)?;
    let meta = files::stat(&ctx.policy, &path).map_err(as_requested(ctx, &path_arg))?;
    if meta.is_dir() {
        let tree = tree::draw(&ctx.policy, &ctx.mutations, &path).map_err(engine_failure)?;
        return Ok(Reply::text(tree));
    }
    let mut text = TextFile::open(&ctx.policy, &path, ctx.max_file_size).map_err(engine_failure)?;
    if text.looks_binary() {
        let size = text.size();
        let size = if ctx.mutations.is_active(Mutation::BinarySizeInBytes) {
            format!("{size} bytes")
        } else {
            human_size(size)
        };
        return Ok(Reply::text(format!("Binary file ({size})")));
    }
    let Some((start, end)) = range else {
        let shown = text
            .lines(1, Some(MAX_VIEW_LINES))
            .map_err(|err| engine_failure(text.engine_error(&err)))?;
        let total = text
            .total_lines()
            .map_err(|err| engine_failure(text.engine_error(&err)))?;
        let shown: Vec<&str> = shown.iter().map(String::as_str).collect();
        let mut out = number_lines(&ctx.mutations, &shown, 1, total);
        if total > MAX_VIEW_LINES {
            out.push_str(&format!(
                "\n[Truncated: file has {total} lines. Use view_range to read specific sections.]"
            ));
        }
        return Ok(Reply::text(out));
    };
    if start < 1 {
        return Err(invalid(format!(
            "invalid view_range: start must be >= 1, got {start}"
        )));
    }
    // An end of -1 is no "to the end" in Boris: it is below the start, and
    // refused as any such end (view.go:159).
    if start > end {
        return Err(invalid(format!(
            "invalid view_range: start {start} > end {end}"
        )));
    }
    let first = usize::try_from(start).unwrap_or(usize::MAX);
    // Read through the last line asked for and no further; the file's line
    // count is known only when that reaches its end (or a mutation needs it).
    let end = (end != -1).then(|| usize::try_from(end).unwrap_or(usize::MAX));
    let lines = text
        .lines(first, end)
        .map_err(|err| engine_failure(text.engine_error(&err)))?;
    let total = if text.at_end() || ctx.mutations.is_active(Mutation::ViewWidthOfFile) {
        Some(
            text.total_lines()
                .map_err(|err| engine_failure(text.engine_error(&err)))?,
        )
    } else {
        None
    };
    if let Some(total) = total.filter(|&total| first > total) {
        return Err(invalid(format!(
            "invalid view_range: start {start} exceeds total lines {total} in {}",
            path.display()
        )));
    }
    let known_end = total.unwrap_or(usize::MAX);
    let last = match end {
        None => known_end,
        Some(end) if ctx.mutations.is_active(Mutation::ViewRangeEndExclusive) => {
            end.saturating_sub(1).max(first - 1).min(known_end)
        }
        Some(end) => end.min(known_end),
    };
    // Boris reads a range with Go's line scanner, which drops the `\r`
    // before each newline (view.go:167-173); the whole file keeps it.
    let shown: Vec<&str> = lines
        .iter()
        .take(last.saturating_add(1).saturating_sub(first))
        .map(|line| line.strip_suffix('\r').unwrap_or(line))
        .collect();
    Ok(Reply::text(number_lines(
        &ctx.mutations,
        &shown,
        first,
        total.unwrap_or(last),
    )))
}

fn human_size(size: u64) -> String {
    const KB: f64 = 1024.0;
    let bytes = size as f64;
    if bytes >= KB * KB * KB {
        format!("{:.1} GB", bytes / (KB * KB * KB))
    } else if bytes >= KB * KB {
        format!("{:.1} MB", bytes / (KB * KB))
    } else if bytes >= KB {
        format!("{:.1} KB", bytes / KB)
    } else {
        format!("{size} bytes")
    }
}

// ---------------------------------------------------------------- edits

pub(super) fn str_replace(ctx: &Context, raw: &JsonObject) -> Outcome {
    let args =
        Args::new(raw, &["path", "old_str", "new_str", "replace_all"]).map_err(argument_failure)?;
    // Boris refuses an empty old_str before it looks at the path
    // (str_replace.go:29).
    let old = non_empty(&args, "old_str")?;
    let path_arg = non_empty(&args, "path")?;
    let new = args
        .opt_string("new_str")
        .map_err(argument_failure)?
        .unwrap_or_default();
    let replace_all = args
        .opt_bool("replace_all")
        .map_err(argument_failure)?
        .unwrap_or(false);
    let path = ctx.policy.resolve(&path_arg).map_err(engine_failure)?;
    let off_by_one = ctx.mutations.is_active(Mutation::AmbiguousCountOffByOne);
    let done = files::replace(
        &ctx.policy,
        &path,
        (&old, &new),
        replace_all,
        ctx.max_file_size,
        Rewrite::InPlace,
    )
        .map_err(|err| match err {
            EngineError::AmbiguousMatch { path, count } if off_by_one => {
                EngineError::AmbiguousMatch {
                    path,
                    count: count.saturating_sub(1),
                }
            }
            other => other,
        })
        .map_err(as_requested(ctx, &path_arg))?;
    let named = answer_path(ctx, &path, &path_arg);
    if replace_all {
        // Upstream says "occurrences" even for one.
        let noun = if done.count == 1 && ctx.mutations.is_active(Mutation::ReplaceAllSingular) {
            "occurrence"
        } else {
            "occurrences"
        };
        return Ok(Reply::text(format!(
            "Replaced {} {noun} in {named}",
            done.count
        )));
    }
    let content = String::from_utf8_lossy(&done.content);
    Ok(Reply::text(format!(
        "Replaced in {named}\n\n{}",
        snippet(&ctx.mutations, &content, done.first_offset, new.len())
    )))
}

/// The path a success answer names: the resolved absolute path, or (a
/// mutation) the path as the caller gave it.
fn answer_path(ctx: &Context, resolved: &std::path::Path, given: &str) -> String {
    if ctx.mutations.is_active(Mutation::AnswerNamesPathAsGiven) {
        given.to_string()
    } else {
        resolved.display().to_string()
    }
}

pub(super) fn create_file(ctx: &Context, raw: &JsonObject) -> Outcome {
    let args = Args::new(raw, &["path", "content"]).map_err(argument_failure)?;
    let content = args.string("content").map_err(argument_failure)?;
    // Boris measures the content before it looks at the path, so a content
    // too large is refused even where the path would be (create_file.go:27).
    let size = if ctx.mutations.is_active(Mutation::CreateSizeCountsChars) {
        content.chars().count() as u64
    } else {
        content.len() as u64
    };
    if size > ctx.max_file_size {
        if ctx.mutations.is_active(Mutation::PartialWrite) {
            let cut = usize::try_from(ctx.max_file_size)
                .unwrap_or(usize::MAX)
                .min(content.len());
            // The mutation imitates a broken server: its own failure is moot.
            let path = args.string("path").ok().and_then(|raw| ctx.policy.resolve(&raw).ok());
            if let Some(path) = path {
                let _ = files::write_in_place_unsafely(&ctx.policy, &path, &content.as_bytes()[..cut]);
            }
        }
        return Err(failure(
            "FILE_TOO_LARGE",
            format!("content is {size} bytes, exceeds maximum {} bytes", ctx.max_file_size),
        ));
    }
    let path_arg = non_empty(&args, "path")?;
    let path = ctx.policy.resolve(&path_arg).map_err(engine_failure)?;
    let named = dangling_link(ctx, &path_arg).unwrap_or_else(|| path.clone());
    match files::write(&ctx.policy, &path, content.as_bytes(), u64::MAX, Rewrite::InPlace) {
        Ok(outcome) => {
            let size = if ctx.mutations.is_active(Mutation::CreatedSizeInChars) {
                content.chars().count() as u64
            } else {
                outcome.bytes
            };
            Ok(Reply::text(format!(
                "Created {} ({size} bytes)",
                answer_path(ctx, &named, &path_arg)
            )))
        }
        Err(EngineError::Io {
            op: IoOp::CreateDir,
            path: parent,
            cause,
        }) => Err(failure(
            "IO_ERROR",
            format!(
                "could not create directories for {}: mkdir {}: {cause}",
                path.display(),
                first_missing(ctx, &parent).display()
            ),
        )),
        Err(err) => Err(engine_failure(err)),
    }
}

/// The folder Go's `os.MkdirAll` fails on when it cannot make `dir`: the
/// highest missing one, whose parent exists (or, failing that, `dir`).
fn first_missing(ctx: &Context, dir: &Path) -> PathBuf {
    let mut missing = dir;
    while let Some(parent) = missing.parent() {
        match ctx.policy.stat(parent) {
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => missing = parent,
            _ => break,
        }
    }
    missing.to_path_buf()
}

/// The path of a dangling symlink the caller named, its folder resolved:
/// Boris resolves a path that does not exist through its parent and keeps
/// the last name as given (pathscope.go:120-140), so it names the link
/// where the write lands on the link's target.
fn dangling_link(ctx: &Context, raw: &str) -> Option<PathBuf> {
    let lexical = ctx.policy.lexical(raw);
    let is_link = ctx.policy.lstat(&lexical).is_ok_and(|meta| meta.is_symlink());
    let leads_nowhere = matches!(ctx.policy.stat(&lexical), Err(err) if err.kind() == std::io::ErrorKind::NotFound);
    if !(is_link && leads_nowhere) {
        return None;
    }
    let folder = resolve_real(lexical.parent()?).ok()?;
    Some(folder.join(lexical.file_name()?))
}
