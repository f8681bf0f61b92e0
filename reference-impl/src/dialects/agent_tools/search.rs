//! `glob` and `grep`. Both list workspace-relative paths of the files
//! [`walk`] finds. No match is the success `(no matches)`.
//!
//! Patterns are read as v0.1.0 reads them in JavaScript: a glob as
//! tinyglobby does (src/lib/files.ts:44-49; an unclosed `[` is the character
//! itself, see [`node_glob`]), a regular expression as `new RegExp` does
//! (src/lib/rg.ts:157; `a{2` is literal, see [`js_regex`]). grep compiles its
//! pattern only once its path has been resolved and looked at, as v0.1.0's
//! in-process search does (src/lib/rg.ts:44-62, 139-160).

use std::collections::BTreeSet;
use std::fs::File;
use std::io::{self, Read};
use std::time::SystemTime;

use rmcp::model::JsonObject;
use serde_json::Value;

use super::super::{Context, Failure, Reply};
use super::mutations::Mutation;
use super::params::{argument_failure, int_at_least, invalid, one_of};
use super::text::{decode, looks_binary, split_lines};
use super::walk::walk;
use super::workspace;
use crate::dialects::common::args::Args;
use crate::dialects::common::js_regex;
use crate::dialects::common::node_glob::node_glob;
use crate::engine::line_search::{matching_lines, LinePattern, LineSearch, Want};
use crate::engine::search::{compile_regex, FileHits};
use crate::engine::EngineError;

const NO_MATCHES: &str = "(no matches)";

fn glob_failure(err: &globset::Error, pattern: &str) -> Failure {
    with_pattern(invalid(format!("Invalid glob pattern: {err}")), pattern)
}

/// Adds the `pattern` extra field.
fn with_pattern(mut failure: Failure, pattern: &str) -> Failure {
    failure.extra.insert("pattern".into(), Value::from(pattern));
    failure
}

// --------------------------------------------------------------------- glob

pub(crate) fn glob(ctx: &Context, raw: &JsonObject) -> Result<Reply, Failure> {
    let args =
        Args::new(raw, &["pattern", "path", "respect_gitignore"]).map_err(argument_failure)?;
    let pattern = args.string("pattern").map_err(argument_failure)?;
    let path = args
        .opt_string("path")
        .map_err(argument_failure)?
        .unwrap_or_else(|| ".".into());
    let respect = args
        .opt_bool("respect_gitignore")
        .map_err(argument_failure)?
        .unwrap_or(true);
    let base = workspace::resolve(ctx, &path)?;
    let meta =
        ctx.policy.stat(&base.real).map_err(|err| workspace::fs_failure(&err, &base.shown, "stat"))?;
    if !meta.is_dir() {
        return Err(workspace::not_directory(&base.shown));
    }
    let matcher = node_glob(&pattern, false).map_err(|err| glob_failure(&err, &pattern))?;
    // Each file's modification time and workspace-relative path.
    let mut hits: Vec<(Option<SystemTime>, String)> = Vec::new();
    walk(ctx, &base.real, respect, &mut |found| {
        if matcher.is_match(&found.under_base) {
            hits.push((found.modified(), found.shown));
        }
    });
    if hits.is_empty() {
        return Ok(Reply::text(NO_MATCHES));
    }
    hits.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    let lines: Vec<&str> = hits.iter().map(|(_, shown)| shown.as_str()).collect();
    Ok(Reply::text(lines.join("\n")))
}

// --------------------------------------------------------------------- grep

struct Paging {
    offset: usize,
    head_limit: Option<usize>,
}

impl Paging {
    fn page<T: Clone>(&self, items: &[T]) -> Vec<T> {
        let start = self.offset.min(items.len());
        let end = match self.head_limit {
            Some(n) => start.saturating_add(n).min(items.len()),
            None => items.len(),
        };
        items[start..end].to_vec()
    }
}

