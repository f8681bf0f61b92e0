//! `toolspec diff OLD.json NEW.json`: what changed between two runs of one suite,
//! for example against two versions of one program. Exits 1 when the new run fails
//! a scenario the old one did not, so a CI job can refuse a regression.

use std::collections::BTreeSet;
use std::path::PathBuf;

use super::error::CliError;
use super::outcome::Outcome;
use super::output::say;
use crate::report::{read_json, version_changes, Flips};

/// `toolspec diff`.
#[derive(clap::Args, Debug)]
pub(crate) struct DiffArgs {
    /// The earlier run's JSON report (`run --json`).
    old: PathBuf,
    /// The later run's JSON report.
    new: PathBuf,
}

pub(crate) fn diff(args: &DiffArgs) -> Result<Outcome, CliError> {
    let (old_run, old) = read_json(&args.old)?;
    let (new_run, new) = read_json(&args.new)?;
    let names = |run: &crate::report::RunFacts| -> BTreeSet<String> {
        run.suites.iter().map(|s| s.name.clone()).collect()
    };
    if names(&old_run).is_disjoint(&names(&new_run)) {
        return Err(CliError::Matrix(format!(
            "diff: {} and {} share no suite: they are not two runs of one suite",
            args.old.display(),
            args.new.display()
        )));
    }
    let changes = version_changes(&old_run.suites, &new_run.suites);
    for c in &changes {
        say(format_args!(
            "{}: suite version {} -> {}: comparing the scenarios both versions have; those the change added, sharpened or removed are listed apart and not counted",
            c.suite, c.old, c.new
        ));
    }
    let flips = Flips::between(&old, &new, changes);
    // Line by line through `say`, which makes a server's control characters inert.
    for line in flips.text().lines() {
        say(line);
    }
    let new_failures = flips.new_failures();
    let by_the_change = if flips.changes.is_empty() {
        String::new()
    } else {
        format!(
            ", {} added and {} removed by the suite version change",
            flips.added.len(),
            flips.removed.len()
        )
    };
    let escapes_fixed = flips.flips.iter().filter(|f| f.is_escape_fixed()).count();
    let escapes_fixed = if escapes_fixed > 0 {
        format!(", {escapes_fixed} escape(s) fixed")
    } else {
        String::new()
    };
    say(format_args!(
        "{} flipped ({} new failure(s){escapes_fixed}), {} unchanged{by_the_change}: `{}` -> `{}`",
        flips.flips.len(),
        new_failures,
        flips.unchanged,
        old_run.target,
        new_run.target
    ));
    Ok(if new_failures > 0 {
        Outcome::Broken
    } else {
        Outcome::Held
    })
}
