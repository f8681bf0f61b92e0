//! Text from a server made visible for a report: a tool's answer is read by a model,
//! so tabs, carriage returns, trailing spaces and a missing final newline matter and
//! must show. Every stage that quotes server output (the stdout guard, the outcome
//! summary, the judge's diffs) goes through here, so they all show it the same way.
//!
//! A server is also untrusted: a result text or a stderr line that reaches a
//! terminal raw could clear the screen, retitle the window, or overwrite a line with a
//! fake `PASS`. [`inert`] is applied to every line the console report writes.

use std::fmt::Write as _;

/// A short one-line rendering of `text` for summaries. Built in one buffer and
/// cut at `max_chars`: explore renders every file of both fixtures after every
/// call this way, so it must not cost an allocation a character.
pub(crate) fn excerpt(text: &str, max_chars: usize) -> String {
    excerpt_of(text, max_chars, || text.chars().count())
}

/// Like [`excerpt`], but starting `from` characters in (marked `…`): where two
/// long lines differ late, the part that differs is what a reader needs shown.
pub(crate) fn excerpt_from(text: &str, from: usize, max_chars: usize) -> String {
    let Some((start, _)) = text.char_indices().nth(from).filter(|_| from > 0) else {
        return excerpt(text, max_chars);
    };
    format!(
        "…{}",
        excerpt_of(&text[start..], max_chars, || text.chars().count())
    )
}

/// `part` cut at `max_chars`, the count of the whole text it is part of given
/// when it is cut.
fn excerpt_of(part: &str, max_chars: usize, whole: impl Fn() -> usize) -> String {
    let mut shown = String::with_capacity(part.len().min(max_chars.saturating_mul(4)));
    for (at, c) in part.chars().enumerate() {
        if at == max_chars {
            let _ = write!(shown, "… ({} chars in all)", whole());
            return shown;
        }
        shown.push(match c {
            '\n' => '⏎',
            '\t' => '→',
            '\r' => '␍',
            c => c,
        });
    }
    shown
}

/// One diff line: tabs as `→`, CR as `␍`, trailing spaces as `·`, and a marker where
/// the text has no final newline.
pub(crate) fn line(raw: &str) -> String {
    let (body, newline) = match raw.strip_suffix('\n') {
        Some(b) => (b, true),
        None => (raw, false),
    };
    let kept = body.trim_end_matches(' ');
    let trailing = body.len() - kept.len();
    let mut line: String = kept
        .chars()
        .map(|c| match c {
            '\t' => '→',
            '\r' => '␍',
            c => c,
        })
        .collect();
    line.push_str(&"·".repeat(trailing));
    if !newline {
        line.push_str("⊘ (no newline at end)");
    }
    line
}

/// `line` with every control character replaced by a visible mark, so that nothing
/// a server wrote can steer the terminal: C0 controls as their Unicode control
/// pictures (ESC as `␛`, BEL as `␇`, CR as `␍`), DEL as `␡`, and the C1 controls
/// (which some terminals also obey) as `<U+009B>`. A tab is kept: it moves the cursor
/// and nothing else. Line breaks are the caller's, so a `\n` is marked too.
pub(crate) fn inert(line: &str) -> std::borrow::Cow<'_, str> {
    if !line.chars().any(|c| c != '\t' && c.is_control()) {
        return std::borrow::Cow::Borrowed(line);
    }
    let mut shown = String::with_capacity(line.len() + 8);
    for c in line.chars() {
        match c {
            '\t' => shown.push(c),
            '\u{0}'..='\u{1f}' => {
                shown.push(char::from_u32(0x2400 + c as u32).unwrap_or('\u{fffd}'));
            }
            '\u{7f}' => shown.push('\u{2421}'),
            c if c.is_control() => shown.push_str(&format!("<U+{:04X}>", c as u32)),
            c => shown.push(c),
        }
    }
    std::borrow::Cow::Owned(shown)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_excerpt_can_start_where_two_texts_differ() {
        let long = format!("{}tail", "a".repeat(100));
        assert_eq!(excerpt_from(&long, 96, 80), "…aaaatail");
        assert_eq!(excerpt_from(&long, 0, 3), "aaa… (104 chars in all)");
        assert_eq!(excerpt_from(&long, 1, 3), "…aaa… (104 chars in all)");
        assert_eq!(excerpt_from("ab", 5, 3), "ab");
    }

    #[test]
    fn control_characters_are_marked_and_text_is_kept() {
        assert_eq!(inert("plain\ttab"), "plain\ttab");
        assert_eq!(inert("\u{1b}[2J\u{7}x\ry"), "\u{241b}[2J\u{2407}x\u{240d}y");
        assert_eq!(inert("a\u{7f}\u{9b}b"), "a\u{2421}<U+009B>b");
        assert_eq!(inert("é→"), "é→");
    }

    #[test]
    fn an_excerpt_shows_whitespace_and_cuts_at_its_length() {
        assert_eq!(excerpt("a\tb\r\n", 10), "a→b␍⏎");
        assert_eq!(excerpt("abc", 3), "abc");
        assert_eq!(excerpt("abcd", 3), "abc… (4 chars in all)");
        assert_eq!(excerpt("ééé\n", 2), "éé… (4 chars in all)");
        assert_eq!(excerpt("", 0), "");
        assert_eq!(excerpt("x", 0), "… (1 chars in all)");
    }
}
