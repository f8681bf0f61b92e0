//! A text file's lines as agent-tools shows them, read one at a time.
//!
//! [`decode`](super::text::decode) and [`split_lines`](super::text::split_lines)
//! make the lines of a whole text: a byte-order mark dropped, and `\n`,
//! `\r\n` and a lone `\r` each ending a line. [`TextLines`] gives the same
//! lines from the engine's [`TextFile`], which reads up to each `\n` and no
//! further, so `read_file` of a range reads the file only up to the last
//! line it shows. A raw line (up to a `\n`) holds one line per `\r` in it
//! beyond a final `\r\n`'s; lines that are only skipped or counted are never
//! decoded, and no more than one raw line is held at a time.

use std::collections::VecDeque;
use std::io;

use crate::engine::text_range::TextFile;

/// The UTF-8 byte-order mark that starts some files, dropped as `decode` does.
const BYTE_ORDER_MARK: &[u8] = b"\xef\xbb\xbf";

/// A file's lines in order (see the module docs).
pub(crate) struct TextLines {
    file: TextFile,
    /// Lines of the last raw line that are not handed out yet.
    pending: VecDeque<String>,
    /// Whether the first raw line, where a byte-order mark is dropped, is
    /// still to come.
    at_start: bool,
}

impl TextLines {
    /// The lines of `file`, from where its reading stands (its start).
    pub(crate) fn new(file: TextFile) -> TextLines {
        TextLines {
            file,
            pending: VecDeque::new(),
            at_start: true,
        }
    }

    /// The next line, without its terminator; `None` after the last.
    pub(crate) fn next_line(&mut self) -> io::Result<Option<String>> {
        while self.pending.is_empty() {
            if !self.read_raw_line()? {
                return Ok(None);
            }
        }
        Ok(self.pending.pop_front())
    }

    /// Passes over up to `count` lines without decoding them; how many there
    /// were (fewer at the end of the file).
    pub(crate) fn skip(&mut self, count: usize) -> io::Result<usize> {
        let mut skipped = 0;
        while skipped < count {
            if !self.pending.is_empty() {
                let dropped = self.pending.len().min(count - skipped);
                self.pending.drain(..dropped);
                skipped += dropped;
                continue;
            }
            let at_start = std::mem::replace(&mut self.at_start, false);
            let Some((raw, ended)) = self.file.next_line()? else {
                break;
            };
            let held = lines_in(raw, ended, at_start);
            if skipped + held <= count {
                skipped += held;
            } else {
                split_into(&mut self.pending, raw, ended, at_start);
            }
        }
        Ok(skipped)
    }

    /// How many lines are left, counted to the end of the file without
    /// decoding them.
    pub(crate) fn count_rest(&mut self) -> io::Result<usize> {
        let mut count = self.pending.len();
        self.pending.clear();
        loop {
            let at_start = std::mem::replace(&mut self.at_start, false);
            let Some((raw, ended)) = self.file.next_line()? else {
                return Ok(count);
            };
            count += lines_in(raw, ended, at_start);
        }
    }

    /// The same file's lines from its start again (see
    /// [`TextFile::read_again`]).
    pub(crate) fn read_again(self) -> io::Result<TextLines> {
        Ok(TextLines::new(self.file.read_again()?))
    }

    /// Reads the next raw line into `pending`; `false` at the end.
    fn read_raw_line(&mut self) -> io::Result<bool> {
        let at_start = std::mem::replace(&mut self.at_start, false);
        let Some((raw, ended)) = self.file.next_line()? else {
            return Ok(false);
        };
        split_into(&mut self.pending, raw, ended, at_start);
        Ok(true)
    }
}

/// The part of a raw line (without its `\n`; `ended`: it had one) that holds
/// lines: the byte-order mark dropped from the file's first, and the `\r` of
/// a final `\r\n`.
fn body(raw: &[u8], ended: bool, at_start: bool) -> &[u8] {
    let raw = match raw.strip_prefix(BYTE_ORDER_MARK) {
        Some(rest) if at_start => rest,
        _ => raw,
    };
    match raw.strip_suffix(b"\r") {
        Some(rest) if ended => rest,
        _ => raw,
    }
}

/// How many lines a raw line holds: one per piece between `\r`s, except an
/// empty last piece of a raw line the file ends without a `\n` (a final
/// line end does not start a line).
fn lines_in(raw: &[u8], ended: bool, at_start: bool) -> usize {
    let body = body(raw, ended, at_start);
    let pieces = body.iter().filter(|&&b| b == b'\r').count() + 1;
    if !ended && body.last().is_none_or(|&b| b == b'\r') {
        pieces - 1
    } else {
        pieces
    }
}

