//! Checks a parsed scenario file for mistakes the YAML shape cannot express, so that
//! a scenario that could never fail, or could never run, is refused before any server
//! starts.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Component, Path, PathBuf};

use super::error::{find_line, LoadError};
use super::model::{
    Basis, Call, FileDetail, FileExpect, FileSpec, Scenario, ScenarioFile, SuiteFile, Then,
    UPSTREAM_COVERS,
};
use super::pattern::{check_syntax, Pattern};
use super::placeholders::{captures_used, check_capture_name, unquoted_values, Bindings};
use super::sorted_map::SortedMap;

/// Every problem in `file`, each with the line of the scenario it belongs to.
pub(crate) fn validate_file(
    suite: &SuiteFile,
    fixtures_dir: &Path,
    file: &ScenarioFile,
    path: &Path,
    source: &str,
) -> Vec<LoadError> {
    let mut errors = Vec::new();
    if file.scenarios.is_empty() {
        errors.push(LoadError::new(
            path,
            find_line(source, "scenarios:"),
            "`scenarios` is empty: add at least one scenario or delete the file",
        ));
    }
    let mut names = BTreeSet::new();
    for scenario in &file.scenarios {
        // Searched for only when there is a problem to place: a file of many
        // scenarios would otherwise be searched once per scenario.
        let line = || {
            find_line(source, &format!("name: {}", scenario.name))
                .or_else(|| find_line(source, &scenario.name))
        };
        let mut fail = |message: String| {
            errors.push(LoadError::new(
                path,
                line(),
                format!("scenario `{}`: {message}", scenario.name),
            ))
        };
        if scenario.name.trim().is_empty() {
            fail("`name` is empty".into());
        }
        if let Some(why) = id_part_problem(&scenario.name) {
            fail(format!("the name {why}"));
        }
        if !names.insert(scenario.name.clone()) {
            fail("another scenario in this file has the same name; names must be unique".into());
        }
        if scenario.covers.trim().is_empty() {
            fail("`covers` is empty: name the spec clause this scenario checks".into());
        }
        if scenario.since == 0 || scenario.since > suite.version {
            fail(format!(
                "`since: {}` is not a version of this suite (1 to its `version: {}`); raise the suite's version when adding a scenario",
                scenario.since, suite.version
            ));
        }
        if let Some(problem) = upstream_cover_problem(scenario) {
            fail(problem);
        }
        if let Some(tree) = &scenario.given.tree {
            if let Err(p) = check_tree(fixtures_dir, tree) {
                fail(p.to_string());
            }
        }
        for message in scenario_problems(suite, fixtures_dir, scenario) {
            fail(message);
        }
    }
    errors
}

fn scenario_problems(suite: &SuiteFile, fixtures_dir: &Path, scenario: &Scenario) -> Vec<String> {
    let mut problems = Vec::new();
    for (name, spec) in &scenario.given.files {
        if let Err(p) = check_relative(name) {
            problems.push(format!("given.files `{name}`: {p}"));
        }
        if let FileSpec::Detailed(detail) = spec {
            if let Err(p) = check_file_detail(detail) {
                problems.push(format!("given.files `{name}`: {p}"));
            }
        }
    }
    if let Some(outside) = &scenario.given.outside {
        if outside.files.is_empty() {
            problems.push(
                "given.outside: `files` is empty; name at least one file or folder beside the root"
                    .to_string(),
            );
        }
        if let Err(p) = outside.entries() {
            problems.push(format!("given.outside: {p}"));
        }
    }
    let tree = scenario.given.tree.as_ref().map(|t| fixtures_dir.join(t));
    problems.extend(placement_problems(&scenario.given.files, tree.as_deref()));
    for key in scenario.given.settings.keys() {
        if !suite.settings().contains_key(key) {
            let known: Vec<&str> = suite.settings().keys().map(String::as_str).collect();
            problems.push(format!(
                "given.settings `{key}` is not a setting of this suite; known: {}",
                known.join(", ")
            ));
        }
    }
    for call in &scenario.given.calls {
        if call.repeat == 0 {
            problems.push(format!(
                "given.calls `{}`: `repeat` must be at least 1",
                call.tool
            ));
        }
        if call.repeat > MAX_REPEAT {
            problems.push(format!(
                "given.calls `{}`: `repeat: {}` is more than {MAX_REPEAT}",
                call.tool, call.repeat
            ));
        }
    }
    for call in &scenario.when.0 {
        if call.repeat != 1 {
            problems.push(format!(
                "when `{}`: `repeat` is for set-up calls only; list the calls instead",
                call.tool
            ));
        }
    }
    problems.extend(capture_problems(scenario));
    problems.extend(shell_quoting_problems(suite, scenario));
    problems.extend(then_problems(
        suite,
        scenario,
        tree.as_deref(),
        &scenario.then,
    ));
    problems
}

