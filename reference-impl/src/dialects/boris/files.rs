//! The file tools: `view` (numbered lines, or a directory listing),
//! `str_replace` (with a numbered snippet around the edit) and
//! `create_file`.

use rmcp::model::JsonObject;

use super::failure::{argument_failure, as_requested, engine_failure, invalid};
use super::mutations::Mutation;
use super::params::non_empty;
use super::Outcome;
use crate::dialects::common::args::Args;
use crate::dialects::{Context, Reply};
use crate::engine::{files, EngineError};

/// Lines shown by `view` without a range, and characters per shown line.
const MAX_VIEW_LINES: usize = 2000;
const MAX_LINE_CHARS: usize = 2000;
/// Lines of context on each side of an edit in the `str_replace` snippet.
const SNIPPET_CONTEXT: usize = 4;

pub(super) fn view(ctx: &Context, raw: &JsonObject) -> Outcome {
    let args = Args::new(raw, &["path", "view_range"]).map_err(argument_failure)?;
    let path_arg = non_empty(&args, "path")?;
    let range = match args.opt_int_array("view_range").map_err(argument_failure)? {
        None => None,
        Some(pair) if pair.len() == 2 => Some((pair[0], pair[1])),
        Some(other) => {
            return Err(invalid(format!(
                "invalid view_range: expected [start, end], got {} numbers",
                other.len()
            )))
        }
    };
    let path = ctx.policy.resolve(&path_arg).map_err(engine_failure)?;
    let meta = files::stat(&ctx.policy, &path).map_err(as_requested(ctx, &path_arg))?;
    if meta.is_dir() {
        let listing: String = files::list_dir(&ctx.policy, &path)
            .map_err(engine_failure)?
            .into_iter()
            .map(|e| {
                if e.is_dir {
                    format!("{}/\n", e.name)
                } else {
                    format!("{}\n", e.name)
                }
            })
            .collect();
        return Ok(Reply::text(listing));
    }
    let content = files::read(&ctx.policy, &path, ctx.max_file_size).map_err(engine_failure)?;
    if content.iter().take(512).any(|&b| b == 0) {
        return Ok(Reply::text(format!(
            "Binary file ({})",
            human_size(content.len() as u64)
        )));
    }
    let text = String::from_utf8_lossy(&content);
    let lines = split_lines(&text);
    let Some((start, end)) = range else {
        let shown = &lines[..lines.len().min(MAX_VIEW_LINES)];
        let mut out = number_lines(shown, 1);
        if lines.len() > MAX_VIEW_LINES {
            out.push_str(&format!(
                "\n[Truncated: file has {} lines. Use view_range to read specific sections.]",
                lines.len()
            ));
        }
        return Ok(Reply::text(out));
    };
    if start < 1 {
        return Err(invalid(format!(
            "invalid view_range: start must be >= 1, got {start}"
        )));
    }
    if end != -1 && start > end {
        return Err(invalid(format!(
            "invalid view_range: start {start} > end {end}"
        )));
    }
    let total = lines.len();
    let first = usize::try_from(start).unwrap_or(usize::MAX);
    if first > total {
        return Err(invalid(format!(
            "invalid view_range: start {start} exceeds total lines {total} in {}",
            path.display()
        )));
    }
    let last = if end == -1 {
        total
    } else {
        usize::try_from(end).unwrap_or(usize::MAX).min(total)
    };
    Ok(Reply::text(number_lines(&lines[first - 1..last], first)))
}

/// Splits text into lines; a final newline does not start another line.
fn split_lines(text: &str) -> Vec<&str> {
    let mut lines: Vec<&str> = text.split('\n').collect();
    if lines.last() == Some(&"") {
        lines.pop();
    }
    lines
}

/// `<n>\t<line>\n` per line, `n` right-aligned to the last number's width.
fn number_lines(lines: &[&str], first: usize) -> String {
    let width = (first + lines.len().saturating_sub(1)).to_string().len();
    lines
        .iter()
        .enumerate()
        .map(|(i, line)| format!("{:>width$}\t{}\n", first + i, truncate_line(line)))
        .collect()
}

