//! The `boris` dialect (mjkoo/boris, seeds 000 and 001).
//!
//! Errors are `isError: true` with the text `[CODE] message`, no trailing
//! period. Where the seed is silent, formats follow the upstream program:
//!
//! - `bash`: `exit_code: N\n`, then `\nstderr:\n…` and `\nstdout:\n…` when
//!   non-empty. A timeout kills the process group and is a normal result that
//!   starts with `Command timed out after <ms> ms\n\n`, then `exit_code: -1`.
//! - `view` of a file: `<n>\t<line>\n` with `n` right-aligned to the width of
//!   the last shown number; at most 2000 lines (then a `[Truncated: …]` note)
//!   and 2000 characters per line. A binary file (NUL in its first 512 bytes)
//!   is `Binary file (<size>)`. A directory: one entry per line, sorted,
//!   directories with a trailing `/`.
//! - `grep`: `files_with_matches` lists paths (newest first, ties in path
//!   order); `count` lists `path:N`; `content` lists `path:N:line` for
//!   matches and `path-N-line` for context, `--` between groups and files.
//!   Paths are relative to a searched directory, or the `path` argument as
//!   given when it names a file. No match is an empty text.
//! - `glob`: absolute paths, sorted, one per line; `No files found` if none.
//!   A missing `path` is `PATH_NOT_FOUND` (the seed's rule for every tool).
//!
//! IO errors that happen as root (where permission bits do not apply):
//! a path through a regular file (`file.txt/child`, ENOTDIR) is
//! `could not stat <p>: not a directory`, as in Go, where ENOTDIR is not
//! "does not exist"; a directory given to `str_replace` is
//! `could not read <p>: is a directory`; a FIFO given to `view` is
//! `could not read <p>: not a regular file`; a directory given to
//! `create_file` is `could not write <p>: is a directory`.

mod mutations;

use crate::dialects::common::tool_schema::closed_object_tool as tool;
use std::path::Path;
use std::time::{Duration, SystemTime};

use rmcp::model::{JsonObject, Tool};
use serde_json::json;

use super::{Adapter, Call, Context, Failure, Rendered, Reply};
use crate::dialects::common::args::{ArgError, Args};
use crate::engine::error::DenyReason;
use crate::engine::search::{self, EntryKind, FileFilter, FileHits};
use crate::engine::shell::{CommandOutput, TaskStatus, MAX_BACKGROUND_TASKS};
use crate::engine::{files, EngineError};
use crate::mutations::{MutationInfo, Mutations};
use mutations::Mutation;

/// Lines shown by `view` without a range, and characters per shown line.
const MAX_VIEW_LINES: usize = 2000;
const MAX_LINE_CHARS: usize = 2000;
/// Lines of context on each side of an edit in the `str_replace` snippet.
const SNIPPET_CONTEXT: usize = 4;

const INVALID_INPUT: &str = "INVALID_INPUT";

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

