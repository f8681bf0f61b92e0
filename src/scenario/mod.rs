//! Scenario files: their typed model, and loading them from `specs/` with errors that
//! name the file, the line and the fix.

mod load;
mod model;
mod validate;

pub(crate) use load::parse_yaml_file;
pub use load::{load_suite, load_suites, suite_names, LoadError, Suite, SuiteScenarioFile};
pub use model::*;
