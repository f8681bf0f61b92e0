//! What changed between two runs of one suite (two versions of a server, say): the
//! scenarios whose standing flipped, grouped by requirement, each with the two
//! answers diffed the way the judge diffs an answer against the spec.
//!
//! Two runs of different versions of a suite compare the scenarios both versions
//! have; a scenario the newer version added, or sharpened (its `since:` is after
//! the older version), was not asked the same question in both runs, so it is
//! listed apart and never counted as a new failure, and one the new run's version
//! lacks is listed as removed.

use std::fmt::Write as _;

use super::{Standing, SuiteFacts};
use crate::execute::ScenarioReport;
use crate::judge::diff::unified_between;

/// One scenario whose standing is not the same in both runs (or that only one run
/// has).
#[derive(Debug)]
pub(crate) struct Flip<'a> {
    pub old: Option<&'a ScenarioReport>,
    pub new: Option<&'a ScenarioReport>,
    /// The suite version that sharpened the scenario between the two runs, so
    /// that the runs were judged by different expectations.
    pub sharpened_in: Option<u32>,
}

/// A suite both runs have, at two versions.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct VersionChange {
    pub suite: String,
    pub old: u32,
    pub new: u32,
}

/// The suite versions of the two runs that differ, in the new run's order.
pub(crate) fn version_changes(old: &[SuiteFacts], new: &[SuiteFacts]) -> Vec<VersionChange> {
    new.iter()
        .filter_map(|n| {
            let o = old.iter().find(|o| o.name == n.name)?;
            (o.version != n.version).then(|| VersionChange {
                suite: n.name.clone(),
                old: o.version,
                new: n.version,
            })
        })
        .collect()
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

    /// The new run breaks where the old did not, on the same scenario, or escapes
    /// its root where the old only failed: a new failure.
    pub(crate) fn is_new_failure(&self) -> bool {
        let breaks =
            |r: Option<&ScenarioReport>| r.is_some_and(|r| Standing::of(r).breaks_the_run());
        self.sharpened_in.is_none()
            && breaks(self.new)
            && (!breaks(self.old) || (escaped(self.new) && !escaped(self.old)))
    }

    /// The old run escaped its root and the new one does not, whatever its words
    /// now: the escape is fixed even where the refusal's wording still fails.
    pub(crate) fn is_escape_fixed(&self) -> bool {
        self.sharpened_in.is_none() && escaped(self.old) && self.new.is_some() && !escaped(self.new)
    }
}

/// Whether a run's report of a scenario is an ESCAPE.
fn escaped(report: Option<&ScenarioReport>) -> bool {
    report.is_some_and(|r| Standing::of(r) == Standing::Escaped)
}

/// The scenarios that flipped between an old and a new run, in the new run's order
/// (then those only the old run had).
#[derive(Debug)]
pub(crate) struct Flips<'a> {
    pub flips: Vec<Flip<'a>>,
    /// Scenarios both runs have with the same standing.
    pub unchanged: usize,
    /// The suites whose version differs between the runs.
    pub changes: Vec<VersionChange>,
    /// Scenarios only the new run has because its suite version added them.
    pub added: Vec<&'a ScenarioReport>,
    /// Scenarios only the old run has, of a suite whose version changed.
    pub removed: Vec<&'a ScenarioReport>,
}

impl<'a> Flips<'a> {
    /// What changed from the `old` run to the `new` one; `changes` are the suites
    /// whose version differs between them ([`version_changes`]).
    pub(crate) fn between(
        old: &'a [ScenarioReport],
        new: &'a [ScenarioReport],
        changes: Vec<VersionChange>,
    ) -> Flips<'a> {
        let change_of = |r: &ScenarioReport| {
            let suite = super::suite_of(&r.id);
            changes.iter().find(|c| c.suite == suite).cloned()
        };
        let mut flips = Vec::new();
        let mut added = Vec::new();
        let mut removed = Vec::new();
        let mut unchanged = 0;
        let mut ordered: Vec<&ScenarioReport> = new.iter().collect();
        ordered.sort_by_key(|r| r.position);
        for n in ordered {
            let o = old.iter().find(|o| o.id == n.id);
            // Sharpened or added by the change: `since:` after the old version.
            let after_old = change_of(n).filter(|c| n.since > c.old).map(|_| n.since);
            match o {
                Some(o) if Standing::of(o) == Standing::of(n) => unchanged += 1,
                None if after_old.is_some() => added.push(n),
                _ => flips.push(Flip {
                    old: o,
                    new: Some(n),
                    sharpened_in: after_old.filter(|_| o.is_some()),
                }),
            }
        }
        for o in old {
            if !new.iter().any(|n| n.id == o.id) {
                if change_of(o).is_some() {
                    removed.push(o);
                } else {
                    flips.push(Flip {
                        old: Some(o),
                        new: None,
                        sharpened_in: None,
                    });
                }
            }
        }
        Flips {
            flips,
            unchanged,
            changes,
            added,
            removed,
        }
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
                let mark = match flip.sharpened_in {
                    Some(version) => format!("  (sharpened in version {version}: not counted)"),
                    None if flip.is_new_failure() => "  (new failure)".to_string(),
                    None if flip.is_escape_fixed() => "  (escape fixed)".to_string(),
                    None => String::new(),
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
                    match &n.verdict {
                        crate::execute::Verdict::Fail(mismatches) => {
                            for m in mismatches {
                                let _ = writeln!(out, "    now fails `{}`", m.expectation);
                            }
                        }
                        crate::execute::Verdict::Escape(escape) => {
                            let _ = writeln!(out, "    now: {}", escape.line());
                        }
                        _ => {}
                    }
                }
            }
        }
        self.by_the_change(&mut out);
        out
    }

    /// The scenarios the suite version change added and removed, each with its
    /// standing in the run that has it.
    fn by_the_change(&self, out: &mut String) {
        let change = |r: &ScenarioReport| {
            let suite = super::suite_of(&r.id);
            self.changes
                .iter()
                .find(|c| c.suite == suite)
                .map(|c| format!("{} version {} -> {}", c.suite, c.old, c.new))
                .unwrap_or_default()
        };
        for (what, list) in [
            ("added by {} (only the new run has them)", &self.added),
            ("removed by {} (only the old run has them)", &self.removed),
        ] {
            let mut heading = String::new();
            for r in list {
                let now = change(r);
                if now != heading {
                    let _ = writeln!(out, "{}:", what.replace("{}", &now));
                    heading = now;
                }
                let _ = writeln!(
                    out,
                    "  {}  {}",
                    Standing::of(r).label(),
                    crate::visible::excerpt(&r.id, 200)
                );
            }
        }
    }
}

