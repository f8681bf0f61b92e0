//! `toolspec explore`'s console text, a line at a time: the heading, the settings
//! drawn, the tools the subject lacks, a block per divergence in case order (a
//! heading for each known one a case went on past), the summary, what became of the baseline, and what `--out` wrote. Lines only: the
//! command prints them (making a server's control characters inert on the way).

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{json, Value};

use crate::author::bless::file_diff;
use crate::author::found_file::Proposed;
use crate::author::Written;
use crate::explore::cases::budget::Budget;
use crate::explore::compare::differential::{CaseOutcome, Divergence, ExploredCase};
use crate::explore::compare::levels::Level;
use crate::explore::generate::case::Case;
use crate::explore::session::{Findings, SessionRequest};
use crate::explore::triage::baseline::{Baseline, Witness};
use crate::explore::triage::stale::WitnessRun;
use crate::server::Target;

/// How many new divergences are shown in full; the rest get their heading line
/// only.
const SHOWN_IN_FULL: usize = 20;

/// `explore SUITE: seed S, N cases, oracle O, subject S`, the line any run can be
/// made again from.
pub(crate) fn heading(request: &SessionRequest<'_>) -> String {
    let shard = request.shard;
    format!(
        "explore {}: seed {}, {}{}, oracle {}, subject {}{}",
        request.suite.name,
        request.seed,
        match request.budget {
            Budget::Cases(cases) => plural(cases as usize, "case"),
            Budget::Seconds(limit) => match limit.as_secs() {
                1 => "1 second".to_string(),
                n => format!("{n} seconds"),
            },
        },
        if shard.is_whole() {
            String::new()
        } else {
            format!(" of shard {}/{}", shard.shard, shard.of)
        },
        request.oracle.name,
        request.subject.name,
        if request.isolated {
            ""
        } else {
            " (isolation: off, --no-isolation)"
        }
    )
}

/// For a suite with no reference server explored against the subject itself,
/// what such a run can find, so a clean one is not read as more than it is.
pub(crate) fn against_itself(request: &SessionRequest<'_>) -> Option<String> {
    (request.subject_is_oracle && request.suite.config.reference.is_none()).then(|| {
        format!(
            "explore {}: the suite names no reference server, so the subject is explored against itself: each case runs twice, in two copies of its fixture, and a divergence is an answer or a file that differs between the two, a call that breaks the server{}",
            request.suite.name,
            if request.suite.config.confinement.is_some() {
                ", or an escape from its root"
            } else {
                ""
            }
        )
    })
}

/// The explore file derived for a suite that has none: a line saying so, then
/// the file as it would be kept, so it can be copied or kept with
/// `--write-explore-file`.
pub(crate) fn derived(suite: &str, file: &str, written: Option<&std::path::Path>) -> Vec<String> {
    let mut lines = vec![match written {
        Some(path) => format!(
            "explore {suite}: no explore.yaml; derived one from the oracle's tools/list and wrote it to {}:",
            path.display()
        ),
        None => format!(
            "explore {suite}: no explore.yaml; derived one from the oracle's tools/list (keep it with --write-explore-file):"
        ),
    }];
    lines.extend(file.lines().map(|line| format!("  {line}")));
    lines
}

/// The settings drawn and their values (a line only when the suite's
/// `explore.yaml` names some), and those left out because a side cannot express
/// them.
pub(crate) fn settings(
    request: &SessionRequest<'_>,
    drawn: &BTreeMap<String, Vec<Value>>,
    not_drawn: &[String],
) -> Vec<String> {
    let suite = &request.suite.name;
    let mut lines = Vec::new();
    if !drawn.is_empty() {
        let listed: Vec<String> = drawn
            .iter()
            .map(|(name, values)| {
                let values: Vec<String> = values.iter().map(Value::to_string).collect();
                format!("{name} {}", values.join("|"))
            })
            .collect();
        lines.push(format!(
            "explore {suite}: settings drawn, one case in three: {}",
            listed.join(", ")
        ));
    }
    if !not_drawn.is_empty() {
        let sides: [(&str, &Target); 2] =
            [("oracle", request.oracle), ("subject", request.subject)];
        let unable: Vec<String> = sides
            .iter()
            .filter(|(_, side)| not_drawn.iter().any(|n| !side.expresses(n)))
            .map(|(role, side)| format!("the {role} `{}`", side.name))
            .collect();
        lines.push(format!(
            "explore {suite}: settings not drawn, as {} cannot express them: {}",
            unable.join(" and "),
            not_drawn.join(", ")
        ));
    }
    lines
}

