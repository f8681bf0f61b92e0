//! grep's answer in its three output modes, written as the search hands over
//! each file's matches: a list of paths (newest first), `path:N` counts, or
//! `path:N:line` match and `path-N-line` context lines with `--` between
//! groups and files. Content and counts go straight into one text (see
//! [`Listing`]); only the file list is held, to be ordered.

use regex::Regex;

use super::listing::{push_number, Listing};
use super::mutations::Mutation;
use super::order::{self, Dated};
use crate::engine::search::{FileHits, Further};
use crate::mutations::Mutations;

/// grep's output modes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum OutputMode {
    FilesWithMatches,
    Content,
    Count,
}

/// What grep's arguments ask of the output.
pub(super) struct GrepParams {
    pub(super) mode: OutputMode,
    pub(super) line_numbers: bool,
    pub(super) head_limit: usize,
    pub(super) offset: usize,
    /// Context lines before and after a match, as given: Boris takes a
    /// negative one as it comes (grep.go:524-530), so the window of a match
    /// may leave the match out or be empty.
    pub(super) before: i64,
    pub(super) after: i64,
    /// A line-by-line search shows each line without the `\r` before its
    /// newline, which Go's line scanner drops (grep.go:860-878); a multiline
    /// one splits the whole text on `\n` and keeps it (grep.go:887).
    pub(super) multiline: bool,
}

/// The answer being written.
pub(super) struct GrepOutput<'a> {
    mutations: &'a Mutations,
    params: &'a GrepParams,
    /// For the mutation that counts hits within lines.
    regex: &'a Regex,
    listing: Listing,
    /// The files found, in walk order (files_with_matches).
    files: Vec<Dated<String>>,
    /// Files written so far (content).
    files_written: usize,
}