pub(crate) fn grep(ctx: &Context, raw: &JsonObject) -> Result<Reply, Failure> {
    let args = Args::new(
        raw,
        &[
            "pattern",
            "path",
            "glob",
            "output_mode",
            "ignore_case",
            "multiline",
            "context",
            "before_context",
            "after_context",
            "head_limit",
            "offset",
        ],
    )
    .map_err(argument_failure)?;
    let pattern = args.string("pattern").map_err(argument_failure)?;
    let path = args
        .opt_string("path")
        .map_err(argument_failure)?
        .unwrap_or_else(|| ".".into());
    let include = args.opt_string("glob").map_err(argument_failure)?;
    let mode = one_of(
        &args,
        "output_mode",
        &["files_with_matches", "content", "count"],
    )?
    .unwrap_or_else(|| "files_with_matches".into());
    let ignore_case = args
        .opt_bool("ignore_case")
        .map_err(argument_failure)?
        .unwrap_or(false)
        && !ctx.mutations.is_active(Mutation::GrepIgnoreCaseIgnored);
    let multiline = args
        .opt_bool("multiline")
        .map_err(argument_failure)?
        .unwrap_or(false);
    let context = int_at_least(&args, "context", 0)?.unwrap_or(0);
    let before = int_at_least(&args, "before_context", 0)?.unwrap_or(context);
    let after = int_at_least(&args, "after_context", 0)?.unwrap_or(context);
    let paging = Paging {
        offset: to_usize(int_at_least(&args, "offset", 0)?.unwrap_or(0)),
        head_limit: int_at_least(&args, "head_limit", 1)?.map(to_usize),
    };
    let target = workspace::resolve(ctx, &path)?;
    // v0.1.0 names the path of a failed stat absolute (src/lib/rg.ts:45-50).
    let absolute = target.named.display().to_string();
    let meta = ctx
        .policy
        .stat(&target.real)
        .map_err(|err| workspace::fs_failure(&err, &absolute, "stat"))?;
    if !meta.is_dir() && skipped(ctx, &target, &meta) {
        // Never searched, so the pattern is never compiled either.
        return Ok(Reply::text(NO_MATCHES));
    }
    let include = include
        .map(|g| node_glob(&g, false).map_err(|err| glob_failure(&err, &g)))
        .transpose()?;
    let regex = js_pattern(&pattern, ignore_case, multiline)?;
    let lines = LinePattern::new(regex, &pattern, ignore_case, multiline);
    let want = match mode.as_str() {
        "content" => Want::Lines {
            before: to_usize(before),
            after: to_usize(after),
        },
        _ => Want::Counts,
    };
    let mut search = LineSearch::new(&lines, want);
    let mut hits: Vec<FileHits> = Vec::new();
    if meta.is_dir() {
        walk(ctx, &target.real, true, &mut |found| {
            let included = include.as_ref().is_none_or(|g| {
                let name = found.under_base.rsplit('/').next().unwrap_or(&found.under_base);
                g.is_match(&found.under_base) || g.is_match(name)
            });
            if included {
                hits.extend(search_file(ctx, found.open(ctx), found.shown, &mut search));
            }
        });
    } else {
        let opened = ctx.policy.open_read(&target.real).and_then(|file| {
            let metadata = file.metadata()?;
            Ok((file, metadata))
        });
        hits.extend(search_file(ctx, opened, target.display.clone(), &mut search));
    }
    hits.sort_by(|a, b| a.display.cmp(&b.display));
    let (before, after) = if mode == "content" {
        (to_usize(before), to_usize(after))
    } else {
        (0, 0)
    };
    let (body, total, shown) = match mode.as_str() {
        "content" => render_content(&hits, &paging, before, after),
        "count" => {
            let rows: Vec<String> = hits
                .iter()
                .map(|h| format!("{}:{}", h.display, h.matches.count))
                .collect();
            let page = paging.page(&rows);
            (page.join("\n"), rows.len(), page.len())
        }
        _ => {
            let rows: Vec<String> = hits.iter().map(|h| h.display.clone()).collect();
            let page = paging.page(&rows);
            (page.join("\n"), rows.len(), page.len())
        }
    };
    Ok(Reply::text(with_footer(body, total, shown, paging.offset)))
}

/// `pattern` compiled as JavaScript reads it, or `invalid_input` in V8's
/// words (`Invalid regex: Invalid regular expression: /[/: Unterminated
/// character class`, src/lib/rg.ts:156-161), naming the pattern.
fn js_pattern(pattern: &str, ignore_case: bool, multiline: bool) -> Result<regex::Regex, Failure> {
    let flags = match (multiline, ignore_case) {
        (true, true) => "gmsi",
        (true, false) => "gms",
        (false, true) => "i",
        (false, false) => "",
    };
    let refused = |why: &str| {
        with_pattern(
            invalid(format!(
                "Invalid regex: Invalid regular expression: /{pattern}/{flags}: {why}"
            )),
            pattern,
        )
    };
    let spelled = js_regex::for_regex_crate(pattern).map_err(refused)?;
    compile_regex(&spelled, ignore_case, multiline).map_err(|err| match err {
        EngineError::InvalidRegex { message } => refused(&message),
        other => workspace::engine_failure(other, pattern),
    })
}

/// A single file v0.1.0's grep answers without searching: over the size
/// limit, or binary (src/lib/rg.ts:54-59).
fn skipped(ctx: &Context, target: &workspace::Target, meta: &crate::engine::confined_fs::Metadata) -> bool {
    if meta.len() > ctx.max_file_size {
        return true;
    }
    ctx.policy
        .read(&target.real)
        .is_ok_and(|bytes| looks_binary(&bytes))
}

fn to_usize(n: i64) -> usize {
    usize::try_from(n).unwrap_or(0)
}

