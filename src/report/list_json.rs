//! `toolspec list --json`: the suites a run would run and every scenario id of
//! them, one compact JSON object for a program to read (the pytest plugin and the
//! node:test registration collect their tests from it). Keys come out sorted, as
//! the object has always been written.

use serde::Serialize;

use super::records::basis_word;
use crate::scenario::Suite;

#[derive(Serialize)]
struct ListRecord<'s> {
    suites: Vec<SuiteListRecord<'s>>,
}

#[derive(Serialize)]
struct SuiteListRecord<'s> {
    name: &'s str,
    title: &'s str,
    version: u32,
    scenarios: Vec<ScenarioListRecord<'s>>,
}

#[derive(Serialize)]
struct ScenarioListRecord<'s> {
    id: String,
    requirement: &'s str,
    basis: &'static str,
}

/// The object `list --json` prints for `suites`, on one line.
pub(crate) fn list_json(suites: &[Suite]) -> serde_json::Result<String> {
    let record = ListRecord {
        suites: suites.iter().map(suite_record).collect(),
    };
    // Through a JSON value, whose objects are sorted maps: the keys in the order
    // readers have always had them.
    Ok(serde_json::to_value(record)?.to_string())
}

fn suite_record(suite: &Suite) -> SuiteListRecord<'_> {
    SuiteListRecord {
        name: &suite.name,
        title: &suite.config.title,
        version: suite.config.version,
        scenarios: suite
            .scenarios()
            .map(|(file, scenario)| ScenarioListRecord {
                id: suite.scenario_id(file, scenario),
                requirement: &file.content.requirement,
                basis: basis_word(scenario.basis),
            })
            .collect(),
    }
}
