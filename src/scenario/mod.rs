//! Scenario files: their typed model, and loading them from `specs/` with errors that
//! name the file, the line and the fix.

mod catalogue;
mod error;
mod load;
mod model;
mod partition;
mod placeholders;
mod validate;

pub(crate) use catalogue::{export_built_in, Catalogue, Origin};
pub use error::LoadError;
pub(crate) use load::parse_yaml_file;
#[cfg(test)]
pub(crate) use load::parse_yaml_str;
pub(crate) use load::SuiteScenarioFile;
pub use load::{load_suite, load_suites, Suite};
pub use model::*;
pub(crate) use partition::Partition;
pub(crate) use placeholders::Bindings;
