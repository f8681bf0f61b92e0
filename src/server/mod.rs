//! Where calls go: how to start a server for a fixture root, and talk to it.
//!
//! A target is a command line (with `{root}` in it), optionally a streamable HTTP
//! URL that command serves, the settings it can express, renames of tools and
//! arguments, and a baseline of known failures. The bundled reference server is one
//! target; a target file (`--target my-server.yaml`) or a bare `--server` command
//! line describes any other. Scenarios needing a setting the target cannot express
//! are skipped.

mod at_exit;
mod control_word;
mod escapes;
mod exchange;
mod http_client;
mod http_wire;
mod isolation;
pub(crate) mod outcome;
mod package_runner;
mod port_lease;
pub(crate) mod preflight;
mod proc_stat;
mod process;
pub(crate) mod runtime;
mod server_exec;
mod session;
pub(crate) mod spare_count;
mod spawner;
mod stdout_guard;
mod supervisor;
mod supervisor_child;
mod target_file;
mod telling_lines;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::scenario::{ServerLaunch, Suite};

pub use escapes::adopt_escaped_processes;
pub(crate) use isolation::denied::denied_by_isolation;
pub use isolation::layers::Isolation;
pub(crate) use isolation::layers::{running_as_root, Layer};
pub use isolation::resource_limits::Limits;
pub use process::start_spawner;
pub(crate) use process::{
    contain_the_run, end_what_escaped, finish_interrupted_run, interrupted, output_of_listed,
    stop_spawner,
};
pub(crate) use session::{ListedTool, Session, StartError};
pub use target_file::load_target_file;
pub(crate) use target_file::target_from_text;

/// A server under test and how to reach it.
#[derive(Debug, Clone, Default)]
pub struct Target {
    /// A short name for reports.
    pub name: String,
    /// The program to start.
    pub program: PathBuf,
    /// Arguments; `{root}` is replaced by the fixture root, `{port}` by a free local
    /// port and `{cwd}` by the folder toolspec was started in (the server itself
    /// starts in the fixture root).
    pub args: Vec<String>,
    /// When set, MCP goes over streamable HTTP to this URL (`{port}` replaced)
    /// instead of the command's stdio.
    pub url: Option<String>,
    /// Extra environment for the server.
    pub env: BTreeMap<String, String>,
    /// Setting name -> argument template, as in `suite.yaml`.
    pub settings: BTreeMap<String, Vec<String>>,
    /// Setting name -> the word of `args` its values take the place of (a server
    /// whose allowed folders are positional arguments), from a target file.
    pub in_command: BTreeMap<String, InCommand>,
    /// Suite tool name -> this server's tool name.
    pub tools: BTreeMap<String, String>,
    /// Suite tool name -> (suite argument name -> this server's argument name).
    pub arguments: BTreeMap<String, BTreeMap<String, String>>,
    /// Scenario ids expected to fail on this target; `id#key` names one expectation
    /// of a scenario (see [`crate::Mismatch::key`]).
    pub baseline: BTreeSet<String>,
    /// The server claims the whole spec: a scenario calling a suite tool it does not
    /// list FAILs instead of being UNSUPPORTED.
    pub require_all_tools: bool,
    /// Suite name -> the suite version this target is gated at (`suites:` in a target
    /// file): a scenario that arrived in a later version is NEW, not a failure.
    pub pins: BTreeMap<String, u32>,
    /// How the server is isolated (`isolation.rs`): on unless opted out of.
    pub isolation: Isolation,
    /// How long the server may take to start and answer `initialize`, in
    /// milliseconds (`start_timeout_ms` in a target file, else the suite's):
    /// a server that loads a model or fetches a package starts slower than it
    /// answers a call. Never less than the call timeout, which is the start's
    /// timeout when neither says.
    pub start_timeout_ms: Option<u64>,
    /// Lines on the server's stdout that are not JSON (a banner, a log line) are
    /// skipped with a warning in each report instead of ending the session
    /// (`skip_stdout_noise: true` in a target file, `--skip-stdout-noise`). The
    /// stdio transport forbids them and toolspec refuses them by default, but the
    /// MCP SDKs' clients skip them, so a server that logs on stdout works in the
    /// field and can still have its tools checked.
    pub skip_stdout_noise: bool,
}

/// A setting whose values go in the command line in place of one of its words,
/// one word each, rather than after it as flags.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InCommand {
    /// The word of the command they replace (`{allowed}`).
    pub word: String,
    /// The words there when a scenario does not set it (`{root}`).
    pub otherwise: Vec<String>,
}

/// A scenario asked for a setting this target has no way to express.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Unsupported(pub String);

