//! One generated case: a fixture and a sequence of one to six calls made in one
//! session, so state carries over (an edit, then a view). Each case is drawn from
//! its own PRNG, seeded from the run's seed and the case's number, so a case is the
//! same whatever else runs and however many jobs run it.

use std::collections::BTreeMap;

use fastrand::Rng;
use serde_json::Value;

use super::call::GeneratedCall;

use crate::explore::explore_file::{ExploreData, Meaning, TaskRules};
use crate::explore::generate::argument_gen::generate_arguments;
use crate::explore::generate::escape_gen::{add_escape_route, confine_sometimes};
use crate::explore::generate::fixture_gen::{generate_fixture, GeneratedFixture};
use crate::explore::generate::ignore_gen::add_ignore_files;
use crate::explore::generate::rare_gen::add_rare_inputs;

/// The most calls a case makes.
pub(crate) const MAX_CALLS: usize = 6;

/// A case: its number, its fixture, the server settings both sides start with,
/// and its calls.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Case {
    pub number: u64,
    pub fixture: GeneratedFixture,
    /// Setting -> value, as a scenario's `settings:` (values may hold `{root}`).
    pub settings: BTreeMap<String, Value>,
    pub calls: Vec<GeneratedCall>,
}

/// How often (one in N) a case starts its servers with settings, when the suite's
/// `explore.yaml` names any.
const ONE_IN_SETTINGS: u8 = 3;

/// Mixed into a case's seed for its settings, so they come from a stream of their
/// own and drawing them leaves the fixture and calls of a case as they were.
const SETTINGS_STREAM: u64 = 0x5e77_1265;

/// Mixed into a case's seed for its ignore files, drawn after its calls from a
/// stream of their own, so the calls are drawn from the fixture as it was.
const IGNORE_STREAM: u64 = 0x160e_f11e;

/// Mixed into a case's seed for the rare inputs mixed into it after it is drawn
/// (`rare_gen.rs`), from a stream of their own.
const RARE_STREAM: u64 = 0x4a2e_0dd5;

/// Mixed into a case's seed for its route out of the root (`escape_gen.rs`),
/// drawn last, from a stream of its own.
const ESCAPE_STREAM: u64 = 0xe5ca_9e0f;

/// The seed of case `number` of a run seeded `seed`: both mixed by splitmix64, so
/// neighbouring cases and neighbouring seeds share no stream.
pub(crate) fn case_seed(seed: u64, number: u64) -> u64 {
    splitmix64(seed ^ splitmix64(number))
}

fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Case `number` of the run seeded `seed`.
pub(crate) fn generate_case(seed: u64, number: u64, data: &ExploreData) -> Case {
    let mut rng = Rng::with_seed(case_seed(seed, number));
    let mut fixture = generate_fixture(&mut rng);
    let mut calls: Vec<GeneratedCall> = (0..rng.usize(1..=MAX_CALLS))
        .map(|_| {
            let tool = &data.tools[rng.usize(..data.tools.len())];
            GeneratedCall {
                tool: tool.name.clone(),
                args: generate_arguments(&mut rng, tool, &fixture),
            }
        })
        .collect();
    if let Some(tasks) = &data.tasks {
        start_tasks_before_reading_them(&mut rng, &mut calls, tasks, data, &fixture);
    }
    add_ignore_files(
        &mut Rng::with_seed(case_seed(seed, number) ^ IGNORE_STREAM),
        &mut fixture,
    );
    add_rare_inputs(
        &mut Rng::with_seed(case_seed(seed, number) ^ RARE_STREAM),
        &mut fixture,
        &mut calls,
        data,
    );
    let mut escape_rng = Rng::with_seed(case_seed(seed, number) ^ ESCAPE_STREAM);
    let routed = add_escape_route(&mut escape_rng, &mut fixture, &mut calls, data);
    let mut settings = generate_settings(
        &mut Rng::with_seed(case_seed(seed, number) ^ SETTINGS_STREAM),
        &data.settings,
    );
    if routed {
        confine_sometimes(&mut escape_rng, &mut settings, data);
    }
    Case {
        number,
        fixture,
        settings,
        calls,
    }
}

/// Makes the call before each call that reads a task (a `task-id` argument) one
/// that starts a task, one time in two: `tasks.start`'s tool with its arguments
/// drawn and `tasks.start`'s fixed on top. A call reading a task first in the case
/// gets one inserted before it (the case's last call dropped past
/// [`MAX_CALLS`]). Drawn after the rest of the case, so other cases are as they
/// were.
fn start_tasks_before_reading_them(
    rng: &mut Rng,
    calls: &mut Vec<GeneratedCall>,
    tasks: &TaskRules,
    data: &ExploreData,
    fixture: &GeneratedFixture,
) {
    let Some(mut starter) = data
        .tools
        .iter()
        .find(|t| t.name == tasks.start_tool)
        .cloned()
    else {
        return;
    };
    starter.arguments.extend(tasks.start_draw.clone());
    let reads_task = |call: &GeneratedCall| {
        data.tools
            .iter()
            .any(|t| t.name == call.tool && t.arguments.values().any(|m| *m == Meaning::TaskId))
    };
    let mut index = 0;
    while index < calls.len() {
        if reads_task(&calls[index]) && rng.bool() {
            let mut args = generate_arguments(rng, &starter, fixture);
            args.extend(tasks.start_args.clone());
            let start = GeneratedCall {
                tool: starter.name.clone(),
                args,
            };
            if index == 0 {
                calls.insert(0, start);
                calls.truncate(MAX_CALLS);
                index += 1;
            } else {
                calls[index - 1] = start;
            }
        }
        index += 1;
    }
}

