//! The IR's fingerprint (`docs/ir.md`, "Fingerprint"): `sha256:` and the
//! hex SHA-256 of the IR's canonical JSON (RFC 8785) with `fingerprint`,
//! `source` and every step's `span` left out. Reformatting the plan, or
//! writing it in the other form, moves spans and nothing else, so the
//! fingerprint stays; any change to what runs changes the canonical text.
//!
//! The canonical text is written from the IR's own serialisation (a serde
//! serializer here, so every field the IR gains is covered without a list
//! to keep up to date): object members sorted by the UTF-16 code units of
//! their keys, no whitespace, strings escaped as RFC 8785 says. Numbers are
//! written as the IR holds them: integers in decimal, and the numbers of
//! recorded values (`artifacts`, `artifacts_in`) with the exact text they
//! carry. The IR holds no binary floating point (exact decimals are
//! strings), so RFC 8785's number rule, which is about binary64, never
//! applies; a floating-point number met while serialising is an error,
//! not a value rounded through `f64`.

use std::fmt::Write as _;

use serde::ser::{self, Serialize};
use sha2::{Digest, Sha256};

use super::types::PlanIr;

/// The prefix of every fingerprint.
pub const PREFIX: &str = "sha256:";

/// The fingerprint of `ir`: `sha256:` and 64 lowercase hex digits. The
/// `fingerprint` field `ir` already carries is not part of it.
pub fn fingerprint(ir: &PlanIr) -> Result<String, String> {
    digest(&canonical_ir(ir)?)
}

/// The fingerprint of the plan `ir` runs, whatever record it was compiled
/// against (`docs/ir.md`, "Fingerprint"): the fingerprint of `ir` without
/// what it took from a progress record (`progress`, and each step's
/// `reuse` and `artifacts`). For an IR compiled without a record it is
/// [`fingerprint`]. A progress record carries it, so that a run resumed
/// with the same plan compiled against the record is a resume, and a plan
/// that differs in anything that runs is a replan.
pub fn plan_fingerprint(ir: &PlanIr) -> Result<String, String> {
    if ir.progress.is_none()
        && ir
            .steps
            .iter()
            .all(|s| s.reuse.is_none() && s.artifacts.is_none())
    {
        return fingerprint(ir);
    }
    let mut plan = ir.clone();
    plan.progress = None;
    for step in &mut plan.steps {
        step.reuse = None;
        step.artifacts = None;
    }
    fingerprint(&plan)
}

fn digest(text: &str) -> Result<String, String> {
    let digest = Sha256::digest(text.as_bytes());
    let mut out = String::with_capacity(PREFIX.len() + 64);
    out.push_str(PREFIX);
    for byte in digest.iter() {
        let _ = write!(out, "{byte:02x}");
    }
    Ok(out)
}

/// The canonical JSON the fingerprint is the digest of: the IR without
/// `fingerprint`, `source` and the steps' `span`.
pub fn canonical_ir(ir: &PlanIr) -> Result<String, String> {
    let mut tree = ir
        .serialize(Canon)
        .map_err(|e| format!("cannot fingerprint the IR: {}", e.0))?;
    if let Node::Object(members) = &mut tree {
        members.retain(|(k, _)| k != "fingerprint" && k != "source");
        for (key, value) in members.iter_mut() {
            if key != "steps" {
                continue;
            }
            if let Node::Array(steps) = value {
                for step in steps {
                    if let Node::Object(fields) = step {
                        fields.retain(|(k, _)| k != "span");
                    }
                }
            }
        }
    }
    let mut out = String::new();
    write_node(&tree, &mut out);
    Ok(out)
}

/// RFC 8785 canonical JSON of any value serde can serialise (numbers as
/// above: integers in decimal, `RawValue` numbers as written).
pub fn canonical<T: Serialize + ?Sized>(value: &T) -> Result<String, String> {
    let tree = value.serialize(Canon).map_err(|e| e.0)?;
    let mut out = String::new();
    write_node(&tree, &mut out);
    Ok(out)
}

/// A serialised value before it is written: objects keep their members so
/// they can be sorted.
#[derive(Debug)]
enum Node {
    Null,
    Bool(bool),
    /// A number's JSON text.
    Number(String),
    String(String),
    Array(Vec<Node>),
    Object(Vec<(String, Node)>),
}

fn write_node(node: &Node, out: &mut String) {
    match node {
        Node::Null => out.push_str("null"),
        Node::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Node::Number(n) => out.push_str(n),
        Node::String(s) => write_string(s, out),
        Node::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_node(item, out);
            }
            out.push(']');
        }
        Node::Object(members) => {
            let mut sorted: Vec<&(String, Node)> = members.iter().collect();
            sorted.sort_by(|a, b| a.0.encode_utf16().cmp(b.0.encode_utf16()));
            out.push('{');
            for (i, (key, value)) in sorted.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(key, out);
                out.push(':');
                write_node(value, out);
            }
            out.push('}');
        }
    }
}

