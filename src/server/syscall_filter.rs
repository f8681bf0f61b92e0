//! The seccomp filter every isolated server runs under: the system calls no file or
//! shell tool needs, and that a hostile server would reach for, fail with `EPERM`.
//!
//! - `ioctl` `TIOCSTI` and `TIOCLINUX`, which type into a terminal (the attack
//!   bubblewrap's `--new-session` answers, CVE-2017-5226); only the low 32 bits of
//!   the request are compared, as the kernel does (CVE-2019-10063: a request with
//!   high bits set passed filters that compared all 64);
//! - the keyring calls, which read the session keyring of the shell that started
//!   toolspec;
//! - `ptrace` and reading or writing another process's memory;
//! - mounting, and making or joining namespaces (`unshare`, `setns`, `clone` with a
//!   namespace flag): a server in a user namespace of its own could otherwise mount
//!   over its view;
//! - loading kernel modules and kexec, `bpf`, `perf_event_open`, `userfaultfd`,
//!   `syslog`, handles opened by number (`open_by_handle_at`).
//!
//! Each fails with `EPERM`, never kills: a program that probes for a call and goes on
//! without it keeps working. `clone3` fails with `ENOSYS` instead: its flags sit in
//! memory a filter cannot read, and on `ENOSYS` glibc (and Node and Python through
//! it) falls back to `clone`, whose flags it can; an `EPERM` there would stop every
//! new thread.
//!
//! The filter is compiled once per process by seccompiler and installed between
//! `fork` and `exec` (`confinement.rs`), which only makes the system call.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};

/// `TIOCSTI`: push a byte into a terminal's input.
const TIOCSTI: u64 = 0x5412;
/// `TIOCLINUX`: the Linux console's requests, one of which pastes a selection.
const TIOCLINUX: u64 = 0x541C;

/// The `clone` flags that make a namespace.
const NAMESPACE_FLAGS: [u64; 8] = [
    libc::CLONE_NEWNS as u64,
    libc::CLONE_NEWCGROUP as u64,
    libc::CLONE_NEWUTS as u64,
    libc::CLONE_NEWIPC as u64,
    libc::CLONE_NEWUSER as u64,
    libc::CLONE_NEWPID as u64,
    libc::CLONE_NEWNET as u64,
    0x80, // CLONE_NEWTIME, which libc does not name on every target
];

/// The calls refused whatever their arguments.
const REFUSED: &[libc::c_long] = &[
    libc::SYS_keyctl,
    libc::SYS_add_key,
    libc::SYS_request_key,
    libc::SYS_ptrace,
    libc::SYS_process_vm_readv,
    libc::SYS_process_vm_writev,
    libc::SYS_mount,
    libc::SYS_umount2,
    libc::SYS_pivot_root,
    libc::SYS_open_tree,
    libc::SYS_move_mount,
    libc::SYS_fsopen,
    libc::SYS_fsconfig,
    libc::SYS_fsmount,
    libc::SYS_fspick,
    libc::SYS_mount_setattr,
    libc::SYS_unshare,
    libc::SYS_setns,
    libc::SYS_init_module,
    libc::SYS_finit_module,
    libc::SYS_delete_module,
    libc::SYS_kexec_load,
    libc::SYS_kexec_file_load,
    libc::SYS_bpf,
    libc::SYS_perf_event_open,
    libc::SYS_userfaultfd,
    libc::SYS_syslog,
    libc::SYS_open_by_handle_at,
];

/// The two programs, in the order they are installed: the `EPERM` one, then the one
/// that answers `clone3` with `ENOSYS` (a filter has one action for what it matches).
pub(crate) struct Filters {
    refused: BpfProgram,
    clone3: BpfProgram,
}

/// The filters of this process, once compiled.
static FILTERS: OnceLock<Result<Filters, String>> = OnceLock::new();

/// The filters for this machine's architecture, compiled once per process; `Err`
/// says why there are none (an architecture seccompiler does not know). Called
/// before a fork, so that the child only installs them.
pub(crate) fn filters() -> &'static Result<Filters, String> {
    FILTERS.get_or_init(compile)
}

/// The filters if [`filters`] compiled them already: between `fork` and `exec`,
/// where compiling (allocating) is not allowed.
pub(crate) fn compiled() -> Option<&'static Result<Filters, String>> {
    FILTERS.get()
}

fn compile() -> Result<Filters, String> {
    let arch = TargetArch::try_from(std::env::consts::ARCH)
        .map_err(|_| format!("no seccomp filter for {}", std::env::consts::ARCH))?;
    let mut refused: BTreeMap<i64, Vec<SeccompRule>> =
        REFUSED.iter().map(|&call| (call, Vec::new())).collect();
    let rule = |index, length, op, value| {
        SeccompCondition::new(index, length, op, value)
            .and_then(|condition| SeccompRule::new(vec![condition]))
            .map_err(|e| e.to_string())
    };
    let terminal = [TIOCSTI, TIOCLINUX]
        .into_iter()
        .map(|request| rule(1, SeccompCmpArgLen::Dword, SeccompCmpOp::Eq, request))
        .collect::<Result<Vec<_>, _>>()?;
    refused.insert(libc::SYS_ioctl, terminal);
    let namespaces = NAMESPACE_FLAGS
        .into_iter()
        .map(|flag| {
            rule(
                0,
                SeccompCmpArgLen::Qword,
                SeccompCmpOp::MaskedEq(flag),
                flag,
            )
        })
        .collect::<Result<Vec<_>, _>>()?;
    refused.insert(libc::SYS_clone, namespaces);
    let program = |rules, errno: libc::c_int| -> Result<BpfProgram, String> {
        let errno = u32::try_from(errno).map_err(|e| e.to_string())?;
        SeccompFilter::new(
            rules,
            SeccompAction::Allow,
            SeccompAction::Errno(errno),
            arch,
        )
        .and_then(BpfProgram::try_from)
        .map_err(|e| e.to_string())
    };
    Ok(Filters {
        refused: program(refused, libc::EPERM)?,
        clone3: program(
            BTreeMap::from([(libc::SYS_clone3, Vec::new())]),
            libc::ENOSYS,
        )?,
    })
}

