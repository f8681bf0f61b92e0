//! `apply_patch`: a unified diff over one or more files, all or nothing.
//!
//! The patch is parsed, then every file block is resolved, read and patched
//! in memory; only when all of them apply are the results written (each
//! staged as a temporary file beside its target, then renamed into place,
//! with the originals restored if a rename fails). A hunk that does not
//! apply is `patch_failed` naming the file and the hunk, and no file changes.
//!
//! Supported: modify, create (`--- /dev/null`), delete (`+++ /dev/null`) and
//! rename (different old and new names). A hunk is looked for at its stated
//! line first, then at the nearest line where its context and removed lines
//! match, never before the previous hunk.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use cap_std::fs::PermissionsExt;

use rmcp::model::JsonObject;
use serde_json::Value;

use crate::dialects::agent_tools::mutations::Mutation;
use crate::dialects::agent_tools::params::{argument_failure, invalid};
use crate::dialects::agent_tools::line_ends::Decoded;
use crate::dialects::agent_tools::text::{read_text, split_lines};
use crate::dialects::agent_tools::workspace::{self, with_path, Target};
use crate::dialects::common::args::Args;
use crate::dialects::{Context, Failure, Reply};
use crate::engine::confined_fs::StagedWrite;
use crate::engine::error::describe_io;

// ------------------------------------------------------------------ parsing

/// One `@@ -a,b +c,d @@` hunk.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
struct Hunk {
    /// 1-based first old line (0 for a hunk that adds to an empty file).
    old_start: usize,
    /// Context and removed lines: what must be found.
    old: Vec<String>,
    /// Context and added lines: what replaces it.
    new: Vec<String>,
    /// `\ No newline at end of file` after a removed line: the old text's
    /// last line lacks one and the new text's has one.
    marker_after_old: bool,
    /// The marker after an added line: the new text's last line lacks one.
    marker_after_new: bool,
    /// The header is not a range (`@@ this is not a range @@`): v0.1.0's `diff`
    /// parser keeps such a hunk with no position, so it never applies and the
    /// answer is `patch_failed` for it, not a refusal of the whole patch.
    unplaceable: bool,
    adds: usize,
    dels: usize,
}

/// The hunks of one file; `None` names stand for `/dev/null`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct FilePatch {
    old: Option<String>,
    new: Option<String>,
    hunks: Vec<Hunk>,
}

/// Which side of a hunk the last body line belonged to (for `\` markers).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    Both,
    Old,
    New,
}

fn parse(patch: &str) -> Result<Vec<FilePatch>, String> {
    let lines: Vec<&str> = patch.split('\n').collect();
    let mut files: Vec<FilePatch> = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i].strip_suffix('\r').unwrap_or(lines[i]);
        if let Some(old) = line.strip_prefix("--- ") {
            let next = lines.get(i + 1).map(|l| l.strip_suffix('\r').unwrap_or(l));
            let Some(new) = next.and_then(|l| l.strip_prefix("+++ ")) else {
                return Err(format!(
                    "line {}: a `---` header must be followed by a `+++` header",
                    i + 1
                ));
            };
            files.push(FilePatch {
                old: file_name(old),
                new: file_name(new),
                hunks: Vec::new(),
            });
            i += 2;
        } else if line.starts_with("@@") {
            let Some(file) = files.last_mut() else {
                return Err(format!(
                    "line {}: a hunk before any `---`/`+++` file header",
                    i + 1
                ));
            };
            let header = line;
            if hunk_header(header).is_none() {
                file.hunks.push(Hunk {
                    unplaceable: true,
                    ..Hunk::default()
                });
                i += 1;
                while i < lines.len() && !lines[i].starts_with("@@") && !lines[i].starts_with("--- ")
                {
                    i += 1;
                }
                continue;
            }
            let (hunk, used) =
                parse_hunk(&lines[i..]).map_err(|why| format!("line {}: {why}", i + 1))?;
            file.hunks.push(hunk);
            i += used;
        } else {
            // `diff --git`, `index`, mode lines and prose between blocks.
            i += 1;
        }
    }
    Ok(files)
}

/// `a/src/x.rs\t2024-01-01` -> `src/x.rs`; `/dev/null` -> None.
fn file_name(header: &str) -> Option<String> {
    let name = header.split('\t').next().unwrap_or(header).trim_end();
    if name == "/dev/null" {
        return None;
    }
    let name = name
        .strip_prefix("a/")
        .or_else(|| name.strip_prefix("b/"))
        .unwrap_or(name);
    Some(name.to_string())
}

