//! `write_file` and `replace`. Every write goes through the engine's atomic
//! write (temporary file, then rename), so a refused or failed call leaves
//! the file as it was; parents are created as needed. The content written is
//! exactly what was sent: gemini-cli 0.1.13 trims it when overwriting, a
//! defect the suite does not copy (the `trim-on-overwrite` mutation does).

use std::io;

use rmcp::model::JsonObject;

use crate::dialects::gemini_cli::confine::{self, Refusal};
use crate::dialects::gemini_cli::mutations::Mutation;
use crate::dialects::gemini_cli::params::Params;
use crate::dialects::gemini_cli::{
    invalid_params, node_error, plain_error, sentence, Context, Outcome,
};
use crate::dialects::{Failure, Reply};
use crate::engine::{files, EngineError, IoOp};

/// The refusals of the two tools, worded alike (as upstream words them).
fn refuse(ctx: &Context, path: &str, refusal: Refusal) -> Failure {
    invalid_params(match refusal {
        Refusal::Relative => format!("File path must be absolute: {path}"),
        Refusal::OutsideRoot => format!(
            "File path must be within the root directory ({}): {path}",
            ctx.policy.root().display()
        ),
        Refusal::Unusable(why) => why,
    })
}

/// An engine failure of a write, worded as Node would word it.
fn describe_write_error(err: EngineError) -> String {
    match err {
        EngineError::Io { op, path, cause } => {
            let syscall = match op {
                IoOp::CreateDir => "mkdir",
                IoOp::Stat => "stat",
                IoOp::List => "scandir",
                IoOp::Read | IoOp::Write => "open",
            };
            node_error::describe_cause(&cause, syscall, &path.display().to_string())
        }
        EngineError::TooLarge { size, limit, .. } => {
            format!("content is {size} bytes, over the server's limit of {limit} bytes")
        }
        other => format!("{other:?}"),
    }
}

pub(crate) fn write_file(ctx: &Context, raw: &JsonObject) -> Outcome {
    let params = Params::new(raw, &["file_path", "content"]).map_err(invalid_params)?;
    let path = params.string("file_path").map_err(invalid_params)?;
    let content = params.string("content").map_err(invalid_params)?;
    let real = confine::absolute_within_root(ctx, &path).map_err(|r| refuse(ctx, &path, r))?;
    let existing = ctx.policy.stat(&real).ok();
    if existing.as_ref().is_some_and(|meta| meta.is_dir()) {
        return Err(invalid_params(format!(
            "Path is a directory, not a file: {path}"
        )));
    }
    // Node writes the path as sent: stepping out of a missing folder, it
    // finds no file there, makes the folder, and writes a "new" file.
    let missing_folders = confine::missing_folders_stepped_out_of(ctx, &path);
    let is_new = existing.is_none() || !missing_folders.is_empty();
    // 0.1.13's words for a failed write (write-file.js:183-186): the path, then
    // its own message, which repeats the words before Node's error.
    let writing_failed = |why: String| {
        plain_error(format!(
            "Error writing to file {path}: Error writing to file: {why}"
        ))
    };
    for folder in &missing_folders {
        ctx.policy
            .fs()
            .create_dir_all(folder)
            .map_err(|err| writing_failed(node_error::describe(&err, "mkdir", &path)))?;
    }
    if !is_new {
        // 0.1.13 reads the file first (write-file.js:196, to correct the new
        // content against it) and stops at a file it may not read; then it opens
        // the file itself for writing (write-file.js:144), which a file it may not
        // write refuses, though its folder would let it be replaced. The kernel is
        // asked the same here, before anything is written.
        ctx.policy.fs().open_read(&real).map_err(|err| {
            plain_error(format!(
                "Error checking existing file {path}: {}",
                node_error::describe(&err, "open", &path)
            ))
        })?;
        ctx.policy
            .fs()
            .open_write(&real)
            .map_err(|err| writing_failed(node_error::describe(&err, "open", &path)))?;
    }
    let content = if !is_new && ctx.mutations.is_active(Mutation::TrimOnOverwrite) {
        content.trim()
    } else {
        content.as_str()
    };
    files::write_atomic(&ctx.policy, &real, content.as_bytes(), ctx.max_file_size)
        .map_err(|err| writing_failed(describe_write_error(err)))?;
    let message = if is_new {
        format!("Successfully created and wrote to new file: {path}")
    } else {
        format!("Successfully overwrote file: {path}")
    };
    Ok(Reply::text(sentence(ctx, message)))
}