fn then_problems(
    suite: &SuiteFile,
    scenario: &Scenario,
    tree: Option<&Path>,
    then: &Then,
) -> Vec<String> {
    let mut problems = Vec::new();
    match then.any_of.as_deref() {
        Some([]) => problems.push("`any_of` is empty: give at least two branches".into()),
        Some([_]) => problems.push(
            "`any_of` needs at least two branches; with one, write its keys in `then` itself"
                .into(),
        ),
        // A confined server's scenario with places beside its root is judged for
        // escapes (docs/confinement.md): that may be all it checks.
        _ if !(then.checks_something()
            || (scenario.given.outside.is_some()
                && suite.confines(&scenario.given.settings))) =>
        {
            problems.push(
                "`then` checks nothing: add is_error, code, text, contains, matches, json, protocol_error, listed_tools, files or any_of (or, in a suite that confines its server, give places beside the root: the escape check is then its judgement)".into(),
            )
        }
        _ => {}
    }
    problems.extend(expectation_problems(suite, scenario, tree, then, then));
    if then.exact_bytes && !suite.convention.speaks_json() {
        problems.push(
            "`exact_bytes` only applies in a JSON dialect (json-error-envelope, json-result-envelope); this suite's texts are always compared byte for byte".into(),
        );
    }
    if then.exact_bytes && scenario.note.is_none() {
        problems.push(
            "`exact_bytes: true` needs a `note:` saying why the bytes themselves matter".into(),
        );
    }
    for (i, branch) in then.branches().iter().enumerate() {
        let place = format!("any_of[{i}]: ");
        if branch.exact_bytes {
            problems.push(format!(
                "{place}`exact_bytes` goes beside `any_of`, not in a branch"
            ));
        }
        if !branch.checks_something() {
            problems.push(format!(
                "{place}the branch checks nothing, so it would always hold: add is_error, code, text, contains, matches, json, protocol_error or files"
            ));
        }
        if branch.any_of.is_some() {
            problems.push(format!(
                "{place}`any_of` cannot nest; list every alternative in the one `any_of`"
            ));
        }
        if branch.listed_tools.is_some() {
            problems.push(format!(
                "{place}`listed_tools` goes beside `any_of`, not in a branch"
            ));
        }
        problems.extend(
            expectation_problems(suite, scenario, tree, branch, then)
                .into_iter()
                .map(|p| format!("{place}{p}")),
        );
    }
    problems
}

