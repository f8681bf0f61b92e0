//! Target files: how a team describes its own server once and gates CI on it.
//!
//! ```yaml
//! name: my-server
//! command: [node, "{here}/dist/server.js", --root, "{root}"]
//! settings: { max_file_size: [--max-bytes, "{value}"] }
//! # or, for a server whose allowed folders are positional arguments:
//! #   command: [mcp-server-filesystem, "{allowed}"]
//! #   settings: { allow: { replaces: "{allowed}", otherwise: ["{root}"] } }
//! tools: { view: read_file }
//! arguments: { view: { path: file_path } }
//! baseline: [ "boris::bash-tool-error-codes::Subprocess start failure" ]
//! isolation:           # each key opens one thing; isolation is on without them
//!   writable: ["{here}/cache"]
//!   keep_home: false
//!   allow_network: false
//!   pass_env: [NPM_CONFIG_REGISTRY, "MY_SERVER_*"]
//!   read: ["{here}/../models"]
//!   limits: { pids: 512, memory: 2GiB, file_size: 1GiB }   # `none` lifts one
//! ```
//!
//! `{here}` is the folder of the target file, so a file can travel with its server.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::isolation::resource_limits::Limits;
use super::{InCommand, Isolation, Target};
use crate::scenario::{parse_yaml_str, LoadError};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TargetFile {
    name: Option<String>,
    /// The command line, as a list of words or one shell-style string.
    command: Command,
    url: Option<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    #[serde(default)]
    settings: BTreeMap<String, SettingEntry>,
    #[serde(default)]
    tools: BTreeMap<String, String>,
    #[serde(default)]
    arguments: BTreeMap<String, BTreeMap<String, String>>,
    /// Scenario ids expected to fail.
    #[serde(default)]
    baseline: Vec<String>,
    /// A file of scenario ids expected to fail, one per line (`#` lines are comments),
    /// as `toolspec run --write-baseline` writes it.
    baseline_file: Option<String>,
    /// The server claims the whole spec: a suite tool it does not list is a FAIL,
    /// not UNSUPPORTED.
    #[serde(default)]
    require_all_tools: bool,
    /// Suite name -> the suite version this server is gated at: scenarios that
    /// arrived later run, and are NEW rather than failures. Without `--suite`, a
    /// run of this target runs these suites.
    #[serde(default)]
    suites: BTreeMap<String, u32>,
    /// What of the isolation this server is let out of.
    #[serde(default)]
    isolation: IsolationSection,
    /// How long the server may take to start and answer `initialize`, in
    /// milliseconds (`Target::start_timeout_ms`); `record` says what to set.
    start_timeout_ms: Option<u64>,
    /// Skip lines on stdout that are not JSON, with a warning
    /// (`Target::skip_stdout_noise`).
    #[serde(default)]
    skip_stdout_noise: bool,
    /// Once the switch that turned Landlock on; isolation is the default now, so it
    /// is accepted and does nothing.
    #[serde(default)]
    sandbox: bool,
}

/// `isolation:`: each key opens one thing; without any, the server is isolated.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct IsolationSection {
    /// Extra paths the server may write below (`{here}` is the file's folder).
    #[serde(default)]
    writable: Vec<String>,
    /// Keep the real home: `HOME` unchanged, and readable.
    #[serde(default)]
    keep_home: bool,
    /// Leave the network open.
    #[serde(default)]
    allow_network: bool,
    /// Variables of toolspec's environment to pass on beside the allowlist.
    #[serde(default)]
    pass_env: Vec<String>,
    /// More places the server reads (`{here}` is the file's folder).
    #[serde(default)]
    read: Vec<String>,
    /// The server's resource limits, each a number, a size (`512MiB`) or `none`.
    #[serde(default)]
    limits: LimitsSection,
}

/// `isolation.limits`: each key replaces one default.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct LimitsSection {
    pids: Option<Amount>,
    memory: Option<Amount>,
    file_size: Option<Amount>,
}

/// A limit as written: a number, or a string (`2GiB`, `512M`, `none`).
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Amount {
    Number(u64),
    Text(String),
}

/// A limit in `isolation.limits` that cannot be read.
#[derive(Debug, thiserror::Error)]
enum LimitError {
    /// A size with a unit it does not know.
    #[error(
        "`isolation.limits.{key}`: unknown unit `{unit}` in `{text}` (K, M, G or T, or `none`)"
    )]
    UnknownUnit {
        /// The key: `pids`, `memory` or `file_size`.
        key: &'static str,
        /// The unit as written.
        unit: String,
        /// The whole value.
        text: String,
    },
    /// Not a number of bytes (or too many of them).
    #[error(
        "`isolation.limits.{key}`: `{text}` is not a size (a number, `512MiB`, `2GiB` or `none`)"
    )]
    NotASize {
        /// The key.
        key: &'static str,
        /// The whole value.
        text: String,
    },
}