/// The boris tool list, with upstream's names and parameters.
pub(crate) fn tools() -> Vec<Tool> {
    vec![
        tool(
            "bash",
            "Run a shell command in the working directory.",
            json!({
                "command": {"type": "string", "description": "the shell command to execute"},
                "timeout": {"type": "integer", "description": "timeout in milliseconds"},
                "run_in_background": {"type": "boolean", "description": "run the command in the background and return a task id"},
                "description": {"type": "string", "description": "what the command does"},
            }),
            &["command"],
        ),
        tool(
            "task_output",
            "Get the status and output of a background task.",
            json!({"task_id": {"type": "string", "description": "the id returned by bash with run_in_background"}}),
            &["task_id"],
        ),
        tool(
            "view",
            "View a file with line numbers, or list a directory.",
            json!({
                "path": {"type": "string", "description": "file or directory path to view"},
                "view_range": {"type": "array", "items": {"type": "integer"}, "description": "optional line range [start, end] (1-indexed, end -1 = to the end)"},
            }),
            &["path"],
        ),
        tool(
            "str_replace",
            "Replace a unique string in a file.",
            json!({
                "path": {"type": "string", "description": "file path"},
                "old_str": {"type": "string", "description": "the string to find (must be unique unless replace_all is true)"},
                "new_str": {"type": "string", "description": "replacement string (empty or omitted to delete)"},
                "replace_all": {"type": "boolean", "description": "replace all occurrences instead of requiring a unique match"},
            }),
            &["path", "old_str"],
        ),
        tool(
            "create_file",
            "Create or overwrite a file, making parent directories.",
            json!({
                "path": {"type": "string", "description": "file path"},
                "content": {"type": "string", "description": "the full file content"},
            }),
            &["path", "content"],
        ),
        tool(
            "grep",
            "Search file contents with a regular expression.",
            json!({
                "pattern": {"type": "string", "description": "the regex pattern to search for in file contents"},
                "path": {"type": "string", "description": "file or directory to search in (defaults to the working directory)"},
                "include": {"type": "string", "description": "glob pattern to filter files (e.g. '*.js')"},
                "type": {"type": "string", "description": "file type to search (e.g. js, py, go, ts)"},
                "output_mode": {"type": "string", "description": "content, files_with_matches (default), or count"},
                "case_insensitive": {"type": "boolean"},
                "line_numbers": {"type": "boolean", "description": "show line numbers in content mode (default true)"},
                "multiline": {"type": "boolean", "description": "let . match newlines and patterns span lines"},
                "head_limit": {"type": "integer", "description": "limit output to the first N results (0 = unlimited)"},
                "offset": {"type": "integer", "description": "skip the first N results"},
                "context_before": {"type": "integer"},
                "context_after": {"type": "integer"},
                "context": {"type": "integer"},
            }),
            &["pattern"],
        ),
        tool(
            "glob",
            "Find files and directories by glob pattern.",
            json!({
                "pattern": {"type": "string", "description": "the glob pattern to match paths against"},
                "path": {"type": "string", "description": "the directory to search in (defaults to the working directory)"},
                "type": {"type": "string", "description": "filter by type: file or directory"},
            }),
            &["pattern"],
        ),
    ]
}

/// Mutations that report one code as another: (mutation, honest code, reported code).
const RECODED: &[(Mutation, &str, &str)] = &[
    (Mutation::WrongCode, "PATH_NOT_FOUND", "IO_ERROR"),
    (
        Mutation::EmptyCommandAsInvalidInput,
        "BASH_EMPTY_COMMAND",
        INVALID_INPUT,
    ),
    (
        Mutation::AmbiguousAsNotFound,
        "STR_REPLACE_AMBIGUOUS",
        "STR_REPLACE_NOT_FOUND",
    ),
    (
        Mutation::DeniedAsNotFound,
        "ACCESS_DENIED",
        "PATH_NOT_FOUND",
    ),
    (
        Mutation::BadRegexAsInvalidInput,
        "GREP_INVALID_PATTERN",
        INVALID_INPUT,
    ),
];

/// Writes a reply as boris does: `[CODE] message` errors, plain successes.
pub(crate) fn render(mutations: &Mutations, reply: Reply) -> Rendered {
    match reply {
        Reply::Success { text, exit_code } => Rendered {
            text,
            is_error: mutations.flags_nonzero_exit(Mutation::ErrorOnNonzeroExit, exit_code),
        },
        Reply::Failure(mut failure) => {
            if let Some((_, _, to)) = RECODED
                .iter()
                .find(|(name, from, _)| *from == failure.code && mutations.is_active(*name))
            {
                failure.code = to;
            }
            if mutations.is_active(Mutation::TooLargeMessageWithoutPath)
                && failure.code == "FILE_TOO_LARGE"
            {
                for path in failure.paths.iter().filter(|p| !p.is_empty()) {
                    failure.message = failure.message.replace(&format!(" {path}"), "");
                }
            }
            if mutations.is_active(Mutation::IoErrorBareCause) && failure.code == "IO_ERROR" {
                if let Some((_, cause)) = failure.message.rsplit_once(": ") {
                    failure.message = cause.to_string();
                }
            }
            if mutations.is_active(Mutation::DropPathFromMessage) {
                for path in failure.paths.iter().filter(|p| !p.is_empty()) {
                    failure.message = failure.message.replace(path.as_str(), "the file");
                }
            }
            Rendered {
                text: code_line(mutations, failure.code, &failure.message),
                is_error: !mutations.is_active(Mutation::OmitIsError),
            }
        }
    }
}

