//! `toolspec confinement`: a suite of escapes for any file server, with no suite
//! written for it (docs/confinement.md). From the server's tools/list, each tool
//! that takes a path is given every escape kind of `kinds.yaml` that applies to its
//! job, as scenarios judged only by effect (places beside the root with canaries,
//! `then` empty, in a suite that confines its server), written as a suite of
//! one's own that `run` runs like any other.

pub(crate) mod plan;
mod suite_text;

pub(crate) use plan::{Catalogue, ToolPlan, Trial};
pub(crate) use suite_text::{write_suite, SUITE};
