//! The typed shape of suite and scenario files.
//!
//! Every struct rejects unknown keys: a typo in a spec checker must never turn an
//! expectation into a silently ignored key. Keys that accept two shapes (a file given
//! as a string or as a map, `when` as one call or a list) use small visitors instead of
//! `#[serde(untagged)]`, so that an error inside the map still names the bad key.

use std::collections::BTreeMap;
use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::Value;

use super::pattern::{check_syntax, Pattern};
use super::sorted_map::SortedMap;

/// `specs/<suite>/suite.yaml`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SuiteFile {
    /// Must equal the folder name, so a copied file cannot pose as another suite.
    pub suite: String,
    pub title: String,
    /// How results are read: which text is an error and where its code is. The key
    /// is `dialect` in `suite.yaml`.
    #[serde(rename = "dialect")]
    pub convention: Convention,
    /// How the bundled reference server is started for this suite. A suite of
    /// one's own (one `toolspec record` made) has none: it runs only against a
    /// server given with `--server` or `--target`.
    #[serde(default)]
    pub reference: Option<ServerLaunch>,
    /// Per-call timeout in milliseconds unless a scenario overrides it.
    #[serde(default = "default_call_timeout_ms")]
    pub call_timeout_ms: u64,
    /// How long the server may take to start and answer `initialize`, in
    /// milliseconds, when that is longer than a call may take (never less than
    /// the call timeout, which is the start's when this is absent). `record`
    /// writes three times the start it measured here when a start is slow; a
    /// target file's `start_timeout_ms` wins over it.
    #[serde(default)]
    pub start_timeout_ms: Option<u64>,
    /// The tool arguments a shell runs, by tool (`bash: [command]`): a value filled
    /// into one of them must be quoted for the shell (`{root:sh}`), which loading
    /// checks.
    #[serde(default)]
    pub shell_commands: BTreeMap<String, Vec<String>>,
    /// The tools the spec defines, by the suite's names. A server that does not list
    /// one of them does not implement that part of the spec: the scenarios calling
    /// it are UNSUPPORTED rather than failed. Calls to tools not named here (an
    /// unknown tool, on purpose) are judged as usual.
    #[serde(default)]
    pub tools: Vec<String>,
    /// The suite's version: raised whenever a scenario is added or sharpened, so a
    /// gate can pin the version it last passed (`suites:` in a target file).
    #[serde(default = "first_version")]
    pub version: u32,
    /// How long one scenario may run in all, in milliseconds, from its fixture to
    /// its verdict: each call has its own timeout, but many slow calls, or a server
    /// that keeps a session busy, must not hold a run up without end.
    #[serde(default = "default_scenario_timeout_ms")]
    pub scenario_timeout_ms: u64,
    /// When a server of this suite is meant to stay inside its root: then any
    /// scenario with places beside the root (`given.outside`) is judged for
    /// escapes too (`docs/confinement.md`). A suite without it confines nothing.
    #[serde(default)]
    pub confinement: Option<SuiteConfinement>,
}

/// `confinement:` in `suite.yaml`: whether the suite's program confines its tools
/// to the root by default, or when one of some settings is given (boris's
/// `allow`). Only the settings a scenario gives count, never the target's
/// command line.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SuiteConfinement {
    #[serde(default)]
    pub always: bool,
    #[serde(default)]
    pub when_settings: Vec<String>,
}

impl SuiteConfinement {
    /// Whether a server given `settings` is meant to stay inside its root.
    pub(crate) fn confines(&self, settings: &BTreeMap<String, Value>) -> bool {
        self.always || self.when_settings.iter().any(|s| settings.contains_key(s))
    }
}

impl SuiteFile {
    /// Whether a server given `settings` is meant to stay inside its root.
    pub(crate) fn confines(&self, settings: &BTreeMap<String, Value>) -> bool {
        self.confinement
            .as_ref()
            .is_some_and(|c| c.confines(settings))
    }
}

impl SuiteFile {
    /// The settings the suite's scenarios may give (`given.settings`): those the
    /// reference server has a flag for; none for a suite without one.
    pub(crate) fn settings(&self) -> &BTreeMap<String, Vec<String>> {
        static NONE: BTreeMap<String, Vec<String>> = BTreeMap::new();
        self.reference.as_ref().map_or(&NONE, |r| &r.settings)
    }
}

