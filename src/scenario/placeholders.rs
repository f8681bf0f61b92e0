//! The `{name}` placeholders filled into a scenario's strings: `{root}`, and the
//! values that `capture:` took from earlier answers.
//!
//! `{name:sh}` is the same value quoted for a POSIX shell, for the arguments a shell
//! runs: a root under a `TMPDIR` holding `'` or `$(...)`, or a value a server chose,
//! must reach the shell as one literal word, never as syntax.
//!
//! One map holds them all, so call arguments, settings and every expectation fill
//! them the same way, in one pass (a captured value that happens to contain
//! `{root}` is not filled again). The names toolspec gives a meaning of its own are
//! reserved, so a capture can never shadow one.

use std::borrow::Cow;
use std::collections::BTreeMap;

/// Names with a meaning of their own in some string a suite writes: `{root}`, the
/// template's `{int}`, the `json:` markers, and the target file's `{value}`,
/// `{port}` and `{cwd}`. A capture may not take one of them.
pub(crate) const BUILT_IN: &[&str] = &[
    "root", "outside", "scratch", "home", "tmp", "int", "any", "string", "number", "integer",
    "bool", "array", "object", "value", "port", "cwd",
];

/// The places of the machine a server ran on that a recorded answer may name and
/// another machine will not have: the server's own temporary folder, its home,
/// and toolspec's temporary folder (where fixture roots are made). Written back as
/// `{scratch}`, `{home}` and `{tmp}` (in that order of preference where two are
/// the same folder, the server's own view first), so a suite recorded here passes
/// with another `TMPDIR`, another user, or isolation turned on or off.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct MachinePlaces {
    /// The server's `TMPDIR`: its scratch folder under isolation, the one it
    /// inherited without (`/tmp` when it inherited none).
    pub scratch: Option<String>,
    /// The server's `HOME`.
    pub home: Option<String>,
    /// toolspec's own temporary folder.
    pub tmp: Option<String>,
}

impl MachinePlaces {
    /// The places as named, each kept only when it is an absolute path below
    /// `/` (a home of `/` would be found in every path), without a final `/`.
    pub(crate) fn new(scratch: Option<&str>, home: Option<&str>, tmp: Option<&str>) -> Self {
        let place = |path: Option<&str>| {
            let path = path?.trim_end_matches('/');
            (path.starts_with('/') && path.len() > 1).then(|| path.to_string())
        };
        MachinePlaces {
            scratch: place(scratch),
            home: place(home),
            tmp: place(tmp),
        }
    }

    /// toolspec's temporary folder as this process sees it.
    pub(crate) fn toolspec_tmp() -> String {
        std::env::temp_dir().to_string_lossy().into_owned()
    }
}

/// The bound names that are places of the machine: written back only where the
/// path begins and ends (`/tmpfile` is not `{tmp}file`).
const MACHINE_PLACES: [&str; 3] = ["scratch", "home", "tmp"];

/// The placeholder values of one scenario run: `root`, then each capture as it is
/// taken.
#[derive(Debug, Clone)]
pub(crate) struct Bindings {
    values: BTreeMap<String, String>,
}

impl Bindings {
    /// `{root}`, the canonical fixture root, and `{outside}`, the folder beside it
    /// where `given.outside` places its files.
    pub(crate) fn new(root: &str) -> Bindings {
        let outside = match root.rsplit_once('/') {
            Some((parent, _)) => format!("{parent}/{}", super::model::OUTSIDE_FOLDER),
            None => super::model::OUTSIDE_FOLDER.to_string(),
        };
        Bindings {
            values: BTreeMap::from([
                ("root".to_string(), root.to_string()),
                ("outside".to_string(), outside),
            ]),
        }
    }

    /// These bindings with the machine's places bound too (`{scratch}`, `{home}`,
    /// `{tmp}`): what a server ran with, for a call's arguments and the judging
    /// and blessing of its answers.
    pub(crate) fn with_places(mut self, places: &MachinePlaces) -> Bindings {
        for (name, value) in [
            ("scratch", &places.scratch),
            ("home", &places.home),
            ("tmp", &places.tmp),
        ] {
            if let Some(value) = value {
                self.bind(name, value);
            }
        }
        self
    }

    /// Binds `name` (a capture) to `value`; a later capture of the same name wins.
    pub(crate) fn bind(&mut self, name: &str, value: &str) {
        self.values.insert(name.to_string(), value.to_string());
    }

