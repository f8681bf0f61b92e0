//! Ways out of the root, mixed into a drawn case from a stream of their own (so
//! every other case, and every other draw of this one, stays as it was): one path
//! argument of one call is pointed at the file beside the root by one route, the
//! escape kinds of `docs/confinement.md`: `..` steps, an absolute path, the
//! root's sibling whose name starts with the root's, a link in the root to a file
//! beside it (by a relative and by an absolute target), a link to the folder
//! beside it, and a link to a file there that is not there yet, which a write
//! through it would create. The main draw reaches only the first and a few links
//! now and then; a server that lets one route out is found here in a short run.

use std::collections::BTreeMap;

use fastrand::Rng;
use serde_json::Value;

use crate::explore::explore_file::{ExploreData, Meaning};
use crate::explore::generate::call::GeneratedCall;
use crate::explore::generate::fixture_gen::{
    GeneratedFixture, OUTSIDE_ABSOLUTE, OUTSIDE_BY_DOTS, SIBLING_FILE,
};

/// How often (one in N) a case gets a route out of its root.
const ONE_IN_ROUTE: u8 = 3;

/// The age of a link a route adds, in seconds: none of the other entries' ages
/// (see `fixture_gen::LINK_AGES`), so no listing sorted by time meets a tie.
const ROUTE_LINK_AGE: i64 = 120;

/// One route: the path a call gives, and the link in the root it goes through
/// (its name and target), if any.
struct Route {
    path: &'static str,
    link: Option<(&'static str, &'static str)>,
}

/// Every route, each drawn as often as the others.
const ROUTES: [Route; 8] = [
    Route {
        path: OUTSIDE_BY_DOTS,
        link: None,
    },
    Route {
        path: OUTSIDE_ABSOLUTE,
        link: None,
    },
    Route {
        path: SIBLING_FILE,
        link: None,
    },
    Route {
        path: "{root}/out-file.txt",
        link: Some(("out-file.txt", "../outside/secret.txt")),
    },
    Route {
        path: "{root}/out-absolute.txt",
        link: Some(("out-absolute.txt", OUTSIDE_ABSOLUTE)),
    },
    Route {
        path: "{root}/out-folder/secret.txt",
        link: Some(("out-folder", "../outside")),
    },
    Route {
        path: "{root}/out-folder",
        link: Some(("out-folder", "../outside")),
    },
    Route {
        path: "{root}/out-new.txt",
        link: Some(("out-new.txt", "../outside/new.txt")),
    },
];

/// Now and then points one path argument of `calls` along a route out of the
/// root, adding the route's link to `fixture`; whether it did.
pub(crate) fn add_escape_route(
    rng: &mut Rng,
    fixture: &mut GeneratedFixture,
    calls: &mut [GeneratedCall],
    data: &ExploreData,
) -> bool {
    if fixture.outside.is_empty() || rng.u8(..ONE_IN_ROUTE) != 0 {
        return false;
    }
    let mut holes: Vec<(usize, String)> = Vec::new();
    for (index, call) in calls.iter().enumerate() {
        let Some(tool) = data.tools.iter().find(|t| t.name == call.tool) else {
            continue;
        };
        for (name, meaning) in &tool.arguments {
            if *meaning == Meaning::Path && call.args.get(name).is_some_and(Value::is_string) {
                holes.push((index, name.clone()));
            }
        }
    }
    if holes.is_empty() {
        return false;
    }
    let (index, argument) = &holes[rng.usize(..holes.len())];
    let route = &ROUTES[rng.usize(..ROUTES.len())];
    if let Some((name, target)) = route.link {
        fixture.links.insert(name.to_string(), target.to_string());
        fixture.ages.insert(name.to_string(), ROUTE_LINK_AGE);
    }
    calls[*index]
        .args
        .insert(argument.clone(), Value::String(route.path.to_string()));
    true
}