/// `[CODE] message`, or one of its mutated spellings.
fn code_line(mutations: &Mutations, code: &str, message: &str) -> String {
    if mutations.is_active(Mutation::DropCodePrefix) {
        return message.to_string();
    }
    let code = if mutations.is_active(Mutation::LowercaseCode) {
        code.to_ascii_lowercase()
    } else {
        code.to_string()
    };
    let space = if mutations.is_active(Mutation::NoSpaceAfterCode) {
        ""
    } else if mutations.is_active(Mutation::DoubleSpaceAfterCode) {
        "  "
    } else {
        " "
    };
    format!("[{code}]{space}{message}")
}

/// Runs one boris tool; `None` for an unknown tool name.
pub(crate) async fn call(ctx: &Context, name: &str, args: &JsonObject) -> Option<Reply> {
    let outcome = match name {
        "bash" => bash(ctx, args).await,
        "task_output" => task_output(ctx, args),
        "view" => view(ctx, args),
        "str_replace" => str_replace(ctx, args),
        "create_file" => create_file(ctx, args),
        "grep" => grep(ctx, args),
        "glob" => glob(ctx, args),
        _ => return None,
    };
    Some(outcome.unwrap_or_else(Reply::Failure))
}

type Outcome = Result<Reply, Failure>;

fn failure(code: &'static str, message: impl Into<String>) -> Failure {
    Failure::new(code, message)
}

fn invalid(message: impl Into<String>) -> Failure {
    failure(INVALID_INPUT, message)
}

impl From<ArgError> for Failure {
    fn from(err: ArgError) -> Failure {
        invalid(err.message())
    }
}

impl From<EngineError> for Failure {
    fn from(err: EngineError) -> Failure {
        let with_path = |code, message: String, path: &Path| Failure {
            paths: vec![path.display().to_string()],
            ..Failure::new(code, message)
        };
        match err {
            EngineError::InvalidInput(message) => invalid(message),
            EngineError::NotFound { path } => {
                with_path("PATH_NOT_FOUND", format!("{} does not exist", path.display()), &path)
            }
            EngineError::AccessDenied { path, reason } => {
                let why = match reason {
                    DenyReason::OutsideAllowedDirs => "is outside allowed directories".to_string(),
                    DenyReason::MatchesDenyPattern(pattern) => format!("matches deny pattern \"{pattern}\""),
                };
                let message = format!("path not allowed: access denied: path \"{}\" {why}", path.display());
                with_path("ACCESS_DENIED", message, &path)
            }
            EngineError::TooLarge { path, size, limit } => with_path(
                "FILE_TOO_LARGE",
                format!("file {} is {size} bytes, exceeds maximum {limit} bytes", path.display()),
                &path,
            ),
            EngineError::Io { op, path, cause } => {
                with_path("IO_ERROR", format!("could not {op} {}: {cause}", path.display()), &path)
            }
            EngineError::StringNotFound { path } => {
                with_path("STR_REPLACE_NOT_FOUND", format!("old_str not found in {}", path.display()), &path)
            }
            EngineError::AmbiguousMatch { path, count } => with_path(
                "STR_REPLACE_AMBIGUOUS",
                format!(
                    "found {count} occurrences in {}; match must be unique (use replace_all to replace all)",
                    path.display()
                ),
                &path,
            ),
            EngineError::InvalidRegex { message } => {
                failure("GREP_INVALID_PATTERN", format!("invalid regex pattern: {message}"))
            }
            EngineError::InvalidGlob { pattern, message } => {
                failure("GLOB_INVALID_PATTERN", format!("invalid glob pattern \"{pattern}\": {message}"))
            }
            EngineError::StartFailed { cause } => {
                failure("BASH_START_FAILED", format!("could not start command: {cause}"))
            }
            EngineError::TaskLimit { limit } => failure(
                "BASH_TASK_LIMIT",
                format!("cannot start background task: maximum concurrent background task limit ({limit}) reached"),
            ),
            EngineError::TaskNotFound { id } => failure("BASH_TASK_NOT_FOUND", format!("task not found: {id}")),
        }
    }
}

/// A required string parameter that must not be empty.
fn non_empty(args: &Args, name: &'static str) -> Result<String, Failure> {
    let value = args.string(name)?;
    if value.is_empty() {
        return Err(invalid(format!("{name} must not be empty")));
    }
    Ok(value)
}

