//! What the documents say about the code, checked against the code: the
//! `schema_version` of each JSON file toolspec writes, as `docs/architecture.md`,
//! the other guides, each `docs/*.schema.json` and the named constant in `src/`
//! state it, against the version the binary really writes; and the layout table of
//! `docs/architecture.md` against the entries of `src/`.

use std::collections::BTreeMap;
use std::path::Path;

use regex::Regex;
use serde_json::Value;

use crate::support::{assert_matches_schema, repo, toolspec};

/// The JSON files with a schema: each schema's name in `docs/` (`report` for
/// `docs/report.schema.json`) and the words `docs/architecture.md` names it by.
const SCHEMAS: [(&str, &str); 5] = [
    ("report", "run reports"),
    ("mutants", "mutants"),
    ("matrix", "matrix"),
    ("history", "history"),
    ("explore", "explore"),
];

/// Runs `toolspec` with `args` from the repository root; its exit code is not the
/// point here (a mutants run with a survivor exits 1), only the file it writes.
fn write_with(args: &[&str]) {
    let output = toolspec().args(args).output().expect("toolspec runs");
    assert!(
        output.status.code().is_some_and(|code| code <= 1),
        "toolspec {args:?} exited {:?}:\n{}",
        output.status.code(),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// The `schema_version` of each kind of JSON file, as the binary writes it on a tiny
/// input (each file also checked against its schema).
fn written_versions() -> BTreeMap<&'static str, u64> {
    let dir = tempfile::tempdir().expect("tempdir");
    let at = |name: &str| dir.path().join(name).to_string_lossy().into_owned();
    let (run, mutants, explore) = (at("run.json"), at("mutants.json"), at("explore.json"));
    let (matrix, history) = (at("matrix"), at("history"));
    let tiny = ["--specs", "tests/data/golden"];
    write_with(&[&tiny[..], &["run", "--suite", "tiny", "--json", &run]].concat());
    write_with(
        &[
            &tiny[..],
            &[
                "mutants",
                "--suite",
                "tiny",
                "--mutation",
                "lowercase-code",
                "--json",
                &mutants,
            ],
        ]
        .concat(),
    );
    write_with(&[
        "matrix",
        "--from-json",
        "tests/golden/reports/boris-reference.json",
        "tests/golden/reports/boris-wrong-code.json",
        "--out",
        &matrix,
    ]);
    write_with(&[
        "history",
        "--releases",
        "tests/golden/releases",
        "--out",
        &history,
    ]);
    write_with(&[
        "explore", "--suite", "ikigai", "--seed", "1", "--cases", "1", "--json", &explore,
    ]);
    let files = [
        ("report", run),
        ("mutants", mutants),
        ("matrix", format!("{matrix}/matrix.json")),
        ("history", format!("{history}/history.json")),
        ("explore", explore),
    ];
    files
        .into_iter()
        .map(|(name, file)| {
            let doc = assert_matches_schema(&format!("docs/{name}.schema.json"), Path::new(&file));
            let version = doc["schema_version"]
                .as_u64()
                .unwrap_or_else(|| panic!("{file} has no numeric schema_version"));
            (name, version)
        })
        .collect()
}

/// The version `docs/<name>.schema.json` fixes with `const`.
fn schema_const(name: &str) -> u64 {
    let path = repo().join(format!("docs/{name}.schema.json"));
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let schema: Value = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()));
    schema["properties"]["schema_version"]["const"]
        .as_u64()
        .unwrap_or_else(|| panic!("{} gives schema_version no numeric `const`", path.display()))
}

