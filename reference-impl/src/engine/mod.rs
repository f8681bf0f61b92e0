//! Dialect-neutral operations. Every function returns a typed result or an
//! [`EngineError`]; turning either into text is the dialects' job, so the
//! same engine can serve suites with very different conventions.

pub mod error;
pub mod files;
pub mod paths;
pub mod search;
pub mod shell;
pub mod star_match;

pub use error::{EngineError, IoOp};
