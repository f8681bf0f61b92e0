//! Command-line flags and their validation into a [`Config`].
//!
//! Everything a caller can get wrong (a missing root, a bad size, an unknown
//! mutation, a deny pattern that does not compile) is rejected here, at
//! startup, with a message on stderr, so the server never starts half-set-up.

use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, ValueEnum};
use thiserror::Error;

use crate::dialects::Dialect;
use crate::engine::breach::Breach;
use crate::engine::paths::PathPolicy;
use crate::mutations::Mutations;
use crate::variations::{self, Variations};

/// How MCP reaches the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum TransportName {
    /// JSON-RPC lines on stdin/stdout; the server stops when stdin closes.
    Stdio,
    /// Streamable HTTP at `/mcp`; the address is announced on stderr.
    Http,
}

#[derive(Debug, Parser)]
#[command(
    name = "toolspec-reference",
    about = "Reference MCP tool server for the toolspec conformance suites (stdio or streamable HTTP)"
)]
struct Cli {
    /// Which suite's tool surface to serve.
    #[arg(long, value_enum)]
    dialect: Dialect,
    /// Working directory: relative paths resolve against it and bash runs in it.
    #[arg(long, required_unless_present_any = ["list_mutations", "list_variations"])]
    root: Option<PathBuf>,
    /// Largest file that may be read or written: bytes, or a B/KB/MB/GB suffix (powers of 1024).
    #[arg(long, default_value = "10MB", value_parser = parse_size)]
    max_file_size: u64,
    /// Directory that file tools may touch (repeatable); none means every path is allowed.
    #[arg(long = "allow-dir")]
    allow_dirs: Vec<PathBuf>,
    /// Doublestar pattern matched against each resolved path and its parents (repeatable).
    #[arg(long = "deny-dir")]
    deny_patterns: Vec<String>,
    /// Default bash timeout in seconds.
    #[arg(long, default_value_t = 120)]
    timeout: u64,
    /// Most bytes of command output captured; past it the command is killed.
    #[arg(long, default_value = "1MB", value_parser = parse_size)]
    output_limit: u64,
    /// Hide and refuse the tools that change files.
    #[arg(long)]
    read_only: bool,
    /// Apply a named deviation from the dialect's catalogue (repeatable), for
    /// testing the suites; see --list-mutations.
    #[arg(long = "mutate")]
    mutations: Vec<String>,
    /// Print the dialect's mutation catalogue (`name<TAB>description` lines) and exit.
    #[arg(long)]
    list_mutations: bool,
    /// Answer in a named conforming form from the variation catalogue
    /// (repeatable), for testing that the suites accept it; see --list-variations.
    #[arg(long = "vary")]
    variations: Vec<String>,
    /// Print the variations that reach this dialect (`name<TAB>what<TAB>allowed
    /// by<TAB>spares` lines, where spares is `all` or `spec`: the scenarios that
    /// must accept it), then the freedoms rejected (`!rejected<TAB>what<TAB>why`),
    /// and exit.
    #[arg(long)]
    list_variations: bool,
    /// How MCP is served: stdio, or streamable HTTP at /mcp.
    #[arg(long, value_enum, default_value_t = TransportName::Stdio)]
    transport: TransportName,
    /// HTTP only: address to listen on.
    #[arg(long)]
    host: Option<String>,
    /// HTTP only: port to listen on; 0 picks a free one. The bound address is
    /// printed to stderr as `listening on http://HOST:PORT/mcp`.
    #[arg(long)]
    port: Option<u16>,
    /// HTTP only: also stop when stdin reaches end of file (stdio always does).
    #[arg(long)]
    exit_on_stdin_eof: bool,
}

/// Where and how MCP is served.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Transport {
    Stdio,
    Http(HttpOptions),
}

/// Settings of the streamable HTTP transport.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct HttpOptions {
    pub(crate) host: String,
    /// 0 lets the system pick a free port.
    pub(crate) port: u16,
    pub(crate) exit_on_stdin_eof: bool,
}

