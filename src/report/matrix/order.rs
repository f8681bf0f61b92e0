//! The spec's order for the rows of a results page: each suite's clauses as its
//! clause index (`clauses.yaml`) lists them, document by document. A requirement
//! goes where the first clause its scenarios cover stands, and its scenarios follow
//! the clauses they cover; the reports' own order (the suite's files, sorted by
//! name) only breaks ties and places what the index does not know.

use std::collections::HashMap;
use std::path::Path;

use crate::catalogue::Catalogue;
use crate::scenario::Suite;

/// Where each clause stands in its suite's spec documents, per suite.
#[derive(Debug, Clone, Default)]
pub(crate) struct ClauseOrder {
    by_suite: HashMap<String, HashMap<String, usize>>,
}

impl ClauseOrder {
    /// The order of the clause indexes of `suites`; a suite without one is left
    /// out, so its rows keep the reports' order.
    pub(crate) fn of_suites<'a>(suites: impl IntoIterator<Item = &'a Suite>) -> ClauseOrder {
        let mut order = ClauseOrder::default();
        suites.into_iter().for_each(|suite| order.include(suite));
        order
    }

    /// Records the order of `suite`'s clause index, if it has one.
    pub(crate) fn include(&mut self, suite: &Suite) {
        if let Some(index) = &suite.clause_index {
            let clauses = index.documents.iter().flat_map(|d| &d.clauses);
            self.add(suite.name(), clauses.map(|c| c.id.as_str()));
        }
    }

    /// Records `clauses`, in their order, as suite `suite`'s.
    pub(crate) fn add<'a>(&mut self, suite: &str, clauses: impl IntoIterator<Item = &'a str>) {
        let ranks = self.by_suite.entry(suite.to_string()).or_default();
        for clause in clauses {
            let next = ranks.len();
            ranks.entry(clause.to_string()).or_insert(next);
        }
    }

    /// Whether the order of suite `suite`'s clauses is known.
    pub(crate) fn knows(&self, suite: &str) -> bool {
        self.by_suite.contains_key(suite)
    }

    /// Where clause `clause` of suite `suite` stands, if its index lists it.
    pub(crate) fn rank(&self, suite: &str, clause: &str) -> Option<usize> {
        self.by_suite.get(suite)?.get(clause).copied()
    }
}

/// The spec's order for the rows of a page of reports of the suites `names`: each
/// suite's clause index, read from the suite of that name that `toolspec` has
/// (built in, or under `specs`), whatever version the reports were run at. With it
/// come the names whose order is not known (no such suite here, no index, or a
/// suite that does not load), whose rows keep the reports' order.
pub(crate) fn clause_order(specs: Option<&Path>, names: &[String]) -> (ClauseOrder, Vec<String>) {
    let Ok(catalogue) = Catalogue::open(specs) else {
        return (ClauseOrder::default(), names.to_vec());
    };
    let mut order = ClauseOrder::default();
    for name in names {
        if let Ok(suites) = catalogue.select(std::slice::from_ref(name)) {
            suites.iter().for_each(|suite| order.include(suite));
        }
    }
    let unknown = names.iter().filter(|n| !order.knows(n)).cloned().collect();
    (order, unknown)
}
