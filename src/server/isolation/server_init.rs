//! The server's init: pid 1 of a pid namespace of its own, in a mount namespace of
//! its own, between the supervisor and the server (bubblewrap's model).
//!
//! Why a process of its own: a fresh `/proc` shows the processes of the namespace
//! of whoever mounts it, so it must be mounted from inside; and the server must not
//! be pid 1, which the kernel shields from signals and whose death ends the
//! namespace. The init makes the server's view (`view_enter.rs`), puts in force
//! what must follow it (the Landlock rules, which forbid mounting, then no
//! capabilities and the seccomp filter: `confinement.rs`), starts the server, and
//! reaps whatever is orphaned in the namespace. When the server exits, the init
//! hands its status up and exits too, and the kernel kills everything left in the
//! namespace: nothing the server started can outlive it, however it detaches.
//!
//! Inside, the server sees only its own processes: not its supervisor, not
//! toolspec, not another program of the user's (their `/proc/PID/environ` among
//! them), and it cannot signal them.
//!
//! The init talks to the supervisor over a pipe: first whether the server started
//! (`0` or the `errno` that stopped it), last the server's wait status, four bytes
//! each.
//!
//! It is cloned into the supervisor's memory (`CLONE_VM`, on a stack of its own)
//! rather than forked: a fork copied the supervisor's page tables, then each page
//! either wrote, and tore them down at the end, a sixth of a millisecond of CPU a
//! server. Sharing memory with a process outside the sandbox is safe because no
//! server can reach it: the supervisor made the memory undumpable before the
//! clone (`confinement.rs`), so `/proc/1/mem`, `/proc/1/maps` and the like are
//! closed to anyone without `CAP_SYS_PTRACE`, which the server never holds, and
//! the filter refuses `ptrace` and `process_vm_writev` besides (the harness's
//! `parent-memory` escape tries it). The two processes also share `errno`: while
//! the init works, the supervisor only waits on the pipe; once the init has said
//! the server started, it only waits for its children and writes the server's
//! status, and the supervisor reads `errno` after none of its own calls until the
//! init has been reaped.

use std::io;
use std::os::fd::RawFd;

use super::confinement::{self, close_from, Inside};
use super::view_enter::Entry;
use crate::server::server_exec::ServerExec;

/// The namespaces the init starts in.
const NAMESPACES: libc::c_int =
    libc::CLONE_NEWPID | libc::CLONE_NEWNS | libc::CLONE_NEWIPC | libc::CLONE_NEWUTS;

/// Starts the init, which starts the server: the init's pid and the supervisor's
/// end of the pipe the server's wait status comes on.
///
/// # Safety
/// Only in the supervisor, between `fork` and `exec`.
pub(in crate::server) unsafe fn start(
    server: &mut ServerExec,
    inside: &Inside,
) -> io::Result<(libc::pid_t, RawFd)> {
    let mut ends = [0; 2];
    if libc::pipe2(ends.as_mut_ptr(), libc::O_CLOEXEC) != 0 {
        return Err(io::Error::last_os_error());
    }
    let [from_init, to_supervisor] = ends;
    let stack = match Stack::new() {
        Ok(stack) => stack,
        Err(failed) => {
            libc::close(from_init);
            libc::close(to_supervisor);
            return Err(failed);
        }
    };
    let mut handed = Handed {
        server,
        inside,
        from_init,
        to_supervisor,
    };
    let pid = libc::clone(
        init_entry,
        stack.top(),
        NAMESPACES | libc::CLONE_VM | libc::SIGCHLD,
        (&mut handed as *mut Handed).cast(),
    );
    if pid < 0 {
        let failed = io::Error::last_os_error();
        libc::close(from_init);
        libc::close(to_supervisor);
        return Err(failed);
    }
    // The init's stack stays mapped for the supervisor's life (it ends with the
    // init's), and nothing here touches it.
    std::mem::forget(stack);
    libc::close(to_supervisor);
    match read_word(from_init) {
        Some(0) => Ok((pid, from_init)),
        said => {
            let mut status = 0;
            libc::waitpid(pid, &mut status, 0);
            libc::close(from_init);
            Err(io::Error::from_raw_os_error(said.unwrap_or(libc::ECHILD)))
        }
    }
}