/// The problems of one set of expectations: `then` itself (with `outer` the same
/// `then`) or a branch of its `any_of`, whose keys must also make sense together
/// with those beside the `any_of` in `outer`.
fn expectation_problems(
    suite: &SuiteFile,
    scenario: &Scenario,
    tree: Option<&Path>,
    then: &Then,
    outer: &Then,
) -> Vec<String> {
    let mut problems = Vec::new();
    if let Some(listed) = &then.listed_tools {
        if listed.include.is_empty() && listed.exclude.is_empty() {
            problems.push("`listed_tools` needs `include` or `exclude`".into());
        }
        if let Some(both) = listed.include.iter().find(|t| listed.exclude.contains(t)) {
            problems.push(format!(
                "`listed_tools` both includes and excludes `{both}`"
            ));
        }
    }
    let clash = |a: &Then, b: &Then| a.protocol_error.is_some() && b.judges_the_result();
    if clash(then, then) || clash(then, outer) || clash(outer, then) {
        problems.push(
            "`protocol_error` expects a JSON-RPC error, so there is no tool result for is_error, code, text, contains, matches or json to check; keep one or the other".into(),
        );
    }
    if then.code.is_some() && !suite.convention.has_codes() {
        problems.push(format!(
            "`then.code` cannot be read in dialect {:?}: use text or contains",
            suite.convention
        ));
    }
    for pattern in &then.matches {
        // Checked as it will run: placeholders filled (and escaped) first.
        let mut probe = Bindings::new("/root");
        let pattern = pattern.as_str();
        for name in captures_used(pattern) {
            probe.bind(name, "value");
        }
        // The syntax only: compiling waits until a selected scenario is judged.
        if let Err(e) = check_syntax(&probe.fill_with(pattern, regex::escape)) {
            problems.push(format!(
                "then.matches `{pattern}` is not a valid regex: {e}"
            ));
        }
    }
    for (name, expect) in &then.files {
        if let Err(p) = check_relative(name) {
            problems.push(format!("then.files `{name}`: {p}"));
        }
        let FileExpect::Detailed(d) = expect else {
            continue;
        };
        let kinds = [
            d.absent,
            d.unchanged,
            d.text.is_some(),
            !d.contains.is_empty(),
        ];
        if kinds.iter().filter(|k| **k).count() == 0 {
            problems.push(format!(
                "then.files `{name}`: say one of absent, unchanged, text or contains"
            ));
        }
        if d.absent && kinds.iter().filter(|k| **k).count() > 1 {
            problems.push(format!("then.files `{name}`: `absent` cannot be combined"));
        }
        if d.unchanged {
            let is_content = match scenario.given.files.get(name.as_str()) {
                Some(FileSpec::Text(_)) => true,
                Some(FileSpec::Detailed(detail)) => detail.symlink.is_none() && !detail.dir,
                None => tree.is_some_and(|t| {
                    t.join(name)
                        .symlink_metadata()
                        .is_ok_and(|m| m.file_type().is_file())
                }),
            };
            if !is_content {
                problems.push(format!(
                    "then.files `{name}`: `unchanged` needs `{name}` to be a file in given.files or given.tree"
                ));
            }
        }
    }
    problems
}

/// Capture names that cannot be used, captures on the judged call, and `{name}`s
/// used before (or without) a call that captures them: set-up calls, then `when`,
/// then `then`, in the order they run.
fn capture_problems(scenario: &Scenario) -> Vec<String> {
    let mut problems = Vec::new();
    let mut captured: Vec<&str> = Vec::new();
    let mut check_uses = |place: &str, texts: Vec<&str>, captured: &[&str]| {
        for name in texts.into_iter().flat_map(captures_used) {
            if !captured.contains(&name) {
                let earlier = if captured.is_empty() {
                    "none".to_string()
                } else {
                    captured.join(", ")
                };
                problems.push(format!(
                    "{place} uses `{{{name}}}`, but no earlier call captures `{name}` (captured before it: {earlier})"
                ));
            }
        }
    };
    check_uses(
        "given.settings",
        scenario
            .given
            .settings
            .values()
            .flat_map(json_strings)
            .collect(),
        &captured,
    );
    let (judged, earlier) = scenario.when.0.split_last().expect("`when` has a call");
    let calls = scenario
        .given
        .calls
        .iter()
        .map(|c| ("given.calls", c))
        .chain(earlier.iter().map(|c| ("when", c)));
    let mut name_problems = Vec::new();
    for (section, call) in calls {
        let place = format!("{section} `{}`", call.tool);
        check_uses(&place, call_strings(call), &captured);
        for name in call.capture.keys() {
            if let Err(p) = check_capture_name(name) {
                name_problems.push(format!("{place}: {p}"));
            }
            captured.push(name);
        }
    }
    check_uses(
        &format!("when `{}`", judged.tool),
        call_strings(judged),
        &captured,
    );
    if !judged.capture.is_empty() {
        name_problems.push(format!(
            "when `{}`: `capture` on the judged call has no later call to use it; judge it in `then`",
            judged.tool
        ));
    }
    check_uses("then", then_strings(&scenario.then), &captured);
    problems.extend(name_problems);
    problems
}

