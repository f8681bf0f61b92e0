//! `grep` (three output modes, context, paging) and `glob`.

use std::time::SystemTime;

use rmcp::model::JsonObject;

use super::failure::{argument_failure, as_requested, engine_failure, failure, invalid};
use super::mutations::Mutation;
use super::params::{non_empty, non_negative, resolve_or_root};
use super::Outcome;
use crate::dialects::common::args::Args;
use crate::dialects::{Context, Failure, Reply};
use crate::engine::files;
use crate::engine::search::{self, EntryKind, FileFilter, FileHits};

/// File types accepted by grep's `type`, with their name globs.
const FILE_TYPES: &[(&str, &[&str])] = &[
    ("c", &["*.c", "*.h"]),
    (
        "cpp",
        &[
            "*.cpp", "*.cc", "*.cxx", "*.hpp", "*.hh", "*.hxx", "*.h", "*.inl",
        ],
    ),
    ("css", &["*.css", "*.scss"]),
    ("go", &["*.go"]),
    ("html", &["*.html", "*.htm"]),
    ("java", &["*.java"]),
    ("js", &["*.js", "*.mjs", "*.cjs", "*.jsx"]),
    ("json", &["*.json"]),
    ("markdown", &["*.md", "*.markdown", "*.mdx"]),
    ("py", &["*.py", "*.pyi"]),
    ("rust", &["*.rs"]),
    ("ts", &["*.ts", "*.tsx", "*.mts", "*.cts"]),
    ("yaml", &["*.yml", "*.yaml"]),
];
const FILE_TYPE_ALIASES: &[(&str, &str)] =
    &[("md", "markdown"), ("python", "py"), ("typescript", "ts")];

// ---------------------------------------------------------------- search

/// grep's output modes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum OutputMode {
    FilesWithMatches,
    Content,
    Count,
}

struct GrepParams {
    mode: OutputMode,
    line_numbers: bool,
    head_limit: usize,
    offset: usize,
    before: usize,
    after: usize,
}

pub(super) fn grep(ctx: &Context, raw: &JsonObject) -> Outcome {
    let args = Args::new(
        raw,
        &[
            "pattern",
            "path",
            "include",
            "type",
            "output_mode",
            "case_insensitive",
            "line_numbers",
            "multiline",
            "head_limit",
            "offset",
            "context_before",
            "context_after",
            "context",
        ],
    )
    .map_err(argument_failure)?;
    let pattern = non_empty(&args, "pattern")?;
    let path_arg = args.opt_string("path").map_err(argument_failure)?;
    let include = args
        .opt_string("include")
        .map_err(argument_failure)?
        .filter(|s| !s.is_empty());
    let file_type = args
        .opt_string("type")
        .map_err(argument_failure)?
        .filter(|s| !s.is_empty());
    let mode = match args
        .opt_string("output_mode")
        .map_err(argument_failure)?
        .as_deref()
    {
        None | Some("") | Some("files_with_matches") => OutputMode::FilesWithMatches,
        Some("content") => OutputMode::Content,
        Some("count") => OutputMode::Count,
        Some(other)
            if ctx
                .mutations
                .is_active(Mutation::OutputModeWithoutValidValues) =>
        {
            return Err(failure(
                "GREP_INVALID_OUTPUT_MODE",
                format!("invalid output_mode \"{other}\""),
            ))
        }
        Some(other) => {
            return Err(failure(
                "GREP_INVALID_OUTPUT_MODE",
                format!(
                "invalid output_mode \"{other}\"; valid values: content, files_with_matches, count"
            ),
            ))
        }
    };
    let case_insensitive = args
        .opt_bool("case_insensitive")
        .map_err(argument_failure)?
        .unwrap_or(false);
    let multiline = args
        .opt_bool("multiline")
        .map_err(argument_failure)?
        .unwrap_or(false);
    let context = non_negative(&args, "context")?;
    let params = GrepParams {
        mode,
        line_numbers: args
            .opt_bool("line_numbers")
            .map_err(argument_failure)?
            .unwrap_or(true),
        head_limit: non_negative(&args, "head_limit")?.unwrap_or(0),
        offset: non_negative(&args, "offset")?.unwrap_or(0),
        before: non_negative(&args, "context_before")?
            .or(context)
            .unwrap_or(0),
        after: non_negative(&args, "context_after")?
            .or(context)
            .unwrap_or(0),
    };
    let types = match file_type {
        None => None,
        Some(name) => Some(search::compile_glob_set(type_globs(&name)?).map_err(engine_failure)?),
    };
    let regex =
        search::compile_regex(&pattern, case_insensitive, multiline).map_err(engine_failure)?;
    let include = include
        .map(|glob| search::compile_glob(&glob))
        .transpose()
        .map_err(engine_failure)?;
    let root = resolve_or_root(ctx, path_arg.as_deref())?;
    let display = path_arg.clone().unwrap_or_default();
    let filter = FileFilter { include, types };
    let hits = search::grep(
        &ctx.policy,
        &root,
        &display,
        &regex,
        multiline,
        &filter,
        ctx.max_file_size,
    )
    .map_err(as_requested(ctx, &display))?;
    Ok(Reply::text(render_grep(hits, &params)))
}

