//! Finding the matching lines of one file's content.
//!
//! A file is searched as one buffer with ripgrep's own searcher
//! (`grep-searcher` driving a `grep-regex` matcher): the regex runs over the
//! buffer, and only the lines that match (and the context lines asked for)
//! become strings. The result is the same as splitting the text into lines
//! and running the regex on each line alone: the matcher is told that `\n`
//! ends a line, so no match crosses one, and `^`/`$` match at line ends. Text
//! that is not UTF-8 is searched as its lossy decoding (U+FFFD for each
//! invalid sequence), as the per-line search saw it. What the buffer matcher
//! cannot express (a pattern naming `\n` itself, the multiline search that
//! lets a match span lines) takes the per-line route.

use std::borrow::Cow;
use std::collections::BTreeSet;
use std::io::{self, Read};

use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder, Sink, SinkContext, SinkMatch};
use regex::Regex;

/// Bytes inspected for a NUL to decide that a file is binary (and skip it).
const BINARY_SNIFF_BYTES: usize = 512;

/// A compiled search pattern: the regex the dialects know (for error
/// messages and for counting hits within a line) and, where it can be built,
/// the same pattern as a buffer matcher.
#[derive(Debug)]
pub(crate) struct LinePattern {
    regex: Regex,
    buffer: Option<RegexMatcher>,
    multiline: bool,
}

impl LinePattern {
    /// `regex` was compiled from `pattern` with `case_insensitive`;
    /// `multiline` lets a match span lines (the whole text is searched).
    pub(crate) fn new(
        regex: Regex,
        pattern: &str,
        case_insensitive: bool,
        multiline: bool,
    ) -> LinePattern {
        let buffer = if multiline {
            None
        } else {
            RegexMatcherBuilder::new()
                .case_insensitive(case_insensitive)
                .multi_line(true)
                .line_terminator(Some(b'\n'))
                .build(pattern)
                .ok()
        };
        LinePattern {
            regex,
            buffer,
            multiline,
        }
    }

    /// The regex itself.
    pub(crate) fn regex(&self) -> &Regex {
        &self.regex
    }
}

/// How much of a file's matches to keep.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Want {
    /// Whether it matches at all: the search stops at the first match.
    Files,
    /// How many lines match.
    Counts,
    /// The matching lines' numbers and text, with `before` and `after`
    /// lines of context around each.
    Lines { before: usize, after: usize },
}

/// The matches found in one file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Matches {
    /// Lines that match (with [`Want::Files`], 1: the search stopped there).
    pub(crate) count: usize,
    /// 1-based numbers of the matching lines, ascending ([`Want::Lines`]).
    pub(crate) matched: Vec<usize>,
    /// The kept lines (matching and context; the per-line route keeps every
    /// line), ascending: each one's number and where it ends in `text`.
    kept: Vec<(usize, usize)>,
    /// The kept lines' text, one after another without line terminators:
    /// one buffer per file rather than a `String` per line.
    text: String,
}

impl Matches {
    /// `count` matching lines, numbered `matched`, with no line kept yet.
    pub(crate) fn new(count: usize, matched: Vec<usize>) -> Matches {
        Matches {
            count,
            matched,
            ..Matches::default()
        }
    }

    /// An empty result for a search of `len` bytes of text: with room for
    /// the lines [`Want::Lines`] keeps (a guess from the size, so that a
    /// file's lines seldom make the buffers grow more than once or twice).
    fn for_text(want: Want, len: usize) -> Matches {
        let Want::Lines { .. } = want else {
            return Matches::default();
        };
        let lines = (len / 64).clamp(4, 1024);
        Matches {
            count: 0,
            matched: Vec::with_capacity(lines),
            kept: Vec::with_capacity(lines),
            text: String::with_capacity(len.min(1 << 20)),
        }
    }

    /// Keeps line `number` (after those kept so far), without its terminator.
    pub(crate) fn keep_line(&mut self, number: usize, line: &str) {
        self.text.push_str(line);
        self.kept.push((number, self.text.len()));
    }

