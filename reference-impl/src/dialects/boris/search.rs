//! `grep` (three output modes, context, paging) and `glob`, in Boris 1.0.0's
//! formats where the seed is silent: paths relative to the search folder, one
//! per line with no final newline; glob and grep's file list newest first
//! (`order`).

use std::path::Path;

use rmcp::model::JsonObject;

use super::failure::{argument_failure, as_requested, engine_failure, failure, invalid};
use super::gitignore::{GitignoreStack, Reading};
use super::grep_output::{GrepOutput, GrepParams, OutputMode};
use super::mutations::Mutation;
use super::order::{self, Dated};
use super::params::{non_empty, resolve_or_root, zero_if_negative};
use super::re2;
use super::Outcome;
use crate::dialects::common::args::Args;
use crate::dialects::{Context, Failure, Reply};
use crate::engine::files;
use crate::engine::line_search::{LinePattern, LineSearch, Want};
use crate::engine::search::{self, DirLinks, EntryKind, FileFilter, Further, WalkEntry};
use crate::mutations::Mutations;

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

/// A glob no file name matches (no name holds a NUL): the include an
/// unparsable pattern stands for.
const MATCHES_NO_NAME: &str = "\u{0}";

// ---------------------------------------------------------------- search

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
    let m = &ctx.mutations;
    let context = args.opt_int("context").map_err(argument_failure)?;
    // An explicit side overrides `context` (a mutation lets `context` win).
    let side = |explicit: Option<i64>| {
        if m.is_active(Mutation::GrepContextOverridesExplicit) {
            context.or(explicit).unwrap_or(0)
        } else {
            explicit.or(context).unwrap_or(0)
        }
    };
    let line_numbers = args
        .opt_bool("line_numbers")
        .map_err(argument_failure)?
        .unwrap_or(true);
    let params = GrepParams {
        mode,
        line_numbers: line_numbers || m.is_active(Mutation::GrepLineNumbersIgnored),
        head_limit: zero_if_negative(&args, "head_limit")?,
        offset: zero_if_negative(&args, "offset")?,
        before: side(args.opt_int("context_before").map_err(argument_failure)?),
        after: side(args.opt_int("context_after").map_err(argument_failure)?),
        multiline,
    };
    let types = match file_type {
        None => None,
        Some(name) => Some(search::compile_glob_set(type_globs(&name)?).map_err(engine_failure)?),
    };
    // Upstream adds only `(?s)` for multiline (`^` and `$` keep their whole-text
    // meaning), then `(?i)`, and compiles the result.
    let pattern = match (multiline, case_insensitive) {
        (true, true) => format!("(?i)(?s){pattern}"),
        (true, false) => format!("(?s){pattern}"),
        (false, true) => format!("(?i){pattern}"),
        (false, false) => pattern,
    };
    let pattern = re2::to_rust(&pattern)
        .map_err(|go| failure("GREP_INVALID_PATTERN", format!("invalid regex pattern: {go}")))?;
    let regex = search::compile_regex(&pattern, false, false).map_err(engine_failure)?;
    let lines = LinePattern::new(regex, &pattern, false, multiline);
    // Boris matches the include with doublestar and takes a pattern it cannot
    // parse as matching nothing (grep.go:934), never as an error.
    let include = include
        .map(|glob| search::compile_glob(&glob).or_else(|_| search::compile_glob(MATCHES_NO_NAME)))
        .transpose()
        .map_err(engine_failure)?;
    let root = resolve_or_root(ctx, path_arg.as_deref())?;
    let display = path_arg.clone().unwrap_or_default();
    let filter = FileFilter { include, types };
    let searched_a_tree = root.is_dir();
    let mut search = LineSearch::new(&lines, wanted(m, &params));
    let mut output = GrepOutput::new(m, &params, lines.regex());
    if let Further::Search { match_limit } = output.further() {
        search.set_match_limit(match_limit);
    }
    search::grep_each(
        &ctx.policy,
        &root,
        &mut GitignoreStack::new(gitignore_reading(m)),
        // Boris's grep enters links to folders, each real folder once
        // (grep.go:578-583, 648-685); its glob does not (glob.go:157).
        DirLinks::Followed,
        &display,
        &filter,
        // Boris holds only a multiline search to the size limit, which reads
        // a file whole (grep.go:828); line by line it reads any size.
        if multiline { ctx.max_file_size } else { u64::MAX },
        &mut search,
        &mut |mut hit| {
            if let (Some(include), true) = (
                &filter.include,
                m.is_active(Mutation::GrepIncludeBaseNameOnly),
            ) {
                if !include.is_match(base_name(&hit.display)) {
                    return output.further();
                }
            }
            if searched_a_tree && m.is_active(Mutation::GrepAbsolutePaths) {
                hit.display = root.join(&hit.display).display().to_string();
            }
            output.add(hit);
            output.further()
        },
    )
    .map_err(as_requested(ctx, &display))?;
    let mut text = output.finish();
    if m.is_active(Mutation::ListEndsWithNewline) && !text.is_empty() {
        text.push('\n');
    }
    Ok(Reply::text(text))
}

