//! `read_file`: the file's exact text, or a window of it. Without `limit`
//! at most 2000 lines are shown, and lines longer than 2000 characters are
//! cut; either cut is announced by a header line before the content, worded
//! as gemini-cli words it. Lines are counted as JavaScript's
//! `split('\n')` counts them, so a final newline makes one more (empty) line.
//! Whether a file is shown as text at all is decided by its name first
//! ([`file_kind`](super::file_kind)), then by its first bytes.

use std::io::Read;

use rmcp::model::JsonObject;

use super::file_kind::{name_verdict, NameVerdict};

use crate::dialects::gemini_cli::confine::{self, Refusal};
use crate::dialects::gemini_cli::mutations::Mutation;
use crate::dialects::gemini_cli::params::Params;
use crate::dialects::gemini_cli::{invalid_params, plain_error, Context, Outcome};
use crate::dialects::Reply;
use crate::engine::text_range::TextFile;

/// Lines shown when no `limit` is given.
pub(crate) const DEFAULT_LINE_LIMIT: usize = 2000;
/// Characters kept of a longer line.
pub(crate) const MAX_LINE_CHARS: usize = 2000;
/// Bytes inspected to tell a binary file from text.
const SNIFF_BYTES: usize = 4096;
/// The largest SVG file shown (`fileUtils.js:195` of 0.1.13).
const SVG_MAX_BYTES: u64 = 1024 * 1024;

pub(crate) fn read_file(ctx: &Context, raw: &JsonObject) -> Outcome {
    let params = Params::new(raw, &["absolute_path"]).map_err(invalid_params)?;
    let path = params.string("absolute_path").map_err(invalid_params)?;
    let offset = params.opt_integer("offset").map_err(invalid_params)?;
    let limit = params.opt_integer("limit").map_err(invalid_params)?;
    let real = confine::absolute_within_root(ctx, &path).map_err(|refusal| {
        invalid_params(match refusal {
            Refusal::Relative => format!(
                "File path must be absolute, but was relative: {path}. You must provide an absolute path."
            ),
            Refusal::OutsideRoot => format!(
                "File path must be within the root directory ({}): {path}",
                ctx.policy.root().display()
            ),
            Refusal::Unusable(why) => why,
        })
    })?;
    if offset.is_some_and(|o| o < 0) {
        return Err(invalid_params("Offset must be a non-negative number"));
    }
    if limit.is_some_and(|l| l <= 0) {
        return Err(invalid_params("Limit must be a positive number"));
    }
    let offset = offset.map_or(0, |o| usize::try_from(o).unwrap_or(usize::MAX));
    let limit = limit.map_or(DEFAULT_LINE_LIMIT, |l| {
        usize::try_from(l).unwrap_or(usize::MAX)
    });
    let meta = match ctx.policy.stat(&real) {
        Ok(meta) if !confine::through_missing_folder(ctx, &path) => meta,
        _ => return Err(plain_error(format!("File not found: {path}"))),
    };
    if meta.is_dir() {
        return Err(plain_error(format!(
            "Path is a directory, not a file: {path}"
        )));
    }
    let reading_failed = |why: String| plain_error(format!("Error reading file {path}: {why}"));
    if meta.len() > ctx.max_file_size {
        return Err(reading_failed(format!(
            "File size exceeds the {} byte limit: {path} ({} bytes)",
            ctx.max_file_size,
            meta.len()
        )));
    }
    // The path shown in a message that names the file instead of showing it.
    let relative = || {
        ctx.policy
            .lexical(&path)
            .strip_prefix(ctx.policy.root())
            .map(|p| p.display().to_string())
            .unwrap_or_else(|_| path.clone())
    };
    let binary = || {
        Ok(Reply::text(format!(
            "Cannot display content of binary file: {}",
            relative()
        )))
    };
    let verdict = name_verdict(&path);
    // A binary name is answered unread, as upstream answers it.
    if verdict == NameVerdict::Binary {
        return binary();
    }
    if !meta.is_file() {
        return Err(reading_failed("not a regular file".into()));
    }
    let describe = |err: std::io::Error| {
        reading_failed(crate::dialects::gemini_cli::node_error::describe(
            &err, "open", &path,
        ))
    };
    if verdict == NameVerdict::Svg {
        if meta.len() > SVG_MAX_BYTES {
            return Ok(Reply::text(format!(
                "Cannot display content of SVG file larger than 1MB: {}",
                relative()
            )));
        }
        let mut bytes = Vec::new();
        ctx.policy
            .open_read(&real)
            .and_then(|mut file| file.read_to_end(&mut bytes))
            .map_err(describe)?;
        return Ok(Reply::text(String::from_utf8_lossy(&bytes).into_owned()));
    }
    let file = ctx.policy.open_read(&real).map_err(describe)?;
    // The size was checked above; a file growing while it is read is read
    // whole, as upstream reads it.
    let mut text = TextFile::new(file, &real, meta.len(), u64::MAX, SNIFF_BYTES as u64)
        .map_err(describe)?;
    if verdict == NameVerdict::ByContent && looks_binary(text.head()) {
        return binary();
    }
    // Only the lines shown are read as text; the rest is counted as bytes
    // for the total the header states.
    let first = offset.saturating_add(1);
    let last = offset.saturating_add(limit);
    let lines = text.lines(first, Some(last)).map_err(describe)?;
    let total =
        text.total_lines().map_err(describe)? + usize::from(text.ends_with_newline_or_is_empty());
    let crlf_to_lf = ctx.mutations.is_active(Mutation::CrlfToLf);
    let start = offset.min(total);
    let end = last.min(total);
    let shown: Vec<String> = (start + 1..=end)
        .map(|number| {
            // Past the lines read is only the empty line after a final newline.
            let line = lines.get(number - first).map_or("", String::as_str);
            // Every line but the last was followed by a newline.
            match line.strip_suffix('\r') {
                Some(kept) if crlf_to_lf && number < total => kept.to_string(),
                _ => line.to_string(),
            }
        })
        .collect();
    let slips = Slips {
        cut_by_bytes: ctx.mutations.is_active(Mutation::CutLinesByBytes),
        zero_based_start: ctx.mutations.is_active(Mutation::WindowStartZeroBased),
    };
    Ok(Reply::text(shown_window(&shown, start, end, total, slips)))
}

