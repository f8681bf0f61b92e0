//! Reading a call's arguments the way gemini-cli's schema validator reports
//! problems: `params must have required property 'x'` and `params/x must be
//! string`. gemini-cli 0.1.13 only said `Parameters failed schema
//! validation.`; later releases switched to these Ajv messages, which name
//! the parameter and so help a model correct its call. Unknown parameters are
//! ignored, as gemini's schemas do not forbid extra properties.

use rmcp::model::JsonObject;
use serde_json::Value;

/// A call's arguments whose required names are known to be present.
pub(crate) struct Params<'a> {
    map: &'a JsonObject,
}

/// Why the arguments were refused, as the text after `Reason: `.
pub(crate) type Reason = String;

impl<'a> Params<'a> {
    /// Checks that every `required` name is present (in the order given);
    /// types are checked when each value is read.
    pub(crate) fn new(map: &'a JsonObject, required: &[&str]) -> Result<Params<'a>, Reason> {
        match required.iter().find(|name| !map.contains_key(**name)) {
            Some(name) => Err(format!("params must have required property '{name}'")),
            None => Ok(Params { map }),
        }
    }

    /// A string the caller must give (checked by [`Params::new`]).
    pub(crate) fn string(&self, name: &str) -> Result<String, Reason> {
        self.opt_string(name)?
            .ok_or_else(|| format!("params must have required property '{name}'"))
    }

    pub(crate) fn opt_string(&self, name: &str) -> Result<Option<String>, Reason> {
        match self.map.get(name) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(must_be(name, "string")),
        }
    }

    pub(crate) fn opt_bool(&self, name: &str) -> Result<Option<bool>, Reason> {
        match self.map.get(name) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(_) => Err(must_be(name, "boolean")),
        }
    }

    /// A whole number (`3.0` counts; `3.5` is refused as not an integer).
    pub(crate) fn opt_integer(&self, name: &str) -> Result<Option<i64>, Reason> {
        match self.map.get(name) {
            None => Ok(None),
            Some(Value::Number(n)) => n
                .as_i64()
                .or_else(|| {
                    n.as_f64()
                        .filter(|f| f.fract() == 0.0 && f.abs() < 9.0e15)
                        .map(|f| f as i64)
                })
                .map(Some)
                .ok_or_else(|| must_be(name, "integer")),
            Some(_) => Err(must_be(name, "number")),
        }
    }

    pub(crate) fn opt_string_array(&self, name: &str) -> Result<Option<Vec<String>>, Reason> {
        match self.map.get(name) {
            None => Ok(None),
            Some(Value::Array(items)) => items
                .iter()
                .enumerate()
                .map(|(i, item)| match item {
                    Value::String(s) => Ok(s.clone()),
                    _ => Err(must_be(&format!("{name}/{i}"), "string")),
                })
                .collect::<Result<Vec<_>, _>>()
                .map(Some),
            Some(_) => Err(must_be(name, "array")),
        }
    }
}

fn must_be(path: &str, kind: &str) -> Reason {
    format!("params/{path} must be {kind}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn object(value: Value) -> JsonObject {
        match value {
            Value::Object(map) => map,
            _ => JsonObject::new(),
        }
    }

    #[test]
    fn messages_name_the_parameter_as_ajv_does() {
        let map = object(json!({"a": 1, "b": ["x", 2], "c": null, "n": 2.0, "f": 2.5}));
        assert_eq!(
            Params::new(&map, &["a", "z"]).err(),
            Some("params must have required property 'z'".to_string())
        );
        let params = Params::new(&map, &["a", "c"]).expect("present");
        assert_eq!(params.string("a"), Err("params/a must be string".into()));
        assert_eq!(params.string("c"), Err("params/c must be string".into()));
        assert_eq!(
            params.opt_string_array("b"),
            Err("params/b/1 must be string".into())
        );
        assert_eq!(params.opt_integer("n"), Ok(Some(2)));
        assert_eq!(
            params.opt_integer("f"),
            Err("params/f must be integer".into())
        );
        assert_eq!(params.opt_bool("missing"), Ok(None));
    }
}
