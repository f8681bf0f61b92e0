//! Shrinking a divergence: the case that showed it made smaller, one step at a
//! time, for as long as it still shows the same signature. The steps, in order:
//! drop the calls after the one that diverged, remove each earlier call, remove each
//! fixture entry, each place beside the root, each link, each mode and each drawn
//! server setting, shorten each
//! file's text (empty, its first line, its first half),
//! and simplify each argument (left out, then a string halved, a number made 0 or
//! 1), over again until a whole round changes nothing. Every step is a re-run of
//! the candidate on both sides, and a divergence has a budget of them, so shrinking
//! ends in bounded time and says when the budget ended it. The candidates come in a
//! fixed order and depend only on the answers, so one seed shrinks to one case.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::explore::cases::job_threads::Ended;
use crate::explore::compare::differential::{run_case, CaseOutcome, Divergence, Sides};
use crate::explore::compare::signature::signature;
use crate::explore::generate::case::Case;

/// The default budget of re-runs a divergence is shrunk with.
pub(crate) const DEFAULT_BUDGET: usize = 60;

/// A shrunk case with the divergence it still shows.
#[derive(Debug, Clone)]
pub(crate) struct Shrunk {
    pub case: Case,
    pub divergence: Divergence,
    /// How many re-runs shrinking made.
    pub runs: usize,
    /// Whether the budget ended shrinking before a round changed nothing.
    pub stopped_by_budget: bool,
}

/// The search state: the smallest case so far and the re-runs spent.
struct Shrinker<'a, 'b> {
    sides: &'a Sides<'b>,
    target: String,
    best: Case,
    divergence: Divergence,
    runs: usize,
    budget: usize,
    stopped_by_budget: bool,
}

impl Shrinker<'_, '_> {
    /// Runs `candidate`; keeps it when it shows the same signature.
    async fn try_case(&mut self, mut candidate: Case) -> bool {
        if candidate == self.best {
            return false;
        }
        if self.runs >= self.budget {
            self.stopped_by_budget = true;
            return false;
        }
        self.runs += 1;
        let CaseOutcome::Ran {
            divergence: Some(found),
            ..
        } = run_case(self.sides, &candidate).await
        else {
            return false;
        };
        if signature(&candidate, &found).id() != self.target {
            return false;
        }
        found.drop_later_calls(&mut candidate.calls);
        self.best = candidate;
        self.divergence = found;
        true
    }

    fn spent(&self) -> bool {
        self.runs >= self.budget
    }

    /// One round of every step; whether anything got smaller.
    async fn round(&mut self) -> bool {
        let mut changed = false;
        // Calls before the diverging one, first to last.
        let mut index = 0;
        while index + 1 < self.best.calls.len() && !self.spent() {
            let mut candidate = self.best.clone();
            candidate.calls.remove(index);
            if self.try_case(candidate).await {
                changed = true;
            } else {
                index += 1;
            }
        }
        // Fixture entries, in name order.
        let names: Vec<String> = self.best.fixture.entries.keys().cloned().collect();
        for name in names {
            if self.spent() {
                break;
            }
            let mut candidate = self.best.clone();
            candidate.fixture.entries.remove(&name);
            candidate.fixture.ages.remove(&name);
            changed |= self.try_case(candidate).await;
        }
        // The places beside the root, each left out, in order.
        let mut index = 0;
        while index < self.best.fixture.outside.len() && !self.spent() {
            let mut candidate = self.best.clone();
            candidate.fixture.outside.remove(index);
            if self.try_case(candidate).await {
                changed = true;
            } else {
                index += 1;
            }
        }
        // Links, modes and settings, each left out, in name order.
        changed |= self.drop_each(|case| &mut case.fixture.links).await;
        changed |= self.drop_each(|case| &mut case.fixture.modes).await;
        changed |= self.drop_each(|case| &mut case.settings).await;
        // File texts: empty, the first line, then halves while that holds.
        let files: Vec<String> = self
            .best
            .fixture
            .files()
            .filter(|(_, text)| !text.is_empty())
            .map(|(name, _)| name.to_string())
            .collect();
        for name in files {
            changed |= self.shorten_file(&name).await;
        }
        // Arguments of each call, in name order.
        for call in 0..self.best.calls.len() {
            let names: Vec<String> = self.best.calls[call].args.keys().cloned().collect();
            for name in names {
                changed |= self.simplify_argument(call, &name).await;
            }
        }
        changed
    }

    /// Tries the case without each key of the map `part` picks out of it (its
    /// links, its modes, its settings); whether any was left out.
    async fn drop_each<V>(&mut self, part: impl Fn(&mut Case) -> &mut BTreeMap<String, V>) -> bool {
        let mut changed = false;
        let keys: Vec<String> = part(&mut self.best).keys().cloned().collect();
        for key in keys {
            if self.spent() {
                break;
            }
            let mut candidate = self.best.clone();
            part(&mut candidate).remove(&key);
            changed |= self.try_case(candidate).await;
        }
        changed
    }