/// What the supervisor hands the init it clones, on the supervisor's stack, read by
/// the init before it first reports (the supervisor waits for that report).
struct Handed<'a, 'b> {
    server: &'a mut ServerExec,
    inside: &'a Inside<'b>,
    from_init: RawFd,
    to_supervisor: RawFd,
}

/// The init's own stack: it runs in the supervisor's memory (`CLONE_VM`), beside
/// the supervisor, so it cannot use the supervisor's. Below it, a guard that no
/// access may reach, so an overflow kills the init rather than writing into the
/// supervisor's memory.
struct Stack {
    base: *mut libc::c_void,
}

impl Stack {
    /// Room for the init's calls: building the view, entering the rules, starting
    /// the server (whose own stack is the exec's), a few pages of it ever touched.
    const SIZE: usize = 256 * 1024;
    /// As large as the largest page size of a Linux architecture.
    const GUARD: usize = 64 * 1024;

    unsafe fn new() -> io::Result<Stack> {
        let base = libc::mmap(
            std::ptr::null_mut(),
            Self::GUARD + Self::SIZE,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_STACK | libc::MAP_NORESERVE,
            -1,
            0,
        );
        if base == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        let stack = Stack { base };
        if libc::mprotect(base, Self::GUARD, libc::PROT_NONE) != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(stack)
    }

    /// Where the stack starts (it grows down), 16-byte aligned as the ABI wants.
    fn top(&self) -> *mut libc::c_void {
        self.base
            .cast::<u8>()
            .wrapping_add(Self::GUARD + Self::SIZE)
            .cast()
    }
}

impl Drop for Stack {
    fn drop(&mut self) {
        // SAFETY: the mapping `new` made, unmapped once (only when no init runs
        // on it: `start` forgets a stack an init was cloned on).
        unsafe {
            libc::munmap(self.base, Self::GUARD + Self::SIZE);
        }
    }
}

/// Where the init starts, on its own stack: `arg` is the [`Handed`] on the
/// supervisor's stack.
extern "C" fn init_entry(arg: *mut libc::c_void) -> libc::c_int {
    // SAFETY: `start` passes a live `Handed` and waits for the init's first word
    // before its frame (holding it) can end; everything it points to lives as long
    // as the supervisor.
    unsafe {
        let handed = &mut *arg.cast::<Handed>();
        libc::close(handed.from_init);
        life(handed.server, handed.inside, handed.to_supervisor)
    }
}

/// The server's wait status, if the init handed it up before it exited.
///
/// # Safety
/// `from_init` is the pipe [`start`] returned, read once the init has exited.
pub(in crate::server) unsafe fn server_status(from_init: RawFd) -> Option<libc::c_int> {
    read_word(from_init)
}

