//! What this workspace's own test binaries set up before `main`, shared so that
//! the harness's, the scenarios' and the reference server's test binaries agree.
//! Not part of the server: it is public only so that those binaries can name it
//! in their `.init_array` entry.
//!
//! Each test binary holds
//!
//! ```ignore
//! #[used]
//! #[link_section = ".init_array"]
//! static PREPARE: extern "C" fn() = toolspec_reference::test_binary::prepare;
//! ```
//!
//! so that [`prepare`] runs as the binary is loaded, with one thread and before
//! libtest or a test reads the environment.

/// Tests run at once a core when `RUST_TEST_THREADS` does not say.
const TESTS_A_CORE: usize = 6;

/// Six tests a core unless `RUST_TEST_THREADS` says otherwise, and temporary
/// files on a tmpfs (`/dev/shm`) unless `TMPDIR` says where they go.
///
/// - These tests mostly wait (on servers that start, hang or run out their time,
///   on child processes), so libtest's one test a core left a 2-core machine
///   idle half the time (the harness: 31 s at one a core, 17 s at four; later,
///   with more tests, 20-22 s at four and 18.2-18.8 s at six, 19.8 s at four a
///   core and 20.7 s at twelve; the server's tests: 3.3 s at one a core, 2.1 s
///   at four).
/// - They make and remove tens of thousands of fixture files and folders a
///   minute. On an ext4 without a journal, as on this project's machines, every
///   new inode is placed past the inodes removed in the last half minute, which
///   the kernel reads one by one (`find_inode_bit`, `recently_deleted`): that was
///   a fifth of the harness's CPU, and the tests are not about the disk. Every
///   `toolspec` and server a test starts inherits the variable, so all agree.
pub extern "C" fn prepare() {
    if std::env::var_os("RUST_TEST_THREADS").is_none() {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        std::env::set_var("RUST_TEST_THREADS", (cores * TESTS_A_CORE).to_string());
    }
    if std::env::var_os("TMPDIR").is_none() && writable_tmpfs(c"/dev/shm") {
        std::env::set_var("TMPDIR", "/dev/shm");
    }
}

/// Whether `path` is a tmpfs this process may create files in.
fn writable_tmpfs(path: &std::ffi::CStr) -> bool {
    // SAFETY: statfs writes one struct into `fs`, from a NUL-terminated path.
    let mut fs: libc::statfs = unsafe { std::mem::zeroed() };
    let on_tmpfs =
        unsafe { libc::statfs(path.as_ptr(), &mut fs) } == 0 && fs.f_type == libc::TMPFS_MAGIC;
    // SAFETY: access only reads the NUL-terminated path.
    on_tmpfs && unsafe { libc::access(path.as_ptr(), libc::W_OK | libc::X_OK) } == 0
}
