//! `toolspec review`: the proposals `record`, `run --bless` and `explore --into` kept beside a
//! suite of `--specs`, one after another, each shown as the diff of every file
//! it changes, as it would be written now, and taken as the answer says:
//! accept (written, the proposal gone), reject (the proposal gone, nothing
//! written) or skip (left pending). The answers are read a line each from
//! standard input, so a terminal or a script (`printf 'a\nr\n' |`) can give
//! them; `--accept-all` and `--reject-all` answer every one alike. A file
//! edited since its proposal was made gets the proposal merged onto the edit
//! where they change different lines, and is refused where they change the
//! same ones. Nothing is written into a suite file until it is accepted.

use std::io::BufRead;
use std::path::Path;

use super::error::CliError;
use super::outcome::Outcome;
use super::output::say;
use crate::author::bless::file_diff;
use crate::author::pending::{proposals_under, write_resolved, Pending, Resolved};

/// `toolspec review`.
#[derive(clap::Args, Debug)]
pub(crate) struct ReviewArgs {
    /// Review only the proposals of these suites (of --specs); repeatable.
    #[arg(long)]
    suite: Vec<String>,
    /// Accept every proposal without asking.
    #[arg(long, conflicts_with = "reject_all")]
    accept_all: bool,
    /// Reject every proposal without asking.
    #[arg(long)]
    reject_all: bool,
}

/// What to do with one proposal.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Answer {
    Accept,
    Reject,
    Skip,
    /// Leave this one and every later one pending.
    Quit,
}

impl Answer {
    fn read(line: &str) -> Option<Answer> {
        match line.trim().to_ascii_lowercase().as_str() {
            "a" | "accept" | "y" | "yes" => Some(Answer::Accept),
            "r" | "reject" | "n" | "no" => Some(Answer::Reject),
            "s" | "skip" | "" => Some(Answer::Skip),
            "q" | "quit" => Some(Answer::Quit),
            _ => None,
        }
    }
}

/// The counts a review ends with.
#[derive(Default)]
struct Tally {
    accepted: usize,
    rejected: usize,
    pending: usize,
    refused: usize,
}

pub(crate) fn review(args: &ReviewArgs, specs: Option<&Path>) -> Result<Outcome, CliError> {
    let refuse = |why: String| CliError::Review(why);
    let specs = specs.ok_or_else(|| {
        refuse("give --specs DIR, the folder whose suites' proposals to review".into())
    })?;
    let found = proposals_under(specs, &args.suite).map_err(|e| refuse(e.to_string()))?;
    if found.is_empty() {
        say(format!(
            "review: no pending proposal under {}",
            specs.display()
        ));
        return Ok(Outcome::Held);
    }
    let stdin = std::io::stdin();
    let mut answers = stdin.lock().lines();
    let mut tally = Tally::default();
    let mut quit = false;
    let count = found.len();
    for (at, (suite_dir, proposal)) in found.iter().enumerate() {
        if quit {
            tally.pending += 1;
            continue;
        }
        // A proposal that cannot be written now (edited over, unreadable) is
        // still shown with the reason, so it can be rejected.
        let shown = show(suite_dir, proposal, at + 1, count);
        if let Err(why) = &shown {
            say(format!("cannot be accepted: {why}"));
        }
        let answer = if args.accept_all {
            Answer::Accept
        } else if args.reject_all {
            Answer::Reject
        } else {
            ask(&mut answers)
        };
        match answer {
            Answer::Accept => match shown.map(|files| write_resolved(&files, proposal)) {
                Ok(Ok(written)) => {
                    for path in written {
                        say(format!("wrote {}", path.display()));
                    }
                    tally.accepted += 1;
                }
                Ok(Err(why)) => {
                    say(format!("refused: {why}"));
                    tally.refused += 1;
                }
                Err(_) => tally.refused += 1,
            },
            Answer::Reject => match std::fs::remove_file(proposal) {
                Ok(()) => tally.rejected += 1,
                Err(why) => {
                    say(format!(
                        "refused: cannot remove {}: {why}",
                        proposal.display()
                    ));
                    tally.refused += 1;
                }
            },
            Answer::Skip => tally.pending += 1,
            Answer::Quit => {
                quit = true;
                tally.pending += 1;
            }
        }
    }
    say(format!(
        "review: {} accepted, {} rejected, {} left pending{}",
        tally.accepted,
        tally.rejected,
        tally.pending,
        match tally.refused {
            0 => String::new(),
            n => format!(", {n} refused (nothing of them written)"),
        }
    ));
    Ok(match tally.refused {
        0 => Outcome::Held,
        _ => Outcome::Broken,
    })
}

/// Shows proposal `at` of `count`: what made it, and each file's diff from its
/// text now to what accepting writes. The files as they would be written.
fn show(
    suite_dir: &Path,
    proposal: &Path,
    at: usize,
    count: usize,
) -> Result<Vec<Resolved>, String> {
    let pending = Pending::load(proposal)
        .map_err(|e| e.to_string())?
        .ok_or("it is gone")?;
    let suite = file_name(suite_dir);
    say(format!(
        "── proposal {at} of {count}: {} into suite `{suite}` ({}) ──",
        pending.made_by,
        file_name(proposal)
    ));
    if !pending.command.is_empty() {
        say(format!(
            "   made by: toolspec {}",
            pending.command.join(" ")
        ));
    }
    let resolved = pending
        .resolve(suite_dir, proposal)
        .map_err(|e| e.to_string())?;
    for file in &resolved {
        if file.folder {
            say(format!("+ folder {}", file.path.display()));
            continue;
        }
        if file.merged {
            say(format!(
                "note: {} was edited since the proposal was made; shown merged onto the edit",
                file.path.display()
            ));
        }
        for line in file_diff(file.now.as_deref(), &file.after, &file.path).lines() {
            say(line);
        }
    }
    Ok(resolved)
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The answer to one proposal, asked on stderr and read from standard input:
/// asked again after an answer it cannot read; the end of input skips.
fn ask(answers: &mut impl Iterator<Item = std::io::Result<String>>) -> Answer {
    loop {
        eprint!("accept, reject, skip or quit? [a/r/s/q] ");
        let Some(Ok(line)) = answers.next() else {
            eprintln!();
            return Answer::Quit;
        };
        match Answer::read(&line) {
            Some(answer) => return answer,
            None => eprintln!("`{}` is none of a, r, s, q", line.trim()),
        }
    }
}
