//! Makes a server's view (`view_plan.rs`) and moves into it, in the server's init:
//! a process in a mount namespace of its own, between `fork` and `exec`, where only
//! system calls on paths prepared beforehand are allowed.
//!
//! Every bind takes what is mounted below its place too (in a user namespace the
//! kernel refuses a bind that would uncover what a mount below hides), and every
//! place but the fixture, the scratch folder, `isolation.writable` and the devices
//! is made read-only, mounts below it included, with `mount_setattr`, which keeps
//! the flags a user namespace may not drop (the older remount needs them named,
//! and is the fallback). The view's own tmpfs is unbindable, so a bind of a folder
//! holding it (the temporary folder, where the current folder is it) does not copy
//! the view into itself. The tmpfs under it all is made read-only last, then
//! becomes `/` ([`Entry`] says how).

use std::ffi::CStr;

use super::view_plan::{Step, ViewPlan};

/// `struct mount_attr` of `mount_setattr(2)`.
#[repr(C)]
struct MountAttributes {
    set: u64,
    clear: u64,
    propagation: u64,
    user_namespace: u64,
}

const ATTR_READ_ONLY: u64 = 0x1;
const ATTR_NO_SUID: u64 = 0x2;
const ATTR_NO_DEVICES: u64 = 0x4;

/// The size of the tmpfs holding the view: the folders and empty files it is made
/// of, nothing more (it is read-only once made).
const ROOT_OPTIONS: &CStr = c"mode=0755,size=1m";
/// The server's scratch tmpfs: its own. The kernel's default size (half the
/// memory); what it holds is charged to the server's cgroup, so the memory limit
/// bounds it.
const SCRATCH_OPTIONS: &CStr = c"mode=0700";

/// How the server's init moves into its view once it is made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::server) enum Entry {
    /// The view is moved onto `/` and the init `chroot`s into it; the machine's
    /// tree stays below it in the namespace, out of reach of every path. Only a
    /// process with `CAP_SYS_CHROOT` could climb out of a chroot, and the server
    /// has no capability and can gain none: no `no_new_privs`-breaking exec, and
    /// no user namespace of its own (the seccomp filter refuses `unshare`,
    /// `clone` with a namespace flag and `clone3`). Cheaper than `pivot_root`: the
    /// lazy unmount of the machine's tree after it waits out an expedited RCU grace
    /// period, which every CPU pays for (0.36 ms a server, measured).
    Chroot,
    /// `pivot_root`, and the machine's tree unmounted: where there is no seccomp
    /// filter to keep the server from making a user namespace, in which it would
    /// have `CAP_SYS_CHROOT`.
    PivotRoot,
}

/// What of a server's view is made when its init starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::server) enum Made {
    /// Nothing: the init makes all of it.
    Nothing,
    /// Its shared part (`ViewPlan::shared_steps`), in the mount namespace the init
    /// was cloned from, which its own copies (`view_template.rs`).
    Shared,
}

/// Makes the shared part of `plan`'s view: the tmpfs of the view's `/` on the new
/// root, and every step shared by the servers of its target.
///
/// # Safety
/// Only in a process running one thread, in a mount namespace of its own, with
/// nothing mounted on the new root yet.
pub(in crate::server) unsafe fn make_shared(plan: &ViewPlan) -> Result<(), libc::c_int> {
    // Nothing done here reaches the machine's mount namespace.
    check(libc::mount(
        std::ptr::null(),
        c"/".as_ptr(),
        std::ptr::null(),
        libc::MS_REC | libc::MS_PRIVATE,
        std::ptr::null(),
    ))?;
    tmpfs(&plan.new_root, ROOT_OPTIONS)?;
    check(libc::mount(
        std::ptr::null(),
        plan.new_root.as_ptr(),
        std::ptr::null(),
        libc::MS_UNBINDABLE,
        std::ptr::null(),
    ))?;
    for step in plan.steps.iter().take(plan.shared_steps) {
        carry_out(step)?;
    }
    Ok(())
}

/// Makes the view of `plan`, beyond what `made` says is made, and moves into it as
/// `entry` says, starting in its fixture root.
///
/// # Safety
/// Only in a process of its own, in a mount namespace of its own, between `fork`
/// and `exec`.
pub(in crate::server) unsafe fn enter(
    plan: &ViewPlan,
    entry: Entry,
    made: Made,
) -> Result<(), libc::c_int> {
    if made == Made::Nothing {
        make_shared(plan)?;
    }
    for step in plan.steps.iter().skip(plan.shared_steps) {
        carry_out(step)?;
    }
    // Only the tmpfs itself: the places bound on it keep their own rights.
    read_only(&plan.new_root, false, false)?;
    check(libc::chdir(plan.new_root.as_ptr()))?;
    match entry {
        Entry::Chroot => {
            check(libc::mount(
                c".".as_ptr(),
                c"/".as_ptr(),
                std::ptr::null(),
                libc::MS_MOVE,
                std::ptr::null(),
            ))?;
            check(libc::chroot(c".".as_ptr()))?;
        }
        Entry::PivotRoot => {
            // The new root goes over the old one, which is then let go of.
            check(
                libc::syscall(libc::SYS_pivot_root, c".".as_ptr(), c".".as_ptr()) as libc::c_int,
            )?;
            check(libc::umount2(c".".as_ptr(), libc::MNT_DETACH))?;
        }
    }
    check(libc::chdir(c"/".as_ptr()))?;
    check(libc::chdir(plan.start_in.as_ptr()))
}

