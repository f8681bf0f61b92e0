//! The confinement suite as files: `suite.yaml` and one scenario file per tool that
//! is tried, every value written as JSON (`author::scenario_text::yaml_value`) so
//! no name or schema from a server can change the files' shape.

use std::fmt::Write as _;
use std::path::Path;

use serde_json::Value;

use super::plan::{Catalogue, ToolPlan, Trial};
use crate::author::scenario_text::yaml_value;

/// The suite's name.
pub(crate) const SUITE: &str = "confinement";

/// The suite written: how many scenarios, and per plan the stem of its file (None
/// for a tool not tried), so a scenario's id is `confinement::STEM::KIND TITLE`.
pub(crate) struct Written {
    pub scenarios: usize,
    pub stems: Vec<Option<String>>,
}

/// Writes the suite for `plans` into `dir/confinement/` (made; refused when it
/// holds anything), titled after `server`.
pub(crate) fn write_suite(
    dir: &Path,
    server: &str,
    catalogue: &Catalogue,
    plans: &[ToolPlan],
) -> std::io::Result<Written> {
    let folder = dir.join(SUITE);
    std::fs::create_dir_all(&folder)?;
    if std::fs::read_dir(&folder)?.next().is_some() {
        return Err(std::io::Error::other(format!(
            "{} is not empty: give --out a folder without a `{SUITE}` suite in it",
            folder.display()
        )));
    }
    let is_tried = |p: &&ToolPlan| p.trials.iter().any(|t| matches!(t, Trial::Call { .. }));
    let tried: Vec<&ToolPlan> = plans.iter().filter(is_tried).collect();
    let tools: Vec<Value> = tried
        .iter()
        .map(|p| Value::String(p.tool.clone()))
        .collect();
    let suite = format!(
        "# Written by `toolspec confinement` from the server's tools/list: each tool that\n\
         # takes a path, tried with every escape kind that applies to its job, judged\n\
         # only by what the server does beside its root (docs/confinement.md).\n\
         suite: {SUITE}\n\
         title: {}\n\
         dialect: plain\n\
         tools: {}\n\
         confinement: {{ always: true }}\n\
         call_timeout_ms: 10000\n",
        yaml_value(&Value::String(format!("Confinement of {server}"))),
        yaml_value(&Value::Array(tools)),
    );
    std::fs::write(folder.join("suite.yaml"), suite)?;
    let mut count = 0;
    let mut stems = Vec::new();
    let mut at = 0;
    for plan in plans {
        if !is_tried(&plan) {
            stems.push(None);
            continue;
        }
        at += 1;
        let mut text = format!(
            "requirement: {}\nscenarios:\n",
            yaml_value(&Value::String(format!(
                "{} stays inside its root",
                plan.tool
            )))
        );
        for (kind, trial) in catalogue.kinds.iter().zip(&plan.trials) {
            let Trial::Call { args, writable } = trial else {
                continue;
            };
            count += 1;
            let _ = writeln!(
                text,
                "  - name: {}\n    covers: {}\n    basis: upstream\n    given:\n      outside: {{ files: {}, writable: {writable} }}",
                yaml_value(&Value::String(kind.title.clone())),
                yaml_value(&Value::String(format!("upstream/confinement-{}", kind.id))),
                yaml_value(&Value::Array(
                    kind.outside.iter().cloned().map(Value::String).collect()
                )),
            );
            if !kind.links.is_empty() {
                text.push_str("      files:\n");
                for (name, target) in &kind.links {
                    let _ = writeln!(
                        text,
                        "        {}: {{ symlink: {} }}",
                        yaml_value(&Value::String(name.clone())),
                        yaml_value(&Value::String(target.clone()))
                    );
                }
            }
            let _ = writeln!(
                text,
                "    when: {{ tool: {}, args: {} }}\n    then: {{}}",
                yaml_value(&Value::String(plan.tool.clone())),
                yaml_value(&Value::Object(args.clone()))
            );
        }
        // A file name of the tool's own letters, numbered so two never meet.
        let letters: String = plan
            .tool
            .chars()
            .take(48)
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        let stem = format!("{at:02}-{letters}");
        std::fs::write(folder.join(format!("{stem}.yaml")), text)?;
        stems.push(Some(stem));
    }
    Ok(Written {
        scenarios: count,
        stems,
    })
}