fn first_version() -> u32 {
    1
}

fn default_call_timeout_ms() -> u64 {
    10_000
}

fn default_scenario_timeout_ms() -> u64 {
    60_000
}

/// The result conventions toolspec knows how to read. How each is read lives with
/// the judge (`judge::convention`); what the model itself needs to know is here.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Convention {
    BracketCode,
    Plain,
    JsonErrorEnvelope,
    JsonResultEnvelope,
}

/// A `dialect:` (or `--convention`) that names no result convention.
#[derive(Debug, thiserror::Error)]
#[error(
    "no result convention `{name}`; the conventions are: {}",
    Convention::names()
)]
pub(crate) struct UnknownConvention {
    /// The name given.
    pub name: String,
}

impl Convention {
    /// Every convention, by the name `dialect:` gives it.
    pub(crate) const NAMED: [(&'static str, Convention); 4] = [
        ("bracket-code", Convention::BracketCode),
        ("plain", Convention::Plain),
        ("json-error-envelope", Convention::JsonErrorEnvelope),
        ("json-result-envelope", Convention::JsonResultEnvelope),
    ];

    /// The convention named `name` (as `dialect:` writes it), or why not: the
    /// names there are.
    pub(crate) fn named(name: &str) -> Result<Convention, UnknownConvention> {
        Convention::NAMED
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, c)| *c)
            .ok_or_else(|| UnknownConvention {
                name: name.to_string(),
            })
    }

    /// The name `dialect:` gives this convention.
    pub(crate) fn dialect_name(self) -> &'static str {
        Convention::NAMED
            .iter()
            .find(|(_, c)| *c == self)
            .map_or("", |(n, _)| n)
    }

    /// Every convention's name, comma-separated, for messages.
    pub(crate) fn names() -> String {
        let names: Vec<&str> = Convention::NAMED.iter().map(|(n, _)| *n).collect();
        names.join(", ")
    }

    /// Whether results of this convention carry machine-readable error codes, so
    /// that a scenario may say `code:`.
    pub(crate) fn has_codes(self) -> bool {
        matches!(
            self,
            Convention::BracketCode | Convention::JsonErrorEnvelope
        )
    }

    /// Whether this convention's texts are JSON, so that expectations read a JSON
    /// object's canonical spelling rather than its bytes (`exact_bytes` aside).
    pub(crate) fn speaks_json(self) -> bool {
        matches!(
            self,
            Convention::JsonErrorEnvelope | Convention::JsonResultEnvelope
        )
    }
}

/// Arguments for a server plus the flags each scenario setting turns into.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ServerLaunch {
    #[serde(default)]
    pub args: Vec<String>,
    /// Setting name -> argument template; `{value}` is replaced by the setting's
    /// value, and a list value repeats the template once per element.
    #[serde(default)]
    pub settings: BTreeMap<String, Vec<String>>,
}

/// One scenario file: the scenarios of one spec requirement.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ScenarioFile {
    pub requirement: String,
    /// Prose for whoever reads the file. It is accepted so that an author can explain
    /// a choice, and not shown in reports (a scenario's own `note:` is).
    #[serde(default)]
    #[allow(dead_code, reason = "read by people, not by the harness")]
    pub note: Option<String>,
    pub scenarios: Vec<Scenario>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Scenario {
    pub name: String,
    /// The spec clause this scenario checks, for coverage reports; or, for a
    /// `basis: upstream` scenario that checks what no clause speaks of,
    /// `upstream/<topic>` ([`UPSTREAM_COVERS`]).
    pub covers: String,
    #[serde(default)]
    pub note: Option<String>,
    #[serde(default)]
    pub given: Given,
    pub when: Calls,
    pub then: Then,
    /// Per-call timeout override in milliseconds.
    #[serde(default)]
    pub timeout_ms: Option<u64>,
    /// Whether the seed says this (`spec`) or only the upstream program does it
    /// (`upstream`, where the seed is silent); reports mark upstream scenarios so a
    /// failure against another implementation is read for what it is.
    #[serde(default)]
    pub basis: Basis,
    /// Conditions the run must meet, or the scenario is skipped with the reason.
    #[serde(default)]
    pub requires: Vec<Requirement>,
    /// The suite version this scenario arrived in (or was last sharpened in): a
    /// target that pins an earlier version sees it as NEW, not as a failed gate.
    #[serde(default = "first_version")]
    pub since: u32,
}

