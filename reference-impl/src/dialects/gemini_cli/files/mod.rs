//! The tools that act on one named path: `list_directory`, `read_file`,
//! `write_file` and `replace`.

mod file_kind;
mod listing;
mod read;
mod write;

pub(super) use listing::list_directory;
pub(super) use read::read_file;
pub(super) use write::{replace, write_file};
