//! `glob` and `grep`.

use std::fs;

use regex::Regex;
use rmcp::model::JsonObject;

use super::envelope::Data;
use super::expand::{expand, Found};
use super::{argument_failure, confine, ere, Outcome};
use crate::dialects::args::Args;
use crate::dialects::{Context, Failure};

/// The `path` argument; empty counts as absent, as upstream.
fn base_arg(args: &Args) -> Result<Option<String>, Failure> {
    Ok(args
        .opt_string("path")
        .map_err(argument_failure)?
        .filter(|path| !path.is_empty()))
}

/// Expands `pattern` under the base. A base outside the root is refused; a
/// base that does not exist simply matches nothing.
fn find(ctx: &Context, base: Option<&str>, pattern: &str) -> Result<Vec<Found>, Failure> {
    if let Some(base) = base {
        confine(ctx, base)?;
    }
    expand(&ctx.policy, base, pattern)
        .map_err(|_| Failure::new("", format!("Invalid glob pattern: {pattern}")))
}

/// The success for a search, or the `no-match-is-error` mutation's failure.
fn search_result(ctx: &Context, lines: Vec<String>) -> Outcome {
    if lines.is_empty() && ctx.mutations.is_active("no-match-is-error") {
        return Err(Failure::new("", "No matches found"));
    }
    Ok(Data {
        count: Some(lines.len() as u64),
        output: lines.join("\n"),
        ..Data::default()
    }
    .into_reply())
}

pub fn glob(ctx: &Context, raw: &JsonObject) -> Outcome {
    let args = Args::new(raw, &["pattern", "path"]).map_err(argument_failure)?;
    let pattern = args.string("pattern").map_err(argument_failure)?;
    let base = base_arg(&args)?;
    let found = find(ctx, base.as_deref(), &pattern)?;
    search_result(ctx, found.into_iter().map(|f| f.shown).collect())
}

pub fn grep(ctx: &Context, raw: &JsonObject) -> Outcome {
    let args = Args::new(raw, &["pattern", "path", "glob"]).map_err(argument_failure)?;
    let pattern = args.string("pattern").map_err(argument_failure)?;
    let base = base_arg(&args)?;
    let filter = args
        .opt_string("glob")
        .map_err(argument_failure)?
        .filter(|glob| !glob.is_empty());
    let regex = ere::compile(&pattern)
        .map_err(|err| Failure::new("", format!("Invalid pattern: {err}")))?;
    let file_pattern = filter.as_deref().unwrap_or("*");
    let files = find(ctx, base.as_deref(), file_pattern)?;
    let separator = if ctx.mutations.is_active("grep-no-space") {
        ":"
    } else {
        ": "
    };
    let mut lines = Vec::new();
    for file in files {
        if !fs::metadata(&file.real).is_ok_and(|meta| meta.is_file()) {
            continue;
        }
        if let Some(content) = readable(ctx, &file) {
            for (number, line) in matching_lines(&regex, &content) {
                lines.push(format!("{}:{number}{separator}{line}", file.shown));
            }
        }
    }
    search_result(ctx, lines)
}

/// A file's text, or `None` when it cannot be read (or is over the size
/// limit): such files are skipped, as upstream skips what it cannot open.
fn readable(ctx: &Context, file: &Found) -> Option<String> {
    let meta = fs::metadata(&file.real).ok()?;
    if meta.len() > ctx.max_file_size {
        return None;
    }
    let bytes = fs::read(&file.real).ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

/// 1-based numbers and text of the matching lines. A line is what ends at
/// `\n` (a final line without one counts too); only the `\n` is removed.
fn matching_lines<'a>(regex: &Regex, content: &'a str) -> Vec<(usize, &'a str)> {
    let body = content.strip_suffix('\n').unwrap_or(content);
    if content.is_empty() {
        return Vec::new();
    }
    body.split('\n')
        .enumerate()
        .filter(|(_, line)| regex.is_match(line))
        .map(|(index, line)| (index + 1, line))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_numbered_from_one_and_keep_carriage_returns() {
        let regex = ere::compile("b").expect("valid");
        assert_eq!(
            matching_lines(&regex, "a\nb\r\nab\n"),
            vec![(2, "b\r"), (3, "ab")]
        );
        assert_eq!(matching_lines(&regex, "b"), vec![(1, "b")]);
        assert!(matching_lines(&regex, "").is_empty());
        let any = ere::compile("").expect("valid");
        assert_eq!(matching_lines(&any, "\n"), vec![(1, "")]);
    }
}