/// One case in [`ONE_IN_SETTINGS`], each drawable setting with even odds (at
/// least one), each with one of its listed values; else none.
fn generate_settings(
    rng: &mut Rng,
    drawable: &BTreeMap<String, Vec<Value>>,
) -> BTreeMap<String, Value> {
    let mut settings = BTreeMap::new();
    if drawable.is_empty() || rng.u8(..ONE_IN_SETTINGS) != 0 {
        return settings;
    }
    let names: Vec<&String> = drawable.keys().collect();
    let first = rng.usize(..names.len());
    for (i, name) in names.iter().enumerate() {
        let values = &drawable[*name];
        if (i == first || rng.bool()) && !values.is_empty() {
            settings.insert((*name).clone(), values[rng.usize(..values.len())].clone());
        }
    }
    settings
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::explore::explore_file::ExploredTool;

    fn data() -> ExploreData {
        let tool = |name: &str, arg: &str, meaning: Meaning| ExploredTool {
            name: name.into(),
            arguments: BTreeMap::from([(arg.to_string(), meaning)]),
            schema: serde_json::json!({"properties": {arg: {"type": "string"}}, "required": [arg]}),
        };
        ExploreData {
            tools: vec![
                tool("bash", "command", Meaning::Shell),
                tool("view", "path", Meaning::Path),
            ],
            masks: Vec::new(),
            tasks: None,
            confining: Vec::new(),
            settings: BTreeMap::from([
                ("max_file_size".to_string(), vec![serde_json::json!(16)]),
                ("read_only".to_string(), vec![Value::Bool(true)]),
            ]),
        }
    }

    #[test]
    fn a_call_reading_a_task_often_follows_one_starting_it() {
        let mut data = data();
        data.tools.push(ExploredTool {
            name: "task_output".into(),
            arguments: BTreeMap::from([("task_id".to_string(), Meaning::TaskId)]),
            schema: serde_json::json!({"properties": {"task_id": {"type": "string"}}}),
        });
        data.tasks = Some(TaskRules {
            started: regex::Regex::new("id: (\\w+)").expect("regex"),
            running: regex::Regex::new("running").expect("regex"),
            start_tool: "bash".into(),
            start_args: serde_json::json!({"background": true})
                .as_object()
                .cloned()
                .unwrap_or_default(),
            start_draw: BTreeMap::from([("command".to_string(), Meaning::ShellWithoutFiles)]),
        });
        let cases: Vec<Case> = (0..200).map(|n| generate_case(7, n, &data)).collect();
        let (mut reads, mut started_before) = (0, 0);
        for case in &cases {
            assert!((1..=MAX_CALLS).contains(&case.calls.len()));
            for (i, call) in case.calls.iter().enumerate() {
                if call.tool != "task_output" {
                    continue;
                }
                reads += 1;
                let before = i.checked_sub(1).map(|b| &case.calls[b]);
                if let Some(start) = before.filter(|c| c.args.get("background").is_some()) {
                    started_before += 1;
                    assert_eq!(start.tool, "bash");
                    let command = start.args.get("command").and_then(Value::as_str);
                    assert!(
                        !command.unwrap_or_default().contains("{root"),
                        "{command:?}"
                    );
                }
            }
        }
        assert!(reads > 20, "{reads}");
        assert!(
            started_before * 4 > reads && started_before < reads,
            "{started_before} of {reads}"
        );
    }

    #[test]
    fn a_seed_and_number_give_one_case_and_others_differ() {
        let data = data();
        assert_eq!(generate_case(42, 3, &data), generate_case(42, 3, &data));
        let cases: Vec<Case> = (0..50).map(|n| generate_case(42, n, &data)).collect();
        let other: Vec<Case> = (0..50).map(|n| generate_case(43, n, &data)).collect();
        assert_ne!(cases, other);
        assert!(cases
            .iter()
            .all(|c| (1..=MAX_CALLS).contains(&c.calls.len())));
        assert!(cases.iter().any(|c| c.calls.len() == 1));
        assert!(cases.iter().any(|c| c.calls.len() == MAX_CALLS));
        assert!(cases
            .iter()
            .any(|c| c.calls.iter().any(|call| call.tool == "bash")));
        let with_settings = cases.iter().filter(|c| !c.settings.is_empty()).count();
        assert!((5..=30).contains(&with_settings), "{with_settings} of 50");
        assert!(cases.iter().any(|c| c.settings.len() == 2));
        let mut bare = data.clone();
        bare.settings.clear();
        let unset = generate_case(42, 3, &bare);
        assert!(unset.settings.is_empty());
        assert_eq!(
            (unset.fixture, unset.calls),
            (cases[3].fixture.clone(), cases[3].calls.clone()),
            "settings leave the rest of a case as it was"
        );
    }
}
