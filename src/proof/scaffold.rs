//! Skeleton scenario files (`toolspec scaffold`, whose command is `cli::scaffold`) for the clauses of a spec document that
//! no scenario covers yet.
//!
//! A skeleton must load (so `toolspec list` and `toolspec coverage` work while it is
//! being filled in) and must fail when run, never pass by accident: each scenario calls
//! a tool named `TODO` and expects the text `TODO: ...`, and its name starts with
//! `TODO: ` so unfinished ones stand out in listings and reports. The clause's own text
//! is quoted above each scenario as comments. Existing files are never overwritten
//! (the suite's clause index, which the command also writes, is data it owns:
//! `proof::coverage::index`).

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use crate::proof::coverage::clauses::{slug, Clause};
use crate::proof::coverage::spec_document::SpecDocument;
use crate::scenario::{load_suite, LoadError, CLAUSE_INDEX_FILE};

/// Prefix of every scaffolded scenario's name, until someone fills it in.
pub(crate) const TODO_PREFIX: &str = "TODO: ";

/// One file to write.
#[derive(Debug)]
pub(crate) struct Planned {
    path: PathBuf,
    text: String,
    /// Scenarios in it (0 for suite.yaml).
    pub(crate) scenarios: usize,
    /// The file the scenarios belong in, when it existed and they went beside it.
    beside: Option<PathBuf>,
}

/// The `covers:` of the suite in `dir`, or none when there is no suite there yet.
pub(crate) fn covered_ids(dir: &Path) -> Result<BTreeSet<String>, Vec<LoadError>> {
    if !dir.join("suite.yaml").is_file() {
        return Ok(BTreeSet::new());
    }
    let suite = load_suite(dir)?;
    Ok(suite.scenarios().map(|(_, s)| s.covers.clone()).collect())
}

/// The files to write for the uncovered clauses, or every name clash. Nothing is
/// written when one file cannot be placed, so a scaffold is never half done.
pub(crate) fn plan(
    documents: &[SpecDocument],
    covered: &BTreeSet<String>,
    out: &Path,
) -> Result<Vec<Planned>, Vec<LoadError>> {
    let mut seen = covered.clone();
    let mut groups: Vec<Group> = Vec::new();
    for document in documents {
        for clause in &document.clauses {
            if !seen.insert(clause.id.clone()) {
                continue;
            }
            let (stem, requirement) = match clause.section.as_deref() {
                Some(section) if !slug(section).is_empty() => (slug(section), section.to_string()),
                _ => {
                    let stem = Path::new(&document.name).file_stem().map_or_else(
                        || document.name.clone(),
                        |s| s.to_string_lossy().into_owned(),
                    );
                    (slug(&stem), stem)
                }
            };
            // `clauses.yaml` is the suite's clause index, not a scenario file.
            let stem = if format!("{stem}.yaml") == CLAUSE_INDEX_FILE {
                format!("{stem}-section")
            } else {
                stem
            };
            match groups.iter_mut().find(|g| g.stem == stem) {
                Some(group) => group.clauses.push((document.name.clone(), clause.clone())),
                None => groups.push(Group {
                    stem,
                    requirement,
                    clauses: vec![(document.name.clone(), clause.clone())],
                }),
            }
        }
    }
    if groups.is_empty() {
        return Ok(Vec::new());
    }

    let mut plan = Vec::new();
    let mut clashes = Vec::new();
    if !out.join("suite.yaml").exists() {
        plan.push(Planned {
            path: out.join("suite.yaml"),
            text: suite_skeleton(out),
            scenarios: 0,
            beside: None,
        });
    }
    for group in &groups {
        let main = out.join(format!("{}.yaml", group.stem));
        let beside = out.join(format!("{}.scaffold.yaml", group.stem));
        let (path, existing) = if !main.exists() {
            (main, None)
        } else if !beside.exists() {
            (beside, Some(main))
        } else {
            clashes.push(LoadError::new(
                &beside,
                None,
                format!(
                    "both {} and this file exist; move the scaffolded scenarios into the \
                     first and delete this one, then scaffold again",
                    main.display()
                ),
            ));
            continue;
        };
        plan.push(Planned {
            path,
            text: scenario_file(group),
            scenarios: group.clauses.len(),
            beside: existing,
        });
    }
    if clashes.is_empty() {
        Ok(plan)
    } else {
        Err(clashes)
    }
}

