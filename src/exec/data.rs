//! Run-time values: what tools return and arguments carry. JSON, with
//! numbers kept as the exact text they were written with (`4180.00` stays
//! `4180.00`), so guards and probes compare exact decimals and a recorded
//! artifact is the value the tool returned, digit for digit.
//!
//! Read with the crate's own JSON parser (`syntax::json`), which keeps
//! number text; written by [`Data::to_json`].

use std::cmp::Ordering;
use std::collections::BTreeMap;

use crate::catalog::value::{Date, Datetime, Value, parse_decimal};
use crate::ir;
use crate::syntax::json::{self, Json};
use crate::{Diagnostic, FileId};

/// One JSON value with exact numbers. Objects are sorted by key, so a value
/// is written the same way every time.
#[derive(Clone, Debug)]
pub enum Data {
    Null,
    Bool(bool),
    /// The number's text, valid JSON number syntax.
    Number(String),
    String(String),
    Array(Vec<Data>),
    Object(BTreeMap<String, Data>),
}

impl PartialEq for Data {
    /// Numbers are equal when their values are (`1.50 == 1.5`); everything
    /// else structurally.
    fn eq(&self, other: &Data) -> bool {
        match (self, other) {
            (Data::Number(a), Data::Number(b)) => {
                a == b || matches!((parse_decimal(a), parse_decimal(b)), (Ok(x), Ok(y)) if x == y)
            }
            (Data::Null, Data::Null) => true,
            (Data::Bool(a), Data::Bool(b)) => a == b,
            (Data::String(a), Data::String(b)) => a == b,
            (Data::Array(a), Data::Array(b)) => a == b,
            (Data::Object(a), Data::Object(b)) => a == b,
            _ => false,
        }
    }
}

impl Data {
    /// Parses JSON text. The error is a message with the line and column.
    pub fn parse(text: &str) -> Result<Data, String> {
        match json::parse(FileId::default(), text) {
            Ok(root) => Ok(Data::from_json(&root)),
            Err(d) => Err(describe(text, &d)),
        }
    }

    /// Converts a parsed document (duplicate keys: the last one wins, as
    /// most JSON readers do).
    pub fn from_json(j: &Json<'_>) -> Data {
        match &j.value {
            json::Value::Null => Data::Null,
            json::Value::Bool(b) => Data::Bool(*b),
            json::Value::Number(n) => Data::Number((*n).to_string()),
            json::Value::String(s) => Data::String(s.to_string()),
            json::Value::Array(items) => Data::Array(items.iter().map(Data::from_json).collect()),
            json::Value::Object(members) => Data::Object(
                members
                    .iter()
                    .map(|m| (m.key.to_string(), Data::from_json(&m.value)))
                    .collect(),
            ),
        }
    }

    /// Compact JSON text, numbers as they were written.
    pub fn to_json(&self) -> String {
        let mut out = String::new();
        self.write(&mut out);
        out
    }

