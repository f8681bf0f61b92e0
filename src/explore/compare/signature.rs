//! A divergence's signature: what stays the same when one deviation is found
//! again under another seed. It is the level, the tool, and the lines in which the
//! two sides' readings differ, with every value drawn from the fixture masked: paths
//! under the root, the fixture's file and folder names, the calls' string
//! arguments (patterns, globs, text to find), its words, and numbers
//! (counts, sizes, line numbers). Two cases that show one deviation on different
//! fixtures then have one signature, which is what a baseline lists and what
//! shrinking must keep.

use std::collections::BTreeSet;
use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

use crate::explore::compare::differential::Divergence;
use crate::explore::compare::levels::Level;
use crate::explore::generate::case::Case;
use crate::explore::generate::fixture_gen::WORDS;
use crate::scenario::fnv1a;

/// A signature: its id (`level/tool/hash`) and the masked lines it was made from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Signature {
    pub level: Level,
    pub tool: String,
    /// The oracle's differing lines, masked, as a set.
    pub oracle: Vec<String>,
    /// The subject's differing lines, masked, as a set.
    pub subject: Vec<String>,
    /// The arguments of the call where the sides parted, as compact JSON with the
    /// root left as `{root}` (empty at the start). Not part of the id: a baseline
    /// rule may read it, since some causes (a path through `..`, a relative one) show
    /// only in what was asked, the readings masking every path alike.
    pub call: String,
    hash: u64,
}

impl Signature {
    /// `level/tool/hash`, as the output, the JSON and a baseline file write it.
    pub(crate) fn id(&self) -> String {
        format!("{}/{}/{:016x}", self.level.label(), self.tool, self.hash)
    }
}

/// The tool of the call at which `divergence` happened, or `-` at the start.
pub(crate) fn diverging_tool<'a>(case: &'a Case, divergence: &Divergence) -> &'a str {
    divergence
        .at_call
        .and_then(|i| case.calls.get(i))
        .map_or("-", |c| c.tool.as_str())
}

/// The signature of `divergence`, found in `case`.
pub(crate) fn signature(case: &Case, divergence: &Divergence) -> Signature {
    let names = fixture_names(case);
    let difference = &divergence.difference;
    let (oracle, subject) = differing_lines(&difference.oracle, &difference.subject);
    let oracle: Vec<String> = masked_set(&oracle, &names);
    let subject: Vec<String> = masked_set(&subject, &names);
    let tool = diverging_tool(case, divergence).to_string();
    let call = divergence
        .at_call
        .and_then(|i| case.calls.get(i))
        .map(|c| Value::Object(c.args.clone()).to_string())
        .unwrap_or_default();
    Signature::new(difference.level, tool, oracle, subject).with_call(call)
}

impl Signature {
    /// The signature of these parts, its hash taken over all of them.
    fn new(level: Level, tool: String, oracle: Vec<String>, subject: Vec<String>) -> Signature {
        let mut key = format!("{}\0{tool}", level.label());
        for (side, lines) in [("oracle", &oracle), ("subject", &subject)] {
            key.push_str(&format!("\0{side}"));
            for line in lines {
                key.push('\0');
                key.push_str(line);
            }
        }
        Signature {
            level,
            tool,
            oracle,
            subject,
            call: String::new(),
            hash: fnv1a(key.as_bytes()),
        }
    }

    /// The same signature, found at a call with these arguments.
    pub(crate) fn with_call(self, call: String) -> Signature {
        Signature { call, ..self }
    }

    /// A signature made of these readings, for tests of what reads signatures.
    #[cfg(test)]
    pub(crate) fn for_test(
        level: Level,
        tool: &str,
        oracle: &[&str],
        subject: &[&str],
    ) -> Signature {
        let lines = |side: &[&str]| side.iter().map(|l| l.to_string()).collect();
        Signature::new(level, tool.to_string(), lines(oracle), lines(subject))
    }
}

/// The lines of each reading that the other lacks (as multisets, in order).
fn differing_lines<'a>(oracle: &'a str, subject: &'a str) -> (Vec<&'a str>, Vec<&'a str>) {
    let without = |from: &'a str, other: &'a str| -> Vec<&'a str> {
        let mut left: Vec<&str> = other.lines().collect();
        from.lines()
            .filter(|line| match left.iter().position(|l| l == line) {
                Some(at) => {
                    left.remove(at);
                    false
                }
                None => true,
            })
            .collect()
    };
    (without(oracle, subject), without(subject, oracle))
}