/// `text` with the run's fixture root written `{root}`: two runs have two roots.
pub(crate) fn rooted(text: &str, report: &ScenarioReport) -> String {
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

    /// An escape that is a refusal now is a fixed escape even where the refusal's
    /// words still fail; a failure that escapes now is a new failure.
    #[test]
    fn an_escape_refused_now_is_fixed_and_a_failure_that_escapes_now_is_new() {
        let escape = Verdict::Escape(crate::execute::Escape {
            kind: crate::execute::EscapeKind::Write,
            tool: "create_file".into(),
            given: "{root}/new.txt".into(),
            reached: "created {outside}/new.txt".into(),
        });
        let refusal = Verdict::Fail(vec![Mismatch::new("code: ACCESS_DENIED", "d")]);
        let old = [answered(
            "s::r::a",
            escape,
            "/tmp/one",
            "Wrote /tmp/one/new.txt",
        )];
        let new = [answered("s::r::a", refusal, "/tmp/two", "Access denied")];
        let flips = Flips::between(&old, &new, Vec::new());
        assert_eq!(flips.new_failures(), 0);
        assert!(flips.flips[0].is_escape_fixed());
        let text = flips.text();
        assert!(
            text.contains("  ESCAPE -> FAIL  s::r::a  (escape fixed)\n"),
            "{text}"
        );
        let back = Flips::between(&new, &old, Vec::new());
        assert_eq!(back.new_failures(), 1);
        let text = back.text();
        assert!(
            text.contains("  FAIL -> ESCAPE  s::r::a  (new failure)\n"),
            "{text}"
        );
        assert!(
            text.contains(
                "    now: ESCAPE write: create_file {root}/new.txt created {outside}/new.txt\n"
            ),
            "{text}"
        );
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
        let flips = Flips::between(&old, &new, Vec::new());
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
        let back = Flips::between(&new, &old, Vec::new());
        assert_eq!(back.new_failures(), 0);
        assert_eq!(back.flips.len(), 1);
    }

    fn at(id: &str, verdict: Verdict, since: u32, position: usize) -> ScenarioReport {
        ScenarioReport {
            since,
            position,
            ..answered(id, verdict, "/r", "answer")
        }
    }

    #[test]
    fn a_suite_version_change_compares_what_both_versions_have() {
        let fail = || Verdict::Fail(vec![Mismatch::new("text", "d")]);
        let facts = |version| {
            vec![SuiteFacts {
                name: "s".into(),
                version,
                origin: "built-in".into(),
            }]
        };
        let old = [
            at("s::r::kept", Verdict::Pass, 1, 0),
            at("s::r::broke", Verdict::Pass, 1, 1),
            at("s::r::sharpened", Verdict::Pass, 1, 2),
            at("s::r::dropped", Verdict::Pass, 1, 3),
        ];
        let new = [
            at("s::r::kept", Verdict::Pass, 1, 0),
            at("s::r::broke", fail(), 1, 1),
            at("s::r::sharpened", fail(), 2, 2),
            at("s::r::arrived", fail(), 2, 3),
        ];
        let changes = version_changes(&facts(1), &facts(2));
        assert_eq!(
            changes,
            [VersionChange {
                suite: "s".into(),
                old: 1,
                new: 2
            }]
        );
        let flips = Flips::between(&old, &new, changes);
        assert_eq!(flips.unchanged, 1);
        // Only the scenario asked the same in both runs counts against the new one.
        assert_eq!(flips.new_failures(), 1);
        let ids = |list: &[&ScenarioReport]| list.iter().map(|r| r.id.clone()).collect::<Vec<_>>();
        assert_eq!(ids(&flips.added), ["s::r::arrived"]);
        assert_eq!(ids(&flips.removed), ["s::r::dropped"]);
        let text = flips.text();
        assert!(
            text.contains("  PASS -> FAIL  s::r::broke  (new failure)\n"),
            "{text}"
        );
        assert!(
            text.contains(
                "  PASS -> FAIL  s::r::sharpened  (sharpened in version 2: not counted)\n"
            ),
            "{text}"
        );
        assert!(
            text.contains(
                "added by s version 1 -> 2 (only the new run has them):\n  FAIL  s::r::arrived\n"
            ),
            "{text}"
        );
        assert!(
            text.contains(
                "removed by s version 1 -> 2 (only the old run has them):\n  PASS  s::r::dropped\n"
            ),
            "{text}"
        );
        // The same version: a scenario only one run has is a flip to or from absent.
        let same = Flips::between(&old, &new, version_changes(&facts(2), &facts(2)));
        assert!(same.added.is_empty() && same.removed.is_empty());
        assert_eq!(same.new_failures(), 3);
    }
}
