//! The `then` of each scenario written for a case, from the oracle's answer to the
//! judged call. A convention difference gets a `basis: spec` scenario holding only
//! what the suite's convention reads (error or not, the code, a JSON envelope's
//! `success` and `data`, the exact text where the convention is the text), and,
//! where the two texts differ too, a `basis: upstream` one with the exact text. A
//! text difference gets the upstream one only; a files difference a `files:`
//! expectation of the files that differ. Values the server chooses become
//! placeholders: `{int}` for the digits in them, else `[..]` to the end of the line.

use regex::Regex;
use serde_json::{json, Map, Value};

use super::{Answer, Kind, Observed};
use crate::judge::json_text::canonical;
use crate::scenario::{Basis, Convention};
use crate::server::outcome::ToolResult;

/// One scenario to write for a case: its basis, a name and its `then`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Expected {
    pub basis: Basis,
    /// What it checks, in a few words (`error PATH_NOT_FOUND`).
    pub what: String,
    /// The error code the oracle gave, when it gave one.
    pub code: Option<String>,
    /// `then`'s keys in order.
    pub then: Map<String, Value>,
}

/// The scenarios to write for `observed`, read by `convention`.
pub(crate) fn expected(
    observed: &Observed,
    convention: Convention,
) -> Result<Vec<Expected>, String> {
    let judged = observed.judged().ok_or("the case has no call")?;
    let masks = &observed.server_chosen;
    if let Answer::Broken(why) = &judged.oracle {
        return Err(format!("the oracle gave no answer ({})", first_line(why)));
    }
    match observed.kind {
        Kind::Escape | Kind::Convention => {
            let spec = spec_expected(&judged.oracle, convention, masks)?;
            let mut written = vec![spec];
            let texts_differ = match (&judged.oracle, &judged.subject) {
                (Answer::Result { text: o, .. }, Some(Answer::Result { text: s, .. })) => o != s,
                (Answer::Result { .. }, Some(_)) => true,
                _ => false,
            };
            if texts_differ && convention != Convention::Plain {
                written.extend(exact_expected(&judged.oracle, convention, masks));
            }
            Ok(written)
        }
        Kind::Text => exact_expected(&judged.oracle, convention, masks)
            .map(|e| vec![e])
            .ok_or_else(|| "the oracle's answer has no text".to_string()),
        Kind::Files => files_expected(observed).map(|e| vec![e]),
    }
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or_default()
}

/// What the convention reads in the oracle's answer.
fn spec_expected(
    answer: &Answer,
    convention: Convention,
    masks: &[Regex],
) -> Result<Expected, String> {
    let mut then = Map::new();
    let (is_error, text) = match answer {
        Answer::Result { is_error, text } => (*is_error, text),
        Answer::Protocol { code, .. } => {
            then.insert("protocol_error".into(), json!({ "code": code }));
            return Ok(Expected {
                basis: Basis::Spec,
                what: format!("JSON-RPC error {code}"),
                code: None,
                then,
            });
        }
        Answer::Broken(_) => return Err("the oracle gave no answer".into()),
    };
    let error = is_error == Some(true);
    then.insert("is_error".into(), Value::Bool(error));
    let mut what = if error { "error" } else { "success" }.to_string();
    let mut code = None;
    match convention {
        Convention::BracketCode | Convention::JsonErrorEnvelope if error => {
            let result = ToolResult {
                is_error,
                text: text.clone(),
                raw: Value::Null,
            };
            if let Ok(read) = convention.read_code(&result) {
                then.insert("code".into(), Value::String(read.clone()));
                what = format!("error {read}");
                code = Some(read);
            }
        }
        Convention::BracketCode | Convention::JsonErrorEnvelope => {}
        Convention::JsonResultEnvelope => {
            let value: Value = serde_json::from_str(text)
                .map_err(|_| "the oracle's text is not a JSON envelope".to_string())?;
            let mut envelope = Map::new();
            for key in ["success", "data"] {
                if let Some(field) = value.get(key) {
                    envelope.insert(key.into(), with_placeholders_in(field, masks));
                }
            }
            then.insert("json".into(), Value::Object(envelope));
        }
        Convention::Plain => {
            then.insert("text".into(), Value::String(with_placeholders(text, masks)));
            what = format!("{what}, its exact text");
        }
    }
    Ok(Expected {
        basis: Basis::Spec,
        what,
        code,
        then,
    })
}

/// The oracle's exact text (JSON in its canonical spelling) and flag.
fn exact_expected(answer: &Answer, convention: Convention, masks: &[Regex]) -> Option<Expected> {
    let Answer::Result { is_error, text } = answer else {
        return None;
    };
    let spelled = if convention.speaks_json() {
        canonical(text).unwrap_or_else(|| text.clone())
    } else {
        text.clone()
    };
    let mut then = Map::new();
    then.insert("is_error".into(), Value::Bool(*is_error == Some(true)));
    then.insert(
        "text".into(),
        Value::String(with_placeholders(&spelled, masks)),
    );
    Some(Expected {
        basis: Basis::Upstream,
        what: "the oracle's exact text".into(),
        code: None,
        then,
    })
}

