//! `glob` and `grep`.

use regex::Regex;
use rmcp::model::JsonObject;

use super::expand::{expand_with, Found, LeadingDot};
use super::mutations::Mutation;
use super::params::{self, argument_failure};
use super::render::Data;
use super::{dotdot, ere, resolve, Outcome};
use crate::dialects::common::args::Args;
use crate::dialects::{Context, Failure};
use crate::engine::files;
use crate::engine::line_search::{LinePattern, LineSearch, Want};
use crate::engine::names::display_name;

/// The `path` argument; empty counts as absent, as upstream.
fn base_arg(args: &Args) -> Result<Option<String>, Failure> {
    Ok(params::opt_string(args, "path")?
        .filter(|path| !path.is_empty()))
}

/// Expands `pattern` under the base, wherever the base leads. A base the
/// path cannot be resolved to (EACCES on the way, a link loop) is refused as
/// a path is; a base that does not exist simply matches nothing.
fn find(ctx: &Context, base: Option<&str>, pattern: &str) -> Result<Vec<Found>, Failure> {
    if let Some(base) = base {
        resolve(ctx, base)?;
        // glob(3) without GLOB_ERR finds nothing where the kernel cannot
        // walk the base (a `..` out of a missing folder).
        if dotdot::check(ctx, base).is_err() {
            return Ok(Vec::new());
        }
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
    counted_result(ctx, lines.join("\n"), count, count)
}

/// The success for `listed` lines already joined into `output`, stating
/// `count`, or the `no-match-is-error` mutation's failure.
fn counted_result(ctx: &Context, output: String, listed: u64, count: u64) -> Outcome {
    if listed == 0 && ctx.mutations.is_active(Mutation::NoMatchIsError) {
        return Err(Failure::new("", "No matches found"));
    }
    Ok(Data {
        count: Some(count),
        output,
        ..Data::default()
    }
    .into_reply())
}

pub(crate) fn glob(ctx: &Context, raw: &JsonObject) -> Outcome {
    let args = Args::new(raw, &["pattern", "path"]).map_err(argument_failure)?;
    let pattern = params::string(&args, "pattern")?;
    let base = base_arg(&args)?;
    let found = find(ctx, base.as_deref(), &pattern)?;
    search_result(ctx, found.into_iter().map(|f| f.shown).collect())
}

pub(crate) fn grep(ctx: &Context, raw: &JsonObject) -> Outcome {
    let args = Args::new(raw, &["pattern", "path", "glob"]).map_err(argument_failure)?;
    let pattern = params::string(&args, "pattern")?;
    // Without a path rel-04 searches "." (tool_grep.c:138, 144), so every
    // file is shown as `./name`.
    let base = base_arg(&args)?.unwrap_or_else(|| ".".to_string());
    let filter = params::opt_string(&args, "glob")?
        .filter(|glob| !glob.is_empty());
    let ignore_case = ctx.mutations.is_active(Mutation::GrepIgnoreCase);
    let compiled = if ignore_case {
        ere::compile_ignoring_case(&pattern)
    } else {
        ere::compile(&pattern)
    };
    let regex = compiled.map_err(|err| Failure::new("", format!("Invalid pattern: {err}")))?;
    let regex_source = regex.as_str().to_string();
    let file_pattern = filter.as_deref().unwrap_or("*");
    let mut files = find(ctx, Some(&base), file_pattern)?;
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
    let separator = if ctx.mutations.is_active(Mutation::GrepNoSpace) {
        ":"
    } else {
        ": "
    };
    let pattern = LinePattern::new(regex, &regex_source, ignore_case, false);
    let mut search = LineSearch::new(&pattern, LINES);
    // The buffer search cuts lines as the honest rules do; the mutations'
    // rules, and the anchors for the whole text (`\``, `\'`), which the
    // buffer search would read as the whole file's, take the per-line route.
    let whole_text_anchor = regex_source.contains("\\A") || regex_source.contains("\\z");
    let by_buffer = !rules.bends() && !whole_text_anchor;
    let mut out = GrepLines::default();
    for file in files {
        let Some(content) = readable(ctx, &file) else {
            continue;
        };
        // A line holding a NUL is matched and shown up to it, as the C
        // string rel-04 hands to regexec and printf; the per-line route cuts it.
        if by_buffer && !content.contains(&0) {
            if let Some(found) = search.search_text(&content) {
                for (number, line) in found.lines() {
                    out.push(&file.shown, number, separator, line, pattern.regex());
                }
            }
        } else {
            let text = String::from_utf8_lossy(&content);
            for (number, line) in matching_lines(pattern.regex(), &text, rules) {
                out.push(&file.shown, number, separator, line, pattern.regex());
            }
        }
    }
    let count = if count_occurrences {
        out.occurrences
    } else {
        out.listed
    };
    counted_result(ctx, out.text, out.listed, count)
}

/// grep's matching lines, `path:N: line`, joined as they are found.
#[derive(Default)]
struct GrepLines {
    text: String,
    /// Lines listed.
    listed: u64,
    /// Hits within them (a line can hold several).
    occurrences: u64,
}

impl GrepLines {
    fn push(&mut self, shown: &str, number: usize, separator: &str, line: &str, regex: &Regex) {
        if self.listed > 0 {
            self.text.push('\n');
        }
        self.listed += 1;
        self.occurrences += regex.find_iter(line).count() as u64;
        self.text.push_str(shown);
        self.text.push(':');
        self.text.push_str(&number.to_string());
        self.text.push_str(separator);
        self.text.push_str(line);
    }
}

/// Only the matching lines, no context.
const LINES: Want = Want::Lines {
    before: 0,
    after: 0,
};

/// A match and, when it is a directory, every regular file below it (the
/// `grep-recursive` mutation; upstream searches only what the glob names).
/// Symlinks below are not followed, so a link to a folder above cannot
/// make the walk endless.
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

impl LineRules {
    /// Whether a mutation's rule is in force.
    fn bends(self) -> bool {
        self.strip_carriage_return || self.drop_unterminated_last
    }
}

/// A regular file's bytes, or `None` when it is not one (a directory, a
/// FIFO), is over the size limit, or cannot be read: such files are
/// skipped, as upstream skips what it cannot open. The engine opens it once
/// and holds what it opened to both rules, so a FIFO or a larger file
/// swapped in after the glob found it neither hangs the search nor is read
/// past the limit. Where the glob led out of the root, the file there is
/// read like any other (nothing is confined). Bytes that are not UTF-8 are
/// searched as their lossy decoding.
fn readable(ctx: &Context, file: &Found) -> Option<Vec<u8>> {
    files::read(&ctx.policy, &file.real, ctx.max_file_size).ok()
}

/// 1-based numbers and text of the matching lines. A line is what ends at
/// `\n` (a final line without one counts too); only the `\n` is removed,
/// and what follows a NUL in it is neither matched nor shown.
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
        .map(params::until_nul)
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

    /// Only a regular file within the size limit is read: a directory, a
    /// FIFO (without hanging) and a file over the limit are skipped; a link
    /// leading out of the root is read like any other (nothing is confined).
    #[test]
    fn only_regular_files_within_the_limit_are_read() {
        use crate::engine::paths::{PathPolicy, Scope};
        use crate::engine::shell::Shell;
        use crate::mutations::Mutations;
        let dir = tempfile::tempdir().expect("tempdir");
        let outside = tempfile::tempdir().expect("tempdir");
        let root = std::fs::canonicalize(dir.path()).expect("canonical");
        std::fs::write(root.join("small.txt"), "small").expect("write");
        std::fs::write(root.join("large.txt"), "x".repeat(64)).expect("write");
        std::fs::create_dir(root.join("folder")).expect("mkdir");
        let fifo = std::ffi::CString::new(root.join("fifo").into_os_string().into_encoded_bytes())
            .expect("path");
        // SAFETY: a valid NUL-terminated path; the call only makes a FIFO.
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0, "mkfifo");
        std::fs::write(outside.path().join("secret.txt"), "secret").expect("write");
        std::os::unix::fs::symlink(outside.path().join("secret.txt"), root.join("out.txt"))
            .expect("symlink");
        let ctx = Context {
            policy: PathPolicy::new(&root, &[], &[], Scope::Anywhere).expect("policy"),
            max_file_size: 16,
            default_timeout: std::time::Duration::from_secs(1),
            output_limit: 1 << 20,
            read_only: false,
            shell: Shell::new(root.clone()),
            mutations: Mutations::of::<Mutation>(&[]),
        };
        let read = |name: &str| {
            let found = Found {
                shown: name.to_string(),
                real: root.join(name),
            };
            readable(&ctx, &found).map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
        };
        assert_eq!(read("small.txt").as_deref(), Some("small"));
        assert_eq!(read("out.txt").as_deref(), Some("secret"));
        for skipped in ["large.txt", "folder", "fifo"] {
            assert_eq!(read(skipped), None, "{skipped}");
        }
    }

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
        assert_eq!(
            matching_lines(&regex, "a\0b\nb\0a\n", honest),
            vec![(2, "b")],
            "a line ends at its NUL"
        );
        let any = ere::compile("").expect("valid");
        assert_eq!(matching_lines(&any, "\n", honest), vec![(1, "")]);
    }

    /// The buffer search lists the lines the per-line search lists, on the
    /// cases where they could part: anchors, empty matches, classes that
    /// would take a newline, carriage returns, bytes that are not UTF-8, a
    /// last line without a newline, empty files.
    #[test]
    fn the_buffer_search_lists_what_the_per_line_search_lists() {
        let patterns = [
            "a", "^$", "^", "$", "a$", "[[:space:]]+", "[^x]", "\\W", ".", "x*", "BETA", "\\<t",
            "e\\>", "^[[:space:]]*$", "\\bt[a-z]+", "a|^", "de.ta", "(a|b)+", "\r$",
        ];
        for text in crate::engine::line_search::tests::TEXTS_WHERE_LINE_SEARCHES_COULD_PART {
            let lossy = String::from_utf8_lossy(text);
            for source in patterns {
                for ignore_case in [false, true] {
                    let regex = if ignore_case {
                        ere::compile_ignoring_case(source)
                    } else {
                        ere::compile(source)
                    }
                    .expect("valid");
                    let slow: Vec<(usize, String)> =
                        matching_lines(&regex, &lossy, LineRules::default())
                            .into_iter()
                            .map(|(n, line)| (n, line.to_string()))
                            .collect();
                    let translated = regex.as_str().to_string();
                    let pattern = LinePattern::new(regex, &translated, ignore_case, false);
                    let fast: Vec<(usize, String)> = LineSearch::new(&pattern, LINES)
                        .search_text(text)
                        .map(|found| {
                            found
                                .lines()
                                .map(|(n, line)| (n, line.to_string()))
                                .collect()
                        })
                        .unwrap_or_default();
                    assert_eq!(
                        fast, slow,
                        "pattern {source:?} (ignoring case: {ignore_case}) on {lossy:?}"
                    );
                }
            }
        }
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
