//! A malformed scenario file is refused before anything runs, with the file, the
//! line and what to fix.

use std::path::Path;

use toolspec::{load_suite, LoadError};

const SUITE: &str = "suite: demo\ntitle: Demo\ndialect: bracket-code\nreference:\n  args: [--root, \"{root}\"]\n  settings:\n    max_file_size: [--max-file-size, \"{value}\"]\n";

/// Loads a suite `demo` holding `suite.yaml` and one scenario file `case.yaml`.
fn load_with(case: &str) -> Result<(), Vec<LoadError>> {
    let dir = tempfile::tempdir().expect("tempdir");
    let suite = dir.path().join("demo");
    std::fs::create_dir(&suite).expect("mkdir");
    std::fs::write(suite.join("suite.yaml"), SUITE).expect("write");
    std::fs::write(suite.join("case.yaml"), case).expect("write");
    load_suite(&suite).map(|_| ())
}

fn one_error(case: &str) -> String {
    let errors = load_with(case).expect_err("the file must be refused");
    assert_eq!(errors.len(), 1, "{errors:?}");
    let e = &errors[0];
    assert!(e.path.ends_with(Path::new("demo/case.yaml")), "{e}");
    e.to_string()
}

const HEAD: &str = "requirement: R\nscenarios:\n  - name: s\n    covers: r/s\n    when: { tool: view, args: { path: x } }\n";

#[test]
fn a_valid_file_loads() {
    load_with(&format!("{HEAD}    then: {{ is_error: false }}\n")).expect("valid");
}

#[test]
fn an_unknown_key_names_the_line_and_the_keys_allowed() {
    let e = one_error(&format!("{HEAD}    then: {{ contians: [x] }}\n"));
    assert!(e.contains("case.yaml:6:"), "{e}");
    assert!(
        e.contains("unknown field `contians`, expected one of"),
        "{e}"
    );
}

#[test]
fn a_duplicate_key_is_refused() {
    let e = one_error(&format!("{HEAD}    then:\n      code: A\n      code: B\n"));
    assert!(e.contains("case.yaml:8:"), "{e}");
    assert!(
        e.contains("duplicate mapping key: code (each key may appear only once)"),
        "{e}"
    );
}

#[test]
fn only_true_and_false_are_booleans() {
    let e = one_error(&format!("{HEAD}    then: {{ is_error: yes }}\n"));
    assert!(e.contains("case.yaml:6:"), "{e}");
    assert!(e.contains("invalid boolean"), "{e}");
}

#[test]
fn a_scenario_that_checks_nothing_is_refused() {
    let e = one_error(&format!("{HEAD}    then: {{}}\n"));
    assert!(e.contains("case.yaml:3:"), "{e}");
    assert!(e.contains("`then` checks nothing"), "{e}");
}

#[test]
fn a_bad_regex_is_refused() {
    let e = one_error(&format!("{HEAD}    then: {{ matches: ['(unclosed'] }}\n"));
    assert!(e.contains("is not a valid regex"), "{e}");
}

/// `exact_bytes` only means something in a JSON dialect, and a scenario that
/// takes it says why in a `note:`.
#[test]
fn exact_bytes_needs_a_json_dialect_and_a_note() {
    let e = one_error(&format!(
        "{HEAD}    note: n\n    then: {{ text: x, exact_bytes: true }}\n"
    ));
    assert!(
        e.contains("`exact_bytes` only applies in a JSON dialect"),
        "{e}"
    );
    let json_suite = SUITE.replace("bracket-code", "json-error-envelope");
    let dir = tempfile::tempdir().expect("tempdir");
    let suite = dir.path().join("demo");
    std::fs::create_dir(&suite).expect("mkdir");
    std::fs::write(suite.join("suite.yaml"), json_suite).expect("write");
    let case = |then: &str| {
        std::fs::write(suite.join("case.yaml"), format!("{HEAD}{then}")).expect("write");
        load_suite(&suite).map(|_| ())
    };
    let errors = case("    then: { text: x, exact_bytes: true }\n").expect_err("no note");
    assert!(
        errors[0].to_string().contains("needs a `note:`"),
        "{errors:?}"
    );
    case("    note: the bytes are the point\n    then: { text: x, exact_bytes: true }\n")
        .expect("a JSON dialect with a note");
    let errors = case(
        "    note: n\n    then:\n      any_of: [{ text: x, exact_bytes: true }, { text: y }]\n",
    )
    .expect_err("not in a branch");
    assert!(
        errors[0].to_string().contains("goes beside `any_of`"),
        "{errors:?}"
    );
}

