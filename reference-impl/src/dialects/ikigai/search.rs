//! `glob` and `grep`.

use regex::Regex;
use rmcp::model::JsonObject;

use super::expand::{expand_with, Found, LeadingDot};
use super::mutations::Mutation;
use super::params::argument_failure;
use super::render::Data;
use super::{confine, ere, Outcome};
use crate::dialects::common::args::Args;
use crate::dialects::{Context, Failure};
use crate::engine::names::display_name;

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
    let leading_dot = if ctx.mutations.is_active(Mutation::GlobMatchesDotfiles) {
        LeadingDot::Wildcard
    } else {
        LeadingDot::Literal
    };
    expand_with(&ctx.policy, base, pattern, leading_dot)
        .map_err(|_| Failure::new("", format!("Invalid glob pattern: {pattern}")))
}

/// The success for a search, or the `no-match-is-error` mutation's failure.
/// `count` is the number of lines listed.
fn search_result(ctx: &Context, lines: Vec<String>) -> Outcome {
    let count = lines.len() as u64;
    counted_result(ctx, lines, count)
}

/// [`search_result`] with the count given.
fn counted_result(ctx: &Context, lines: Vec<String>, count: u64) -> Outcome {
    if lines.is_empty() && ctx.mutations.is_active(Mutation::NoMatchIsError) {
        return Err(Failure::new("", "No matches found"));
    }
    Ok(Data {
        count: Some(count),
        output: lines.join("\n"),
        ..Data::default()
    }
    .into_reply())
}

pub(crate) fn glob(ctx: &Context, raw: &JsonObject) -> Outcome {
    let args = Args::new(raw, &["pattern", "path"]).map_err(argument_failure)?;
    let pattern = args.string("pattern").map_err(argument_failure)?;
    let base = base_arg(&args)?;
    let found = find(ctx, base.as_deref(), &pattern)?;
    search_result(ctx, found.into_iter().map(|f| f.shown).collect())
}

pub(crate) fn grep(ctx: &Context, raw: &JsonObject) -> Outcome {
    let args = Args::new(raw, &["pattern", "path", "glob"]).map_err(argument_failure)?;
    let pattern = args.string("pattern").map_err(argument_failure)?;
    let base = base_arg(&args)?;
    let filter = args
        .opt_string("glob")
        .map_err(argument_failure)?
        .filter(|glob| !glob.is_empty());
    let compiled = if ctx.mutations.is_active(Mutation::GrepIgnoreCase) {
        ere::compile_ignoring_case(&pattern)
    } else {
        ere::compile(&pattern)
    };
    let regex = compiled.map_err(|err| Failure::new("", format!("Invalid pattern: {err}")))?;
    let file_pattern = filter.as_deref().unwrap_or("*");
    let mut files = find(ctx, base.as_deref(), file_pattern)?;
    if ctx.mutations.is_active(Mutation::GrepRecursive) {
        files = files
            .into_iter()
            .flat_map(|found| descend(ctx, found))
            .collect();
    }
    let rules = LineRules {
        strip_carriage_return: ctx.mutations.is_active(Mutation::GrepStripCr),
        drop_unterminated_last: ctx.mutations.is_active(Mutation::GrepDropLastLine),
    };
    let count_occurrences = ctx.mutations.is_active(Mutation::GrepCountOccurrences);
    let mut occurrences = 0u64;
    let separator = if ctx.mutations.is_active(Mutation::GrepNoSpace) {
        ":"
    } else {
        ": "
    };
    let mut lines = Vec::new();
    for file in files {
        if !ctx.policy.stat(&file.real).is_ok_and(|meta| meta.is_file()) {
            continue;
        }
        if let Some(content) = readable(ctx, &file) {
            for (number, line) in matching_lines(&regex, &content, rules) {
                occurrences += regex.find_iter(line).count() as u64;
                lines.push(format!("{}:{number}{separator}{line}", file.shown));
            }
        }
    }
    if count_occurrences {
        return counted_result(ctx, lines, occurrences);
    }
    search_result(ctx, lines)
}

/// A match and, when it is a directory, every regular file below it (the
/// `grep-recursive` mutation; upstream searches only what the glob names).
/// Symlinks below are not followed, so nothing outside the root is reached.
fn descend(ctx: &Context, found: Found) -> Vec<Found> {
    if !ctx.policy.stat(&found.real).is_ok_and(|meta| meta.is_dir()) {
        return vec![found];
    }
    let Ok(mut listed) = ctx.policy.read_dir(&found.real) else {
        return Vec::new();
    };
    listed.retain(|entry| !entry.metadata.is_symlink());
    listed.sort_by(|a, b| a.name.cmp(&b.name));
    listed
        .into_iter()
        .flat_map(|entry| {
            let name = display_name(&entry.name);
            descend(
                ctx,
                Found {
                    shown: format!("{}/{name}", found.shown.trim_end_matches('/')),
                    real: found.real.join(&entry.name),
                },
            )
        })
        .collect()
}

/// How a file is cut into lines; the honest rules are the default, the
/// others are mutations.
#[derive(Debug, Clone, Copy, Default)]
struct LineRules {
    /// Remove a `\r` before the `\n` too (`str::lines`).
    strip_carriage_return: bool,
    /// Skip a last line that has no `\n`.
    drop_unterminated_last: bool,
}

/// A file's text, or `None` when it cannot be read (or is over the size
/// limit): such files are skipped, as upstream skips what it cannot open.
fn readable(ctx: &Context, file: &Found) -> Option<String> {
    let meta = ctx.policy.stat(&file.real).ok()?;
    if meta.len() > ctx.max_file_size {
        return None;
    }
    let bytes = ctx.policy.read(&file.real).ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

/// 1-based numbers and text of the matching lines. A line is what ends at
/// `\n` (a final line without one counts too); only the `\n` is removed.
fn matching_lines<'a>(regex: &Regex, content: &'a str, rules: LineRules) -> Vec<(usize, &'a str)> {
    let body = content.strip_suffix('\n').unwrap_or(content);
    if content.is_empty() {
        return Vec::new();
    }
    let mut lines: Vec<&str> = body.split('\n').collect();
    if rules.drop_unterminated_last && !content.ends_with('\n') {
        lines.pop();
    }
    lines
        .into_iter()
        .map(|line| {
            if rules.strip_carriage_return {
                line.strip_suffix('\r').unwrap_or(line)
            } else {
                line
            }
        })
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
        let honest = LineRules::default();
        let regex = ere::compile("b").expect("valid");
        assert_eq!(
            matching_lines(&regex, "a\nb\r\nab\n", honest),
            vec![(2, "b\r"), (3, "ab")]
        );
        assert_eq!(matching_lines(&regex, "b", honest), vec![(1, "b")]);
        assert!(matching_lines(&regex, "", honest).is_empty());
        let any = ere::compile("").expect("valid");
        assert_eq!(matching_lines(&any, "\n", honest), vec![(1, "")]);
    }

    #[test]
    fn line_rule_mutations_bend_the_lines() {
        let regex = ere::compile("b").expect("valid");
        let strip = LineRules {
            strip_carriage_return: true,
            ..LineRules::default()
        };
        assert_eq!(matching_lines(&regex, "b\r\n", strip), vec![(1, "b")]);
        let drop = LineRules {
            drop_unterminated_last: true,
            ..LineRules::default()
        };
        assert!(matching_lines(&regex, "a\nb", drop).is_empty());
        assert_eq!(matching_lines(&regex, "a\nb\n", drop), vec![(2, "b")]);
    }
}