/// A string as RFC 8785 writes it (ECMAScript's `JSON.stringify`): `"` and
/// `\` escaped, the control characters with a short escape where JSON has
/// one and `\u00xx` (lowercase hex) otherwise, everything else as itself.
fn write_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\u{c}' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            c if u32::from(c) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[derive(Debug)]
pub struct Error(String);

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

impl ser::Error for Error {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        Error(msg.to_string())
    }
}

/// serde_json's name for the struct a `RawValue` serialises as.
const RAW_VALUE_TOKEN: &str = "$serde_json::private::RawValue";

/// The serializer building a [`Node`].
struct Canon;

fn float() -> Error {
    Error("the IR holds a binary floating-point number, which has no exact canonical form".into())
}

/// The serializer's integer methods: every integer in decimal.
macro_rules! integers {
    ($($method:ident: $ty:ty),* $(,)?) => {
        $(fn $method(self, v: $ty) -> Result<Node, Error> {
            Ok(Node::Number(v.to_string()))
        })*
    };
}

impl ser::Serializer for Canon {
    type Ok = Node;
    type Error = Error;
    type SerializeSeq = Seq;
    type SerializeTuple = Seq;
    type SerializeTupleStruct = Seq;
    type SerializeTupleVariant = Variant<Seq>;
    type SerializeMap = Obj;
    type SerializeStruct = Obj;
    type SerializeStructVariant = Variant<Obj>;