    /// Line `n` (1-based), if kept.
    pub(crate) fn line(&self, n: usize) -> Option<&str> {
        let at = self
            .kept
            .binary_search_by_key(&n, |&(number, _)| number)
            .ok()?;
        Some(self.line_at(at))
    }

    /// The kept lines, numbered, ascending.
    pub(crate) fn lines(&self) -> impl Iterator<Item = (usize, &str)> + '_ {
        (0..self.kept.len()).map(|at| (self.kept[at].0, self.line_at(at)))
    }

    /// The text of the `at`-th kept line.
    fn line_at(&self, at: usize) -> &str {
        let start = at.checked_sub(1).map_or(0, |before| self.kept[before].1);
        self.text.get(start..self.kept[at].1).unwrap_or("")
    }
}

/// Searches file after file with one pattern, reusing its read buffer and
/// searcher, so a tree search holds one file at a time.
pub(crate) struct LineSearch<'p> {
    pattern: &'p LinePattern,
    want: Want,
    /// With [`Want::Lines`], how many matching lines of a file are of use:
    /// the buffer search stops at that many (`None`: all of them).
    match_limit: Option<usize>,
    searcher: Searcher,
    buffer: Vec<u8>,
}

/// What reading a file for a search came to.
#[derive(Debug)]
pub(crate) enum FileOutcome {
    /// Searched (`None`: binary, or no match).
    Searched(Option<Matches>),
    /// Larger than the limit; nothing was searched.
    TooLarge,
}

impl<'p> LineSearch<'p> {
    pub(crate) fn new(pattern: &'p LinePattern, want: Want) -> LineSearch<'p> {
        let (before, after) = match want {
            Want::Lines { before, after } => (before, after),
            Want::Files | Want::Counts => (0, 0),
        };
        let searcher = SearcherBuilder::new()
            .line_number(true)
            .binary_detection(BinaryDetection::none())
            .before_context(before)
            .after_context(after)
            .build();
        LineSearch {
            pattern,
            want,
            match_limit: None,
            searcher,
            buffer: Vec::new(),
        }
    }

    /// Keeps at most `limit` matching lines of each file from now on
    /// (`None`: all), for a caller that can show no more: the buffer search
    /// stops there, leaving the rest of the file (and the context after the
    /// last kept match) unsearched. The per-line route still keeps them all.
    pub(crate) fn set_match_limit(&mut self, limit: Option<usize>) {
        self.match_limit = limit;
    }

    /// Reads `file` (of `size` bytes by its stat) if it is at most `limit`
    /// bytes, and searches it.
    pub(crate) fn search_file(
        &mut self,
        file: std::fs::File,
        size: u64,
        limit: u64,
    ) -> io::Result<FileOutcome> {
        if size > limit {
            return Ok(FileOutcome::TooLarge);
        }
        let mut buffer = std::mem::take(&mut self.buffer);
        buffer.clear();
        buffer.reserve(usize::try_from(size).unwrap_or(0).saturating_add(1));
        let read = file.take(limit.saturating_add(1)).read_to_end(&mut buffer);
        let outcome = match read {
            Ok(_) if buffer.len() as u64 > limit => Ok(FileOutcome::TooLarge),
            Ok(_) => Ok(FileOutcome::Searched(self.search(&buffer))),
            Err(err) => Err(err),
        };
        self.buffer = buffer;
        outcome
    }

    /// The pattern's regex.
    pub(crate) fn regex(&self) -> &Regex {
        &self.pattern.regex
    }

    /// Whether a match may span lines.
    pub(crate) fn multiline(&self) -> bool {
        self.pattern.multiline
    }

    /// The matches of a file the caller split into `lines` and matched
    /// itself (`matched`: 1-based, ascending), keeping what this search wants.
    pub(crate) fn keep(&self, lines: Vec<String>, matched: Vec<usize>) -> Matches {
        keep(self.want, lines, matched)
    }

    /// Searches `content`; `None` for a binary file (a NUL near the start)
    /// or no match.
    pub(crate) fn search(&mut self, content: &[u8]) -> Option<Matches> {
        if content.iter().take(BINARY_SNIFF_BYTES).any(|&b| b == 0) {
            return None;
        }
        self.search_text(content)
    }

    /// Searches `content` as text, whatever bytes it holds (the caller has
    /// its own rule for binary files); `None` for no match.
    pub(crate) fn search_text(&mut self, content: &[u8]) -> Option<Matches> {
        let found = match &self.pattern.buffer {
            Some(matcher) => {
                let lossy;
                let text = match std::str::from_utf8(content) {
                    Ok(text) => text,
                    Err(_) => {
                        lossy = String::from_utf8_lossy(content);
                        &*lossy
                    }
                };
                let mut sink = Keep {
                    want: self.want,
                    match_limit: self.match_limit,
                    found: Matches::for_text(self.want, text.len()),
                    text,
                };
                self.searcher
                    .search_slice(matcher, text.as_bytes(), &mut sink)
                    .ok()?;
                sink.found
            }
            None => per_line(
                content,
                &self.pattern.regex,
                self.pattern.multiline,
                self.want,
            ),
        };
        (found.count > 0).then_some(found)
    }
}

/// The sink that keeps what [`Want`] asks for of `text`.
struct Keep<'t> {
    want: Want,
    /// Matching lines to keep at most ([`Want::Lines`]; `None`: all).
    match_limit: Option<usize>,
    found: Matches,
    /// What is searched: the lines handed over are slices of it.
    text: &'t str,
}

