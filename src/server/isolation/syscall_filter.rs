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
//!   `syslog`, handles opened by number (`open_by_handle_at`);
//! - every call of another ABI: another architecture's numbers (`int 0x80` on
//!   x86-64) and x32's, which would reach the same calls under other numbers.
//!
//! Each fails with `EPERM`, never kills: a program that probes for a call and goes on
//! without it keeps working. `clone3` fails with `ENOSYS` instead: its flags sit in
//! memory a filter cannot read, and on `ENOSYS` glibc (and Node and Python through
//! it) falls back to `clone`, whose flags it can; an `EPERM` there would stop every
//! new thread.
//!
//! Why the program is laid out here rather than by a rule compiler such as
//! seccompiler (which this module used before): the kernel pays for a filter each
//! time one is installed, once per server, and most of that is proportional to the
//! program's shape. On install it runs the program over every system call number
//! (some 900 of them, both ABIs) to find the ones it always allows; a compiler's
//! program tests the refused numbers one after another, so each of those runs
//! walks the whole list. Here the numbers are a binary search (six comparisons, not
//! forty), and one program answers both `EPERM` and `ENOSYS`, where a compiled
//! program has one action and needed a second filter for `clone3`. Measured on the
//! null server (`docs/isolation.md`, Cost): the two compiled filters cost about
//! 0.2 ms of CPU per server to install.
//!
//! The program is made once per process and installed between `fork` and `exec`
//! (`confinement.rs`), which only makes the system call.

use std::sync::OnceLock;

/// `TIOCSTI`: push a byte into a terminal's input.
const TIOCSTI: u32 = 0x5412;
/// `TIOCLINUX`: the Linux console's requests, one of which pastes a selection.
const TIOCLINUX: u32 = 0x541C;

/// The `clone` flags that make a namespace. All sit in the low 32 bits, which are
/// all the kernel reads of `clone`'s flags.
const NAMESPACE_FLAGS: u32 = (libc::CLONE_NEWNS
    | libc::CLONE_NEWCGROUP
    | libc::CLONE_NEWUTS
    | libc::CLONE_NEWIPC
    | libc::CLONE_NEWUSER
    | libc::CLONE_NEWPID
    | libc::CLONE_NEWNET) as u32
    | 0x80; // CLONE_NEWTIME, which libc does not name on every target

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

/// Numbers from here up are no native call: on x86-64 they are x32's (the same
/// calls under other numbers), elsewhere nothing.
const OTHER_ABI_NUMBERS: u32 = 0x4000_0000;

/// What the filter does with one system call number it names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Verdict {
    /// Fails with `EPERM`.
    Refused,
    /// Fails with `ENOSYS`, as on a kernel without it (`clone3`).
    Absent,
    /// `ioctl`: refused for the terminal requests only.
    TerminalRequests,
    /// `clone`: refused with a namespace flag only.
    NamespaceFlags,
}

/// Why there is no seccomp filter: an architecture it does not know, or a program
/// that cannot be laid out (a bug in this file, never the user's).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum FilterError {
    /// This build's architecture has no `AUDIT_ARCH_*` value here.
    #[error("no seccomp filter for {arch}")]
    UnknownArch {
        /// `std::env::consts::ARCH`.
        arch: &'static str,
    },
    /// A system call number that does not fit the filter's 32 bits.
    #[error("system call number {call} out of range")]
    NumberOutOfRange {
        /// The number.
        call: libc::c_long,
    },
    /// A jump to a label placed before it, or never placed.
    #[error("the filter jumps back or nowhere (label {label})")]
    BadJump {
        /// The label.
        label: Label,
    },
    /// A conditional jump farther than 255 instructions.
    #[error("the filter's jump is too long")]
    JumpTooLong,
}