/// Mistakes [`shown_window`] can be made to commit (mutations); the default is none.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Slips {
    /// Measure the 2000-character line limit in UTF-8 bytes.
    pub(crate) cut_by_bytes: bool,
    /// Number the first shown line from 0 in the header.
    pub(crate) zero_based_start: bool,
}

/// Where a line longer than [`MAX_LINE_CHARS`] is cut: after that many
/// characters, or (a slip) after that many bytes, backed off to a character
/// boundary; `None` when the line is short enough.
fn cut_point(line: &str, by_bytes: bool) -> Option<usize> {
    if !by_bytes {
        return line.char_indices().nth(MAX_LINE_CHARS).map(|(at, _)| at);
    }
    if line.len() <= MAX_LINE_CHARS {
        return None;
    }
    (0..=MAX_LINE_CHARS)
        .rev()
        .find(|&at| line.is_char_boundary(at))
}

/// A NUL byte in the first 4 KiB, or more than 30% control characters
/// there, as gemini-cli's `isBinaryFile` decides.
fn looks_binary(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(SNIFF_BYTES)];
    if head.contains(&0) {
        return true;
    }
    let odd = head
        .iter()
        .filter(|&&b| b < 9 || (b > 13 && b < 32))
        .count();
    !head.is_empty() && odd * 10 > head.len() * 3
}

/// Lines `offset..offset+limit` of `text`, long lines cut, with the header
/// gemini-cli puts before a shortened content.
#[cfg(test)]
fn window(text: &str, offset: usize, limit: usize, slips: Slips) -> String {
    let lines: Vec<&str> = text.split('\n').collect();
    let total = lines.len();
    let end = offset.saturating_add(limit).min(total);
    let start = offset.min(total);
    shown_window(&lines[start..end.max(start)], start, end, total, slips)
}

/// `lines`, the lines `start..end` (0-based, end excluded) of a file of
/// `total` lines, long lines cut, with the header gemini-cli puts before a
/// shortened content.
fn shown_window<L: AsRef<str>>(
    lines: &[L],
    start: usize,
    end: usize,
    total: usize,
    slips: Slips,
) -> String {
    let mut cut_long_line = false;
    let shown: Vec<String> = lines
        .iter()
        .map(AsRef::as_ref)
        .map(|line| match cut_point(line, slips.cut_by_bytes) {
            Some(at) => {
                cut_long_line = true;
                format!("{}... [truncated]", &line[..at])
            }
            None => line.to_string(),
        })
        .collect();
    let mut out = String::new();
    if end < total {
        out.push_str(&format!(
            "[File content truncated: showing lines {}-{end} of {total} total lines. Use offset/limit parameters to view more.]\n",
            if slips.zero_based_start { start } else { start + 1 }
        ));
    } else if cut_long_line {
        out.push_str(&format!(
            "[File content partially truncated: some lines exceeded maximum length of {MAX_LINE_CHARS} characters.]\n"
        ));
    }
    out.push_str(&shown.join("\n"));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_text_comes_back_unchanged() {
        assert_eq!(
            window("a\nb\n", 0, DEFAULT_LINE_LIMIT, Slips::default()),
            "a\nb\n"
        );
        assert_eq!(window("", 0, DEFAULT_LINE_LIMIT, Slips::default()), "");
    }

    #[test]
    fn a_window_is_announced() {
        assert_eq!(
            window("one\ntwo\nthree\nfour\n", 1, 2, Slips::default()),
            "[File content truncated: showing lines 2-3 of 5 total lines. Use offset/limit parameters to view more.]\ntwo\nthree"
        );
        // The final window reaches the end: nothing is announced.
        assert_eq!(window("one\ntwo\n", 1, 10, Slips::default()), "two\n");
    }

    #[test]
    fn long_lines_are_cut() {
        let long = "x".repeat(MAX_LINE_CHARS + 5);
        let text = window(&long, 0, 10, Slips::default());
        assert!(text.starts_with("[File content partially truncated"));
        assert!(text.ends_with(&format!("{}... [truncated]", "x".repeat(10))));
    }

    #[test]
    fn lines_are_measured_in_characters() {
        let wide = "é".repeat(MAX_LINE_CHARS);
        assert_eq!(window(&wide, 0, 10, Slips::default()), wide);
        let slipped = Slips {
            cut_by_bytes: true,
            ..Slips::default()
        };
        let cut = window(&wide, 0, 10, slipped);
        assert!(cut.ends_with(&format!("\n{}... [truncated]", "é".repeat(1000))));
    }

    #[test]
    fn binary_is_nul_or_mostly_control() {
        assert!(looks_binary(b"ab\0cd"));
        assert!(looks_binary(&[1, 2, 3, b'a']));
        assert!(!looks_binary(b"plain text\n\twith tab\r\n"));
        assert!(!looks_binary(b""));
    }
}