    /// A bound `{name}` (or `{name:sh}`) at the start of `text`: its value (quoted
    /// for a shell with `:sh`) and the text after it.
    pub(crate) fn leading<'t>(&self, text: &'t str) -> Option<(Cow<'_, str>, &'t str)> {
        let found = leading_placeholder(text)?;
        let value = self.values.get(found.name)?;
        let value = if found.shell_quoted {
            shell_words::quote(value)
        } else {
            Cow::Borrowed(value.as_str())
        };
        Some((value, &text[found.len..]))
    }

    /// `value` with every string in it filled (keys aside): a call's arguments,
    /// settings, a JSON expectation.
    pub(crate) fn fill_value(&self, value: &serde_json::Value) -> serde_json::Value {
        use serde_json::Value;
        match value {
            Value::String(s) => Value::String(self.fill(s)),
            Value::Array(items) => Value::Array(items.iter().map(|v| self.fill_value(v)).collect()),
            Value::Object(map) => Value::Object(
                map.iter()
                    .map(|(k, v)| (k.clone(), self.fill_value(v)))
                    .collect(),
            ),
            other => other.clone(),
        }
    }

    /// `text` with every bound `{name}` replaced by its value; anything else,
    /// `{int}` included, is left as written.
    pub(crate) fn fill(&self, text: &str) -> String {
        self.fill_with(text, str::to_string)
    }

    /// `text` with every bound value written back as its `{name}`, the longest
    /// value first where two start at one place: what a server said, made an
    /// expectation again (`run --bless` writes the root as `{root}`). An empty
    /// value is left alone, since it would be found everywhere. Where two values
    /// are the same, the first of `{root}`, `{outside}`, `{scratch}`, `{home}`,
    /// `{tmp}` (then a capture) is written; a machine place only where a path
    /// begins and ends.
    pub(crate) fn unfill(&self, text: &str) -> String {
        let rank = |name: &str| {
            BUILT_IN
                .iter()
                .position(|built_in| *built_in == name)
                .unwrap_or(BUILT_IN.len())
        };
        let mut values: Vec<(&str, &str)> = self
            .values
            .iter()
            .filter(|(_, value)| !value.is_empty())
            .map(|(name, value)| (name.as_str(), value.as_str()))
            .collect();
        values.sort_by_key(|(name, value)| (std::cmp::Reverse(value.len()), rank(name)));
        let in_a_name = |c: char| c.is_alphanumeric() || matches!(c, '_' | '-' | '.');
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        let mut before: Option<char> = None;
        'scan: while let Some(c) = rest.chars().next() {
            for (name, value) in &values {
                let Some(after) = rest.strip_prefix(value) else {
                    continue;
                };
                let place = MACHINE_PLACES.contains(name);
                let bounded =
                    !before.is_some_and(in_a_name) && !after.chars().next().is_some_and(in_a_name);
                if place && !bounded {
                    continue;
                }
                out.push('{');
                out.push_str(name);
                out.push('}');
                before = value.chars().last();
                rest = after;
                continue 'scan;
            }
            out.push(c);
            before = Some(c);
            rest = &rest[c.len_utf8()..];
        }
        out
    }

    /// `text` with every bound `{name}` replaced by `escape(value)`: for a regex,
    /// where a root or a captured value must match literally.
    pub(crate) fn fill_with(&self, text: &str, escape: impl Fn(&str) -> String) -> String {
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(at) = rest.find('{') {
            out.push_str(&rest[..at]);
            rest = &rest[at..];
            match self.leading(rest) {
                Some((value, after)) => {
                    out.push_str(&escape(&value));
                    rest = after;
                }
                None => {
                    out.push('{');
                    rest = &rest[1..];
                }
            }
        }
        out.push_str(rest);
        out
    }
}

/// The suffix that asks for a value quoted for a shell: `{root:sh}`.
const SHELL_QUOTED: &str = ":sh";

/// A `{name}` or `{name:sh}` written at the start of some text.
struct Placeholder<'t> {
    name: &'t str,
    shell_quoted: bool,
    /// Its length in the text, braces included.
    len: usize,
}

/// The placeholder at the start of `text`, if its name is a lowercase identifier.
fn leading_placeholder(text: &str) -> Option<Placeholder<'_>> {
    let inner = text.strip_prefix('{')?;
    let written = &inner[..inner.find('}')?];
    let (name, shell_quoted) = match written.strip_suffix(SHELL_QUOTED) {
        Some(name) => (name, true),
        None => (written, false),
    };
    is_identifier(name).then_some(Placeholder {
        name,
        shell_quoted,
        len: written.len() + 2,
    })
}

/// Every placeholder written in `text`.
fn placeholders(text: &str) -> impl Iterator<Item = Placeholder<'_>> {
    text.match_indices('{')
        .filter_map(|(at, _)| leading_placeholder(&text[at..]))
}

fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

/// Every `{name}` or `{name:sh}` (a lowercase identifier) written in `text` that
/// is not a built-in: the captures it uses.
pub(crate) fn captures_used(text: &str) -> impl Iterator<Item = &str> {
    placeholders(text)
        .map(|p| p.name)
        .filter(|name| !BUILT_IN.contains(name))
}

