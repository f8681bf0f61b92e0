//! No document or example tells a user to install a name the project does not own
//! (docs/packaging.md, "Names"): `toolspec` on PyPI is an unrelated project, and the
//! `@toolspec` npm scope is not one the project can be sure to register. A line that
//! did would one day install a stranger's code into a CI job that holds secrets.

use std::path::{Path, PathBuf};

use regex::Regex;

use crate::support::repo;

/// Install lines that fetch the PyPI name `toolspec` (not `toolspec-cli`), and any
/// mention of the npm scope.
fn forbidden() -> Vec<(Regex, &'static str)> {
    // `toolspec` ending the name: followed by anything but a name character.
    let bare = r"toolspec(?:[^A-Za-z0-9_.\-]|$)";
    let options = r"(?:-{1,2}[A-Za-z][\w-]*(?:=\S+)?\s+)*";
    [
        (
            format!(r"\b(?:pip3?|pipx|uv\s+tool)\s+install\s+{options}{bare}"),
            "installs the PyPI name `toolspec`, an unrelated project: the wheel is `toolspec-cli`",
        ),
        (
            format!(r"\b(?:uvx|pipx\s+run)\s+{options}{bare}"),
            "runs the PyPI name `toolspec`, an unrelated project: `uvx --from toolspec-cli toolspec`",
        ),
        (
            r"@toolspec/".to_string(),
            "names the npm scope `@toolspec`, which the project does not own: the platform package is `toolspec-linux-x64`",
        ),
    ]
    .into_iter()
    .map(|(pattern, why)| (Regex::new(&pattern).expect("pattern"), why))
    .collect()
}

/// Each forbidden line of `text`: its number and why.
fn forbidden_lines(text: &str) -> Vec<(usize, &'static str)> {
    let rules = forbidden();
    text.lines()
        .enumerate()
        .flat_map(|(at, line)| {
            rules
                .iter()
                .filter(move |(rule, _)| rule.is_match(line))
                .map(move |(_, why)| (at + 1, *why))
        })
        .collect()
}

/// The repository's documents and examples: what a user reads and copies.
fn documents(repo: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for file in [
        "README.md",
        "action.yml",
        "reference-impl/README.md",
        ".ci/run",
    ] {
        let path = repo.join(file);
        if path.is_file() {
            found.push(path);
        }
    }
    let mut folders: Vec<PathBuf> = ["docs", "packaging"].iter().map(|f| repo.join(f)).collect();
    while let Some(folder) = folders.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.file_name().is_some_and(|n| n == "node_modules") {
                continue;
            }
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| {
                ["md", "yml", "yaml", "toml", "json", "sh", "py", "js", "txt"]
                    .contains(&e.to_string_lossy().as_ref())
            }) {
                found.push(path);
            }
        }
    }
    found
}

#[test]
fn no_document_or_example_installs_a_name_the_project_does_not_own() {
    let repo = repo();
    let files = documents(&repo);
    assert!(
        files
            .iter()
            .any(|f| f.ends_with("docs/ci/github-actions.yml")),
        "the CI example was not among the files read: {files:?}"
    );
    let mut found = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap_or_default();
        for (line, why) in forbidden_lines(&text) {
            found.push(format!(
                "{}:{line}: {why}",
                file.strip_prefix(&repo).unwrap_or(file).display()
            ));
        }
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn the_install_line_rules_catch_the_taken_names_and_pass_the_owned_ones() {
    let bad = "\
pip install toolspec
python -m pip install toolspec==0.1.0
pip install --quiet toolspec
uv pip install toolspec
pipx install toolspec
uvx toolspec list
npm install @toolspec/linux-x64";
    let caught: Vec<usize> = forbidden_lines(bad).iter().map(|(line, _)| *line).collect();
    assert_eq!(caught, [1, 2, 3, 4, 5, 6, 7], "{:?}", forbidden_lines(bad));
    let good = "\
pip install toolspec-cli==0.1.0
python -m pip install --quiet toolspec-cli
pip install ./toolspec_cli-0.1.0-py3-none-manylinux2014_x86_64.whl
uvx --from toolspec-cli==0.1.0 toolspec run --suite boris
uvx --no-index --from \"$wheel\" toolspec list
npm install --save-dev toolspec@0.1.0
npm install toolspec-linux-x64
cargo install toolspec --version 0.1.0";
    assert_eq!(forbidden_lines(good), []);
}
