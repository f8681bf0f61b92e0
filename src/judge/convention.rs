//! How a suite's results are read: which results are errors, and where the error
//! code is. The suite names its dialect in `suite.yaml`; the logic lives here.

use std::sync::OnceLock;

use regex::Regex;

use crate::scenario::Convention;
use crate::server::outcome::ToolResult;

/// A code could not be read, and why, in words for the report.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct CodeUnreadable(pub String);

/// The reading of results belongs to the judge; the enum itself is part of the
/// scenario model, which only needs to know whether codes exist.
impl Convention {
    /// What every result of this dialect must look like, whatever the scenario: the
    /// rules the dialect's document states for all results. Each broken rule is one
    /// line; an empty list means the result keeps the convention.
    pub(crate) fn breaks(self, result: &ToolResult) -> Vec<String> {
        match self {
            Convention::BracketCode | Convention::Plain => Vec::new(),
            Convention::JsonErrorEnvelope => error_envelope_breaks(result),
            Convention::JsonResultEnvelope => result_envelope_breaks(result),
        }
    }

    /// A name for [`Self::breaks`] in reports.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Convention::BracketCode => "bracket-code convention",
            Convention::Plain => "plain convention",
            Convention::JsonErrorEnvelope => "error envelope",
            Convention::JsonResultEnvelope => "result envelope",
        }
    }

    /// Reads the error code from a result's text.
    pub(crate) fn read_code(self, result: &ToolResult) -> Result<String, CodeUnreadable> {
        match self {
            Convention::BracketCode => read_bracket_code(&result.text),
            Convention::JsonErrorEnvelope => read_envelope_code(&result.text),
            Convention::Plain | Convention::JsonResultEnvelope => Err(CodeUnreadable(
                "this dialect has no error codes".to_string(),
            )),
        }
    }
}

/// `[CODE] message`: the bracketed token must open the text and be followed by a space.
fn read_bracket_code(text: &str) -> Result<String, CodeUnreadable> {
    static PREFIX: OnceLock<Regex> = OnceLock::new();
    let prefix = PREFIX.get_or_init(|| Regex::new(r"\A\[([^\]\n]*)\] ").expect("static regex"));
    match prefix.captures(text) {
        Some(caps) => Ok(caps[1].to_string()),
        None if text.starts_with('[') => Err(CodeUnreadable(
            "the text opens with `[` but not with `[CODE] ` (closing bracket and a space)"
                .to_string(),
        )),
        None => Err(CodeUnreadable(
            "the text does not start with a `[CODE] ` prefix".to_string(),
        )),
    }
}

/// `{"error": "<code>", "message": ...}`.
fn read_envelope_code(text: &str) -> Result<String, CodeUnreadable> {
    let unreadable = |why: EnvelopeError| CodeUnreadable(why.to_string());
    let value = parse_json(text).map_err(unreadable)?;
    string_field(&value, "error")
        .map(str::to_string)
        .map_err(unreadable)
}

/// Why a text is not the JSON error envelope (or has no code in it).
#[derive(Debug, thiserror::Error)]
enum EnvelopeError {
    /// Not JSON at all.
    #[error("the text is not JSON ({0})")]
    NotJson(#[source] serde_json::Error),
    /// JSON, but not an object.
    #[error("the JSON is not an object but {0}")]
    NotObject(serde_json::Value),
    /// The field is there, but not a string.
    #[error("the JSON's `{key}` is not a string but {value}")]
    NotString {
        /// The field.
        key: &'static str,
        /// What it holds.
        value: serde_json::Value,
    },
    /// The field is missing.
    #[error("the JSON has no `{key}` field")]
    Missing {
        /// The field.
        key: &'static str,
    },
}

/// Whether `text` is `{"error": "<string>", "message": "<string>", ...}`.
fn as_error_envelope(text: &str) -> Result<(), EnvelopeError> {
    let value = parse_json(text)?;
    if !value.is_object() {
        return Err(EnvelopeError::NotObject(value));
    }
    string_field(&value, "error")?;
    string_field(&value, "message")?;
    Ok(())
}

fn parse_json(text: &str) -> Result<serde_json::Value, EnvelopeError> {
    serde_json::from_str(text).map_err(EnvelopeError::NotJson)
}

/// A string field of a JSON object, or why there is none.
fn string_field<'a>(
    value: &'a serde_json::Value,
    key: &'static str,
) -> Result<&'a str, EnvelopeError> {
    match value.get(key) {
        Some(serde_json::Value::String(text)) => Ok(text),
        Some(other) => Err(EnvelopeError::NotString {
            key,
            value: other.clone(),
        }),
        None => Err(EnvelopeError::Missing { key }),
    }
}

/// Every failure is the envelope; a success never is.
fn error_envelope_breaks(result: &ToolResult) -> Vec<String> {
    let shown = || crate::visible::excerpt(&result.text, 300);
    match (result.is_error(), as_error_envelope(&result.text)) {
        (true, Err(why)) => vec![format!(
            "an error result must be the JSON envelope {{\"error\": <code>, \"message\": <text>}}, but {why}; text: {}",
            shown()
        )],
        (false, Ok(())) => vec![format!(
            "a success must never use the error envelope, but this one does (isError {}); text: {}",
            match result.is_error {
                Some(b) => b.to_string(),
                None => "absent".to_string(),
            },
            shown()
        )],
        _ => Vec::new(),
    }
}