fn type_globs(name: &str) -> Result<&'static [&'static str], Failure> {
    let canonical = FILE_TYPE_ALIASES
        .iter()
        .find(|(alias, _)| *alias == name)
        .map_or(name, |(_, c)| *c);
    FILE_TYPES
        .iter()
        .find(|(n, _)| *n == canonical)
        .map(|(_, globs)| *globs)
        .ok_or_else(|| {
            let mut names: Vec<&str> = FILE_TYPES.iter().map(|(n, _)| *n).collect();
            names.extend(FILE_TYPE_ALIASES.iter().map(|(a, _)| *a));
            names.sort_unstable();
            invalid(format!(
                "invalid type \"{name}\"; valid types: {}",
                names.join(", ")
            ))
        })
}

fn window<T>(items: Vec<T>, offset: usize, head_limit: usize) -> Vec<T> {
    let rest = items.into_iter().skip(offset);
    if head_limit > 0 {
        rest.take(head_limit).collect()
    } else {
        rest.collect()
    }
}

fn render_grep(mut hits: Vec<FileHits>, p: &GrepParams) -> String {
    let lines: Vec<String> = match p.mode {
        OutputMode::FilesWithMatches => {
            // Newest first, as upstream; the sort is stable, so equal times keep path order.
            hits.sort_by_key(|h| std::cmp::Reverse(h.modified.unwrap_or(SystemTime::UNIX_EPOCH)));
            window(
                hits.into_iter().map(|h| h.display).collect(),
                p.offset,
                p.head_limit,
            )
        }
        OutputMode::Count => window(
            hits.into_iter()
                .map(|h| format!("{}:{}", h.display, h.matched.len()))
                .collect(),
            p.offset,
            p.head_limit,
        ),
        OutputMode::Content => {
            let mut out = Vec::new();
            for (i, hit) in hits.iter().enumerate() {
                if i > 0 {
                    out.push("--".to_string());
                }
                out.extend(content_lines(hit, p));
            }
            window(out, p.offset, p.head_limit)
        }
    };
    lines.join("\n")
}

/// One file's match and context lines, `--` between separate groups.
fn content_lines(hit: &FileHits, p: &GrepParams) -> Vec<String> {
    let total = hit.lines.len();
    let mut groups: Vec<(usize, usize)> = Vec::new();
    for &n in &hit.matched {
        let start = n.saturating_sub(p.before).max(1);
        let end = (n + p.after).min(total);
        match groups.last_mut() {
            Some(last) if start <= last.1 + 1 => last.1 = last.1.max(end),
            _ => groups.push((start, end)),
        }
    }
    let mut out = Vec::new();
    for (gi, (start, end)) in groups.into_iter().enumerate() {
        if gi > 0 {
            out.push("--".to_string());
        }
        for n in start..=end {
            let line = &hit.lines[n - 1];
            let sep = if hit.matched.binary_search(&n).is_ok() {
                ':'
            } else {
                '-'
            };
            out.push(if p.line_numbers {
                format!("{}{sep}{n}{sep}{line}", hit.display)
            } else {
                format!("{}{sep}{line}", hit.display)
            });
        }
    }
    out
}

pub(super) fn glob(ctx: &Context, raw: &JsonObject) -> Outcome {
    let args = Args::new(raw, &["pattern", "path", "type"]).map_err(argument_failure)?;
    let pattern = non_empty(&args, "pattern")?;
    let path_arg = args.opt_string("path").map_err(argument_failure)?;
    let kind_arg = args.opt_string("type").map_err(argument_failure)?;
    let matcher = search::compile_glob(&pattern).map_err(engine_failure)?;
    let kind = match kind_arg.as_deref() {
        None | Some("") => EntryKind::Any,
        Some("file") => EntryKind::File,
        Some("directory") => EntryKind::Directory,
        Some(other) => {
            return Err(failure(
                "GLOB_INVALID_TYPE",
                format!("invalid type \"{other}\"; valid values: file, directory"),
            ))
        }
    };
    let root = resolve_or_root(ctx, path_arg.as_deref())?;
    // The seed makes a missing path PATH_NOT_FOUND for every tool (upstream
    // answers "No files found"); a regular file finds nothing, as upstream.
    files::stat(&ctx.policy, &root).map_err(as_requested(ctx, path_arg.as_deref().unwrap_or("")))?;
    let found = search::glob(&ctx.policy, &root, &matcher, kind);
    if found.is_empty() {
        return Ok(Reply::text("No files found"));
    }
    let lines: Vec<String> = found.iter().map(|p| p.display().to_string()).collect();
    Ok(Reply::text(lines.join("\n")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_mode_groups_context() {
        let hit = FileHits {
            display: "f.txt".into(),
            lines: ["a", "b", "MATCH", "c", "d", "e", "f", "MATCH"]
                .iter()
                .map(|s| s.to_string())
                .collect(),
            matched: vec![3, 8],
            modified: None,
        };
        let p = GrepParams {
            mode: OutputMode::Content,
            line_numbers: true,
            head_limit: 0,
            offset: 0,
            before: 1,
            after: 1,
        };
        assert_eq!(
            content_lines(&hit, &p),
            vec![
                "f.txt-2-b",
                "f.txt:3:MATCH",
                "f.txt-4-c",
                "--",
                "f.txt-7-f",
                "f.txt:8:MATCH"
            ]
        );
    }
}
