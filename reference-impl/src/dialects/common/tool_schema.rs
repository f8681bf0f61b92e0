//! Tool declarations for `tools/list`: every dialect describes its tools as a JSON
//! Schema object with named properties and a list of required ones.

use std::sync::Arc;

use rmcp::model::{JsonObject, Tool};
use serde_json::{json, Value};

/// A tool whose input is an object with `properties` (a JSON object of property
/// schemas) and the `required` names, and nothing else.
pub(crate) fn closed_object_tool(
    name: &'static str,
    description: &'static str,
    properties: Value,
    required: &[&str],
) -> Tool {
    let mut tool = open_object_tool(name, description, properties, required);
    Arc::make_mut(&mut tool.input_schema).insert("additionalProperties".into(), json!(false));
    tool
}

/// Like [`closed_object_tool`], but the schema does not forbid other properties
/// (upstream programs differ here, and a harness preflight reads it).
pub(crate) fn open_object_tool(
    name: &'static str,
    description: &'static str,
    properties: Value,
    required: &[&str],
) -> Tool {
    let mut schema = JsonObject::new();
    schema.insert("type".into(), json!("object"));
    schema.insert("properties".into(), properties);
    schema.insert("required".into(), json!(required));
    Tool::new(name, description, Arc::new(schema))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schemas_declare_properties_and_required_names() {
        let tool = closed_object_tool("t", "d", json!({"a": {"type": "string"}}), &["a"]);
        let schema = Value::Object((*tool.input_schema).clone());
        assert_eq!(schema["required"], json!(["a"]));
        assert_eq!(schema["additionalProperties"], json!(false));
        let open = open_object_tool("t", "d", json!({}), &[]);
        assert!(!open.input_schema.contains_key("additionalProperties"));
    }
}