/// Each line masked, as a sorted set: how many lines differ depends on the fixture.
fn masked_set(lines: &[&str], names: &[(String, &str)]) -> Vec<String> {
    lines
        .iter()
        .map(|line| mask_line(line, names))
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect()
}

/// Every file and folder name of the case's fixture, each path and each part of
/// it, and every string argument of its calls (a pattern, a glob, text to find,
/// each drawn from the fixture or the generator's lists), longest first, so
/// `src/main.rs` is masked whole before `main.rs`.
fn fixture_names(case: &Case) -> Vec<(String, &'static str)> {
    let arguments: BTreeSet<String> = case
        .calls
        .iter()
        .flat_map(|call| call.args.values())
        .filter_map(|value| value.as_str())
        .filter(|text| !text.contains("{root") && !text.contains('\n'))
        .map(str::to_string)
        .collect();
    let mut names: BTreeSet<String> = BTreeSet::new();
    for path in case
        .fixture
        .entries
        .keys()
        .cloned()
        .chain(case.fixture.folders())
    {
        for part in path.split('/') {
            names.insert(part.to_string());
        }
        names.insert(path);
    }
    let mut names: Vec<(String, &str)> = names
        .into_iter()
        .map(|n| (n, "{file}"))
        .chain(arguments.into_iter().map(|a| (a, "{arg}")))
        .filter(|(n, _)| n.len() > 1)
        .collect();
    names.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then(a.cmp(b)));
    names.dedup_by(|a, b| a.0 == b.0);
    names
}

