//! What `toolspec mutants` reports, rendered from the scores the proof stage
//! hands over as it decides them: `text.rs` the console lines, `json.rs` the
//! `--json` file.

mod json;
mod text;

pub(crate) use json::write_mutants_json;
pub(crate) use text::MutantsText;
