//! `edit_file` and `multi_edit`: literal string replacement, as v0.1.0's
//! `applyEdit` does it (src/tools/edit-file.ts:86-150). The file is decoded
//! first ([`Decoded`]: `\n` line ends, no BOM), the edits are made on that
//! text, and the result is written back with the file's own line ends. When
//! `old_string` is not in the text exactly, v0.1.0 searches again with its
//! whitespace-tolerant cascade ([`cascade`]) and says so in its answer; one
//! place found is edited, several are `ambiguous_match`.
//!
//! Every edit is worked out in memory and the file is written once, through
//! a temporary file and a rename, so a failing edit (even the last of a
//! `multi_edit`) leaves the file exactly as it was.

use rmcp::model::JsonObject;
use serde_json::Value;

use super::write_whole;
use crate::dialects::agent_tools::cascade;
use crate::dialects::agent_tools::line_ends::Decoded;
use crate::dialects::agent_tools::mutations::Mutation;
use crate::dialects::agent_tools::params::{self, argument_failure, invalid, EditSpec};
use crate::dialects::agent_tools::text::read_text;
use crate::dialects::agent_tools::workspace::{self, Target};
use crate::dialects::common::args::Args;
use crate::dialects::{Context, Failure, Reply};

/// Most match lines listed in an `ambiguous_match` message.
const MAX_LINES_LISTED: usize = 20;

/// What edit_file says after a whitespace-tolerant match.
const TOLERANT_NOTE: &str = " (matched after a whitespace-tolerant search; the matched region \u{2014} including its leading indentation \u{2014} was replaced by new_string verbatim, so re-read the file to verify the indentation is correct)";

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
    let decoded = Decoded::new(&read_text(ctx, &target)?);
    let tolerant = !ctx.mutations.is_active(Mutation::NoTolerantRetry);
    let edited = if ctx.mutations.is_active(Mutation::IdenticalCheckedLate) {
        replace(&decoded.content, &spec, tolerant)
            .and_then(|edited| refuse_identical(&spec).map(|()| edited))
    } else {
        apply_edit(&decoded.content, &spec, tolerant)
    }?;
    write(ctx, &target, &decoded, &edited.text)?;
    let noun = if edited.count == 1 {
        "occurrence"
    } else {
        "occurrences"
    };
    let how = if edited.tolerant { TOLERANT_NOTE } else { "" };
    Ok(Reply::text(format!(
        "Replaced {} {noun} in {}{how}.",
        edited.count, target.display
    )))
}

pub(in crate::dialects::agent_tools) fn multi_edit(
    ctx: &Context,
    raw: &JsonObject,
) -> Result<Reply, Failure> {
    let args = Args::new(raw, &["path", "edits"]).map_err(argument_failure)?;
    let path = args.string("path").map_err(argument_failure)?;
    let edits = params::edits(raw)?;
    let target = workspace::resolve(ctx, &path)?;
    let decoded = Decoded::new(&read_text(ctx, &target)?);
    let tolerant = !ctx.mutations.is_active(Mutation::NoTolerantRetry);
    let mut text = decoded.content.clone();
    let mut tolerant_matches = 0;
    for (index, spec) in edits.iter().enumerate() {
        let edited = apply_edit(&text, spec, tolerant).map_err(|f| numbered(f, index))?;
        text = edited.text;
        tolerant_matches += usize::from(edited.tolerant);
        if ctx.mutations.is_active(Mutation::MultiEditPartialWrite) {
            write(ctx, &target, &decoded, &text)?;
        }
    }
    write(ctx, &target, &decoded, &text)?;
    let noun = if edits.len() == 1 { "edit" } else { "edits" };
    let mut answer = format!("Applied {} {noun} to {}.", edits.len(), target.display);
    if tolerant_matches > 0 {
        answer.push_str(&format!(
            " ({tolerant_matches} matched after a whitespace-tolerant search; each such region \u{2014} including its leading indentation \u{2014} was replaced verbatim, so re-read to verify.)"
        ));
    }
    Ok(Reply::text(answer))
}

/// Prefixes a failing edit's message with `edit[i]: ` and adds its index
/// to the fields it has (src/tools/multi-edit.ts:74-79).
fn numbered(mut failure: Failure, index: usize) -> Failure {
    failure.message = format!("edit[{index}]: {}", failure.message);
    failure.extra.insert("index".into(), Value::from(index));
    failure
}

/// Writes the edited `text` with the line ends and BOM of the file it was
/// decoded from.
fn write(ctx: &Context, target: &Target, decoded: &Decoded, text: &str) -> Result<(), Failure> {
    write_whole(ctx, target, &decoded.reencode(text))
}

/// An edit worked out in memory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Edited {
    pub(crate) text: String,
    pub(crate) count: usize,
    /// Whether the whitespace-tolerant search found the place.
    pub(crate) tolerant: bool,
}