impl Filters {
    /// Puts both programs in force for this process and what it starts. Needs
    /// `no_new_privs` (or `CAP_SYS_ADMIN`) first.
    ///
    /// # Safety
    /// Only system calls; for between `fork` and `exec`.
    pub(crate) unsafe fn install(&self) -> Result<(), libc::c_int> {
        for program in [&self.refused, &self.clone3] {
            let filter = libc::sock_fprog {
                len: u16::try_from(program.len()).map_err(|_| libc::E2BIG)?,
                // seccompiler's `sock_filter` is the kernel's, field for field.
                filter: program.as_ptr() as *mut libc::sock_filter,
            };
            let done = libc::syscall(
                libc::SYS_seccomp,
                libc::SECCOMP_SET_MODE_FILTER,
                0,
                &filter as *const libc::sock_fprog,
            );
            if done != 0 {
                return Err(*libc::__errno_location());
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::filters;

    /// Runs `probe` in a child under the filters; the child's exit code.
    fn under_filters(probe: fn() -> i32) -> i32 {
        let filters = filters().as_ref().expect("filters for this architecture");
        // SAFETY: the child installs the filter, runs the probe (system calls and
        // thread spawns of its own) and exits without returning.
        unsafe {
            let pid = libc::fork();
            assert!(pid >= 0, "fork");
            if pid == 0 {
                let code = if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
                    90
                } else if filters.install().is_err() {
                    91
                } else {
                    probe()
                };
                libc::_exit(code);
            }
            let mut status = 0;
            assert_eq!(libc::waitpid(pid, &mut status, 0), pid);
            assert!(libc::WIFEXITED(status), "status {status}");
            libc::WEXITSTATUS(status)
        }
    }

    fn errno() -> i32 {
        std::io::Error::last_os_error().raw_os_error().unwrap_or(0)
    }

    #[test]
    fn terminal_injection_and_keyrings_fail_with_eperm_and_other_ioctls_pass() {
        let code = under_filters(|| unsafe {
            let byte = b'x';
            // With high bits set, as CVE-2019-10063's exploit passed filters.
            for request in [0x5412u64, 0xffff_ffff_0000_5412, 0x541C] {
                if libc::syscall(libc::SYS_ioctl, 0, request, &byte) != -1 || errno() != libc::EPERM
                {
                    return 1;
                }
            }
            if libc::syscall(libc::SYS_keyctl, 0, 0, 0, 0, 0) != -1 || errno() != libc::EPERM {
                return 2;
            }
            if libc::unshare(libc::CLONE_NEWUSER) != -1 || errno() != libc::EPERM {
                return 3;
            }
            // An ordinary ioctl is not the filter's business: FIONREAD on a pipe.
            let mut ends = [0; 2];
            let mut waiting: libc::c_int = -1;
            if libc::pipe(ends.as_mut_ptr()) != 0
                || libc::ioctl(ends[0], libc::FIONREAD, &mut waiting) != 0
                || waiting != 0
            {
                return 4;
            }
            0
        });
        assert_eq!(code, 0);
    }

    #[test]
    fn clone3_says_enosys_so_threads_still_start_through_clone() {
        let code = under_filters(|| unsafe {
            if libc::syscall(libc::SYS_clone3, std::ptr::null::<u8>(), 0) != -1
                || errno() != libc::ENOSYS
            {
                return 1;
            }
            match std::thread::spawn(|| 7).join() {
                Ok(7) => 0,
                _ => 2,
            }
        });
        assert_eq!(code, 0);
    }

    #[test]
    fn without_the_filter_the_same_calls_are_not_refused_by_it() {
        // The probe above can fail: unfiltered, unshare of a user namespace and
        // clone3's argument check answer something other than the filter's errors.
        // SAFETY: a child that makes two system calls and exits.
        let code = unsafe {
            let pid = libc::fork();
            if pid == 0 {
                let clone3 = libc::syscall(libc::SYS_clone3, std::ptr::null::<u8>(), 0);
                let code = if clone3 == -1 && errno() == libc::ENOSYS {
                    1
                } else {
                    0
                };
                libc::_exit(code);
            }
            let mut status = 0;
            libc::waitpid(pid, &mut status, 0);
            libc::WEXITSTATUS(status)
        };
        assert_eq!(
            code, 0,
            "this kernel has clone3, so ENOSYS above is the filter's"
        );
    }
}
