//! Reading files as text, shared by every tool that reads one.
//!
//! The checks run in upstream's order: stat (missing, not a file), size
//! (`too_large`), then the read, then the binary test. The stat is where
//! the expected failures are classified; a read that fails after the stat
//! accepted the file (a UNIX socket, which `open` refuses with ENXIO) is
//! not one of them and is reported as `internal`, exactly as upstream's
//! unguarded `readFile` after its `stat` is. `read_file` takes the lines
//! one at a time ([`open_lines`]) after the same checks, its binary test
//! reading only the bytes at either end.

use std::os::unix::fs::FileExt;
use std::path::Path;

use serde_json::Value;

use super::super::{Context, Failure};
use super::text_lines::TextLines;
use super::workspace::{self, Target};
use crate::engine::text_range::TextFile;

/// Bytes inspected at each end of a file for a NUL.
const BINARY_SCAN_BYTES: usize = 8000;

/// Reads `target` whole, refusing directories, files over the size limit
/// and binary files.
pub(crate) fn read_text(ctx: &Context, target: &Target) -> Result<Vec<u8>, Failure> {
    check_readable(ctx, target)?;
    let bytes =
        read_without_blocking(ctx, &target.real).map_err(|err| read_failure(target, &err))?;
    if looks_binary(&bytes) {
        return Err(binary_failure(target));
    }
    Ok(bytes)
}

/// [`read_text`]'s checks and failures, in its order, for reading the lines
/// one at a time: the binary test reads the file's first and last
/// [`BINARY_SCAN_BYTES`] (the last by their offset), and nothing between is
/// read until the lines are asked for.
pub(crate) fn open_lines(ctx: &Context, target: &Target) -> Result<TextLines, Failure> {
    let size = check_readable(ctx, target)?;
    let read_failed = |err: std::io::Error| read_failure(target, &err);
    let file = ctx.policy.open_read(&target.real).map_err(read_failed)?;
    let tail = last_bytes(&file, size).map_err(read_failed)?;
    // The size was checked above; as `read_text`, the reading itself has
    // no limit.
    let text = TextFile::new(file, &target.real, size, u64::MAX, BINARY_SCAN_BYTES as u64)
        .map_err(read_failed)?;
    if text.head().contains(&0) || tail.contains(&0) {
        return Err(binary_failure(target));
    }
    Ok(TextLines::new(text))
}

/// The stat and size checks of [`read_text`]: the file's size if it passes.
fn check_readable(ctx: &Context, target: &Target) -> Result<u64, Failure> {
    let meta = ctx
        .policy
        .stat(&target.real)
        .map_err(|err| workspace::fs_failure(&err, &target.shown, "stat"))?;
    if meta.is_dir() {
        return Err(workspace::is_directory(&target.shown));
    }
    if meta.len() > ctx.max_file_size {
        let mut failure = workspace::with_path(
            Failure::new(
                "too_large",
                format!(
                    "File is {} bytes, over the {}-byte limit: {}",
                    meta.len(),
                    ctx.max_file_size,
                    target.shown
                ),
            ),
            &target.shown,
        );
        failure.extra.insert("size".into(), Value::from(meta.len()));
        failure
            .extra
            .insert("limit".into(), Value::from(ctx.max_file_size));
        return Err(failure);
    }
    Ok(meta.len())
}

/// A read that failed after the stat accepted the file.
pub(crate) fn read_failure(target: &Target, err: &std::io::Error) -> Failure {
    workspace::internal(format!("reading {}: {err}", target.real.display()))
}

fn binary_failure(target: &Target) -> Failure {
    workspace::with_path(
        Failure::new(
            "is_binary",
            format!("File appears to be binary: {}", target.shown),
        ),
        &target.shown,
    )
}

/// The last [`BINARY_SCAN_BYTES`] of a file of `size` bytes, read by offset
/// (none when the first bytes, read anyway, already hold them all).
fn last_bytes(file: &std::fs::File, size: u64) -> std::io::Result<Vec<u8>> {
    let scan = BINARY_SCAN_BYTES as u64;
    if size <= scan {
        return Ok(Vec::new());
    }
    let mut tail = vec![0; BINARY_SCAN_BYTES];
    let mut filled = 0;
    while filled < tail.len() {
        match file.read_at(&mut tail[filled..], size - scan + filled as u64) {
            Ok(0) => break,
            Ok(read) => filled += read,
            Err(err) if err.kind() == std::io::ErrorKind::Interrupted => {}
            Err(err) => return Err(err),
        }
    }
    tail.truncate(filled);
    Ok(tail)
}

/// Opens with `O_NONBLOCK` so that a FIFO nobody writes to reads as empty
/// instead of hanging the call.
fn read_without_blocking(ctx: &Context, path: &Path) -> std::io::Result<Vec<u8>> {
    ctx.policy.read(path)
}

/// A NUL byte near either end of the file.
pub(crate) fn looks_binary(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(BINARY_SCAN_BYTES)];
    let tail = &bytes[bytes.len().saturating_sub(BINARY_SCAN_BYTES)..];
    head.contains(&0) || tail.contains(&0)
}

/// The text with a UTF-8 byte-order mark dropped and CRLF / lone CR line
/// ends turned into LF, as upstream shows files.
pub(crate) fn decode(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    text.replace("\r\n", "\n").replace('\r', "\n")
}

/// Lines without terminators; a final newline does not start an empty line.
pub(crate) fn split_lines(text: &str) -> Vec<&str> {
    let mut lines: Vec<&str> = text.split('\n').collect();
    if lines.last() == Some(&"") {
        lines.pop();
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binary_means_a_nul_at_either_end() {
        assert!(looks_binary(b"ab\0cd"));
        assert!(!looks_binary(b"plain text\n"));
        let mut big = vec![b'a'; 3 * BINARY_SCAN_BYTES];
        big[BINARY_SCAN_BYTES + 10] = 0;
        assert!(!looks_binary(&big), "a NUL in the unscanned middle");
        let last = big.len() - 1;
        big[last] = 0;
        assert!(looks_binary(&big));
    }

    #[test]
    fn decoding_normalises_line_ends_and_drops_the_bom() {
        assert_eq!(decode(b"\xef\xbb\xbfa\r\nb\rc\n"), "a\nb\nc\n");
        assert_eq!(split_lines("a\nb\n"), vec!["a", "b"]);
        assert_eq!(split_lines("a\n\n"), vec!["a", ""]);
        assert_eq!(split_lines("a"), vec!["a"]);
    }
}