/// Every statement of a schema version in the guides: (where, schema name, version).
/// `docs/architecture.md` lists them all in one parenthesis after `schema_version`;
/// a guide elsewhere says "`schema_version` N" or "schema N" on the line that names
/// `docs/<name>.schema.json`.
fn stated_versions() -> Vec<(String, &'static str, u64)> {
    let mut stated = Vec::new();
    let architecture =
        std::fs::read_to_string(repo().join("docs/architecture.md")).expect("docs/architecture.md");
    let list = Regex::new(r"`schema_version` \(([^)]*)\)").expect("regex");
    let lists: Vec<&str> = list
        .captures_iter(&architecture)
        .filter_map(|c| c.get(1).map(|m| m.as_str()))
        .collect();
    assert_eq!(
        lists.len(),
        1,
        "docs/architecture.md should state the schema versions once, as \
         \"`schema_version` (run reports N, mutants N, ...)\"; found {lists:?}"
    );
    let mut named = Vec::new();
    for item in lists[0].split(',') {
        let item = item.split_whitespace().collect::<Vec<_>>().join(" ");
        let Some((words, number)) = item.rsplit_once(' ') else {
            panic!("docs/architecture.md: {item:?} is not \"<file> <version>\"");
        };
        let Some(&(name, _)) = SCHEMAS.iter().find(|(_, w)| *w == words) else {
            panic!("docs/architecture.md names an unknown JSON file {words:?}");
        };
        let version = number
            .parse()
            .unwrap_or_else(|e| panic!("docs/architecture.md: {item:?}: {e}"));
        named.push(name);
        stated.push(("docs/architecture.md".to_string(), name, version));
    }
    named.sort_unstable();
    let mut all: Vec<&str> = SCHEMAS.iter().map(|(name, _)| *name).collect();
    all.sort_unstable();
    assert_eq!(
        named, all,
        "docs/architecture.md should state every schema's version"
    );

    let line = Regex::new(r"(?:`schema_version`|schema) (\d+)\b.*?`docs/(\w+)\.schema\.json`")
        .expect("regex");
    let mut guides = vec![repo().join("README.md")];
    for entry in std::fs::read_dir(repo().join("docs")).expect("docs/") {
        let path = entry.expect("an entry of docs/").path();
        if path.extension().is_some_and(|e| e == "md") && !path.ends_with("architecture.md") {
            guides.push(path);
        }
    }
    for path in guides {
        let text = std::fs::read_to_string(&path).expect("a guide");
        let shown = path.strip_prefix(repo()).unwrap_or(&path).display();
        for (number, text_line) in text.lines().enumerate() {
            for found in line.captures_iter(text_line) {
                let Some(&(name, _)) = SCHEMAS.iter().find(|(name, _)| *name == &found[2]) else {
                    continue;
                };
                let version = found[1].parse().expect("digits");
                stated.push((format!("{shown}:{}", number + 1), name, version));
            }
        }
    }
    stated
}

/// Each schema's version as its named constant in `src/` states it
/// (`REPORT_SCHEMA_VERSION` for `report`), by constant name.
fn code_constants() -> BTreeMap<String, u64> {
    let constant = Regex::new(r"const ([A-Z]+_SCHEMA_VERSION): u64 = (\d+);").expect("regex");
    let mut found = BTreeMap::new();
    let mut folders = vec![repo().join("src")];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).expect("a folder of src/") {
            let path = entry.expect("an entry of src/").path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).expect("a source file");
                for c in constant.captures_iter(&text) {
                    found.insert(c[1].to_string(), c[2].parse().expect("digits"));
                }
            }
        }
    }
    found
}