pub(crate) fn replace(ctx: &Context, raw: &JsonObject) -> Outcome {
    let params =
        Params::new(raw, &["file_path", "old_string", "new_string"]).map_err(invalid_params)?;
    let path = params.string("file_path").map_err(invalid_params)?;
    let old = params.string("old_string").map_err(invalid_params)?;
    let new = params.string("new_string").map_err(invalid_params)?;
    let expected = params
        .opt_integer("expected_replacements")
        .map_err(invalid_params)?
        .unwrap_or(1);
    if expected < 1 {
        return Err(invalid_params("params/expected_replacements must be >= 1"));
    }
    let real = confine::absolute_within_root(ctx, &path).map_err(|r| refuse(ctx, &path, r))?;
    let preparing = |why: String| plain_error(format!("Error preparing edit: {why}"));
    let current = match ctx.policy.stat(&real) {
        // Node reads the path as sent: a `..` out of a missing folder finds nothing.
        _ if confine::through_missing_folder(ctx, &path) => None,
        Ok(meta) if meta.is_dir() => return Err(preparing(node_error::READ_DIRECTORY.into())),
        Ok(meta) if meta.len() > ctx.max_file_size => {
            return Err(preparing(format!(
                "File size exceeds the {} byte limit: {path} ({} bytes)",
                ctx.max_file_size,
                meta.len()
            )))
        }
        Ok(_) => Some(
            ctx.policy.read(&real).map_err(|err| preparing(node_error::describe(&err, "open", &path)))?,
        ),
        Err(err) if err.kind() == io::ErrorKind::NotFound => None,
        Err(err) => return Err(preparing(node_error::describe(&err, "open", &path))),
    };
    let executing_failed = |why: String| plain_error(format!("Error executing edit: {why}"));
    let executing = |err: EngineError| executing_failed(describe_write_error(err));
    let Some(current) = current else {
        if !old.is_empty() {
            return Err(plain_error(format!("File not found: {path}")));
        }
        // As write_file: Node makes the folders the path steps out of first.
        for folder in confine::missing_folders_stepped_out_of(ctx, &path) {
            ctx.policy
                .fs()
                .create_dir_all(&folder)
                .map_err(|err| executing_failed(node_error::describe(&err, "mkdir", &path)))?;
        }
        files::write_atomic(&ctx.policy, &real, new.as_bytes(), ctx.max_file_size).map_err(executing)?;
        return Ok(Reply::text(sentence(
            ctx,
            format!("Created new file: {path} with provided content"),
        )));
    };
    if old.is_empty() {
        return Err(plain_error(format!(
            "File already exists, cannot create: {path}"
        )));
    }
    // 0.1.13 reads the file with every CRLF made LF (edit.js:118-119), looks for
    // `old_string` in that, and writes that back: an edit leaves the whole file with
    // LF line ends, and an `old_string` holding a CRLF is never found.
    let current = files::replace_in(&current, b"\r\n", b"\n", true)
        .map(|normalized| normalized.content)
        .unwrap_or(current);
    let Some(edited) = find_and_replace(ctx, &current, &old, &new) else {
        return Err(plain_error(not_found_message(&path)));
    };
    let expected = usize::try_from(expected).unwrap_or(usize::MAX);
    if edited.count != expected {
        if ctx.mutations.is_active(Mutation::WriteDespiteError) {
            // The mutation imitates a broken server: its own failure is moot.
            let _ = files::write_atomic(&ctx.policy, &real, &edited.content, ctx.max_file_size);
        }
        let term = occurrence_term(
            expected,
            ctx.mutations.is_active(Mutation::OccurrenceAlwaysSingular),
        );
        return Err(plain_error(format!(
            "Failed to edit, Expected {expected} {term} but found {} for old_string in file: {path}",
            edited.count
        )));
    }
    // 0.1.13 writes the file itself (edit.js, fs.writeFileSync), which a file this
    // process may not write refuses, though its folder would let it be replaced.
    ctx.policy
        .fs()
        .open_write(&real)
        .map_err(|err| executing_failed(node_error::describe(&err, "open", &path)))?;
    files::write_atomic(&ctx.policy, &real, &edited.content, ctx.max_file_size).map_err(executing)?;
    Ok(Reply::text(sentence(
        ctx,
        format!(
            "Successfully modified file: {path} ({} replacements)",
            edited.count
        ),
    )))
}

