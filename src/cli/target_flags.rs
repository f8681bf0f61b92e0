//! `--target` and `--server`, read one way for every command that takes them
//! (`run`, `record`, `explore`, `confinement`), so a target file or a command line
//! names the same server to each.

use std::path::Path;

use super::error::CliError;
use crate::server::{load_target_file, Target};

/// `--skip-stdout-noise`, for every command that starts a server it is given.
#[derive(clap::Args, Debug, Clone, Copy, Default)]
pub(crate) struct NoiseFlag {
    /// Skip lines the server writes on stdout that are not JSON (a banner, a log
    /// line), with a warning in each report, instead of ending its session with
    /// an error: the stdio transport forbids them, the MCP SDKs' clients skip
    /// them. A target file says it with `skip_stdout_noise: true`.
    #[arg(long)]
    pub(crate) skip_stdout_noise: bool,
}

/// The target named by `--target` (a target file) or `--server` (a command
/// line), if any: `run`'s, `record`'s and `explore`'s subject, skipping stdout
/// noise when `noise` or the file says so.
pub(crate) fn external_target(
    target: Option<&Path>,
    server: Option<&str>,
    noise: NoiseFlag,
) -> Result<Option<Target>, CliError> {
    let named =
        if let Some(path) = target {
            Some(load_target_file(path)?)
        } else {
            match server {
                Some(line) => Some(Target::from_command_line(line).map_err(|source| {
                    CliError::ServerLine {
                        line: line.to_string(),
                        source,
                    }
                })?),
                None => None,
            }
        };
    Ok(named.map(|mut target| {
        target.skip_stdout_noise |= noise.skip_stdout_noise;
        target
    }))
}