/// The prefix of a `covers:` that names upstream behaviour beyond the documents
/// (`upstream/glob-order`) instead of a clause: coverage lists such topics apart, and
/// only a `basis: upstream` scenario may use one.
pub(crate) const UPSTREAM_COVERS: &str = "upstream/";

/// Where a scenario's expectation comes from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Basis {
    /// The spec document requires it.
    #[default]
    Spec,
    /// The document is silent; the real program behind it does this.
    Upstream,
}

/// A condition of the machine a scenario needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Requirement {
    /// Permission bits hold for the server: it does not run as root with its
    /// capabilities (isolation takes them all), which ignores them, so a mode-000
    /// file would be readable and a "permission denied" scenario could not be set up.
    NonRoot,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Given {
    /// A reusable tree from the repository's `fixtures/` folder, copied first;
    /// `files` are laid over it.
    #[serde(default)]
    pub tree: Option<String>,
    #[serde(default)]
    pub files: SortedMap<FileSpec>,
    /// Server settings this scenario needs; a target that cannot express one skips it.
    #[serde(default)]
    pub settings: BTreeMap<String, Value>,
    /// Set-up calls: made before `when`, answers not judged.
    #[serde(default)]
    pub calls: Vec<Call>,
    /// Places outside the root, each file holding a canary: a server confined to
    /// the root that reads or changes one has escaped (`docs/confinement.md`).
    #[serde(default)]
    pub outside: Option<Outside>,
}

/// The folder of a fixture's root in its temporary folder, and of the places
/// beside it: `{outside}`, and `{root}<suffix>` (`root_evil`).
pub(crate) const ROOT_FOLDER: &str = "root";
/// The folder beside the root that `{outside}` names.
pub(crate) const OUTSIDE_FOLDER: &str = "outside";
/// The start of the name of the file toolspec adds to every outside folder, whose
/// name is a canary (a listing or a glob that leaks it is a read escape); no
/// entry of a scenario's may start so.
pub(crate) const CANARY_NAME_START: &str = "canary-";

/// One `given.outside` path, read: the folder beside the root it is in, the path
/// below that folder (empty for the folder itself), and whether it is a folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct OutsideEntry<'a> {
    /// `outside`, or `root` and a suffix (`root_evil`).
    pub place: String,
    pub below: &'a str,
    pub folder: bool,
}

impl Outside {
    /// Every entry read, or what is wrong with the first bad one.
    pub(crate) fn entries(&self) -> Result<Vec<OutsideEntry<'_>>, OutsideError> {
        self.files.iter().map(|f| outside_entry(f)).collect()
    }
}

/// What is wrong with a `given.outside` path; each message starts with the path.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum OutsideError {
    /// `{root}` followed by no suffix, or a suffix too long or of other characters.
    #[error("`{text}`: after `{{root}}` comes a suffix of 1 to 32 letters, digits, `.`, `_` or `-` (`{{root}}_evil/secret.txt`): a sibling of the root named like it; a path inside the root belongs in given.files")]
    BadSuffix {
        /// The path as written.
        text: String,
    },
    /// An absolute path.
    #[error("`{text}`: give a path relative to `{{outside}}` (or starting `{{root}}_suffix/`); toolspec makes these places beside the root, never elsewhere")]
    Absolute {
        /// The path as written.
        text: String,
    },
    /// An empty, `.` or `..` step, or one with a placeholder.
    #[error("`{text}`: `{part}` cannot be a step of an outside path (no empty, `.` or `..` steps, no placeholders)")]
    BadStep {
        /// The path as written.
        text: String,
        /// The step.
        part: String,
    },
    /// A name toolspec keeps for its canary file.
    #[error("`{text}`: a name starting `{CANARY_NAME_START}` is kept for the file toolspec adds to every outside folder")]
    CanaryName {
        /// The path as written.
        text: String,
    },
}

