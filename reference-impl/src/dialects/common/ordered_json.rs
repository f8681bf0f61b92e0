//! JSON objects written with their keys in a chosen order. Envelopes that
//! put a key such as `error` or `success` first cannot come from a
//! `serde_json` map, which sorts its keys, and scenarios compare the text.

use serde_json::Value;

/// `{"key":value,…}`, compact, with the members in the order given.
pub(crate) fn object(members: &[(&str, Value)]) -> String {
    let members: Vec<String> = members
        .iter()
        .map(|(key, value)| format!("{}:{}", Value::from(*key), value))
        .collect();
    format!("{{{}}}", members.join(","))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_keep_their_order_and_are_escaped() {
        assert_eq!(object(&[]), "{}");
        assert_eq!(
            object(&[
                ("z", Value::from("a\"b")),
                ("a", Value::from(1)),
                ("m", serde_json::json!({"y": [true]})),
            ]),
            r#"{"z":"a\"b","a":1,"m":{"y":[true]}}"#
        );
    }
}
