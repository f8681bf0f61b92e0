//! Generated fixtures: a few files of the kinds servers get wrong (nested
//! folders, empty files, no final newline, CRLF, multibyte UTF-8, NUL bytes, lines
//! past 2,000 characters, files past 2,000 lines), links (inside the root,
//! dangling, and out of it: to a file or the folder beside it, by a relative or an
//! absolute target, or to a file not there yet) and modes on files and folders, and
//! beside the root the places a scenario's `given.outside` makes: a file in
//! `{outside}` and one in a sibling named like the root (`{root}-x`), each holding
//! a canary of its own. A server meant to stay inside its root that reads or
//! changes them has escaped (`differential.rs`); one that may leave it leaves a
//! trace the files comparison sees, inside the temporary folder that is removed
//! afterwards.

use std::collections::BTreeMap;

use fastrand::Rng;

use crate::scenario::{FileDetail, FileMode, FileSpec};

/// The places beside the root every generated fixture has, as `given.outside`
/// names them: a file in `{outside}`, and one in a sibling of the root whose name
/// starts with the root's (which a check by string prefix admits).
pub(crate) const OUTSIDE_FILES: [&str; 2] = ["secret.txt", SIBLING_FILE];

/// The file in the root's sibling, as a path argument names it too.
pub(crate) const SIBLING_FILE: &str = "{root}-x/secret.txt";

/// The file beside the root as a call reaches it by `..`, and by an absolute path.
pub(crate) const OUTSIDE_BY_DOTS: &str = "{root}/../outside/secret.txt";
pub(crate) const OUTSIDE_ABSOLUTE: &str = "{outside}/secret.txt";

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
/// day) are exercised. As many as a fixture can have files and folders, so each gets its own.
const AGES: &[i64] = &[
    60, 600, 3_600, 7_200, 20_000, 50_000, 90_000, 200_000, 400_000, 800_000, 1_600_000, 3_200_000,
];

/// Ages of the links, in seconds: none of the other entries' ages (nor the
/// ignore files' or the rare entry's), so a listing that sorts by time (glob
/// reads a link's own time) never meets two entries of one time. Left to the
/// moment the fixture is built, a link would share the time of the files made
/// just before it (the system's clock moves in steps of a few milliseconds),
/// and each server would put the two in its own walk's order.
const LINK_AGES: &[i64] = &[75, 150];

/// The line and character limits the documents name (a view shows 2,000 lines,
/// and cuts lines past 2,000 characters): texts are drawn on both sides of them.
const LINE_LIMIT: usize = 2_000;
const LINE_LENGTHS: &[usize] = &[1_999, 2_000, 2_001, 2_500];

/// Modes given to files and to folders now and then. Kept readable by their
/// owner, so a run as an ordinary user can still read and remove them.
const FILE_MODES: &[u32] = &[0o600, 0o444, 0o755];
const FOLDER_MODES: &[u32] = &[0o700, 0o555];

/// A generated fixture: each file's path under the root, its text and its age.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct GeneratedFixture {
    /// Path under the root -> text (None for an empty folder).
    pub entries: BTreeMap<String, Option<String>>,
    /// Path under the root (files, folders and links) -> seconds since it was last
    /// modified. Each has its own, set when the fixture is built, so the two sides
    /// never order entries of equal times differently.
    pub ages: BTreeMap<String, i64>,
    /// Link name under the root -> its target as written, relative to the root:
    /// a fixture file or folder, a missing name, or a place beside the root
    /// (`../outside/secret.txt`, `{outside}/secret.txt`).
    pub links: BTreeMap<String, String>,
    /// Path under the root (a file or folder) -> its permission bits.
    pub modes: BTreeMap<String, u32>,
    /// The places beside the root, as `given.outside` names them.
    pub outside: Vec<String>,
}