impl Sink for Keep<'_> {
    type Error = io::Error;

    fn matched(&mut self, _: &Searcher, hit: &SinkMatch<'_>) -> Result<bool, io::Error> {
        let first = hit
            .line_number()
            .and_then(|n| usize::try_from(n).ok())
            .ok_or_else(|| io::Error::other("the searcher gave no line number"))?;
        for (i, line) in hit.lines().enumerate() {
            self.found.count += 1;
            match self.want {
                Want::Files => return Ok(false),
                Want::Counts => {}
                Want::Lines { .. } => {
                    self.found.matched.push(first + i);
                    let text = line_in(self.text, line);
                    self.found.keep_line(first + i, &text);
                    if self
                        .match_limit
                        .is_some_and(|limit| self.found.matched.len() >= limit)
                    {
                        return Ok(false);
                    }
                }
            }
        }
        Ok(true)
    }

    fn context(&mut self, _: &Searcher, context: &SinkContext<'_>) -> Result<bool, io::Error> {
        if let Some(n) = context.line_number().and_then(|n| usize::try_from(n).ok()) {
            let text = line_in(self.text, context.bytes());
            self.found.keep_line(n, &text);
        }
        Ok(true)
    }
}

/// `line`, a line of `text` as the searcher hands it over, without its
/// `\n`. It is a slice of `text`, which is UTF-8, so it is taken from there
/// rather than checked again (and never needs replacing).
fn line_in<'a>(text: &'a str, line: &'a [u8]) -> Cow<'a, str> {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let start = (line.as_ptr() as usize).wrapping_sub(text.as_ptr() as usize);
    let within = start
        .checked_add(line.len())
        .and_then(|end| text.get(start..end));
    match within {
        Some(text) => Cow::Borrowed(text),
        None => String::from_utf8_lossy(line),
    }
}

/// The per-line route: the text split into lines, the regex run on each line
/// alone (or, `multiline`, over the whole text).
fn per_line(content: &[u8], regex: &Regex, multiline: bool, want: Want) -> Matches {
    let text = String::from_utf8_lossy(content);
    let mut lines: Vec<String> = text.split('\n').map(str::to_string).collect();
    if lines.last().is_some_and(String::is_empty) {
        lines.pop();
    }
    let matched = matching_lines(&text, &lines, regex, multiline);
    keep(want, lines, matched)
}

