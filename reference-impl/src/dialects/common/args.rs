//! Typed access to a tool call's JSON arguments.
//!
//! Arguments are parsed here, by hand, rather than by a schema validator in
//! the MCP layer, so that a missing, mistyped or unknown parameter reaches
//! the dialect and is answered in the dialect's own error convention instead
//! of as a protocol error. JSON `null` counts as absent.

use serde_json::{Map, Value};

/// What is wrong with the arguments of a call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ArgError {
    Missing(&'static str),
    WrongType {
        name: &'static str,
        expected: &'static str,
        got: &'static str,
    },
    Unknown {
        name: String,
        known: Vec<&'static str>,
    },
}

impl ArgError {
    /// A message fit for an INVALID_INPUT-style error.
    pub(crate) fn message(&self) -> String {
        match self {
            ArgError::Missing(name) => format!("missing required parameter \"{name}\""),
            ArgError::WrongType {
                name,
                expected,
                got,
            } => {
                format!("parameter \"{name}\" must be {expected}, got {got}")
            }
            ArgError::Unknown { name, known } => {
                format!(
                    "unknown parameter \"{name}\"; valid parameters: {}",
                    known.join(", ")
                )
            }
        }
    }
}

fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A call's arguments, checked against the tool's parameter names.
pub(crate) struct Args<'a> {
    map: &'a Map<String, Value>,
}

impl<'a> Args<'a> {
    /// Rejects the first (in name order) parameter not in `known`.
    pub(crate) fn new(
        map: &'a Map<String, Value>,
        known: &[&'static str],
    ) -> Result<Args<'a>, ArgError> {
        let mut unknown: Vec<&String> = map
            .keys()
            .filter(|k| !known.contains(&k.as_str()))
            .collect();
        unknown.sort();
        if let Some(name) = unknown.first() {
            return Err(ArgError::Unknown {
                name: name.to_string(),
                known: known.to_vec(),
            });
        }
        Ok(Args { map })
    }

    fn get(&self, name: &str) -> Option<&'a Value> {
        self.map.get(name).filter(|v| !v.is_null())
    }

    /// A required string (which may be empty: emptiness is the tool's call).
    pub(crate) fn string(&self, name: &'static str) -> Result<String, ArgError> {
        self.opt_string(name)?.ok_or(ArgError::Missing(name))
    }

    pub(crate) fn opt_string(&self, name: &'static str) -> Result<Option<String>, ArgError> {
        match self.get(name) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(other) => Err(ArgError::WrongType {
                name,
                expected: "a string",
                got: json_kind(other),
            }),
        }
    }

    pub(crate) fn opt_bool(&self, name: &'static str) -> Result<Option<bool>, ArgError> {
        match self.get(name) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(other) => Err(ArgError::WrongType {
                name,
                expected: "a boolean",
                got: json_kind(other),
            }),
        }
    }

    /// An optional integer; `3.0` is accepted, `3.5` is not.
    pub(crate) fn opt_int(&self, name: &'static str) -> Result<Option<i64>, ArgError> {
        match self.get(name) {
            None => Ok(None),
            Some(value) => as_int(value).map(Some).ok_or(ArgError::WrongType {
                name,
                expected: "an integer",
                got: describe_non_int(value),
            }),
        }
    }

    /// An optional array of integers.
    pub(crate) fn opt_int_array(&self, name: &'static str) -> Result<Option<Vec<i64>>, ArgError> {
        let wrong = |got| ArgError::WrongType {
            name,
            expected: "an array of integers",
            got,
        };
        match self.get(name) {
            None => Ok(None),
            Some(Value::Array(items)) => items
                .iter()
                .map(|item| as_int(item).ok_or_else(|| wrong(describe_non_int(item))))
                .collect::<Result<Vec<_>, _>>()
                .map(Some),
            Some(other) => Err(wrong(json_kind(other))),
        }
    }
}

fn as_int(value: &Value) -> Option<i64> {
    let number = value.as_number()?;
    number.as_i64().or_else(|| {
        number
            .as_f64()
            .filter(|f| f.fract() == 0.0 && f.abs() < 9.0e15)
            .map(|f| f as i64)
    })
}

fn describe_non_int(value: &Value) -> &'static str {
    if value.is_number() {
        "a fractional or out-of-range number"
    } else {
        json_kind(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn map(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            _ => Map::new(),
        }
    }

    #[test]
    fn reports_missing_wrong_and_unknown() {
        let m = map(json!({"path": 3, "extra": true, "n": 2.0, "nothing": null}));
        assert_eq!(
            Args::new(&m, &["path", "n"]).err().map(|e| e.message()),
            Some("unknown parameter \"extra\"; valid parameters: path, n".to_string())
        );
        let args = Args::new(&m, &["path", "n", "extra", "nothing", "gone"]).expect("known");
        assert_eq!(args.string("gone"), Err(ArgError::Missing("gone")));
        assert_eq!(args.string("nothing"), Err(ArgError::Missing("nothing")));
        assert_eq!(
            args.string("path").map_err(|e| e.message()),
            Err("parameter \"path\" must be a string, got a number".to_string())
        );
        assert_eq!(args.opt_int("n"), Ok(Some(2)));
        assert!(args.opt_int("extra").is_err());
    }
}