#[test]
fn an_unknown_setting_is_refused() {
    let e = one_error(
        "requirement: R\nscenarios:\n  - name: s\n    covers: r/s\n    given: { settings: { max_size: 3 } }\n    when: { tool: view, args: { path: x } }\n    then: { is_error: true }\n",
    );
    assert!(
        e.contains("`max_size` is not a setting of this suite; known: max_file_size"),
        "{e}"
    );
}

#[test]
fn a_fixture_path_may_not_escape_the_root() {
    let e = one_error(
        "requirement: R\nscenarios:\n  - name: s\n    covers: r/s\n    given: { files: { ../x: hi } }\n    when: { tool: view, args: { path: x } }\n    then: { is_error: true }\n",
    );
    assert!(e.contains("may not contain `..`"), "{e}");
}

#[test]
fn a_mode_on_a_symlink_is_refused_at_its_scenario() {
    // chmod on a link changes what it points to, which may be outside the root.
    let e = one_error(
        "requirement: R\nscenarios:\n  - name: s\n    covers: r/s\n    given: { files: { link: { symlink: /etc/passwd, mode: \"777\" } } }\n    when: { tool: view, args: { path: x } }\n    then: { is_error: true }\n",
    );
    assert!(e.contains("case.yaml:3:"), "{e}");
    assert!(
        e.contains("scenario `s`: given.files `link`: `mode` cannot go with `symlink`"),
        "{e}"
    );
}

#[test]
fn a_fixture_entry_needs_exactly_one_kind() {
    let e = one_error(
        "requirement: R\nscenarios:\n  - name: s\n    covers: r/s\n    given: { files: { x: { text: a, size: 3 } } }\n    when: { tool: view, args: { path: x } }\n    then: { is_error: true }\n",
    );
    assert!(
        e.contains("give exactly one of text, bytes, size, dir, symlink"),
        "{e}"
    );
}

/// An entry below a symlink or a file entry cannot be built (links are never
/// followed); it is refused at load naming both entries, not met at run time as
/// `File exists (os error 17)`.
#[test]
fn an_entry_inside_a_link_or_a_file_is_refused_naming_both() {
    let given = |files: &str| {
        one_error(&format!(
            "requirement: R\nscenarios:\n  - name: s\n    covers: r/s\n    given: {{ files: {files} }}\n    when: {{ tool: view, args: {{ path: x }} }}\n    then: {{ is_error: true }}\n"
        ))
    };
    let linked = given("{ link: { symlink: elsewhere }, link/a.txt: hi }");
    assert!(linked.contains("case.yaml:3:"), "{linked}");
    assert!(
        linked.contains("given.files `link/a.txt` is below `link`, which is a symlink entry"),
        "{linked}"
    );
    let filed = given("{ a.txt: hi, a.txt/b/c: hi }");
    assert!(
        filed.contains("given.files `a.txt/b/c` is below `a.txt`, which is a file entry"),
        "{filed}"
    );
    let twice = given("{ d: hi, d/: { dir: true } }");
    assert!(twice.contains("`d` and `d/` are the same path"), "{twice}");
    // Below a directory entry is where files go.
    assert!(load_with(
        "requirement: R\nscenarios:\n  - name: s\n    covers: r/s\n    given: { files: { d/: { dir: true }, d/a.txt: hi } }\n    when: { tool: view, args: { path: x } }\n    then: { is_error: true }\n"
    )
    .is_ok());
}

