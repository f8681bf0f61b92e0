//! A suite that does not exist yet, for `toolspec record`: its `suite.yaml`
//! (the result convention the user names, no `reference:`, since the only
//! server it knows is the user's own) and the suite it loads as, before any of
//! it is on disk, so the first scenario can be recorded and shown as a diff
//! with nothing written.

use std::path::Path;

use serde_json::json;

use super::scenario_text::yaml_value;
use crate::scenario::{suite_file_from_text, Convention, LoadError, Suite};

/// The new suite's `suite.yaml` does not load; the loader's error.
#[derive(Debug, thiserror::Error)]
#[error("the new suite.yaml would not load: {0}")]
pub(crate) struct NewSuiteError(#[source] pub LoadError);

/// The `suite.yaml` of a new suite `name` of `convention`.
pub(crate) fn suite_yaml(name: &str, convention: Convention) -> String {
    let dialect = convention.dialect_name();
    format!(
        "# Made by `toolspec record`. It names no reference server, so it runs only\n\
         # against a server given with --server or --target.\n\
         suite: {}\n\
         title: {}\n\
         dialect: {dialect}\n",
        yaml_value(&json!(name)),
        yaml_value(&json!(format!("{name}, recorded"))),
    )
}

/// The suite `specs/<name>` would load as with `text` for its `suite.yaml` and
/// no scenario file yet.
pub(crate) fn unwritten_suite(
    specs: &Path,
    name: &str,
    text: &str,
) -> Result<Suite, NewSuiteError> {
    let dir = specs.join(name);
    let config =
        suite_file_from_text(&dir.join("suite.yaml"), text, name).map_err(NewSuiteError)?;
    Ok(Suite {
        name: name.to_string(),
        fixtures_dir: specs.parent().map_or_else(
            || Path::new("fixtures").to_path_buf(),
            |top| top.join("fixtures"),
        ),
        dir,
        config,
        clause_index: None,
        files: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_new_suite_yaml_loads_with_its_convention_and_no_reference() {
        for (name, convention) in Convention::NAMED {
            let text = suite_yaml("mine", convention);
            let suite = unwritten_suite(Path::new("/x/specs"), "mine", &text).expect(name);
            assert_eq!(suite.config.convention, convention, "{text}");
            assert!(suite.config.reference.is_none(), "{text}");
            assert!(text.contains(&format!("dialect: {name}\n")), "{text}");
        }
        let wrong = unwritten_suite(
            Path::new("/x/specs"),
            "other",
            &suite_yaml("mine", Convention::Plain),
        );
        assert!(wrong
            .expect_err("a folder of another name")
            .to_string()
            .contains("does not match"));
    }
}
