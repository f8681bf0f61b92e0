//! Dialect-neutral operations. Every function returns a typed result or an
//! [`EngineError`]; turning either into text is the dialects' job, so the
//! same engine can serve suites with very different conventions.

pub(crate) mod breach;
pub(crate) mod confined_fs;
pub(crate) mod error;
pub(crate) mod files;
pub(crate) mod line_search;
pub(crate) mod names;
pub(crate) mod paths;
pub(crate) mod resolve;
pub(crate) mod search;
pub(crate) mod shell;
pub(crate) mod star_match;
pub(crate) mod text_range;
pub(crate) mod walk;

pub(crate) use error::{EngineError, IoOp};