/// Aliases that expand into millions of values are refused in words that say which
/// limit was hit and what to do, and a deep nesting is pointed at where it is.
#[test]
fn yaml_limits_are_said_in_plain_words_at_their_place() {
    let mut bomb = String::from("requirement: R\nscenarios:\n  - name: s\n    covers: r/s\n    given:\n      settings:\n        a: &a [x, x, x, x, x, x, x, x, x, x]\n");
    for (name, previous) in ["b", "c", "d", "e", "f", "g", "h"]
        .iter()
        .zip(["a", "b", "c", "d", "e", "f", "g"])
    {
        let uses = vec![format!("*{previous}"); 10].join(", ");
        bomb.push_str(&format!("        {name}: &{name} [{uses}]\n"));
    }
    bomb.push_str("    when: { tool: view, args: { x: *h } }\n    then: { is_error: true }\n");
    let e = one_error(&bomb);
    assert!(
        e.contains("the YAML expands to more than 250000 values"),
        "{e}"
    );
    assert!(e.contains("split the scenarios over several files"), "{e}");
    assert!(!e.contains("budget breached"), "{e}");

    let deep = format!(
        "requirement: R\nscenarios:\n  - name: s\n    covers: r/s\n    when: {{ tool: view, args: {{ x: {}{} }} }}\n    then: {{ is_error: true }}\n",
        "[".repeat(70),
        "]".repeat(70)
    );
    let e = one_error(&deep);
    // Levels: the file, `scenarios`, the scenario, `when`, `args`, then the lists:
    // the 60th list is the 65th level.
    let column = "    when: { tool: view, args: { x: ".len() + 60;
    assert!(
        e.contains(&format!(
            "case.yaml:5:{column}: the YAML is nested more than 64 levels deep"
        )),
        "{e}"
    );
    assert!(
        e.lines()
            .any(|l| l.trim_start().starts_with("--> ")
                && l.ends_with(&format!("case.yaml:5:{column}"))),
        "{e}"
    );
}

#[test]
fn values_that_would_exhaust_the_machine_are_refused_at_their_scenario() {
    let given = |entry: &str| {
        one_error(&format!(
            "requirement: R\nscenarios:\n  - name: s\n    covers: r/s\n    given: {entry}\n    when: {{ tool: view, args: {{ path: x }} }}\n    then: {{ is_error: true }}\n"
        ))
    };
    let huge = given("{ files: { x: { size: 10737418240 } } }");
    assert!(huge.contains("case.yaml:3:"), "{huge}");
    assert!(huge.contains("`size: 10737418240` is more than"), "{huge}");
    let far = given("{ files: { x: { text: a, mtime: 9223372036854775807 } } }");
    assert!(
        far.contains("`mtime: 9223372036854775807` moves the file more than"),
        "{far}"
    );
    let forever = given("{ calls: [{ tool: view, args: { path: x }, repeat: 4294967295 }] }");
    assert!(
        forever.contains("`repeat: 4294967295` is more than 1000"),
        "{forever}"
    );
}

#[test]
fn names_that_would_make_ids_collide_are_refused() {
    let named = |name: &str| {
        one_error(&format!(
            "requirement: R\nscenarios:\n  - name: {name}\n    covers: r/s\n    when: {{ tool: view, args: {{ path: x }} }}\n    then: {{ is_error: true }}\n"
        ))
    };
    let colons = named("\"y::z\"");
    assert!(colons.contains("contains `::`"), "{colons}");
    let newline = named("\"two\\nlines\"");
    assert!(newline.contains("line break"), "{newline}");
    // A file whose name holds `::` is refused before it is read.
    let dir = tempfile::tempdir().expect("tempdir");
    let suite = dir.path().join("demo");
    std::fs::create_dir(&suite).expect("mkdir");
    std::fs::write(suite.join("suite.yaml"), SUITE).expect("write");
    std::fs::write(
        suite.join("x::y.yaml"),
        format!("{HEAD}    then: {{ is_error: true }}\n"),
    )
    .expect("write");
    let errors = load_suite(&suite).expect_err("refused");
    assert!(
        errors[0]
            .to_string()
            .contains("x::y.yaml: the file name contains `::`"),
        "{errors:?}"
    );
}