/// How much of each file's matches the output mode shows: whether it
/// matches, how many lines do, or the lines with their context (the
/// `grep-count-occurrences` mutation counts hits within the lines, so it
/// keeps them).
fn wanted(m: &Mutations, p: &GrepParams) -> Want {
    match p.mode {
        OutputMode::FilesWithMatches => Want::Files,
        OutputMode::Count if !m.is_active(Mutation::GrepCountOccurrences) => Want::Counts,
        OutputMode::Count => Want::Lines {
            before: 0,
            after: 0,
        },
        OutputMode::Content => Want::Lines {
            before: usize::try_from(p.before).unwrap_or(0),
            after: usize::try_from(p.after).unwrap_or(0),
        },
    }
}

/// How grep and glob read `.gitignore` files: as Boris 1.0.0 does, or as a
/// mutation has it.
fn gitignore_reading(m: &Mutations) -> Reading {
    [
        (Mutation::GitignoreIgnored, Reading::NotAtAll),
        (Mutation::GitignoreNoNegation, Reading::WithoutNegation),
        (Mutation::GitignoreRootOnly, Reading::RootOnly),
        (
            Mutation::GitignoreFolderPatternHidesFiles,
            Reading::FolderPatternsHideFiles,
        ),
        (Mutation::GitignoreAnchoredAsGit, Reading::AnchoredAsGit),
        (Mutation::GitignoreReadsParents, Reading::WithParents),
        (Mutation::GitignoreNeedsRepository, Reading::OnlyInRepository),
    ]
    .into_iter()
    .find(|(mutation, _)| m.is_active(*mutation))
    .map_or(Reading::AsBoris, |(_, reading)| reading)
}

/// The last component of a `/`-separated path.
fn base_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
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

pub(super) fn glob(ctx: &Context, raw: &JsonObject) -> Outcome {
    let args = Args::new(raw, &["pattern", "path", "type"]).map_err(argument_failure)?;
    let pattern = non_empty(&args, "pattern")?;
    let path_arg = args.opt_string("path").map_err(argument_failure)?;
    let kind_arg = args.opt_string("type").map_err(argument_failure)?;
    // Boris names the pattern and not why it fails (glob.go:72).
    let matcher = search::compile_glob(&pattern).map_err(|_| {
        failure("GLOB_INVALID_PATTERN", format!("invalid glob pattern: {pattern}"))
    })?;
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
    let m = &ctx.mutations;
    // The engine matches the path relative to the search folder or, as
    // upstream, the base name at any depth; a mutation keeps only the former.
    let mut found: Vec<Dated<String>> = search::glob(
        &ctx.policy,
        &root,
        &mut GitignoreStack::new(gitignore_reading(m)),
        &matcher,
        kind,
    )
        .into_iter()
        .filter(|e| !m.is_active(Mutation::GlobTopLevelOnly) || matcher.is_match(&e.relative))
        .filter(|e| {
            !m.is_active(Mutation::GlobHidesDotfiles) || !base_name(&e.relative).starts_with('.')
        })
        .map(|e| Dated {
            modified: e.modified,
            item: glob_line(ctx, &root, &e),
        })
        .collect();
    if found.is_empty() {
        let none = if m.is_active(Mutation::GlobNoMatchEmpty) {
            ""
        } else {
            "No files found"
        };
        return Ok(Reply::text(none));
    }
    if m.is_active(Mutation::GlobPathOrder) {
        found.sort_by(|a, b| a.item.cmp(&b.item));
    } else if m.is_active(Mutation::GlobOldestFirst) {
        order::newest_first(m, &mut found);
        found.reverse();
    } else {
        order::newest_first(m, &mut found);
    }
    let lines: Vec<String> = found.into_iter().map(|f| f.item).collect();
    let mut text = lines.join("\n");
    if m.is_active(Mutation::ListEndsWithNewline) {
        text.push('\n');
    }
    Ok(Reply::text(text))
}

/// How glob names a found entry: its path relative to the search folder (or a
/// mutation's absolute path, root-relative path, or directory with a `/`).
fn glob_line(ctx: &Context, search_root: &Path, entry: &WalkEntry) -> String {
    let m = &ctx.mutations;
    let mut line = if m.is_active(Mutation::GlobAbsolutePaths) {
        entry.path.display().to_string()
    } else if m.is_active(Mutation::GlobRelativeToRoot) {
        let absolute = search_root.join(&entry.relative);
        absolute
            .strip_prefix(ctx.policy.root())
            .unwrap_or(&absolute)
            .display()
            .to_string()
    } else {
        entry.relative.clone()
    };
    if entry.is_dir && m.is_active(Mutation::GlobDirsWithSlash) {
        line.push('/');
    }
    line
}