/// What is done about explored tools the subject does not list.
pub(crate) fn subject_lacks(suite: &str, lacks: &[String], all: bool) -> String {
    if all {
        format!(
            "explore {suite}: the subject lists none of the explored tools ({}): every call would be UNSUPPORTED, so nothing is explored",
            lacks.join(", ")
        )
    } else {
        format!(
            "explore {suite}: the subject does not list {}: calls to {} are UNSUPPORTED, made on neither side and not compared",
            lacks.join(", "),
            if lacks.len() == 1 { "it" } else { "them" }
        )
    }
}

/// Everything printed once the cases have run: the divergence blocks, the
/// summary, and what became of the baseline.
pub(crate) fn findings(findings: &Findings<'_>) -> Vec<String> {
    let mut lines = divergences(findings);
    let suite = &findings.request.suite.name;
    let tally = &findings.tally;
    let classified = findings.classified;
    if tally.unsupported > 0 {
        lines.push(format!(
            "explore {suite}: {} UNSUPPORTED (not made)",
            plural(tally.unsupported, "call")
        ));
    }
    lines.push(format!(
        "explore {suite}: {}, {}, {} ({}), {}{} not run",
        plural(findings.explored.cases as usize, "case"),
        plural(tally.calls, "call"),
        plural(tally.divergences, "divergence"),
        Level::ALL
            .iter()
            .zip(tally.by_level)
            .map(|(level, n)| format!("{} {n}", level.label()))
            .collect::<Vec<_>>()
            .join(", "),
        // Only a baseline lets a case go on past a divergence.
        if findings.baseline.is_some() {
            format!("{} known, passed over, ", tally.passed_over())
        } else {
            String::new()
        },
        plural(tally.failed, "case")
    ));
    lines.push(format!(
        "explore {suite}: {}, {} new{}",
        plural(classified.classes.len(), "signature"),
        classified.new_count(),
        if findings.baseline.is_some() {
            format!(
                ", {} in the baseline",
                classified.classes.len() - classified.new_count()
            )
        } else {
            String::new()
        }
    ));
    lines.push(format!(
        "explore {suite}: agreement over {}: {}",
        plural(tally.calls, "call"),
        tally.agreement().shown()
    ));
    if let Some(baseline) = findings.baseline {
        lines.extend(baseline_lines(findings, baseline));
    }
    lines.extend(fail_fast_stop(findings));
    lines
}

/// With `--fail-fast`, where the run stopped: the case of its first new
/// divergence, and how many cases ran of those asked for.
fn fail_fast_stop(findings: &Findings<'_>) -> Option<String> {
    let first = findings.fail_fast_stop()?;
    let asked = match findings.request.budget {
        Budget::Cases(cases) => format!(" of {cases}"),
        Budget::Seconds(_) => String::new(),
    };
    Some(format!(
        "explore {}: --fail-fast: stopped at the first new divergence, case {first}, after {}{asked}",
        findings.request.suite.name,
        plural(findings.explored.cases as usize, "case"),
    ))
}

/// The timing line for stderr: it differs from run to run, so it stays out of
/// the output a seed repeats.
pub(crate) fn timing(findings: &Findings<'_>) -> String {
    let seconds = findings.elapsed.as_secs_f64();
    format!(
        "explore: {} in {seconds:.1}s ({:.1} cases/s, {:.1} calls/s)",
        plural(findings.explored.cases as usize, "case"),
        findings.explored.cases as f64 / seconds.max(1e-9),
        findings.tally.calls as f64 / seconds.max(1e-9),
    )
}