#[test]
fn unchanged_needs_a_fixture_file() {
    let e = one_error(&format!(
        "{HEAD}    then: {{ files: {{ y.txt: {{ unchanged: true }} }} }}\n"
    ));
    assert!(
        e.contains("`unchanged` needs `y.txt` to be a file in given.files or given.tree"),
        "{e}"
    );
}

#[test]
fn a_tree_must_exist_in_fixtures() {
    let e = one_error(
        "requirement: R\nscenarios:\n  - name: s\n    covers: r/s\n    given: { tree: no-such-tree }\n    when: { tool: view, args: { path: x } }\n    then: { is_error: true }\n",
    );
    assert!(
        e.contains("given.tree `no-such-tree` does not exist"),
        "{e}"
    );
    let e = one_error(
        "requirement: R\nscenarios:\n  - name: s\n    covers: r/s\n    given: { tree: ../x }\n    when: { tool: view, args: { path: x } }\n    then: { is_error: true }\n",
    );
    assert!(
        e.contains("must be the name of a folder in fixtures/"),
        "{e}"
    );
}

#[test]
fn duplicate_scenario_names_are_refused() {
    let e = one_error(&format!(
        "{HEAD}    then: {{ is_error: true }}\n  - name: s\n    covers: r/s\n    when: {{ tool: view, args: {{}} }}\n    then: {{ is_error: true }}\n"
    ));
    assert!(e.contains("same name"), "{e}");
}

#[test]
fn every_broken_file_is_reported_at_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    let suite = dir.path().join("demo");
    std::fs::create_dir(&suite).expect("mkdir");
    std::fs::write(suite.join("suite.yaml"), SUITE).expect("write");
    std::fs::write(suite.join("a.yaml"), "requirement: [").expect("write");
    std::fs::write(suite.join("b.yaml"), "requirement: R\nscenarios: []\n").expect("write");
    let errors = load_suite(&suite).expect_err("both refused");
    assert_eq!(errors.len(), 2, "{errors:?}");
}

#[test]
fn protocol_error_false_is_refused_at_its_line() {
    let e = one_error(&format!("{HEAD}    then: {{ protocol_error: false }}\n"));
    assert!(e.contains("case.yaml:6:"), "{e}");
    assert!(e.contains("leave the key out"), "{e}");
}

#[test]
fn protocol_error_cannot_be_combined_with_result_checks() {
    let e = one_error(&format!(
        "{HEAD}    then: {{ protocol_error: {{ code: -32602 }}, text: x }}\n"
    ));
    assert!(e.contains("keep one or the other"), "{e}");
}

#[test]
fn basis_and_requires_take_known_values_only() {
    let e = one_error(&format!(
        "{HEAD}    basis: folklore\n    then: {{ is_error: false }}\n"
    ));
    assert!(e.contains("case.yaml:6:"), "{e}");
    assert!(e.contains("spec") && e.contains("upstream"), "{e}");
    let e = one_error(&format!(
        "{HEAD}    requires: [root]\n    then: {{ is_error: false }}\n"
    ));
    assert!(e.contains("non-root"), "{e}");
    load_with(&format!(
        "{HEAD}    basis: upstream\n    requires: [non-root]\n    then: {{ json: {{ a: 1 }} }}\n"
    ))
    .expect("valid");
}

#[test]
fn any_of_needs_two_branches() {
    let e = one_error(&format!("{HEAD}    then: {{ any_of: [] }}\n"));
    assert!(e.contains("case.yaml:3:"), "{e}");
    assert!(
        e.contains("`any_of` is empty: give at least two branches"),
        "{e}"
    );
    let e = one_error(&format!(
        "{HEAD}    then: {{ any_of: [{{ is_error: true }}] }}\n"
    ));
    assert!(e.contains("case.yaml:3:"), "{e}");
    assert!(e.contains("`any_of` needs at least two branches"), "{e}");
}