/// An optional integer parameter that must not be negative.
fn non_negative(args: &Args, name: &'static str) -> Result<Option<usize>, Failure> {
    match args.opt_int(name)? {
        None => Ok(None),
        Some(n) => usize::try_from(n)
            .map(Some)
            .map_err(|_| invalid(format!("{name} must not be negative, got {n}"))),
    }
}

/// Names a missing path the way the caller wrote it (made absolute), so a
/// dangling symlink is reported by its own name rather than its target's.
fn as_requested(ctx: &Context, raw: &str) -> impl Fn(EngineError) -> Failure {
    let requested = ctx.policy.lexical(raw);
    let name_target = ctx.mutations.is_active(Mutation::NameSymlinkTarget);
    move |err| match err {
        EngineError::NotFound { .. } if !name_target => EngineError::NotFound {
            path: requested.clone(),
        }
        .into(),
        other => other.into(),
    }
}

/// Resolves an optional path parameter, defaulting to the root.
fn resolve_or_root(ctx: &Context, raw: Option<&str>) -> Result<std::path::PathBuf, Failure> {
    match raw {
        None | Some("") => Ok(ctx.policy.root().to_path_buf()),
        Some(raw) => Ok(ctx.policy.resolve(raw)?),
    }
}

// ---------------------------------------------------------------- bash

async fn bash(ctx: &Context, raw: &JsonObject) -> Outcome {
    let args = Args::new(
        raw,
        &["command", "timeout", "run_in_background", "description"],
    )?;
    let command = args.string("command")?;
    let timeout_ms = args.opt_int("timeout")?;
    let background = args.opt_bool("run_in_background")?.unwrap_or(false);
    args.opt_string("description")?;
    let blank = if ctx.mutations.is_active(Mutation::BlankCommandRuns) {
        command.is_empty()
    } else {
        command.trim().is_empty()
    };
    if blank {
        return Err(failure("BASH_EMPTY_COMMAND", "command must not be empty"));
    }
    let explicit_timeout = timeout_ms
        .filter(|ms| *ms > 0)
        .map(|ms| Duration::from_millis(ms.unsigned_abs()));
    if background {
        if ctx.mutations.is_active(Mutation::TaskLimitOffByOne)
            && ctx.shell.task_count() + 1 >= MAX_BACKGROUND_TASKS
        {
            return Err(EngineError::TaskLimit {
                limit: MAX_BACKGROUND_TASKS,
            }
            .into());
        }
        let id = ctx.shell.start_background(&command, explicit_timeout)?;
        return Ok(Reply::text(format!(
            "task_id: {id}\nCommand started in background."
        )));
    }
    let mut output = ctx
        .shell
        .run(&command, explicit_timeout.unwrap_or(ctx.default_timeout))
        .await?;
    if ctx.mutations.is_active(Mutation::NonzeroExitDropsStderr) && output.exit_code != 0 {
        output.stderr.clear();
    }
    Ok(Reply::Success {
        text: render_command(&output),
        exit_code: Some(output.exit_code),
    })
}

/// `[timeout note]exit_code: N\n[\nstderr:\n…][\nstdout:\n…]`.
fn render_command(output: &CommandOutput) -> String {
    let mut text = String::new();
    if let Some(limit) = output.timed_out_after {
        text.push_str(&format!(
            "Command timed out after {} ms\n\n",
            limit.as_millis()
        ));
    }
    text.push_str(&format!("exit_code: {}\n", output.exit_code));
    text.push_str(&render_streams(&output.stdout, &output.stderr));
    text
}

fn render_streams(stdout: &str, stderr: &str) -> String {
    let mut text = String::new();
    if !stderr.is_empty() {
        text.push_str("\nstderr:\n");
        text.push_str(stderr);
    }
    if !stdout.is_empty() {
        text.push_str("\nstdout:\n");
        text.push_str(stdout);
    }
    text
}