/// The numbers the filter names, sorted, each with its verdict; every other native
/// number is allowed.
fn named_calls() -> Result<Vec<(u32, Verdict)>, FilterError> {
    let named = REFUSED.iter().map(|&call| (call, Verdict::Refused)).chain([
        (libc::SYS_clone3, Verdict::Absent),
        (libc::SYS_ioctl, Verdict::TerminalRequests),
        (libc::SYS_clone, Verdict::NamespaceFlags),
    ]);
    let mut calls = named
        .map(|(call, verdict)| {
            u32::try_from(call)
                .map(|number| (number, verdict))
                .map_err(|_| FilterError::NumberOutOfRange { call })
        })
        .collect::<Result<Vec<_>, _>>()?;
    calls.sort_unstable_by_key(|&(number, _)| number);
    calls.dedup_by_key(|&mut (number, _)| number);
    Ok(calls)
}

/// The `AUDIT_ARCH_*` value seccomp reports for this build's own calls.
fn native_arch() -> Option<u32> {
    match std::env::consts::ARCH {
        "x86_64" => Some(0xC000_003E),
        "aarch64" => Some(0xC000_00B7),
        "riscv64" => Some(0xC000_00F3),
        _ => None,
    }
}

/// Where the fields of the kernel's `seccomp_data` sit.
mod field {
    pub(in crate::server) const NUMBER: u32 = 0;
    pub(in crate::server) const ARCH: u32 = 4;

    /// The low 32 bits of argument `index` (of six, each 64 bits from offset 16).
    pub(in crate::server) const fn low_half_of_argument(index: u32) -> u32 {
        16 + 8 * index + if cfg!(target_endian = "big") { 4 } else { 0 }
    }
}

/// A place in the program, resolved to an instruction's index once it is laid out.
type Label = usize;

/// One piece of the program before its jumps are resolved.
enum Piece {
    /// Load a 32-bit field of `seccomp_data` into the accumulator.
    Load(u32),
    /// Compare the accumulator with `value` (`BPF_JEQ`, `BPF_JGE` or `BPF_JSET`) and
    /// go on at `yes` or `no`.
    Branch {
        test: u32,
        value: u32,
        yes: Label,
        no: Label,
    },
    /// Go on at a label.
    Always(Label),
    /// End with a seccomp action.
    Return(u32),
    /// The label of the next instruction (takes no room).
    Here(Label),
}

/// The program being laid out: pieces, and a count of labels handed out.
struct Layout {
    pieces: Vec<Piece>,
    labels: usize,
}

/// The shared endings every branch can reach.
struct Endings {
    allow: Label,
    refuse: Label,
    absent: Label,
    terminal_requests: Label,
    namespace_flags: Label,
}

impl Layout {
    fn label(&mut self) -> Label {
        self.labels += 1;
        self.labels - 1
    }

    fn branch(&mut self, test: u32, value: u32, yes: Label, no: Label) {
        self.pieces.push(Piece::Branch {
            test,
            value,
            yes,
            no,
        });
    }

    /// Falls through when the test holds: `no` is taken otherwise.
    fn require(&mut self, test: u32, value: u32, no: Label) {
        let next = self.label();
        self.branch(test, value, next, no);
        self.pieces.push(Piece::Here(next));
    }

    /// A binary search of `calls` (sorted) on the number in the accumulator: each
    /// number found goes to its verdict's ending, any other to `allow`.
    fn search(&mut self, calls: &[(u32, Verdict)], endings: &Endings) {
        match calls {
            [] => self.pieces.push(Piece::Always(endings.allow)),
            [(number, verdict)] => {
                let ending = match verdict {
                    Verdict::Refused => endings.refuse,
                    Verdict::Absent => endings.absent,
                    Verdict::TerminalRequests => endings.terminal_requests,
                    Verdict::NamespaceFlags => endings.namespace_flags,
                };
                self.branch(libc::BPF_JEQ, *number, ending, endings.allow);
            }
            _ => {
                let (lower, upper) = calls.split_at(calls.len() / 2);
                let (above, below) = (self.label(), self.label());
                let first_above = upper.first().map_or(0, |&(number, _)| number);
                self.branch(libc::BPF_JGE, first_above, above, below);
                self.pieces.push(Piece::Here(below));
                self.search(lower, endings);
                self.pieces.push(Piece::Here(above));
                self.search(upper, endings);
            }
        }
    }