#[test]
fn an_any_of_branch_that_checks_nothing_is_refused() {
    let e = one_error(&format!(
        "{HEAD}    then: {{ any_of: [{{ is_error: true }}, {{}}] }}\n"
    ));
    assert!(e.contains("case.yaml:3:"), "{e}");
    assert!(
        e.contains("any_of[1]: the branch checks nothing, so it would always hold"),
        "{e}"
    );
}

#[test]
fn any_of_cannot_nest() {
    let e = one_error(&format!(
        "{HEAD}    then:\n      any_of:\n        - is_error: true\n        - any_of: [{{ code: A }}, {{ code: B }}]\n"
    ));
    assert!(e.contains("case.yaml:3:"), "{e}");
    assert!(e.contains("any_of[1]: `any_of` cannot nest"), "{e}");
}

#[test]
fn an_any_of_branch_is_checked_like_then() {
    // A bad regex inside a branch, and a branch whose protocol_error clashes with a
    // result check beside the any_of.
    let e = one_error(&format!(
        "{HEAD}    then: {{ any_of: [{{ matches: ['(unclosed'] }}, {{ is_error: true }}] }}\n"
    ));
    assert!(
        e.contains("any_of[0]: then.matches `(unclosed` is not a valid regex"),
        "{e}"
    );
    let e = one_error(&format!(
        "{HEAD}    then: {{ contains: [x], any_of: [{{ protocol_error: true }}, {{ is_error: true }}] }}\n"
    ));
    assert!(
        e.contains("any_of[0]: `protocol_error` expects a JSON-RPC error"),
        "{e}"
    );
    let e = one_error(&format!(
        "{HEAD}    then: {{ any_of: [{{ listed_tools: {{ include: [a] }} }}, {{ is_error: true }}] }}\n"
    ));
    assert!(
        e.contains("any_of[0]: `listed_tools` goes beside `any_of`"),
        "{e}"
    );
    load_with(&format!(
        "{HEAD}    then:\n      any_of:\n        - protocol_error: {{ code: -32602, contains: [path] }}\n        - {{ is_error: true, code: INVALID_INPUT }}\n      files: {{ x: {{ absent: true }} }}\n"
    ))
    .expect("valid");
}

#[test]
fn protocol_error_takes_code_and_contains_only() {
    let e = one_error(&format!(
        "{HEAD}    then: {{ protocol_error: {{ code: -32602, message: x }} }}\n"
    ));
    assert!(e.contains("case.yaml:6:"), "{e}");
    assert!(e.contains("unknown field `message`"), "{e}");
}

/// A scenario whose set-up call is `given_call` (a flow map's inside) and whose
/// judged call and `then` are as given.
fn with_capture(given_call: &str, when: &str, then: &str) -> String {
    format!(
        "requirement: R\nscenarios:\n  - name: s\n    covers: r/s\n    given:\n      calls:\n        - {{ {given_call} }}\n    when: {when}\n    then: {then}\n"
    )
}

const BASH: &str = "tool: bash, args: { command: x, run_in_background: true }";

#[test]
fn a_capture_and_its_uses_load() {
    load_with(&with_capture(
        &format!("{BASH}, capture: {{ task: 'task_id: ([0-9a-f]{{16}})' }}"),
        "{ tool: task_output, args: { task_id: \"{task}\" } }",
        "{ text: \"{task} [..]\", contains: [\"{task}\"], matches: ['^{task}\\s'] }",
    ))
    .expect("valid");
}