impl Amount {
    /// The limit it sets: `None` for `none`; sizes in bytes (K, M, G, T, with or
    /// without `iB` or `B`, all powers of 1024). `what` names the key in an error.
    fn read(&self, what: &'static str) -> Result<Option<u64>, LimitError> {
        let text = match self {
            Amount::Number(n) => return Ok(Some(*n)),
            Amount::Text(t) => t.trim(),
        };
        if text.eq_ignore_ascii_case("none") {
            return Ok(None);
        }
        let split = text
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(text.len());
        let (digits, unit) = text.split_at(split);
        let unit = unit.trim();
        let shift = match unit.trim_end_matches("iB").trim_end_matches('B') {
            "" => 0,
            "K" | "k" => 10,
            "M" => 20,
            "G" => 30,
            "T" => 40,
            _ => {
                return Err(LimitError::UnknownUnit {
                    key: what,
                    unit: unit.to_string(),
                    text: text.to_string(),
                })
            }
        };
        digits
            .parse::<u64>()
            .ok()
            .and_then(|n| n.checked_mul(1u64 << shift))
            .map(Some)
            .ok_or_else(|| LimitError::NotASize {
                key: what,
                text: text.to_string(),
            })
    }
}

impl LimitsSection {
    /// The limits: the defaults, with each key given replacing its own.
    fn limits(&self) -> Result<Limits, LimitError> {
        let defaults = Limits::default();
        let pick = |given: &Option<Amount>, what: &'static str, default| match given {
            Some(amount) => amount.read(what),
            None => Ok(default),
        };
        Ok(Limits {
            pids: pick(&self.pids, "pids", defaults.pids)?,
            memory_bytes: pick(&self.memory, "memory", defaults.memory_bytes)?,
            file_bytes: pick(&self.file_size, "file_size", defaults.file_bytes)?,
        })
    }
}

/// `command:` as a list of words or one shell-style line. Read with a visitor, not
/// `#[serde(untagged)]`: untagged buffers the value first, so a word written as a
/// number (`[server, --port, 8080]`) matched neither shape and the error said only
/// that; read directly, a plain YAML scalar is a word whatever it looks like.
#[derive(Debug)]
enum Command {
    Words(Vec<String>),
    Line(String),
}

impl<'de> Deserialize<'de> for Command {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct CommandVisitor;

        impl<'de> serde::de::Visitor<'de> for CommandVisitor {
            type Value = Command;

            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str(
                    "the server's command line: a list of words (`[node, server.js, \"{root}\"]`) or one string",
                )
            }

            fn visit_str<E: serde::de::Error>(self, line: &str) -> Result<Command, E> {
                Ok(Command::Line(line.to_string()))
            }

            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, seq: A) -> Result<Command, A::Error> {
                words_of(seq).map(Command::Words)
            }
        }

        deserializer.deserialize_any(CommandVisitor)
    }
}

/// A YAML list read as words: a plain scalar is a word whatever it looks like
/// (`8080` too).
fn words_of<'de, A: serde::de::SeqAccess<'de>>(mut seq: A) -> Result<Vec<String>, A::Error> {
    let mut words = Vec::new();
    while let Some(word) = seq.next_element::<String>()? {
        words.push(word);
    }
    Ok(words)
}

/// One setting as a target file writes it: the flags added for each of its values
/// (`[--allow, "{value}"]`), or the word of the command its values replace, one
/// word each (`{ replaces: "{allowed}", otherwise: ["{root}"] }`), for a server
/// that takes them as positional arguments. Read with a visitor, as `command` is.
#[derive(Debug)]
enum SettingEntry {
    Flags(Vec<String>),
    InCommand(InCommandEntry),
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct InCommandEntry {
    /// The word of `command` the setting's values take the place of.
    replaces: String,
    /// The words there when a scenario does not set it.
    #[serde(default)]
    otherwise: Vec<String>,
}

impl<'de> Deserialize<'de> for SettingEntry {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct SettingVisitor;