/// Reads one `given.outside` path: relative to `{outside}`, or starting
/// `{root}<suffix>` where the suffix is one to 32 letters, digits, `.`, `_` or
/// `-` (a sibling named like the root, which a check by string prefix admits).
pub(crate) fn outside_entry(text: &str) -> Result<OutsideEntry<'_>, OutsideError> {
    let (place, below) = match text.strip_prefix("{root}") {
        Some(rest) => {
            let (suffix, below) = rest.split_once('/').unwrap_or((rest, ""));
            let fine = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-');
            if suffix.is_empty() || suffix.len() > 32 || !suffix.chars().all(fine) {
                return Err(OutsideError::BadSuffix {
                    text: text.to_string(),
                });
            }
            (format!("{ROOT_FOLDER}{suffix}"), below)
        }
        None => (OUTSIDE_FOLDER.to_string(), text),
    };
    let folder = below.is_empty() || below.ends_with('/');
    let trimmed = below.trim_end_matches('/');
    if text.starts_with('/') {
        return Err(OutsideError::Absolute {
            text: text.to_string(),
        });
    }
    for part in trimmed.split('/').filter(|_| !trimmed.is_empty()) {
        if part.is_empty() || part == "." || part == ".." || part.contains(['{', '}', '\0']) {
            return Err(OutsideError::BadStep {
                text: text.to_string(),
                part: part.to_string(),
            });
        }
        if part.starts_with(CANARY_NAME_START) {
            return Err(OutsideError::CanaryName {
                text: text.to_string(),
            });
        }
    }
    Ok(OutsideEntry {
        place,
        below: trimmed,
        folder,
    })
}

/// `given.outside`: files and folders toolspec makes beside the root (in
/// `{outside}`, or in a sibling named like the root with a suffix, `{root}_evil`),
/// each file holding a canary of its own, and removes with the fixture.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Outside {
    /// Paths relative to `{outside}`, or starting `{root}<suffix>/`; one that ends
    /// in `/` is a folder.
    pub files: Vec<String>,
    /// Whether the server may write there (through its view and Landlock), so a
    /// write that escapes can happen and be seen; read-only otherwise.
    #[serde(default)]
    pub writable: bool,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Call {
    pub tool: String,
    #[serde(default)]
    pub args: SortedMap<Value>,
    /// Make the same call this many times (set-up only).
    #[serde(default = "one")]
    pub repeat: u32,
    /// Values taken from this call's result text for later calls and expectations
    /// (`{name}`): a value a server chooses, such as a task id, cannot be written
    /// in the scenario.
    #[serde(default)]
    pub capture: BTreeMap<String, CaptureRegex>,
}

/// A `capture:` regex, checked while the file is read (syntax, and exactly one
/// capture group: the value taken) and compiled when a selected scenario first
/// makes the call (`scenario/pattern.rs`).
#[derive(Debug, Clone)]
pub(crate) struct CaptureRegex(pub Pattern);

impl<'de> Deserialize<'de> for CaptureRegex {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        let groups = check_syntax(&text).map_err(|e| {
            de::Error::custom(format!("capture `{text}` is not a valid regex: {e}"))
        })?;
        if groups != 1 {
            return Err(de::Error::custom(format!(
                "capture `{text}` must have exactly one capture group, the value taken; it has {groups} (group with `(?:...)`)"
            )));
        }
        Ok(CaptureRegex(Pattern::unchecked(text)))
    }
}

fn one() -> u32 {
    1
}

/// `when`: one call or a list of calls; `then` judges the last.
#[derive(Debug, Clone)]
pub(crate) struct Calls(pub Vec<Call>);

