//! Text from a server made visible for a report: a tool's answer is read by a model,
//! so tabs, carriage returns, trailing spaces and a missing final newline matter and
//! must show. Every stage that quotes server output (the stdout guard, the outcome
//! summary, the judge's diffs) goes through here, so they all show it the same way.

/// A short one-line rendering of `text` for summaries.
pub(crate) fn excerpt(text: &str, max_chars: usize) -> String {
    let shown: String = text
        .chars()
        .flat_map(|c| match c {
            '\n' => vec!['⏎'],
            '\t' => vec!['→'],
            '\r' => vec!['␍'],
            c => vec![c],
        })
        .collect();
    if shown.chars().count() > max_chars {
        let cut: String = shown.chars().take(max_chars).collect();
        format!("{cut}… ({} chars in all)", text.chars().count())
    } else {
        shown
    }
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
