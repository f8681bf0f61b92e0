//! The harness's own integration tests, in one binary: one link step, and no doubt
//! where a test belongs. Each module is one area of toolspec as a user meets it;
//! `support` holds what several of them share (the binary, the repository, running
//! one named scenario), and `hostile_http` a broken MCP server over HTTP. The
//! scenarios themselves run in the `conformance` binary and an implementer's view in
//! `implementer`, both `harness = false`.
//!
//! Where a new test goes:
//! - the command line, its reports and exit codes: `cli`;
//! - a wrong answer or a broken server caught and reported: `can_fail`;
//! - byte-exact gemini-cli diffs: `gemini_exactness`;
//! - scenario files refused with file, line and fix: `scenario_loading`;
//! - the committed fuzz corpus replayed through the loaders and the template
//!   matcher (a crash the fuzzers found becomes a test beside the fixed code):
//!   `fuzz_corpus`;
//! - scenario-format features (`any_of`, captures) holding on the reference:
//!   `scenario_features`;
//! - nothing reaching outside the fixture root or outliving the run (fixtures,
//!   files a server left, shell quoting, interrupts, leftover processes):
//!   `containment`;
//! - `coverage` and `scaffold`: `coverage` (those that read the seed documents in
//!   `../shared/seeds`: the `seeds` binary, `tests/seeds.rs`);
//! - `init` (a proposed target file and its first baseline): `init`;
//! - a server's isolation (writes, the real home, the network) and each opening of
//!   it, against a server that tries to escape: `isolation`;
//! - `mutants`: `mutants`;
//! - `review` of the proposals `record` and `run --bless` keep: `review`;
//! - a recorded suite passing on another machine (no path of the recording one
//!   written: `{scratch}`, `{home}`, `{tmp}`): `portable`;
//! - `explore` (generated cases against the reference): `explore`; on a suite
//!   with no `explore.yaml` or no reference, and `--fail-fast`: `explore_own`;
//! - the built-in suites, `--specs`, `suites export`, empty gates: `standalone`;
//! - `run --html`, `matrix`, badges, `diff` and `history`: `results_page` (the page in a
//!   real browser: the `browser` binary);
//! - verdicts, standings, baselines and the counts every report gives: `verdict_model`;
//! - no document or example installing a package name the project does not own:
//!   `install_lines`;
//! - how many crates a release build compiles, against `build-budget.txt`:
//!   `build_budget`;
//! - what the docs say of the code (each JSON file's `schema_version`, the layout
//!   table of `docs/architecture.md`) against the code: `docs_match_code`;
//! - the console text pinned as a whole, and the JSON files' schemas: `golden` (a new
//!   pinned command line is a case file in `tests/golden/`, not a Rust test).

mod bless;
mod build_budget;
mod can_fail;
mod cli;
mod confinement;
mod containment;
mod coverage;
mod docs_match_code;
mod explore;
mod explore_own;
mod fuzz_corpus;
mod gemini_exactness;
mod golden;
mod hostile_http;
mod init;
mod install_lines;
mod isolation;
mod mutants;
mod portable;
mod record;
mod results_page;
mod review;
mod scenario_features;
mod scenario_loading;
mod standalone;
mod support;
mod verdict_model;

/// Six tests a core and temporary files on a tmpfs, set as the binary is loaded
/// (`toolspec_reference::test_binary` says why), as in every test binary of the
/// workspace.
#[used]
#[link_section = ".init_array"]
static PREPARE: extern "C" fn() = toolspec_reference::test_binary::prepare;