fn task_output(ctx: &Context, raw: &JsonObject) -> Outcome {
    let args = Args::new(raw, &["task_id"])?;
    let id = non_empty(&args, "task_id")?;
    Ok(match ctx.shell.task_status(&id)? {
        TaskStatus::Running { stdout, stderr } => Reply::text(format!(
            "status: running\n{}",
            render_streams(&stdout, &stderr)
        )),
        TaskStatus::Completed(output) => Reply::Success {
            text: format!("status: completed\n{}", render_command(&output)),
            exit_code: Some(output.exit_code),
        },
    })
}

// ---------------------------------------------------------------- view

fn view(ctx: &Context, raw: &JsonObject) -> Outcome {
    let args = Args::new(raw, &["path", "view_range"])?;
    let path_arg = non_empty(&args, "path")?;
    let range = match args.opt_int_array("view_range")? {
        None => None,
        Some(pair) if pair.len() == 2 => Some((pair[0], pair[1])),
        Some(other) => {
            return Err(invalid(format!(
                "invalid view_range: expected [start, end], got {} numbers",
                other.len()
            )))
        }
    };
    let path = ctx.policy.resolve(&path_arg)?;
    let meta = files::stat(&path).map_err(as_requested(ctx, &path_arg))?;
    if meta.is_dir() {
        let listing: String = files::list_dir(&path)?
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
    let content = files::read(&path, ctx.max_file_size)?;
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

fn str_replace(ctx: &Context, raw: &JsonObject) -> Outcome {
    let args = Args::new(raw, &["path", "old_str", "new_str", "replace_all"])?;
    let path_arg = non_empty(&args, "path")?;
    let old = non_empty(&args, "old_str")?;
    let new = args.opt_string("new_str")?.unwrap_or_default();
    let replace_all = args.opt_bool("replace_all")?.unwrap_or(false);
    let path = ctx.policy.resolve(&path_arg)?;
    let off_by_one = ctx.mutations.is_active(Mutation::AmbiguousCountOffByOne);
    let done = files::replace(&path, &old, &new, replace_all, ctx.max_file_size)
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

fn create_file(ctx: &Context, raw: &JsonObject) -> Outcome {
    let args = Args::new(raw, &["path", "content"])?;
    let path_arg = non_empty(&args, "path")?;
    let content = args.string("content")?;
    let path = ctx.policy.resolve(&path_arg)?;
    let limit = if ctx.mutations.is_active(Mutation::CreateSizeCountsChars) {
        // The mutation checks the character count itself, then writes unchecked.
        let chars = content.chars().count() as u64;
        if chars > ctx.max_file_size {
            return Err(EngineError::TooLarge {
                path,
                size: chars,
                limit: ctx.max_file_size,
            }
            .into());
        }
        u64::MAX
    } else {
        ctx.max_file_size
    };
    match files::write_atomic(&path, content.as_bytes(), limit) {
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
                let _ = files::write_in_place_unsafely(&path, &content.as_bytes()[..cut]);
            }
            Err(err.into())
        }
        Err(err) => Err(err.into()),
    }
}

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

fn grep(ctx: &Context, raw: &JsonObject) -> Outcome {
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
    )?;
    let pattern = non_empty(&args, "pattern")?;
    let path_arg = args.opt_string("path")?;
    let include = args.opt_string("include")?.filter(|s| !s.is_empty());
    let file_type = args.opt_string("type")?.filter(|s| !s.is_empty());
    let mode = match args.opt_string("output_mode")?.as_deref() {
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
    let case_insensitive = args.opt_bool("case_insensitive")?.unwrap_or(false);
    let multiline = args.opt_bool("multiline")?.unwrap_or(false);
    let context = non_negative(&args, "context")?;
    let params = GrepParams {
        mode,
        line_numbers: args.opt_bool("line_numbers")?.unwrap_or(true),
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
        Some(name) => Some(search::compile_glob_set(type_globs(&name)?)?),
    };
    let regex = search::compile_regex(&pattern, case_insensitive, multiline)?;
    let include = include
        .map(|glob| search::compile_glob(&glob))
        .transpose()?;
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

fn glob(ctx: &Context, raw: &JsonObject) -> Outcome {
    let args = Args::new(raw, &["pattern", "path", "type"])?;
    let pattern = non_empty(&args, "pattern")?;
    let path_arg = args.opt_string("path")?;
    let kind_arg = args.opt_string("type")?;
    let matcher = search::compile_glob(&pattern)?;
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
    files::stat(&root).map_err(as_requested(ctx, path_arg.as_deref().unwrap_or("")))?;
    let found = search::glob(&ctx.policy, &root, &matcher, kind);
    if found.is_empty() {
        return Ok(Reply::text("No files found"));
    }
    let lines: Vec<String> = found.iter().map(|p| p.display().to_string()).collect();
    Ok(Reply::text(lines.join("\n")))
}

/// The boris adapter, registered in [`super::Dialect::adapter`].
pub(crate) struct Boris;

impl Adapter for Boris {
    fn mutations(&self) -> &'static [MutationInfo] {
        Mutation::CATALOGUE
    }

    fn tools(&self, _ctx: &Context) -> Vec<Tool> {
        tools()
    }

    fn call<'a>(&'a self, ctx: &'a Context, name: &'a str, args: &'a JsonObject) -> Call<'a> {
        Box::pin(call(ctx, name, args))
    }

    fn render(&self, mutations: &Mutations, reply: Reply) -> Rendered {
        render(mutations, reply)
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

    fn mutated(names: &[Mutation]) -> Mutations {
        Mutations::of(names)
    }

    #[test]
    fn code_lines_and_their_mutations() {
        let failure = Failure {
            paths: vec!["/r/x".into()],
            ..Failure::new("PATH_NOT_FOUND", "/r/x does not exist")
        };
        let render_with =
            |names: &[Mutation]| render(&mutated(names), Reply::Failure(failure.clone()));
        assert_eq!(
            render_with(&[]).text,
            "[PATH_NOT_FOUND] /r/x does not exist"
        );
        assert_eq!(
            render_with(&[Mutation::LowercaseCode, Mutation::NoSpaceAfterCode]).text,
            "[path_not_found]/r/x does not exist"
        );
        assert_eq!(
            render_with(&[Mutation::DropCodePrefix]).text,
            "/r/x does not exist"
        );
        assert_eq!(
            render_with(&[Mutation::WrongCode, Mutation::DropPathFromMessage]).text,
            "[IO_ERROR] the file does not exist"
        );
        assert!(!render_with(&[Mutation::OmitIsError]).is_error);
        let exit = |names: &[Mutation]| {
            render(
                &mutated(names),
                Reply::Success {
                    text: String::new(),
                    exit_code: Some(1),
                },
            )
            .is_error
        };
        assert!(!exit(&[]));
        assert!(exit(&[Mutation::ErrorOnNonzeroExit]));
    }

    #[test]
    fn message_mutations_strip_what_they_name() {
        let too_large: Failure = EngineError::TooLarge {
            path: "/r/big.txt".into(),
            size: 100,
            limit: 64,
        }
        .into();
        let text = |names: &[Mutation], failure: &Failure| {
            render(&mutated(names), Reply::Failure(failure.clone())).text
        };
        assert_eq!(
            text(&[Mutation::TooLargeMessageWithoutPath], &too_large),
            "[FILE_TOO_LARGE] file is 100 bytes, exceeds maximum 64 bytes"
        );
        assert_eq!(
            text(&[Mutation::DoubleSpaceAfterCode], &too_large),
            "[FILE_TOO_LARGE]  file /r/big.txt is 100 bytes, exceeds maximum 64 bytes"
        );
        let io = Failure {
            paths: vec!["/r/t.txt".into()],
            ..Failure::new("IO_ERROR", "could not read /r/t.txt: is a directory")
        };
        assert_eq!(
            text(&[], &io),
            "[IO_ERROR] could not read /r/t.txt: is a directory"
        );
        assert_eq!(
            text(&[Mutation::IoErrorBareCause], &io),
            "[IO_ERROR] is a directory"
        );
    }

    #[test]
    fn failures_never_end_with_a_period() {
        let err: Failure = EngineError::TaskLimit { limit: 10 }.into();
        assert_eq!(err.code, "BASH_TASK_LIMIT");
        assert!(err.message.ends_with("limit (10) reached"));
        let err: Failure = EngineError::AmbiguousMatch {
            path: "/r/dup.txt".into(),
            count: 3,
        }
        .into();
        assert_eq!(
            err.message,
            "found 3 occurrences in /r/dup.txt; match must be unique (use replace_all to replace all)"
        );
    }
}
