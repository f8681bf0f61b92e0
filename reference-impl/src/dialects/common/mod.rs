//! What every dialect uses to build its answers and read its arguments:
//! typed argument access ([`args`]), tool declarations for `tools/list`
//! ([`tool_schema`]) and JSON objects with their keys in a chosen order
//! ([`ordered_json`]). Nothing here knows a dialect's conventions.

pub(crate) mod args;
pub(crate) mod ordered_json;
pub(crate) mod tool_schema;
