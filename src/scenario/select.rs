//! Which suites a command works on: the ones named (each must exist), or every
//! suite in the specs folder.

use std::path::Path;

use super::error::LoadError;
use super::load::{load_suite, load_suites, Suite};

/// The suites named in `names` under `specs`, or every suite there when `names` is
/// empty. A name with no `suite.yaml` is an error that says so.
pub(crate) fn selected_suites(
    specs: &Path,
    names: &[String],
) -> Result<Vec<Suite>, Vec<LoadError>> {
    if names.is_empty() {
        return load_suites(specs);
    }
    let mut suites = Vec::new();
    let mut errors = Vec::new();
    for name in names {
        let dir = specs.join(name);
        if !dir.join("suite.yaml").is_file() {
            errors.push(LoadError::new(
                &dir,
                None,
                format!("no suite `{name}` (no suite.yaml there)"),
            ));
            continue;
        }
        match load_suite(&dir) {
            Ok(s) => suites.push(s),
            Err(mut e) => errors.append(&mut e),
        }
    }
    if errors.is_empty() {
        Ok(suites)
    } else {
        Err(errors)
    }
}