        impl<'de> serde::de::Visitor<'de> for SettingVisitor {
            type Value = SettingEntry;

            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str(
                    "the flags a setting adds (`[--max-bytes, \"{value}\"]`), or the word of `command` it replaces (`{ replaces: \"{allowed}\", otherwise: [\"{root}\"] }`)",
                )
            }

            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                seq: A,
            ) -> Result<SettingEntry, A::Error> {
                words_of(seq).map(SettingEntry::Flags)
            }

            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                map: A,
            ) -> Result<SettingEntry, A::Error> {
                InCommandEntry::deserialize(serde::de::value::MapAccessDeserializer::new(map))
                    .map(SettingEntry::InCommand)
            }
        }

        deserializer.deserialize_any(SettingVisitor)
    }
}

/// A target's settings: those added as flags, and those in place of a word of its
/// command.
type SplitSettings = (BTreeMap<String, Vec<String>>, BTreeMap<String, InCommand>);

/// A setting that replaces a word of the command and cannot.
#[derive(Debug, thiserror::Error)]
enum SettingError {
    /// No word after the program is the one it replaces.
    #[error("setting `{name}` replaces `{word}` in the command, but no word after the program is `{word}`: write it where the values go (`command: [server, \"{word}\"]`)")]
    WordMissing {
        /// The setting.
        name: String,
        /// The word it replaces.
        word: String,
    },
    /// Another setting replaces the same word.
    #[error("settings `{other}` and `{name}` both replace `{word}` in the command")]
    SameWord {
        /// The setting that took the word first.
        other: String,
        /// This setting.
        name: String,
        /// The word.
        word: String,
    },
}

/// The settings as flags and as words of the command; `Err` names a setting whose
/// word is not in `args` (or is the word of another).
fn split_settings(
    entries: BTreeMap<String, SettingEntry>,
    args: &[String],
    with_here: impl Fn(&str) -> String,
) -> Result<SplitSettings, SettingError> {
    let mut flags = BTreeMap::new();
    let mut in_command: BTreeMap<String, InCommand> = BTreeMap::new();
    for (name, entry) in entries {
        match entry {
            SettingEntry::Flags(words) => {
                flags.insert(name, words.iter().map(|w| with_here(w)).collect());
            }
            SettingEntry::InCommand(entry) => {
                let word = with_here(&entry.replaces);
                if !args.contains(&word) {
                    return Err(SettingError::WordMissing { name, word });
                }
                if let Some((other, _)) = in_command.iter().find(|(_, at)| at.word == word) {
                    return Err(SettingError::SameWord {
                        other: other.clone(),
                        name,
                        word,
                    });
                }
                in_command.insert(
                    name,
                    InCommand {
                        word,
                        otherwise: entry.otherwise.iter().map(|w| with_here(w)).collect(),
                    },
                );
            }
        }
    }
    Ok((flags, in_command))
}

/// Reads a target file; relative paths in it are relative to the file.
pub fn load_target_file(path: &Path) -> Result<Target, LoadError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| LoadError::new(path, None, format!("cannot read: {e}")))?;
    target_from_text(path, &text)
}

/// A target from the text of the target file at `path` (which places `{here}` and
/// a relative `baseline_file`).
pub(crate) fn target_from_text(path: &Path, text: &str) -> Result<Target, LoadError> {
    let file: TargetFile = parse_yaml_str(path, text)?;
    if file.sandbox {
        eprintln!(
            "note: {}: `sandbox: true` does nothing now: every server is isolated unless its \
             `isolation:` section or --no-isolation says otherwise",
            path.display()
        );
    }
    let here = target_file_folder(path);
    let here_text = here.to_string_lossy().into_owned();
    let with_here = |s: &str| s.replace("{here}", &here_text);
    let words = match &file.command {
        Command::Words(w) => w.clone(),
        Command::Line(line) => shell_words::split(line)
            .map_err(|e| LoadError::new(path, None, format!("`command` cannot be split: {e}")))?,
    };
    let words: Vec<String> = words.iter().map(|w| with_here(w)).collect();
    let Some((program, args)) = words.split_first() else {
        return Err(LoadError::new(
            path,
            None,
            "`command` is empty: give the server's command line",
        ));
    };
    let mut baseline: BTreeSet<String> = file.baseline.iter().cloned().collect();
    if let Some(list) = &file.baseline_file {
        let list_path = here.join(with_here(list));
        let text = read_baseline_file(&list_path).map_err(|why| {
            LoadError::new(
                path,
                None,
                format!("cannot read baseline_file {}: {why}", list_path.display()),
            )
        })?;
        baseline.extend(read_baseline_lines(&text));
    }
    let limits = file
        .isolation
        .limits
        .limits()
        .map_err(|why| LoadError::new(path, None, why.to_string()))?;
    let (settings, in_command) = split_settings(file.settings, args, with_here)
        .map_err(|why| LoadError::new(path, None, why.to_string()))?;
    Ok(Target {
        name: file.name.clone().unwrap_or_else(|| program.clone()),
        program: PathBuf::from(program),
        args: args.to_vec(),
        url: file.url.clone(),
        env: file
            .env
            .iter()
            .map(|(k, v)| (k.clone(), with_here(v)))
            .collect(),
        settings,
        in_command,
        tools: file.tools,
        arguments: file.arguments,
        baseline,
        require_all_tools: file.require_all_tools,
        start_timeout_ms: file.start_timeout_ms,
        skip_stdout_noise: file.skip_stdout_noise,
        pins: file.suites,
        isolation: Isolation {
            enabled: true,
            writable: file
                .isolation
                .writable
                .iter()
                .map(|w| here.join(with_here(w)))
                .collect(),
            keep_home: file.isolation.keep_home,
            allow_network: file.isolation.allow_network,
            readable: vec![here.clone()],
            pass_env: file.isolation.pass_env.clone(),
            limits,
            read: file
                .isolation
                .read
                .iter()
                .map(|r| here.join(with_here(r)))
                .collect(),
        },
    })
}

