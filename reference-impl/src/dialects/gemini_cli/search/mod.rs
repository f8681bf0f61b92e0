//! The tools that find by pattern: `search_file_content` (a regular
//! expression over file contents) and `glob` (paths, newest first).

mod glob;
mod grep;

pub(super) use glob::glob;
pub(super) use grep::search_file_content;