impl GeneratedFixture {
    /// The files under the root as a scenario's `given.files` gives them.
    pub(crate) fn file_specs(&self) -> BTreeMap<String, FileSpec> {
        let mut specs = BTreeMap::new();
        let mode = |name: &str| self.modes.get(name).map(|m| FileMode(*m));
        let folder = |age: Option<i64>, mode: Option<FileMode>| {
            FileSpec::Detailed(Box::new(FileDetail {
                dir: true,
                mtime: age.map(|age| -age),
                mode,
                ..FileDetail::default()
            }))
        };
        for name in self.folders() {
            specs.insert(
                format!("{name}/"),
                folder(self.ages.get(&name).copied(), mode(&name)),
            );
        }
        for (name, target) in &self.links {
            let spec = FileSpec::Detailed(Box::new(FileDetail {
                symlink: Some(target.clone()),
                mtime: self.ages.get(name).map(|age| -age),
                ..FileDetail::default()
            }));
            specs.insert(name.clone(), spec);
        }
        for (name, text) in &self.entries {
            if let Some(text) = text {
                let spec = FileSpec::Detailed(Box::new(FileDetail {
                    text: Some(text.clone()),
                    mtime: self.ages.get(name).map(|age| -age),
                    mode: mode(name),
                    ..FileDetail::default()
                }));
                specs.insert(name.clone(), spec);
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
        outside: OUTSIDE_FILES.iter().map(|f| f.to_string()).collect(),
        ..GeneratedFixture::default()
    };
    let mut ages = AGES.to_vec();
    rng.shuffle(&mut ages);
    let names = fixture
        .files()
        .map(|(n, _)| n.to_string())
        .chain(fixture.folders());
    fixture.ages = names.zip(ages).collect();
    if rng.u8(..3) == 0 {
        fixture.links = generate_links(rng, &fixture);
        let links = fixture.links.keys().cloned().zip(LINK_AGES.iter().copied());
        fixture.ages.extend(links);
    }
    if rng.u8(..4) == 0 {
        fixture.modes = generate_modes(rng, &fixture);
    }
    fixture
}

/// One or two links in the root: to a fixture file or folder, dangling, or out
/// of the root (to the file beside it, or to the folder it is in). The other
/// links out are mixed in later (`escape_gen.rs`).
fn generate_links(rng: &mut Rng, fixture: &GeneratedFixture) -> BTreeMap<String, String> {
    let files: Vec<&str> = fixture.files().map(|(n, _)| n).collect();
    let folders = fixture.folders();
    let mut links = BTreeMap::new();
    for _ in 0..rng.usize(1..=2) {
        let (name, target) = match rng.u8(..5) {
            0 if !files.is_empty() => ("link-file", files[rng.usize(..files.len())].to_string()),
            1 if !folders.is_empty() => ("link-dir", folders[rng.usize(..folders.len())].clone()),
            2 => ("dangling", "no-such-target.txt".to_string()),
            3 => ("canary-link.txt", "../outside/secret.txt".to_string()),
            _ => ("outside-dir", "../outside".to_string()),
        };
        links.insert(name.to_string(), target);
    }
    links
}

/// A mode for one or two of the fixture's files and folders.
fn generate_modes(rng: &mut Rng, fixture: &GeneratedFixture) -> BTreeMap<String, u32> {
    let files: Vec<&str> = fixture.files().map(|(n, _)| n).collect();
    let folders = fixture.folders();
    let mut modes = BTreeMap::new();
    for _ in 0..rng.usize(1..=2) {
        if !folders.is_empty() && (files.is_empty() || rng.bool()) {
            let folder = folders[rng.usize(..folders.len())].clone();
            modes.insert(folder, FOLDER_MODES[rng.usize(..FOLDER_MODES.len())]);
        } else if !files.is_empty() {
            let file = files[rng.usize(..files.len())].to_string();
            modes.insert(file, FILE_MODES[rng.usize(..FILE_MODES.len())]);
        }
    }
    modes
}

/// A text of one of the interesting kinds.
pub(crate) fn generate_text(rng: &mut Rng) -> String {
    match rng.u8(..11) {
        0 => String::new(),
        // No final newline.
        1 => lines(rng).join("\n"),
        2 => lines(rng).iter().map(|l| format!("{l}\r\n")).collect(),
        // A line just under, at or past the 2,000-character limit.
        3 => {
            let length = LINE_LENGTHS[rng.usize(..LINE_LENGTHS.len())];
            let word = WORDS[rng.usize(..WORDS.len())];
            let long: String = word.chars().cycle().take(length).collect();
            format!("{long}\nshort line\n")
        }
        // NUL bytes among text: what servers take for a binary file.
        4 => {
            let mut text: String = lines(rng).iter().map(|l| format!("{l}\n")).collect();
            text.push_str("nul\0inside\n");
            text
        }
        // A file just past the 2,000-line limit.
        5 => (1..=LINE_LIMIT + rng.usize(1..=100))
            .map(|n| format!("{} {n}\n", WORDS[n % WORDS.len()]))
            .collect(),
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

    /// No two of `fixture`'s entries share an age; answers how many are aged.
    fn assert_every_entry_has_its_own_age(fixture: &GeneratedFixture) -> usize {
        let mut ages: Vec<i64> = fixture.ages.values().copied().collect();
        let count = ages.len();
        ages.sort_unstable();
        ages.dedup();
        assert_eq!(ages.len(), count, "every entry has its own age");
        count
    }

    #[test]
    fn one_seed_gives_one_fixture_and_folders_come_from_paths() {
        let first = generate_fixture(&mut Rng::with_seed(7));
        assert_eq!(first, generate_fixture(&mut Rng::with_seed(7)));
        let fixture = GeneratedFixture {
            entries: BTreeMap::from([("src/deep/util.py".to_string(), Some("x".to_string()))]),
            links: BTreeMap::from([("out".to_string(), "../outside/secret.txt".to_string())]),
            modes: BTreeMap::from([("src".to_string(), 0o555)]),
            ..GeneratedFixture::default()
        };
        let specs = fixture.file_specs();
        assert!(
            matches!(&specs["out"], FileSpec::Detailed(d) if d.symlink.as_deref() == Some("../outside/secret.txt"))
        );
        assert!(matches!(&specs["src/"], FileSpec::Detailed(d) if d.mode == Some(FileMode(0o555))));
        assert_eq!(fixture.folders(), vec!["src", "src/deep"]);
        assert!(fixture.file_specs().contains_key("src/deep/util.py"));
        assert!(fixture.file_specs().contains_key("src/deep/"));
        let aged = generate_fixture(&mut Rng::with_seed(7));
        let count = assert_every_entry_has_its_own_age(&aged);
        assert_eq!(
            count,
            aged.files().count() + aged.folders().len() + aged.links.len()
        );
    }

    #[test]
    fn the_kinds_all_turn_up() {
        let mut rng = Rng::with_seed(1);
        let texts: Vec<String> = (0..200).map(|_| generate_text(&mut rng)).collect();
        assert!(texts.iter().any(String::is_empty));
        assert!(texts.iter().any(|t| t.contains("\r\n")));
        assert!(texts.iter().any(|t| !t.is_empty() && !t.ends_with('\n')));
        assert!(texts
            .iter()
            .any(|t| t.lines().any(|l| l.chars().count() > 2_000)));
        assert!(texts
            .iter()
            .any(|t| t.lines().any(|l| l.chars().count() == 2_000)));
        assert!(texts.iter().any(|t| t.lines().count() > 2_000));
        assert!(texts.iter().any(|t| t.contains('\0')));
        assert!(texts.iter().any(|t| t.chars().any(|c| c.len_utf8() > 1)));
        let mut rng = Rng::with_seed(2);
        let fixtures: Vec<GeneratedFixture> = (0..60).map(|_| generate_fixture(&mut rng)).collect();
        for fixture in &fixtures {
            assert_every_entry_has_its_own_age(fixture);
            for link in fixture.links.keys() {
                let spec = &fixture.file_specs()[link];
                assert!(
                    matches!(spec, FileSpec::Detailed(d) if d.mtime.is_some()),
                    "{link} has no time of its own: {spec:?}"
                );
            }
        }
        let targets: Vec<&String> = fixtures.iter().flat_map(|f| f.links.values()).collect();
        for outward in ["../outside", "../outside/secret.txt"] {
            assert!(targets.iter().any(|t| t.as_str() == outward), "{outward}");
        }
        assert!(fixtures.iter().all(|f| f.outside == OUTSIDE_FILES));
        assert!(targets.iter().any(|t| t.as_str() == "no-such-target.txt"));
        assert!(targets
            .iter()
            .any(|t| !t.starts_with("..") && !t.contains("no-such")));
        let modes: Vec<u32> = fixtures
            .iter()
            .flat_map(|f| f.modes.values().copied())
            .collect();
        assert!(modes.contains(&0o555) && modes.contains(&0o444));
    }
}
