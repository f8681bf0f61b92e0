//! `matrix.json`: the matrix as data, described field by field in
//! `docs/matrix.schema.json`, from typed records.

use serde::Serialize;

use super::{Column, Matrix, Requirement};
use crate::report::records::{basis_word, sorted_pretty, CountsRecord, SuiteRecord};
use crate::report::Standing;

/// The shape of `matrix.json`: raise it with any change a reader could notice, and
/// `docs/matrix.schema.json` with it.
pub(crate) const MATRIX_SCHEMA_VERSION: u64 = 2;

#[derive(Serialize)]
struct MatrixRecord<'m> {
    schema_version: u64,
    title: &'m str,
    servers: Vec<ServerRecord<'m>>,
    requirements: Vec<RequirementRecord<'m>>,
}

/// One column: a server with its run's suites and counts.
#[derive(Serialize)]
struct ServerRecord<'m> {
    name: &'m str,
    target: &'m str,
    suites: Vec<SuiteRecord<'m>>,
    counts: CountsRecord,
    badge: BadgeRecord,
}

/// Where the column's badges are, relative to `matrix.json`.
#[derive(Serialize)]
struct BadgeRecord {
    svg: String,
    endpoint: String,
}

#[derive(Serialize)]
struct RequirementRecord<'m> {
    suite: &'m str,
    file: &'m str,
    requirement: &'m str,
    scenarios: Vec<RowRecord<'m>>,
}

/// A scenario, with its result on each server (null where a run lacks it).
#[derive(Serialize)]
struct RowRecord<'m> {
    id: &'m str,
    name: &'m str,
    covers: &'m str,
    basis: &'static str,
    results: Vec<Option<ResultRecord>>,
}

#[derive(Serialize)]
struct ResultRecord {
    standing: &'static str,
    verdict: &'static str,
}

/// The matrix as the JSON document `matrix.json` holds.
pub(crate) fn matrix_json(matrix: &Matrix) -> std::io::Result<String> {
    sorted_pretty(&MatrixRecord {
        schema_version: MATRIX_SCHEMA_VERSION,
        title: &matrix.title,
        servers: matrix.columns.iter().map(server).collect(),
        requirements: matrix
            .requirements
            .iter()
            .map(|q| requirement(matrix, q))
            .collect(),
    })
}

fn server(c: &Column) -> ServerRecord<'_> {
    ServerRecord {
        name: &c.name,
        target: &c.run.target,
        suites: SuiteRecord::all(&c.run.suites),
        counts: CountsRecord::of(&c.tally),
        badge: BadgeRecord {
            svg: format!("badges/{}.svg", c.stem),
            endpoint: format!("badges/{}.json", c.stem),
        },
    }
}

fn requirement<'m>(matrix: &'m Matrix, q: &'m Requirement) -> RequirementRecord<'m> {
    RequirementRecord {
        suite: &q.suite,
        file: &q.file,
        requirement: &q.title,
        scenarios: q
            .rows
            .iter()
            .map(|row| RowRecord {
                id: &row.id,
                name: &row.name,
                covers: &row.covers,
                basis: basis_word(row.basis),
                results: matrix
                    .columns
                    .iter()
                    .map(|c| {
                        c.report(&row.id).map(|r| ResultRecord {
                            standing: Standing::of(r).label(),
                            verdict: r.verdict.label(),
                        })
                    })
                    .collect(),
            })
            .collect(),
    }
}
