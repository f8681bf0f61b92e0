//! Unified diffs drawn from a generated fixture, for a tool that applies a patch:
//! one or two file blocks, each changing a line a fixture file has (so it
//! applies), a line it does not have (so it fails), or creating a new file. A
//! patch of two blocks whose second fails shows whether a server applies all or
//! nothing. Every name is a fixture file's or a new one under the root, never
//! one outside it.

use fastrand::Rng;

use crate::explore::generate::fixture_gen::{GeneratedFixture, WORDS};

/// One or two file blocks.
pub(crate) fn generate_patch(rng: &mut Rng, fixture: &GeneratedFixture) -> String {
    (0..rng.usize(1..=2))
        .map(|n| file_block(rng, fixture, n))
        .collect()
}

/// The `n`-th block: a change of one line of a fixture file that applies or
/// does not, or a new file.
fn file_block(rng: &mut Rng, fixture: &GeneratedFixture, n: usize) -> String {
    let files: Vec<(&str, &str)> = fixture.files().collect();
    let word = WORDS[rng.usize(..WORDS.len())];
    if files.is_empty() || rng.u8(..4) == 0 {
        return format!("--- /dev/null\n+++ b/new-{n}.txt\n@@ -0,0 +1,1 @@\n+{word}\n");
    }
    let (name, text) = files[rng.usize(..files.len())];
    let lines: Vec<&str> = text.lines().collect();
    let (number, old) = if lines.is_empty() || rng.u8(..3) == 0 {
        (1, "zz_never")
    } else {
        let index = rng.usize(..lines.len());
        (index + 1, lines[index])
    };
    format!("--- a/{name}\n+++ b/{name}\n@@ -{number},1 +{number},1 @@\n-{old}\n+{word}\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::generate::fixture_gen::generate_fixture;

    #[test]
    fn patches_change_lines_that_are_there_or_not_and_create_files() {
        let mut rng = Rng::with_seed(6);
        let patches: Vec<(GeneratedFixture, String)> = (0..60)
            .map(|seed| {
                let fixture = generate_fixture(&mut Rng::with_seed(seed));
                let patch = generate_patch(&mut rng, &fixture);
                (fixture, patch)
            })
            .collect();
        assert!(patches.iter().any(|(_, p)| p.contains("--- /dev/null")));
        assert!(patches.iter().any(|(_, p)| p.contains("-zz_never\n")));
        assert!(patches.iter().any(|(_, p)| p.matches("--- ").count() == 2));
        let applies = patches.iter().any(|(fixture, patch)| {
            patch.lines().any(|line| {
                line.strip_prefix('-')
                    .filter(|old| !old.starts_with("--") && *old != "zz_never")
                    .is_some_and(|old| fixture.files().any(|(_, t)| t.lines().any(|l| l == old)))
            })
        });
        assert!(applies);
        assert!(patches
            .iter()
            .all(|(_, p)| !p.contains("..") && p.ends_with('\n')));
    }
}
