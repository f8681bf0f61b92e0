//! A scenario added at the end of a scenario file's `scenarios:` list by adding
//! bytes after the file's last, nothing before them touched; or a new file
//! holding it. `toolspec record` writes through it.

use super::yaml_nodes::{parse, Shape, YamlError};

/// Why a scenario cannot be added at the end of a file.
#[derive(Debug, thiserror::Error)]
pub(crate) enum AppendError {
    #[error(transparent)]
    Yaml(#[from] YamlError),
    #[error("the file is not a mapping with `scenarios:`")]
    NotAMapping,
    #[error("`scenarios:` is not the file's last key, so a scenario cannot be added at its end without moving what follows; add it by hand")]
    NotLastKey,
    #[error("the file has no `scenarios:`")]
    NoScenarios,
    #[error("`scenarios:` is not a block list (`- name: ...` lines), so a scenario cannot be added in its style; add it by hand")]
    NotABlockList,
    #[error("`scenarios:` is empty")]
    EmptyList,
    #[error("the first scenario's `-` was not found")]
    NoDash,
    #[error("the first scenario's line does not start with its `-`")]
    DashNotFirst,
}

/// `source` (None: no file yet) with `item`, a scenario's lines written at two
/// spaces (`  - name: ...`), added as the last scenario: re-indented to the
/// file's own list indentation. Refused, with the reason, when `scenarios:` is
/// not a block list that ends the file (a flow list, or keys after it).
pub(crate) fn appended(
    source: Option<&str>,
    requirement: &str,
    item: &str,
) -> Result<String, AppendError> {
    let Some(source) = source else {
        return Ok(format!("requirement: {requirement}\nscenarios:\n{item}"));
    };
    let root = parse(source)?;
    let Shape::Mapping { entries, .. } = &root.shape else {
        return Err(AppendError::NotAMapping);
    };
    let last_key = entries.last().and_then(|(k, _)| match &k.shape {
        Shape::Scalar { value, .. } => Some(value.as_str()),
        _ => None,
    });
    if last_key != Some("scenarios") {
        return Err(AppendError::NotLastKey);
    }
    let Some(list) = root.get("scenarios") else {
        return Err(AppendError::NoScenarios);
    };
    let Shape::Sequence { items, flow: false } = &list.shape else {
        return Err(AppendError::NotABlockList);
    };
    let first = items.first().ok_or(AppendError::EmptyList)?;
    // The indentation of the list's dashes: the spaces before the first item's
    // `- ` on its line.
    let line_start = source[..first.span.start]
        .rfind('\n')
        .map_or(0, |at| at + 1);
    let before = &source[line_start..first.span.start];
    let dash = before.find('-').ok_or(AppendError::NoDash)?;
    if !before[..dash].chars().all(|c| c == ' ') {
        return Err(AppendError::DashNotFirst);
    }
    let indent = " ".repeat(dash);
    let mut out = source.to_string();
    if !out.ends_with('\n') {
        out.push('\n');
    }
    if !out.ends_with("\n\n") {
        out.push('\n');
    }
    for line in item.lines() {
        if line.is_empty() {
            out.push('\n');
            continue;
        }
        let rest = line.strip_prefix("  ").unwrap_or(line);
        out.push_str(&indent);
        out.push_str(rest);
        out.push('\n');
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const ITEM: &str =
        "  - name: new\n    when: { tool: view, args: {} }\n    then: { is_error: false }\n";

    #[test]
    fn a_scenario_is_added_after_the_last_byte_at_the_lists_indentation() {
        let source = "requirement: R  # c\nscenarios:\n- name: old\n  then: { text: x }  # end\n";
        let made = appended(Some(source), "R", ITEM).expect("appended");
        assert!(made.starts_with(source), "{made}");
        assert_eq!(
            &made[source.len()..],
            "\n- name: new\n  when: { tool: view, args: {} }\n  then: { is_error: false }\n"
        );
        let fresh = appended(None, "view, recorded", ITEM).expect("a new file");
        assert!(fresh.starts_with("requirement: view, recorded\nscenarios:\n  - name: new\n"));
    }

    #[test]
    fn a_list_that_cannot_grow_at_the_end_is_refused() {
        let why = appended(Some("scenarios: [{name: a}]\n"), "R", ITEM)
            .expect_err("flow")
            .to_string();
        assert!(why.contains("block list"), "{why}");
        let why = appended(Some("scenarios:\n  - name: a\nnote: after\n"), "R", ITEM)
            .expect_err("after")
            .to_string();
        assert!(why.contains("last key"), "{why}");
    }
}