/// Every placeholder in `text` that is filled with a value (`{root}` or a capture)
/// but written without `:sh`: in a string a shell runs, each is a value that could
/// break the command or run one of its own.
pub(crate) fn unquoted_values(text: &str) -> impl Iterator<Item = &str> {
    placeholders(text)
        .filter(|p| !p.shell_quoted)
        .map(|p| p.name)
        .filter(|name| *name == "root" || MACHINE_PLACES.contains(name) || !BUILT_IN.contains(name))
}

/// Why a name cannot name a capture.
#[derive(Debug, thiserror::Error)]
pub(crate) enum CaptureNameError {
    /// Not a lowercase identifier.
    #[error("capture name `{0}` must be a lowercase identifier (a-z, then a-z, 0-9 or _)")]
    NotIdentifier(String),
    /// A placeholder toolspec fills itself.
    #[error("capture name `{name}` is taken: {{{name}}} already means something ({})", BUILT_IN.join(", "))]
    BuiltIn {
        /// The name.
        name: String,
    },
}

/// Why `name` cannot name a capture, if it cannot.
pub(crate) fn check_capture_name(name: &str) -> Result<(), CaptureNameError> {
    if !is_identifier(name) {
        return Err(CaptureNameError::NotIdentifier(name.to_string()));
    }
    if BUILT_IN.contains(&name) {
        return Err(CaptureNameError::BuiltIn {
            name: name.to_string(),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unfill_writes_the_longest_bound_value_back_as_its_name() {
        let mut b = Bindings::new("/tmp/r");
        b.bind("task", "/tmp/r/t1");
        b.bind("empty", "");
        assert_eq!(
            b.unfill("at /tmp/r/a and /tmp/r/t1, /tmp/x"),
            "at {root}/a and {task}, /tmp/x"
        );
        assert_eq!(b.fill(&b.unfill("/tmp/r/t1 /tmp/r")), "/tmp/r/t1 /tmp/r");
    }

    #[test]
    fn machine_places_are_written_back_where_a_path_begins_and_ends() {
        let places = MachinePlaces::new(Some("/tmp/"), Some("/home/me"), Some("/tmp"));
        let b = Bindings::new("/tmp/t1/root").with_places(&places);
        // The root wins by length; the server's own folder wins a tie with
        // toolspec's; a longer name that only starts with a place is left.
        assert_eq!(
            b.unfill("/tmp/t1/root/a /tmp/x /home/me/.cache /tmpfile /home/mew x/tmp"),
            "{root}/a {scratch}/x {home}/.cache /tmpfile /home/mew x/tmp"
        );
        assert_eq!(b.fill("{scratch}/x {home} {tmp}"), "/tmp/x /home/me /tmp");
        let nothing = MachinePlaces::new(Some("/"), Some("relative"), None);
        assert_eq!(nothing, MachinePlaces::default());
        let bare: Vec<&str> = unquoted_values("echo {home} {tmp:sh}").collect();
        assert_eq!(bare, ["home"]);
    }

    #[test]
    fn fills_bound_names_once_and_leaves_the_rest() {
        let mut b = Bindings::new("/r");
        b.bind("task", "{root}");
        assert_eq!(
            b.fill("{root}/a {task} {int} {x} {"),
            "/r/a {root} {int} {x} {"
        );
        assert_eq!(b.fill_with("{root}.", |v| format!("<{v}>")), "</r>.");
        assert_eq!(b.leading("{task}!"), Some((Cow::from("{root}"), "!")));
    }

    #[test]
    fn quotes_for_a_shell_with_sh() {
        let mut b = Bindings::new("/tmp/it's $(touch x)");
        b.bind("v", "1.2");
        assert_eq!(
            b.fill("rm -f {root:sh}/a && echo {v:sh} {int:sh}"),
            "rm -f '/tmp/it'\\''s $(touch x)'/a && echo 1.2 {int:sh}"
        );
        let bare: Vec<&str> = unquoted_values("{root} {root:sh} {v} {v:sh} {int} {x:sh}").collect();
        assert_eq!(bare, ["root", "v"]);
        let used: Vec<&str> = captures_used("{root:sh} {task:sh}").collect();
        assert_eq!(used, ["task"]);
    }

    #[test]
    fn names_used_and_allowed() {
        let used: Vec<&str> = captures_used("{root} {task} {int:n} {a_1} {Up} [0-9]{16}").collect();
        assert_eq!(used, ["task", "a_1"]);
        assert!(check_capture_name("task_2").is_ok());
        assert!(check_capture_name("root").is_err());
        assert!(check_capture_name("Task").is_err());
        assert!(check_capture_name("2x").is_err());
    }
}