unsafe fn carry_out(step: &Step) -> Result<(), libc::c_int> {
    match step {
        Step::Folder(at) => {
            if libc::mkdir(at.as_ptr(), 0o755) != 0 && errno() != libc::EEXIST {
                return Err(errno());
            }
            Ok(())
        }
        Step::File(at) => {
            let fd = libc::open(
                at.as_ptr(),
                libc::O_RDONLY | libc::O_CREAT | libc::O_CLOEXEC | libc::O_NOFOLLOW,
                0o644,
            );
            if fd < 0 {
                return Err(errno());
            }
            libc::close(fd);
            Ok(())
        }
        Step::Bind { from, to, writable } => {
            check(bind(from, to, libc::MS_REC))?;
            if *writable {
                Ok(())
            } else {
                read_only(to, true, true)
            }
        }
        Step::BindAlone { from, to } => {
            // In a user namespace the kernel refuses it (`EINVAL`): the mounts
            // below would be uncovered. Then with them.
            if bind(from, to, 0) != 0 {
                if errno() != libc::EINVAL {
                    return Err(errno());
                }
                check(bind(from, to, libc::MS_REC))?;
            }
            read_only(to, true, true)
        }
        Step::Scratch(at) => tmpfs(at, SCRATCH_OPTIONS),
        Step::Overlay { options, at } => {
            // Best left out: the runner then finds an empty cache, as with no
            // overlay at all, and says so itself.
            libc::mount(
                c"overlay".as_ptr(),
                at.as_ptr(),
                c"overlay".as_ptr(),
                libc::MS_NOSUID | libc::MS_NODEV,
                options.as_ptr().cast(),
            );
            Ok(())
        }
        Step::Link { target, at } => {
            if libc::symlink(target.as_ptr(), at.as_ptr()) != 0 && errno() != libc::EEXIST {
                return Err(errno());
            }
            Ok(())
        }
        Step::Proc(at) => check(libc::mount(
            c"proc".as_ptr(),
            at.as_ptr(),
            c"proc".as_ptr(),
            libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
            std::ptr::null(),
        )),
    }
}

/// Binds `from` at `to`, with what is mounted below it when `recursive` is
/// `MS_REC`; the `mount` call's result.
unsafe fn bind(from: &CStr, to: &CStr, recursive: libc::c_ulong) -> libc::c_int {
    libc::mount(
        from.as_ptr(),
        to.as_ptr(),
        std::ptr::null(),
        libc::MS_BIND | recursive,
        std::ptr::null(),
    )
}

/// Mounts a tmpfs at `at`, without set-uid programs or devices.
unsafe fn tmpfs(at: &CStr, options: &CStr) -> Result<(), libc::c_int> {
    check(libc::mount(
        c"tmpfs".as_ptr(),
        at.as_ptr(),
        c"tmpfs".as_ptr(),
        libc::MS_NOSUID | libc::MS_NODEV,
        options.as_ptr().cast(),
    ))
}

/// Makes the mount at `at` read-only (and without set-uid programs, and without
/// devices when `no_devices`), and the mounts below it too when `below`.
unsafe fn read_only(at: &CStr, no_devices: bool, below: bool) -> Result<(), libc::c_int> {
    let attributes = MountAttributes {
        set: ATTR_READ_ONLY | ATTR_NO_SUID | if no_devices { ATTR_NO_DEVICES } else { 0 },
        clear: 0,
        propagation: 0,
        user_namespace: 0,
    };
    let done = libc::syscall(
        libc::SYS_mount_setattr,
        libc::AT_FDCWD,
        at.as_ptr(),
        if below { libc::AT_RECURSIVE } else { 0 },
        &attributes as *const MountAttributes,
        std::mem::size_of::<MountAttributes>(),
    );
    if done == 0 {
        return Ok(());
    }
    if errno() != libc::ENOSYS {
        return Err(errno());
    }
    // Linux before 5.12: a remount naming every flag the mount keeps.
    let mut stat: libc::statvfs = std::mem::zeroed();
    check(libc::statvfs(at.as_ptr(), &mut stat))?;
    let kept = [
        (libc::ST_NOEXEC, libc::MS_NOEXEC),
        (libc::ST_NOATIME, libc::MS_NOATIME),
        (libc::ST_NODIRATIME, libc::MS_NODIRATIME),
        (libc::ST_RELATIME, libc::MS_RELATIME),
        (libc::ST_NODEV, libc::MS_NODEV),
    ]
    .iter()
    .filter(|(st, _)| stat.f_flag & st != 0)
    .fold(0, |flags, (_, ms)| flags | ms);
    check(libc::mount(
        std::ptr::null(),
        at.as_ptr(),
        std::ptr::null(),
        libc::MS_REMOUNT | libc::MS_BIND | libc::MS_RDONLY | libc::MS_NOSUID | kept,
        std::ptr::null(),
    ))
}

fn check(result: libc::c_int) -> Result<(), libc::c_int> {
    if result == 0 {
        Ok(())
    } else {
        // SAFETY: reads this thread's errno.
        Err(unsafe { errno() })
    }
}

unsafe fn errno() -> libc::c_int {
    *libc::__errno_location()
}