/// Applies one edit to `content`: identical strings are `invalid_input`, no
/// occurrence is `no_match` (after the tolerant search, when `tolerant`),
/// several without `replace_all` are `ambiguous_match` naming their lines.
pub(crate) fn apply_edit(content: &str, spec: &EditSpec, tolerant: bool) -> Result<Edited, Failure> {
    refuse_identical(spec)?;
    replace(content, spec, tolerant)
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
fn replace(content: &str, spec: &EditSpec, tolerant: bool) -> Result<Edited, Failure> {
    let old = spec.old_string.as_str();
    let found: Vec<usize> = content.match_indices(old).map(|(at, _)| at).collect();
    if found.is_empty() {
        if tolerant && !spec.replace_all {
            if let Some(spans) = cascade::find(content, old) {
                return tolerant_replace(content, &spans, spec);
            }
        }
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
    let (text, count) = if spec.replace_all {
        (content.replace(old, &spec.new_string), found.len())
    } else {
        (content.replacen(old, &spec.new_string, 1), 1)
    };
    Ok(Edited {
        text,
        count,
        tolerant: false,
    })
}

/// The tolerant search's answer: its one place replaced by `new_string` as
/// given, or `ambiguous_match` naming the line of each place it found.
fn tolerant_replace(
    content: &str,
    spans: &[cascade::Span],
    spec: &EditSpec,
) -> Result<Edited, Failure> {
    if let [span] = spans {
        let mut text = String::with_capacity(content.len() + spec.new_string.len());
        text.push_str(&content[..span.start]);
        text.push_str(&spec.new_string);
        text.push_str(&content[span.end..]);
        return Ok(Edited {
            text,
            count: 1,
            tolerant: true,
        });
    }
    let lines: Vec<usize> = spans.iter().map(|s| line_of(content, s.start)).collect();
    let listed: Vec<String> = lines.iter().map(usize::to_string).collect();
    let mut failure = Failure::new(
        "ambiguous_match",
        format!(
            "old_string was not found exactly; a whitespace-tolerant search found it {} times (at lines {}); it must be unique: include more surrounding lines, or match the whitespace exactly",
            spans.len(),
            listed.join(", ")
        ),
    );
    failure.extra.insert("lines".into(), Value::from(lines));
    Err(failure)
}

/// The 1-based line holding byte `at`.
fn line_of(content: &str, at: usize) -> usize {
    content[..at].matches('\n').count() + 1
}

/// `1, 4, 9`: the 1-based lines where the occurrences start, at most
/// [`MAX_LINES_LISTED`] of them, then `, …`.
fn line_list(content: &str, offsets: &[usize]) -> String {
    let mut lines: Vec<String> = offsets
        .iter()
        .take(MAX_LINES_LISTED)
        .map(|&at| line_of(content, at).to_string())
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
        let edited = apply_edit("let x = 1;\nlet y = 2;\n", &spec("x = 1", "x = 10", false), true)
            .expect("unique");
        assert_eq!(edited.text, "let x = 10;\nlet y = 2;\n");
        assert_eq!((edited.count, edited.tolerant), (1, false));
    }

    #[test]
    fn ambiguity_names_the_lines() {
        let failure = apply_edit("x\nx\nx\n", &spec("x", "y", false), true).expect_err("ambiguous");
        assert_eq!(failure.code, "ambiguous_match");
        assert!(
            failure
                .message
                .starts_with("old_string matched 3 times (at lines 1, 2, 3); it must be unique"),
            "{}",
            failure.message
        );
        let all = apply_edit("x\nx\nx\n", &spec("x", "y", true), true).expect("replace_all");
        assert_eq!((all.text.as_str(), all.count), ("y\ny\ny\n", 3));
    }

    #[test]
    fn identical_and_missing_strings_are_refused() {
        assert_eq!(
            apply_edit("abc", &spec("b", "b", false), true).expect_err("same").code,
            "invalid_input"
        );
        assert_eq!(
            apply_edit("abc", &spec("z", "y", false), true).expect_err("none").code,
            "no_match"
        );
    }

    #[test]
    fn identical_strings_are_refused_before_the_search() {
        let failure = apply_edit("abc", &spec("z", "z", false), true).expect_err("identical");
        assert_eq!(failure.code, "invalid_input");
        assert_eq!(
            replace("abc", &spec("z", "z", false), true).expect_err("absent").code,
            "no_match"
        );
    }

    #[test]
    fn the_tolerant_search_edits_one_place_and_names_several() {
        let file = "def main():\n    print('hi')\n";
        let edited = apply_edit(file, &spec("def main():\n  print('hi')", "X", false), true)
            .expect("one tolerant match");
        assert_eq!((edited.text.as_str(), edited.tolerant), ("X\n", true));
        assert_eq!(
            apply_edit(file, &spec("def main():\n  print('hi')", "X", false), false)
                .expect_err("no retry")
                .code,
            "no_match"
        );
        let twice = apply_edit("  a\n\ta\n", &spec(" a ", "b", false), true).expect_err("two");
        assert_eq!(twice.code, "ambiguous_match");
        assert_eq!(twice.extra.get("lines"), Some(&serde_json::json!([1, 2])));
    }

    #[test]
    fn long_line_lists_are_capped() {
        let content = "x\n".repeat(25);
        let offsets: Vec<usize> = content.match_indices('x').map(|(at, _)| at).collect();
        assert_eq!(offsets.len(), 25);
        assert!(line_list(&content, &offsets).ends_with("19, 20, …"));
    }
}
