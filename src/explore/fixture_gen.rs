//! Generated fixtures: a few files of the kinds servers get wrong (nested
//! folders, empty files, no final newline, CRLF, multibyte UTF-8, long lines),
//! under `root/`, beside a canary folder `outside/` that a path outside the root
//! leads to, so a server that reaches out of its root leaves a trace that the files
//! comparison sees, inside the temporary folder that is removed afterwards.

use std::collections::BTreeMap;

use fastrand::Rng;

use crate::scenario::{FileDetail, FileSpec};

/// The folder the server is started in, inside the fixture.
pub(crate) const ROOT_DIR: &str = "root";
/// The canary file beside the root.
pub(crate) const CANARY: &str = "outside/canary.txt";

/// Words texts are made of: ASCII, and multibyte ones (two and three bytes).
pub(crate) const WORDS: &[&str] = &[
    "alpha", "beta", "gamma", "delta", "alpha", "omega", "café", "naïve", "日本", "x1",
];

/// File names, some in nested folders.
const NAMES: &[&str] = &[
    "a.txt",
    "b.md",
    "notes.txt",
    "src/main.rs",
    "src/deep/util.py",
    "docs/readme.md",
    ".hidden.txt",
    "data.json",
];

/// How long ago entries were last modified, in seconds: some within the last
/// day, some older, so listings sorted by time (newest first, or by name past a
/// day) are exercised. As many as a fixture can have entries, so each gets its own.
const AGES: &[i64] = &[
    60, 600, 3_600, 7_200, 20_000, 50_000, 90_000, 200_000, 400_000, 800_000, 1_600_000, 3_200_000,
];

/// The root's own age: older than any entry in it.
const ROOT_AGE: i64 = 6_400_000;

/// A generated fixture: each file's path under the root, its text and its age.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct GeneratedFixture {
    /// Path under the root -> text (None for an empty folder).
    pub entries: BTreeMap<String, Option<String>>,
    /// Path under the root (files and folders) -> seconds since it was last
    /// modified. Each has its own, set when the fixture is built, so the two sides
    /// never order entries of equal times differently.
    pub ages: BTreeMap<String, i64>,
}

impl GeneratedFixture {
    /// The files as a scenario would give them, the root folder and canary included.
    pub(crate) fn file_specs(&self) -> BTreeMap<String, FileSpec> {
        let mut specs = BTreeMap::new();
        let folder = |age: Option<i64>| {
            FileSpec::Detailed(Box::new(FileDetail {
                dir: true,
                mtime: age.map(|age| -age),
                ..FileDetail::default()
            }))
        };
        specs.insert(format!("{ROOT_DIR}/"), folder(Some(ROOT_AGE)));
        for name in self.folders() {
            specs.insert(
                format!("{ROOT_DIR}/{name}/"),
                folder(self.ages.get(&name).copied()),
            );
        }
        specs.insert(CANARY.to_string(), FileSpec::Text("canary\n".to_string()));
        for (name, text) in &self.entries {
            if let Some(text) = text {
                let spec = FileSpec::Detailed(Box::new(FileDetail {
                    text: Some(text.clone()),
                    mtime: self.ages.get(name).map(|age| -age),
                    ..FileDetail::default()
                }));
                specs.insert(format!("{ROOT_DIR}/{name}"), spec);
            }
        }
        specs
    }

    /// Every file with its text.
    pub(crate) fn files(&self) -> impl Iterator<Item = (&str, &str)> {
        self.entries
            .iter()
            .filter_map(|(n, t)| t.as_deref().map(|t| (n.as_str(), t)))
    }

    /// Every folder under the root: the empty ones and the parents of files.
    pub(crate) fn folders(&self) -> Vec<String> {
        let mut folders: Vec<String> = Vec::new();
        for (name, text) in &self.entries {
            if text.is_none() {
                folders.push(name.clone());
            }
            let mut parts: Vec<&str> = name.split('/').collect();
            parts.pop();
            while !parts.is_empty() {
                folders.push(parts.join("/"));
                parts.pop();
            }
        }
        folders.sort();
        folders.dedup();
        folders
    }
}

/// One to five files (sometimes an empty folder too), drawn from `rng`.
pub(crate) fn generate_fixture(rng: &mut Rng) -> GeneratedFixture {
    let mut entries = BTreeMap::new();
    let count = rng.usize(1..=5);
    for _ in 0..count {
        let name = NAMES[rng.usize(..NAMES.len())].to_string();
        entries.insert(name, Some(generate_text(rng)));
    }
    if rng.u8(..4) == 0 {
        entries.insert("empty-dir".to_string(), None);
    }
    let mut fixture = GeneratedFixture {
        entries,
        ages: BTreeMap::new(),
    };
    let mut ages = AGES.to_vec();
    rng.shuffle(&mut ages);
    let names = fixture
        .files()
        .map(|(n, _)| n.to_string())
        .chain(fixture.folders());
    fixture.ages = names.zip(ages).collect();
    fixture
}

/// A text of one of the interesting kinds.
pub(crate) fn generate_text(rng: &mut Rng) -> String {
    match rng.u8(..8) {
        0 => String::new(),
        // No final newline.
        1 => lines(rng).join("\n"),
        2 => lines(rng).iter().map(|l| format!("{l}\r\n")).collect(),
        3 => {
            let long = WORDS[rng.usize(..WORDS.len())].repeat(rng.usize(300..=450));
            format!("{long}\nshort line\n")
        }
        _ => lines(rng).iter().map(|l| format!("{l}\n")).collect(),
    }
}

/// One to six lines of one to four words.
fn lines(rng: &mut Rng) -> Vec<String> {
    (0..rng.usize(1..=6))
        .map(|_| {
            (0..rng.usize(1..=4))
                .map(|_| WORDS[rng.usize(..WORDS.len())])
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_seed_gives_one_fixture_and_folders_come_from_paths() {
        let first = generate_fixture(&mut Rng::with_seed(7));
        assert_eq!(first, generate_fixture(&mut Rng::with_seed(7)));
        let fixture = GeneratedFixture {
            entries: BTreeMap::from([("src/deep/util.py".to_string(), Some("x".to_string()))]),
            ages: BTreeMap::new(),
        };
        assert_eq!(fixture.folders(), vec!["src", "src/deep"]);
        assert!(fixture.file_specs().contains_key("root/src/deep/util.py"));
        assert!(fixture.file_specs().contains_key("root/src/deep/"));
        let aged = generate_fixture(&mut Rng::with_seed(7));
        let mut ages: Vec<i64> = aged.ages.values().copied().collect();
        let count = ages.len();
        ages.sort_unstable();
        ages.dedup();
        assert_eq!(ages.len(), count, "every entry has its own age");
        assert_eq!(count, aged.files().count() + aged.folders().len());
    }

    #[test]
    fn the_kinds_all_turn_up() {
        let mut rng = Rng::with_seed(1);
        let texts: Vec<String> = (0..200).map(|_| generate_text(&mut rng)).collect();
        assert!(texts.iter().any(String::is_empty));
        assert!(texts.iter().any(|t| t.contains("\r\n")));
        assert!(texts.iter().any(|t| !t.is_empty() && !t.ends_with('\n')));
        assert!(texts.iter().any(|t| t.lines().any(|l| l.len() > 1000)));
        assert!(texts.iter().any(|t| t.chars().any(|c| c.len_utf8() > 1)));
    }
}
