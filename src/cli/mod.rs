//! The `toolspec` command line: the parser, one file per command, the errors that
//! stop a command, and the exit codes. Only this module reads arguments or writes
//! to stdout; the stages it drives return values.

mod bless;
mod color;
mod confinement;
mod coverage;
mod diff;
mod error;
mod explore;
mod explore_progress;
mod history;
mod init;
mod list;
mod matrix;
mod mutants;
mod outcome;
mod output;
mod progress;
mod proposal_key;
mod record;
mod report;
mod report_files;
mod review;
mod run;
mod scaffold;
mod suites;
mod target_flags;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use color::ColorChoice;
use error::CliError;
use outcome::Outcome;

use crate::catalogue::Catalogue;

/// Exit codes, for scripts and CI gates to rely on.
pub mod exit {
    /// Everything ran and held.
    pub const SUCCESS: u8 = 0;
    /// Something ran and did not hold: a FAIL, ERROR or stale baseline entry, an
    /// uncovered clause, a surviving mutation.
    pub const FAILURES: u8 = 1;
    /// Nothing was judged: bad arguments, a suite or target file that does not load,
    /// a report that cannot be written.
    pub const REFUSED: u8 = 2;
    /// Interrupted (Ctrl-C); every server started was stopped first.
    pub const INTERRUPTED: u8 = 130;
}

#[derive(Parser, Debug)]
#[command(
    name = "toolspec",
    version,
    about = "Conformance harness for coding-agent MCP tool servers"
)]
struct Cli {
    /// A folder of suites (`<suite>/suite.yaml`, with `fixtures/` beside the folder)
    /// to use besides the built-in ones; a suite there with a built-in suite's name
    /// replaces it.
    #[arg(long, global = true)]
    specs: Option<PathBuf>,
    /// Colour the output: auto (a terminal, without NO_COLOR), always, never.
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto)]
    color: ColorChoice,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run suites against a server and print a summary; exits 1 on any FAIL or ERROR.
    Run(Box<run::RunArgs>),
    /// Every escape from the root against every tool of a server that takes a path,
    /// judged by effect, with no suite written for it: `confinement --server 'CMD
    /// {root}'` (and any flag of `run`); exits 1 on an escape.
    Confinement(Box<confinement::ConfinementArgs>),
    /// Propose a target file for a server from its tools/list, run the suite once
    /// with it and write the first baseline: `init --server 'CMD {root}'`.
    Init(init::InitArgs),
    /// List suites, or the scenarios of the suites named.
    List(list::ListArgs),
    /// Which clauses of the spec documents have a scenario; exits 1 when a clause has
    /// none or a `covers:` names no clause.
    Coverage(coverage::CoverageArgs),
    /// Write skeleton scenarios for the clauses of a spec document that have none.
    Scaffold(scaffold::ScaffoldArgs),
    /// Mutation testing: run each suite against every deliberate deviation of the
    /// bundled server and report which ones the suite catches; exits 1 if any survives.
    Mutants(mutants::MutantsArgs),
    /// Generated cases on the suite's reference server and on a subject, compared
    /// call by call; exits 1 on any divergence.
    Explore(explore::ExploreArgs),
    /// One suite across several servers: a folder with the results page
    /// (index.html), matrix.json, matrix.md and a badge per server, from JSON
    /// reports already written or by running each --target.
    Matrix(matrix::MatrixArgs),
    /// What changed between two JSON reports of one suite: the scenarios that
    /// flipped, with the answers diffed; exits 1 on a new failure.
    Diff(diff::DiffArgs),
    /// One suite across the releases of one program, from JSON reports in release
    /// order (--run LABEL=FILE, repeated, or --releases DIR): a folder with the
    /// history page (index.html), history.json and history.md; the scenarios that
    /// changed, where each first failed and was fixed, and where to bisect.
    History(history::HistoryArgs),
    /// One live call written as a scenario of a suite of one's own (--specs):
    /// `record --suite S --server 'CMD {root}' --tool T --args JSON`; shows the
    /// suite file's diff, and writes it with --write.
    Record(record::RecordArgs),
    /// The proposals `record` and `run --bless` kept beside the suites of --specs,
    /// each shown as a diff and accepted (written), rejected or skipped;
    /// `--accept-all` / `--reject-all` answer every one.
    Review(review::ReviewArgs),
    /// Reports already written: `toolspec report merge A.json B.json ...` joins the
    /// shards of a partitioned run.
    #[command(subcommand)]
    Report(report::ReportCommand),
    /// The built-in suites: `toolspec suites export DIR` writes them out as files to
    /// fork or extend.
    #[command(subcommand)]
    Suites(suites::SuitesCommand),
    /// Serve the bundled reference server over stdio (flags: --dialect, --root, ...).
    #[command(disable_help_flag = true)]
    ReferenceServer {
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<OsString>,
    },
}

