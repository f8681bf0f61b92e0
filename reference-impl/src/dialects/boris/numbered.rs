//! Numbered lines, as `view` shows a file and `str_replace` shows the lines
//! around an edit: `<n>\t<line>\n`, `n` right-aligned to the width of the last
//! number shown (Boris 1.0.0; the seed has no success formats).

use super::mutations::Mutation;
use crate::mutations::Mutations;

/// Characters shown of one line; the rest is cut with a note.
const MAX_LINE_CHARS: usize = 2000;
/// Lines of context on each side of an edit in the `str_replace` snippet.
const SNIPPET_CONTEXT: usize = 4;

/// Splits text into lines; a final newline does not start another line.
pub(super) fn split_lines(text: &str) -> Vec<&str> {
    let mut lines: Vec<&str> = text.split('\n').collect();
    if lines.last() == Some(&"") {
        lines.pop();
    }
    lines
}

/// `lines` numbered from `first`; `file_lines` is how many lines the whole
/// file has (only a mutation pads to its width).
pub(super) fn number_lines(
    mutations: &Mutations,
    lines: &[&str],
    first: usize,
    file_lines: usize,
) -> String {
    let last = first + lines.len().saturating_sub(1);
    let width = if mutations.is_active(Mutation::ViewFixedWidth) {
        6
    } else if mutations.is_active(Mutation::ViewWidthOfFile) {
        digits(file_lines.max(last))
    } else {
        digits(last)
    };
    let numbered: Vec<String> = lines
        .iter()
        .enumerate()
        .map(|(i, line)| {
            let line = if mutations.is_active(Mutation::ViewTrimsLines) {
                line.trim_end()
            } else if mutations.is_active(Mutation::ViewStripsCr) {
                line.strip_suffix('\r').unwrap_or(line)
            } else {
                line
            };
            format!("{:>width$}\t{}", first + i, cut_long_line(line))
        })
        .collect();
    if mutations.is_active(Mutation::ViewNoFinalNewline) {
        return numbered.join("\n");
    }
    numbered.into_iter().map(|l| l + "\n").collect()
}

fn digits(n: usize) -> usize {
    n.to_string().len()
}

fn cut_long_line(line: &str) -> std::borrow::Cow<'_, str> {
    match line.char_indices().nth(MAX_LINE_CHARS) {
        None => line.into(),
        Some((cut, _)) => format!(
            "{}... [truncated, {} chars total]",
            &line[..cut],
            line.chars().count()
        )
        .into(),
    }
}

/// The numbered lines around an edit of the (edited) `content`: the line where
/// the new text starts, at byte `start`, and four lines on each side. The text
/// is split at every newline, so when the window reaches the end of a file that
/// ends with a newline, the empty piece after it is shown as one more numbered,
/// empty line, as upstream does. `inserted` is the length of the new text.
pub(super) fn snippet(mutations: &Mutations, content: &str, start: usize, inserted: usize) -> String {
    if content.is_empty() {
        return String::new();
    }
    let mut lines: Vec<&str> = content.split('\n').collect();
    if mutations.is_active(Mutation::SnippetDropsFinalEmptyLine) {
        lines = split_lines(content);
    }
    let at = if mutations.is_active(Mutation::SnippetCentredOnEditEnd) {
        (start + inserted).saturating_sub(1)
    } else {
        start
    };
    // An edit that removed the end of the file starts past it: show the last line.
    let at = at.min(content.len() - 1);
    let target = content.as_bytes()[..at]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        .min(lines.len().saturating_sub(1));
    let context = if mutations.is_active(Mutation::SnippetThreeLines) {
        3
    } else {
        SNIPPET_CONTEXT
    };
    let first = target.saturating_sub(context);
    let end = (target + context + 1).min(lines.len());
    number_lines(mutations, &lines[first..end], first + 1, lines.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn honest() -> Mutations {
        Mutations::of::<Mutation>(&[])
    }

    #[test]
    fn numbering_aligns_to_the_last_number() {
        let lines: Vec<&str> = vec!["a"; 10];
        let text = number_lines(&honest(), &lines, 1, 10);
        assert!(text.starts_with(" 1\ta\n"));
        assert!(text.ends_with("10\ta\n"));
        assert_eq!(
            number_lines(&honest(), &["x", "y"], 99, 200),
            " 99\tx\n100\ty\n"
        );
        assert_eq!(number_lines(&honest(), &["x"], 8, 12), "8\tx\n");
        assert_eq!(
            number_lines(&Mutations::of(&[Mutation::ViewWidthOfFile]), &["x"], 8, 12),
            " 8\tx\n"
        );
    }

    #[test]
    fn snippet_centres_on_the_edit() {
        let content = (1..=20).map(|n| format!("line {n}\n")).collect::<String>();
        let offset = content.find("line 10").expect("present");
        let text = snippet(&honest(), &content, offset, 7);
        assert!(text.starts_with(" 6\tline 6\n"), "{text}");
        assert!(text.ends_with("14\tline 14\n"), "{text}");
    }

    #[test]
    fn snippet_shows_the_empty_piece_after_a_final_newline() {
        let content = "alpha\nBETA\ngamma\n";
        assert_eq!(
            snippet(&honest(), content, 6, 4),
            "1\talpha\n2\tBETA\n3\tgamma\n4\t\n"
        );
        assert_eq!(snippet(&honest(), "x\nz", 2, 1), "1\tx\n2\tz\n");
        assert_eq!(snippet(&honest(), "", 0, 0), "");
        // Removing the last line: the window ends at the file's end.
        assert_eq!(snippet(&honest(), "a\nb\n", 4, 0), "1\ta\n2\tb\n3\t\n");
    }
}
