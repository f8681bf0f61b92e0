//! `--target` and `--server`, read one way for every command that takes them
//! (`run`, `record`, `explore`, `confinement`), so a target file or a command line
//! names the same server to each.

use std::path::Path;

use super::error::CliError;
use crate::server::{load_target_file, Target};

/// The target named by `--target` (a target file) or `--server` (a command
/// line), if any: `run`'s, `record`'s and `explore`'s subject.
pub(crate) fn external_target(
    target: Option<&Path>,
    server: Option<&str>,
) -> Result<Option<Target>, CliError> {
    if let Some(path) = target {
        return Ok(Some(load_target_file(path)?));
    }
    match server {
        Some(line) => {
            Target::from_command_line(line)
                .map(Some)
                .map_err(|source| CliError::ServerLine {
                    line: line.to_string(),
                    source,
                })
        }
        None => Ok(None),
    }
}
