//! `read_file`: numbered lines from an offset (1-based, or negative from the
//! end), at most `limit` of them, then a note on how to continue.
//!
//! The file is read one line at a time ([`TextLines`]): up to the last line
//! shown, and past it only to count the lines left when there are some (the
//! note states the file's total), without keeping them. An offset from the
//! end needs the total before it knows which lines to show, so the lines are
//! counted first and the file read again up to the last one shown.

use std::io;

use rmcp::model::JsonObject;
use serde_json::Value;

use super::super::super::{Context, Failure, Reply};
use super::super::mutations::Mutation;
use super::super::params::{argument_failure, int_at_least, invalid};
use super::super::text::{open_lines, read_failure};
use super::super::text_lines::TextLines;
use super::super::workspace::{self, with_path, Target};
use crate::dialects::common::args::Args;

/// Lines shown when `limit` is absent, and characters kept per line.
const DEFAULT_LIMIT: usize = 2000;
const MAX_LINE_CHARS: usize = 2000;
const LINE_CUT_MARK: &str = " [... line truncated ...]";
/// The answer for a file without a line.
const EMPTY_FILE: &str = "(empty file)";

pub(crate) fn read_file(ctx: &Context, raw: &JsonObject) -> Result<Reply, Failure> {
    let args = Args::new(raw, &["path", "offset", "limit"]).map_err(argument_failure)?;
    let path = args.string("path").map_err(argument_failure)?;
    let mut offset = args
        .opt_int("offset")
        .map_err(argument_failure)?
        .unwrap_or(1);
    if offset > 0 && ctx.mutations.is_active(Mutation::OffsetZeroBased) {
        // Treats the offset as a count of lines to skip.
        offset = offset.saturating_add(1);
    }
    // `minimum: 1` in v0.1.0's schema (src/tools/read-file.ts:42-45), checked
    // with the other arguments before the file is looked at.
    let limit = int_at_least(&args, "limit", 1)?;
    let limit = match limit {
        _ if ctx.mutations.is_active(Mutation::LimitIgnored) => DEFAULT_LIMIT,
        None => DEFAULT_LIMIT,
        Some(n) => usize::try_from(n).unwrap_or(usize::MAX),
    };
    let target = workspace::resolve(ctx, &path)?;
    let lines = open_lines(ctx, &target)?;
    let text = numbered_range(lines, offset, limit, &target)
        .map_err(|err| read_failure(&target, &err))??;
    Ok(Reply::text(text))
}

/// The answer for `offset` and `limit` from `lines`: the numbered lines,
/// "(empty file)", or the failure for an offset the file does not have; an
/// error reading the file is the outer one.
fn numbered_range(
    mut lines: TextLines,
    offset: i64,
    limit: usize,
    target: &Target,
) -> io::Result<Result<String, Failure>> {
    let invalid_offset = |message: String, total: usize| {
        let mut failure = with_path(invalid(message), &target.shown);
        if offset > 0 {
            failure
                .extra
                .insert("line_count".into(), Value::from(total));
        }
        failure
    };
    let (first, shown, total) = if offset > 0 {
        let first = usize::try_from(offset).unwrap_or(usize::MAX);
        let skipped = lines.skip(first - 1)?;
        let shown = take(&mut lines, limit)?;
        if shown.is_empty() {
            // The file ends before line `first`.
            if skipped == 0 {
                return Ok(Ok(EMPTY_FILE.to_string()));
            }
            let message = first_line(offset, skipped).err().unwrap_or_default();
            return Ok(Err(invalid_offset(message, skipped)));
        }
        let total = first - 1 + shown.len() + lines.count_rest()?;
        (first, shown, total)
    } else {
        let total = lines.count_rest()?;
        if total == 0 {
            return Ok(Ok(EMPTY_FILE.to_string()));
        }
        let first = match first_line(offset, total) {
            Ok(first) => first,
            Err(message) => return Ok(Err(invalid_offset(message, total))),
        };
        let mut lines = lines.read_again()?;
        lines.skip(first - 1)?;
        (first, take(&mut lines, limit)?, total)
    };
    Ok(Ok(number_lines(&shown, first, total)))
}

/// The next `limit` lines at most.
fn take(lines: &mut TextLines, limit: usize) -> io::Result<Vec<String>> {
    let mut taken = Vec::new();
    while taken.len() < limit {
        match lines.next_line()? {
            Some(line) => taken.push(line),
            None => break,
        }
    }
    Ok(taken)
}

/// The 1-based first line to show for `offset`, or why it is invalid.
fn first_line(offset: i64, total: usize) -> Result<usize, String> {
    let total_i = i64::try_from(total).unwrap_or(i64::MAX);
    match offset {
        0 => Err(
            "offset must not be 0: give a 1-based line, or a negative count of lines from the end"
                .into(),
        ),
        n if n < 0 => Ok(usize::try_from((total_i + n + 1).max(1)).unwrap_or(1)),
        n if n > total_i => Err(format!(
            "offset {n} is past the end of the file, which has {total} lines"
        )),
        n => Ok(usize::try_from(n).unwrap_or(1)),
    }
}