/// One line with the fixture's values masked.
pub(crate) fn mask_line(line: &str, names: &[(String, &str)]) -> String {
    static UNDER_ROOT: LazyLock<Option<Regex>> =
        // A path's last character is not a full stop: a sentence may end after it.
        LazyLock::new(|| {
            Regex::new(r#"\{root\}(?:/[^\s"'`,;:()\[\]{}]*[^\s"'`,;:()\[\]{}.])?"#).ok()
        });
    static OUT_FILE: LazyLock<Option<Regex>> = LazyLock::new(|| Regex::new(r"out-\d+\.txt").ok());
    static NUMBER: LazyLock<Option<Regex>> = LazyLock::new(|| Regex::new(r"\d+").ok());
    static WORD_RUN: LazyLock<Option<Regex>> = LazyLock::new(|| {
        let mut words: Vec<&str> = WORDS.to_vec();
        words.sort_by_key(|w| std::cmp::Reverse(w.len()));
        let words: Vec<String> = words.iter().map(|w| regex::escape(w)).collect();
        Regex::new(&format!("(?:(?:{})[ \t]*)+", words.join("|"))).ok()
    });
    let mut masked = line.to_string();
    if let Some(under_root) = UNDER_ROOT.as_ref() {
        masked = under_root.replace_all(&masked, "{path}").into_owned();
    }
    if let Some(out) = OUT_FILE.as_ref() {
        masked = out.replace_all(&masked, "{file}").into_owned();
    }
    for (name, token) in names {
        masked = masked.replace(name.as_str(), token);
    }
    if let Some(words) = WORD_RUN.as_ref() {
        masked = words.replace_all(&masked, "{words}").into_owned();
    }
    if let Some(number) = NUMBER.as_ref() {
        masked = number.replace_all(&masked, "{n}").into_owned();
    }
    masked.trim_end().to_string()
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::explore::compare::levels::difference;
    use crate::explore::generate::call::GeneratedCall;
    use crate::explore::generate::fixture_gen::GeneratedFixture;

    fn case(files: &[(&str, &str)], tool: &str, path: &str) -> Case {
        Case {
            number: 0,
            fixture: GeneratedFixture {
                entries: files
                    .iter()
                    .map(|(n, t)| (n.to_string(), Some(t.to_string())))
                    .collect(),
                ages: BTreeMap::new(),
                links: BTreeMap::new(),
                modes: BTreeMap::new(),
                outside: Vec::new(),
            },
            settings: BTreeMap::new(),
            calls: vec![GeneratedCall {
                tool: tool.into(),
                args: serde_json::json!({ "path": path })
                    .as_object()
                    .cloned()
                    .unwrap_or_default(),
            }],
        }
    }

    fn diverged(level: Level, oracle: &str, subject: &str) -> Divergence {
        Divergence {
            at_call: Some(0),
            difference: difference(level, oracle.into(), subject.into()),
            stderr_tail: String::new(),
        }
    }

    /// gemini-cli's `drop-trailing-period`, as two seeds find it: other files, other
    /// words, other line counts, one signature.
    #[test]
    fn one_deviation_under_two_seeds_has_one_signature() {
        let first = case(&[("a.txt", "alpha beta\n")], "write_file", "{root}/a.txt");
        let first_divergence = diverged(
            Level::Convention,
            "Successfully overwrote file: {root}/a.txt.",
            "Successfully overwrote file: {root}/a.txt",
        );
        let second = case(
            &[("src/main.rs", "gamma\ncafé 日本\n"), ("b.md", "")],
            "write_file",
            "{root}/src/main.rs",
        );
        let second_divergence = diverged(
            Level::Convention,
            "Successfully overwrote file: {root}/src/main.rs.",
            "Successfully overwrote file: {root}/src/main.rs",
        );
        let one = signature(&first, &first_divergence);
        let two = signature(&second, &second_divergence);
        assert_eq!(one.id(), two.id());
        assert!(
            one.id().starts_with("convention/write_file/"),
            "{}",
            one.id()
        );

        // Text readings holding file contents, counts and line numbers.
        let three = signature(
            &first,
            &diverged(
                Level::Text,
                "isError false\n1\talpha beta\nRead 1 line of a.txt (11 bytes)",
                "isError false\n1\talpha beta\nRead 1 lines of a.txt (11 bytes)",
            ),
        );
        let four = signature(
            &second,
            &diverged(
                Level::Text,
                "isError false\n1\tgamma\n2\tcafé 日本\nRead 2 line of main.rs (17 bytes)",
                "isError false\n1\tgamma\n2\tcafé 日本\nRead 2 lines of main.rs (17 bytes)",
            ),
        );
        assert_eq!(three.id(), four.id());
    }

    /// The arguments drawn for a call are masked too: another pattern, another
    /// root, the sentence's full stop kept apart from the path before it.
    #[test]
    fn drawn_arguments_are_masked() {
        let with_pattern = |pattern: &str| {
            let mut c = case(&[("a.txt", "x\n")], "glob", "{root}");
            c.calls[0].args.insert("pattern".into(), pattern.into());
            c
        };
        let reading = |pattern: &str, end: &str| {
            format!("No files found matching pattern \"{pattern}\" within {{root}}/sub{end}")
        };
        let one = signature(
            &with_pattern("*.txt"),
            &diverged(
                Level::Convention,
                &reading("*.txt", "."),
                &reading("*.txt", ""),
            ),
        );
        let two = signature(
            &with_pattern("src/*"),
            &diverged(
                Level::Convention,
                &reading("src/*", "."),
                &reading("src/*", ""),
            ),
        );
        assert_eq!(one.id(), two.id());
        assert_eq!(
            one.oracle,
            vec!["No files found matching pattern \"{arg}\" within {path}.".to_string()]
        );
    }

    #[test]
    fn another_deviation_or_tool_or_level_has_another_signature() {
        let c = case(&[("a.txt", "x\n")], "view", "{root}/a.txt");
        let base = signature(
            &c,
            &diverged(Level::Convention, "error PATH_NOT_FOUND", "error NOT_FOUND"),
        );
        let other_code = signature(
            &c,
            &diverged(Level::Convention, "error PATH_NOT_FOUND", "error IO_ERROR"),
        );
        let other_level = signature(
            &c,
            &diverged(Level::Text, "error PATH_NOT_FOUND", "error NOT_FOUND"),
        );
        let other_tool = signature(
            &case(&[("a.txt", "x\n")], "grep", "{root}/a.txt"),
            &diverged(Level::Convention, "error PATH_NOT_FOUND", "error NOT_FOUND"),
        );
        assert_ne!(base.id(), other_code.id());
        assert_ne!(base.id(), other_level.id());
        assert_ne!(base.id(), other_tool.id());
        assert_eq!(base.oracle, vec!["error PATH_NOT_FOUND".to_string()]);
    }
}
