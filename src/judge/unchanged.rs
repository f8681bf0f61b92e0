//! `unchanged: true`: the file a server left against the bytes the fixture made,
//! compared a piece at a time. A `size:` file may be 256 MiB; holding it and its
//! expected bytes whole would take twice that, so neither is: each piece read is
//! compared with the same stretch of the fixture, made again from its pattern.
//!
//! A difference in a small file is shown as a whole diff, as any text is. In a
//! large one, the message names the first differing byte (line and column) and
//! shows the lines around it.

use std::ops::ControlFlow;

use super::diff;
use super::left_file::{ReadError, RegularFile, READ_PIECE};
use crate::fixture::Initial;

/// Files this small (both the fixture's and the one left) are shown whole in a diff.
const WHOLE_DIFF_BYTES: u64 = 64 * 1024;

/// In a larger file, how many bytes either side of the first difference are shown
/// (cut to whole lines where a line break falls within them).
const AROUND: u64 = 160;

/// `Ok(None)` when `left` holds exactly the bytes of `initial`; else what differs,
/// in words and a diff. `Err` says why the file could not be read to the end.
pub(crate) fn difference(
    name: &str,
    left: &RegularFile,
    initial: Initial<'_>,
) -> Result<Option<String>, ReadError> {
    let Some(at) = first_difference(left, initial)? else {
        return Ok(None);
    };
    let expected_len = initial.len();
    let actual_len = left.len()?;
    if expected_len <= WHOLE_DIFF_BYTES && actual_len <= WHOLE_DIFF_BYTES {
        let before = initial_range(initial, 0, expected_len);
        let after = left.read_range(0, WHOLE_DIFF_BYTES as usize)?;
        return Ok(Some(format!(
            "expected {name} unchanged, but it differs from the fixture:\n{}",
            diff::unified(
                &String::from_utf8_lossy(&before),
                &String::from_utf8_lossy(&after)
            )
        )));
    }
    let (line, column) = initial.line_and_column(at);
    let place = format!("byte {at} (line {line}, column {column})");
    let what = if at == actual_len {
        format!("it ends at {place}, where the fixture's {expected_len} bytes go on")
    } else if at == expected_len {
        format!("it goes on past the fixture's {expected_len} bytes, to {actual_len}")
    } else {
        format!(
            "it differs from the fixture at {place} (the fixture made {expected_len} bytes, \
             and it holds {actual_len})"
        )
    };
    let start = at.saturating_sub(AROUND);
    let before = initial_range(initial, start, 2 * AROUND);
    let after = left.read_range(start, 2 * AROUND as usize)?;
    let cut = usize::try_from(at - start).unwrap_or(0);
    let from = line_start(&before, cut);
    Ok(Some(format!(
        "expected {name} unchanged, but {what}; around that byte:\n{}",
        diff::unified(
            &String::from_utf8_lossy(&before[from..line_end(&before, cut)]),
            &String::from_utf8_lossy(&after[from.min(after.len())..line_end(&after, cut)])
        )
    )))
}

/// Where `left` first differs from `initial` (the shorter one's length, when one
/// is the start of the other), or `None` when they are the same.
fn first_difference(left: &RegularFile, initial: Initial<'_>) -> Result<Option<u64>, ReadError> {
    let mut expected = vec![0; READ_PIECE];
    let mut differs_at = None;
    let mut read_to = 0;
    left.read_pieces(|offset, piece| {
        let piece = &piece[..piece.len().min(expected.len())];
        let count = initial.copy_at(offset, &mut expected[..piece.len()]);
        if piece[..count] != expected[..count] {
            let within = piece
                .iter()
                .zip(&expected[..count])
                .position(|(a, b)| a != b)
                .unwrap_or(count);
            differs_at = Some(offset + within as u64);
            return ControlFlow::Break(());
        }
        if count < piece.len() {
            differs_at = Some(offset + count as u64);
            return ControlFlow::Break(());
        }
        read_to = offset + piece.len() as u64;
        ControlFlow::Continue(())
    })?;
    Ok(differs_at.or((read_to != initial.len()).then_some(read_to)))
}

/// Up to `len` bytes of `initial` from `offset` on.
fn initial_range(initial: Initial<'_>, offset: u64, len: u64) -> Vec<u8> {
    let mut bytes = vec![0; usize::try_from(len).unwrap_or(0)];
    let count = initial.copy_at(offset, &mut bytes);
    bytes.truncate(count);
    bytes
}

