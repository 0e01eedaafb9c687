//! Plain JSON whose numbers stay exact (`docs/replanning.md`, "The progress
//! record"): the values of the progress record's arguments, artifacts and
//! observations, and of the IR's recorded artifacts (`artifacts_in`).
//!
//! **Numbers stay exact.** A [`JsonValue`]'s numbers keep the text they were
//! written with ([`JsonNumber`]): `500.00` stays `500.00`, a 30-digit
//! identifier stays whole, nothing passes through binary floating point. We
//! keep the raw text rather than turn on serde_json's `arbitrary_precision`,
//! because that feature is global to every crate in the build and changes
//! how every `serde_json::Value` compares and converts. Writing uses
//! serde_json's `RawValue`, so a value serialised with serde_json carries
//! each number exactly as read; reading with serde ([`serde::Deserialize`])
//! works with serde_json's deserializer (the value is taken as raw text and
//! parsed by planc's own JSON parser).
//!
//! Both the IR (`ir`) and the progress record (`progress`) hold these
//! values, so they live below both.

use std::collections::BTreeMap;
use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A plain JSON value whose numbers keep their exact text.
///
/// Objects are ordered by key (a `BTreeMap`), so a record is written the same
/// way every time. Read one from text with [`JsonValue::parse`] or serde_json.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum JsonValue {
    Null,
    Bool(bool),
    Number(JsonNumber),
    String(String),
    Array(Vec<JsonValue>),
    Object(BTreeMap<String, JsonValue>),
}

/// A JSON number as written: `-0.50`, `1e3`, a 30-digit integer. Always valid
/// JSON number syntax (RFC 8259); construct one with [`JsonNumber::new`].
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct JsonNumber(String);

impl JsonNumber {
    /// `text` as a number, when it is JSON number syntax.
    pub fn new(text: &str) -> Option<JsonNumber> {
        is_json_number(text).then(|| JsonNumber(text.to_owned()))
    }

    /// The number's text, exactly as written.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl From<u64> for JsonNumber {
    fn from(n: u64) -> JsonNumber {
        JsonNumber(n.to_string())
    }
}

impl From<i64> for JsonNumber {
    fn from(n: i64) -> JsonNumber {
        JsonNumber(n.to_string())
    }
}

impl fmt::Display for JsonNumber {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// RFC 8259 `number`: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
pub(crate) fn is_json_number(text: &str) -> bool {
    let b = text.as_bytes();
    let mut i = 0;
    let digits = |i: &mut usize| {
        let start = *i;
        while b.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        *i > start
    };
    if b.get(i) == Some(&b'-') {
        i += 1;
    }
    match b.get(i) {
        Some(b'0') => i += 1,
        Some(c) if c.is_ascii_digit() => {
            digits(&mut i);
        }
        _ => return false,
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        if !digits(&mut i) {
            return false;
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if !digits(&mut i) {
            return false;
        }
    }
    i == b.len()
}

impl JsonValue {
    /// Parses one JSON document into a plain value (numbers exact). `None`
    /// when the text is not JSON or nests deeper than planc's limit; use the
    /// progress module's record reader for diagnostics.
    pub fn parse(text: &str) -> Option<JsonValue> {
        let root = crate::syntax::json::parse(crate::FileId(0), text).ok()?;
        Some(JsonValue::from_json(&root))
    }

    /// The plain value of a span-preserving JSON tree. Recursion is bounded
    /// by the parser's nesting cap. Of duplicate keys the last is kept (the
    /// record reader reports them before this runs).
    pub fn from_json(v: &crate::syntax::json::Json<'_>) -> JsonValue {
        use crate::syntax::json::Value as J;
        match &v.value {
            J::Null => JsonValue::Null,
            J::Bool(b) => JsonValue::Bool(*b),
            J::Number(n) => JsonValue::Number(JsonNumber((*n).to_owned())),
            J::String(s) => JsonValue::String(s.to_string()),
            J::Array(items) => JsonValue::Array(items.iter().map(JsonValue::from_json).collect()),
            J::Object(members) => JsonValue::Object(
                members
                    .iter()
                    .map(|m| (m.key.to_string(), JsonValue::from_json(&m.value)))
                    .collect(),
            ),
        }
    }

    /// The value as compact JSON text, numbers as written.
    pub fn to_json_string(&self) -> String {
        let mut out = String::new();
        self.write_json(&mut out);
        out
    }

    fn write_json(&self, out: &mut String) {
        match self {
            JsonValue::Null => out.push_str("null"),
            JsonValue::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            JsonValue::Number(n) => out.push_str(n.as_str()),
            JsonValue::String(s) => write_json_string(s, out),
            JsonValue::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    item.write_json(out);
                }
                out.push(']');
            }
            JsonValue::Object(members) => {
                out.push('{');
                for (i, (k, v)) in members.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write_json_string(k, out);
                    out.push(':');
                    v.write_json(out);
                }
                out.push('}');
            }
        }
    }

    /// The string, for a string value.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            JsonValue::String(s) => Some(s),
            _ => None,
        }
    }

    /// The member `key`, for an object.
    pub fn get(&self, key: &str) -> Option<&JsonValue> {
        match self {
            JsonValue::Object(m) => m.get(key),
            _ => None,
        }
    }
}