/// Parses the hunk starting at `lines[0]`; returns it and the lines used.
fn parse_hunk(lines: &[&str]) -> Result<(Hunk, usize), String> {
    let header = lines[0].strip_suffix('\r').unwrap_or(lines[0]);
    let (old_start, mut old_left, mut new_left) =
        hunk_header(header).ok_or_else(|| format!("malformed hunk header `{header}`"))?;
    let mut hunk = Hunk {
        old_start,
        ..Hunk::default()
    };
    let mut used = 1;
    let mut last = Side::Both;
    while used < lines.len() {
        let line = lines[used];
        let line = line.strip_suffix('\r').unwrap_or(line);
        if let Some(_marker) = line.strip_prefix('\\') {
            match last {
                Side::Old => hunk.marker_after_old = true,
                Side::New => hunk.marker_after_new = true,
                Side::Both => {}
            }
            used += 1;
            continue;
        }
        if old_left == 0 && new_left == 0 {
            break;
        }
        let (kind, body) = match line.chars().next() {
            None => (' ', ""),
            Some(c) => (c, &line[c.len_utf8()..]),
        };
        match kind {
            ' ' if old_left > 0 && new_left > 0 => {
                hunk.old.push(body.to_string());
                hunk.new.push(body.to_string());
                old_left -= 1;
                new_left -= 1;
                last = Side::Both;
            }
            '-' if old_left > 0 => {
                hunk.old.push(body.to_string());
                hunk.dels += 1;
                old_left -= 1;
                last = Side::Old;
            }
            '+' if new_left > 0 => {
                hunk.new.push(body.to_string());
                hunk.adds += 1;
                new_left -= 1;
                last = Side::New;
            }
            _ => {
                return Err(format!(
                    "hunk line {used} does not fit the hunk header: `{line}`"
                ))
            }
        }
        used += 1;
    }
    if old_left > 0 || new_left > 0 {
        return Err("the hunk ends before the line counts of its header".to_string());
    }
    Ok((hunk, used))
}

/// `@@ -a[,b] +c[,d] @@...` -> (a, b, d); counts default to 1.
fn hunk_header(header: &str) -> Option<(usize, usize, usize)> {
    let rest = header.strip_prefix("@@ -")?;
    let (ranges, _) = rest.split_once(" @@")?;
    let (old, new) = ranges.split_once(" +")?;
    let range = |text: &str| -> Option<(usize, usize)> {
        match text.split_once(',') {
            Some((start, count)) => Some((start.parse().ok()?, count.parse().ok()?)),
            None => Some((text.parse().ok()?, 1)),
        }
    };
    let (old_start, old_count) = range(old)?;
    let (_, new_count) = range(new)?;
    Some((old_start, old_count, new_count))
}

// ----------------------------------------------------------------- applying

/// A file's lines and whether it ends with a newline.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Lines {
    lines: Vec<String>,
    final_newline: bool,
}

impl Lines {
    fn from_text(text: &str) -> Lines {
        Lines {
            lines: split_lines(text).into_iter().map(str::to_string).collect(),
            final_newline: text.is_empty() || text.ends_with('\n'),
        }
    }

    fn to_text(&self) -> String {
        let mut text = self.lines.join("\n");
        if self.final_newline && !self.lines.is_empty() {
            text.push('\n');
        }
        text
    }
}

/// Applies the hunks in order; `Err(n)` names the first (1-based) that fails.
/// The file keeps its final newline, or its lack of one, unless the last
/// hunk's `\ No newline at end of file` markers change it, as v0.1.0's
/// `applyPatch` (the `diff` package, 9.0.0) does: a marker after an added
/// line takes the newline away, one after a removed line adds it, and a
/// change the file's end does not allow (a newline taken from a file without
/// one) fails the last hunk.
fn apply_hunks(source: &Lines, hunks: &[Hunk]) -> Result<Lines, usize> {
    let mut lines = source.lines.clone();
    let mut final_newline = source.final_newline;
    if let Some(last) = hunks.last() {
        let fails = Err(hunks.len());
        match (last.marker_after_new, last.marker_after_old) {
            (true, true) if final_newline => return fails,
            (true, false) if !final_newline => return fails,
            (false, true) if final_newline => return fails,
            (true, false) => final_newline = false,
            (false, true) => final_newline = true,
            _ => {}
        }
    }
    let mut shift: isize = 0;
    let mut floor = 0usize;
    for (k, hunk) in hunks.iter().enumerate() {
        if hunk.unplaceable {
            return Err(k + 1);
        }
        let stated = hunk.old_start.saturating_sub(1) as isize + shift;
        let at = locate(&lines, &hunk.old, stated, floor).ok_or(k + 1)?;
        lines.splice(at..at + hunk.old.len(), hunk.new.iter().cloned());
        shift += (at as isize - stated) + hunk.new.len() as isize - hunk.old.len() as isize;
        floor = at + hunk.new.len();
    }
    Ok(Lines {
        lines,
        final_newline,
    })
}