/// The folder of a target file, as an absolute path: the server is started in each
/// fixture root, so a `{here}` relative to toolspec's own folder would miss there.
fn target_file_folder(path: &Path) -> PathBuf {
    let folder = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::canonicalize(&folder).unwrap_or(folder)
}

/// The most bytes a baseline list may hold: hundreds of thousands of scenario ids,
/// and a bound, so that `baseline_file: /dev/zero` is refused rather than read
/// until memory runs out.
const MAX_BASELINE_BYTES: u64 = 16 * 1024 * 1024;

/// The text of a baseline list: a regular file of UTF-8 text, at most
/// [`MAX_BASELINE_BYTES`]. Opened without blocking, so a FIFO is refused instead
/// of waiting for a writer.
fn read_baseline_file(path: &Path) -> Result<String, BaselineFileError> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;

    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)?;
    let kind = file.metadata()?.file_type();
    if !kind.is_file() {
        return Err(BaselineFileError::NotAFile);
    }
    let mut bytes = Vec::new();
    file.take(MAX_BASELINE_BYTES + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_BASELINE_BYTES {
        return Err(BaselineFileError::TooLarge);
    }
    String::from_utf8(bytes).map_err(|_| BaselineFileError::NotText)
}

/// Why a baseline list cannot be read; said after its path.
#[derive(Debug, thiserror::Error)]
enum BaselineFileError {
    /// Opening, asking about or reading it failed.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// A folder, a FIFO, a device.
    #[error("it is not a regular file")]
    NotAFile,
    /// Longer than any list of scenario ids.
    #[error("it holds more than {MAX_BASELINE_BYTES} bytes, more than any list of scenario ids")]
    TooLarge,
    /// Bytes that are not UTF-8.
    #[error("it is not UTF-8 text")]
    NotText,
}