/// A JSON string literal of `s` (serde_json's escaping).
fn write_json_string(s: &str, out: &mut String) {
    match serde_json::to_string(s) {
        Ok(t) => out.push_str(&t),
        Err(_) => out.push_str("\"\""),
    }
}

impl fmt::Display for JsonValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_json_string())
    }
}

impl Serialize for JsonValue {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{SerializeMap, SerializeSeq};
        match self {
            JsonValue::Null => s.serialize_unit(),
            JsonValue::Bool(b) => s.serialize_bool(*b),
            JsonValue::Number(n) => n.serialize(s),
            JsonValue::String(t) => s.serialize_str(t),
            JsonValue::Array(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            JsonValue::Object(members) => {
                let mut map = s.serialize_map(Some(members.len()))?;
                for (k, v) in members {
                    map.serialize_entry(k, v)?;
                }
                map.end()
            }
        }
    }
}

impl Serialize for JsonNumber {
    /// With serde_json, the number's exact text; with other serializers, a
    /// 64-bit integer when it is one, else the text as a string.
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if let Ok(n) = self.0.parse::<i64>() {
            return s.serialize_i64(n);
        }
        if let Ok(n) = self.0.parse::<u64>() {
            return s.serialize_u64(n);
        }
        match serde_json::value::RawValue::from_string(self.0.clone()) {
            Ok(raw) => raw.serialize(s),
            Err(e) => Err(serde::ser::Error::custom(e)),
        }
    }
}

impl<'de> Deserialize<'de> for JsonValue {
    /// Reads the value's raw text (serde_json's `RawValue`) and parses it with
    /// planc's JSON parser, so numbers keep their text.
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<JsonValue, D::Error> {
        let raw = Box::<serde_json::value::RawValue>::deserialize(d)?;
        JsonValue::parse(raw.get()).ok_or_else(|| {
            serde::de::Error::custom("a JSON value nested deeper than planc's limit")
        })
    }
}

impl JsonSchema for JsonValue {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "JsonValue".into()
    }

    /// Any JSON value.
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "Any JSON value; numbers are kept exactly as written."
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn number_syntax() {
        for ok in [
            "0",
            "-0",
            "500.00",
            "1e400",
            "-1.5E+3",
            "123456789012345678901234567890",
        ] {
            assert!(JsonNumber::new(ok).is_some(), "{ok}");
        }
        for bad in ["", "-", "01", "1.", ".5", "1e", "+1", "1 ", "NaN", "0x10"] {
            assert!(JsonNumber::new(bad).is_none(), "{bad}");
        }
    }
}
