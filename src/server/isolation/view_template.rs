//! The spawner's view templates: the part of a view that every server of a target
//! shares (the system folders and their read-only flags, the masks, the devices,
//! the folders its program and `PATH` need), made once in a mount namespace of the
//! spawner's own, one for each target (a few are kept). Each server's init copies
//! that namespace as it clones itself into one of its own, and makes only what is
//! its server's: its scratch tmpfs, its `/proc` and its fixture
//! (`ViewPlan::shared_steps` says where that begins).
//!
//! Why: making the shared part again for each server (some thirty folders, as many
//! binds and their read-only flags, the tmpfs of its `/`) was the largest part of
//! what a view cost; the kernel copies a mount faster than it makes one (0.45 ms
//! less a server, docs/isolation.md).
//!
//! What it leaves: the folders each fixture is bound on are made in the template's
//! tmpfs, which every copy shares, so a later server's view holds the empty folders
//! of earlier fixtures (`/tmp/toolspec-…`: their names, nothing in them, and
//! nothing there any server may write). A template is made again after
//! [`SERVERS_PER_TEMPLATE`] servers, which bounds how many.
//!
//! Only as root: without root a server's view is made in a user namespace of its
//! own, which could not own a namespace copied from the spawner's.
//!
//! Everything here runs in the spawner, one thread, and allocates only when a
//! template is made.

use std::ffi::CString;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

use super::confinement::NetworkCut;
use super::view_enter::make_shared;
use super::view_plan::{Step, ViewPlan};

/// How many servers one template serves before it is made again.
const SERVERS_PER_TEMPLATE: u32 = 32;

/// How many templates the spawner keeps: one per target, for a run (`matrix`) that
/// starts the servers of several in turn.
const MOST_TEMPLATES: usize = 4;

/// The spawner's templates, the one it is in, and the machine's mount namespace to
/// go back to.
pub(in crate::server) struct ViewTemplates {
    /// The machine's mount namespace, opened before the first template is made.
    machine: Option<OwnedFd>,
    templates: Vec<Template>,
    /// Which of `templates` the spawner is in; `None`: the machine's namespace.
    current: Option<usize>,
    /// A template could not be made: each view is made whole from then on.
    failed: bool,
}

/// The shared part of one target's views, the mount namespace that holds it, and
/// how many servers it has served.
struct Template {
    new_root: CString,
    shared: Vec<Step>,
    namespace: OwnedFd,
    servers: u32,
}

impl Template {
    fn holds(&self, new_root: &CString, shared: &[Step]) -> bool {
        self.new_root == *new_root && self.shared == shared
    }
}

/// Whether a server's view can come from a template: as root, in no user
/// namespace.
pub(in crate::server) fn can_serve(network: NetworkCut) -> bool {
    // SAFETY: geteuid cannot fail.
    let root = unsafe { libc::geteuid() } == 0;
    root && matches!(network, NetworkCut::Open | NetworkCut::Namespace)
}

impl ViewTemplates {
    pub(in crate::server) const fn new() -> ViewTemplates {
        ViewTemplates {
            machine: None,
            templates: Vec::new(),
            current: None,
            failed: false,
        }
    }

    /// Puts the spawner in a mount namespace that holds the shared part of `plan`,
    /// made if none does (or the one that did has served its servers); whether it
    /// is in one.
    ///
    /// # Safety
    /// Only in the spawner, which runs one thread.
    pub(in crate::server) unsafe fn enter_for(&mut self, plan: &ViewPlan) -> bool {
        if self.failed {
            return false;
        }
        let shared = plan.steps.get(..plan.shared_steps).unwrap_or_default();
        let found = self
            .templates
            .iter()
            .position(|t| t.holds(&plan.new_root, shared) && t.servers < SERVERS_PER_TEMPLATE);
        let index = match found {
            Some(index) => index,
            None => match self.make(plan, shared) {
                Some(index) => index,
                None => {
                    self.failed = true;
                    self.leave();
                    return false;
                }
            },
        };
        if self.current != Some(index) {
            let Some(template) = self.templates.get(index) else {
                return false;
            };
            if libc::setns(template.namespace.as_raw_fd(), libc::CLONE_NEWNS) != 0 {
                self.failed = true;
                self.leave();
                return false;
            }
            self.current = Some(index);
        }
        if let Some(template) = self.templates.get_mut(index) {
            template.servers += 1;
        }
        true
    }

    /// Makes a template for `plan` in a new mount namespace, in place of the one
    /// that held it before, or of the oldest if there are as many as are kept; its
    /// index. The spawner is in it.
    unsafe fn make(&mut self, plan: &ViewPlan, shared: &[Step]) -> Option<usize> {
        if !self.leave() {
            return None;
        }
        if self.machine.is_none() {
            self.machine = Some(open_own_mount_namespace()?);
        }
        self.templates.retain(|t| !t.holds(&plan.new_root, shared));
        if self.templates.len() >= MOST_TEMPLATES {
            self.templates.remove(0);
        }
        if libc::unshare(libc::CLONE_NEWNS) != 0 {
            return None;
        }
        // In it now, with nothing made: back out if what follows fails.
        self.current = Some(self.templates.len());
        make_shared(plan).ok()?;
        self.templates.push(Template {
            new_root: plan.new_root.clone(),
            shared: shared.to_vec(),
            namespace: open_own_mount_namespace()?,
            servers: 0,
        });
        Some(self.templates.len() - 1)
    }

    /// Back in the machine's mount namespace, for a server whose view is made
    /// whole, or that has none; whether the spawner is there.
    ///
    /// # Safety
    /// As [`ViewTemplates::enter_for`].
    pub(in crate::server) unsafe fn leave(&mut self) -> bool {
        if self.current.is_none() {
            return true;
        }
        let Some(machine) = self.machine.as_ref() else {
            return false;
        };
        if libc::setns(machine.as_raw_fd(), libc::CLONE_NEWNS) != 0 {
            self.failed = true;
            return false;
        }
        self.current = None;
        true
    }
}

/// This process's mount namespace, opened.
unsafe fn open_own_mount_namespace() -> Option<OwnedFd> {
    let fd = libc::open(
        c"/proc/self/ns/mnt".as_ptr(),
        libc::O_RDONLY | libc::O_CLOEXEC,
    );
    (fd >= 0).then(|| OwnedFd::from_raw_fd(fd))
}