/// `old` replaced by `new` everywhere in `current`, with the number of
/// occurrences; `None` when there is none. `old` is exact text and its
/// occurrences are counted without overlap, as they are replaced. Two
/// mutations bend this: `overlapping-occurrences` counts every position
/// where `old` starts, and `regex-old-string` reads `old` as a regex.
fn find_and_replace(
    ctx: &Context,
    current: &[u8],
    old: &str,
    new: &str,
) -> Option<files::Replacement> {
    if ctx.mutations.is_active(Mutation::RegexOldString) {
        if let Ok(regex) = regex::bytes::Regex::new(old) {
            let first_offset = regex.find(current)?.start();
            let count = regex.find_iter(current).count();
            let content = regex
                .replace_all(current, regex::bytes::NoExpand(new.as_bytes()))
                .into_owned();
            return Some(files::Replacement {
                count,
                content,
                first_offset,
            });
        }
    }
    let mut edited = files::replace_in(current, old.as_bytes(), new.as_bytes(), true).ok()?;
    if ctx.mutations.is_active(Mutation::OverlappingOccurrences) {
        edited.count = overlapping_count(current, old.as_bytes());
    }
    Some(edited)
}

/// Every position where `needle` starts, overlaps included.
fn overlapping_count(haystack: &[u8], needle: &[u8]) -> usize {
    if needle.is_empty() {
        return 0;
    }
    haystack
        .windows(needle.len())
        .filter(|w| *w == needle)
        .count()
}

fn not_found_message(path: &str) -> String {
    format!(
        "Failed to edit, 0 occurrences found for old_string in {path}. No edits made. \
         The exact text in old_string was not found. Ensure you're not escaping content \
         incorrectly and check whitespace, indentation, and context. Use read_file tool to verify."
    )
}

/// `occurrence` when one is expected, else `occurrences`; `always_singular`
/// is the mutation that copies the seed's template word for every count.
pub(crate) fn occurrence_term(expected: usize, always_singular: bool) -> &'static str {
    if expected == 1 || always_singular {
        "occurrence"
    } else {
        "occurrences"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_not_found_message_is_the_seeds() {
        assert_eq!(
            not_found_message("/r/a.txt"),
            "Failed to edit, 0 occurrences found for old_string in /r/a.txt. No edits made. The exact text in old_string was not found. Ensure you're not escaping content incorrectly and check whitespace, indentation, and context. Use read_file tool to verify."
        );
    }

    #[test]
    fn overlaps_are_counted_only_by_the_slip() {
        assert_eq!(overlapping_count(b"aaaa", b"aa"), 3);
        let made = files::replace_in(b"aaaa", b"aa", b"b", true).expect("found");
        assert_eq!(made.count, 2);
        assert_eq!(made.content, b"bb");
    }

    #[test]
    fn occurrence_is_plural_unless_one_is_expected() {
        assert_eq!(occurrence_term(1, false), "occurrence");
        assert_eq!(occurrence_term(2, false), "occurrences");
        assert_eq!(occurrence_term(2, true), "occurrence");
    }

    #[test]
    fn write_errors_read_like_node() {
        let err = EngineError::Io {
            op: IoOp::CreateDir,
            path: "/r/f.txt/sub".into(),
            cause: "not a directory".into(),
        };
        assert_eq!(
            describe_write_error(err),
            "ENOTDIR: not a directory, mkdir '/r/f.txt/sub'"
        );
    }
}
