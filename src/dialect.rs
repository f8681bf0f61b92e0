//! How a suite's results are read: which results are errors, and where the error
//! code is. The suite names its dialect in `suite.yaml`; the logic lives here.

use std::sync::OnceLock;

use regex::Regex;

use crate::outcome::ToolResult;
use crate::scenario::DialectName;

#[derive(Debug, Clone, Copy)]
pub struct Dialect(DialectName);

/// A code could not be read, and why, in words for the report.
#[derive(Debug, Clone, PartialEq)]
pub struct CodeUnreadable(pub String);

impl Dialect {
    pub fn new(name: DialectName) -> Self {
        Dialect(name)
    }

    /// Whether results of this dialect carry machine-readable error codes.
    pub fn has_codes(self) -> bool {
        matches!(
            self.0,
            DialectName::BracketCode | DialectName::JsonErrorEnvelope
        )
    }

    /// Reads the error code from a result's text.
    pub fn read_code(self, result: &ToolResult) -> Result<String, CodeUnreadable> {
        match self.0 {
            DialectName::BracketCode => read_bracket_code(&result.text),
            DialectName::JsonErrorEnvelope => read_envelope_code(&result.text),
            DialectName::Plain | DialectName::JsonResultEnvelope => Err(CodeUnreadable(
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
    let value: serde_json::Value = serde_json::from_str(text)
        .map_err(|e| CodeUnreadable(format!("the text is not JSON ({e})")))?;
    match value.get("error") {
        Some(serde_json::Value::String(code)) => Ok(code.clone()),
        Some(other) => Err(CodeUnreadable(format!(
            "the envelope's `error` is not a string but {other}"
        ))),
        None => Err(CodeUnreadable("the JSON has no `error` field".to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(text: &str) -> ToolResult {
        ToolResult {
            is_error: Some(true),
            text: text.to_string(),
            raw: serde_json::Value::Null,
        }
    }

    #[test]
    fn bracket_codes() {
        let d = Dialect::new(DialectName::BracketCode);
        assert_eq!(
            d.read_code(&result("[PATH_NOT_FOUND] x")),
            Ok("PATH_NOT_FOUND".into())
        );
        assert!(d.read_code(&result("[PATH_NOT_FOUND]x")).is_err());
        assert!(d.read_code(&result("PATH_NOT_FOUND x")).is_err());
    }

    #[test]
    fn envelope_codes() {
        let d = Dialect::new(DialectName::JsonErrorEnvelope);
        assert_eq!(
            d.read_code(&result(r#"{"error":"not_found","message":"m"}"#)),
            Ok("not_found".into())
        );
        assert!(d.read_code(&result("not json")).is_err());
        assert!(d.read_code(&result(r#"{"error":3}"#)).is_err());
    }
}
