//! Scenario files: their typed model, and loading them from `specs/` with errors that
//! name the file, the line and the fix.

mod error;
mod load;
mod model;
mod placeholders;
mod select;
mod validate;
mod yaml;

pub use error::LoadError;
pub(crate) use load::SuiteScenarioFile;
pub use load::{load_suite, load_suites, Suite};
pub use model::*;
pub(crate) use placeholders::Bindings;
pub(crate) use select::selected_suites;
pub(crate) use yaml::parse_yaml_file;
#[cfg(test)]
pub(crate) use yaml::parse_yaml_str;
