//! `edit_file` and `multi_edit`: literal string replacement. `edit_file`, like
//! v0.1.0, tries once more with a whitespace-tolerant search when the exact
//! text is absent, and says so in its answer.
//!
//! Every edit is worked out in memory and the file is written once, through
//! a temporary file and a rename, so a failing edit (even the last of a
//! `multi_edit`) leaves the file exactly as it was.

use rmcp::model::JsonObject;
use serde_json::Value;

use crate::dialects::agent_tools::mutations::Mutation;
use crate::dialects::agent_tools::params::{self, argument_failure, invalid, EditSpec};
use crate::dialects::agent_tools::text::read_text;
use crate::dialects::agent_tools::workspace::{self, with_path, Target};
use crate::dialects::common::args::Args;
use crate::dialects::{Context, Failure, Reply};
use crate::engine::files::{self, write_atomic};

/// Most match lines listed in an `ambiguous_match` message.
const MAX_LINES_LISTED: usize = 20;

pub(in crate::dialects::agent_tools) fn edit_file(
    ctx: &Context,
    raw: &JsonObject,
) -> Result<Reply, Failure> {
    let args = Args::new(raw, &["path", "old_string", "new_string", "replace_all"])
        .map_err(argument_failure)?;
    let path = args.string("path").map_err(argument_failure)?;
    let spec = EditSpec {
        old_string: args.string("old_string").map_err(argument_failure)?,
        new_string: args.string("new_string").map_err(argument_failure)?,
        replace_all: args
            .opt_bool("replace_all")
            .map_err(argument_failure)?
            .unwrap_or(false),
    };
    if spec.old_string.is_empty() {
        return Err(invalid("old_string must not be empty"));
    }
    let target = workspace::resolve(ctx, &path)?;
    let original = read_text(ctx, &target)?;
    let exact = if ctx.mutations.is_active(Mutation::IdenticalCheckedLate) {
        replace(&original, &spec).and_then(|edited| refuse_identical(&spec).map(|()| edited))
    } else {
        apply_edit(&original, &spec)
    };
    let (edited, tolerant) = match exact {
        Ok(edited) => (edited, false),
        Err(failure) if failure.code == "no_match" => {
            let retry = !ctx.mutations.is_active(Mutation::NoTolerantRetry);
            match retry.then(|| tolerant_replace(&original, &spec)).flatten() {
                Some(edited) => (edited, true),
                None => return Err(with_path(failure, &target.shown)),
            }
        }
        Err(failure) => return Err(with_path(failure, &target.shown)),
    };
    write(ctx, &target, &edited.content)?;
    let noun = if edited.count == 1 {
        "occurrence"
    } else {
        "occurrences"
    };
    let how = if tolerant {
        " (matched after a whitespace-tolerant search; the matched region \u{2014} including its leading indentation \u{2014} was replaced by new_string verbatim, so re-read the file to verify the indentation is correct)"
    } else {
        ""
    };
    Ok(Reply::text(format!(
        "Replaced {} {noun} in {}{how}.",
        edited.count, target.shown
    )))
}

