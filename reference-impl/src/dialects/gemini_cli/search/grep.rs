//! `search_file_content`: a regular expression over the text files under a
//! directory, answered as
//! `Found N matches for pattern "p" in path "x" (filter: "f"):` then
//! `---`, and per file `File: <path relative to the search dir>` with
//! `L<n>: <trimmed line>` lines, each file closed by `---`.
//!
//! Upstream picks one of three backends (git grep, system grep, its own
//! walk) and they differ on case and on the order of files; this server
//! matches without regard to case, as two of the three do, and lists files
//! in path order. `in path "…"` shows the `path` argument as sent (`.` when
//! omitted); the filter part appears only when `include` is given.

use rmcp::model::JsonObject;

use crate::dialects::gemini_cli::confine::{self, Refusal};
use crate::dialects::gemini_cli::mutations::Mutation;
use crate::dialects::gemini_cli::params::Params;
use crate::dialects::gemini_cli::{invalid_params, plain_error, sentence, Context, Outcome};
use crate::dialects::Reply;
use crate::engine::line_search::{LinePattern, Want};
use crate::engine::search::{self, FileFilter, FileHits};
use crate::engine::EngineError;

use crate::dialects::common::js_regex;
use crate::dialects::common::node_glob::node_glob;

pub(crate) fn search_file_content(ctx: &Context, raw: &JsonObject) -> Outcome {
    let params = Params::new(raw, &["pattern"]).map_err(invalid_params)?;
    let pattern = params.string("pattern").map_err(invalid_params)?;
    let path_arg = params.opt_string("path").map_err(invalid_params)?;
    let include = params
        .opt_string("include")
        .map_err(invalid_params)?
        .filter(|i| !i.is_empty());
    let spelled = js_regex::for_regex_crate(&pattern).map_err(|why| {
        invalid_params(format!(
            "Invalid regular expression pattern provided: {pattern}. Error: Invalid regular expression: /{pattern}/: {why}"
        ))
    })?;
    let regex = search::compile_regex(&spelled, true, false).map_err(|err| {
        let why = match err {
            EngineError::InvalidRegex { message } => message,
            other => format!("{other:?}"),
        };
        invalid_params(format!(
            "Invalid regular expression pattern provided: {pattern}. Error: {why}"
        ))
    })?;
    let shown_path = path_arg
        .as_deref()
        .filter(|p| !p.is_empty())
        .unwrap_or(".")
        .to_string();
    let absolute = confine::resolved_display(ctx, &shown_path);
    let real = confine::within_root(ctx, &shown_path).map_err(|refusal| {
        invalid_params(match refusal {
            Refusal::Relative | Refusal::OutsideRoot => format!(
                "Path validation failed: Attempted path \"{shown_path}\" resolves outside the allowed root directory \"{}\".",
                ctx.policy.root().display()
            ),
            Refusal::Unusable(why) => why,
        })
    })?;
    match ctx.policy.stat(&real) {
        Ok(meta) if meta.is_dir() => {}
        Ok(_) => {
            return Err(invalid_params(format!(
                "Failed to access path stats for {absolute}: Error: Path is not a directory: {absolute}"
            )))
        }
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
            return Err(invalid_params(format!(
                "Failed to access path stats for {absolute}: Error: ENOENT: no such file or directory, stat '{absolute}'"
            )))
        }
        Err(_) => {
            return Err(invalid_params(format!("Path does not exist: {absolute}")));
        }
    }
    let filter = FileFilter {
        include: include
            .as_deref()
            .map(|glob| node_glob(glob, false))
            .transpose()
            .map_err(|err| plain_error(format!("Error during grep search operation: {err}")))?,
        types: None,
    };
    let lines = LinePattern::new(regex, &spelled, true, false);
    let want = Want::Lines {
        before: 0,
        after: 0,
    };
    let hits = search::grep(
        &ctx.policy,
        &real,
        "",
        &lines,
        &filter,
        ctx.max_file_size,
        want,
    )
    .map_err(|err| plain_error(format!("Error during grep search operation: {err:?}")))?;
    let filter_part = match (&include, ctx.mutations.is_active(Mutation::FilterAlways)) {
        (Some(glob), _) => format!(" (filter: \"{glob}\")"),
        (None, true) => " (filter: \"\")".to_string(),
        (None, false) => String::new(),
    };
    let count = if ctx.mutations.is_active(Mutation::CountEveryHit) {
        hit_count(&hits, lines.regex())
    } else {
        hits.iter().map(|h| h.matches.count).sum()
    };
    if count == 0 {
        return Ok(Reply::text(sentence(
            ctx,
            format!(
                "No matches found for pattern \"{pattern}\" in path \"{shown_path}\"{filter_part}"
            ),
        )));
    }
    let term = match_term(count, ctx.mutations.is_active(Mutation::PluralMatchAlways));
    let heading = format!(
        "Found {count} {term} for pattern \"{pattern}\" in path \"{shown_path}\"{filter_part}:"
    );
    Ok(Reply::text(render_hits(&heading, &hits)))
}

/// `match` for one, `matches` otherwise (or always, with the mutation).
/// Every hit of `regex` on the matching lines (a line can hold several):
/// the count the `count-every-hit` mutation reports instead of the lines.
fn hit_count(hits: &[FileHits], regex: &regex::Regex) -> usize {
    hits.iter()
        .flat_map(|hit| hit.matched().iter().filter_map(|&n| hit.line(n)))
        .map(|line| regex.find_iter(line).count())
        .sum()
}

pub(crate) fn match_term(count: usize, always_plural: bool) -> &'static str {
    if count == 1 && !always_plural {
        "match"
    } else {
        "matches"
    }
}

/// The heading, `---`, then each file's block closed by `---`; no newline
/// at the end (upstream trims the whole text).
pub(crate) fn render_hits(heading: &str, hits: &[FileHits]) -> String {
    let mut out = format!("{heading}\n---\n");
    for hit in hits {
        out.push_str(&format!("File: {}\n", hit.display));
        for &n in hit.matched() {
            let line = hit.line(n).map_or("", str::trim);
            out.push_str(&format!("L{n}: {line}\n"));
        }
        out.push_str("---\n");
    }
    out.trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hits_are_grouped_per_file() {
        let hits = vec![FileHits::from_lines(
            "src/a.txt",
            &["  let x = 1;  ", "y", "x again"],
            &[1, 3],
        )];
        assert_eq!(
            render_hits("Found 2 matches for pattern \"x\" in path \".\":", &hits),
            "Found 2 matches for pattern \"x\" in path \".\":\n---\nFile: src/a.txt\nL1: let x = 1;\nL3: x again\n---"
        );
    }

    #[test]
    fn one_match_is_singular() {
        assert_eq!(match_term(1, false), "match");
        assert_eq!(match_term(2, false), "matches");
        assert_eq!(match_term(1, true), "matches");
    }
}
