//! Clause extraction on the real seed documents (when `../shared/seeds` is present):
//! the ids the suites' `covers:` use must come out exactly.

use std::path::PathBuf;

use toolspec::coverage::clauses::extract;

fn seeds_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("shared")
        .join("seeds")
}

/// The clause ids of the seed whose file name starts with `prefix`, or None (with a
/// note) when the seeds are not on this machine.
fn seed_ids(prefix: &str) -> Option<Vec<String>> {
    let dir = seeds_dir();
    let Ok(entries) = std::fs::read_dir(&dir) else {
        eprintln!(
            "note: {} is missing; seed extraction not checked",
            dir.display()
        );
        return None;
    };
    let path = entries.filter_map(Result::ok).map(|e| e.path()).find(|p| {
        p.file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with(prefix))
    })?;
    let text = std::fs::read_to_string(&path).expect("readable seed");
    Some(extract(&text).into_iter().map(|c| c.id).collect())
}

fn expand(groups: &[(&str, &[&str])]) -> Vec<String> {
    groups
        .iter()
        .flat_map(|(section, names)| {
            names.iter().map(move |n| {
                if section.is_empty() {
                    n.to_string()
                } else {
                    format!("{section}/{n}")
                }
            })
        })
        .collect()
}

fn assert_same(mut got: Vec<String>, mut want: Vec<String>) {
    let count = got.len();
    got.sort();
    got.dedup();
    assert_eq!(got.len(), count, "an id repeats");
    want.sort();
    assert_eq!(got, want);
}

#[test]
fn seed_000_openspec_requirements_and_scenarios() {
    let Some(ids) = seed_ids("000_") else { return };
    let want = expand(&[
        (
            "error-message-format",
            &["error-contains-code-prefix", "code-is-parseable"],
        ),
        (
            "error-codes-are-string-constants",
            &["toolerr-signature", "missing-code-causes-compile-error"],
        ),
        (
            "cross-tool-error-codes",
            &[
                "invalid-input-on-empty-required-parameter",
                "path-not-found-on-missing-file",
                "access-denied-on-scoping-violation",
                "file-too-large-on-size-limit",
                "io-error-on-filesystem-failure",
            ],
        ),
        (
            "bash-tool-error-codes",
            &[
                "empty-command",
                "task-limit-exceeded",
                "unknown-task-id",
                "subprocess-start-failure",
            ],
        ),
        (
            "str-replace-tool-error-codes",
            &["string-not-found", "ambiguous-match"],
        ),
        (
            "grep-tool-error-codes",
            &["invalid-regex", "invalid-output-mode"],
        ),
        (
            "glob-tool-error-codes",
            &["invalid-glob-pattern", "invalid-type-filter"],
        ),
        (
            "error-messages-aid-llm-self-correction",
            &[
                "message-includes-the-path",
                "message-suggests-correction",
                "io-error-wraps-context",
            ],
        ),
        (
            "non-zero-bash-exit-codes-are-not-errors",
            &["command-exits-with-code-1"],
        ),
    ]);
    assert_eq!(want.len(), 23);
    assert_same(ids, want);
}

#[test]
fn seed_001_design_rationale_has_no_clauses() {
    let Some(ids) = seed_ids("001_") else { return };
    assert!(ids.is_empty(), "{ids:?}");
}

#[test]
fn seed_002_numbered_items_under_tool_headings() {
    let Some(ids) = seed_ids("002_") else { return };
    let want = expand(&[
        (
            "list-directory",
            &[
                "successful-listing",
                "non-existent-directory",
                "path-is-a-file",
                "ignored-files",
            ],
        ),
        (
            "read-file",
            &[
                "successful-read",
                "non-existent-file",
                "path-is-a-directory",
            ],
        ),
        (
            "write-file",
            &[
                "new-file-creation",
                "file-overwrite",
                "path-is-a-directory",
                "non-existent-directory-in-path",
            ],
        ),
        (
            "replace",
            &[
                "successful-replacement",
                "incorrect-number-of-occurrences",
                "non-existent-file",
                "string-not-found",
            ],
        ),
        (
            "run-shell-command",
            &[
                "successful-command",
                "command-with-error",
                "piped-command",
                "command-in-directory",
                "forbidden-syntax",
            ],
        ),
        (
            "search-file-content",
            &[
                "successful-search-with-matches",
                "successful-search-with-no-matches",
                "non-existent-directory",
            ],
        ),
        (
            "glob",
            &[
                "successful-glob-with-matches",
                "successful-glob-with-no-matches",
                "non-existent-directory",
            ],
        ),
    ]);
    assert_eq!(want.len(), 26);
    assert_same(ids, want);
}

#[test]
fn seed_003_one_clause_per_code_row() {
    let Some(ids) = seed_ids("003_") else { return };
    let want = expand(&[(
        "",
        &[
            "invalid-input",
            "not-found",
            "not-a-file",
            "is-binary",
            "no-match",
            "ambiguous-match",
            "patch-failed",
            "timeout",
            "output-limit",
            "too-large",
            "path-escape",
            "io-error",
            "internal",
        ],
    )]);
    assert_eq!(want.len(), 13);
    assert_same(ids, want);
}

#[test]
fn seed_004_fields_rationale_and_example_sections() {
    let Some(ids) = seed_ids("004_") else { return };
    let want = expand(&[
        ("glob", &["output", "count"]),
        ("file-read", &["output"]),
        ("grep", &["output", "count"]),
        ("file-write", &["output", "bytes"]),
        ("bash", &["output", "exit-code"]),
        (
            "design-rationale",
            &[
                "consistent-envelope",
                "tool-specific-data",
                "human-readable-errors",
                "bash-distinction",
            ],
        ),
        ("", &["success", "error", "error-examples"]),
    ]);
    assert_eq!(want.len(), 16);
    assert_same(ids, want);
}