    fn write(&self, out: &mut String) {
        match self {
            Data::Null => out.push_str("null"),
            Data::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Data::Number(n) => out.push_str(n),
            Data::String(s) => write_string(s, out),
            Data::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    item.write(out);
                }
                out.push(']');
            }
            Data::Object(fields) => {
                out.push('{');
                for (i, (k, v)) in fields.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write_string(k, out);
                    out.push(':');
                    v.write(out);
                }
                out.push('}');
            }
        }
    }

    /// Pretty JSON text (two-space indent, one member per line), numbers as
    /// they were written, ending in a newline.
    pub fn to_json_pretty(&self) -> String {
        let mut out = String::new();
        self.write_pretty(&mut out, 0);
        out.push('\n');
        out
    }

    fn write_pretty(&self, out: &mut String, depth: usize) {
        let pad = |out: &mut String, d: usize| {
            out.push('\n');
            out.push_str(&"  ".repeat(d));
        };
        match self {
            Data::Array(items) if !items.is_empty() => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    pad(out, depth + 1);
                    item.write_pretty(out, depth + 1);
                }
                pad(out, depth);
                out.push(']');
            }
            Data::Object(fields) if !fields.is_empty() => {
                out.push('{');
                for (i, (k, v)) in fields.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    pad(out, depth + 1);
                    write_string(k, out);
                    out.push_str(": ");
                    v.write_pretty(out, depth + 1);
                }
                pad(out, depth);
                out.push('}');
            }
            other => other.write(out),
        }
    }

    /// An object built from pairs.
    pub fn object<const N: usize>(pairs: [(&str, Data); N]) -> Data {
        Data::Object(pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
    }

    /// Adds or replaces a member of an object (nothing for other values).
    pub fn set(&mut self, key: &str, value: Data) {
        if let Data::Object(fields) = self {
            fields.insert(key.to_string(), value);
        }
    }

    /// The string, for a string.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Data::String(s) => Some(s),
            _ => None,
        }
    }

    /// The elements, for a list.
    pub fn as_array(&self) -> Option<&[Data]> {
        match self {
            Data::Array(items) => Some(items),
            _ => None,
        }
    }

    /// A whole number that fits `u64`.
    pub fn as_u64(&self) -> Option<u64> {
        match self {
            Data::Number(n) => n.parse().ok(),
            _ => None,
        }
    }

    /// Any serialisable value (an IR probe, a guard), through `serde_json`.
    pub fn of(value: &impl serde::Serialize) -> Data {
        serde_json::to_value(value)
            .map(|v| Data::from_serde(&v))
            .unwrap_or(Data::Null)
    }

    /// The value as a `serde_json` value. Numbers go through their text, so
    /// a decimal that `f64` cannot hold exactly is kept as a string rather
    /// than rounded.
    pub fn to_serde(&self) -> serde_json::Value {
        match self {
            Data::Null => serde_json::Value::Null,
            Data::Bool(b) => serde_json::Value::Bool(*b),
            Data::Number(n) => exact_number(n),
            Data::String(s) => serde_json::Value::String(s.clone()),
            Data::Array(items) => {
                serde_json::Value::Array(items.iter().map(Data::to_serde).collect())
            }
            Data::Object(fields) => serde_json::Value::Object(
                fields
                    .iter()
                    .map(|(k, v)| (k.clone(), v.to_serde()))
                    .collect(),
            ),
        }
    }

    /// From a `serde_json` value (numbers as `serde_json` prints them).
    pub fn from_serde(v: &serde_json::Value) -> Data {
        match v {
            serde_json::Value::Null => Data::Null,
            serde_json::Value::Bool(b) => Data::Bool(*b),
            serde_json::Value::Number(n) => Data::Number(n.to_string()),
            serde_json::Value::String(s) => Data::String(s.clone()),
            serde_json::Value::Array(items) => {
                Data::Array(items.iter().map(Data::from_serde).collect())
            }
            serde_json::Value::Object(fields) => Data::Object(
                fields
                    .iter()
                    .map(|(k, v)| (k.clone(), Data::from_serde(v)))
                    .collect(),
            ),
        }
    }

    /// The value of a literal written in the plan: decimals keep their text.
    pub fn from_literal(lit: &ir::Literal) -> Data {
        match lit {
            ir::Literal::String(s) | ir::Literal::Date(s) | ir::Literal::Datetime(s) => {
                Data::String(s.clone())
            }
            ir::Literal::Int(i) => Data::Number(i.to_string()),
            ir::Literal::Decimal(d) => Data::Number(d.clone()),
            ir::Literal::Bool(b) => Data::Bool(*b),
            ir::Literal::Null => Data::Null,
        }
    }

    /// The member at `key` of an object.
    pub fn field(&self, key: &str) -> Option<&Data> {
        match self {
            Data::Object(fields) => fields.get(key),
            _ => None,
        }
    }

    /// What kind of value this is, for messages.
    pub fn kind_name(&self) -> &'static str {
        match self {
            Data::Null => "null",
            Data::Bool(_) => "a boolean",
            Data::Number(_) => "a number",
            Data::String(_) => "a string",
            Data::Array(_) => "a list",
            Data::Object(_) => "an object",
        }
    }

    /// The value read as the kind of `limit`, for an exact comparison with
    /// it: a number as an exact decimal (an `int` limit included), a string
    /// as a date or datetime where the limit is one. `None` when it cannot
    /// be read so: the comparison is then refused, never guessed.
    pub fn as_value_like(&self, limit: &Value) -> Option<Value> {
        match (self, limit) {
            (Data::Number(n), Value::Int(_) | Value::Decimal(_)) => {
                parse_decimal(n).ok().map(Value::Decimal)
            }
            (Data::String(s), Value::Date(_)) => Date::parse(s).map(Value::Date),
            (Data::String(s), Value::Datetime(_)) => Datetime::parse(s).map(Value::Datetime),
            (Data::String(s), Value::String(_)) => Some(Value::String(s.clone())),
            (Data::Bool(b), Value::Bool(_)) => Some(Value::Bool(*b)),
            (Data::Null, _) => Some(Value::Null),
            _ => None,
        }
    }

    /// Compares two run-time values exactly, for `==` and `!=` on values
    /// of any kind and ordering on numbers and strings.
    pub fn compare(&self, other: &Data) -> Option<Ordering> {
        match (self, other) {
            (Data::Number(a), Data::Number(b)) => {
                Some(parse_decimal(a).ok()?.cmp(&parse_decimal(b).ok()?))
            }
            (Data::String(a), Data::String(b)) => Some(a.cmp(b)),
            _ => (self == other).then_some(Ordering::Equal),
        }
    }
}

