//! Where calls go: how to start a server for a fixture root, and talk to it.
//!
//! A target is a command line (with `{root}` in it) plus the settings it can
//! express. The bundled reference server is one such target; any stdio MCP server is
//! another. Scenarios needing a setting the target cannot express are skipped.

mod process;
mod session;
mod stdout_guard;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::scenario::{ServerLaunch, Suite};

pub use session::{Session, StartError};

/// How to launch a server over stdio.
#[derive(Debug, Clone)]
pub struct StdioTarget {
    /// A short name for reports.
    pub name: String,
    pub program: PathBuf,
    /// Arguments; `{root}` is replaced by the fixture root and `{cwd}` by the folder
    /// toolspec was started in (the server itself starts in the fixture root).
    pub args: Vec<String>,
    /// Setting name -> argument template, as in `suite.yaml`.
    pub settings: BTreeMap<String, Vec<String>>,
}

/// A scenario asked for a setting this target has no way to express.
#[derive(Debug, Clone, PartialEq)]
pub struct Unsupported(pub String);

impl StdioTarget {
    /// The bundled reference server, run as `<exe> reference-server <suite args>`.
    pub fn reference(exe: &Path, suite: &Suite) -> Self {
        let ServerLaunch { args, settings } = suite.config.reference.clone();
        let mut full = vec!["reference-server".to_string()];
        full.extend(args);
        StdioTarget {
            name: "reference".to_string(),
            program: exe.to_path_buf(),
            args: full,
            settings,
        }
    }

    /// Any stdio server from a shell-style command line such as `node srv.js {root}`.
    pub fn from_command_line(line: &str) -> Result<Self, String> {
        let words = shell_words::split(line).map_err(|e| format!("cannot split --server: {e}"))?;
        let (program, args) = words
            .split_first()
            .ok_or_else(|| "--server is empty: give a command line".to_string())?;
        Ok(StdioTarget {
            name: program.clone(),
            program: PathBuf::from(program),
            args: args.to_vec(),
            settings: BTreeMap::new(),
        })
    }

    /// Adds `extra` arguments, for deliberately broken variants of a target.
    pub fn with_extra_args(mut self, extra: &[&str]) -> Self {
        self.args.extend(extra.iter().map(|s| s.to_string()));
        self
    }

    /// The settings in `wanted` this target cannot express, if any.
    pub fn unsupported(&self, wanted: &BTreeMap<String, Value>) -> Option<Unsupported> {
        let missing: Vec<&str> = wanted
            .keys()
            .filter(|k| !self.settings.contains_key(*k))
            .map(String::as_str)
            .collect();
        if missing.is_empty() {
            None
        } else {
            Some(Unsupported(format!(
                "target `{}` cannot express setting {}",
                self.name,
                missing.join(", ")
            )))
        }
    }

    /// The full argument list for a fixture root and the scenario's settings.
    pub fn argv(
        &self,
        root: &Path,
        wanted: &BTreeMap<String, Value>,
    ) -> Result<Vec<String>, Unsupported> {
        if let Some(u) = self.unsupported(wanted) {
            return Err(u);
        }
        let root = root.to_string_lossy();
        let cwd = std::env::current_dir()
            .map(|d| d.to_string_lossy().into_owned())
            .unwrap_or_default();
        let mut argv: Vec<String> = self
            .args
            .iter()
            .map(|a| a.replace("{root}", &root).replace("{cwd}", &cwd))
            .collect();
        for (key, value) in wanted {
            let template = &self.settings[key];
            let values: Vec<String> = match value {
                Value::Array(items) => items.iter().map(setting_text).collect(),
                other => vec![setting_text(other)],
            };
            for v in values {
                let v = v.replace("{root}", &root);
                argv.extend(template.iter().map(|t| t.replace("{value}", &v)));
            }
        }
        Ok(argv)
    }
}

fn setting_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}
