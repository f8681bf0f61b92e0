//! What one scenario run came to: its verdict, what the target's baseline says of
//! it, and, when a run repeats scenarios, the verdict of every attempt.

use std::collections::BTreeSet;
use std::time::Duration;

use crate::judge::Mismatch;
use crate::scenario::{Basis, Bindings};
use crate::server::outcome::CallOutcome;

/// The verdicts of the result model.
#[derive(Debug, Clone)]
pub enum Verdict {
    /// Every expectation held.
    Pass,
    /// The server answered, not as the spec says.
    Fail(Vec<Mismatch>),
    /// The server did not answer properly: died, hung, wrote garbage.
    Error {
        /// What went wrong, in words.
        what: String,
        /// The last lines the server wrote to stderr.
        stderr_tail: String,
    },
    /// The target cannot express something the scenario needs.
    Skip(String),
    /// The server does not list a tool of the suite that the scenario calls: it does
    /// not implement that part of the spec, which is not the same as getting it wrong.
    Unsupported(String),
    /// A server meant to stay inside its root read or changed a place beside it,
    /// whatever its answer's words: no baseline excuses it.
    Escape(Escape),
}

/// What a server confined to its root did beside it (`docs/confinement.md`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Escape {
    /// Whether it read or wrote.
    pub kind: EscapeKind,
    /// The tool of the call that escaped.
    pub tool: String,
    /// The path that call gave, as the suite wrote it (`{root}/link.txt`).
    pub given: String,
    /// What it reached, in words: `returned the content of {outside}/secret.txt`,
    /// `created {outside}/new.txt`.
    pub reached: String,
}

/// Whether an escape read (a canary showed) or wrote (a place changed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EscapeKind {
    /// A canary showed in its answer or its stderr.
    Read,
    /// A place beside the root was created, changed or removed.
    Write,
}

impl EscapeKind {
    /// `read` or `write`, as reports write it.
    pub fn word(self) -> &'static str {
        match self {
            EscapeKind::Read => "read",
            EscapeKind::Write => "write",
        }
    }

    /// The kind a report's word names.
    pub(crate) fn from_word(word: &str) -> Option<EscapeKind> {
        [EscapeKind::Read, EscapeKind::Write]
            .into_iter()
            .find(|k| k.word() == word)
    }
}

impl Escape {
    /// The line a report gives first: `ESCAPE read: view {root}/link.txt returned
    /// the content of {outside}/secret.txt`.
    pub fn line(&self) -> String {
        let given = if self.given.is_empty() {
            String::new()
        } else {
            format!(" {}", self.given)
        };
        format!(
            "ESCAPE {}: {}{given} {}",
            self.kind.word(),
            self.tool,
            self.reached
        )
    }
}

impl Verdict {
    /// The verdict's word in reports: PASS, FAIL, ERROR, SKIP or UNSUPPORTED.
    pub fn label(&self) -> &'static str {
        match self {
            Verdict::Pass => "PASS",
            Verdict::Fail(_) => "FAIL",
            Verdict::Error { .. } => "ERROR",
            Verdict::Skip(_) => "SKIP",
            Verdict::Unsupported(_) => "UNSUPPORTED",
            Verdict::Escape(_) => "ESCAPE",
        }
    }

    /// One line saying what happened, for showing attempts side by side.
    pub(crate) fn headline(&self) -> String {
        match self {
            Verdict::Pass => "PASS".to_string(),
            Verdict::Fail(mismatches) => {
                let keys: Vec<&str> = mismatches.iter().map(|m| m.expectation.as_str()).collect();
                format!("FAIL ({})", keys.join(", "))
            }
            Verdict::Error { what, .. } => {
                format!("ERROR ({})", crate::visible::excerpt(what, 120))
            }
            Verdict::Skip(why) | Verdict::Unsupported(why) => {
                format!("{} ({why})", self.label())
            }
            Verdict::Escape(escape) => escape.line(),
        }
    }
}

/// What the target's baseline says of one scenario.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Excuse {
    /// The baseline does not name the scenario.
    #[default]
    None,
    /// The baseline names the scenario: any failure of it is known.
    Whole,
    /// The baseline names these expectations of the scenario (the part after `#`
    /// in `suite::file::scenario#code`): a failure of these is known, of any other
    /// is not.
    Expectations(BTreeSet<String>),
}

impl Excuse {
    /// What `baseline` says of the scenario `id`: an entry equal to the id excuses
    /// all of it, entries `id#key` excuse those expectations.
    pub(crate) fn of(baseline: &BTreeSet<String>, id: &str) -> Excuse {
        if baseline.contains(id) {
            return Excuse::Whole;
        }
        let keys: BTreeSet<String> = baseline
            .iter()
            .filter_map(|entry| entry.strip_prefix(id)?.strip_prefix('#'))
            .map(str::to_string)
            .collect();
        if keys.is_empty() {
            Excuse::None
        } else {
            Excuse::Expectations(keys)
        }
    }

    /// Whether this excuse covers the mismatch `m`.
    pub(crate) fn covers(&self, m: &Mismatch) -> bool {
        match self {
            Excuse::None => false,
            Excuse::Whole => true,
            Excuse::Expectations(keys) => keys.iter().any(|k| crate::judge::key_covers(k, &m.key)),
        }
    }
}

