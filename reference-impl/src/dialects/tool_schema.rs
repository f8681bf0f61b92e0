//! Tool declarations for `tools/list`: every dialect describes its tools as a JSON
//! Schema object with named properties and a list of required ones.

use std::sync::Arc;

use rmcp::model::{JsonObject, Tool};
use serde_json::{json, Value};

/// Whether a tool's schema admits properties it does not declare. Upstream
/// programs differ here, and a harness preflight reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum UndeclaredArguments {
    Refused,
    Allowed,
}

/// A tool whose input is an object with `properties` (a JSON object of property
/// schemas) and the `required` names, and nothing else.
pub fn closed_object_tool(
    name: &'static str,
    description: &'static str,
    properties: Value,
    required: &[&str],
) -> Tool {
    object_tool(
        name,
        description,
        properties,
        required,
        UndeclaredArguments::Refused,
    )
}

/// Like [`closed_object_tool`], but the schema does not forbid other properties.
pub fn open_object_tool(
    name: &'static str,
    description: &'static str,
    properties: Value,
    required: &[&str],
) -> Tool {
    object_tool(
        name,
        description,
        properties,
        required,
        UndeclaredArguments::Allowed,
    )
}

fn object_tool(
    name: &'static str,
    description: &'static str,
    properties: Value,
    required: &[&str],
    undeclared: UndeclaredArguments,
) -> Tool {
    let mut schema = JsonObject::new();
    schema.insert("type".into(), json!("object"));
    schema.insert("properties".into(), properties);
    schema.insert("required".into(), json!(required));
    if undeclared == UndeclaredArguments::Refused {
        schema.insert("additionalProperties".into(), json!(false));
    }
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