/// Clauses that go into one file: those of one section.
struct Group {
    stem: String,
    requirement: String,
    /// (document name, clause)
    clauses: Vec<(String, Clause)>,
}

/// Writes the plan with `create_new`, so a file that appeared meanwhile is not
/// overwritten either; returns what was written, one line each.
pub(crate) fn write(out: &Path, plan: &[Planned]) -> Result<Vec<String>, Vec<LoadError>> {
    std::fs::create_dir_all(out).map_err(|e| {
        vec![LoadError::new(
            out,
            None,
            format!("cannot create folder: {e}"),
        )]
    })?;
    let mut lines = Vec::new();
    for file in plan {
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&file.path)
            .and_then(|mut f| f.write_all(file.text.as_bytes()))
            .map_err(|e| {
                vec![LoadError::new(
                    &file.path,
                    None,
                    format!("cannot write: {e}"),
                )]
            })?;
        lines.push(match (&file.beside, file.scenarios) {
            (_, 0) => format!(
                "wrote {} (a suite skeleton: fill in its TODOs)",
                file.path.display()
            ),
            (Some(existing), n) => format!(
                "wrote {} ({}; {} exists, move them there)",
                file.path.display(),
                scenarios(n),
                existing.display()
            ),
            (None, n) => format!("wrote {} ({})", file.path.display(), scenarios(n)),
        });
    }
    Ok(lines)
}

fn scenarios(n: usize) -> String {
    if n == 1 {
        "1 scenario".to_string()
    } else {
        format!("{n} scenarios")
    }
}

/// A YAML double-quoted string (JSON's escapes are valid YAML).
fn quoted(text: &str) -> String {
    serde_json::Value::from(text).to_string()
}

fn suite_skeleton(out: &Path) -> String {
    let name = out
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let mut text = String::new();
    let _ = writeln!(
        text,
        "# Written by `toolspec scaffold`: fill in the TODOs (docs/scenario-format.md)."
    );
    let _ = writeln!(text, "suite: {}", quoted(&name));
    let _ = writeln!(text, "title: {}", quoted("TODO: what this suite checks"));
    let _ = writeln!(
        text,
        "dialect: plain   # TODO: bracket-code, plain, json-error-envelope or json-result-envelope"
    );
    let _ = writeln!(
        text,
        "reference:   # TODO: how the bundled reference server runs this suite"
    );
    let _ = writeln!(text, "  args: [--dialect, TODO, --root, \"{{root}}\"]");
    text
}