/// Where the line holding `bytes[at]` starts, if a line break before it is in `bytes`.
fn line_start(bytes: &[u8], at: usize) -> usize {
    bytes[..at.min(bytes.len())]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |newline| newline + 1)
}

/// Where the line holding `bytes[at]` ends (after its line break), if it ends
/// within `bytes`.
fn line_end(bytes: &[u8], at: usize) -> usize {
    let at = at.min(bytes.len());
    bytes[at..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(bytes.len(), |newline| at + newline + 1)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::os::unix::fs::FileExt;
    use std::time::{Duration, Instant};

    use super::*;
    use crate::fixture::Fixture;
    use crate::judge::left_file::{look_at, LeftFile};
    use crate::scenario::{FileDetail, FileSpec};

    /// A fixture with `small.txt` (text) and `big.txt` (3 MiB of `0123456789\n`).
    fn fixture() -> Fixture {
        let mut files = BTreeMap::new();
        files.insert("small.txt".into(), FileSpec::Text("one\ntwo\n".into()));
        files.insert(
            "big.txt".into(),
            FileSpec::Detailed(Box::new(FileDetail {
                size: Some(3 << 20),
                fill: Some("0123456789\n".into()),
                ..Default::default()
            })),
        );
        Fixture::build(&files).expect("the fixture")
    }

    fn check(fx: &Fixture, name: &str) -> Option<String> {
        let LeftFile::Regular(file) =
            look_at(fx.handle(), name, Instant::now() + Duration::from_secs(30))
        else {
            panic!("{name} is not a regular file");
        };
        let initial = fx.initial_content(name).expect("a fixture file");
        difference(name, &file, initial).expect("read to the end")
    }

    fn open(fx: &Fixture, name: &str) -> std::fs::File {
        std::fs::OpenOptions::new()
            .write(true)
            .open(fx.root().join(name))
            .expect("open to change")
    }

    #[test]
    fn files_left_as_made_are_unchanged() {
        let fx = fixture();
        assert_eq!(check(&fx, "small.txt"), None);
        assert_eq!(check(&fx, "big.txt"), None);
    }

    #[test]
    fn a_small_file_that_changed_is_shown_whole() {
        let fx = fixture();
        std::fs::write(fx.root().join("small.txt"), "one\nTwo\n").unwrap();
        let shown = check(&fx, "small.txt").expect("a difference");
        assert!(
            shown.starts_with("expected small.txt unchanged, but it differs from the fixture:\n"),
            "{shown}"
        );
        assert!(shown.contains("\n-two\n+Two\n"), "{shown}");
    }

    #[test]
    fn one_byte_changed_in_a_large_file_is_named_with_its_line() {
        let fx = fixture();
        // Byte 1_999_999 is the `1` of line 181_819 (each line 11 bytes).
        open(&fx, "big.txt").write_at(b"X", 1_999_999).unwrap();
        let shown = check(&fx, "big.txt").expect("a difference");
        assert!(
            shown.starts_with(
                "expected big.txt unchanged, but it differs from the fixture at byte 1999999 \
                 (line 181819, column 2) (the fixture made 3145728 bytes, and it holds 3145728); \
                 around that byte:\n"
            ),
            "{shown}"
        );
        assert!(shown.contains("\n-0123456789\n+0X23456789\n"), "{shown}");
        assert!(shown.contains("^ first difference"), "{shown}");
        // Only the lines around the byte, not the file.
        assert!(shown.len() < 2000, "{} bytes shown", shown.len());
    }

    #[test]
    fn a_large_file_cut_short_or_grown_says_where() {
        let fx = fixture();
        open(&fx, "big.txt").set_len(1 << 20).unwrap();
        let shown = check(&fx, "big.txt").expect("a difference");
        assert!(
            shown.contains(
                "but it ends at byte 1048576 (line 95326, column 2), where the fixture's \
                 3145728 bytes go on"
            ),
            "{shown}"
        );
        let fx = fixture();
        open(&fx, "big.txt").write_at(b"more\n", 3 << 20).unwrap();
        let shown = check(&fx, "big.txt").expect("a difference");
        assert!(
            shown.contains("but it goes on past the fixture's 3145728 bytes, to 3145733"),
            "{shown}"
        );
        // The fixture ends inside a line: `012`, which now goes on.
        assert!(shown.contains("\n+012more\n"), "{shown}");
    }
}