/// v0.1.0's second try when `old_string` is absent: the lines of `old_string`
/// are compared with the file's with the whitespace around each line ignored.
/// Exactly one such place is edited: from the start of its first line (its
/// indentation included) to the end of its last line's text, replaced by
/// `new_string` as given. None, or several, is no edit.
fn tolerant_replace(content: &[u8], spec: &EditSpec) -> Option<Edited> {
    let wanted: Vec<&[u8]> = spec
        .old_string
        .as_bytes()
        .split(|&b| b == b'\n')
        .map(<[u8]>::trim_ascii)
        .collect();
    if wanted.iter().all(|line| line.is_empty()) {
        return None;
    }
    // (start, end) byte offsets of each line's text, without its newline.
    let mut lines = Vec::new();
    let mut start = 0;
    for (at, byte) in content.iter().enumerate() {
        if *byte == b'\n' {
            lines.push((start, at));
            start = at + 1;
        }
    }
    if start < content.len() {
        lines.push((start, content.len()));
    }
    let fits = |first: usize| {
        wanted
            .iter()
            .zip(&lines[first..])
            .all(|(want, &(a, b))| content[a..b].trim_ascii() == *want)
    };
    let mut places = (0..=lines.len().saturating_sub(wanted.len()))
        .filter(|&first| first + wanted.len() <= lines.len() && fits(first));
    let first = places.next()?;
    if places.next().is_some() {
        return None;
    }
    let from = lines[first].0;
    let to = lines[first + wanted.len() - 1].1;
    let mut edited = Vec::with_capacity(content.len() + spec.new_string.len());
    edited.extend_from_slice(&content[..from]);
    edited.extend_from_slice(spec.new_string.as_bytes());
    edited.extend_from_slice(&content[to..]);
    Some(Edited {
        content: edited,
        count: 1,
    })
}

pub(in crate::dialects::agent_tools) fn multi_edit(
    ctx: &Context,
    raw: &JsonObject,
) -> Result<Reply, Failure> {
    let args = Args::new(raw, &["path", "edits"]).map_err(argument_failure)?;
    let path = args.string("path").map_err(argument_failure)?;
    let edits = params::edits(raw)?;
    let target = workspace::resolve(ctx, &path)?;
    let mut content = read_text(ctx, &target)?;
    for (index, spec) in edits.iter().enumerate() {
        let step = if spec.old_string.is_empty() {
            Err(invalid("old_string must not be empty"))
        } else {
            apply_edit(&content, spec)
        };
        match step {
            Ok(edited) => content = edited.content,
            Err(failure) => return Err(numbered(failure, index, &target.shown)),
        }
        if ctx.mutations.is_active(Mutation::MultiEditPartialWrite) {
            write(ctx, &target, &content)?;
        }
    }
    write(ctx, &target, &content)?;
    let noun = if edits.len() == 1 { "edit" } else { "edits" };
    Ok(Reply::text(format!(
        "Applied {} {noun} to {}.",
        edits.len(),
        target.shown
    )))
}

/// Prefixes a failing edit's message with `edit[i]: ` and adds its index.
fn numbered(mut failure: Failure, index: usize, shown: &str) -> Failure {
    failure.message = format!("edit[{index}]: {}", failure.message);
    failure.extra.insert("index".into(), Value::from(index));
    with_path(failure, shown)
}

fn write(ctx: &Context, target: &Target, content: &[u8]) -> Result<(), Failure> {
    write_atomic(&ctx.policy, &target.real, content, u64::MAX)
        .map(|_| ())
        .map_err(|err| workspace::engine_failure(err, &target.shown))
}

/// An edit worked out in memory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Edited {
    pub(crate) content: Vec<u8>,
    pub(crate) count: usize,
}

/// Applies one edit to `content`: identical strings are `invalid_input`, no
/// occurrence is `no_match`, several without `replace_all` are
/// `ambiguous_match` naming their lines.
pub(crate) fn apply_edit(content: &[u8], spec: &EditSpec) -> Result<Edited, Failure> {
    refuse_identical(spec)?;
    replace(content, spec)
}

/// Identical strings are a semantic error in the arguments themselves,
/// whatever the file holds.
fn refuse_identical(spec: &EditSpec) -> Result<(), Failure> {
    if spec.old_string == spec.new_string {
        return Err(invalid(
            "old_string and new_string are identical, so the edit would change nothing",
        ));
    }
    Ok(())
}