#[test]
fn a_capture_regex_needs_exactly_one_group() {
    for regex in ["task_id: [0-9a-f]+", "(a)(b)"] {
        let e = one_error(&with_capture(
            &format!("{BASH}, capture: {{ task: '{regex}' }}"),
            "{ tool: view, args: {} }",
            "{ is_error: false }",
        ));
        assert!(e.contains("case.yaml:7:"), "{e}");
        assert!(e.contains("must have exactly one capture group"), "{e}");
    }
    let e = one_error(&with_capture(
        &format!("{BASH}, capture: {{ task: '(unclosed' }}"),
        "{ tool: view, args: {} }",
        "{ is_error: false }",
    ));
    assert!(e.contains("case.yaml:7:"), "{e}");
    assert!(e.contains("is not a valid regex"), "{e}");
}

#[test]
fn a_capture_name_is_a_lowercase_identifier_and_no_built_in() {
    let e = one_error(&with_capture(
        &format!("{BASH}, capture: {{ root: '(x)' }}"),
        "{ tool: view, args: {} }",
        "{ is_error: false }",
    ));
    assert!(e.contains("case.yaml:3:"), "{e}");
    assert!(e.contains("capture name `root` is taken"), "{e}");
    let e = one_error(&with_capture(
        &format!("{BASH}, capture: {{ Task: '(x)' }}"),
        "{ tool: view, args: {} }",
        "{ is_error: false }",
    ));
    assert!(e.contains("must be a lowercase identifier"), "{e}");
}

#[test]
fn a_placeholder_no_earlier_call_captures_is_refused() {
    // Never captured, in the judged call's arguments.
    let e = one_error(&with_capture(
        &format!("{BASH}, capture: {{ task: '(x)' }}"),
        "{ tool: task_output, args: { task_id: \"{tsk}\" } }",
        "{ is_error: false }",
    ));
    assert!(e.contains("case.yaml:3:"), "{e}");
    assert!(
        e.contains("when `task_output` uses `{tsk}`, but no earlier call captures `tsk` (captured before it: task)"),
        "{e}"
    );
    // Captured only later: a set-up call cannot use what `when` captures.
    let e = one_error(&with_capture(
        "tool: task_output, args: { task_id: \"{task}\" }",
        &format!("[{{ {BASH}, capture: {{ task: '(x)' }} }}, {{ tool: view, args: {{}} }}]"),
        "{ is_error: false }",
    ));
    assert!(
        e.contains("given.calls `task_output` uses `{task}`, but no earlier call captures `task` (captured before it: none)"),
        "{e}"
    );
    // In an expectation.
    let e = one_error(&with_capture(
        BASH,
        "{ tool: view, args: {} }",
        "{ contains: [\"{task}\"] }",
    ));
    assert!(e.contains("then uses `{task}`"), "{e}");
}

#[test]
fn a_capture_on_the_judged_call_is_refused() {
    let e = one_error(&format!(
        "requirement: R\nscenarios:\n  - name: s\n    covers: r/s\n    when: {{ {BASH}, capture: {{ task: '(x)' }} }}\n    then: {{ is_error: false }}\n"
    ));
    assert!(e.contains("case.yaml:3:"), "{e}");
    assert!(e.contains("`capture` on the judged call"), "{e}");
}

#[test]
fn a_suite_yaml_still_listing_documents_is_told_where_they_went() {
    let dir = tempfile::tempdir().expect("tempdir");
    let suite = dir.path().join("demo");
    std::fs::create_dir(&suite).expect("mkdir");
    std::fs::write(
        suite.join("suite.yaml"),
        format!("{SUITE}documents: [spec.md]\n"),
    )
    .expect("write");
    let errors = load_suite(&suite).expect_err("refused");
    let e = errors[0].to_string();
    assert!(e.contains("unknown field `documents`"), "{e}");
    assert!(
        e.contains(
            "hint: a suite's documents are listed in its clause index, clauses.yaml, with \
             their clauses; `toolspec scaffold --spec FILE --suite demo` writes it"
        ),
        "{e}"
    );
}