/// `{"success": true, "data": {...}}` or `{"success": false, "error": "..."}`, with
/// `isError` set exactly when `success` is false.
fn result_envelope_breaks(result: &ToolResult) -> Vec<String> {
    let shown = || crate::visible::excerpt(&result.text, 300);
    let value = match parse_json(&result.text) {
        Ok(v) => v,
        Err(why) => {
            return vec![format!(
                "every result must be the JSON envelope, but {why}; text: {}",
                shown()
            )]
        }
    };
    let Some(object) = value.as_object() else {
        return vec![format!(
            "the envelope must be a JSON object, got {}",
            shown()
        )];
    };
    let success = match object.get("success") {
        Some(serde_json::Value::Bool(b)) => *b,
        Some(other) => {
            return vec![format!(
                "$.success must be a boolean, got {other} ({}); text: {}",
                json_type(other),
                shown()
            )]
        }
        None => return vec![format!("the envelope has no `success`; text: {}", shown())],
    };
    let mut breaks = Vec::new();
    if result.is_error() == success {
        breaks.push(format!(
            "isError must be set exactly when success is false, but success is {success} and isError is {}",
            match result.is_error {
                Some(b) => b.to_string(),
                None => "absent".to_string(),
            }
        ));
    }
    let (key, wanted, ok) = if success {
        (
            "data",
            "an object",
            object.get("data").is_some_and(|v| v.is_object()),
        )
    } else {
        (
            "error",
            "a string",
            object.get("error").is_some_and(|v| v.is_string()),
        )
    };
    if !ok {
        breaks.push(format!(
            "with success {success}, $.{key} must be {wanted}; text: {}",
            shown()
        ));
    }
    breaks
}

fn json_type(value: &serde_json::Value) -> &'static str {
    match value {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "boolean",
        serde_json::Value::Number(_) => "number",
        serde_json::Value::String(_) => "string",
        serde_json::Value::Array(_) => "array",
        serde_json::Value::Object(_) => "object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(text: &str) -> ToolResult {
        flagged(Some(true), text)
    }

    fn flagged(is_error: Option<bool>, text: &str) -> ToolResult {
        ToolResult {
            is_error,
            text: text.to_string(),
            raw: serde_json::Value::Null,
        }
    }

    #[test]
    fn error_envelope_convention() {
        let d = Convention::JsonErrorEnvelope;
        let envelope = r#"{"error":"not_found","message":"m","path":"a"}"#;
        assert!(d.breaks(&flagged(Some(true), envelope)).is_empty());
        assert!(d.breaks(&flagged(None, "plain output")).is_empty());
        let breaks = d.breaks(&flagged(None, envelope));
        assert!(
            breaks[0].contains("never use the error envelope"),
            "{breaks:?}"
        );
        let breaks = d.breaks(&flagged(Some(true), r#"{"code":"x","message":"m"}"#));
        assert!(breaks[0].contains("has no `error`"), "{breaks:?}");
        let breaks = d.breaks(&flagged(Some(true), "No such file"));
        assert!(breaks[0].contains("not JSON"), "{breaks:?}");
    }

    #[test]
    fn result_envelope_convention() {
        let d = Convention::JsonResultEnvelope;
        assert!(d
            .breaks(&flagged(None, r#"{"success":true,"data":{}}"#))
            .is_empty());
        assert!(d
            .breaks(&flagged(Some(true), r#"{"success":false,"error":"e"}"#))
            .is_empty());
        let breaks = d.breaks(&flagged(None, r#"{"success":"true","data":{}}"#));
        assert!(
            breaks[0].contains("$.success must be a boolean"),
            "{breaks:?}"
        );
        let breaks = d.breaks(&flagged(None, r#"{"success":false,"error":"e"}"#));
        assert!(
            breaks[0].contains("isError must be set exactly"),
            "{breaks:?}"
        );
        let breaks = d.breaks(&flagged(None, r#"{"success":true,"output":"x"}"#));
        assert!(breaks[0].contains("$.data must be an object"), "{breaks:?}");
    }

    #[test]
    fn bracket_codes() {
        let d = Convention::BracketCode;
        assert_eq!(
            d.read_code(&result("[PATH_NOT_FOUND] x")),
            Ok("PATH_NOT_FOUND".into())
        );
        assert!(d.read_code(&result("[PATH_NOT_FOUND]x")).is_err());
        assert!(d.read_code(&result("PATH_NOT_FOUND x")).is_err());
    }

    #[test]
    fn envelope_codes() {
        let d = Convention::JsonErrorEnvelope;
        assert_eq!(
            d.read_code(&result(r#"{"error":"not_found","message":"m"}"#)),
            Ok("not_found".into())
        );
        assert!(d.read_code(&result("not json")).is_err());
        assert!(d.read_code(&result(r#"{"error":3}"#)).is_err());
    }
}
