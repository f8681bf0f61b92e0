//! What every dialect uses to build its answers and read its arguments:
//! typed argument access ([`args`]), tool declarations for `tools/list`
//! ([`tool_schema`]), JSON objects with their keys in a chosen order
//! ([`ordered_json`]), and patterns read as JavaScript programs read them
//! ([`js_regex`], [`node_glob`]). Nothing here knows a dialect's conventions.

pub(crate) mod args;
pub(crate) mod js_regex;
pub(crate) mod node_glob;
pub(crate) mod ordered_json;
pub(crate) mod tool_schema;