    /// The text of file `name` now, if it is a file.
    fn text_of(&self, name: &str) -> Option<String> {
        self.best.fixture.entries.get(name).cloned().flatten()
    }

    async fn try_text(&mut self, name: &str, text: String) -> bool {
        let mut candidate = self.best.clone();
        candidate
            .fixture
            .entries
            .insert(name.to_string(), Some(text));
        self.try_case(candidate).await
    }

    async fn shorten_file(&mut self, name: &str) -> bool {
        if self.try_text(name, String::new()).await {
            return true;
        }
        let mut changed = false;
        if let Some(text) = self.text_of(name) {
            let first_line = text.split_inclusive('\n').next().unwrap_or_default();
            if first_line.len() < text.len() {
                changed |= self.try_text(name, first_line.to_string()).await;
            }
        }
        while let Some(text) = self.text_of(name) {
            let half = first_half(&text);
            if half.is_empty() || self.spent() || !self.try_text(name, half).await {
                break;
            }
            changed = true;
        }
        changed
    }

    async fn simplify_argument(&mut self, call: usize, name: &str) -> bool {
        let mut candidate = self.best.clone();
        candidate.calls[call].args.remove(name);
        if self.try_case(candidate).await {
            return true;
        }
        let mut changed = false;
        while let Some(value) = self.best.calls[call].args.get(name).cloned() {
            let simpler: Vec<Value> = match &value {
                Value::String(text) if text.chars().count() > 8 => match shorter_argument(text) {
                    Some(shorter) => vec![Value::String(shorter)],
                    None => break,
                },
                Value::Number(n) if n.as_i64().is_some_and(|n| !(0..=1).contains(&n)) => {
                    vec![Value::from(0), Value::from(1)]
                }
                _ => break,
            };
            let mut kept = false;
            for simpler in simpler {
                if self.spent() {
                    break;
                }
                let mut candidate = self.best.clone();
                candidate.calls[call].args.insert(name.to_string(), simpler);
                if self.try_case(candidate).await {
                    kept = true;
                    break;
                }
            }
            if !kept {
                break;
            }
            changed = true;
        }
        changed
    }
}

/// The first half of `text`, cut at a character boundary.
fn first_half(text: &str) -> String {
    let chars = text.chars().count();
    text.chars().take(chars / 2).collect()
}

/// An argument's string with the part after its leading `{root}` (or
/// `{root:sh}`) halved, so the placeholder is never cut; None when nothing is
/// left to halve.
fn shorter_argument(text: &str) -> Option<String> {
    let kept = ["{root}", "{root:sh}"]
        .iter()
        .find(|p| text.starts_with(*p))
        .map_or(0, |p| p.len());
    let rest = &text[kept..];
    (rest.chars().count() > 1).then(|| format!("{}{}", &text[..kept], first_half(rest)))
}

/// Shrinks `case`, which showed `divergence`, with at most `budget` re-runs.
pub(crate) async fn shrink(
    sides: &Sides<'_>,
    case: &Case,
    divergence: &Divergence,
    budget: usize,
) -> Shrunk {
    let mut best = case.clone();
    divergence.drop_later_calls(&mut best.calls);
    let mut shrinker = Shrinker {
        sides,
        target: signature(case, divergence).id(),
        best,
        divergence: divergence.clone(),
        runs: 0,
        budget,
        stopped_by_budget: false,
    };
    // A subject that did not start shows nothing a smaller case could.
    if divergence.at_call.is_some() {
        while shrinker.round().await && !shrinker.spent() {}
    }
    Shrunk {
        case: shrinker.best,
        divergence: shrinker.divergence,
        runs: shrinker.runs,
        stopped_by_budget: shrinker.stopped_by_budget,
    }
}

/// Shrinks each of `found` (a case and its divergence) on `jobs` threads, each with
/// its own budget; the results in the order given (None for one an interrupt
/// left unshrunk).
pub(crate) fn shrink_each(
    sides: &Sides<'_>,
    found: &[(&Case, &Divergence)],
    budget: usize,
    jobs: usize,
) -> Vec<Option<Shrunk>> {
    let threads = jobs.clamp(1, found.len().max(1));
    let mut done = crate::explore::cases::job_threads::run_numbered(threads, |runtime, index| {
        let Some((case, divergence)) = usize::try_from(index).ok().and_then(|i| found.get(i))
        else {
            return Ended::Stop;
        };
        Ended::Keep(
            index,
            runtime.block_on(shrink(sides, case, divergence, budget)),
        )
    });
    (0..found.len() as u64).map(|i| done.remove(&i)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn halves_cut_at_characters() {
        assert_eq!(first_half("café日本x"), "caf");
        assert_eq!(first_half("ab"), "a");
        assert_eq!(first_half(""), "");
        assert_eq!(
            shorter_argument("{root}/missing.txt").as_deref(),
            Some("{root}/missi")
        );
        assert_eq!(shorter_argument("{root}/"), None);
        assert_eq!(shorter_argument("abcdefghij").as_deref(), Some("abcde"));
    }
}