/// The position nearest to `stated` (not before `floor`) where `wanted`
/// occurs as consecutive lines.
fn locate(lines: &[String], wanted: &[String], stated: isize, floor: usize) -> Option<usize> {
    let last = lines.len().checked_sub(wanted.len())?;
    if floor > last {
        return None;
    }
    let stated = stated.clamp(floor as isize, last as isize) as usize;
    let fits = |at: usize| lines[at..at + wanted.len()] == *wanted;
    (0..=last - floor)
        .flat_map(|d| [stated.checked_add(d), stated.checked_sub(d)])
        .flatten()
        .filter(|&at| at >= floor && at <= last)
        .find(|&at| fits(at))
}

// ------------------------------------------------------------------ the tool

/// A change to make once every block has applied.
#[derive(Debug)]
enum Change {
    Write { target: Target, content: Vec<u8> },
    Delete { target: Target },
}

pub(in crate::dialects::agent_tools) fn apply_patch(
    ctx: &Context,
    raw: &JsonObject,
) -> Result<Reply, Failure> {
    let args = Args::new(raw, &["patch"]).map_err(argument_failure)?;
    let patch = args.string("patch").map_err(argument_failure)?;
    let files = parse(&patch).map_err(|why| invalid(format!("Malformed patch: {why}")))?;
    if files
        .iter()
        .all(|f| f.hunks.is_empty() && (f.old == f.new || f.old.is_none() || f.new.is_none()))
    {
        return Err(invalid("The patch changes no file: it has no hunks"));
    }
    // Every name is resolved before any file is read, so a name out of the
    // root is path_escape whatever the blocks before it hold
    // (src/tools/apply-patch.ts:106-112).
    for name in files.iter().flat_map(|f| [&f.old, &f.new]).flatten() {
        workspace::resolve(ctx, name)?;
    }
    let not_atomic = ctx.mutations.is_active(Mutation::PatchNotAtomic);
    let mut changes = Vec::new();
    let mut summary = Vec::new();
    let mut claimed: HashSet<PathBuf> = HashSet::new();
    for file in &files {
        let (block_changes, line) = plan(ctx, file, &mut claimed)?;
        summary.push(line);
        if not_atomic {
            commit(ctx, block_changes)?;
        } else {
            changes.extend(block_changes);
        }
    }
    commit(ctx, changes)?;
    Ok(Reply::text(format!(
        "Applied patch:\n{}",
        summary.join("\n")
    )))
}

