//! grep's answer written a line at a time into one growing text, with the
//! `offset`/`head_limit` window applied as the lines come: the same text as
//! collecting every line, skipping `offset`, keeping `head_limit` (0: all)
//! and joining them with `\n`, without a `String` per line.

/// The lines written so far, joined by `\n` (no newline after the last).
pub(super) struct Listing {
    text: String,
    /// Lines still to skip.
    skip: usize,
    /// Lines still to keep; `None` without a limit.
    room: Option<usize>,
    /// Whether separators count as lines for the window (a mutation makes
    /// only match and context lines count).
    separators_count: bool,
    /// Whether a line has been kept (the next one needs a `\n` first).
    written: bool,
    /// A separator met between counted lines when they do not count: it is
    /// written only if another line is kept after it.
    held_separator: bool,
}

/// The line between groups of content lines that are not adjacent.
pub(super) const GROUP_SEPARATOR: &str = "--";

impl Listing {
    /// An empty listing that skips `offset` lines and keeps `head_limit`
    /// (0: every line); `separators_count` says whether [`Listing::separator`]
    /// lines take part in that count.
    pub(super) fn new(offset: usize, head_limit: usize, separators_count: bool) -> Listing {
        Listing {
            text: String::new(),
            skip: offset,
            room: (head_limit > 0).then_some(head_limit),
            separators_count,
            written: false,
            held_separator: false,
        }
    }

    /// Whether no further line would be kept.
    pub(super) fn is_full(&self) -> bool {
        self.room == Some(0)
    }

    /// How many more lines can change the text (those still to skip and
    /// those still kept); `None` without a limit.
    pub(super) fn lines_still_used(&self) -> Option<usize> {
        self.room.map(|room| room.saturating_add(self.skip))
    }

    /// Starts the next line if the window keeps it: the text to write it
    /// into (already separated from the line before), or `None` if it is
    /// skipped.
    pub(super) fn line(&mut self) -> Option<&mut String> {
        if self.skip > 0 {
            self.skip -= 1;
            return None;
        }
        match &mut self.room {
            Some(0) => return None,
            Some(room) => *room -= 1,
            None => {}
        }
        if self.held_separator {
            self.held_separator = false;
            self.text.push('\n');
            self.text.push_str(GROUP_SEPARATOR);
        }
        if self.written {
            self.text.push('\n');
        }
        self.written = true;
        Some(&mut self.text)
    }

    /// A whole line, if the window keeps it.
    pub(super) fn push(&mut self, line: &str) {
        if let Some(text) = self.line() {
            text.push_str(line);
        }
    }

    /// The `--` between groups: a line like any other, or, where separators
    /// do not count, written only between two kept lines.
    pub(super) fn separator(&mut self) {
        if self.separators_count {
            self.push(GROUP_SEPARATOR);
        } else if self.written && !self.is_full() {
            self.held_separator = true;
        }
    }

    /// The text written.
    pub(super) fn into_text(self) -> String {
        self.text
    }
}

/// Appends `n` in decimal: what `format!("{n}")` writes, without the
/// formatting machinery (grep writes a number on every content line).
pub(super) fn push_number(text: &mut String, mut n: usize) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        // `n % 10` is below 10, so the digit is ASCII.
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    for &digit in &digits[at..] {
        text.push(char::from(digit));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The window as collecting, skipping, taking and joining computes it.
    fn collected(lines: &[&str], offset: usize, head_limit: usize) -> String {
        let rest = lines.iter().skip(offset);
        let kept: Vec<&str> = if head_limit > 0 {
            rest.take(head_limit).copied().collect()
        } else {
            rest.copied().collect()
        };
        kept.join("\n")
    }

    /// `lines` through a listing, `GROUP_SEPARATOR` lines as separators.
    fn listed(lines: &[&str], offset: usize, head_limit: usize, count_separators: bool) -> String {
        let mut listing = Listing::new(offset, head_limit, count_separators);
        for &line in lines {
            if line == GROUP_SEPARATOR {
                listing.separator();
            } else {
                listing.push(line);
            }
        }
        listing.into_text()
    }

    #[test]
    fn the_window_matches_collecting_every_line() {
        let lines = ["a", "--", "b", "c", "--", "d"];
        for offset in 0..8 {
            for head_limit in 0..8 {
                assert_eq!(
                    listed(&lines, offset, head_limit, true),
                    collected(&lines, offset, head_limit),
                    "offset {offset}, head_limit {head_limit}"
                );
            }
        }
    }

    #[test]
    fn the_lines_still_used_count_down_to_a_full_window() {
        let mut listing = Listing::new(2, 1, true);
        assert_eq!(listing.lines_still_used(), Some(3));
        listing.push("a");
        assert_eq!(listing.lines_still_used(), Some(2));
        listing.push("b");
        listing.push("c");
        assert_eq!((listing.lines_still_used(), listing.is_full()), (Some(0), true));
        assert_eq!(Listing::new(5, 0, true).lines_still_used(), None);
    }

    #[test]
    fn an_empty_first_line_is_still_a_line() {
        let mut listing = Listing::new(0, 0, true);
        listing.push("");
        listing.push("b");
        assert_eq!(listing.into_text(), "\nb");
    }

    #[test]
    fn uncounted_separators_come_only_between_kept_lines() {
        let lines = ["a", "--", "b", "c", "--", "d"];
        let cases = [
            (0, 0, "a\n--\nb\nc\n--\nd"),
            (1, 0, "b\nc\n--\nd"),
            (0, 1, "a"),
            (0, 2, "a\n--\nb"),
            (1, 2, "b\nc"),
            (3, 1, "d"),
            (4, 0, ""),
        ];
        for (offset, head_limit, expected) in cases {
            assert_eq!(
                listed(&lines, offset, head_limit, false),
                expected,
                "offset {offset}, head_limit {head_limit}"
            );
        }
    }

    #[test]
    fn numbers_are_written_as_format_writes_them() {
        for n in [0, 7, 10, 99, 100, 12345, usize::MAX] {
            let mut text = String::from("x");
            push_number(&mut text, n);
            assert_eq!(text, format!("x{n}"));
        }
    }
}