    /// The instructions, each jump resolved to its offset; `Err` if one is farther
    /// than a conditional jump reaches (255 instructions).
    fn resolve(self) -> Result<Vec<libc::sock_filter>, FilterError> {
        let mut at = vec![usize::MAX; self.labels];
        let mut index = 0;
        for piece in &self.pieces {
            match piece {
                Piece::Here(label) => {
                    if let Some(slot) = at.get_mut(*label) {
                        *slot = index;
                    }
                }
                _ => index += 1,
            }
        }
        let mut program = Vec::with_capacity(index);
        for piece in &self.pieces {
            let from = program.len() + 1;
            let offset = |label: &Label| -> Result<u32, FilterError> {
                at.get(*label)
                    .and_then(|&to| to.checked_sub(from))
                    .and_then(|jump| u32::try_from(jump).ok())
                    .ok_or(FilterError::BadJump { label: *label })
            };
            let short = |label: &Label| -> Result<u8, FilterError> {
                u8::try_from(offset(label)?).map_err(|_| FilterError::JumpTooLong)
            };
            let instruction = |code: u32, jt: u8, jf: u8, k: u32| libc::sock_filter {
                code: code as u16,
                jt,
                jf,
                k,
            };
            program.push(match piece {
                Piece::Here(_) => continue,
                Piece::Load(field) => {
                    instruction(libc::BPF_LD | libc::BPF_W | libc::BPF_ABS, 0, 0, *field)
                }
                Piece::Branch {
                    test,
                    value,
                    yes,
                    no,
                } => instruction(
                    libc::BPF_JMP | test | libc::BPF_K,
                    short(yes)?,
                    short(no)?,
                    *value,
                ),
                Piece::Always(label) => {
                    instruction(libc::BPF_JMP | libc::BPF_JA, 0, 0, offset(label)?)
                }
                Piece::Return(action) => instruction(libc::BPF_RET | libc::BPF_K, 0, 0, *action),
            });
        }
        Ok(program)
    }
}

/// The program: the architecture checked, the number searched, then the endings.
fn lay_out(arch: u32, calls: &[(u32, Verdict)]) -> Result<Vec<libc::sock_filter>, FilterError> {
    let mut layout = Layout {
        pieces: Vec::new(),
        labels: 0,
    };
    let endings = Endings {
        allow: layout.label(),
        refuse: layout.label(),
        absent: layout.label(),
        terminal_requests: layout.label(),
        namespace_flags: layout.label(),
    };
    layout.pieces.push(Piece::Load(field::ARCH));
    layout.require(libc::BPF_JEQ, arch, endings.refuse);
    layout.pieces.push(Piece::Load(field::NUMBER));
    let native = layout.label();
    layout.branch(libc::BPF_JGE, OTHER_ABI_NUMBERS, endings.refuse, native);
    layout.pieces.push(Piece::Here(native));
    layout.search(calls, &endings);

    layout.pieces.push(Piece::Here(endings.terminal_requests));
    layout
        .pieces
        .push(Piece::Load(field::low_half_of_argument(1)));
    let other_request = layout.label();
    layout.branch(libc::BPF_JEQ, TIOCSTI, endings.refuse, other_request);
    layout.pieces.push(Piece::Here(other_request));
    layout.branch(libc::BPF_JEQ, TIOCLINUX, endings.refuse, endings.allow);
    layout.pieces.push(Piece::Here(endings.namespace_flags));
    layout
        .pieces
        .push(Piece::Load(field::low_half_of_argument(0)));
    layout.branch(
        libc::BPF_JSET,
        NAMESPACE_FLAGS,
        endings.refuse,
        endings.allow,
    );
    let errno =
        |errno: libc::c_int| libc::SECCOMP_RET_ERRNO | (errno as u32 & libc::SECCOMP_RET_DATA);
    for (label, action) in [
        (endings.allow, libc::SECCOMP_RET_ALLOW),
        (endings.refuse, errno(libc::EPERM)),
        (endings.absent, errno(libc::ENOSYS)),
    ] {
        layout.pieces.push(Piece::Here(label));
        layout.pieces.push(Piece::Return(action));
    }
    layout.resolve()
}