/// The init's life. Never returns.
unsafe fn life(server: &mut ServerExec, inside: &Inside, to_supervisor: RawFd) -> ! {
    // If the supervisor is gone, so is everything it held.
    libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0);
    // Nothing of the supervisor's but stdio, the pipe and the ruleset: std's
    // exec-error pipe, held here, would keep the spawn in toolspec waiting forever.
    let rules = inside.rules.unwrap_or(to_supervisor);
    close_from(3, rules.min(to_supervisor), rules.max(to_supervisor));
    // A chroot holds only a server that can never have CAP_SYS_CHROOT, which the
    // filter sees to; it was compiled before the fork, so this only reads it.
    let filtered = inside.hardened && matches!(super::syscall_filter::compiled(), Some(Ok(_)));
    let entry = if filtered {
        Entry::Chroot
    } else {
        Entry::PivotRoot
    };
    let started = match super::view_enter::enter(inside.view, entry, inside.made)
        .and_then(|()| match inside.rules {
            // Not `/dev/shm`, a folder of the read-only `/`: where toolspec's
            // fixtures are on `/dev/shm` (`TMPDIR=/dev/shm`), the folders beside
            // the fixture root are in it, and a write beside the root must fail.
            Some(rules) if inside.view.scratch_access != 0 => confinement::allow_writes_beneath(
                rules,
                &inside.view.scratch,
                inside.view.scratch_access,
            ),
            _ => Ok(()),
        })
        .and_then(|()| confinement::enter_inner(inside.rules, inside.hardened))
    {
        Ok(()) => server
            .start()
            .map_err(|e| e.raw_os_error().unwrap_or(libc::EINVAL)),
        Err(errno) => Err(errno),
    };
    let server = match started {
        Ok(pid) => pid,
        Err(errno) => {
            write_word(to_supervisor, errno.max(1));
            libc::_exit(127)
        }
    };
    write_word(to_supervisor, 0);
    loop {
        let mut status = 0;
        let reaped = libc::waitpid(-1, &mut status, 0);
        if reaped == server {
            write_word(to_supervisor, status);
            libc::_exit(0);
        }
        if reaped < 0 && *libc::__errno_location() == libc::ECHILD {
            libc::_exit(0);
        }
    }
}

unsafe fn write_word(fd: RawFd, word: libc::c_int) {
    let bytes = word.to_ne_bytes();
    libc::write(fd, bytes.as_ptr().cast(), bytes.len());
}

unsafe fn read_word(fd: RawFd) -> Option<libc::c_int> {
    let mut bytes = [0u8; 4];
    loop {
        let read = libc::read(fd, bytes.as_mut_ptr().cast(), bytes.len());
        if read == 4 {
            return Some(libc::c_int::from_ne_bytes(bytes));
        }
        if read < 0 && *libc::__errno_location() == libc::EINTR {
            continue;
        }
        return None;
    }
}

/// Whether this process may give a server a pid and mount namespace of its own and
/// mount its `/proc` there, tried as a server's supervisor and init do it (after
/// entering `cut`), in a child that exits at once: `Ok` or the errno.
pub(in crate::server) fn try_view(cut: confinement::NetworkCut) -> Result<(), libc::c_int> {
    // SAFETY: the children only make system calls and exit; each parent waits for
    // its child. Nothing is mounted outside the grandchild's own mount namespace.
    unsafe {
        confinement::in_a_child(|| {
            confinement::enter_network(cut)?;
            probe_in_namespaces()
        })
    }
}

/// In a fresh pid and mount namespace: a tmpfs with a `/proc` of its own in it.
unsafe fn probe_in_namespaces() -> Result<(), libc::c_int> {
    let pid = libc::syscall(libc::SYS_clone, NAMESPACES | libc::SIGCHLD, 0, 0, 0, 0);
    if pid < 0 {
        return Err(*libc::__errno_location());
    }
    if pid == 0 {
        let steps: [unsafe fn() -> libc::c_int; 4] = [
            || {
                libc::mount(
                    std::ptr::null(),
                    c"/".as_ptr(),
                    std::ptr::null(),
                    libc::MS_REC | libc::MS_PRIVATE,
                    std::ptr::null(),
                )
            },
            || {
                libc::mount(
                    c"tmpfs".as_ptr(),
                    c"/tmp".as_ptr(),
                    c"tmpfs".as_ptr(),
                    libc::MS_NOSUID | libc::MS_NODEV,
                    std::ptr::null(),
                )
            },
            || libc::mkdir(c"/tmp/proc".as_ptr(), 0o755),
            || {
                libc::mount(
                    c"proc".as_ptr(),
                    c"/tmp/proc".as_ptr(),
                    c"proc".as_ptr(),
                    libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
                    std::ptr::null(),
                )
            },
        ];
        for step in steps {
            if step() != 0 {
                libc::_exit(confinement::exit_code(Err(*libc::__errno_location())));
            }
        }
        libc::_exit(0);
    }
    confinement::wait_code(libc::pid_t::try_from(pid).unwrap_or(-1))
}
