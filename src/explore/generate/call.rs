//! One generated call, the unit every generator adds to or changes.

use serde_json::{Map, Value};

/// A call as the suite names it; paths and commands hold `{root}`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct GeneratedCall {
    pub tool: String,
    pub args: Map<String, Value>,
}

impl GeneratedCall {
    /// `tool {json}`, as the report shows it (the root left as `{root}`).
    pub(crate) fn shown(&self) -> String {
        format!("{} {}", self.tool, Value::Object(self.args.clone()))
    }
}