/// A block per divergence and a line per case not run, in case order. A
/// divergence whose signature an earlier case showed, or the baseline lists, gets
/// its heading and signature only; a new one is shown as it was shrunk.
fn divergences(findings: &Findings<'_>) -> Vec<String> {
    let classified = findings.classified;
    let mut lines = Vec::new();
    let mut shown_in_full = 0;
    for ExploredCase { case, outcome } in &findings.explored.kept {
        let divergence = match outcome {
            CaseOutcome::Failed(why) => {
                lines.push(format!("case {} not run: {}", case.number, first_line(why)));
                continue;
            }
            CaseOutcome::Ran {
                divergence,
                passed_over,
                ..
            } => {
                lines.extend(passed_over_lines(findings, case, passed_over));
                match divergence {
                    Some(divergence) => divergence,
                    None => continue,
                }
            }
        };
        lines.push(heading_line("DIVERGENCE", case, divergence));
        let Some(class) = classified.class_of_case(case.number) else {
            continue;
        };
        let id = class.signature.id();
        if class.first.0.number != case.number {
            lines.push(format!(
                "  signature {id}, as case {}",
                class.first.0.number
            ));
            continue;
        }
        if let Some(known) = findings.known_class(class) {
            lines.push(format!(
                "  signature {id}, in the baseline as {} ({})",
                known.name,
                known.verdict.label()
            ));
            continue;
        }
        lines.push(format!("  signature {id}"));
        shown_in_full += 1;
        if shown_in_full > SHOWN_IN_FULL {
            continue;
        }
        let (case, divergence) = match &class.shrunk {
            Some(shrunk) => {
                lines.push(format!(
                    "  shrunk in {} re-runs from {} and {}{}",
                    shrunk.runs,
                    plural(divergence.calls_made(), "call"),
                    plural(case.fixture.entries.len(), "fixture entry"),
                    if shrunk.stopped_by_budget {
                        format!(
                            " (stopped by the budget of {} re-runs)",
                            findings.request.shrink_budget
                        )
                    } else {
                        String::new()
                    }
                ));
                (&shrunk.case, &shrunk.divergence)
            }
            None => (case, divergence),
        };
        lines.extend(case_block(case, divergence));
    }
    if shown_in_full > SHOWN_IN_FULL {
        lines.push(format!(
            "({SHOWN_IN_FULL} new signatures shown in full; --json FILE has them all)"
        ));
    }
    lines
}

/// `WHAT [level] case N call I of J: tool`, the heading of a divergence.
fn heading_line(what: &str, case: &Case, divergence: &Divergence) -> String {
    let (place, tool) = match divergence.at_call {
        Some(i) => (
            format!("call {} of {}", i + 1, case.calls.len()),
            case.calls.get(i).map(|c| c.tool.as_str()).unwrap_or("?"),
        ),
        None => ("start".to_string(), "-"),
    };
    format!(
        "{what} [{}] case {} {place}: {tool}",
        divergence.difference.level.label(),
        case.number
    )
}

/// Each known divergence `case` went on past, a heading and its signature with
/// the baseline's class: the case was not stopped, so there is no block.
fn passed_over_lines(findings: &Findings<'_>, case: &Case, passed: &[Divergence]) -> Vec<String> {
    let classes = findings.classified.passed_over_in_case(case.number);
    let mut lines = Vec::new();
    for (divergence, class) in passed.iter().zip(classes) {
        lines.push(heading_line("PASSED OVER", case, divergence));
        let known = findings
            .known_class(class)
            .map(|k| format!(", in the baseline as {} ({})", k.name, k.verdict.label()))
            .unwrap_or_default();
        lines.push(format!("  signature {}{known}", class.signature.id()));
    }
    lines
}

/// A case's fixture, its calls up to the divergence, the diff and the stderr tail.
fn case_block(case: &Case, divergence: &Divergence) -> Vec<String> {
    let mut lines = Vec::new();
    let files = case.fixture.entries.iter().map(|(name, text)| match text {
        Some(text) => format!("{name} ({} bytes)", text.len()),
        None => format!("{name}/"),
    });
    let links = case
        .fixture
        .links
        .iter()
        .map(|(name, target)| format!("{name} -> {target}"));
    let modes = case
        .fixture
        .modes
        .iter()
        .map(|(name, mode)| format!("{name} mode {mode:o}"));
    let files: Vec<String> = files.chain(links).chain(modes).collect();
    if files.is_empty() {
        lines.push("  fixture: (empty)".to_string());
    } else {
        lines.push(format!("  fixture: {}", files.join(", ")));
    }
    if !case.fixture.outside.is_empty() {
        lines.push(format!(
            "  beside the root: {}",
            case.fixture.outside.join(", ")
        ));
    }
    if !case.settings.is_empty() {
        lines.push(format!("  settings: {}", json!(case.settings)));
    }
    for (i, call) in divergence.calls_of(case).iter().enumerate() {
        lines.push(format!("  {}. {}", i + 1, call.shown()));
    }
    for line in divergence.difference.diff.lines() {
        lines.push(format!("    {line}"));
    }
    if !divergence.stderr_tail.is_empty() {
        lines.push("  subject's stderr (tail):".to_string());
        let tail: Vec<&str> = divergence.stderr_tail.lines().rev().take(10).collect();
        for line in tail.into_iter().rev() {
            lines.push(format!("    {line}"));
        }
    }
    lines
}