impl<'a> GrepOutput<'a> {
    pub(super) fn new(
        mutations: &'a Mutations,
        params: &'a GrepParams,
        regex: &'a Regex,
    ) -> GrepOutput<'a> {
        let separators_count = !mutations.is_active(Mutation::GrepHeadLimitSkipsSeparators);
        GrepOutput {
            mutations,
            params,
            regex,
            listing: Listing::new(params.offset, params.head_limit, separators_count),
            files: Vec::new(),
            files_written: 0,
        }
    }

    /// Adds one file's matches, in the order the search found the files.
    pub(super) fn add(&mut self, hit: FileHits) {
        let m = self.mutations;
        match self.params.mode {
            OutputMode::FilesWithMatches => self.files.push(Dated {
                modified: hit.modified,
                item: hit.display,
            }),
            OutputMode::Count => {
                let count = if m.is_active(Mutation::GrepCountOccurrences) {
                    hit.matched()
                        .iter()
                        .map(|&n| self.regex.find_iter(hit.line(n).unwrap_or("")).count())
                        .sum()
                } else {
                    hit.matches.count
                };
                if let Some(text) = self.listing.line() {
                    text.push_str(&hit.display);
                    text.push(':');
                    push_number(text, count);
                }
            }
            OutputMode::Content => {
                let groups = self.groups(&hit);
                // A file that shows no line (every window empty) is left out,
                // with no separator before it (grep.go:800).
                let shown: i64 = groups.iter().map(|(start, end)| (end - start + 1).max(0)).sum();
                if shown + groups.len() as i64 - 1 <= 0 {
                    return;
                }
                if self.files_written > 0 && !m.is_active(Mutation::GrepNoGroupSeparator) {
                    self.listing.separator();
                }
                self.files_written += 1;
                self.content_lines(&hit, groups);
            }
        }
    }

    /// How much more of the search the answer can use, told after each
    /// file. Content and counts are written in the order found, with
    /// nothing said of what lies past the window, so once the window is
    /// full nothing more is needed; short of that, content needs at most
    /// as many matching lines of a file as the window still takes (each
    /// match is at least one line of the answer). The file list is ordered
    /// once every file is known, so it needs them all.
    pub(super) fn further(&self) -> Further {
        match self.params.mode {
            OutputMode::FilesWithMatches => Further::Search { match_limit: None },
            _ if self.listing.is_full() => Further::Stop,
            OutputMode::Count => Further::Search { match_limit: None },
            OutputMode::Content => Further::Search {
                match_limit: self.listing.lines_still_used(),
            },
        }
    }

    /// The windows of lines shown around the matches, as Boris merges them:
    /// a window starting at most one line after the last one's end joins it.
    fn groups(&self, hit: &FileHits) -> Vec<(i64, i64)> {
        let p = self.params;
        let mut groups: Vec<(i64, i64)> = Vec::new();
        for &n in hit.matched() {
            let at = n as i64;
            let start = (at - p.before).max(1);
            let end = match usize::try_from(p.after) {
                Ok(after) => hit.kept_through(n, n + after) as i64,
                Err(_) => at + p.after,
            };
            match groups.last_mut() {
                Some(last) if start <= last.1 + 1 => last.1 = last.1.max(end),
                _ => groups.push((start, end)),
            }
        }
        groups
    }

    /// One file's match and context lines, `--` between separate groups.
    fn content_lines(&mut self, hit: &FileHits, groups: Vec<(i64, i64)>) {
        let (m, p) = (self.mutations, self.params);
        // Both in ascending order, as the groups are: walked alongside them.
        let mut kept = hit.lines().peekable();
        let mut matched = hit.matched().iter().copied().peekable();
        for (gi, (start, end)) in groups.into_iter().enumerate() {
            if gi > 0 && !m.is_active(Mutation::GrepNoGroupSeparator) {
                self.listing.separator();
            }
            let (first, last) = (usize::try_from(start).unwrap_or(1), usize::try_from(end).unwrap_or(0));
            for n in first..=last {
                if self.listing.is_full() {
                    return;
                }
                while kept.next_if(|&(k, _)| k < n).is_some() {}
                while matched.next_if(|&k| k < n).is_some() {}
                let Some(text) = self.listing.line() else {
                    continue;
                };
                let line = kept.peek().filter(|&&(k, _)| k == n).map_or("", |&(_, l)| l);
                let is_match = matched.peek() == Some(&n);
                let sep = if is_match || m.is_active(Mutation::GrepContextLinesAsMatches) {
                    ':'
                } else {
                    '-'
                };
                text.push_str(&hit.display);
                text.push(sep);
                if p.line_numbers {
                    push_number(text, n);
                    text.push(sep);
                }
                let line = match p.multiline {
                    false => line.strip_suffix('\r').unwrap_or(line),
                    true => line,
                };
                text.push_str(line);
            }
        }
    }

    /// The whole answer: the file list ordered and windowed, or the lines
    /// written.
    pub(super) fn finish(self) -> String {
        let mut listing = self.listing;
        if self.params.mode == OutputMode::FilesWithMatches {
            let mut found = self.files;
            if !self.mutations.is_active(Mutation::GrepFilesPathOrder) {
                order::newest_first(self.mutations, &mut found);
            }
            for file in &found {
                listing.push(&file.item);
            }
        }
        listing.into_text()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rendered(hits: Vec<FileHits>, before: i64, after: i64, offset: usize) -> String {
        let p = GrepParams {
            mode: OutputMode::Content,
            line_numbers: true,
            head_limit: 0,
            offset,
            before,
            after,
            multiline: false,
        };
        let regex = Regex::new("MATCH").expect("regex");
        let mutations = Mutations::of::<Mutation>(&[]);
        let mut output = GrepOutput::new(&mutations, &p, &regex);
        for hit in hits {
            output.add(hit);
        }
        output.finish()
    }

    #[test]
    fn content_mode_groups_context() {
        let hit = FileHits::from_lines(
            "f.txt",
            &["a", "b", "MATCH", "c", "d", "e", "f", "MATCH"],
            &[3, 8],
        );
        assert_eq!(
            rendered(vec![hit], 1, 1, 0),
            "f.txt-2-b\nf.txt:3:MATCH\nf.txt-4-c\n--\nf.txt-7-f\nf.txt:8:MATCH"
        );
    }

    #[test]
    fn files_are_separated_and_the_window_spans_them() {
        let hits = || {
            vec![
                FileHits::from_lines("a.txt", &["MATCH", "x"], &[1]),
                FileHits::from_lines("b.txt", &["y", "MATCH"], &[2]),
            ]
        };
        assert_eq!(rendered(hits(), 0, 0, 0), "a.txt:1:MATCH\n--\nb.txt:2:MATCH");
        assert_eq!(rendered(hits(), 0, 0, 1), "--\nb.txt:2:MATCH");
    }

    /// Content and counts stop the search once the window is full (content
    /// asking for no more matches than the window takes until then); the
    /// file list, ordered at the end, never does.
    #[test]
    fn the_search_is_stopped_once_the_window_is_full() {
        let regex = Regex::new("MATCH").expect("regex");
        let mutations = Mutations::of::<Mutation>(&[]);
        let hit = || FileHits::from_lines("a.txt", &["MATCH", "MATCH"], &[1, 2]);
        let further_after_one_file = |mode, offset, head_limit| {
            let p = GrepParams {
                mode,
                line_numbers: true,
                head_limit,
                offset,
                before: 0,
                after: 0,
                multiline: false,
            };
            let mut output = GrepOutput::new(&mutations, &p, &regex);
            let before = output.further();
            output.add(hit());
            (before, output.further())
        };
        let lines = |n| Further::Search {
            match_limit: Some(n),
        };
        let all = Further::Search { match_limit: None };
        assert_eq!(
            further_after_one_file(OutputMode::Content, 1, 1),
            (lines(2), Further::Stop)
        );
        assert_eq!(
            further_after_one_file(OutputMode::Content, 1, 2),
            (lines(3), lines(1))
        );
        // The separator before the next file is one of the lines left.
        assert_eq!(
            further_after_one_file(OutputMode::Content, 0, 4),
            (lines(4), lines(2))
        );
        assert_eq!(
            further_after_one_file(OutputMode::Content, 0, 0),
            (all, all)
        );
        assert_eq!(
            further_after_one_file(OutputMode::Count, 0, 1),
            (all, Further::Stop)
        );
        assert_eq!(
            further_after_one_file(OutputMode::FilesWithMatches, 0, 1),
            (all, all)
        );
    }
}
