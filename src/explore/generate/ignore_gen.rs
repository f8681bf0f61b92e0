//! `.gitignore` files added to a generated fixture now and then, since searches
//! and listings that honour them are a place where servers and their readings of
//! the format part: a line naming a fixture file by its whole path (an inner
//! slash, which git anchors and others match at any depth) or its base name, a
//! glob on an extension, a folder pattern (`src/`, or one naming a file, which
//! must not hide it), a `!` line bringing back what an earlier one hid, comments
//! and blank lines. One goes in the root, sometimes a second in a subfolder, so
//! which folder's ignore file counts for what is exercised too.

use fastrand::Rng;

use crate::explore::generate::fixture_gen::GeneratedFixture;

/// The name of the file.
pub(crate) const IGNORE_FILE: &str = ".gitignore";

/// How often (one in N) a fixture gets ignore files.
const ONE_IN_IGNORED: u8 = 3;

/// Ages of the ignore files, in seconds: none of the fixture's own ages, so no
/// two entries share a modification time.
const IGNORE_AGES: &[i64] = &[30, 45];

/// Adds a `.gitignore` to the root of `fixture` one time in [`ONE_IN_IGNORED`],
/// and then, one time in two, another to one of its folders.
pub(crate) fn add_ignore_files(rng: &mut Rng, fixture: &mut GeneratedFixture) {
    if rng.u8(..ONE_IN_IGNORED) != 0 {
        return;
    }
    let mut places = vec![String::new()];
    let folders = fixture.folders();
    if !folders.is_empty() && rng.bool() {
        places.push(folders[rng.usize(..folders.len())].clone());
    }
    for (place, age) in places.into_iter().zip(IGNORE_AGES) {
        let name = if place.is_empty() {
            IGNORE_FILE.to_string()
        } else {
            format!("{place}/{IGNORE_FILE}")
        };
        let text = ignore_text(rng, fixture, &place);
        fixture.entries.insert(name.clone(), Some(text));
        fixture.ages.insert(name, *age);
    }
}

/// One to four lines for the ignore file in `place` (`""` for the root), each
/// ending in a newline.
fn ignore_text(rng: &mut Rng, fixture: &GeneratedFixture, place: &str) -> String {
    let prefix = if place.is_empty() {
        String::new()
    } else {
        format!("{place}/")
    };
    // The fixture's files as seen from `place`.
    let files: Vec<String> = fixture
        .files()
        .filter_map(|(name, _)| name.strip_prefix(&prefix).map(str::to_string))
        .filter(|name| !name.ends_with(IGNORE_FILE))
        .collect();
    let folders: Vec<String> = fixture
        .folders()
        .iter()
        .filter_map(|name| name.strip_prefix(&prefix).map(str::to_string))
        .collect();
    let base = |name: &str| name.rsplit('/').next().unwrap_or(name).to_string();
    let mut lines = Vec::new();
    for _ in 0..rng.usize(1..=4) {
        let file = (!files.is_empty()).then(|| files[rng.usize(..files.len())].clone());
        let line = match (rng.u8(..11), file) {
            (0, Some(file)) => file,
            // A nested file's path below its first folder: an inner slash with
            // no `*.` after it, which only git anchors at the ignore file's folder.
            (1, Some(file)) => match file.split_once('/') {
                Some((_, below)) if below.contains('/') => below.to_string(),
                _ => base(&file),
            },
            (2, Some(file)) => format!("!{}", base(&file)),
            (3, Some(file)) => format!("{}/", base(&file)),
            (4, Some(file)) => match base(&file).rsplit_once('.') {
                Some((_, extension)) => format!("*.{extension}"),
                None => base(&file),
            },
            (5, Some(file)) => base(&file),
            (6, _) if !folders.is_empty() => format!("{}/", folders[rng.usize(..folders.len())]),
            (7, _) => "*.md".to_string(),
            (8, _) => "src/*.rs".to_string(),
            (9, _) => "# a comment".to_string(),
            _ => "*.txt".to_string(),
        };
        lines.push(line);
        // Now and then a negation right after: it must bring back what the
        // line before it hid.
        if rng.u8(..4) == 0 {
            if let Some(file) = files.first() {
                lines.push(format!("!{}", base(file)));
            }
        }
    }
    lines.iter().map(|line| format!("{line}\n")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::generate::fixture_gen::generate_fixture;

    #[test]
    fn ignore_files_come_with_every_kind_of_line_and_an_age_of_their_own() {
        let mut rng = Rng::with_seed(3);
        let mut texts = Vec::new();
        let mut nested = 0;
        for seed in 0..90 {
            let mut fixture = generate_fixture(&mut Rng::with_seed(seed));
            let before = fixture.entries.len();
            add_ignore_files(&mut rng, &mut fixture);
            let added: Vec<&str> = fixture
                .files()
                .filter(|(name, _)| name.ends_with(IGNORE_FILE))
                .map(|(_, text)| text)
                .collect();
            assert_eq!(fixture.entries.len(), before + added.len());
            nested += fixture
                .entries
                .keys()
                .filter(|name| name.contains(&format!("/{IGNORE_FILE}")))
                .count();
            let mut ages: Vec<i64> = fixture.ages.values().copied().collect();
            let count = ages.len();
            ages.sort_unstable();
            ages.dedup();
            assert_eq!(ages.len(), count, "every entry has its own age");
            texts.extend(added.into_iter().map(str::to_string));
        }
        assert!((15..=50).contains(&texts.len()), "{} of 90", texts.len());
        assert!(nested > 0);
        let all = texts.concat();
        assert!(all.lines().any(|l| l.starts_with('!')), "{all}");
        assert!(all.lines().any(|l| l.ends_with('/')), "{all}");
        assert!(
            all.lines().any(|l| l.contains('/') && !l.ends_with('/')),
            "{all}"
        );
        assert!(texts.iter().all(|t| t.ends_with('\n')));
    }
}