/// A server command line that names no program to start.
#[derive(Debug, thiserror::Error)]
pub enum CommandLineError {
    /// Quotes that do not close, or a trailing backslash.
    #[error("cannot split it into words: {0}")]
    Unsplittable(#[source] shell_words::ParseError),
    /// Nothing but spaces.
    #[error("it is empty: give a program and its arguments, with {{root}} where the root goes")]
    Empty,
}

impl Target {
    /// The bundled reference server, run as `<exe> reference-server <suite args>`.
    /// A suite without `reference:` has none: the commands refuse it before they
    /// get here (`refuse_without_reference` in the CLI), and this gives the server no
    /// arguments.
    pub fn reference(exe: &Path, suite: &Suite) -> Self {
        let ServerLaunch { args, settings } = suite.config.reference.clone().unwrap_or_default();
        let mut full = vec!["reference-server".to_string()];
        full.extend(args);
        Target {
            name: "reference".to_string(),
            program: exe.to_path_buf(),
            args: full,
            settings,
            start_timeout_ms: suite.config.start_timeout_ms,
            ..Target::default()
        }
    }

    /// Any stdio server from a shell-style command line such as `node srv.js {root}`.
    pub fn from_command_line(line: &str) -> Result<Self, CommandLineError> {
        let words = shell_words::split(line).map_err(CommandLineError::Unsplittable)?;
        let (program, args) = words.split_first().ok_or(CommandLineError::Empty)?;
        Ok(Target {
            name: program.clone(),
            program: PathBuf::from(program),
            args: args.to_vec(),
            ..Target::default()
        })
    }

    /// The layers of isolation a server of this target runs under on this kernel.
    pub(crate) fn isolation_layers(&self) -> Vec<Layer> {
        self.isolation.layers(self.url.is_some())
    }

    /// The target, with the start timeout of `suite`'s `suite.yaml` unless it
    /// has one of its own (a target file's is the server's, so it wins).
    pub(crate) fn with_start_timeout_of(mut self, suite: &Suite) -> Self {
        self.start_timeout_ms = self.start_timeout_ms.or(suite.config.start_timeout_ms);
        self
    }

    /// How long a start may take when a call may take `call_timeout`: the
    /// target's start timeout, never less than the call's.
    pub(crate) fn start_timeout(&self, call_timeout: std::time::Duration) -> std::time::Duration {
        self.start_timeout_ms
            .map(std::time::Duration::from_millis)
            .map_or(call_timeout, |start| start.max(call_timeout))
    }

    /// The target, isolated only if `on` (and if it was).
    pub(crate) fn isolated_if(mut self, on: bool) -> Self {
        self.isolation.enabled &= on;
        self
    }

    /// Adds `extra` arguments, for deliberately broken variants of a target.
    pub fn with_extra_args(mut self, extra: &[&str]) -> Self {
        self.args.extend(extra.iter().map(|s| s.to_string()));
        self
    }

    /// Whether this target can express the setting `name`.
    pub(crate) fn expresses(&self, name: &str) -> bool {
        self.settings.contains_key(name) || self.in_command.contains_key(name)
    }

    /// The settings in `wanted` this target cannot express, if any.
    pub(crate) fn unsupported(&self, wanted: &BTreeMap<String, Value>) -> Option<Unsupported> {
        let missing: Vec<&str> = wanted
            .keys()
            .filter(|k| !self.expresses(k))
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

    /// The full argument list for a fixture root, a port and the scenario's settings.
    pub(crate) fn argv(
        &self,
        root: &Path,
        port: Option<u16>,
        wanted: &BTreeMap<String, Value>,
    ) -> Result<Vec<String>, Unsupported> {
        if let Some(u) = self.unsupported(wanted) {
            return Err(u);
        }
        let root = root.to_string_lossy();
        let cwd = std::env::current_dir()
            .map(|d| d.to_string_lossy().into_owned())
            .unwrap_or_default();
        let port = port.map(|p| p.to_string()).unwrap_or_default();
        let fill = |a: &str| {
            a.replace("{root}", &root)
                .replace("{cwd}", &cwd)
                .replace("{port}", &port)
        };
        let values_of = |value: &Value| -> Vec<String> {
            match value {
                Value::Array(items) => items.iter().map(setting_text).collect(),
                // A switch that is off adds no flags.
                Value::Bool(false) => Vec::new(),
                other => vec![setting_text(other)],
            }
        };
        let mut argv: Vec<String> = Vec::new();
        for arg in &self.args {
            match self.in_command.iter().find(|(_, at)| at.word == *arg) {
                Some((name, at)) => match wanted.get(name) {
                    Some(value) => argv.extend(values_of(value).iter().map(|v| fill(v))),
                    None => argv.extend(at.otherwise.iter().map(|w| fill(w))),
                },
                None => argv.push(fill(arg)),
            }
        }
        for (key, value) in wanted {
            let Some(template) = self.settings.get(key) else {
                continue;
            };
            for v in values_of(value) {
                let v = fill(&v);
                argv.extend(template.iter().map(|t| t.replace("{value}", &v)));
            }
        }
        Ok(argv)
    }

    /// The tool name and arguments as this server spells them.
    pub(crate) fn translate(
        &self,
        tool: &str,
        args: Map<String, Value>,
    ) -> (String, Map<String, Value>) {
        let name = self
            .tools
            .get(tool)
            .cloned()
            .unwrap_or_else(|| tool.to_string());
        let args = match self.arguments.get(tool) {
            Some(renames) => args
                .into_iter()
                .map(|(k, v)| (renames.get(&k).cloned().unwrap_or(k), v))
                .collect(),
            None => args,
        };
        (name, args)
    }
}

fn setting_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}
