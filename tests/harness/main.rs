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
//! - `coverage` and `scaffold`: `coverage`;
//! - `init` (a proposed target file and its first baseline): `init`;
//! - a server's isolation (writes, the real home, the network) and each opening of
//!   it, against a server that tries to escape: `isolation`;
//! - `mutants`: `mutants`;
//! - `explore` (generated cases against the reference): `explore`;
//! - the built-in suites, `--specs`, `suites export`, empty gates: `standalone`;
//! - `run --html`, `matrix`, badges, `diff` and `history`: `results_page` (the page in a
//!   real browser: the `browser` binary);
//! - verdicts, standings, baselines and the counts every report gives: `verdict_model`;
//! - no document or example installing a package name the project does not own:
//!   `install_lines`;
//! - how many crates a release build compiles, against `build-budget.txt`:
//!   `build_budget`;
//! - the console text pinned as a whole, and the JSON files' schemas: `golden` (a new
//!   pinned command line is a case file in `tests/golden/`, not a Rust test).

mod bless;
mod build_budget;
mod can_fail;
mod cli;
mod containment;
mod coverage;
mod explore;
mod fuzz_corpus;
mod gemini_exactness;
mod golden;
mod hostile_http;
mod init;
mod install_lines;
mod isolation;
mod mutants;
mod results_page;
mod scenario_features;
mod scenario_loading;
mod standalone;
mod support;
mod verdict_model;

/// Four tests a core unless `RUST_TEST_THREADS` or `--test-threads` says otherwise.
/// These tests mostly wait (on servers that start, hang or run out their time, on
/// child `toolspec` runs), so libtest's one test a core left a 2-core machine idle
/// half the time: 31 s for this binary, against 17 s at four a core. It has to be
/// set before libtest reads the variable, so it runs as the binary is loaded, with
/// one thread and before `main`; the conformance runner picks the same four a core
/// for the bundled server in code (`runner.rs`).
#[used]
#[link_section = ".init_array"]
static FOUR_TESTS_A_CORE: extern "C" fn() = four_tests_a_core;

extern "C" fn four_tests_a_core() {
    if std::env::var_os("RUST_TEST_THREADS").is_none() {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        std::env::set_var("RUST_TEST_THREADS", (cores * 4).to_string());
    }
}

/// The tests' temporary files on a tmpfs (`/dev/shm`) unless `TMPDIR` says where
/// they go. These tests make and remove tens of thousands of fixture files and
/// folders in a minute. On an ext4 without a journal, as on this project's
/// machines, every new inode is placed past the inodes removed in the last half
/// minute, which the kernel reads one by one (`find_inode_bit`,
/// `recently_deleted`): that was a fifth of this binary's CPU, and the tests are
/// not about the disk. Set as the binary is loaded, like [`FOUR_TESTS_A_CORE`], so
/// that the tests' own temporary folders and every `toolspec` and server they
/// start agree on it.
#[used]
#[link_section = ".init_array"]
static TEMPORARY_FILES_IN_MEMORY: extern "C" fn() = temporary_files_in_memory;

extern "C" fn temporary_files_in_memory() {
    const SHM: &std::ffi::CStr = c"/dev/shm";
    if std::env::var_os("TMPDIR").is_some() {
        return;
    }
    // SAFETY: statfs writes one struct into `fs`, from a NUL-terminated path.
    let mut fs: libc::statfs = unsafe { std::mem::zeroed() };
    let on_tmpfs = unsafe { libc::statfs(SHM.as_ptr(), &mut fs) } == 0
        && fs.f_type == libc::TMPFS_MAGIC
        // SAFETY: access only reads the NUL-terminated path.
        && unsafe { libc::access(SHM.as_ptr(), libc::W_OK | libc::X_OK) } == 0;
    if on_tmpfs {
        std::env::set_var("TMPDIR", "/dev/shm");
    }
}