/// `{root}` or a capture written unquoted in an argument the suite says a shell
/// runs (`shell_commands`): a root under a `TMPDIR` holding `'` breaks the command,
/// and one holding `$(...)` runs something; `{root:sh}` is one literal word.
fn shell_quoting_problems(suite: &SuiteFile, scenario: &Scenario) -> Vec<String> {
    let calls = scenario
        .given
        .calls
        .iter()
        .map(|c| ("given.calls", c))
        .chain(scenario.when.0.iter().map(|c| ("when", c)));
    let mut problems = Vec::new();
    for (section, call) in calls {
        let Some(shell_args) = suite.shell_commands.get(&call.tool) else {
            continue;
        };
        for arg in shell_args {
            let texts = call.args.get(arg).map(json_strings).unwrap_or_default();
            for name in texts.into_iter().flat_map(unquoted_values) {
                problems.push(format!(
                    "{section} `{}`: argument `{arg}` is run by a shell, so write `{{{name}:sh}}` (the value quoted for the shell), not `{{{name}}}`; unquoted, a value holding `'` or `$(...)` breaks the command or runs its own",
                    call.tool
                ));
            }
        }
    }
    problems.dedup();
    problems
}

fn call_strings(call: &Call) -> Vec<&str> {
    call.args.values().flat_map(json_strings).collect()
}

/// Every string of a JSON value, keys aside.
fn json_strings(value: &serde_json::Value) -> Vec<&str> {
    match value {
        serde_json::Value::String(s) => vec![s.as_str()],
        serde_json::Value::Array(items) => items.iter().flat_map(json_strings).collect(),
        serde_json::Value::Object(map) => map.values().flat_map(json_strings).collect(),
        _ => Vec::new(),
    }
}

/// Every string of `then` (and its branches) that placeholders are filled into.
fn then_strings(then: &Then) -> Vec<&str> {
    let mut texts: Vec<&str> = Vec::new();
    texts.extend(then.code.as_deref());
    texts.extend(then.text.as_deref());
    texts.extend(then.lines_in_any_order.iter().flatten().map(String::as_str));
    for list in [&then.contains, &then.not_contains] {
        texts.extend(list.iter().map(String::as_str));
    }
    texts.extend(then.matches.iter().map(Pattern::as_str));
    texts.extend(then.json.iter().flat_map(json_strings));
    if let Some(want) = &then.protocol_error {
        texts.extend(want.contains.iter().map(String::as_str));
    }
    for expect in then.files.values() {
        match expect {
            FileExpect::Text(text) => texts.push(text),
            FileExpect::Detailed(d) => {
                texts.extend(d.text.as_deref());
                texts.extend(d.contains.iter().map(String::as_str));
            }
        }
    }
    texts.extend(then.branches().iter().flat_map(then_strings));
    texts
}

