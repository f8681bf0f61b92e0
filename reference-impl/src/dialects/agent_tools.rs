//! The `agent-tools` dialect (seed 003): the `{"error","message"}` envelope.
//! Not written yet: it serves no tools.

use rmcp::model::{JsonObject, Tool};

use super::{Context, Failure, Rendered, Reply};
use crate::mutations::{MutationInfo, Mutations};

pub const MUTATIONS: &[MutationInfo] = &[];

pub fn tools(_ctx: &Context) -> Vec<Tool> {
    Vec::new()
}

/// Every name gets an answer: an unknown tool is the `not_found` envelope.
pub async fn call(_ctx: &Context, name: &str, _args: &JsonObject) -> Reply {
    Reply::Failure(Failure::new("not_found", format!("Unknown tool: {name}")))
}

pub fn render(_mutations: &Mutations, reply: Reply) -> Rendered {
    match reply {
        Reply::Success { text, .. } => Rendered {
            text,
            is_error: false,
        },
        Reply::Failure(failure) => Rendered {
            text: serde_json::json!({"error": failure.code, "message": failure.message})
                .to_string(),
            is_error: true,
        },
    }
}
