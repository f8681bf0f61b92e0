//! The build budget: how many crates a release build of `toolspec` compiles is kept
//! in `build-budget.txt`, so a change that adds dependencies says so in its diff
//! instead of slowing every install unnoticed.

use std::collections::BTreeSet;
use std::process::Command;

use crate::support::repo;

/// The graph the budget counts: what a release build of the binary compiles on the
/// platform CI runs on (pinned, so the count is the same on any machine).
const TREE_ARGS: &[&str] = &[
    "tree",
    "--locked",
    "--offline",
    "-e",
    "normal,build",
    "--target",
    "x86_64-unknown-linux-gnu",
    "-p",
    "toolspec",
    "--prefix",
    "none",
];

/// The distinct packages in `cargo tree --prefix none` output: a package seen
/// before is printed again with ` (*)`, and one used for both the host and the
/// target appears twice.
fn distinct_packages(tree: &str) -> BTreeSet<&str> {
    tree.lines()
        .map(|line| line.trim_end().trim_end_matches(" (*)"))
        .filter(|line| !line.is_empty())
        .collect()
}

/// The number in the budget file: the one line that is not blank or a `#` comment.
fn read_budget(text: &str) -> Result<usize, String> {
    let mut numbers = text
        .lines()
        .map(str::trim)
        .enumerate()
        .filter(|(_, line)| !line.is_empty() && !line.starts_with('#'));
    let (index, line) = numbers
        .next()
        .ok_or("build-budget.txt has no number (only comments or blank lines)")?;
    if let Some((extra, _)) = numbers.next() {
        return Err(format!(
            "build-budget.txt line {}: one number expected, but line {} has another",
            extra + 1,
            index + 1
        ));
    }
    line.parse().map_err(|_| {
        format!(
            "build-budget.txt line {}: {line:?} is not a count of crates",
            index + 1
        )
    })
}

/// Whether `count` matches the budget, and if not what to do about it.
fn check_budget(count: usize, budget: usize) -> Result<(), String> {
    match count.cmp(&budget) {
        std::cmp::Ordering::Equal => Ok(()),
        std::cmp::Ordering::Greater => Err(format!(
            "a release build of toolspec now compiles {count} crates, {} over the budget of \
             {budget} in build-budget.txt. See what came in with `cargo tree -e normal,build \
             --target x86_64-unknown-linux-gnu -p toolspec`; if the new crates are worth \
             their build time, raise the budget to {count} in build-budget.txt in the same \
             change and say why in the commit",
            count - budget
        )),
        std::cmp::Ordering::Less => Err(format!(
            "a release build of toolspec now compiles {count} crates, {} under the budget of \
             {budget} in build-budget.txt: lower the budget to {count} to keep the win",
            budget - count
        )),
    }
}

#[test]
fn release_build_stays_within_the_crate_budget() {
    // The cargo running the tests, else the one that built them.
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| env!("CARGO").to_string());
    let output = Command::new(&cargo)
        .args(TREE_ARGS)
        .current_dir(repo())
        .output()
        .unwrap_or_else(|e| panic!("cannot run `{cargo} tree` to count crates: {e}"));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "`{cargo} {}` failed ({}), so the crates cannot be counted:\n{stderr}",
        TREE_ARGS.join(" "),
        output.status
    );
    let tree = String::from_utf8_lossy(&output.stdout);
    let count = distinct_packages(&tree).len();
    let budget_text = std::fs::read_to_string(repo().join("build-budget.txt"))
        .unwrap_or_else(|e| panic!("cannot read build-budget.txt: {e}"));
    let budget = read_budget(&budget_text).unwrap_or_else(|e| panic!("{e}"));
    if let Err(why) = check_budget(count, budget) {
        panic!("{why}");
    }
}

#[test]
fn a_crate_over_the_budget_is_caught_with_the_count_and_the_fix() {
    let err = check_budget(176, 175).expect_err("one crate over must fail");
    assert!(
        err.contains("compiles 176 crates, 1 over the budget of 175")
            && err.contains("raise the budget to 176 in build-budget.txt"),
        "{err}"
    );
    let err = check_budget(170, 175).expect_err("a stale budget must fail");
    assert!(err.contains("lower the budget to 170"), "{err}");
    assert_eq!(check_budget(175, 175), Ok(()));
}

#[test]
fn packages_are_counted_once_however_often_the_tree_prints_them() {
    let tree = "toolspec v0.1.0 (/repo)\nserde v1.0.0\nmemchr v2.8.3\nserde v1.0.0 (*)\n\
                memchr v2.8.3\nsyn v2.0.1\nsyn v3.0.9 (*)\n";
    let found: Vec<&str> = distinct_packages(tree).into_iter().collect();
    assert_eq!(
        found,
        [
            "memchr v2.8.3",
            "serde v1.0.0",
            "syn v2.0.1",
            "syn v3.0.9",
            "toolspec v0.1.0 (/repo)"
        ]
    );
}

#[test]
fn a_budget_file_that_is_not_one_number_is_refused_with_its_line() {
    assert_eq!(read_budget("# why\n\n175\n"), Ok(175));
    let err = read_budget("# why\nmany\n").expect_err("not a number");
    assert!(
        err.contains("line 2") && err.contains("\"many\" is not a count"),
        "{err}"
    );
    let err = read_budget("175\n180\n").expect_err("two numbers");
    assert!(
        err.contains("line 2") && err.contains("one number"),
        "{err}"
    );
    let err = read_budget("# only comments\n").expect_err("no number");
    assert!(err.contains("no number"), "{err}");
}