/// Why a `covers: upstream/<topic>` is refused, if it is. Such a cover says that no
/// clause of the documents speaks of what the scenario checks, which only an upstream
/// scenario can claim: a `basis: spec` scenario must name the clause that requires
/// it. The topic is a slug, so that two spellings of one topic cannot be listed apart.
fn upstream_cover_problem(scenario: &Scenario) -> Option<String> {
    let topic = scenario.covers.strip_prefix(UPSTREAM_COVERS)?;
    if scenario.basis != Basis::Upstream {
        return Some(format!(
            "`covers: {}` names upstream behaviour beyond the spec documents, which only a \
             `basis: upstream` scenario may check; name the clause of the documents this \
             scenario checks, or mark it `basis: upstream` with a `note:` saying what the \
             upstream program does",
            scenario.covers
        ));
    }
    let is_slug = !topic.is_empty()
        && topic.split('-').all(|word| {
            !word.is_empty()
                && word
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        });
    (!is_slug).then(|| {
        format!(
            "`covers: {}`: the topic after `{UPSTREAM_COVERS}` must be lower-case letters and \
             digits in words joined by `-`, such as `{UPSTREAM_COVERS}glob-order`",
            scenario.covers
        )
    })
}

/// Why `part` (a file stem or a scenario name) cannot be part of an id
/// `suite::file::name`, if it cannot: with `::` in it, `x::y.yaml`/`z` and
/// `x.yaml`/`y::z` would share an id, and a line break or other control character
/// would split a baseline line, so a written baseline could not match its own run.
pub(crate) fn id_part_problem(part: &str) -> Option<&'static str> {
    if part.contains("::") {
        Some("contains `::`, which separates the parts of a scenario id")
    } else if part.chars().any(char::is_control) {
        Some(
            "contains a line break or another control character, which a baseline line cannot hold",
        )
    } else {
        None
    }
}

/// A `given.tree` that names no folder of `fixtures/`.
#[derive(Debug, thiserror::Error)]
enum TreeProblem {
    /// A path, not one folder's name.
    #[error("given.tree `{tree}` must be the name of a folder in fixtures/")]
    NotAName {
        /// As written.
        tree: String,
    },
    /// No such folder.
    #[error("given.tree `{tree}` does not exist: no folder {}", folder.display())]
    Missing {
        /// As written.
        tree: String,
        /// The folder looked for.
        folder: PathBuf,
    },
}

fn check_tree(fixtures_dir: &Path, tree: &str) -> Result<(), TreeProblem> {
    let plain = !tree.is_empty() && Path::new(tree).components().count() == 1;
    if !plain || tree == ".." || tree == "." {
        return Err(TreeProblem::NotAName {
            tree: tree.to_string(),
        });
    }
    let folder = fixtures_dir.join(tree);
    if !folder.is_dir() {
        return Err(TreeProblem::Missing {
            tree: tree.to_string(),
            folder,
        });
    }
    Ok(())
}

/// A `given.files` or `then.files` name that does not stay inside the root.
#[derive(Debug, thiserror::Error)]
enum PathProblem {
    /// Empty or absolute.
    #[error("paths are relative to the fixture root")]
    NotRelative,
    /// With a `..` or `.` step.
    #[error("paths may not contain `..` or `.`; fixtures stay inside the root")]
    Dots,
}

fn check_relative(name: &str) -> Result<(), PathProblem> {
    let path = Path::new(name.trim_end_matches('/'));
    if name.is_empty() || path.is_absolute() {
        return Err(PathProblem::NotRelative);
    }
    if path
        .components()
        .any(|c| !matches!(c, Component::Normal(_)))
    {
        return Err(PathProblem::Dots);
    }
    Ok(())
}

