//! `toolspec suites export`: the built-in suites written out as files, for someone
//! who wants to fork or extend one and run it with `--specs`.

use std::path::PathBuf;

use super::error::CliError;
use super::outcome::Outcome;
use super::output::say;
use crate::catalogue::export_built_in;

/// `toolspec suites ...`.
#[derive(clap::Subcommand, Debug)]
pub(crate) enum SuitesCommand {
    /// Write the built-in suites (or one) into DIR as `specs/<suite>/` and
    /// `fixtures/`; run them afterwards with `--specs DIR/specs`.
    Export {
        /// Only this suite.
        #[arg(long)]
        suite: Option<String>,
        /// The folder to write into (made if missing; an existing suite folder there
        /// is never overwritten).
        dir: PathBuf,
    },
}

pub(crate) fn suites(command: &SuitesCommand) -> Result<Outcome, CliError> {
    match command {
        SuitesCommand::Export { suite, dir } => {
            let written = export_built_in(dir, suite.as_deref())?;
            let specs = dir.join("specs");
            for name in &written {
                say(format_args!("wrote {}", specs.join(name).display()));
            }
            say(format_args!(
                "wrote {}; run the suites with --specs {}",
                dir.join("fixtures").display(),
                specs.display()
            ));
            Ok(Outcome::Held)
        }
    }
}
