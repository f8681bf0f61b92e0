//! Reading some of a text file's lines without reading the rest.
//!
//! A view of lines 10-20 of a large file reads up to line 20 and stops.
//! Where an answer states how many lines the file has, the rest is counted
//! as bytes (its newlines), never split into strings. Lines are what
//! splitting the lossy-decoded text at `\n` gives (a final newline does not
//! start an empty line), each decoded on its own: a `\n` never falls inside
//! a UTF-8 sequence, so the text is the same.
//!
//! The reading itself answers in `io::Error`s (a file grown past the size
//! limit while it is read is [`io::ErrorKind::FileTooLarge`]), for dialects
//! that word the system's errors themselves; [`TextFile::engine_error`]
//! turns one into the [`EngineError`] that [`files::read`] would give.

use std::io::{self, BufRead, BufReader, Cursor, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use super::error::{EngineError, IoOp};
use super::files;
use super::paths::PathPolicy;

/// Bytes [`TextFile::open`] reads first, to tell a binary file (a NUL there).
const BINARY_SNIFF_BYTES: u64 = 512;

/// A regular file opened for reading its lines in order.
pub(crate) struct TextFile {
    path: PathBuf,
    /// The first bytes, read on opening (fewer in a shorter file).
    head: Vec<u8>,
    size: u64,
    limit: u64,
    /// How many bytes `head` was asked to hold.
    sniff: u64,
    reader: BufReader<io::Chain<Cursor<Vec<u8>>, io::Take<std::fs::File>>>,
    /// Bytes taken from the reader so far.
    consumed: u64,
    /// Lines read so far.
    lines_read: usize,
    at_end: bool,
    /// The last byte read so far.
    last_byte: Option<u8>,
    line: Vec<u8>,
}

impl TextFile {
    /// Opens a regular file of at most `max_size` bytes (as
    /// [`files::read`] checks it) and reads its first bytes.
    pub(crate) fn open(
        policy: &PathPolicy,
        path: &Path,
        max_size: u64,
    ) -> Result<TextFile, EngineError> {
        let (file, opened) = files::open_regular(policy, path, max_size)?;
        TextFile::new(file, path, opened.len(), max_size, BINARY_SNIFF_BYTES)
            .map_err(|err| EngineError::io(IoOp::Read, path, &err))
    }

    /// Reads `file` (at `path`, `size` bytes by its stat, read no further
    /// than `limit` bytes), its first `sniff` bytes at once.
    pub(crate) fn new(
        file: std::fs::File,
        path: &Path,
        size: u64,
        limit: u64,
        sniff: u64,
    ) -> io::Result<TextFile> {
        let mut rest = file.take(limit.saturating_add(1));
        let mut head = Vec::new();
        (&mut rest).take(sniff).read_to_end(&mut head)?;
        Ok(TextFile {
            path: path.to_path_buf(),
            reader: BufReader::new(Cursor::new(head.clone()).chain(rest)),
            head,
            size,
            limit,
            sniff,
            consumed: 0,
            lines_read: 0,
            at_end: false,
            last_byte: None,
            line: Vec::new(),
        })
    }

    /// The same file read again from its start, for an answer that must
    /// know how many lines there are before it picks the ones to show:
    /// counting them first, then reading up to the last one shown, holds no
    /// more of the file than either pass. Fails on a file that cannot seek
    /// (a FIFO).
    pub(crate) fn read_again(self) -> io::Result<TextFile> {
        let (_, rest) = self.reader.into_inner().into_inner();
        let mut file = rest.into_inner();
        file.seek(SeekFrom::Start(0))?;
        TextFile::new(file, &self.path, self.size, self.limit, self.sniff)
    }

    /// The first bytes of the file, read on opening.
    pub(crate) fn head(&self) -> &[u8] {
        &self.head
    }

    /// Whether the file starts with a NUL within its first bytes.
    pub(crate) fn looks_binary(&self) -> bool {
        self.head.contains(&0)
    }

    /// The size of the file as opened.
    pub(crate) fn size(&self) -> u64 {
        self.size
    }

    /// Whether the reading has reached the end of the file.
    pub(crate) fn at_end(&self) -> bool {
        self.at_end
    }

    /// Lines `first` to `last` (1-based, inclusive; `None`: to the end),
    /// reading no further than line `last`. Lines before `first` are read
    /// past, not kept. Reading starts where the last call stopped, so the
    /// lines must be asked for in order.
    pub(crate) fn lines(&mut self, first: usize, last: Option<usize>) -> io::Result<Vec<String>> {
        let mut kept = Vec::new();
        while last.is_none_or(|last| self.lines_read < last) {
            let keep = self.lines_read + 1 >= first;
            let Some((line, _)) = self.next_line()? else {
                break;
            };
            if keep {
                kept.push(String::from_utf8_lossy(line).into_owned());
            }
        }
        Ok(kept)
    }

    /// The next line's bytes without its `\n`, and whether a `\n` ended it
    /// (only the file's last line may lack one); `None` past the last line.
    /// The bytes are the reader's own, so a caller that only counts or
    /// skips lines makes no copy of them.
    pub(crate) fn next_line(&mut self) -> io::Result<Option<(&[u8], bool)>> {
        if self.at_end {
            return Ok(None);
        }
        self.line.clear();
        let read = self.reader.read_until(b'\n', &mut self.line)?;
        self.count(read)?;
        if read == 0 {
            self.at_end = true;
            return Ok(None);
        }
        self.last_byte = self.line.last().copied();
        self.lines_read += 1;
        Ok(Some(match self.line.strip_suffix(b"\n") {
            Some(line) => (line, true),
            None => (&self.line[..], false),
        }))
    }

    /// How many lines the whole file has: those read so far, and the rest
    /// counted by their newlines.
    pub(crate) fn total_lines(&mut self) -> io::Result<usize> {
        let mut newlines = 0;
        let mut open_line = false;
        while !self.at_end {
            let chunk = self.reader.fill_buf()?;
            if chunk.is_empty() {
                self.at_end = true;
                break;
            }
            newlines += chunk.iter().filter(|&&b| b == b'\n').count();
            open_line = chunk.last() != Some(&b'\n');
            self.last_byte = chunk.last().copied();
            let read = chunk.len();
            self.reader.consume(read);
            self.count(read)?;
        }
        self.lines_read += newlines + usize::from(open_line);
        Ok(self.lines_read)
    }

    /// Whether the file, read to its end, is empty or ends with a newline:
    /// where a split at every `\n` (JavaScript's) finds one more, empty, line.
    pub(crate) fn ends_with_newline_or_is_empty(&self) -> bool {
        self.last_byte.is_none_or(|byte| byte == b'\n')
    }

    /// Counts `read` more bytes against the size limit (the file may have
    /// grown since it was opened).
    fn count(&mut self, read: usize) -> io::Result<()> {
        self.consumed += read as u64;
        if self.consumed > self.limit {
            return Err(io::Error::from(io::ErrorKind::FileTooLarge));
        }
        Ok(())
    }

    /// `err` from reading this file as [`files::read`] words it: over the
    /// size limit, or an error reading it.
    pub(crate) fn engine_error(&self, err: &io::Error) -> EngineError {
        if err.kind() == io::ErrorKind::FileTooLarge {
            EngineError::TooLarge {
                path: self.path.clone(),
                size: self.size,
                limit: self.limit,
            }
        } else {
            EngineError::io(IoOp::Read, &self.path, err)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opened(content: &[u8]) -> (tempfile::TempDir, PathPolicy, PathBuf) {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = std::fs::canonicalize(dir.path()).expect("canonical");
        let path = root.join("f.txt");
        std::fs::write(&path, content).expect("write");
        let policy =
            PathPolicy::new(&root, &[], &[], crate::engine::paths::Scope::Root).expect("policy");
        (dir, policy, path)
    }

    #[test]
    fn a_range_is_read_up_to_its_last_line_and_no_further() {
        let mut content = b"one\ntwo\nthree\n".to_vec();
        content.extend(std::iter::repeat_n(b"filler line\n".as_slice(), 100_000).flatten());
        let (_dir, policy, path) = opened(&content);
        let mut text = TextFile::open(&policy, &path, 1 << 30).expect("open");
        assert_eq!(text.lines(2, Some(3)).expect("lines"), ["two", "three"]);
        assert!(!text.at_end());
        assert!(text.consumed < 100, "read {} bytes", text.consumed);
        assert_eq!(text.total_lines().expect("total"), 100_003);
        assert!(text.ends_with_newline_or_is_empty());
    }

    #[test]
    fn lines_are_counted_as_a_split_at_newlines_counts_them() {
        let cases: [(&[u8], &[&str], usize, bool); 4] = [
            (b"a\nb\nc", &["a", "b", "c"], 3, false),
            (b"a\nb\n", &["a", "b"], 2, true),
            (b"", &[], 0, true),
            (b"\n\n", &["", ""], 2, true),
        ];
        for (content, lines, total, newline_end) in cases {
            let (_dir, policy, path) = opened(content);
            let mut text = TextFile::open(&policy, &path, 1 << 20).expect("open");
            assert_eq!(text.lines(1, None).expect("lines"), lines, "{content:?}");
            assert_eq!(text.total_lines().expect("total"), total, "{content:?}");
            assert_eq!(text.ends_with_newline_or_is_empty(), newline_end);
            let (_dir, policy, path) = opened(content);
            let mut counted = TextFile::open(&policy, &path, 1 << 20).expect("open");
            assert_eq!(counted.total_lines().expect("total"), total, "{content:?}");
        }
    }

    #[test]
    fn lines_come_one_at_a_time_and_a_file_can_be_read_again() {
        let (_dir, policy, path) = opened(b"one\ntwo\r\nend");
        let mut text = TextFile::open(&policy, &path, 1 << 20).expect("open");
        let mut seen = Vec::new();
        while let Some((line, ended)) = text.next_line().expect("line") {
            seen.push((line.to_vec(), ended));
        }
        let expected = [
            (b"one".to_vec(), true),
            (b"two\r".to_vec(), true),
            (b"end".to_vec(), false),
        ];
        assert_eq!(seen, expected);
        assert!(text.next_line().expect("end").is_none());
        let mut again = text.read_again().expect("again");
        assert_eq!(again.lines(2, Some(2)).expect("lines"), ["two\r"]);
    }

    #[test]
    fn a_nul_at_the_start_is_binary_and_a_file_over_the_limit_is_refused() {
        let (_dir, policy, path) = opened(b"ab\0cd");
        assert!(TextFile::open(&policy, &path, 1 << 20)
            .expect("open")
            .looks_binary());
        let err = TextFile::open(&policy, &path, 2).err().expect("too large");
        assert!(matches!(err, EngineError::TooLarge { .. }), "{err:?}");
    }
}
