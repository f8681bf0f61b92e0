//! Which of a suite's scenarios a mutation tries first. Scoring stops at the first
//! scenario that kills a mutation, so a good guess makes a score cost one scenario
//! per mutation instead of a search through the suite.
//!
//! The guess, best first: the scenarios that killed the mutation last time
//! ([`super::hints`]), then those that share words with it, then the rest in file
//! order. A mutation's words are those of its name and description; a scenario's,
//! those of its name, its file, its calls (tools, argument names and values) and
//! its expectations (code, texts, JSON). A shared word counts for more the fewer
//! of the suite's scenarios have it: `head_limit` says more than `grep`, which
//! says more than `the`. The schedule later moves scenarios that were slow against
//! the honest server to the back of their group.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::scenario::{Scenario, Then};

/// How likely a scenario is to kill a mutation, most likely first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Likelihood {
    /// It killed the mutation last time: the hint's place in the list.
    KilledBefore(usize),
    /// It shares words with the mutation: the sum of their rarities (in
    /// thousandths), the greatest first.
    SharesWords(Reverse<u32>),
    /// Nothing says so.
    Unknown,
}

/// Lower-cased words of `text`: runs of letters, digits and `_`.
fn words_of(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
}

/// The words of a JSON value's keys and strings.
fn value_words(value: &Value, into: &mut BTreeSet<String>) {
    match value {
        Value::String(s) => into.extend(words_of(s)),
        Value::Array(items) => items.iter().for_each(|v| value_words(v, into)),
        Value::Object(map) => {
            for (key, v) in map {
                into.extend(words_of(key));
                value_words(v, into);
            }
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

fn then_words(then: &Then, into: &mut BTreeSet<String>) {
    let texts = then.code.iter().chain(&then.text);
    for text in texts.chain(&then.contains).chain(&then.not_contains) {
        into.extend(words_of(text));
    }
    if let Some(json) = &then.json {
        value_words(json, into);
    }
    for branch in then.any_of.iter().flatten() {
        then_words(branch, into);
    }
}

/// The words a scenario is about: those of its name, its file's stem (`not-found`
/// also as `not_found`), its calls and its expectations.
pub(crate) fn scenario_words(file_stem: &str, scenario: &Scenario) -> BTreeSet<String> {
    let mut words: BTreeSet<String> = words_of(&scenario.name).collect();
    words.extend(words_of(file_stem));
    words.insert(file_stem.replace('-', "_").to_lowercase());
    for call in scenario.given.calls.iter().chain(&scenario.when.0) {
        words.insert(call.tool.to_lowercase());
        for (key, value) in &call.args {
            words.extend(words_of(key));
            value_words(value, &mut words);
        }
    }
    then_words(&scenario.then, &mut words);
    words
}

/// The words a mutation is about: those of its description, and every run of its
/// name's parts joined with `_` (`grep-count-occurrences` gives `grep`,
/// `grep_count`, `count`, ...).
pub(crate) fn mutation_words(name: &str, what: &str) -> BTreeSet<String> {
    let mut words: BTreeSet<String> = words_of(what).collect();
    let parts: Vec<&str> = name.split('-').filter(|p| !p.is_empty()).collect();
    for start in 0..parts.len() {
        for end in start + 1..=parts.len() {
            words.insert(parts[start..end].join("_").to_lowercase());
        }
    }
    words
}

/// How many of a suite's scenarios have each word.
#[derive(Debug, Default, Clone)]
pub(crate) struct Rarity(BTreeMap<String, u32>);

impl Rarity {
    /// Counts the words of every scenario of one suite.
    pub(crate) fn of<'w>(scenarios: impl IntoIterator<Item = &'w BTreeSet<String>>) -> Rarity {
        let mut counts = BTreeMap::new();
        for words in scenarios {
            for word in words {
                *counts.entry(word.clone()).or_insert(0) += 1;
            }
        }
        Rarity(counts)
    }

    /// What the words `shared` say together, in thousandths: each counts 1 divided
    /// by the number of scenarios that have it.
    fn weight<'w>(&self, shared: impl Iterator<Item = &'w String>) -> u32 {
        shared
            .map(|w| 1000 / self.0.get(w).copied().unwrap_or(1).max(1))
            .sum()
    }
}

/// How likely the scenario with `id` and `words` is to kill a mutation with
/// `mutation_words` that `hinted` scenarios killed last time.
pub(crate) fn likelihood(
    id: &str,
    words: &BTreeSet<String>,
    mutation_words: &BTreeSet<String>,
    hinted: &[String],
    rarity: &Rarity,
) -> Likelihood {
    if let Some(place) = hinted.iter().position(|h| h == id) {
        return Likelihood::KilledBefore(place);
    }
    match rarity.weight(words.intersection(mutation_words)) {
        0 => Likelihood::Unknown,
        weight => Likelihood::SharesWords(Reverse(weight)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(words: &[&str]) -> BTreeSet<String> {
        words.iter().map(|w| w.to_string()).collect()
    }

    #[test]
    fn a_mutation_is_about_the_words_of_its_description_and_runs_of_its_name() {
        let words = mutation_words(
            "multi-edit-partial-write",
            "multi_edit writes after each edit, so `NOT_FOUND` ...",
        );
        for expected in [
            "multi_edit",
            "writes",
            "not_found",
            "multi",
            "partial_write",
            "multi_edit_partial_write",
        ] {
            assert!(words.contains(expected), "{expected} in {words:?}");
        }
        assert!(!words.contains("edit_write"), "only runs of the name");
        assert!(!words.contains(""));
    }

    #[test]
    fn killers_of_last_time_come_first_then_rare_shared_words_then_common_ones() {
        let mutation = mutation_words("grep-count-occurrences", "grep counts every match");
        let hinted = vec!["s::f::b".to_string(), "s::f::a".to_string()];
        let count = set(&["grep", "count"]);
        let grep = set(&["grep", "content"]);
        let view = set(&["view"]);
        let rarity = Rarity::of([&count, &grep, &grep, &grep, &view]);
        let of =
            |id: &str, words: &BTreeSet<String>| likelihood(id, words, &mutation, &hinted, &rarity);
        assert_eq!(of("s::f::a", &view), Likelihood::KilledBefore(1));
        assert_eq!(of("s::f::b", &view), Likelihood::KilledBefore(0));
        // `count` is in one scenario, `grep` in four.
        assert_eq!(
            of("s::f::c", &count),
            Likelihood::SharesWords(Reverse(1250))
        );
        assert_eq!(of("s::f::d", &grep), Likelihood::SharesWords(Reverse(250)));
        assert_eq!(of("s::f::e", &view), Likelihood::Unknown);
        let mut order = [
            Likelihood::Unknown,
            of("s::f::d", &grep),
            of("s::f::c", &count),
            Likelihood::KilledBefore(1),
            Likelihood::KilledBefore(0),
        ];
        order.sort();
        assert_eq!(
            order,
            [
                Likelihood::KilledBefore(0),
                Likelihood::KilledBefore(1),
                Likelihood::SharesWords(Reverse(1250)),
                Likelihood::SharesWords(Reverse(250)),
                Likelihood::Unknown,
            ]
        );
    }
}
