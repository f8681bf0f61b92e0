//! What changed between two runs of one suite (two versions of a server, say): the
//! scenarios whose standing flipped, grouped by requirement, each with the two
//! answers diffed the way the judge diffs an answer against the spec.

use std::fmt::Write as _;

use super::Standing;
use crate::execute::ScenarioReport;
use crate::judge::diff::unified_between;

/// One scenario whose standing is not the same in both runs (or that only one run
/// has).
#[derive(Debug)]
pub(crate) struct Flip<'a> {
    pub old: Option<&'a ScenarioReport>,
    pub new: Option<&'a ScenarioReport>,
}

impl Flip<'_> {
    fn id(&self) -> &str {
        self.new
            .or(self.old)
            .map(|r| r.id.as_str())
            .unwrap_or_default()
    }

    fn requirement(&self) -> (&str, &str) {
        let r = self.new.or(self.old);
        (
            r.map(|r| super::suite_of(&r.id)).unwrap_or_default(),
            r.map(|r| r.requirement.as_str()).unwrap_or_default(),
        )
    }

    /// The new run breaks where the old did not: a new failure.
    pub(crate) fn is_new_failure(&self) -> bool {
        let breaks =
            |r: Option<&ScenarioReport>| r.is_some_and(|r| Standing::of(r).breaks_the_run());
        breaks(self.new) && !breaks(self.old)
    }
}

/// The scenarios that flipped between an old and a new run, in the new run's order
/// (then those only the old run had).
#[derive(Debug)]
pub(crate) struct Flips<'a> {
    pub flips: Vec<Flip<'a>>,
    /// Scenarios both runs have with the same standing.
    pub unchanged: usize,
}

impl<'a> Flips<'a> {
    pub(crate) fn between(old: &'a [ScenarioReport], new: &'a [ScenarioReport]) -> Flips<'a> {
        let mut flips = Vec::new();
        let mut unchanged = 0;
        let mut ordered: Vec<&ScenarioReport> = new.iter().collect();
        ordered.sort_by_key(|r| r.position);
        for n in ordered {
            let o = old.iter().find(|o| o.id == n.id);
            match o {
                Some(o) if Standing::of(o) == Standing::of(n) => unchanged += 1,
                _ => flips.push(Flip {
                    old: o,
                    new: Some(n),
                }),
            }
        }
        for o in old {
            if !new.iter().any(|n| n.id == o.id) {
                flips.push(Flip {
                    old: Some(o),
                    new: None,
                });
            }
        }
        Flips { flips, unchanged }
    }

    /// How many flips are new failures.
    pub(crate) fn new_failures(&self) -> usize {
        self.flips.iter().filter(|f| f.is_new_failure()).count()
    }

    /// The flips as text, grouped by requirement (in order of first appearance):
    /// per scenario its old and new standing, the call, and the answers diffed
    /// with each run's fixture root written `{root}`, so only real changes show.
    pub(crate) fn text(&self) -> String {
        let mut groups: Vec<((&str, &str), Vec<&Flip>)> = Vec::new();
        for flip in &self.flips {
            let key = flip.requirement();
            match groups.iter_mut().find(|(k, _)| *k == key) {
                Some((_, list)) => list.push(flip),
                None => groups.push((key, vec![flip])),
            }
        }
        let mut out = String::new();
        for ((suite, requirement), flips) in groups {
            let _ = writeln!(out, "{suite}: {requirement}");
            for flip in flips {
                let word =
                    |r: Option<&ScenarioReport>| r.map_or("absent", |r| Standing::of(r).label());
                let mark = if flip.is_new_failure() {
                    "  (new failure)"
                } else {
                    ""
                };
                let _ = writeln!(
                    out,
                    "  {} -> {}  {}{mark}",
                    word(flip.old),
                    word(flip.new),
                    crate::visible::excerpt(flip.id(), 200)
                );
                if let Some(call) = flip.new.or(flip.old).map(|r| rooted(&r.call, r)) {
                    if !call.is_empty() {
                        let _ = writeln!(out, "    call: {}", crate::visible::excerpt(&call, 300));
                    }
                }
                let answer = |r: Option<&ScenarioReport>| {
                    r.and_then(|r| r.answer.as_deref().map(|a| rooted(a, r)))
                };
                match (answer(flip.old), answer(flip.new)) {
                    (Some(a), Some(b)) if a != b => {
                        for line in unified_between(("old", &a), ("new", &b)).lines() {
                            let _ = writeln!(out, "    {line}");
                        }
                    }
                    (Some(_), Some(_)) => {
                        let _ = writeln!(out, "    the same answer in both runs");
                    }
                    _ => {}
                }
                if let Some(n) = flip.new {
                    if let crate::execute::Verdict::Fail(mismatches) = &n.verdict {
                        for m in mismatches {
                            let _ = writeln!(out, "    now fails `{}`", m.expectation);
                        }
                    }
                }
            }
        }
        out
    }
}

/// `text` with the run's fixture root written `{root}`: two runs have two roots.
fn rooted(text: &str, report: &ScenarioReport) -> String {
    if report.root.is_empty() {
        text.to_string()
    } else {
        text.replace(report.root.as_str(), "{root}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::execute::Verdict;
    use crate::judge::Mismatch;

    fn answered(id: &str, verdict: Verdict, root: &str, answer: &str) -> ScenarioReport {
        ScenarioReport {
            requirement: "Reading".into(),
            root: root.into(),
            answer: Some(answer.into()),
            ..ScenarioReport::blank(id, verdict)
        }
    }

    #[test]
    fn a_pass_that_fails_now_is_a_new_failure_with_its_answers_diffed() {
        let fail = Verdict::Fail(vec![Mismatch::new("code: PATH_NOT_FOUND", "d")]);
        let old = [
            answered(
                "s::r::a",
                Verdict::Pass,
                "/tmp/one",
                "[PATH_NOT_FOUND] /tmp/one/x",
            ),
            answered("s::r::same", Verdict::Pass, "/tmp/one", "ok /tmp/one"),
        ];
        let new = [
            answered("s::r::a", fail, "/tmp/two", "[IO_ERROR] /tmp/two/x"),
            answered("s::r::same", Verdict::Pass, "/tmp/two", "ok /tmp/two"),
        ];
        let flips = Flips::between(&old, &new);
        assert_eq!(flips.unchanged, 1);
        assert_eq!(flips.new_failures(), 1);
        let text = flips.text();
        assert!(
            text.starts_with("s: Reading\n  PASS -> FAIL  s::r::a  (new failure)\n"),
            "{text}"
        );
        assert!(text.contains("-[PATH_NOT_FOUND] {root}/x"), "{text}");
        assert!(text.contains("+[IO_ERROR] {root}/x"), "{text}");
        assert!(text.contains("now fails `code: PATH_NOT_FOUND`"), "{text}");
        // The other way round it is a fix, not a new failure.
        let back = Flips::between(&new, &old);
        assert_eq!(back.new_failures(), 0);
        assert_eq!(back.flips.len(), 1);
    }
}