/// A fixture entry: plain text, or a map with exactly one content kind.
#[derive(Debug, Clone)]
pub(crate) enum FileSpec {
    Text(String),
    /// Boxed: most entries are text, and a map of entries holds room for several
    /// values at a time, each as large as the largest variant.
    Detailed(Box<FileDetail>),
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct FileDetail {
    pub text: Option<String>,
    /// Hex-encoded bytes, whitespace allowed.
    pub bytes: Option<HexBytes>,
    /// A file of this many bytes, repeating `fill` (default `a`).
    pub size: Option<u64>,
    pub fill: Option<String>,
    #[serde(default)]
    pub dir: bool,
    pub symlink: Option<String>,
    /// Octal permission bits such as `"644"` or `"000"`.
    pub mode: Option<FileMode>,
    /// Modification time in seconds relative to now (negative is the past).
    pub mtime: Option<i64>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Then {
    pub is_error: Option<bool>,
    pub code: Option<String>,
    pub text: Option<String>,
    /// The text's lines, in any order, are exactly these (each a one-line
    /// template): for a listing whose document does not fix its order.
    #[serde(default)]
    pub lines_in_any_order: Option<Vec<String>>,
    #[serde(default)]
    pub contains: Vec<String>,
    #[serde(default)]
    pub not_contains: Vec<String>,
    #[serde(default)]
    pub matches: Vec<Pattern>,
    /// The result text parsed as JSON must contain this value (subset match).
    #[serde(default)]
    pub json: Option<Value>,
    /// The call must be answered with a JSON-RPC error instead of a tool result.
    #[serde(default)]
    pub protocol_error: Option<ProtocolErrorExpect>,
    /// What the server's `tools/list` says after the call (same session).
    #[serde(default)]
    pub listed_tools: Option<ListedTools>,
    #[serde(default)]
    pub files: BTreeMap<String, FileExpect>,
    /// Alternatives, each a `then` of its own: the call passes when at least one
    /// holds. For a reading the seed leaves open (a JSON-RPC error or an error
    /// result), so a scenario accepts both instead of taking a side. Keys beside
    /// `any_of` hold whichever branch does.
    #[serde(default)]
    pub any_of: Option<Vec<Then>>,
    /// In a JSON dialect, judge the result text as it came instead of its
    /// canonical spelling (`judge::json_text`): for a scenario about the bytes
    /// themselves, which says why in its `note:`.
    #[serde(default)]
    pub exact_bytes: bool,
}

impl Then {
    /// Whether any expectation is about the call's tool result (as opposed to files,
    /// or to a JSON-RPC error).
    pub(crate) fn judges_the_result(&self) -> bool {
        self.is_error.is_some()
            || self.code.is_some()
            || self.text.is_some()
            || self.lines_in_any_order.is_some()
            || !self.contains.is_empty()
            || !self.not_contains.is_empty()
            || !self.matches.is_empty()
            || self.json.is_some()
    }

    /// Whether this `then` (or a branch of it) expects anything at all.
    pub(crate) fn checks_something(&self) -> bool {
        self.judges_the_result()
            || !self.files.is_empty()
            || self.protocol_error.is_some()
            || self.listed_tools.is_some()
            || !self.branches().is_empty()
    }

    /// The branches of `any_of`; none when the key is absent.
    pub(crate) fn branches(&self) -> &[Then] {
        self.any_of.as_deref().unwrap_or_default()
    }
}

/// Tools that `tools/list` must name, and tools it must not (hidden ones).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ListedTools {
    #[serde(default)]
    pub include: Vec<String>,
    #[serde(default)]
    pub exclude: Vec<String>,
}

/// `protocol_error: true`, or a map that also fixes the JSON-RPC error code and
/// strings its message must contain (the parameter a refusal names).
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct ProtocolErrorExpect {
    pub code: Option<i64>,
    pub contains: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ProtocolErrorDetail {
    code: Option<i64>,
    #[serde(default)]
    contains: Vec<String>,
}

impl<'de> Deserialize<'de> for ProtocolErrorExpect {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct TrueOrMap;
        impl<'de> Visitor<'de> for TrueOrMap {
            type Value = ProtocolErrorExpect;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str(
                    "`true`, or a map with `code` (the JSON-RPC error code) and/or `contains`",
                )
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
                if v {
                    Ok(ProtocolErrorExpect::default())
                } else {
                    Err(E::custom(
                        "`protocol_error: false` says nothing; leave the key out",
                    ))
                }
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                let detail =
                    ProtocolErrorDetail::deserialize(de::value::MapAccessDeserializer::new(map))?;
                Ok(ProtocolErrorExpect {
                    code: detail.code,
                    contains: detail.contains,
                })
            }
        }
        d.deserialize_any(TrueOrMap)
    }
}

