//! The `ikigai` dialect (seed 004): the success/error JSON envelope.
//! Not written yet: it serves no tools.

use rmcp::model::{JsonObject, Tool};

use super::{Context, Rendered, Reply};
use crate::mutations::{MutationInfo, Mutations};

pub const MUTATIONS: &[MutationInfo] = &[];

pub fn tools() -> Vec<Tool> {
    Vec::new()
}

pub async fn call(_ctx: &Context, _name: &str, _args: &JsonObject) -> Option<Reply> {
    None
}

pub fn render(_mutations: &Mutations, reply: Reply) -> Rendered {
    match reply {
        Reply::Success { text, .. } => Rendered {
            text,
            is_error: false,
        },
        Reply::Failure(failure) => Rendered {
            text: failure.message,
            is_error: true,
        },
    }
}