/// The validated server settings.
#[derive(Debug)]
pub(crate) struct Config {
    pub(crate) dialect: Dialect,
    pub(crate) policy: PathPolicy,
    pub(crate) max_file_size: u64,
    pub(crate) default_timeout: Duration,
    pub(crate) output_limit: u64,
    pub(crate) read_only: bool,
    pub(crate) mutations: Mutations,
    pub(crate) variations: Variations,
    pub(crate) transport: Transport,
}

impl Config {
    /// Parses flags; on failure prints the reason (or help) and returns the
    /// exit code to end with.
    pub(crate) fn from_args<I: IntoIterator<Item = OsString>>(args: I) -> Result<Config, ExitCode> {
        let argv = std::iter::once(OsString::from("toolspec-reference")).chain(args);
        let cli = match Cli::try_parse_from(argv) {
            Ok(cli) => cli,
            Err(err) => {
                let code = if err.use_stderr() { 2 } else { 0 };
                // Help and version go to stderr too: stdout is reserved for JSON-RPC.
                eprint!("{}", err.render());
                return Err(ExitCode::from(code));
            }
        };
        let catalogue = cli.dialect.adapter().mutations;
        let scope = cli.dialect.adapter().scope;
        if cli.list_mutations {
            // A reader that stops early (`| head -n 1`) closes the pipe: the listing
            // ends there quietly, as `cat` would, rather than panicking on the write.
            let mut out = std::io::stdout().lock();
            for mutation in catalogue {
                if writeln!(out, "{}\t{}", mutation.name, mutation.what).is_err() {
                    break;
                }
            }
            return Err(ExitCode::SUCCESS);
        }
        let freedoms = variations::Freedoms::of(cli.dialect.adapter());
        if cli.list_variations {
            let mut out = std::io::stdout().lock();
            let listed = variations::catalogue_for(freedoms)
                .map(|v| {
                    let spares = v.reach.spares();
                    format!("{}\t{}\t{}\t{spares}", v.name, v.what, v.allowed_by)
                })
                .chain(
                    variations::REJECTED
                        .iter()
                        .map(|r| format!("!rejected\t{}\t{}", r.what, r.why)),
                );
            for line in listed {
                if writeln!(out, "{line}").is_err() {
                    break;
                }
            }
            return Err(ExitCode::SUCCESS);
        }
        let variations = Variations::select(freedoms, &cli.variations).map_err(|message| {
            eprintln!("toolspec-reference: {message}");
            ExitCode::from(2)
        })?;
        let mutations = Mutations::select(catalogue, &cli.mutations).map_err(|message| {
            eprintln!("toolspec-reference: {message}");
            ExitCode::from(2)
        })?;
        let transport = match cli.transport {
            TransportName::Stdio => {
                if cli.host.is_some() || cli.port.is_some() {
                    eprintln!(
                        "toolspec-reference: --host and --port only apply with --transport http"
                    );
                    return Err(ExitCode::from(2));
                }
                Transport::Stdio
            }
            TransportName::Http => Transport::Http(HttpOptions {
                host: cli.host.unwrap_or_else(|| "127.0.0.1".to_string()),
                port: cli.port.unwrap_or(0),
                exit_on_stdin_eof: cli.exit_on_stdin_eof,
            }),
        };
        let root = cli.root.unwrap_or_default();
        // The confinement bugs are the engine's: each dialect that lists them
        // has them switched on by name, like its own mutations.
        let breaches = Breach::ALL
            .into_iter()
            .filter(|breach| mutations.is_active(*breach))
            .collect();
        let policy = PathPolicy::new(&root, &cli.allow_dirs, &cli.deny_patterns, scope)
            .map_err(|message| {
                eprintln!("toolspec-reference: {message}");
                ExitCode::from(2)
            })?
            .breached_by(breaches);
        Ok(Config {
            dialect: cli.dialect,
            policy,
            max_file_size: cli.max_file_size,
            default_timeout: Duration::from_secs(cli.timeout),
            output_limit: cli.output_limit,
            read_only: cli.read_only,
            mutations,
            variations,
            transport,
        })
    }
}

