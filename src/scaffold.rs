//! placeholder
use crate::scenario::LoadError;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
#[derive(clap::Args, Debug)]
pub struct ScaffoldArgs {
    #[arg(long, required = true)]
    pub spec: Vec<PathBuf>,
}
pub fn command(_specs: &Path, _args: &ScaffoldArgs) -> Result<ExitCode, Vec<LoadError>> {
    Ok(ExitCode::SUCCESS)
}
