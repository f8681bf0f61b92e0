//! Which clause a written scenario covers. The suite's own scenarios say how its
//! tools map to clauses: a `basis: spec` scenario judging the same tool with the
//! same code covers the clause the new one should; failing that, the clause most of
//! that tool's spec scenarios cover, then a clause whose id names the tool. An
//! upstream scenario with nothing better covers the topic `upstream/explored-<tool>`,
//! which coverage lists apart as behaviour beyond the documents.

use std::collections::BTreeMap;

use crate::scenario::{Basis, Suite, UPSTREAM_COVERS};

/// The topic of explored upstream behaviour of `tool`.
pub(crate) fn explored_topic(tool: &str) -> String {
    let slug: String = tool
        .to_lowercase()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let words: Vec<&str> = slug.split('-').filter(|w| !w.is_empty()).collect();
    format!("{UPSTREAM_COVERS}explored-{}", words.join("-"))
}

/// The clause of `suite` whose requirement is named after `tool`, if one is.
fn clause_naming(suite: &Suite, tool: &str) -> Option<String> {
    let slug = explored_topic(tool);
    let slug = slug.trim_start_matches(&format!("{UPSTREAM_COVERS}explored-"));
    suite
        .clause_index
        .as_ref()?
        .documents
        .iter()
        .flat_map(|d| &d.clauses)
        .map(|c| c.id.clone())
        .find(|id| id.split('/').next().is_some_and(|r| r.contains(slug)))
}

/// The clause of `suite` that a spec scenario judging `tool` (with `code`, for an
/// error) covers, if the suite's spec scenarios or clause ids point to one.
pub(crate) fn clause_for(suite: &Suite, tool: &str, code: Option<&str>) -> Option<String> {
    let mut by_tool: BTreeMap<&str, usize> = BTreeMap::new();
    for (_, scenario) in suite.scenarios() {
        if scenario.basis != Basis::Spec || scenario.covers.starts_with(UPSTREAM_COVERS) {
            continue;
        }
        let Some(judged) = scenario.when.0.last() else {
            continue;
        };
        if judged.tool != tool {
            continue;
        }
        if code.is_some() && scenario.then.code.as_deref() == code {
            return Some(scenario.covers.clone());
        }
        *by_tool.entry(scenario.covers.as_str()).or_insert(0) += 1;
    }
    let most = by_tool
        .iter()
        .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
        .map(|(cover, _)| cover.to_string());
    most.or_else(|| clause_naming(suite, tool))
}

/// What a scenario of `basis` judging `tool` covers. A spec one: the clause its
/// twins in the suite cover, else `explored/<tool>`, which loads but which
/// `toolspec coverage` reports as naming no clause. An upstream one with no spec
/// twin (a text or files difference): the clause of the requirement named after
/// the tool, else the explored topic; what the spec scenarios of the tool cover
/// says nothing of an exact text.
pub(crate) fn cover_for(suite: &Suite, tool: &str, basis: Basis, code: Option<&str>) -> String {
    match basis {
        Basis::Spec => clause_for(suite, tool, code).unwrap_or_else(|| format!("explored/{tool}")),
        Basis::Upstream => clause_naming(suite, tool).unwrap_or_else(|| explored_topic(tool)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_topic_is_a_slug_of_the_tool() {
        assert_eq!(
            explored_topic("str_replace"),
            "upstream/explored-str-replace"
        );
        assert_eq!(explored_topic("Read File"), "upstream/explored-read-file");
    }
}
