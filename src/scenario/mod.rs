//! Scenario files: their typed model, and loading them from `specs/` with errors that
//! name the file, the line and the fix.

mod clause_index;
mod error;
mod freedom;
mod id_selection;
mod load;
mod model;
mod partition;
mod pattern;
mod placeholders;
mod sorted_map;
mod validate;
mod yaml;

pub(crate) use clause_index::{
    read_clause_index, ClauseIndex, IndexedClause, IndexedDocument, CLAUSE_INDEX_FILE,
};
pub(crate) use error::find_line;
pub use error::LoadError;
pub(crate) use freedom::{Dimension, Freedom};
pub(crate) use id_selection::IdSelection;
pub use load::{load_suite, load_suites, Suite};
pub(crate) use load::{
    scenario_file_from_text, suite_file_from_text, suite_names, SuiteScenarioFile, EXPLORE_FILE,
};
pub use model::*;
pub(crate) use partition::{fnv1a, Partition};
pub(crate) use pattern::{compile_filled, compile_for_one_judging, CompileError};
pub(crate) use placeholders::{Bindings, MachinePlaces};
pub(crate) use yaml::{parse_yaml_str, read_text};