/// A file's matches; `None` when it has none or is skipped (unreadable,
/// over the size limit, binary). `opened` is the file and what was opened
/// (or why it could not be). Text with no carriage return and no
/// byte-order mark reads as it is, so the buffer search runs on the bytes;
/// other text is decoded first (see [`decode`]) and searched line by line.
fn search_file(
    ctx: &Context,
    opened: io::Result<(File, std::fs::Metadata)>,
    shown: String,
    search: &mut LineSearch<'_>,
) -> Option<FileHits> {
    let (mut file, meta) = opened.ok()?;
    if !meta.is_file() || meta.len() > ctx.max_file_size {
        return None;
    }
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    file.read_to_end(&mut bytes).ok()?;
    if looks_binary(&bytes) {
        return None;
    }
    let matches = if bytes.contains(&b'\r') || bytes.starts_with(UTF8_BOM) {
        let text = decode(&bytes);
        let lines: Vec<String> = split_lines(&text).into_iter().map(str::to_string).collect();
        let matched = matching_lines(&text, &lines, search.regex(), search.multiline());
        search.keep(lines, matched)
    } else {
        search.search_text(&bytes)?
    };
    (matches.count > 0).then_some(FileHits {
        display: shown,
        matches,
        modified: None,
    })
}

/// The UTF-8 byte-order mark, which [`decode`] drops.
const UTF8_BOM: &[u8] = b"\xef\xbb\xbf";

/// `path:n:line` for matches and `path-n-line` for context, with `--`
/// between groups that do not touch when context is asked for. Paging
/// counts matches; returns (text, matches in all, matches shown).
fn render_content(
    hits: &[FileHits],
    paging: &Paging,
    before: usize,
    after: usize,
) -> (String, usize, usize) {
    let anchors: Vec<(usize, usize)> = hits
        .iter()
        .enumerate()
        .flat_map(|(f, h)| h.matched().iter().map(move |&n| (f, n)))
        .collect();
    let page = paging.page(&anchors);
    let mut rows = Vec::new();
    let mut previous: Option<(usize, usize)> = None;
    for (f, hit) in hits.iter().enumerate() {
        let mut keep = BTreeSet::new();
        for &(_, n) in page.iter().filter(|(pf, _)| *pf == f) {
            let first = n.saturating_sub(before).max(1);
            let last = hit.kept_through(n, n + after);
            keep.extend(first..=last);
        }
        for n in keep {
            let touches = previous == Some((f, n.saturating_sub(1)));
            if (before > 0 || after > 0) && previous.is_some() && !touches {
                rows.push("--".to_string());
            }
            let sep = if hit.matched().binary_search(&n).is_ok() {
                ':'
            } else {
                '-'
            };
            let line = hit.line(n).unwrap_or("");
            rows.push(format!("{}{sep}{n}{sep}{line}", hit.display));
            previous = Some((f, n));
        }
    }
    (rows.join("\n"), anchors.len(), page.len())
}

fn with_footer(body: String, total: usize, shown: usize, offset: usize) -> String {
    if total == 0 {
        return NO_MATCHES.to_string();
    }
    // v0.1.0's words (src/tools/grep.ts:236-253).
    if offset >= total {
        return format!("(no results at offset {offset}; {total} total)");
    }
    let next = offset + shown;
    if next < total {
        return format!(
            "{body}\n[... showing {offset}..{next} of {total}; call again with offset={next} for more ...]"
        );
    }
    body
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hit(shown: &str, lines: &[&str], matched: &[usize]) -> FileHits {
        FileHits::from_lines(shown, lines, matched)
    }

    #[test]
    fn content_rows_mark_matches_and_context() {
        let hits = vec![
            hit("a.txt", &["one", "two", "three", "four", "five"], &[2, 5]),
            hit("b.txt", &["x"], &[1]),
        ];
        let all = Paging {
            offset: 0,
            head_limit: None,
        };
        let (text, total, shown) = render_content(&hits, &all, 1, 0);
        assert_eq!(
            text,
            "a.txt-1-one\na.txt:2:two\n--\na.txt-4-four\na.txt:5:five\n--\nb.txt:1:x"
        );
        assert_eq!((total, shown), (3, 3));
        let (plain, _, _) = render_content(&hits, &all, 0, 0);
        assert_eq!(plain, "a.txt:2:two\na.txt:5:five\nb.txt:1:x");
    }

    #[test]
    fn paging_adds_a_footer() {
        let first = Paging {
            offset: 0,
            head_limit: Some(1),
        };
        let hits = vec![hit("a", &["m"], &[1]), hit("b", &["m"], &[1])];
        let (text, total, shown) = render_content(&hits, &first, 0, 0);
        assert_eq!(
            with_footer(text, total, shown, 0),
            "a:1:m\n[... showing 0..1 of 2; call again with offset=1 for more ...]"
        );
        assert_eq!(with_footer(String::new(), 0, 0, 0), NO_MATCHES);
        assert_eq!(
            with_footer(String::new(), 2, 0, 5),
            "(no results at offset 5; 2 total)"
        );
    }
}
