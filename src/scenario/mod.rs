//! Scenario files: their typed model, and loading them from `specs/` with errors that
//! name the file, the line and the fix.

mod error;
mod load;
mod model;
mod select;
mod validate;

pub use error::LoadError;
pub(crate) use load::parse_yaml_file;
pub use load::{load_suite, load_suites, suite_names, Suite, SuiteScenarioFile};
pub use model::*;
pub use select::selected_suites;