/// The `toolspec` program: parses the command line, runs the command, and returns
/// its exit code ([`exit`]).
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::ReferenceServer { args } => return toolspec_reference::main_with_args(args),
        Command::Suites(command) => suites::suites(&command),
        Command::Report(command) => report::report(&command, cli.specs.as_deref()),
        Command::Diff(args) => diff::diff(&args),
        Command::Review(args) => review::review(&args, cli.specs.as_deref()),
        Command::History(args) => history::history(&args, cli.specs.as_deref()),
        Command::Matrix(args) => {
            crate::server::start_spawner();
            let result = matrix::matrix(&args, cli.specs.as_deref());
            crate::server::stop_spawner();
            result
        }
        command => {
            // First, while toolspec runs one thread and is small (`spawner.rs`).
            crate::server::start_spawner();
            crate::server::contain_the_run();
            let opened = match command {
                Command::Record(_) => Catalogue::open_to_record(cli.specs.as_deref()),
                _ => Catalogue::open(cli.specs.as_deref()),
            };
            let result = opened.map_err(CliError::from).and_then(|catalogue| {
                dispatch(&catalogue, cli.specs.as_deref(), command, cli.color)
            });
            crate::server::end_what_escaped();
            crate::server::stop_spawner();
            result
        }
    };
    if crate::server::interrupted() {
        // The interrupt watcher is stopping the servers and removing the fixtures;
        // finish that before leaving, which would end it midway.
        crate::server::finish_interrupted_run();
        return ExitCode::from(exit::INTERRUPTED);
    }
    match result {
        Ok(Outcome::Held) => ExitCode::from(exit::SUCCESS),
        Ok(Outcome::Broken) => ExitCode::from(exit::FAILURES),
        Err(error) => {
            for message in error.messages() {
                eprintln!("error: {message}");
            }
            ExitCode::from(exit::REFUSED)
        }
    }
}

/// Runs a command on the suites of `catalogue`; `specs` is the folder given with
/// `--specs`, where `scaffold` may write.
fn dispatch(
    catalogue: &Catalogue,
    specs: Option<&Path>,
    command: Command,
    color: ColorChoice,
) -> Result<Outcome, CliError> {
    match command {
        Command::Run(args) => run::run(catalogue, &args, color.for_stdout()),
        Command::Confinement(args) => confinement::confinement(*args, color.for_stdout()),
        Command::Init(args) => init::init(catalogue, &args, color.for_stdout()),
        Command::List(args) => list::list(catalogue, &args),
        Command::Coverage(args) => coverage::coverage(catalogue, &args),
        Command::Scaffold(args) => scaffold::scaffold(catalogue, specs, &args),
        Command::Mutants(args) => mutants::mutants(catalogue, &args),
        Command::Explore(args) => explore::explore_command(catalogue, &args),
        Command::Record(args) => record::record_command(catalogue, specs, &args),
        Command::Suites(_)
        | Command::Report(_)
        | Command::Diff(_)
        | Command::Review(_)
        | Command::History(_)
        | Command::Matrix(_)
        | Command::ReferenceServer { .. } => Ok(Outcome::Held),
    }
}
