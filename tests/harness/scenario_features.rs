//! Scenario-format features shown holding against the reference server (their
//! failures are in `can_fail`): `any_of` passes on either branch, and a captured
//! value reaches later calls and expectations.

use toolspec::{Target, Verdict};

use crate::support::{exe, run, suite};

/// Every scenario of the `features` data suite passes against the reference.
#[test]
fn every_feature_scenario_passes_against_the_reference() {
    let features = suite("tests/data/specs/features");
    let target = Target::reference(exe(), &features);
    let ids: Vec<String> = features.ids().collect();
    assert!(!ids.is_empty());
    for id in ids {
        let report = run(&features, &id, &target, None);
        assert!(matches!(report.verdict, Verdict::Pass), "{report}");
    }
}