impl From<&str> for Data {
    fn from(s: &str) -> Data {
        Data::String(s.to_string())
    }
}

impl From<String> for Data {
    fn from(s: String) -> Data {
        Data::String(s)
    }
}

impl From<u64> for Data {
    fn from(n: u64) -> Data {
        Data::Number(n.to_string())
    }
}

impl From<bool> for Data {
    fn from(b: bool) -> Data {
        Data::Bool(b)
    }
}

impl From<Option<&str>> for Data {
    fn from(s: Option<&str>) -> Data {
        s.map_or(Data::Null, Data::from)
    }
}

/// A number for `serde_json`: an integer or a float when the float prints
/// back to the same value, else the exact text as a string.
fn exact_number(text: &str) -> serde_json::Value {
    if let Ok(i) = text.parse::<i64>() {
        return serde_json::Value::from(i);
    }
    if let Ok(v) = serde_json::from_str::<serde_json::Value>(text)
        && let Ok(back) = parse_decimal(&v.to_string())
        && parse_decimal(text).is_ok_and(|d| d == back)
    {
        return v;
    }
    serde_json::Value::String(text.to_string())
}

fn write_string(s: &str, out: &mut String) {
    // serde_json's string escaping cannot fail for a `str`.
    match serde_json::to_string(s) {
        Ok(quoted) => out.push_str(&quoted),
        Err(_) => out.push_str("\"\""),
    }
}

/// A parse error as `line L, column C: message`.
pub(crate) fn describe(text: &str, d: &Diagnostic) -> String {
    let before = text.get(..d.span.start as usize).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    format!("line {line}, column {column}: {}", d.message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_keep_their_text_and_compare_by_value() {
        let d = Data::parse(r#"{"b": 4180.00, "a": [1, "x", null, true]}"#).unwrap();
        assert_eq!(d.to_json(), r#"{"a":[1,"x",null,true],"b":4180.00}"#);
        assert_eq!(Data::Number("1.50".into()), Data::Number("1.5".into()));
        assert_ne!(Data::Number("1.50".into()), Data::Number("1.51".into()));
        assert_eq!(
            Data::Number("0.1".into()).to_serde(),
            serde_json::json!(0.1)
        );
        assert_eq!(
            Data::Number("4180.00".into()).to_serde(),
            serde_json::json!(4180.0)
        );
    }
}