/// One time in two, gives a case with a route out of its root one of the
/// settings under which its program stays inside (boris's `allow`), when the
/// settings drawn for it give none: only a confined server can escape, and a
/// setting drawn one case in three would leave most routes unjudged.
pub(crate) fn confine_sometimes(
    rng: &mut Rng,
    settings: &mut BTreeMap<String, Value>,
    data: &ExploreData,
) {
    if data.confining.iter().any(|s| settings.contains_key(s)) || !rng.bool() {
        return;
    }
    let drawable = data
        .confining
        .iter()
        .find_map(|name| Some((name, data.settings.get(name).filter(|v| !v.is_empty())?)));
    if let Some((name, values)) = drawable {
        settings.insert(name.clone(), values[rng.usize(..values.len())].clone());
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;
    use crate::explore::explore_file::ExploredTool;
    use crate::explore::generate::fixture_gen::generate_fixture;

    #[test]
    fn every_route_is_drawn_and_each_link_it_needs_is_in_the_fixture() {
        let data = ExploreData {
            tools: vec![ExploredTool {
                name: "view".into(),
                arguments: BTreeMap::from([("path".to_string(), Meaning::Path)]),
                schema: serde_json::json!({"properties": {"path": {"type": "string"}}}),
            }],
            masks: Vec::new(),
            tasks: None,
            settings: BTreeMap::new(),
            confining: Vec::new(),
        };
        let mut seen = BTreeSet::new();
        let mut routed = 0;
        for seed in 0..400 {
            let mut rng = Rng::with_seed(seed);
            let mut fixture = generate_fixture(&mut rng);
            let mut calls = vec![GeneratedCall {
                tool: "view".into(),
                args: serde_json::Map::from_iter([("path".to_string(), "{root}/a.txt".into())]),
            }];
            add_escape_route(&mut rng, &mut fixture, &mut calls, &data);
            let path = calls[0].args["path"].as_str().expect("a path").to_string();
            if path == "{root}/a.txt" {
                continue;
            }
            routed += 1;
            let route = ROUTES
                .iter()
                .find(|r| r.path == path)
                .expect("the path is a route's");
            if let Some((name, target)) = route.link {
                assert_eq!(fixture.links.get(name).map(String::as_str), Some(target));
                assert_eq!(fixture.ages.get(name), Some(&ROUTE_LINK_AGE));
            }
            seen.insert(path);
        }
        assert_eq!(seen.len(), ROUTES.len(), "{seen:?}");
        assert!((100..170).contains(&routed), "one case in three: {routed}");
    }

    #[test]
    fn a_routed_case_is_given_a_confining_setting_one_time_in_two_unless_it_has_one() {
        let data = ExploreData {
            tools: Vec::new(),
            masks: Vec::new(),
            tasks: None,
            settings: BTreeMap::from([
                ("allow".to_string(), vec![serde_json::json!(["{root}"])]),
                ("timeout".to_string(), vec![serde_json::json!(5)]),
            ]),
            confining: vec!["allow".to_string()],
        };
        let mut given = 0;
        for seed in 0..200 {
            let mut settings = BTreeMap::from([("timeout".to_string(), serde_json::json!(5))]);
            confine_sometimes(&mut Rng::with_seed(seed), &mut settings, &data);
            if settings.contains_key("allow") {
                assert_eq!(settings["allow"], serde_json::json!(["{root}"]));
                given += 1;
            }
        }
        assert!((70..130).contains(&given), "one time in two: {given}");
        let mut confined = BTreeMap::from([("allow".to_string(), serde_json::json!(["/x"]))]);
        confine_sometimes(&mut Rng::with_seed(1), &mut confined, &data);
        assert_eq!(confined["allow"], serde_json::json!(["/x"]));
        let silent = ExploreData {
            confining: Vec::new(),
            ..data
        };
        let mut none = BTreeMap::new();
        for seed in 0..20 {
            confine_sometimes(&mut Rng::with_seed(seed), &mut none, &silent);
        }
        assert!(none.is_empty());
    }
}
