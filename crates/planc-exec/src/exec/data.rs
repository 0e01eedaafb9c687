//! Run-time values: what tools return and arguments carry. JSON, with
//! numbers kept as the exact text they were written with (`4180.00` stays
//! `4180.00`), so guards and probes compare exact decimals and a recorded
//! artifact is the value the tool returned, digit for digit.
//!
//! Read with the crate's own JSON parser (`syntax::json`), which keeps
//! number text; written by [`Data::to_json`].

use crate::FileId;
use crate::catalog::value::{Date, Datetime, Value, parse_decimal};
use crate::diagnostics::Diagnostic;
use crate::ir;
use crate::syntax::json;

/// Run-time values are the progress record's plain JSON: one value type
/// from the tool's answer to the record.
pub use crate::value::{JsonNumber, JsonValue as Data};

impl Data {
    /// Parses JSON text; the error is a message with the line and column.
    pub fn parse_text(text: &str) -> Result<Data, String> {
        match json::parse(FileId::default(), text) {
            Ok(root) => Ok(Data::from_json(&root)),
            Err(d) => Err(describe(text, &d)),
        }
    }

    /// Whether two values are equal, numbers by value (`1.50` is `1.5`),
    /// the rest structurally.
    pub fn same(&self, other: &Data) -> bool {
        match (self, other) {
            (Data::Number(a), Data::Number(b)) => {
                a == b
                    || matches!(
                        (parse_decimal(a.as_str()), parse_decimal(b.as_str())),
                        (Ok(x), Ok(y)) if x == y
                    )
            }
            (Data::Array(a), Data::Array(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.same(y))
            }
            (Data::Object(a), Data::Object(b)) => {
                a.len() == b.len()
                    && a.iter()
                        .zip(b)
                        .all(|((ka, va), (kb, vb))| ka == kb && va.same(vb))
            }
            _ => self == other,
        }
    }

    /// Whether two calls' arguments are the same call: each argument
    /// [`same`](Data::same), an argument left out the same as `null`
    /// (`docs/replanning.md`, "The same call").
    pub fn same_args(
        a: &std::collections::BTreeMap<String, Data>,
        b: &std::collections::BTreeMap<String, Data>,
    ) -> bool {
        let get = |m: &'_ std::collections::BTreeMap<String, Data>, k: &str| {
            m.get(k).cloned().unwrap_or(Data::Null)
        };
        a.keys().chain(b.keys()).all(|k| get(a, k).same(&get(b, k)))
    }

    /// A number from its text; `null` when the text is not a JSON number.
    pub fn number(text: &str) -> Data {
        JsonNumber::new(text).map_or(Data::Null, Data::Number)
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
                    out.push_str(&Data::String(k.clone()).to_json_string());
                    out.push_str(": ");
                    v.write_pretty(out, depth + 1);
                }
                pad(out, depth);
                out.push('}');
            }
            other => out.push_str(&other.to_json_string()),
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
            Data::Number(n) => n.as_str().parse().ok(),
            _ => None,
        }
    }

    /// Any serialisable value (an IR probe, a guard), through `serde_json`.
    pub fn of(value: &impl serde::Serialize) -> Data {
        serde_json::to_value(value)
            .map(|v| Data::from_serde(&v))
            .unwrap_or(Data::Null)
    }

    /// From a `serde_json` value (numbers as `serde_json` prints them).
    pub fn from_serde(v: &serde_json::Value) -> Data {
        match v {
            serde_json::Value::Null => Data::Null,
            serde_json::Value::Bool(b) => Data::Bool(*b),
            serde_json::Value::Number(n) => Data::number(&n.to_string()),
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
                Data::String(s.clone().to_string())
            }
            ir::Literal::Int(i) => Data::Number(JsonNumber::from(*i)),
            ir::Literal::Decimal(d) => {
                JsonNumber::new(d).map_or_else(|| Data::String(d.clone().to_string()), Data::Number)
            }
            ir::Literal::Bool(b) => Data::Bool(*b),
            ir::Literal::Null => Data::Null,
        }
    }

    /// A value known to the checker as run-time data, as the executor
    /// would pass it: dates and datetimes are strings.
    pub fn from_value(v: &Value) -> Data {
        match v {
            Value::String(s) => Data::String(s.to_string()),
            Value::Int(i) => Data::Number(JsonNumber::from(*i)),
            Value::Decimal(d) => Data::number(&d.to_string()),
            Value::Bool(b) => Data::Bool(*b),
            Value::Null => Data::Null,
            Value::Date(d) => Data::String(d.to_string()),
            Value::Datetime(d) => Data::String(d.to_string()),
        }
    }

    /// The value as an exact decimal, for a total (`total ARG <= N`);
    /// `None` when it is not a number (the total then refuses).
    pub fn exact_decimal(&self) -> Option<rust_decimal::Decimal> {
        match self {
            Data::Number(n) => parse_decimal(n.as_str()).ok(),
            _ => None,
        }
    }

    /// The key a total's `per` argument groups calls by, in the checker and
    /// the executor alike: numbers by value (`1.50` is `1.5`), strings as
    /// themselves, anything else by its JSON text; an absent argument is
    /// `null`.
    pub fn ledger_key(&self) -> String {
        match self {
            Data::String(s) => format!("s:{s}"),
            Data::Number(n) => match parse_decimal(n.as_str()) {
                Ok(d) => format!("n:{}", d.normalize()),
                Err(_) => format!("n:{}", n.as_str()),
            },
            other => format!("j:{}", other.to_json_string()),
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
                parse_decimal(n.as_str()).ok().map(Value::Decimal)
            }
            (Data::String(s), Value::Date(_)) => Date::parse(s).map(Value::Date),
            (Data::String(s), Value::Datetime(_)) => {
                Datetime::parse(s).map(|d| Value::Datetime(Box::new(d)))
            }
            (Data::String(s), Value::String(_)) => Some(Value::String(s.clone().into())),
            (Data::Bool(b), Value::Bool(_)) => Some(Value::Bool(*b)),
            (Data::Null, _) => Some(Value::Null),
            _ => None,
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
        Data::Number(JsonNumber::from(n))
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

/// A parse error as `line L, column C: message`.
pub(crate) fn describe(text: &str, d: &Diagnostic) -> String {
    let (line, column) = line_col(text, d.span.start as usize);
    format!("line {line}, column {column}: {}", d.message)
}

/// The 1-based line and column (in characters) of byte `offset` of a
/// data text, for the messages about fixtures and results. Unlike
/// [`planc_lang::source::SourceFile::line_col`], a byte-order mark at the start
/// counts as a column.
pub(crate) fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = text.get(..offset).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_keep_their_text_and_compare_by_value() {
        let d = Data::parse_text(r#"{"b": 4180.00, "a": [1, "x", null, true]}"#).unwrap();
        assert_eq!(d.to_json_string(), r#"{"a":[1,"x",null,true],"b":4180.00}"#);
        assert!(Data::number("1.50").same(&Data::number("1.5")));
        assert!(!Data::number("1.50").same(&Data::number("1.51")));
        assert_eq!(
            d.to_json_pretty(),
            "{\n  \"a\": [\n    1,\n    \"x\",\n    null,\n    true\n  ],\n  \"b\": 4180.00\n}\n"
        );
    }
}