/// Finds `old_string` and replaces it: `no_match` or `ambiguous_match`
/// when it is not exactly once (or any number of times with `replace_all`).
fn replace(content: &[u8], spec: &EditSpec) -> Result<Edited, Failure> {
    let old = spec.old_string.as_bytes();
    let found = files::find_all(content, old);
    if found.is_empty() {
        return Err(Failure::new(
            "no_match",
            "old_string was not found; it must match the file exactly, whitespace and line breaks included, without read_file's line-number prefixes",
        ));
    }
    if found.len() > 1 && !spec.replace_all {
        return Err(Failure::new(
            "ambiguous_match",
            format!(
                "old_string matched {} times (at lines {}); it must be unique: include more surrounding lines, or set replace_all to true",
                found.len(),
                line_list(content, &found)
            ),
        ));
    }
    let replaced: &[usize] = if spec.replace_all {
        &found
    } else {
        &found[..1]
    };
    Ok(Edited {
        content: files::splice(content, replaced, old.len(), spec.new_string.as_bytes()),
        count: replaced.len(),
    })
}

/// `1, 4, 9`: the 1-based lines where the occurrences start, at most
/// [`MAX_LINES_LISTED`] of them, then `, …`.
fn line_list(content: &[u8], offsets: &[usize]) -> String {
    let mut lines: Vec<String> = offsets
        .iter()
        .take(MAX_LINES_LISTED)
        .map(|&at| (content[..at].iter().filter(|&&b| b == b'\n').count() + 1).to_string())
        .collect();
    if offsets.len() > MAX_LINES_LISTED {
        lines.push("…".to_string());
    }
    lines.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(old: &str, new: &str, replace_all: bool) -> EditSpec {
        EditSpec {
            old_string: old.into(),
            new_string: new.into(),
            replace_all,
        }
    }

    #[test]
    fn a_unique_match_is_replaced() {
        let edited = apply_edit(b"let x = 1;\nlet y = 2;\n", &spec("x = 1", "x = 10", false))
            .expect("unique");
        assert_eq!(edited.content, b"let x = 10;\nlet y = 2;\n");
        assert_eq!(edited.count, 1);
    }

    #[test]
    fn ambiguity_names_the_lines() {
        let failure = apply_edit(b"x\nx\nx\n", &spec("x", "y", false)).expect_err("ambiguous");
        assert_eq!(failure.code, "ambiguous_match");
        assert!(
            failure
                .message
                .starts_with("old_string matched 3 times (at lines 1, 2, 3); it must be unique"),
            "{}",
            failure.message
        );
        let all = apply_edit(b"x\nx\nx\n", &spec("x", "y", true)).expect("replace_all");
        assert_eq!((all.content, all.count), (b"y\ny\ny\n".to_vec(), 3));
    }

    #[test]
    fn identical_and_missing_strings_are_refused() {
        assert_eq!(
            apply_edit(b"abc", &spec("b", "b", false))
                .expect_err("same")
                .code,
            "invalid_input"
        );
        assert_eq!(
            apply_edit(b"abc", &spec("z", "y", false))
                .expect_err("none")
                .code,
            "no_match"
        );
    }

    #[test]
    fn identical_strings_are_refused_before_the_search() {
        let failure = apply_edit(b"abc", &spec("z", "z", false)).expect_err("identical");
        assert_eq!(failure.code, "invalid_input");
        assert_eq!(
            replace(b"abc", &spec("z", "z", false))
                .expect_err("absent")
                .code,
            "no_match"
        );
    }

    #[test]
    fn the_tolerant_search_edits_one_place_whatever_its_indentation() {
        let file = b"def main():\n    print('hi')\n";
        let edited = tolerant_replace(file, &spec("def main():\n  print('hi')", "X", false))
            .expect("one tolerant match");
        assert_eq!(edited.content, b"X\n");
        assert_eq!(tolerant_replace(file, &spec("print('bye')", "X", false)), None);
        let twice = b"  a\n\ta\n";
        assert_eq!(tolerant_replace(twice, &spec("a", "b", false)), None);
    }

    #[test]
    fn long_line_lists_are_capped() {
        let content = "x\n".repeat(25);
        let offsets = files::find_all(content.as_bytes(), b"x");
        assert_eq!(offsets.len(), 25);
        assert!(line_list(content.as_bytes(), &offsets).ends_with("19, 20, …"));
    }
}