fn scenario_file(group: &Group) -> String {
    let sources: BTreeSet<&str> = group.clauses.iter().map(|(d, _)| d.as_str()).collect();
    let mut text = String::new();
    let _ = writeln!(
        text,
        "# Scaffolded by `toolspec scaffold` from {}.",
        sources.into_iter().collect::<Vec<_>>().join(", ")
    );
    let _ = writeln!(
        text,
        "# Each scenario fails until it is filled in: write its given/when/then from the"
    );
    let _ = writeln!(
        text,
        "# clause quoted above it, then drop \"{TODO_PREFIX}\" from its name."
    );
    let _ = writeln!(text, "requirement: {}", quoted(&group.requirement));
    let _ = writeln!(text, "scenarios:");
    let mut names = BTreeSet::new();
    for (document, clause) in &group.clauses {
        let base = format!("{TODO_PREFIX}{}", clause.title.replace(['`', '*'], ""));
        let mut name = base.clone();
        let mut n = 2;
        while !names.insert(name.clone()) {
            name = format!("{base} ({n})");
            n += 1;
        }
        let _ = writeln!(text);
        let _ = writeln!(text, "  # {document} line {}:", clause.line);
        for line in &clause.text {
            let _ = writeln!(text, "  #   {line}");
        }
        let _ = writeln!(text, "  - name: {}", quoted(&name));
        let _ = writeln!(text, "    covers: {}", quoted(&clause.id));
        let _ = writeln!(text, "    when: {{ tool: TODO, args: {{}} }}");
        let _ = writeln!(text, "    then:");
        let _ = writeln!(
            text,
            "      text: {}",
            quoted("TODO: the result the clause asks for")
        );
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn document(text: &str) -> SpecDocument {
        SpecDocument::from_text(Path::new("spec.md"), text)
    }

    const SPEC: &str = "## `read_file`\n\n1. **Ok:** returns \"it\".\n2. **Ok**: twice\n\n\
                        ## Codes\n| Code | Meaning |\n|---|---|\n| `A` | a |\n";

    #[test]
    fn one_file_per_section_plus_a_suite_skeleton() {
        let dir = tempfile::tempdir().expect("tempdir");
        let plan = plan(&[document(SPEC)], &BTreeSet::new(), dir.path()).expect("plan");
        let names: Vec<_> = plan
            .iter()
            .map(|p| p.path.file_name().map(|n| n.to_string_lossy().into_owned()))
            .collect();
        assert_eq!(
            names,
            [
                Some("suite.yaml".into()),
                Some("read-file.yaml".into()),
                Some("codes.yaml".into())
            ]
        );
        let read = &plan[1].text;
        assert!(read.contains("requirement: \"`read_file`\""), "{read}");
        assert!(
            read.contains("  - name: \"TODO: Ok\"\n    covers: \"read-file/ok\""),
            "{read}"
        );
        assert!(read.contains("  #   returns \"it\"."), "{read}");
        assert_eq!(plan[1].scenarios, 1, "the repeated id is one clause");
    }

    #[test]
    fn covered_clauses_are_skipped_and_nothing_left_means_no_files() {
        let dir = tempfile::tempdir().expect("tempdir");
        let covered: BTreeSet<String> = ["read-file/ok".to_string()].into();
        let plan = plan(&[document(SPEC)], &covered, dir.path()).expect("plan");
        assert_eq!(plan.len(), 2);
        let all: BTreeSet<String> = ["read-file/ok".to_string(), "codes/a".to_string()].into();
        assert!(plan_is_empty(&all, dir.path()));
    }

    fn plan_is_empty(covered: &BTreeSet<String>, out: &Path) -> bool {
        plan(&[document(SPEC)], covered, out)
            .expect("plan")
            .is_empty()
    }

    #[test]
    fn an_existing_file_gets_a_scaffold_beside_it_and_two_refuse() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("suite.yaml"), "x").expect("write");
        std::fs::write(dir.path().join("codes.yaml"), "x").expect("write");
        let planned = plan(&[document(SPEC)], &BTreeSet::new(), dir.path()).expect("plan");
        assert!(planned[1].path.ends_with("codes.scaffold.yaml"));
        assert!(planned[1]
            .beside
            .as_ref()
            .is_some_and(|b| b.ends_with("codes.yaml")));
        std::fs::write(dir.path().join("codes.scaffold.yaml"), "x").expect("write");
        let errors = plan(&[document(SPEC)], &BTreeSet::new(), dir.path()).expect_err("clash");
        assert_eq!(errors.len(), 1);
        assert!(errors[0].to_string().contains("codes.scaffold.yaml"));
    }

    #[test]
    fn a_section_named_clauses_does_not_take_the_clause_index_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        let plan = plan(
            &[document("## Clauses\n- `a`: b\n")],
            &BTreeSet::new(),
            dir.path(),
        )
        .expect("plan");
        assert!(
            plan[1].path.ends_with("clauses-section.yaml"),
            "{:?}",
            plan[1].path
        );
    }

    #[test]
    fn clauses_without_a_section_go_to_a_file_named_after_the_document() {
        let dir = tempfile::tempdir().expect("tempdir");
        let doc = SpecDocument::from_text(
            Path::new("Error Codes.txt"),
            "| Code | Meaning |\n|---|---|\nnot_found | gone |\n",
        );
        let plan = plan(&[doc], &BTreeSet::new(), dir.path()).expect("plan");
        assert!(plan[1].path.ends_with("error-codes.yaml"));
        assert!(plan[1].text.contains("requirement: \"Error Codes\""));
    }
}