/// Works out one file block's changes and its summary line.
fn plan(
    ctx: &Context,
    file: &FilePatch,
    claimed: &mut HashSet<PathBuf>,
) -> Result<(Vec<Change>, String), Failure> {
    let mut claim = |target: &Target| {
        if claimed.insert(target.real.clone()) {
            Ok(())
        } else {
            Err(with_path(
                invalid(format!(
                    "The patch has more than one block for {}; combine them",
                    target.display
                )),
                &target.display,
            ))
        }
    };
    let adds: usize = file.hunks.iter().map(|h| h.adds).sum();
    let dels: usize = file.hunks.iter().map(|h| h.dels).sum();
    let counts = format!("(+{adds} -{dels})");
    match (&file.old, &file.new) {
        (None, None) => Err(invalid("A file block names /dev/null on both sides")),
        (None, Some(new)) => {
            let target = workspace::resolve(ctx, new)?;
            claim(&target)?;
            match ctx.policy.lstat(&target.real) {
                Ok(_) => {
                    return Err(with_path(
                        invalid(format!("Cannot create {}: it already exists", target.display)),
                        &target.display,
                    ))
                }
                Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
                Err(err) => return Err(workspace::fs_failure(&err, &target.shown, "stat")),
            }
            let result = patched(&Lines::from_text(""), file, &target)?;
            let line = format!("  A {} {counts}", target.display);
            Ok((
                vec![Change::Write {
                    content: result.to_text().into_bytes(),
                    target,
                }],
                line,
            ))
        }
        (Some(old), None) => {
            let target = workspace::resolve(ctx, old)?;
            claim(&target)?;
            let source = Lines::from_text(&Decoded::new(&read_text(ctx, &target)?).content);
            if !patched(&source, file, &target)?.lines.is_empty() {
                return Err(with_path(
                    invalid(format!(
                        "The delete block for {} does not remove every line",
                        target.display
                    )),
                    &target.display,
                ));
            }
            let line = format!("  D {} {counts}", target.display);
            Ok((vec![Change::Delete { target }], line))
        }
        (Some(old), Some(new)) => {
            let from = workspace::resolve(ctx, old)?;
            let to = workspace::resolve(ctx, new)?;
            claim(&from)?;
            // Patched as text with `\n` line ends, written back with the
            // file's own (src/tools/apply-patch.ts:190-196, 237-240).
            let decoded = Decoded::new(&read_text(ctx, &from)?);
            let source = Lines::from_text(&decoded.content);
            let result = decoded.reencode(&patched(&source, file, &from)?.to_text());
            if from.real == to.real {
                let line = format!("  M {} {counts}", from.display);
                return Ok((
                    vec![Change::Write {
                        target: from,
                        content: result,
                    }],
                    line,
                ));
            }
            claim(&to)?;
            if ctx.policy.lstat(&to.real).is_ok() {
                return Err(with_path(
                    invalid(format!(
                        "Cannot rename onto {}: it already exists",
                        to.display
                    )),
                    &to.display,
                ));
            }
            let line = format!("  R {} -> {} {counts}", from.display, to.display);
            Ok((
                vec![
                    Change::Write {
                        target: to,
                        content: result,
                    },
                    Change::Delete { target: from },
                ],
                line,
            ))
        }
    }
}

fn patched(source: &Lines, file: &FilePatch, target: &Target) -> Result<Lines, Failure> {
    apply_hunks(source, &file.hunks).map_err(|hunk| {
        let mut failure = Failure::new(
            "patch_failed",
            format!("Hunk did not apply cleanly in {}", target.display),
        );
        failure
            .extra
            .insert("file".into(), Value::from(target.display.clone()));
        failure.extra.insert("hunk".into(), Value::from(hunk));
        failure
    })
}

// --------------------------------------------------------------- committing

/// A write staged beside its target, and what the target held before.
struct Staged {
    temp: StagedWrite,
    target: Target,
}

/// Makes every change or none: writes are staged first (a failure there
/// touches nothing), then renamed into place in order; if a step fails,
/// the changes already made are undone from the originals kept in memory.
/// Every file access goes through the policy's confined handles.
fn commit(ctx: &Context, changes: Vec<Change>) -> Result<(), Failure> {
    let mut staged = Vec::new();
    let mut deletes = Vec::new();
    for change in changes {
        match change {
            Change::Write { target, content } => staged.push(stage(ctx, target, &content)?),
            Change::Delete { target } => deletes.push(target),
        }
    }
    // As v0.1.0's `validateTargets` after staging (src/lib/atomic.ts:149-190):
    // no change goes through a link.
    for target in staged.iter().map(|s| &s.target).chain(&deletes) {
        workspace::refuse_link(ctx, target)?;
    }
    let mut undo: Vec<(PathBuf, Option<Vec<u8>>)> = Vec::new();
    let result = (|| {
        for Staged { temp, target } in staged {
            undo.push((target.real.clone(), ctx.policy.read(&target.real).ok()));
            temp.persist()
                .map_err(|err| not_applied(&err))?;
        }
        for target in deletes {
            let before = ctx.policy.read(&target.real).ok();
            ctx.policy
                .remove_file(&target.real)
                .map_err(|err| not_applied(&err))?;
            undo.push((target.real.clone(), before));
        }
        Ok(())
    })();
    if result.is_err() {
        for (path, before) in undo.into_iter().rev() {
            restore(ctx, &path, before);
        }
    }
    result
}

fn stage(ctx: &Context, target: Target, content: &[u8]) -> Result<Staged, Failure> {
    let fail = |err: std::io::Error| not_applied(&err);
    let mode = existing_mode(ctx, &target.real);
    let real = ctx.policy.follow(&target.real).map_err(fail)?;
    let temp = ctx.policy.fs().stage_beside(&real, content, mode).map_err(fail)?;
    Ok(Staged { temp, target })
}

