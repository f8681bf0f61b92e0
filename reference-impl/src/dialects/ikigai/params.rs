//! Bad arguments in ikigai's words: `Missing required parameter: <name>`
//! (upstream's wording), `Invalid type for parameter <name>: …` and
//! `Unknown parameter: <name>`.

use crate::dialects::common::args::ArgError;
use crate::dialects::Failure;

/// A malformed argument as ikigai words it (no code).
pub(super) fn argument_failure(err: ArgError) -> Failure {
    Failure::new(
        "",
        match err {
            ArgError::Missing(name) => format!("Missing required parameter: {name}"),
            ArgError::WrongType {
                name,
                expected,
                got,
            } => format!("Invalid type for parameter {name}: expected {expected}, got {got}"),
            ArgError::Unknown { name, .. } => format!("Unknown parameter: {name}"),
        },
    )
}