#[test]
fn a_broken_clause_index_is_refused_with_the_suite() {
    let dir = tempfile::tempdir().expect("tempdir");
    let suite = dir.path().join("demo");
    std::fs::create_dir(&suite).expect("mkdir");
    std::fs::write(suite.join("suite.yaml"), SUITE).expect("write");
    // A scenario file saved under the index's name is not silently skipped.
    std::fs::write(
        suite.join("clauses.yaml"),
        format!("{HEAD}    then: {{ is_error: false }}\n"),
    )
    .expect("write");
    let errors = load_suite(&suite).expect_err("refused");
    let e = errors[0].to_string();
    assert!(e.contains("demo/clauses.yaml:1:"), "{e}");
    assert!(e.contains("unknown field `requirement`"), "{e}");
}

/// Regexes are compiled only for the scenarios a run selects, but every one is
/// still checked before anything runs: a `--filter` that leaves out the scenario
/// with the bad regex does not let it through.
#[test]
fn a_bad_regex_in_a_scenario_the_run_leaves_out_is_still_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let suite = dir.path().join("specs/demo");
    std::fs::create_dir_all(&suite).expect("mkdir");
    std::fs::write(suite.join("suite.yaml"), SUITE).expect("write");
    std::fs::write(
        suite.join("case.yaml"),
        "requirement: R\nscenarios:\n  - name: chosen\n    covers: r/s\n    when: { tool: view, args: { path: x } }\n    then: { is_error: true }\n  - name: left out\n    covers: r/s\n    when: { tool: view, args: { path: x } }\n    then: { matches: [\"line (\\\\d+\"] }\n",
    )
    .expect("write");
    let out = crate::support::toolspec()
        .arg("--specs")
        .arg(dir.path().join("specs"))
        .args(["run", "--suite", "demo", "--filter", "chosen"])
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("demo/case.yaml:7:"), "{stderr}");
    assert!(
        stderr.contains("scenario `left out`: then.matches `line (\\d+` is not a valid regex"),
        "{stderr}"
    );
    assert!(stderr.contains("unclosed group"), "{stderr}");
}

/// `given.outside` names places beside the root only: relative to `{outside}`,
/// or in a sibling `{root}<suffix>`; never absolute, never `..`, never a name
/// toolspec keeps for its own canary file.
#[test]
fn an_outside_place_that_is_not_beside_the_root_is_refused() {
    let given = |files: &str| {
        format!(
            "requirement: R\nscenarios:\n  - name: s\n    covers: r/s\n    given:\n      outside: {{ files: {files} }}\n    when: {{ tool: view, args: {{ path: x }} }}\n    then: {{ is_error: true }}\n"
        )
    };
    load_with(&given(
        "[secret.txt, \"{root}_evil/a.txt\", \"sub/\", \"{root}-x\"]",
    ))
    .expect("places beside the root load");
    for (files, says) in [
        ("[/etc/passwd]", "give a path relative to `{outside}`"),
        ("[../up.txt]", "`..` cannot be a step of an outside path"),
        ("[\"{root}/inside.txt\"]", "after `{root}` comes a suffix"),
        ("[\"{root}_e/vil/../x\"]", "`..` cannot be a step"),
        ("[canary-1.txt]", "is kept for the file toolspec adds"),
        ("[]", "`files` is empty"),
    ] {
        let e = one_error(&given(files));
        assert!(e.contains("given.outside"), "{files}: {e}");
        assert!(e.contains(says), "{files}: {e}");
    }
}

/// A suite's `confinement.when_settings` names settings the suite has.
#[test]
fn confinement_by_a_setting_the_suite_lacks_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let suite = dir.path().join("demo");
    std::fs::create_dir(&suite).expect("mkdir");
    std::fs::write(
        suite.join("suite.yaml"),
        format!("{SUITE}confinement: {{ when_settings: [allow] }}\n"),
    )
    .expect("write");
    let errors = load_suite(&suite).expect_err("refused");
    let e = errors[0].to_string();
    assert!(
        e.contains("confinement.when_settings: `allow` is not a setting of this suite"),
        "{e}"
    );
}
