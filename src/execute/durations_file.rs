//! The text of `scenario-durations.json`, read and written without building the
//! whole document as a JSON value: a run of 10,000 scenarios saves 10,000 times,
//! and a value tree of them takes several times the memory of the times
//! themselves, at the end of the run, when the run holds the most.
//!
//! The form: `{"targets": {target: {scenario id: [ms, run]}}, "version": 2}`,
//! pretty-printed. Reading is lenient, entry by entry, as a cache's must be: a
//! target that is not an object has no times, a time that is not a pair of
//! non-negative integers is left out, and the last of two equal keys wins.

use std::collections::BTreeMap;
use std::fmt;
use std::io;
use std::marker::PhantomData;
use std::path::Path;

use serde::de::{Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::ser::{SerializeStruct, Serializer};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One scenario's last time, and which save of the file measured it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Measured {
    pub(super) ms: u64,
    /// The file's run count when it was saved with this time; 0 for a time not
    /// saved yet.
    pub(super) run: u64,
}

/// Per target name, per scenario id, its time.
pub(super) type ByTarget = BTreeMap<String, BTreeMap<String, Measured>>;

/// The times in a file's `text`, when it is JSON of `version`; `None` otherwise.
pub(super) fn parse(text: &str, version: u64) -> Option<ByTarget> {
    let document: Document = serde_json::from_str(text).ok()?;
    if document.version != Some(version) {
        return None;
    }
    let targets = document.targets.map(|t| t.0).unwrap_or_default();
    Some(
        targets
            .into_iter()
            .map(|(target, times)| {
                let kept = times
                    .0
                    .into_iter()
                    .filter_map(|(id, time)| Some((id, time.0?)))
                    .collect();
                (target, kept)
            })
            .collect(),
    )
}

/// Writes `by_target` to `path` in the file's form, pretty-printed, whole or
/// not at all (`cache_folder::write_json`).
pub(super) fn write(path: &Path, by_target: &ByTarget, version: u64) -> io::Result<()> {
    super::cache_folder::write_json(path, &Written { by_target, version })
}

/// The document to write; its keys in the order a JSON object sorts them.
struct Written<'a> {
    by_target: &'a ByTarget,
    version: u64,
}

impl Serialize for Written<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut document = serializer.serialize_struct("Durations", 2)?;
        document.serialize_field("targets", self.by_target)?;
        document.serialize_field("version", &self.version)?;
        document.end()
    }
}

impl Serialize for Measured {
    /// `[ms, run]`.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        (self.ms, self.run).serialize(serializer)
    }
}

/// The top level as read: an object, whose other keys are passed over.
struct Document {
    version: Option<u64>,
    targets: Option<ObjectOrNothing<ObjectOrNothing<Time>>>,
}

impl<'de> Deserialize<'de> for Document {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(DocumentVisitor)
    }
}

struct DocumentVisitor;

impl<'de> Visitor<'de> for DocumentVisitor {
    type Value = Document;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Document, A::Error> {
        let mut document = Document {
            version: None,
            targets: None,
        };
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "version" => document.version = map.next_value::<Value>()?.as_u64(),
                "targets" => document.targets = Some(map.next_value()?),
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(document)
    }
}

/// One scenario's time, `None` when the value is not a pair of non-negative
/// integers. Each is read as a small JSON value of its own, one at a time.
struct Time(Option<Measured>);

impl<'de> Deserialize<'de> for Time {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let pair = Value::deserialize(deserializer)?;
        let ms = pair[0].as_u64();
        let run = pair[1].as_u64();
        Ok(Time(ms.zip(run).map(|(ms, run)| Measured { ms, run })))
    }
}

/// An object's entries, each read as a `T`; any other value reads as no entries.
struct ObjectOrNothing<T>(BTreeMap<String, T>);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for ObjectOrNothing<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ObjectOrNothingVisitor(PhantomData))
    }
}

struct ObjectOrNothingVisitor<T>(PhantomData<T>);

impl<T> ObjectOrNothingVisitor<T> {
    fn nothing<E>(self) -> Result<ObjectOrNothing<T>, E> {
        Ok(ObjectOrNothing(BTreeMap::new()))
    }
}

impl<'de, T: Deserialize<'de>> Visitor<'de> for ObjectOrNothingVisitor<T> {
    type Value = ObjectOrNothing<T>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut entries = BTreeMap::new();
        while let Some((key, value)) = map.next_entry::<String, T>()? {
            entries.insert(key, value);
        }
        Ok(ObjectOrNothing(entries))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        self.nothing()
    }

    fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
        self.nothing()
    }

    fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
        self.nothing()
    }

    fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
        self.nothing()
    }

    fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
        self.nothing()
    }

    fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
        self.nothing()
    }

    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        self.nothing()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// The bytes `write` puts in a file.
    fn written_text(by_target: &ByTarget, version: u64) -> Vec<u8> {
        let mut out = serde_json::to_vec_pretty(&Written { by_target, version }).expect("pretty");
        out.push(b'\n');
        out
    }

    #[test]
    fn written_as_the_whole_value_would_be() {
        let mut by_target = ByTarget::new();
        by_target.entry("reference".into()).or_default().extend([
            ("s::a::b".to_string(), Measured { ms: 15, run: 3 }),
            ("s::a::a".to_string(), Measured { ms: 0, run: 2 }),
        ]);
        by_target.insert("empty".into(), BTreeMap::new());
        let value = json!({
            "version": 2,
            "targets": {
                "reference": { "s::a::b": [15, 3], "s::a::a": [0, 2] },
                "empty": {},
            },
        });
        let mut expected = serde_json::to_vec_pretty(&value).expect("pretty");
        expected.push(b'\n');
        assert_eq!(
            String::from_utf8_lossy(&written_text(&by_target, 2)),
            String::from_utf8_lossy(&expected)
        );
        let read = parse(
            std::str::from_utf8(&written_text(&by_target, 2)).expect("utf-8"),
            2,
        );
        assert_eq!(read, Some(by_target));
    }

    #[test]
    fn odd_values_are_passed_over_entry_by_entry() {
        let read = parse(
            r#"{"other": [1, {"x": 2}], "version": 2, "targets": {"r": {"a": [5, 4], "b": "x", "c": [-1, 4], "d": [7], "e": {"0": 1}, "a2": [1.5, 2], "f": [1, 2], "f": null}, "s": 3, "t": [1, [2]], "u": null}}"#,
            2,
        )
        .expect("read");
        let r = &read["r"];
        assert_eq!(r.len(), 1, "{r:?}");
        assert_eq!(r["a"], Measured { ms: 5, run: 4 });
        for empty in ["s", "t", "u"] {
            assert!(read[empty].is_empty(), "{empty}");
        }
        assert_eq!(parse(r#"{"version": 2}"#, 2), Some(ByTarget::new()));
        assert_eq!(parse(r#"{"targets": {}, "version": 1}"#, 2), None);
        assert_eq!(parse("[2, {}]", 2), None);
    }
}