/// What a file must be after the call: exact text, or a map of checks.
#[derive(Debug, Clone)]
pub(crate) enum FileExpect {
    Text(String),
    Detailed(FileExpectDetail),
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct FileExpectDetail {
    #[serde(default)]
    pub absent: bool,
    #[serde(default)]
    pub unchanged: bool,
    pub text: Option<String>,
    #[serde(default)]
    pub contains: Vec<String>,
}

/// Deserializes a string into `S` or a map into `M`, keeping the map's own errors.
struct StringOrMap<T, M> {
    from_str: fn(String) -> T,
    from_map: fn(M) -> T,
    expecting: &'static str,
    marker: PhantomData<M>,
}

impl<'de, T, M: Deserialize<'de>> Visitor<'de> for StringOrMap<T, M> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(self.expecting)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<T, E> {
        Ok((self.from_str)(v.to_owned()))
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
        M::deserialize(de::value::MapAccessDeserializer::new(map)).map(self.from_map)
    }
}

impl<'de> Deserialize<'de> for FileSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(StringOrMap {
            from_str: FileSpec::Text,
            from_map: |detail| FileSpec::Detailed(Box::new(detail)),
            expecting: "file text, or a map with one of text, bytes, size, dir, symlink",
            marker: PhantomData,
        })
    }
}

impl<'de> Deserialize<'de> for FileExpect {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(StringOrMap {
            from_str: FileExpect::Text,
            from_map: FileExpect::Detailed,
            expecting: "the exact text, or a map with absent, unchanged, text or contains",
            marker: PhantomData,
        })
    }
}

impl<'de> Deserialize<'de> for Calls {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct OneOrMany;
        impl<'de> Visitor<'de> for OneOrMany {
            type Value = Calls;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a call {tool, args} or a list of calls")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Calls, A::Error> {
                Call::deserialize(de::value::MapAccessDeserializer::new(map))
                    .map(|c| Calls(vec![c]))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Calls, A::Error> {
                let mut calls = Vec::new();
                while let Some(call) = seq.next_element::<Call>()? {
                    calls.push(call);
                }
                if calls.is_empty() {
                    return Err(de::Error::custom("`when` needs at least one call"));
                }
                Ok(Calls(calls))
            }
        }
        d.deserialize_any(OneOrMany)
    }
}

/// File content given as hex digits in the scenario (`bytes: "00 ff 0a"`), decoded
/// while the file is read, so a bad digit is refused at its line and nothing later
/// has to parse it again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct HexBytes(pub Vec<u8>);

impl<'de> Deserialize<'de> for HexBytes {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        decode_hex(&text).map(HexBytes).map_err(de::Error::custom)
    }
}

/// Permission bits given in octal (`mode: "644"`, or `"0o600"`), parsed while the
/// file is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FileMode(pub u32);

impl<'de> Deserialize<'de> for FileMode {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        parse_mode(&text).map(FileMode).map_err(de::Error::custom)
    }
}

/// Why `bytes:` is not hex.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
enum HexError {
    /// A digit without its pair.
    #[error("`bytes` has an odd number of hex digits: {0:?}")]
    OddDigits(String),
    /// A character that is not a hex digit.
    #[error("`bytes` is not hex: {0:?}")]
    NotHex(String),
}

/// A `mode:` that is not octal permission bits.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
#[error("`mode` must be octal like \"644\", not {0:?}")]
struct ModeError(String);

/// Decodes hex digits, ignoring whitespace: `"00 ff 0a"`.
fn decode_hex(text: &str) -> Result<Vec<u8>, HexError> {
    let digits: Vec<u8> = text.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
    if !digits.len().is_multiple_of(2) {
        return Err(HexError::OddDigits(text.to_string()));
    }
    digits
        .chunks(2)
        .map(|pair| {
            std::str::from_utf8(pair)
                .ok()
                .and_then(|s| u8::from_str_radix(s, 16).ok())
                .ok_or_else(|| HexError::NotHex(text.to_string()))
        })
        .collect()
}

/// Parses octal permission bits such as `"644"` or `"0o600"`.
fn parse_mode(text: &str) -> Result<u32, ModeError> {
    let digits = text.trim_start_matches("0o");
    u32::from_str_radix(digits, 8)
        .ok()
        .filter(|m| *m <= 0o7777)
        .ok_or_else(|| ModeError(text.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_bad_hex_and_modes() {
        assert!(decode_hex("0").is_err());
        assert!(decode_hex("zz").is_err());
        assert_eq!(decode_hex("00 ff\n0a"), Ok(vec![0, 0xff, 0x0a]));
        assert!(parse_mode("999").is_err());
        assert_eq!(parse_mode("0o644"), Ok(0o644));
    }
}