/// What `want` asks for of a file's `lines` and `matched` line numbers.
fn keep(want: Want, lines: Vec<String>, matched: Vec<usize>) -> Matches {
    let count = matched.len();
    match want {
        Want::Files | Want::Counts => Matches {
            count,
            ..Matches::default()
        },
        Want::Lines { .. } => {
            let mut found = Matches::new(count, matched);
            for (i, line) in lines.iter().enumerate() {
                found.keep_line(i + 1, line);
            }
            found
        }
    }
}

/// The 1-based numbers of the `lines` of `text` that `regex` matches. With
/// `multiline` the pattern runs over the whole text and every line a match
/// spans counts; otherwise it runs over each line alone.
pub(crate) fn matching_lines(
    text: &str,
    lines: &[String],
    regex: &Regex,
    multiline: bool,
) -> Vec<usize> {
    if multiline {
        let mut set = BTreeSet::new();
        for m in regex.find_iter(text) {
            let first = line_of(text, m.start());
            // A match ending right after a newline does not touch the next line.
            let end = if m.end() > m.start() {
                m.end() - 1
            } else {
                m.start()
            };
            let last = line_of(text, end).max(first);
            set.extend(first..=last);
        }
        set.into_iter().filter(|&n| n <= lines.len()).collect()
    } else {
        lines
            .iter()
            .enumerate()
            .filter(|(_, l)| regex.is_match(l))
            .map(|(i, _)| i + 1)
            .collect()
    }
}

