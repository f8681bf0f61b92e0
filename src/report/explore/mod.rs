//! What `toolspec explore` found, rendered: console lines (`text.rs`) and the
//! `--json` file (`json.rs`), both from the explore stage's findings.

pub(crate) mod json;
pub(crate) mod text;
