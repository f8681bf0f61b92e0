//! The gemini-cli suite compares results byte for byte: a server whose only
//! mistake is one missing period fails, and the report shows where.

use toolspec::{Suite, Target, Verdict};

use crate::support::{exe, run, suite};

const OVERWRITE: &str = "File Overwrite";

fn gemini_suite() -> Suite {
    suite("specs/gemini-cli")
}

/// The character column of the `^` marker line that follows the diff.
fn caret_column(report: &str) -> Option<usize> {
    report
        .lines()
        .find(|line| line.trim_start().starts_with("^ first difference"))
        .and_then(|line| line.chars().position(|c| c == '^'))
}

#[test]
fn a_missing_final_period_fails_with_a_pointed_diff() {
    let suite = gemini_suite();
    let mutated =
        Target::reference(exe(), &suite).with_extra_args(&["--mutate", "drop-trailing-period"]);
    let report = run(&suite, OVERWRITE, &mutated, None);
    let text = report.to_string();
    assert!(
        matches!(report.verdict, Verdict::Fail(_)),
        "expected FAIL, got:\n{text}"
    );
    assert!(
        text.contains("`text`"),
        "the text expectation is named:\n{text}"
    );

    // The expected line ends with the period, the actual one without it.
    let expected_line = text
        .lines()
        .map(str::trim_start)
        .find(|l| l.starts_with("-Successfully overwrote file: "))
        .unwrap_or_else(|| panic!("no expected line:\n{text}"));
    let actual_line = text
        .lines()
        .map(str::trim_start)
        .find(|l| l.starts_with("+Successfully overwrote file: "))
        .unwrap_or_else(|| panic!("no actual line:\n{text}"));
    assert!(
        expected_line.contains("/notes.txt.") && !actual_line.contains("/notes.txt."),
        "the lines differ by the period:\n{text}"
    );
    assert!(
        actual_line.contains("/notes.txt"),
        "the actual line names the file:\n{text}"
    );

    // The marker stands under the period of the expected line.
    let full_expected = text
        .lines()
        .find(|l| l.trim_start().starts_with("-Successfully overwrote file: "))
        .unwrap_or_default();
    let period = full_expected
        .find("/notes.txt.")
        .map(|at| full_expected[..at + "/notes.txt".len()].chars().count())
        .unwrap_or_else(|| panic!("no period in {full_expected:?}"));
    assert_eq!(
        caret_column(&text),
        Some(period),
        "the marker points at the period:\n{text}"
    );

    // The same scenario passes against the honest server: the failure is the period's.
    let honest = run(&suite, OVERWRITE, &Target::reference(exe(), &suite), None);
    assert!(matches!(honest.verdict, Verdict::Pass), "{honest}");
}