/// The program, ready to install.
pub(crate) struct Filter {
    program: Vec<libc::sock_filter>,
}

/// The filter of this process, once laid out.
static FILTER: OnceLock<Result<Filter, FilterError>> = OnceLock::new();

/// The filter for this machine's architecture, laid out once per process; `Err`
/// says why there is none (an architecture it does not know). Called before a
/// fork, so that the child only installs it.
pub(crate) fn filter() -> &'static Result<Filter, FilterError> {
    FILTER.get_or_init(|| {
        let arch = native_arch().ok_or(FilterError::UnknownArch {
            arch: std::env::consts::ARCH,
        })?;
        let program = lay_out(arch, &named_calls()?)?;
        Ok(Filter { program })
    })
}

/// The filter if [`filter`] laid it out already: between `fork` and `exec`,
/// where allocating is not allowed.
pub(crate) fn compiled() -> Option<&'static Result<Filter, FilterError>> {
    FILTER.get()
}

impl Filter {
    /// Puts the program in force for this process and what it starts. Needs
    /// `no_new_privs` (or `CAP_SYS_ADMIN`) first.
    ///
    /// # Safety
    /// Only system calls; for between `fork` and `exec`.
    pub(crate) unsafe fn install(&self) -> Result<(), libc::c_int> {
        let program = libc::sock_fprog {
            len: u16::try_from(self.program.len()).map_err(|_| libc::E2BIG)?,
            filter: self.program.as_ptr().cast_mut(),
        };
        let done = libc::syscall(
            libc::SYS_seccomp,
            libc::SECCOMP_SET_MODE_FILTER,
            0,
            &program as *const libc::sock_fprog,
        );
        if done != 0 {
            return Err(*libc::__errno_location());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::{field, filter, lay_out, named_calls, native_arch, Verdict, NAMESPACE_FLAGS};

    /// What a classic BPF program returns for one call, and how many instructions it
    /// ran: the kernel's own reading of the instructions this module lays out.
    fn run(program: &[libc::sock_filter], arch: u32, number: u32, args: [u64; 6]) -> (u32, usize) {
        let mut data = Vec::with_capacity(64);
        data.extend_from_slice(&number.to_ne_bytes());
        data.extend_from_slice(&arch.to_ne_bytes());
        data.extend_from_slice(&0u64.to_ne_bytes());
        for arg in args {
            data.extend_from_slice(&arg.to_ne_bytes());
        }
        let (mut at, mut accumulator, mut steps) = (0usize, 0u32, 0usize);
        loop {
            let i = program[at];
            steps += 1;
            let code = u32::from(i.code);
            at += 1;
            if code == libc::BPF_LD | libc::BPF_W | libc::BPF_ABS {
                let k = i.k as usize;
                accumulator = u32::from_ne_bytes(data[k..k + 4].try_into().unwrap());
            } else if code == libc::BPF_RET | libc::BPF_K {
                return (i.k, steps);
            } else if code == libc::BPF_JMP | libc::BPF_JA {
                at += i.k as usize;
            } else {
                let holds = match code & !(libc::BPF_JMP | libc::BPF_K) {
                    libc::BPF_JEQ => accumulator == i.k,
                    libc::BPF_JGE => accumulator >= i.k,
                    libc::BPF_JSET => accumulator & i.k != 0,
                    other => panic!("an instruction the filter does not use: {other:#x}"),
                };
                at += usize::from(if holds { i.jt } else { i.jf });
            }
        }
    }

    const ALLOW: u32 = libc::SECCOMP_RET_ALLOW;
    const EPERM: u32 = libc::SECCOMP_RET_ERRNO | libc::EPERM as u32;
    const ENOSYS: u32 = libc::SECCOMP_RET_ERRNO | libc::ENOSYS as u32;

    /// What each number should get, read off the list one entry at a time.
    fn expected(calls: &[(u32, Verdict)], number: u32, args: [u64; 6]) -> u32 {
        match calls.iter().find(|&&(n, _)| n == number).map(|&(_, v)| v) {
            None => ALLOW,
            Some(Verdict::Refused) => EPERM,
            Some(Verdict::Absent) => ENOSYS,
            Some(Verdict::TerminalRequests) => {
                if [0x5412, 0x541C].contains(&(args[1] as u32)) {
                    EPERM
                } else {
                    ALLOW
                }
            }
            Some(Verdict::NamespaceFlags) => {
                if args[0] as u32 & NAMESPACE_FLAGS != 0 {
                    EPERM
                } else {
                    ALLOW
                }
            }
        }
    }

    #[test]
    fn the_search_gives_every_number_what_the_list_says_in_a_few_steps() {
        let arch = native_arch().expect("an architecture the filter knows");
        let calls = named_calls().expect("numbers");
        let program = lay_out(arch, &calls).expect("a program");
        let thread = (libc::CLONE_VM
            | libc::CLONE_FS
            | libc::CLONE_FILES
            | libc::CLONE_SIGHAND
            | libc::CLONE_THREAD) as u64;
        let argument_sets: [[u64; 6]; 6] = [
            [0; 6],
            [thread, 0, 0, 0, 0, 0],
            [libc::CLONE_NEWUSER as u64, 0x5412, 0, 0, 0, 0],
            [0x1_0000_0000 | 0x80, 0xFFFF_FFFF_0000_541C, 0, 0, 0, 0],
            [
                libc::CLONE_NEWNET as u64 | thread,
                libc::FIONREAD,
                0,
                0,
                0,
                0,
            ],
            [0xffff_ffff_0000_0000, 0x5413, 0, 0, 0, 0],
        ];
        let mut most_steps = 0;
        for number in 0..1024 {
            for args in argument_sets {
                let (action, steps) = run(&program, arch, number, args);
                assert_eq!(
                    action,
                    expected(&calls, number, args),
                    "call {number} with {args:x?}"
                );
                if calls.iter().all(|&(n, _)| n != number) {
                    most_steps = most_steps.max(steps);
                }
            }
        }
        // The point of the search: an allowed call is known in a handful of steps
        // (arch, number, other ABI, then about log2 of the list, the last test and
        // the return), which the kernel pays some 900 times over at each install;
        // a list tested one number after another takes over forty.
        let bound = 4 + (usize::BITS - calls.len().leading_zeros()) as usize + 2;
        assert!(most_steps <= bound, "{most_steps} steps, more than {bound}");
        for number in [0x4000_0000 | 250, 0x4000_0000, u32::MAX] {
            assert_eq!(
                run(&program, arch, number, [0; 6]).0,
                EPERM,
                "x32 or no call: {number:#x}"
            );
        }
        assert_eq!(
            run(&program, 0x4000_0003, 1, [0; 6]).0,
            EPERM,
            "i386's calls"
        );
        assert!(field::low_half_of_argument(5) + 4 <= 64);
    }

    /// Runs `probe` in a child under the filters; the child's exit code.
    fn under_filter(probe: fn() -> i32) -> i32 {
        let filter = filter().as_ref().expect("a filter for this architecture");
        // SAFETY: the child installs the filter, runs the probe (system calls and
        // thread spawns of its own) and exits without returning.
        unsafe {
            let pid = libc::fork();
            assert!(pid >= 0, "fork");
            if pid == 0 {
                let code = if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
                    90
                } else if filter.install().is_err() {
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
        let code = under_filter(|| unsafe {
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
        let code = under_filter(|| unsafe {
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