/// A raw line's lines, decoded (lossily; a `\r` is never part of a UTF-8
/// sequence, so decoding each piece gives what decoding the whole does),
/// appended to `lines`.
fn split_into(lines: &mut VecDeque<String>, raw: &[u8], ended: bool, at_start: bool) {
    let held = lines_in(raw, ended, at_start);
    let body = body(raw, ended, at_start);
    lines.extend(
        body.split(|&b| b == b'\r')
            .take(held)
            .map(|piece| String::from_utf8_lossy(piece).into_owned()),
    );
}

#[cfg(test)]
mod tests {
    use super::super::text::{decode, split_lines};
    use super::*;

    /// Texts where reading line by line and splitting the whole text could
    /// part: every line end, a byte-order mark, bytes that are not UTF-8, a
    /// last line with and without an end, empty lines and files.
    const TEXTS: [&[u8]; 14] = [
        b"",
        b"\n",
        b"\r",
        b"\r\n",
        b"\xef\xbb\xbf",
        b"\xef\xbb\xbf\n",
        b"\xef\xbb\xbfa\r\nb",
        b"a\nb\r\nc\rd",
        b"a\r\r\nb\r",
        b"a\rb\r\n\r\n\n",
        b"\n\n\r\r",
        b"caf\xc3\xa9 \xff\r\xfe\nlast",
        b"one\ntwo\nthree\n",
        b"x\xef\xbb\xbf\ny",
    ];

    fn text_lines(content: &[u8]) -> (tempfile::TempDir, TextLines) {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("f.txt");
        std::fs::write(&path, content).expect("write");
        let file = std::fs::File::open(&path).expect("open");
        let text = TextFile::new(file, &path, content.len() as u64, u64::MAX, 8).expect("text");
        (dir, TextLines::new(text))
    }

    #[test]
    fn the_lines_are_those_of_the_whole_text_decoded_and_split() {
        for content in TEXTS {
            let whole = decode(content);
            let expected = split_lines(&whole);
            let (_dir, mut lines) = text_lines(content);
            let mut seen = Vec::new();
            while let Some(line) = lines.next_line().expect("line") {
                seen.push(line);
            }
            assert_eq!(seen, expected, "{:?}", String::from_utf8_lossy(content));
            let (_dir, mut counted) = text_lines(content);
            assert_eq!(counted.count_rest().expect("count"), expected.len());
            for skip in 0..=expected.len() + 1 {
                let (_dir, mut lines) = text_lines(content);
                let skipped = lines.skip(skip).expect("skip");
                assert_eq!(skipped, skip.min(expected.len()), "skip {skip}");
                let next = lines.next_line().expect("line");
                assert_eq!(next.as_deref(), expected.get(skip).copied(), "skip {skip}");
                let rest = lines.count_rest().expect("count");
                assert_eq!(rest, expected.len().saturating_sub(skip + 1), "skip {skip}");
            }
        }
    }

    /// Lines are read as they are asked for: with the reading limited to
    /// the first four lines' bytes, those four come and only the fifth
    /// fails, so nothing past a range's last line is read to show it.
    #[test]
    fn nothing_is_read_past_the_lines_asked_for() {
        let content = b"one\ntwo\nthree\nfour\nfive\n".repeat(1000);
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("f.txt");
        std::fs::write(&path, &content).expect("write");
        let file = std::fs::File::open(&path).expect("open");
        let four_lines = b"one\ntwo\nthree\nfour\n".len() as u64;
        let text =
            TextFile::new(file, &path, content.len() as u64, four_lines, 4).expect("text");
        let mut lines = TextLines::new(text);
        assert_eq!(lines.skip(2).expect("skip"), 2);
        assert_eq!(lines.next_line().expect("line").as_deref(), Some("three"));
        assert_eq!(lines.next_line().expect("line").as_deref(), Some("four"));
        let past = lines.next_line().expect_err("the fifth line is past the limit");
        assert_eq!(past.kind(), io::ErrorKind::FileTooLarge);
    }

    #[test]
    fn reading_again_starts_over() {
        let (_dir, mut lines) = text_lines(b"a\rb\nc\n");
        assert_eq!(lines.count_rest().expect("count"), 3);
        let mut again = lines.read_again().expect("again");
        assert_eq!(again.skip(1).expect("skip"), 1);
        assert_eq!(again.next_line().expect("line").as_deref(), Some("b"));
    }
}
