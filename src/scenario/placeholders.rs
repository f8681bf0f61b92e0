//! The `{name}` placeholders filled into a scenario's strings: `{root}`, and the
//! values that `capture:` took from earlier answers.
//!
//! One map holds them all, so call arguments, settings and every expectation fill
//! them the same way, in one pass (a captured value that happens to contain
//! `{root}` is not filled again). The names toolspec gives a meaning of its own are
//! reserved, so a capture can never shadow one.

use std::collections::BTreeMap;

/// Names with a meaning of their own in some string a suite writes: `{root}`, the
/// template's `{int}`, the `json:` markers, and the target file's `{value}`,
/// `{port}` and `{cwd}`. A capture may not take one of them.
pub(crate) const BUILT_IN: &[&str] = &[
    "root", "int", "any", "string", "number", "integer", "bool", "array", "object", "value",
    "port", "cwd",
];

/// The placeholder values of one scenario run: `root`, then each capture as it is
/// taken.
#[derive(Debug, Clone)]
pub(crate) struct Bindings {
    values: BTreeMap<String, String>,
}

impl Bindings {
    /// Only `{root}`, the canonical fixture root.
    pub(crate) fn new(root: &str) -> Bindings {
        Bindings {
            values: BTreeMap::from([("root".to_string(), root.to_string())]),
        }
    }

    /// Binds `name` (a capture) to `value`; a later capture of the same name wins.
    pub(crate) fn bind(&mut self, name: &str, value: &str) {
        self.values.insert(name.to_string(), value.to_string());
    }

    /// A bound `{name}` at the start of `text`: its value and the text after it.
    pub(crate) fn leading<'t>(&self, text: &'t str) -> Option<(&str, &'t str)> {
        let name = leading_name(text)?;
        let value = self.values.get(name)?;
        Some((value, &text[name.len() + 2..]))
    }

    /// `text` with every bound `{name}` replaced by its value; anything else,
    /// `{int}` included, is left as written.
    pub(crate) fn fill(&self, text: &str) -> String {
        self.fill_with(text, str::to_string)
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
                    out.push_str(&escape(value));
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

/// The name of a `{name}` at the start of `text`, if it is a lowercase identifier.
fn leading_name(text: &str) -> Option<&str> {
    let inner = text.strip_prefix('{')?;
    let name = &inner[..inner.find('}')?];
    is_identifier(name).then_some(name)
}

fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

/// Every `{name}` (a lowercase identifier) written in `text` that is not a built-in:
/// the captures it uses.
pub(crate) fn captures_used(text: &str) -> impl Iterator<Item = &str> {
    text.match_indices('{')
        .filter_map(|(at, _)| leading_name(&text[at..]))
        .filter(|name| !BUILT_IN.contains(name))
}

/// Why `name` cannot name a capture, if it cannot.
pub(crate) fn check_capture_name(name: &str) -> Result<(), String> {
    if !is_identifier(name) {
        return Err(format!(
            "capture name `{name}` must be a lowercase identifier (a-z, then a-z, 0-9 or _)"
        ));
    }
    if BUILT_IN.contains(&name) {
        return Err(format!(
            "capture name `{name}` is taken: {{{name}}} already means something ({})",
            BUILT_IN.join(", ")
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fills_bound_names_once_and_leaves_the_rest() {
        let mut b = Bindings::new("/r");
        b.bind("task", "{root}");
        assert_eq!(
            b.fill("{root}/a {task} {int} {x} {"),
            "/r/a {root} {int} {x} {"
        );
        assert_eq!(b.fill_with("{root}.", |v| format!("<{v}>")), "</r>.");
        assert_eq!(b.leading("{task}!"), Some(("{root}", "!")));
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