/// The files under the root that the two sides left differently, as the oracle
/// left them (a file the oracle has not: `absent`).
fn files_expected(observed: &Observed) -> Result<Expected, String> {
    let (oracle, subject) = observed
        .files_after
        .as_ref()
        .ok_or("no files were recorded after the call")?;
    let mut files = Map::new();
    for (path, text) in oracle {
        if subject.get(path) != Some(text) {
            files.insert(
                path.clone(),
                Value::String(with_placeholders(text, &observed.server_chosen)),
            );
        }
    }
    for path in subject.keys().filter(|p| !oracle.contains_key(*p)) {
        files.insert(path.clone(), json!({ "absent": true }));
    }
    if files.is_empty() {
        return Err("the files differ only outside the root".into());
    }
    let mut then = Map::new();
    then.insert("files".into(), Value::Object(files));
    Ok(Expected {
        basis: Basis::Upstream,
        what: "the files left behind".into(),
        code: None,
        then,
    })
}

/// Every string in `value` with the server-chosen parts made placeholders.
fn with_placeholders_in(value: &Value, masks: &[Regex]) -> Value {
    match value {
        Value::String(s) => Value::String(with_placeholders(s, masks)),
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|v| with_placeholders_in(v, masks))
                .collect(),
        ),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), with_placeholders_in(v, masks)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// `text` with each part a mask matches made a placeholder: its digits `{int}`,
/// or, when it has none, `[..]` for the rest of the line.
pub(crate) fn with_placeholders(text: &str, masks: &[Regex]) -> String {
    if masks.is_empty() {
        return text.to_string();
    }
    let digits = Regex::new(r"\d+").ok();
    text.split_inclusive('\n')
        .map(|line| {
            let (body, ending) = match line.strip_suffix('\n') {
                Some(body) => (body, "\n"),
                None => (line, ""),
            };
            let mut body = body.to_string();
            for mask in masks {
                let Some(found) = mask.find(&body) else {
                    continue;
                };
                let part = found.as_str();
                match &digits {
                    Some(d) if d.is_match(part) => {
                        let replaced = d.replace_all(part, "{int}").into_owned();
                        body = format!(
                            "{}{replaced}{}",
                            &body[..found.start()],
                            &body[found.end()..]
                        );
                    }
                    _ => {
                        body = format!("{}[..]", &body[..found.start()]);
                        break;
                    }
                }
            }
            format!("{body}{ending}")
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::author::RecordedCall;

    fn observed(kind: Kind, oracle: Answer, subject: Answer) -> Observed {
        Observed {
            key: "k".into(),
            kind,
            fixture: Default::default(),
            outside: Vec::new(),
            settings: Default::default(),
            calls: vec![RecordedCall {
                tool: "view".into(),
                args: Map::new(),
                oracle,
                subject: Some(subject),
                capture: Default::default(),
            }],
            files_after: None,
            provenance: String::new(),
            server_chosen: vec![Regex::new(r"PGID: \d+").expect("regex")],
        }
    }

    fn result(is_error: Option<bool>, text: &str) -> Answer {
        Answer::Result {
            is_error,
            text: text.into(),
        }
    }

    #[test]
    fn a_code_difference_gives_a_spec_scenario_with_the_code_and_an_upstream_one() {
        let written = expected(
            &observed(
                Kind::Convention,
                result(Some(true), "[PATH_NOT_FOUND] no {root}/a"),
                result(Some(true), "no {root}/a"),
            ),
            Convention::BracketCode,
        )
        .expect("written");
        assert_eq!(written.len(), 2);
        assert_eq!(written[0].basis, Basis::Spec);
        assert_eq!(written[0].then["code"], "PATH_NOT_FOUND");
        assert!(!written[0].then.contains_key("text"));
        assert_eq!(written[1].basis, Basis::Upstream);
        assert_eq!(written[1].then["text"], "[PATH_NOT_FOUND] no {root}/a");
    }

    #[test]
    fn an_envelope_keeps_success_and_data_and_server_values_become_placeholders() {
        let written = expected(
            &observed(
                Kind::Convention,
                result(None, r#"{"data":{"output":"PGID: 42\n"},"success":true}"#),
                result(Some(true), r#"{"success":false,"error":"x"}"#),
            ),
            Convention::JsonResultEnvelope,
        )
        .expect("written");
        assert_eq!(
            written[0].then["json"],
            json!({"success": true, "data": {"output": "PGID: {int}\n"}})
        );
        assert_eq!(
            with_placeholders("a\nid x-7 y\n", &[Regex::new("x-.").expect("re")]),
            "a\nid x-{int} y\n"
        );
        assert_eq!(
            with_placeholders("id x-a y\nz", &[Regex::new("x-.").expect("re")]),
            "id [..]\nz"
        );
        let broken = observed(Kind::Text, Answer::Broken("died".into()), result(None, "x"));
        assert!(expected(&broken, Convention::Plain).is_err());
    }
}