/// 1-based line number of byte offset `at` in `text`.
fn line_of(text: &str, at: usize) -> usize {
    text.as_bytes()[..at.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Texts on which a search of the whole buffer and a search line by line
    /// could part: line ends, CRLF, empty lines, bytes that are not UTF-8, a last
    /// line without a newline, an empty file. A dialect with a search of its own
    /// checks its two routes against each other on them too.
    pub(crate) const TEXTS_WHERE_LINE_SEARCHES_COULD_PART: [&[u8]; 7] = [
        b"alpha\nbeta\r\ngamma delta\n\nlast without newline",
        b"x\n\n\ny\n",
        b"",
        b"\n",
        b"caf\xc3\xa9 \xff\xfe bad bytes\nplain\n",
        b"a b\ta\r\n  \nEND",
        b"one\ntwo\nthree\n",
    ];

    fn pattern(text: &str, case_insensitive: bool) -> LinePattern {
        let regex = regex::RegexBuilder::new(text)
            .case_insensitive(case_insensitive)
            .build()
            .expect("regex");
        LinePattern::new(regex, text, case_insensitive, false)
    }

    const LINES: Want = Want::Lines {
        before: 0,
        after: 0,
    };

    /// The buffer search finds what running the regex on each line alone
    /// finds, on the cases where the two could part: line ends, CRLF,
    /// classes that would take a newline, empty matches, text that is not
    /// UTF-8, a last line without a newline, an empty file.
    #[test]
    fn the_buffer_search_agrees_with_the_per_line_search() {
        let patterns = [
            "a", "^$", "^", "$", "a$", "\\s+", "[^x]", "\\W", ".", "x*", "(?i)BETA", "\u{fffd}",
            "\\r$", "^\\s*$", "\\bt\\w+", "a|^", "de.ta",
        ];
        for text in TEXTS_WHERE_LINE_SEARCHES_COULD_PART {
            for source in patterns {
                for case_insensitive in [false, true] {
                    let pattern = pattern(source, case_insensitive);
                    assert!(
                        pattern.buffer.is_some(),
                        "{source} builds as a buffer matcher"
                    );
                    let mut search = LineSearch::new(&pattern, LINES);
                    let fast = search.search(text);
                    let slow = per_line(text, pattern.regex(), false, LINES);
                    let slow = (slow.count > 0).then(|| {
                        let mut only_matches = Matches::new(slow.count, slow.matched.clone());
                        for (n, line) in slow.lines().filter(|(n, _)| slow.matched.contains(n)) {
                            only_matches.keep_line(n, line);
                        }
                        only_matches
                    });
                    assert_eq!(
                        fast,
                        slow,
                        "pattern {source:?} (case-insensitive: {case_insensitive}) on {:?}",
                        String::from_utf8_lossy(text)
                    );
                }
            }
        }
    }

    #[test]
    fn a_line_is_taken_from_the_searched_text_or_else_decoded() {
        let text = "one\ntwo\n";
        let second = &text.as_bytes()[4..];
        assert!(matches!(line_in(text, second), Cow::Borrowed("two")));
        let elsewhere = b"caf\xff\n".to_vec();
        assert_eq!(line_in(text, &elsewhere), "caf\u{fffd}");
    }

    #[test]
    fn a_pattern_naming_a_newline_takes_the_per_line_route() {
        let pattern = pattern("a\\nb", false);
        assert!(pattern.buffer.is_none());
        let mut search = LineSearch::new(&pattern, LINES);
        assert_eq!(search.search(b"a\nb\n"), None, "no line holds a newline");
    }

    #[test]
    fn context_lines_come_with_the_matches_and_stop_at_the_end() {
        let pattern = pattern("MATCH", false);
        let want = Want::Lines {
            before: 1,
            after: 2,
        };
        let mut search = LineSearch::new(&pattern, want);
        let found = search
            .search(b"a\nb\nMATCH\nc\nd\ne\nMATCH\nf")
            .expect("matches");
        assert_eq!(found.matched, vec![3, 7]);
        let numbers: Vec<usize> = found.lines().map(|(n, _)| n).collect();
        assert_eq!(numbers, vec![2, 3, 4, 5, 6, 7, 8]);
        assert_eq!(found.lines().nth(6), Some((8, "f")));
        assert_eq!(
            (found.line(2), found.line(3), found.line(9)),
            (Some("b"), Some("MATCH"), None)
        );
    }

    #[test]
    fn a_match_limit_stops_the_search_at_that_many_matches() {
        let pattern = pattern("MATCH", false);
        let want = Want::Lines {
            before: 1,
            after: 1,
        };
        let mut search = LineSearch::new(&pattern, want);
        search.set_match_limit(Some(2));
        let text = b"a\nMATCH\nb\nMATCH\nc\nMATCH\nd\n";
        let found = search.search(text).expect("matches");
        assert_eq!((found.count, found.matched.clone()), (2, vec![2, 4]));
        let numbers: Vec<usize> = found.lines().map(|(n, _)| n).collect();
        assert_eq!(
            numbers,
            vec![1, 2, 3, 4],
            "nothing kept past the last match"
        );
        search.set_match_limit(None);
        assert_eq!(search.search(text).map(|m| m.count), Some(3));
    }

    #[test]
    fn counts_and_files_keep_no_lines() {
        let pattern = pattern("x", false);
        let counted = LineSearch::new(&pattern, Want::Counts)
            .search(b"x\ny\nxx\n")
            .expect("matches");
        assert_eq!((counted.count, counted.lines().count()), (2, 0));
        let listed = LineSearch::new(&pattern, Want::Files)
            .search(b"x\ny\nxx\n")
            .expect("matches");
        assert_eq!((listed.count, listed.lines().count()), (1, 0));
    }

    #[test]
    fn a_nul_near_the_start_means_binary() {
        let pattern = pattern("TODO", false);
        let mut search = LineSearch::new(&pattern, Want::Counts);
        assert_eq!(search.search(b"TODO\0binary"), None);
        let mut late = vec![b'a'; BINARY_SNIFF_BYTES];
        late.extend_from_slice(b"\0\nTODO\n");
        assert_eq!(search.search(&late).map(|m| m.count), Some(1));
    }

    #[test]
    fn multiline_matches_cover_every_spanned_line() {
        let regex = regex::RegexBuilder::new("one.two")
            .dot_matches_new_line(true)
            .multi_line(true)
            .build()
            .expect("regex");
        let pattern = LinePattern::new(regex, "one.two", false, true);
        let found = LineSearch::new(&pattern, LINES)
            .search(b"zero\none\ntwo\nthree\n")
            .expect("match");
        assert_eq!(found.matched, vec![2, 3]);
    }
}