#[test]
fn every_schema_version_the_docs_state_is_the_one_the_binary_writes() {
    let written = written_versions();
    let mut wrong = Vec::new();
    for (name, _) in SCHEMAS {
        let code = written[name];
        let schema = schema_const(name);
        if schema != code {
            wrong.push(format!(
                "docs/{name}.schema.json: const {schema}, but toolspec writes {code}"
            ));
        }
    }
    let constants = code_constants();
    for (name, _) in SCHEMAS {
        let constant = format!("{}_SCHEMA_VERSION", name.to_uppercase());
        match constants.get(&constant) {
            Some(&version) if version == written[name] => {}
            Some(version) => wrong.push(format!(
                "src/: {constant} is {version}, but toolspec writes {}",
                written[name]
            )),
            None => wrong.push(format!("src/ has no constant {constant}")),
        }
    }
    let stated = stated_versions();
    for (place, name, version) in &stated {
        let code = written[name];
        if *version != code {
            wrong.push(format!(
                "{place}: {name} schema_version {version}, but toolspec writes {code}"
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // The guides beyond architecture.md that state one are found too.
    assert!(
        stated
            .iter()
            .any(|(place, name, _)| place.starts_with("docs/explore.md") && *name == "explore"),
        "docs/explore.md's statement of the explore schema was not found: {stated:?}"
    );
}

#[test]
fn the_layout_table_names_every_entry_of_src() {
    let architecture =
        std::fs::read_to_string(repo().join("docs/architecture.md")).expect("docs/architecture.md");
    let section = architecture
        .split("\n## ")
        .find(|s| s.starts_with("Layout\n"))
        .expect("docs/architecture.md has a \"## Layout\" section");
    let path = Regex::new(r"`(src/[^`]*)`").expect("regex");
    let listed: Vec<String> = section
        .lines()
        .filter_map(|line| line.strip_prefix("| "))
        .filter_map(|row| row.split(" | ").next())
        .flat_map(|cell| {
            path.captures_iter(cell)
                .map(|c| c[1].to_string())
                .collect::<Vec<_>>()
        })
        .collect();
    let mut wrong = Vec::new();
    for entry in std::fs::read_dir(repo().join("src")).expect("src/") {
        let entry = entry.expect("an entry of src/");
        let mut name = format!("src/{}", entry.file_name().to_string_lossy());
        if entry.path().is_dir() {
            name.push('/');
        }
        if !listed.contains(&name) {
            wrong.push(format!("{name} is not in the layout table"));
        }
    }
    for name in &listed {
        if !repo().join(name).exists() {
            wrong.push(format!(
                "the layout table names {name}, which does not exist"
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "docs/architecture.md, \"Layout\":\n{}",
        wrong.join("\n")
    );
}

/// The walkthrough `docs/authoring.md` gives and the script CI runs
/// (`docs/walkthrough/own-server.sh`) are the same lines, so what CI proves is
/// what a reader types.
#[test]
fn the_authoring_walkthrough_is_the_script_ci_runs() {
    let script = std::fs::read_to_string(repo().join("docs/walkthrough/own-server.sh"))
        .expect("the walkthrough script");
    let page = std::fs::read_to_string(repo().join("docs/authoring.md")).expect("the page");
    let start = "# --- walkthrough ---\n";
    let body = script
        .split_once(start)
        .and_then(|(_, rest)| rest.split_once("# --- end ---\n"))
        .map(|(body, _)| body)
        .expect("the script's markers");
    let commands = body.lines().filter(|l| l.starts_with("toolspec ")).count();
    assert!(commands >= 3, "{body}");
    assert!(
        page.contains(&format!("```sh\n{body}```\n")),
        "docs/authoring.md's walkthrough differs from docs/walkthrough/own-server.sh:\n{body}"
    );
}

/// The reason every test of the deep tier is ignored with.
const DEEP_TIER: &str = "deep tier: .ci/run runs it, as does cargo test -- --ignored";

/// No test is left out of every run: a test this binary ignores is either of the
/// deep tier, which `.ci/run` runs with `--ignored` (skipping the `own_process_`
/// ones), or an `own_process_` test whose reason names the test that runs it, a
/// test of the quick tier in the same file. A new `#[ignore]` with any other
/// reason, or a deep tier `.ci/run` no longer runs, fails here.
#[test]
fn every_ignored_test_is_run_by_cargo_test_or_ci() {
    let ci = std::fs::read_to_string(repo().join(".ci/run")).expect(".ci/run");
    for deep_run in [
        "cargo test --locked --test harness -- --ignored --skip own_process_",
        "cargo test --locked --test browser -- --ignored",
    ] {
        assert!(
            ci.lines()
                .any(|l| !l.trim_start().starts_with('#') && l.contains(deep_run)),
            ".ci/run no longer runs the deep tier's `{deep_run}`"
        );
    }
    let ignore = Regex::new(r#"#\[ignore = "([^"]*)"\]\s*\n\s*fn ([a-z0-9_]+)\("#).expect("regex");
    let test =
        Regex::new(r"#\[test\]\s*\n((?:\s*#\[[^\n]*\]\n)*)\s*fn ([a-z0-9_]+)\(").expect("regex");
    let (mut deep, mut own) = (0, 0);
    let dir = repo().join("tests/harness");
    for entry in std::fs::read_dir(&dir).expect("tests/harness").flatten() {
        let path = entry.path();
        let text = std::fs::read_to_string(&path).expect("a test file");
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
        let name = name.unwrap_or_default();
        // Every test of the file that runs in the quick tier.
        let quick: Vec<&str> = test
            .captures_iter(&text)
            .filter(|c| !c[1].contains("#[ignore"))
            .filter_map(|c| c.get(2).map(|m| m.as_str()))
            .collect();
        for found in ignore.captures_iter(&text) {
            let (reason, function) = (&found[1], &found[2]);
            if reason == DEEP_TIER {
                assert!(!function.starts_with("own_process_"), "{name}: {function}");
                deep += 1;
                continue;
            }
            let runner = reason.strip_prefix("run in a process of its own by ");
            assert!(
                function.starts_with("own_process_")
                    && runner.is_some_and(|runner| quick.contains(&runner)),
                "{name}: {function} is ignored with \"{reason}\", which neither \
                 .ci/run's deep tier (\"{DEEP_TIER}\") nor a quick test of the file \
                 (\"run in a process of its own by <test>\", the test named own_process_…) runs"
            );
            own += 1;
        }
    }
    assert!(deep > 0 && own > 0, "deep {deep}, own process {own}");
}