/// A file-system error while the changes are made: io_error naming no path,
/// whatever the error, as v0.1.0 wraps what `applyOpsAtomic` throws
/// (src/tools/apply-patch.ts:246-251).
fn not_applied(err: &std::io::Error) -> Failure {
    Failure::new(
        "io_error",
        format!("Failed to apply patch: {}", describe_io(err)),
    )
}

/// The permission bits of the file at `path`, or 0644 for a new one.
fn existing_mode(ctx: &Context, path: &Path) -> u32 {
    ctx.policy
        .stat(path)
        .map_or(0o644, |m| m.permissions().mode() & 0o7777)
}

/// Best effort: puts back what a path held before the patch.
fn restore(ctx: &Context, path: &Path, before: Option<Vec<u8>>) {
    let outcome = match before {
        Some(content) => ctx.policy.follow(path).and_then(|real| {
            ctx.policy
                .fs()
                .write_atomic(&real, &content, existing_mode(ctx, path))
        }),
        None => ctx.policy.remove_file(path),
    };
    if let Err(err) = outcome {
        eprintln!(
            "toolspec-reference: apply_patch could not restore {}: {err}",
            path.display()
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TWO_FILES: &str = "\
--- a/a.txt
+++ b/a.txt
@@ -1,2 +1,2 @@
 one
-two
+TWO
--- a/b.txt
+++ b/b.txt
@@ -1 +1 @@
-x
+y
";

    #[test]
    fn parses_blocks_and_hunks() {
        let files = parse(TWO_FILES).expect("parse");
        assert_eq!(files.len(), 2);
        assert_eq!(files[0].old.as_deref(), Some("a.txt"));
        assert_eq!(files[0].hunks[0].old, vec!["one", "two"]);
        assert_eq!(files[0].hunks[0].new, vec!["one", "TWO"]);
        assert_eq!(files[1].hunks[0].old_start, 1);
        let created =
            parse("--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+a\n+b\n").expect("parse");
        assert_eq!(created[0].old, None);
        assert_eq!(created[0].hunks[0].new, vec!["a", "b"]);
    }

    #[test]
    fn malformed_patches_explain_themselves() {
        assert!(parse("--- a.txt\nnot a header\n").is_err());
        assert!(parse("@@ -1 +1 @@\n-a\n+b\n").is_err());
        assert!(parse("--- a\n+++ b\n@@ -1,3 +1,3 @@\n a\n").is_err());
    }

    #[test]
    fn a_header_that_is_not_a_range_is_a_hunk_that_never_applies() {
        let files = parse("--- a\n+++ b\n@@ nonsense @@\n-one\n+ONE\n").expect("parses");
        assert!(files[0].hunks[0].unplaceable);
        let source = Lines::from_text("one\n");
        assert_eq!(apply_hunks(&source, &files[0].hunks), Err(1));
    }

    #[test]
    fn hunks_apply_at_the_nearest_matching_line() {
        let source = Lines::from_text("zero\none\ntwo\nthree\n");
        let files = parse(TWO_FILES).expect("parse");
        let out = apply_hunks(&source, &files[0].hunks).expect("applies one line later");
        assert_eq!(out.to_text(), "zero\none\nTWO\nthree\n");
        let missing = Lines::from_text("zero\n");
        assert_eq!(apply_hunks(&missing, &files[0].hunks), Err(1));
    }

    #[test]
    fn the_final_newline_stays_as_it_was_without_a_marker() {
        let files = parse("--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n").expect("parse");
        let out = apply_hunks(&Lines::from_text("a"), &files[0].hunks).expect("apply");
        assert_eq!(out.to_text(), "b");
        let out = apply_hunks(&Lines::from_text("a\n"), &files[0].hunks).expect("apply");
        assert_eq!(out.to_text(), "b\n");
        let added = parse("--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+b\n")
            .expect("parse");
        assert_eq!(
            apply_hunks(&Lines::from_text("a"), &added[0].hunks).map(|l| l.to_text()),
            Ok("b\n".to_string())
        );
        assert_eq!(apply_hunks(&Lines::from_text("a\n"), &added[0].hunks), Err(1));
    }

    #[test]
    fn the_final_newline_follows_the_marker() {
        let files = parse("--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n\\ No newline at end of file\n")
            .expect("parse");
        let out = apply_hunks(&Lines::from_text("a\n"), &files[0].hunks).expect("apply");
        assert_eq!(out.to_text(), "b");
    }
}