fn truncate_line(line: &str) -> std::borrow::Cow<'_, str> {
    match line.char_indices().nth(MAX_LINE_CHARS) {
        None => line.into(),
        Some((cut, _)) => format!(
            "{}... [truncated, {} chars total]",
            &line[..cut],
            line.chars().count()
        )
        .into(),
    }
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
    let path_arg = non_empty(&args, "path")?;
    let old = non_empty(&args, "old_str")?;
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
    let done = files::replace(&ctx.policy, &path, &old, &new, replace_all, ctx.max_file_size)
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
    if replace_all {
        return Ok(Reply::text(format!(
            "Replaced {} occurrences in {}",
            done.count,
            path.display()
        )));
    }
    let content = String::from_utf8_lossy(&done.content);
    Ok(Reply::text(format!(
        "Replaced in {}\n\n{}",
        path.display(),
        snippet(&content, done.first_offset)
    )))
}

/// The numbered lines around byte `offset` (a few on each side).
fn snippet(content: &str, offset: usize) -> String {
    let lines = split_lines(content);
    if lines.is_empty() {
        return String::new();
    }
    let target = content.as_bytes()[..offset.min(content.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count();
    let target = target.min(lines.len() - 1);
    let start = target.saturating_sub(SNIPPET_CONTEXT);
    let end = (target + SNIPPET_CONTEXT + 1).min(lines.len());
    number_lines(&lines[start..end], start + 1)
}

pub(super) fn create_file(ctx: &Context, raw: &JsonObject) -> Outcome {
    let args = Args::new(raw, &["path", "content"]).map_err(argument_failure)?;
    let path_arg = non_empty(&args, "path")?;
    let content = args.string("content").map_err(argument_failure)?;
    let path = ctx.policy.resolve(&path_arg).map_err(engine_failure)?;
    let limit = if ctx.mutations.is_active(Mutation::CreateSizeCountsChars) {
        // The mutation checks the character count itself, then writes unchecked.
        let chars = content.chars().count() as u64;
        if chars > ctx.max_file_size {
            return Err(engine_failure(EngineError::TooLarge {
                path,
                size: chars,
                limit: ctx.max_file_size,
            }));
        }
        u64::MAX
    } else {
        ctx.max_file_size
    };
    match files::write_atomic(&ctx.policy, &path, content.as_bytes(), limit) {
        Ok(outcome) => Ok(Reply::text(format!(
            "Created {} ({} bytes)",
            path.display(),
            outcome.bytes
        ))),
        Err(err @ EngineError::TooLarge { limit, .. }) => {
            if ctx.mutations.is_active(Mutation::PartialWrite) {
                let cut = usize::try_from(limit)
                    .unwrap_or(usize::MAX)
                    .min(content.len());
                // The mutation imitates a broken server: its own failure is moot.
                let _ = files::write_in_place_unsafely(&ctx.policy, &path, &content.as_bytes()[..cut]);
            }
            Err(engine_failure(err))
        }
        Err(err) => Err(engine_failure(err)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbering_aligns_to_the_last_number() {
        let lines: Vec<&str> = vec!["a"; 10];
        let text = number_lines(&lines, 1);
        assert!(text.starts_with(" 1\ta\n"));
        assert!(text.ends_with("10\ta\n"));
        assert_eq!(number_lines(&["x", "y"], 99), " 99\tx\n100\ty\n");
    }

    #[test]
    fn snippet_centres_on_the_edit() {
        let content = (1..=20).map(|n| format!("line {n}\n")).collect::<String>();
        let offset = content.find("line 10").expect("present");
        let text = snippet(&content, offset);
        assert!(text.starts_with(" 6\tline 6\n"), "{text}");
        assert!(text.ends_with("14\tline 14\n"), "{text}");
    }
}