/// Entries that cannot be built where they are: below an entry that is a file or a
/// symlink (the fixture is built without following links, so nothing goes inside
/// one), below such an entry of `given.tree`, or naming the same path as another
/// entry (`a` and `a/`).
fn placement_problems(files: &SortedMap<FileSpec>, tree: Option<&Path>) -> Vec<String> {
    let mut problems = Vec::new();
    let mut seen: BTreeMap<&str, &str> = BTreeMap::new();
    for name in files.keys() {
        let path = name.trim_end_matches('/');
        if let Some(other) = seen.insert(path, name) {
            problems.push(format!(
                "given.files `{other}` and `{name}` are the same path; keep one"
            ));
        }
    }
    for name in files.keys() {
        let path = Path::new(name.trim_end_matches('/'));
        for above in path.ancestors().skip(1) {
            let Some(key) = above.to_str().filter(|k| !k.is_empty()) else {
                continue;
            };
            let entry = files.get(key).or_else(|| files.get(&format!("{key}/")));
            let what = match entry {
                Some(FileSpec::Detailed(d)) if d.symlink.is_some() => Some("a symlink entry"),
                Some(FileSpec::Detailed(d)) if d.dir => None,
                Some(_) => Some("a file entry"),
                None => tree.and_then(|t| {
                    let kind = t.join(key).symlink_metadata().ok()?.file_type();
                    if kind.is_symlink() {
                        Some("a symlink in given.tree")
                    } else if kind.is_dir() {
                        None
                    } else {
                        Some("a file in given.tree")
                    }
                }),
            };
            if let Some(what) = what {
                problems.push(format!(
                    "given.files `{name}` is below `{key}`, which is {what}; nothing can be \
                     built inside a file or a link (links are never followed): move `{name}`, \
                     or make `{key}` a directory with `dir: true`"
                ));
                break;
            }
        }
    }
    problems
}

/// The most times one set-up call may be repeated. A scenario that needs more is a
/// load test, not a conformance check, and a typo such as `4294967295` would run
/// practically forever.
const MAX_REPEAT: u32 = 1_000;

/// The largest file `size:` may ask for: a limit test needs only a little more than
/// the limit it tests, and the file takes that much disk in every fixture.
const MAX_FILE_SIZE: u64 = 256 * 1024 * 1024;

/// How far `mtime:` may move a file from now, in seconds: a hundred years either way,
/// which every file system can store.
const MAX_MTIME_OFFSET: u64 = 100 * 365 * 24 * 60 * 60;

/// A detailed `given.files` entry whose keys do not go together, or ask too much.
#[derive(Debug, thiserror::Error)]
enum DetailProblem {
    /// None or more than one kind of entry.
    #[error("give exactly one of text, bytes, size, dir, symlink")]
    Kinds,
    /// A mode for a link.
    #[error("`mode` cannot go with `symlink`: a link has no mode of its own, and changing it would change whatever the link points to, perhaps outside the root; give the mode to the file the link names")]
    LinkMode,
    /// `fill` without `size`.
    #[error("`fill` goes with `size`")]
    FillWithoutSize,
    /// `fill: ""`.
    #[error("`fill` must not be empty")]
    EmptyFill,
    /// A file larger than a fixture file may be.
    #[error(
        "`size: {0}` is more than the {MAX_FILE_SIZE} bytes (256 MiB) a fixture file may have"
    )]
    TooLarge(u64),
    /// A time too far from now.
    #[error(
        "`mtime: {0}` moves the file more than {MAX_MTIME_OFFSET} seconds (100 years) from now"
    )]
    FarMtime(i64),
}

fn check_file_detail(d: &FileDetail) -> Result<(), DetailProblem> {
    let kinds = [
        d.text.is_some(),
        d.bytes.is_some(),
        d.size.is_some(),
        d.dir,
        d.symlink.is_some(),
    ];
    if kinds.iter().filter(|k| **k).count() != 1 {
        return Err(DetailProblem::Kinds);
    }
    if d.symlink.is_some() && d.mode.is_some() {
        return Err(DetailProblem::LinkMode);
    }
    if d.fill.is_some() && d.size.is_none() {
        return Err(DetailProblem::FillWithoutSize);
    }
    if d.fill.as_deref() == Some("") {
        return Err(DetailProblem::EmptyFill);
    }
    if let Some(size) = d.size.filter(|size| *size > MAX_FILE_SIZE) {
        return Err(DetailProblem::TooLarge(size));
    }
    if let Some(mtime) = d.mtime.filter(|m| m.unsigned_abs() > MAX_MTIME_OFFSET) {
        return Err(DetailProblem::FarMtime(mtime));
    }
    Ok(())
}
