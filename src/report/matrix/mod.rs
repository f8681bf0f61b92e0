//! One suite (or several) across several servers: each server's run report lined
//! up by scenario, the scenarios grouped by requirement in the suites' order. The
//! results page, `matrix.json`, `matrix.md` and the badges are all written from
//! this one model, so they cannot disagree.

mod badge;
mod json;
mod markdown;
mod order;

pub(crate) use badge::{badge_svg, shields_endpoint};
pub(crate) use json::matrix_json;
pub(crate) use markdown::{inert as inert_markdown, matrix_markdown};
pub(crate) use order::{clause_order, ClauseOrder};

use std::collections::HashMap;

use super::{RunFacts, Standing, Tally};
use crate::execute::ScenarioReport;
use crate::scenario::Basis;

/// One server's run: a column of the matrix.
#[derive(Debug)]
pub(crate) struct Column {
    /// The server's name as the page shows it (unique among the columns).
    pub name: String,
    /// The name of the server's own files (its badges), unique among the columns;
    /// set by [`Matrix::new`].
    pub stem: String,
    pub run: RunFacts,
    pub reports: Vec<ScenarioReport>,
    pub tally: Tally,
    by_id: HashMap<String, usize>,
}

impl Column {
    pub(crate) fn new(name: String, run: RunFacts, reports: Vec<ScenarioReport>) -> Column {
        let by_id = reports
            .iter()
            .enumerate()
            .map(|(at, r)| (r.id.clone(), at))
            .collect();
        Column {
            stem: file_stem(&name),
            name,
            run,
            tally: Tally::of(&reports),
            reports,
            by_id,
        }
    }

    /// This server's report of scenario `id`, if its run had it.
    pub(crate) fn report(&self, id: &str) -> Option<&ScenarioReport> {
        self.by_id.get(id).map(|at| &self.reports[*at])
    }

    /// This server's standing on scenario `id`, if its run had it.
    pub(crate) fn standing(&self, id: &str) -> Option<Standing> {
        self.report(id).map(Standing::of)
    }
}

/// One scenario: a row of the matrix.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Row {
    /// `suite::file::name`.
    pub id: String,
    /// The scenario's own name, the id's last part.
    pub name: String,
    /// The clause it covers.
    pub covers: String,
    pub basis: Basis,
}

/// The scenarios of one requirement (one scenario file of a suite).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Requirement {
    pub suite: String,
    /// The file's stem, the id's middle part.
    pub file: String,
    /// The requirement as its file states it.
    pub title: String,
    pub rows: Vec<Row>,
}

/// The servers' runs side by side.
#[derive(Debug)]
pub(crate) struct Matrix {
    /// What the page is about, as its heading.
    pub title: String,
    pub columns: Vec<Column>,
    /// Requirements in the spec's order ([`ClauseOrder`]), each with its scenarios
    /// in the order of the clauses they cover; where the order of a suite's clauses
    /// is not known, in the order the first run that has them lists its scenarios.
    pub requirements: Vec<Requirement>,
}

impl Matrix {
    /// The columns side by side, their rows in `order`.
    pub(crate) fn new(title: String, mut columns: Vec<Column>, order: &ClauseOrder) -> Matrix {
        let mut stems: Vec<String> = Vec::new();
        for column in &mut columns {
            let mut stem = column.stem.clone();
            let mut n = 1;
            while stems.contains(&stem) {
                n += 1;
                stem = format!("{}-{n}", column.stem);
            }
            column.stem.clone_from(&stem);
            stems.push(stem);
        }
        let mut requirements: Vec<Requirement> = Vec::new();
        for column in &columns {
            let mut ordered: Vec<&ScenarioReport> = column.reports.iter().collect();
            ordered.sort_by_key(|r| r.position);
            for report in ordered {
                let mut parts = report.id.splitn(3, "::");
                let suite = parts.next().unwrap_or_default().to_string();
                let file = parts.next().unwrap_or_default().to_string();
                let name = parts.next().unwrap_or_default().to_string();
                let at = match requirements
                    .iter()
                    .position(|q| q.suite == suite && q.file == file)
                {
                    Some(at) => at,
                    None => {
                        requirements.push(Requirement {
                            suite,
                            file,
                            title: report.requirement.clone(),
                            rows: Vec::new(),
                        });
                        requirements.len() - 1
                    }
                };
                let rows = &mut requirements[at].rows;
                if !rows.iter().any(|row| row.id == report.id) {
                    rows.push(Row {
                        id: report.id.clone(),
                        name,
                        covers: report.covers.clone(),
                        basis: report.basis,
                    });
                }
            }
        }
        in_clause_order(&mut requirements, order);
        Matrix {
            title,
            columns,
            requirements,
        }
    }

    /// The names of the suites the runs hold, in order, for a heading.
    pub(crate) fn suites(&self) -> Vec<&str> {
        let mut names: Vec<&str> = Vec::new();
        for q in &self.requirements {
            if !names.contains(&q.suite.as_str()) {
                names.push(&q.suite);
            }
        }
        names
    }
}

/// Sorts each requirement's scenarios by the clause they cover and the
/// requirements by the first clause theirs cover, suite by suite in the order the
/// suites first came. The sorts are stable: scenarios of one clause keep their
/// file's order, and what the index does not list goes after what it does, in the
/// order it came.
fn in_clause_order(requirements: &mut [Requirement], order: &ClauseOrder) {
    let mut suites: Vec<String> = Vec::new();
    for q in requirements.iter() {
        if !suites.contains(&q.suite) {
            suites.push(q.suite.clone());
        }
    }
    for q in requirements.iter_mut() {
        let suite = q.suite.clone();
        q.rows
            .sort_by_key(|row| order.rank(&suite, &row.covers).unwrap_or(usize::MAX));
    }
    requirements.sort_by_key(|q| {
        let suite_at = suites.iter().position(|s| *s == q.suite).unwrap_or(0);
        let first_clause = q
            .rows
            .iter()
            .filter_map(|row| order.rank(&q.suite, &row.covers))
            .min()
            .unwrap_or(usize::MAX);
        (suite_at, first_clause)
    });
}