    fn serialize_bool(self, v: bool) -> Result<Node, Error> {
        Ok(Node::Bool(v))
    }
    integers!(serialize_i8: i8, serialize_i16: i16, serialize_i32: i32, serialize_i64: i64,
        serialize_i128: i128, serialize_u8: u8, serialize_u16: u16, serialize_u32: u32,
        serialize_u64: u64, serialize_u128: u128);
    fn serialize_f32(self, _: f32) -> Result<Node, Error> {
        Err(float())
    }
    fn serialize_f64(self, _: f64) -> Result<Node, Error> {
        Err(float())
    }
    fn serialize_char(self, v: char) -> Result<Node, Error> {
        Ok(Node::String(v.to_string()))
    }
    fn serialize_str(self, v: &str) -> Result<Node, Error> {
        Ok(Node::String(v.to_string()))
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<Node, Error> {
        Ok(Node::Array(
            v.iter().map(|b| Node::Number(b.to_string())).collect(),
        ))
    }
    fn serialize_none(self) -> Result<Node, Error> {
        Ok(Node::Null)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<Node, Error> {
        value.serialize(Canon)
    }
    fn serialize_unit(self) -> Result<Node, Error> {
        Ok(Node::Null)
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<Node, Error> {
        Ok(Node::Null)
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<Node, Error> {
        Ok(Node::String(variant.to_string()))
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<Node, Error> {
        value.serialize(Canon)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<Node, Error> {
        Ok(Node::Object(vec![(
            variant.to_string(),
            value.serialize(Canon)?,
        )]))
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<Seq, Error> {
        Ok(Seq(Vec::with_capacity(len.unwrap_or(0))))
    }
    fn serialize_tuple(self, len: usize) -> Result<Seq, Error> {
        Ok(Seq(Vec::with_capacity(len)))
    }
    fn serialize_tuple_struct(self, _: &'static str, len: usize) -> Result<Seq, Error> {
        Ok(Seq(Vec::with_capacity(len)))
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Variant<Seq>, Error> {
        Ok(Variant(variant, Seq(Vec::with_capacity(len))))
    }
    fn serialize_map(self, len: Option<usize>) -> Result<Obj, Error> {
        Ok(Obj::new(len.unwrap_or(0), false))
    }
    fn serialize_struct(self, name: &'static str, len: usize) -> Result<Obj, Error> {
        Ok(Obj::new(len, name == RAW_VALUE_TOKEN))
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Variant<Obj>, Error> {
        Ok(Variant(variant, Obj::new(len, false)))
    }
}

struct Seq(Vec<Node>);

impl ser::SerializeSeq for Seq {
    type Ok = Node;
    type Error = Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.0.push(value.serialize(Canon)?);
        Ok(())
    }
    fn end(self) -> Result<Node, Error> {
        Ok(Node::Array(self.0))
    }
}

impl ser::SerializeTuple for Seq {
    type Ok = Node;
    type Error = Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        ser::SerializeSeq::serialize_element(self, value)
    }
    fn end(self) -> Result<Node, Error> {
        ser::SerializeSeq::end(self)
    }
}

impl ser::SerializeTupleStruct for Seq {
    type Ok = Node;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        ser::SerializeSeq::serialize_element(self, value)
    }
    fn end(self) -> Result<Node, Error> {
        ser::SerializeSeq::end(self)
    }
}

/// An enum variant with content: `{"variant": content}`.
struct Variant<T>(&'static str, T);

impl ser::SerializeTupleVariant for Variant<Seq> {
    type Ok = Node;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        ser::SerializeSeq::serialize_element(&mut self.1, value)
    }
    fn end(self) -> Result<Node, Error> {
        Ok(Node::Object(vec![(
            self.0.to_string(),
            Node::Array(self.1.0),
        )]))
    }
}

impl ser::SerializeStructVariant for Variant<Obj> {
    type Ok = Node;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        ser::SerializeStruct::serialize_field(&mut self.1, key, value)
    }
    fn end(self) -> Result<Node, Error> {
        Ok(Node::Object(vec![(
            self.0.to_string(),
            ser::SerializeStruct::end(self.1)?,
        )]))
    }
}

/// An object's members, or (`raw`) serde_json's `RawValue`, whose one
/// field is a number's text.
struct Obj {
    members: Vec<(String, Node)>,
    key: Option<String>,
    raw: bool,
}

impl Obj {
    fn new(len: usize, raw: bool) -> Obj {
        Obj {
            members: Vec::with_capacity(len),
            key: None,
            raw,
        }
    }
}

impl ser::SerializeMap for Obj {
    type Ok = Node;
    type Error = Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Error> {
        match key.serialize(Canon)? {
            Node::String(k) => {
                self.key = Some(k);
                Ok(())
            }
            _ => Err(Error("a map key that is not a string".into())),
        }
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        let key = self
            .key
            .take()
            .ok_or_else(|| Error("a map value without its key".into()))?;
        self.members.push((key, value.serialize(Canon)?));
        Ok(())
    }
    fn end(self) -> Result<Node, Error> {
        Ok(Node::Object(self.members))
    }
}

impl ser::SerializeStruct for Obj {
    type Ok = Node;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        let node = value.serialize(Canon)?;
        if self.raw {
            return match node {
                Node::String(text) if crate::value::is_json_number(&text) => {
                    self.members.push((String::new(), Node::Number(text)));
                    Ok(())
                }
                _ => Err(Error("raw JSON that is not a number".into())),
            };
        }
        self.members.push((key.to_string(), node));
        Ok(())
    }
    fn end(self) -> Result<Node, Error> {
        if self.raw {
            return match self.members.into_iter().next() {
                Some((_, number)) => Ok(number),
                None => Err(Error("an empty raw JSON value".into())),
            };
        }
        Ok(Node::Object(self.members))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    #[test]
    fn keys_sort_by_utf16_code_units_and_strings_escape_as_rfc_8785_says() {
        // U+10000 is the surrogate pair D800 DC00, which sorts before
        // U+FB33 in UTF-16 though after it in code points (and in UTF-8).
        let mut m: BTreeMap<String, String> = BTreeMap::new();
        m.insert("\u{fb33}".into(), "hebrew".into());
        m.insert("\u{10000}".into(), "linear b".into());
        m.insert(
            "a".into(),
            "\"\\\u{8}\t\n\u{c}\r\u{1}\u{1f}\u{7f}\u{2028}é😀/".into(),
        );
        m.insert("A".into(), "upper".into());
        m.insert("".into(), "empty".into());
        m.insert("ab".into(), "x".into());
        let text = canonical(&m).unwrap();
        assert_eq!(
            text,
            "{\"\":\"empty\",\"A\":\"upper\",\"a\":\"\\\"\\\\\\b\\t\\n\\f\\r\\u0001\\u001f\u{7f}\u{2028}é😀/\",\
             \"ab\":\"x\",\"\u{10000}\":\"linear b\",\"\u{fb33}\":\"hebrew\"}"
        );
    }

    #[test]
    fn numbers_keep_their_text_and_floats_are_refused() {
        let v = crate::value::JsonValue::parse(
            "{\"b\": 500.00, \"a\": [1e3, -0, 123456789012345678901234567890]}",
        )
        .unwrap();
        // `-0` is an integer, written as the IR writes it: `0`.
        assert_eq!(
            canonical(&v).unwrap(),
            "{\"a\":[1e3,0,123456789012345678901234567890],\"b\":500.00}"
        );
        assert!(canonical(&1.5f64).is_err());
        assert_eq!(canonical(&i64::MIN).unwrap(), "-9223372036854775808");
        assert_eq!(canonical(&u64::MAX).unwrap(), "18446744073709551615");
    }
}