/// Scenario ids from a baseline list: one per line; blank lines and lines starting
/// with `#` are ignored (a `#` inside a line belongs to the scenario's name).
pub(super) fn read_baseline_lines(text: &str) -> impl Iterator<Item = String> + '_ {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_string)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::{read_baseline_lines, target_file_folder, target_from_text, Limits};
    use std::path::Path;

    #[test]
    fn here_is_absolute_even_for_a_relative_target_path() {
        let here = target_file_folder(Path::new("src/server/target_file.rs"));
        assert!(here.is_absolute(), "{}", here.display());
        assert!(here.ends_with("src/server"));
        assert!(target_file_folder(Path::new("target.yaml")).is_absolute());
    }

    #[test]
    fn a_command_word_written_as_a_number_is_a_word() {
        let file: super::TargetFile = crate::scenario::parse_yaml_str(
            Path::new("t.yaml"),
            "command: [server, --port, 8080, \"{root}\"]\n",
        )
        .expect("a number is a word");
        match file.command {
            super::Command::Words(words) => {
                assert_eq!(words, ["server", "--port", "8080", "{root}"])
            }
            super::Command::Line(line) => panic!("read as a line: {line}"),
        }
        let refused = crate::scenario::parse_yaml_str::<super::TargetFile>(
            Path::new("t.yaml"),
            "command: { program: server }\n",
        )
        .expect_err("a map is no command line");
        assert!(refused.message.contains("a list of words"), "{refused}");
    }

    /// A server that takes its allowed folders as positional arguments: a setting
    /// replaces one word of its command, one word a value, or gives the words it
    /// says otherwise; flags of other settings still come after.
    #[test]
    fn a_setting_can_replace_a_word_of_the_command_one_word_a_value() {
        let target = target_from_text(
            Path::new("t.yaml"),
            "command: [fs-server, --verbose, \"{allowed}\", --last]\nsettings:\n  allow: { replaces: \"{allowed}\", otherwise: [\"{root}\"] }\n  max: [--max, \"{value}\"]\n",
        )
        .expect("a target");
        assert!(target.expresses("allow") && target.expresses("max"));
        assert!(!target.expresses("other"));
        let root = Path::new("/r");
        let argv = |wanted: serde_json::Value| {
            let wanted: BTreeMap<String, serde_json::Value> =
                serde_json::from_value(wanted).expect("settings");
            target.argv(root, None, &wanted).expect("expressible")
        };
        assert_eq!(argv(serde_json::json!({})), ["--verbose", "/r", "--last"]);
        assert_eq!(
            argv(serde_json::json!({ "allow": ["{root}/ok", "{root}/also"], "max": 3 })),
            ["--verbose", "/r/ok", "/r/also", "--last", "--max", "3"]
        );
        assert_eq!(
            argv(serde_json::json!({ "allow": "{root}/one" })),
            ["--verbose", "/r/one", "--last"]
        );
        // Set to nothing, nothing is there: the server is allowed no folder.
        assert_eq!(
            argv(serde_json::json!({ "allow": [] })),
            ["--verbose", "--last"]
        );
    }

    #[test]
    fn a_setting_that_replaces_a_word_the_command_lacks_is_refused_by_name() {
        let refused = target_from_text(
            Path::new("t.yaml"),
            "command: [fs-server, \"{root}\"]\nsettings:\n  allow: { replaces: \"{allowed}\" }\n",
        )
        .expect_err("no such word");
        assert!(
            refused
                .message
                .contains("setting `allow` replaces `{allowed}`"),
            "{refused}"
        );
        let twice = target_from_text(
            Path::new("t.yaml"),
            "command: [fs-server, \"{a}\"]\nsettings:\n  one: { replaces: \"{a}\" }\n  two: { replaces: \"{a}\" }\n",
        )
        .expect_err("one word, two settings");
        assert!(twice.message.contains("both replace `{a}`"), "{twice}");
        let unknown = target_from_text(
            Path::new("t.yaml"),
            "command: [fs-server, \"{a}\"]\nsettings:\n  one: { replace: \"{a}\" }\n",
        )
        .expect_err("a misspelt key");
        assert!(unknown.message.contains("replace"), "{unknown}");
    }

    /// A baseline list is read only if it is a regular file, and only so far: a
    /// device that never ends or a FIFO with no writer is refused at once.
    #[test]
    fn a_baseline_file_that_is_not_a_regular_file_is_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        let fifo = dir.path().join("fifo");
        let c_path = std::ffi::CString::new(fifo.to_str().expect("a UTF-8 path")).expect("a path");
        // SAFETY: mkfifo reads a NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) }, 0);
        for list in ["/dev/zero", "fifo", "."] {
            let refused = super::target_from_text(
                &dir.path().join("t.yaml"),
                &format!("command: [server]\nbaseline_file: {list}\n"),
            )
            .expect_err("not a list of ids");
            assert!(
                refused.message.contains("it is not a regular file"),
                "{list}: {refused}"
            );
        }
    }

    #[test]
    fn only_whole_lines_are_comments() {
        let ids: Vec<String> =
            read_baseline_lines("# header\n\n  boris::a::Case #2  \nboris::b::c\n").collect();
        assert_eq!(ids, ["boris::a::Case #2", "boris::b::c"]);
    }

    #[test]
    fn limits_read_numbers_sizes_and_none_and_name_a_bad_one() {
        let target = |limits: &str| {
            target_from_text(
                Path::new("t.yaml"),
                &format!("command: [srv]\nisolation:\n  limits: {limits}\n"),
            )
        };
        let read = target("{ pids: 64, memory: 512MiB, file_size: none }").expect("target");
        assert_eq!(read.isolation.limits.pids, Some(64));
        assert_eq!(read.isolation.limits.memory_bytes, Some(512 << 20));
        assert_eq!(read.isolation.limits.file_bytes, None);
        let defaults = target("{ pids: 2G }").expect("target");
        assert_eq!(defaults.isolation.limits.pids, Some(2 << 30));
        assert_eq!(
            defaults.isolation.limits.memory_bytes,
            Limits::default().memory_bytes
        );
        let refused = target("{ memory: 2 parsecs }").expect_err("refused");
        assert!(
            refused.to_string().contains("isolation.limits.memory"),
            "{refused}"
        );
    }
}