/// A standing's word on the page and in `matrix.md`: the label, except that a
/// baseline's excuse reads as what it is.
pub(crate) fn cell_word(standing: Option<Standing>) -> &'static str {
    match standing {
        None => "not run",
        Some(Standing::KnownFailure) => "known failure",
        Some(Standing::StaleBaseline) => "STALE baseline",
        Some(other) => other.label(),
    }
}

/// A score as a percentage, or `-` when nothing was judged.
pub(crate) fn percent(score: &crate::execute::standing::Score) -> String {
    match score.total {
        0 => "-".to_string(),
        total => format!("{}%", score.passed * 100 / total),
    }
}

/// A file name for a server's own files (its badge): letters, digits and `-`,
/// other characters as `-`, never empty.
pub(crate) fn file_stem(name: &str) -> String {
    let stem: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    let trimmed: String = stem
        .split('-')
        .filter(|part| !part.is_empty())
        .collect::<Vec<_>>()
        .join("-");
    if trimmed.is_empty() {
        "server".to_string()
    } else {
        trimmed
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::execute::Verdict;
    use crate::judge::Mismatch;

    fn run(target: &str) -> RunFacts {
        RunFacts {
            target: target.to_string(),
            isolation: Vec::new(),
            partition: None,
            suites: Vec::new(),
        }
    }

    fn report(id: &str, requirement: &str, position: usize, verdict: Verdict) -> ScenarioReport {
        ScenarioReport {
            requirement: requirement.to_string(),
            position,
            ..ScenarioReport::blank(id, verdict)
        }
    }

    #[test]
    fn rows_follow_the_suites_order_and_every_runs_scenarios() {
        let a = Column::new(
            "a".into(),
            run("a"),
            vec![
                report("s::read::second", "Reading", 1, Verdict::Pass),
                report("s::read::first", "Reading", 0, Verdict::Pass),
                report("s::write::only", "Writing", 2, Verdict::Pass),
            ],
        );
        let fail = Verdict::Fail(vec![Mismatch::new("text", "diff")]);
        let b = Column::new(
            "b".into(),
            run("b"),
            vec![
                report("s::read::first", "Reading", 0, fail),
                report("s::read::extra", "Reading", 1, Verdict::Pass),
            ],
        );
        let matrix = Matrix::new("t".into(), vec![a, b], &ClauseOrder::default());
        let ids: Vec<Vec<&str>> = matrix
            .requirements
            .iter()
            .map(|q| q.rows.iter().map(|r| r.name.as_str()).collect())
            .collect();
        assert_eq!(ids, [vec!["first", "second", "extra"], vec!["only"]]);
        assert_eq!(
            matrix.columns[1].standing("s::read::first"),
            Some(Standing::Failed)
        );
        assert_eq!(matrix.columns[1].standing("s::write::only"), None);
        assert_eq!(cell_word(None), "not run");
    }

    fn covering(id: &str, requirement: &str, position: usize, covers: &str) -> ScenarioReport {
        ScenarioReport {
            covers: covers.to_string(),
            ..report(id, requirement, position, Verdict::Pass)
        }
    }

    #[test]
    fn rows_follow_the_clause_index_not_the_file_names() {
        // The files come sorted by name (glob before list before write); the spec
        // document lists writing, then listing, then globbing.
        let reports = vec![
            covering("s::glob::matches", "Globbing", 0, "glob/matches"),
            covering("s::glob::none", "Globbing", 1, "glob/no-match"),
            covering("s::list::missing", "Listing", 2, "list/missing"),
            covering("s::list::lists", "Listing", 3, "list/lists"),
            covering("s::list::unindexed", "Listing", 4, "list/not-in-index"),
            covering("s::write::new", "Writing", 5, "write/new"),
            covering("t::other::one", "Other suite", 6, "x/y"),
        ];
        let mut order = ClauseOrder::default();
        order.add(
            "s",
            [
                "write/new",
                "list/lists",
                "list/missing",
                "glob/no-match",
                "glob/matches",
            ],
        );
        let names = |order: &ClauseOrder| -> Vec<Vec<String>> {
            let column = Column::new("a".into(), run("a"), reports.clone());
            Matrix::new("t".into(), vec![column], order)
                .requirements
                .iter()
                .map(|q| q.rows.iter().map(|r| r.id.clone()).collect())
                .collect()
        };
        assert_eq!(
            names(&order),
            [
                vec!["s::write::new"],
                vec!["s::list::lists", "s::list::missing", "s::list::unindexed"],
                vec!["s::glob::none", "s::glob::matches"],
                vec!["t::other::one"],
            ]
        );
        assert!(order.knows("s") && !order.knows("t"));
        // Without the index: the reports' order, as it came.
        assert_eq!(
            names(&ClauseOrder::default()),
            [
                vec!["s::glob::matches", "s::glob::none"],
                vec!["s::list::missing", "s::list::lists", "s::list::unindexed"],
                vec!["s::write::new"],
                vec!["t::other::one"],
            ]
        );
    }

    #[test]
    fn file_stems_are_plain() {
        assert_eq!(file_stem("@google/gemini-cli 0.1"), "google-gemini-cli-0-1");
        assert_eq!(file_stem("../.."), "server");
    }
}
