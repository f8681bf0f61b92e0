//! Isolation (`docs/isolation.md`): what cuts a server off from what is not its
//! own. `layers.rs` is the model (a target's openings, the layers the kernel can
//! give, found once); the rest are the layers' parts: the server's view of the
//! filesystem (`view_*.rs`), the init that enters its namespaces
//! (`server_init.rs`) and what it enters (`confinement.rs`, `syscall_filter.rs`),
//! Landlock (`sandbox.rs`, `home_view.rs`), limits (`resource_limits.rs`), a
//! socket made inside a server's network namespace (`inside_namespace.rs`), and
//! the report's line when isolation denied something (`denied.rs`).

pub(in crate::server) mod confinement;
pub(in crate::server) mod denied;
pub(in crate::server) mod home_view;
pub(in crate::server) mod inside_namespace;
pub(in crate::server) mod layers;
pub(in crate::server) mod resource_limits;
pub(in crate::server) mod sandbox;
pub(in crate::server) mod server_init;
pub(in crate::server) mod syscall_filter;
pub(in crate::server) mod view_enter;
pub(in crate::server) mod view_folders;
pub(in crate::server) mod view_plan;
pub(in crate::server) mod view_template;