/// What `--out` wrote and what it dropped.
pub(crate) fn written(written: &Written) -> Vec<String> {
    let scenarios: usize = written.files.iter().map(|(_, n)| n).sum();
    let mut lines = vec![format!(
        "wrote {} ({}) to {}; {} dropped",
        plural(written.files.len(), "scenario file"),
        plural(scenarios, "scenario"),
        written.dir.display(),
        plural(written.dropped.len(), "scenario")
    )];
    for (file, why) in &written.dropped {
        lines.push(format!("  dropped {file}: {}", first_line(why)));
    }
    lines
}

/// What `--into` proposed: the file's diff, each scenario dropped and each
/// signature the suite already has, and a line saying where it is kept (`kept`)
/// or that it was written.
pub(crate) fn proposed(suite: &str, proposed: &Proposed, kept: Option<&Path>) -> Vec<String> {
    let shown = proposed.path.display();
    let mut lines = Vec::new();
    if let Some(after) = &proposed.after {
        lines.extend(
            file_diff(proposed.before.as_deref(), after, &proposed.path)
                .lines()
                .map(str::to_string),
        );
    }
    for (file, why) in &proposed.dropped {
        lines.push(format!("  dropped {file}: {}", first_line(why)));
    }
    for key in &proposed.known {
        lines.push(format!(
            "  left out {key}: a scenario of the suite was written from it already"
        ));
    }
    let count = plural(proposed.scenarios, "scenario");
    let dropped = match proposed.dropped.len() {
        0 => String::new(),
        n => format!(" ({} dropped)", plural(n, "scenario")),
    };
    lines.push(match (&proposed.after, kept) {
        (None, _) => format!("explore {suite}: no scenario to add to {shown}{dropped}; nothing proposed"),
        (Some(_), Some(kept)) => format!(
            "explore {suite}: {count} would be added to {shown}{dropped}; nothing written \
             (review the diff, then accept it with `toolspec review`, or give the same command --write); kept in {}",
            kept.display()
        ),
        (Some(_), None) => format!("explore {suite}: {count} added to {shown}{dropped}"),
    });
    lines
}

/// What became of the baseline's classes: how many the run saw, how many it did
/// not whose witness still shows them, and each stale one on a line of its own.
fn baseline_lines(findings: &Findings<'_>, baseline: &Baseline) -> Vec<String> {
    let suite = &findings.request.suite.name;
    let (seen, rechecked) = (findings.seen, findings.rechecked);
    let still = rechecked
        .iter()
        .filter(|(_, run)| *run == WitnessRun::Shows)
        .count();
    let stale: Vec<(usize, &str)> = findings.stale().collect();
    let unchecked = baseline.classes.len() - seen.len() - rechecked.len();
    let mut lines = vec![format!(
        "explore {suite}: baseline {}: {}, {} seen, {} not reached whose witness still shows {}, {} without a witness, {} stale",
        baseline.file,
        plural(baseline.classes.len(), "class"),
        seen.len(),
        still,
        if still == 1 { "it" } else { "them" },
        unchecked,
        stale.len()
    )];
    for (index, why) in stale {
        let Some(class) = baseline.classes.get(index) else {
            continue;
        };
        lines.push(format!(
            "STALE {} ({}): its witness case {} {why}; the class no longer diverges, so remove it from the baseline",
            class.name,
            baseline.place(index),
            class.witness.map(Witness::shown).unwrap_or_default(),
        ));
    }
    lines
}

fn plural(n: usize, what: &str) -> String {
    match (n, what) {
        (1, _) => format!("1 {what}"),
        (_, "class") => format!("{n} classes"),
        (_, "fixture entry") => format!("{n} fixture entries"),
        _ => format!("{n} {what}s"),
    }
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or_default()
}