/// `<n padded to 6>\t<line>` rows for the `shown` lines, the first being
/// line `first` (1-based) of `total`, then a note on how to continue if
/// lines remain.
fn number_lines(shown: &[String], first: usize, total: usize) -> String {
    let mut rows: Vec<String> = shown
        .iter()
        .enumerate()
        .map(|(i, line)| format!("{:>6}\t{}", first + i, shorten(line)))
        .collect();
    let end = first - 1 + shown.len();
    if end < total {
        rows.push(format!(
            "[... {} of {total} lines shown; continue with offset={} ...]",
            shown.len(),
            end + 1
        ));
    }
    rows.join("\n")
}

fn shorten(line: &str) -> std::borrow::Cow<'_, str> {
    match line.char_indices().nth(MAX_LINE_CHARS) {
        Some((cut, _)) => format!("{}{LINE_CUT_MARK}", &line[..cut]).into(),
        None => line.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::text::{decode, split_lines};
    use super::*;
    use crate::engine::text_range::TextFile;

    fn owned(lines: &[&str]) -> Vec<String> {
        lines.iter().map(|line| line.to_string()).collect()
    }

    /// The answer as reading the whole file gives it: decoded, split into
    /// lines, windowed; a failure as its message and `line_count`.
    fn whole_file_answer(
        content: &[u8],
        offset: i64,
        limit: usize,
    ) -> Result<String, (String, Option<Value>)> {
        let text = decode(content);
        if text.is_empty() {
            return Ok(EMPTY_FILE.to_string());
        }
        let lines = split_lines(&text);
        let first = first_line(offset, lines.len())
            .map_err(|message| (message, (offset > 0).then(|| Value::from(lines.len()))))?;
        let end = lines.len().min(first - 1 + limit);
        Ok(number_lines(&owned(&lines[first - 1..end]), first, lines.len()))
    }

    /// The answer as the server streams it from `real`, a file holding `content`
    /// (written once per text by the caller: a folder a case cost more waiting on
    /// the disk than all the reading).
    fn streamed_answer(
        real: &std::path::Path,
        content: &[u8],
        offset: i64,
        limit: usize,
    ) -> Result<String, (String, Option<Value>)> {
        let real = real.to_path_buf();
        let file = std::fs::File::open(&real).expect("open");
        let size = content.len() as u64;
        let text = TextFile::new(file, &real, size, u64::MAX, 8).expect("text");
        let target = Target {
            named: real.clone(),
            real,
            shown: "f.txt".into(),
            display: "f.txt".into(),
        };
        numbered_range(TextLines::new(text), offset, limit, &target)
            .expect("read")
            .map_err(|failure| (failure.message, failure.extra.get("line_count").cloned()))
    }

    /// Line by line, the answer is the one the whole file gives, for every
    /// offset from either end and every limit, on texts with every line end.
    #[test]
    fn the_range_is_what_reading_the_whole_file_gives() {
        let texts: [&[u8]; 7] = [
            b"",
            b"\xef\xbb\xbf",
            b"one\ntwo\r\nthree\rfour\n",
            b"a\r\r\nb\r",
            b"\n\n\n",
            b"caf\xc3\xa9\n\xff\nlast",
            b"x",
        ];
        let dir = tempfile::tempdir().expect("tempdir");
        let real = dir.path().join("f.txt");
        for content in texts {
            std::fs::write(&real, content).expect("write");
            for offset in -6..=6 {
                for limit in 1..=5 {
                    assert_eq!(
                        streamed_answer(&real, content, offset, limit),
                        whole_file_answer(content, offset, limit),
                        "offset {offset}, limit {limit} of {:?}",
                        String::from_utf8_lossy(content)
                    );
                }
            }
        }
    }

    #[test]
    fn lines_are_numbered_to_width_six_with_a_tab() {
        assert_eq!(
            number_lines(&owned(&["alpha", "beta"]), 1, 2),
            "     1\talpha\n     2\tbeta"
        );
        assert_eq!(
            number_lines(&owned(&["b"]), 2, 3),
            "     2\tb\n[... 1 of 3 lines shown; continue with offset=3 ...]"
        );
    }

    #[test]
    fn offsets_count_from_either_end() {
        assert_eq!(first_line(1, 3), Ok(1));
        assert_eq!(first_line(-2, 3), Ok(2));
        assert_eq!(first_line(-10, 3), Ok(1));
        assert!(first_line(0, 3).is_err());
        assert!(first_line(4, 3).is_err());
    }

    #[test]
    fn long_lines_are_cut_with_a_mark() {
        let long = "x".repeat(MAX_LINE_CHARS + 5);
        let cut = shorten(&long);
        assert!(cut.ends_with(LINE_CUT_MARK));
        assert_eq!(cut.len(), MAX_LINE_CHARS + LINE_CUT_MARK.len());
    }
}