/// A size flag that is not a size; clap prints it after the flag's name.
#[derive(Debug, Error)]
pub(crate) enum InvalidSize {
    #[error(
        "invalid size {0:?}: expected a number of bytes, optionally with a B, KB, MB or GB suffix"
    )]
    NotANumber(String),
    #[error("invalid size {0:?}: too large")]
    TooLarge(String),
}

/// Parses `10MB`, `512KB`, `1GB`, `100B` or a bare byte count (powers of 1024).
pub(crate) fn parse_size(text: &str) -> Result<u64, InvalidSize> {
    let trimmed = text.trim();
    let upper = trimmed.to_ascii_uppercase();
    let (digits, multiplier) = [
        ("GB", 1u64 << 30),
        ("MB", 1 << 20),
        ("KB", 1 << 10),
        ("B", 1),
    ]
    .iter()
    .find_map(|(suffix, mult)| upper.strip_suffix(suffix).map(|d| (d.trim(), *mult)))
    .unwrap_or((upper.as_str(), 1));
    let value: u64 = digits
        .parse()
        .map_err(|_| InvalidSize::NotANumber(trimmed.to_string()))?;
    value
        .checked_mul(multiplier)
        .ok_or_else(|| InvalidSize::TooLarge(trimmed.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_use_powers_of_1024() {
        assert_eq!(parse_size("10MB").ok(), Some(10 * 1024 * 1024));
        assert_eq!(parse_size("2kb").ok(), Some(2048));
        assert_eq!(parse_size("100B").ok(), Some(100));
        assert_eq!(parse_size("77").ok(), Some(77));
        assert_eq!(parse_size("1GB").ok(), Some(1 << 30));
        assert!(parse_size("ten").is_err());
        assert!(parse_size("-1").is_err());
    }

    fn parse(args: &[&str]) -> Result<Config, ExitCode> {
        let dir = std::env::temp_dir();
        let mut argv: Vec<OsString> = vec!["--dialect".into(), "boris".into(), "--root".into()];
        argv.push(dir.into());
        argv.extend(args.iter().map(OsString::from));
        Config::from_args(argv)
    }

    #[test]
    fn transport_defaults_to_stdio_and_http_to_a_free_loopback_port() {
        assert_eq!(parse(&[]).expect("stdio").transport, Transport::Stdio);
        assert_eq!(
            parse(&["--transport", "http"]).expect("http").transport,
            Transport::Http(HttpOptions {
                host: "127.0.0.1".into(),
                port: 0,
                exit_on_stdin_eof: false
            })
        );
        assert_eq!(
            parse(&[
                "--transport=http",
                "--host",
                "::1",
                "--port",
                "8123",
                "--exit-on-stdin-eof"
            ])
            .expect("http")
            .transport,
            Transport::Http(HttpOptions {
                host: "::1".into(),
                port: 8123,
                exit_on_stdin_eof: true
            })
        );
    }

    #[test]
    fn http_flags_are_rejected_with_stdio() {
        assert!(parse(&["--port", "1"]).is_err());
        assert!(parse(&["--transport", "stdio", "--host", "127.0.0.1"]).is_err());
        assert!(parse(&["--transport", "tcp"]).is_err());
    }

    #[test]
    fn unknown_mutation_is_rejected() {
        assert!(parse(&["--mutate", "nope"]).is_err());
        assert!(parse(&["--mutate", "lowercase-code"]).is_ok());
    }

    #[test]
    fn a_variation_must_reach_the_dialect() {
        assert!(parse(&["--vary", "result-meta"]).is_ok());
        // boris writes no JSON texts, so their spelling is not a variation of it.
        assert!(parse(&["--vary", "json-spaced"]).is_err());
    }
}