/// The most of an answer a report keeps: enough for any diff a person reads, and
/// a flooding server cannot make a report of gigabytes.
pub(crate) const ANSWER_LIMIT: usize = 64 * 1024;

/// Everything a report needs about one scenario run.
#[derive(Debug, Clone)]
pub struct ScenarioReport {
    /// `suite::file::name`, stable across runs.
    pub id: String,
    /// The spec requirement of the scenario's file.
    pub requirement: String,
    /// The spec clause the scenario covers.
    pub covers: String,
    /// What the target's baseline says of this scenario.
    pub excuse: Excuse,
    /// Preparatory calls that were answered with an error.
    pub warnings: Vec<String>,
    /// What happened: when the scenario ran several times, the first attempt that
    /// escaped, else the first that did not pass (the one worth reading), else the
    /// first.
    pub verdict: Verdict,
    /// Every attempt's verdict, in order, when the run repeats scenarios; empty when
    /// it ran once.
    pub attempts: Vec<Verdict>,
    /// The judged call, as sent (with `{root}` filled in).
    pub call: String,
    /// What the server answered to the judged call, as text (a tool result's text,
    /// or what came instead: an error, a broken connection, a timeout), at most
    /// 64 KiB; None when the judged call was never made. Kept so two
    /// runs can be compared by what the server said.
    pub answer: Option<String>,
    /// The fixture root the server ran in.
    pub root: String,
    /// When the scenario did not pass and what the server said shows an action its
    /// isolation denied: one line saying so and which `isolation:` key allows it.
    pub isolation_denied: Option<String>,
    /// The fixture root was left on disk (`keep_failed`).
    pub root_kept: bool,
    /// The scenario's `note:`, shown with a failure so its reader knows the choice made.
    pub note: Option<String>,
    /// Whether the seed says it, or only the upstream program does.
    pub basis: Basis,
    /// The suite version the scenario arrived in.
    pub since: u32,
    /// The suite version the target is gated at, when it pins one.
    pub pinned: Option<u32>,
    /// Wall time from fixture to verdict (of every attempt together).
    pub elapsed: Duration,
    /// The scenario's place among those the run selected, counted across suites
    /// before `--partition` takes its shard: merged shards are put back in this order.
    pub position: usize,
    /// The judged call's outcome and what judging it needed, when the run kept
    /// it (`RunOptions::keep_judged`).
    pub(crate) judged: Option<JudgedCall>,
}

/// The judged call's outcome, the placeholders bound when it was judged, and its
/// arguments as sent (placeholders filled, the suite's names): enough to judge
/// another answer to the same call as this one was judged.
#[derive(Debug, Clone)]
pub(crate) struct JudgedCall {
    pub outcome: CallOutcome,
    pub bindings: Bindings,
    pub args: serde_json::Map<String, serde_json::Value>,
}

impl ScenarioReport {
    /// A report of the scenario `id` with `verdict` and nothing else known yet: no
    /// call made, no baseline entry, basis `spec`, arrived in version 1. Callers fill
    /// in what they know with struct update syntax.
    pub(crate) fn blank(id: impl Into<String>, verdict: Verdict) -> ScenarioReport {
        ScenarioReport {
            id: id.into(),
            requirement: String::new(),
            covers: String::new(),
            excuse: Excuse::None,
            warnings: Vec::new(),
            verdict,
            attempts: Vec::new(),
            call: String::new(),
            answer: None,
            root: String::new(),
            isolation_denied: None,
            root_kept: false,
            note: None,
            basis: Basis::Spec,
            since: 1,
            pinned: None,
            elapsed: Duration::ZERO,
            position: 0,
            judged: None,
        }
    }

    /// The scenario arrived after the suite version the target pins.
    pub fn is_newer_than_the_pin(&self) -> bool {
        self.pinned.is_some_and(|pin| self.since > pin)
    }

    /// The attempts did not all come to the same verdict.
    pub fn is_flaky(&self) -> bool {
        self.attempts
            .windows(2)
            .any(|pair| pair[0].label() != pair[1].label())
    }

    /// The reports of several attempts at one scenario as one report: the verdict of
    /// the first attempt that did not pass, every attempt's verdict, and the time of
    /// all of them. `attempts` holds at least one report.
    pub(crate) fn from_attempts(attempts: Vec<ScenarioReport>) -> Option<ScenarioReport> {
        let elapsed = attempts.iter().map(|a| a.elapsed).sum();
        let verdicts: Vec<Verdict> = attempts.iter().map(|a| a.verdict.clone()).collect();
        // An escape first, whatever came before it: it is what the run is judged by.
        let shown = attempts
            .iter()
            .position(|a| matches!(a.verdict, Verdict::Escape(_)))
            .or_else(|| {
                attempts
                    .iter()
                    .position(|a| !matches!(a.verdict, Verdict::Pass))
            })
            .unwrap_or(0);
        let mut report = attempts.into_iter().nth(shown)?;
        report.elapsed = elapsed;
        if verdicts.len() > 1 {
            report.attempts = verdicts;
        }
        Some(report)
    }
}
