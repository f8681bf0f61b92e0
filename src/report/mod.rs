//! Reports of a run: what each verdict means for the run (with the target's
//! baseline of known failures), and machine-readable files for CI pages.

mod json;
mod junit;
mod markdown;
mod standing;
pub(crate) mod text;

pub(crate) use json::write_json;
pub(crate) use junit::write_junit;
pub(crate) use markdown::write_markdown;
pub(crate) use standing::{Standing, Tally};
