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
    streamed(ir, false)
}

/// The fingerprint of the plan `ir` runs, whatever record it was compiled
/// against (`docs/ir.md`, "Fingerprint"): the fingerprint of `ir` without
/// what it took from a progress record (`progress`, and each step's
/// `reuse` and `artifacts`). For an IR compiled without a record it is
/// [`fingerprint`]. A progress record carries it, so that a run resumed
/// with the same plan compiled against the record is a resume, and a plan
/// that differs in anything that runs is a replan.
pub fn plan_fingerprint(ir: &PlanIr) -> Result<String, String> {
    streamed(ir, true)
}

/// The digest of `ir`'s canonical text (with `plan`, without what it took
/// from a record: those members are written only when present, so leaving
/// them out is the text of the IR without them), streamed: the IR's
/// members that sort before `steps`, the steps one at a time, then the
/// members after. Each part is [`canonical_ir`]'s text, which the tests
/// compare; the canonical text of a large IR is never in memory whole.
fn streamed(ir: &PlanIr, plan: bool) -> Result<String, String> {
    let fail = |e: Error| format!("cannot fingerprint the IR: {}", e.0);
    let before = ir.serialize(Canon(Skip::TopBefore, plan)).map_err(fail)?;
    let after = ir.serialize(Canon(Skip::TopAfter, plan)).map_err(fail)?;
    let inner = |text: &str| -> String {
        let t = text.strip_prefix('{').unwrap_or(text);
        t.strip_suffix('}').unwrap_or(t).to_string()
    };
    let (before, after) = (inner(&before), inner(&after));
    let mut hasher = Sha256::new();
    hasher.update(b"{");
    if !before.is_empty() {
        hasher.update(before.as_bytes());
        hasher.update(b",");
    }
    hasher.update(b"\"steps\":[");
    for (i, step) in ir.steps.iter().enumerate() {
        if i > 0 {
            hasher.update(b",");
        }
        let text = step.serialize(Canon(Skip::Step, plan)).map_err(fail)?;
        hasher.update(text.as_bytes());
    }
    hasher.update(b"]");
    if !after.is_empty() {
        hasher.update(b",");
        hasher.update(after.as_bytes());
    }
    hasher.update(b"}");
    Ok(hex(hasher))
}

/// `sha256:` and the hex SHA-256 of `text`: the fingerprint of an IR whose
/// canonical text ([`canonical_ir`]) is `text`.
pub fn digest_of(text: &str) -> String {
    let mut hasher = Sha256::new();
    hasher.update(text.as_bytes());
    hex(hasher)
}

fn hex(hasher: Sha256) -> String {
    let digest = hasher.finalize();
    let mut out = String::with_capacity(PREFIX.len() + 64);
    out.push_str(PREFIX);
    for byte in digest.iter() {
        let _ = write!(out, "{byte:02x}");
    }
    out
}

/// The canonical JSON the fingerprint is the digest of: the IR without
/// `fingerprint`, `source` and the steps' `span`.
pub fn canonical_ir(ir: &PlanIr) -> Result<String, String> {
    ir.serialize(Canon(Skip::Top, false))
        .map_err(|e| format!("cannot fingerprint the IR: {}", e.0))
}

/// RFC 8785 canonical JSON of any value serde can serialise (numbers as
/// above: integers in decimal, `RawValue` numbers as written).
pub fn canonical<T: Serialize + ?Sized>(value: &T) -> Result<String, String> {
    value
        .serialize(Canon(Skip::Nothing, false))
        .map_err(|e| e.0)
}

/// What the serializer leaves out where it is: the IR's own members
/// (`fingerprint`, `source`), and each step's `span`. Each value is written
/// as canonical text as soon as it is serialised (an object keeps its
/// members' texts until it sorts them), so the canonical form of an IR
/// costs about its own text in memory, not a tree of it.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Skip {
    Nothing,
    /// The IR object.
    Top,
    /// Its `steps` array.
    Steps,
    /// One step.
    Step,
    /// The IR object's members that sort before `steps`, and those after
    /// ([`fingerprint`]).
    TopBefore,
    TopAfter,
}

impl Skip {
    /// Whether the member `key` is left out here; with `plan`, also what
    /// the IR took from a progress record ([`plan_fingerprint`]).
    fn leaves_out(self, key: &str, plan: bool) -> bool {
        match self {
            Skip::Top => key == "fingerprint" || key == "source" || (plan && key == "progress"),
            Skip::TopBefore => {
                Skip::Top.leaves_out(key, plan)
                    || key.encode_utf16().cmp("steps".encode_utf16()) != std::cmp::Ordering::Less
            }
            Skip::TopAfter => {
                Skip::Top.leaves_out(key, plan)
                    || key.encode_utf16().cmp("steps".encode_utf16()) != std::cmp::Ordering::Greater
            }
            Skip::Step => key == "span" || (plan && (key == "reuse" || key == "artifacts")),
            Skip::Nothing | Skip::Steps => false,
        }
    }

    /// Where a member's value is serialised.
    fn member(self, key: &str) -> Skip {
        match self {
            Skip::Top if key == "steps" => Skip::Steps,
            _ => Skip::Nothing,
        }
    }

    /// Where an array's element is serialised.
    fn element(self) -> Skip {
        match self {
            Skip::Steps => Skip::Step,
            _ => Skip::Nothing,
        }
    }
}

/// An object's members, sorted by the UTF-16 code units of their keys (a
/// stable sort: a key written twice keeps its order), written as one text.
fn write_object(mut members: Vec<(String, String)>) -> String {
    members.sort_by(|a, b| a.0.encode_utf16().cmp(b.0.encode_utf16()));
    let len: usize = members.iter().map(|(k, v)| k.len() + v.len() + 4).sum();
    let mut out = String::with_capacity(len + 2);
    out.push('{');
    for (i, (key, value)) in members.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_string(&key, &mut out);
        out.push(':');
        out.push_str(&value);
    }
    out.push('}');
    out
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

fn quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    write_string(s, &mut out);
    out
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

/// The serializer writing a value's canonical text: what it leaves out
/// where it is, and whether it writes the plan's text without what the IR
/// took from a record.
struct Canon(Skip, bool);

fn float() -> Error {
    Error("the IR holds a binary floating-point number, which has no exact canonical form".into())
}

/// The serializer's integer methods: every integer in decimal.
macro_rules! integers {
    ($($method:ident: $ty:ty),* $(,)?) => {
        $(fn $method(self, v: $ty) -> Result<String, Error> {
            Ok(v.to_string())
        })*
    };
}

impl ser::Serializer for Canon {
    type Ok = String;
    type Error = Error;
    type SerializeSeq = Seq;
    type SerializeTuple = Seq;
    type SerializeTupleStruct = Seq;
    type SerializeTupleVariant = Variant<Seq>;
    type SerializeMap = Obj;
    type SerializeStruct = Obj;
    type SerializeStructVariant = Variant<Obj>;

    fn serialize_bool(self, v: bool) -> Result<String, Error> {
        Ok(String::from(if v { "true" } else { "false" }))
    }
    integers!(serialize_i8: i8, serialize_i16: i16, serialize_i32: i32, serialize_i64: i64,
        serialize_i128: i128, serialize_u8: u8, serialize_u16: u16, serialize_u32: u32,
        serialize_u64: u64, serialize_u128: u128);
    fn serialize_f32(self, _: f32) -> Result<String, Error> {
        Err(float())
    }
    fn serialize_f64(self, _: f64) -> Result<String, Error> {
        Err(float())
    }
    fn serialize_char(self, v: char) -> Result<String, Error> {
        Ok(quoted(v.encode_utf8(&mut [0; 4])))
    }
    fn serialize_str(self, v: &str) -> Result<String, Error> {
        Ok(quoted(v))
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<String, Error> {
        let items: Vec<String> = v.iter().map(u8::to_string).collect();
        Ok(format!("[{}]", items.join(",")))
    }
    fn serialize_none(self) -> Result<String, Error> {
        Ok(String::from("null"))
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<String, Error> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<String, Error> {
        Ok(String::from("null"))
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<String, Error> {
        Ok(String::from("null"))
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<String, Error> {
        Ok(quoted(variant))
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<String, Error> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<String, Error> {
        Ok(write_object(vec![(
            variant.to_string(),
            value.serialize(Canon(Skip::Nothing, self.1))?,
        )]))
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Seq, Error> {
        Ok(Seq::new(self.0, self.1))
    }
    fn serialize_tuple(self, _: usize) -> Result<Seq, Error> {
        Ok(Seq::new(self.0, self.1))
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Seq, Error> {
        Ok(Seq::new(self.0, self.1))
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Variant<Seq>, Error> {
        Ok(Variant(variant, Seq::new(Skip::Nothing, self.1)))
    }
    fn serialize_map(self, len: Option<usize>) -> Result<Obj, Error> {
        Ok(Obj::new(len.unwrap_or(0), false, self.0, self.1))
    }
    fn serialize_struct(self, name: &'static str, len: usize) -> Result<Obj, Error> {
        Ok(Obj::new(len, name == RAW_VALUE_TOKEN, self.0, self.1))
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Variant<Obj>, Error> {
        Ok(Variant(
            variant,
            Obj::new(len, false, Skip::Nothing, self.1),
        ))
    }
}

/// An array's text so far, `[` and the elements written.
struct Seq {
    text: String,
    skip: Skip,
    plan: bool,
}

impl Seq {
    fn new(skip: Skip, plan: bool) -> Seq {
        Seq {
            text: String::from("["),
            skip,
            plan,
        }
    }
}

impl ser::SerializeSeq for Seq {
    type Ok = String;
    type Error = Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        if self.text.len() > 1 {
            self.text.push(',');
        }
        let item = value.serialize(Canon(self.skip.element(), self.plan))?;
        self.text.push_str(&item);
        Ok(())
    }
    fn end(mut self) -> Result<String, Error> {
        self.text.push(']');
        Ok(self.text)
    }
}

impl ser::SerializeTuple for Seq {
    type Ok = String;
    type Error = Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        ser::SerializeSeq::serialize_element(self, value)
    }
    fn end(self) -> Result<String, Error> {
        ser::SerializeSeq::end(self)
    }
}

impl ser::SerializeTupleStruct for Seq {
    type Ok = String;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        ser::SerializeSeq::serialize_element(self, value)
    }
    fn end(self) -> Result<String, Error> {
        ser::SerializeSeq::end(self)
    }
}

/// An enum variant with content: `{"variant": content}`.
struct Variant<T>(&'static str, T);

impl ser::SerializeTupleVariant for Variant<Seq> {
    type Ok = String;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        ser::SerializeSeq::serialize_element(&mut self.1, value)
    }
    fn end(self) -> Result<String, Error> {
        Ok(write_object(vec![(
            self.0.to_string(),
            ser::SerializeSeq::end(self.1)?,
        )]))
    }
}

impl ser::SerializeStructVariant for Variant<Obj> {
    type Ok = String;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        ser::SerializeStruct::serialize_field(&mut self.1, key, value)
    }
    fn end(self) -> Result<String, Error> {
        Ok(write_object(vec![(
            self.0.to_string(),
            ser::SerializeStruct::end(self.1)?,
        )]))
    }
}

/// An object's members (key, canonical text of the value), or (`raw`)
/// serde_json's `RawValue`, whose one field is a number's text.
struct Obj {
    members: Vec<(String, String)>,
    key: Option<String>,
    raw: Option<String>,
    is_raw: bool,
    skip: Skip,
    plan: bool,
}

impl Obj {
    fn new(len: usize, is_raw: bool, skip: Skip, plan: bool) -> Obj {
        Obj {
            members: Vec::with_capacity(len),
            key: None,
            raw: None,
            is_raw,
            skip,
            plan,
        }
    }
}

impl ser::SerializeMap for Obj {
    type Ok = String;
    type Error = Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Error> {
        self.key = Some(key.serialize(Text)?);
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        let key = self
            .key
            .take()
            .ok_or_else(|| Error("a map value without its key".into()))?;
        if self.skip.leaves_out(&key, self.plan) {
            return Ok(());
        }
        let text = value.serialize(Canon(self.skip.member(&key), self.plan))?;
        self.members.push((key, text));
        Ok(())
    }
    fn end(self) -> Result<String, Error> {
        Ok(write_object(self.members))
    }
}

impl ser::SerializeStruct for Obj {
    type Ok = String;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        if self.is_raw {
            let text = value.serialize(Text)?;
            if !crate::value::is_json_number(&text) || self.raw.is_some() {
                return Err(Error("raw JSON that is not a number".into()));
            }
            self.raw = Some(text);
            return Ok(());
        }
        if self.skip.leaves_out(key, self.plan) {
            return Ok(());
        }
        let text = value.serialize(Canon(self.skip.member(key), self.plan))?;
        self.members.push((key.to_string(), text));
        Ok(())
    }
    fn end(self) -> Result<String, Error> {
        if self.is_raw {
            return self
                .raw
                .ok_or_else(|| Error("an empty raw JSON value".into()));
        }
        Ok(write_object(self.members))
    }
}

/// The serializer of what must be a string (a map's key, a raw number's
/// text): the string itself, not its JSON.
struct Text;

fn not_text() -> Error {
    Error("a map key or raw JSON value that is not a string".into())
}

macro_rules! not_text {
    ($($method:ident: $ty:ty),* $(,)?) => {
        $(fn $method(self, _: $ty) -> Result<String, Error> {
            Err(not_text())
        })*
    };
}

impl ser::Serializer for Text {
    type Ok = String;
    type Error = Error;
    type SerializeSeq = ser::Impossible<String, Error>;
    type SerializeTuple = ser::Impossible<String, Error>;
    type SerializeTupleStruct = ser::Impossible<String, Error>;
    type SerializeTupleVariant = ser::Impossible<String, Error>;
    type SerializeMap = ser::Impossible<String, Error>;
    type SerializeStruct = ser::Impossible<String, Error>;
    type SerializeStructVariant = ser::Impossible<String, Error>;

    fn serialize_str(self, v: &str) -> Result<String, Error> {
        Ok(v.to_string())
    }
    fn serialize_char(self, v: char) -> Result<String, Error> {
        Ok(v.to_string())
    }
    not_text!(serialize_bool: bool, serialize_i8: i8, serialize_i16: i16, serialize_i32: i32,
        serialize_i64: i64, serialize_i128: i128, serialize_u8: u8, serialize_u16: u16,
        serialize_u32: u32, serialize_u64: u64, serialize_u128: u128, serialize_f32: f32,
        serialize_f64: f64, serialize_bytes: &[u8]);
    fn serialize_none(self) -> Result<String, Error> {
        Err(not_text())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> Result<String, Error> {
        Err(not_text())
    }
    fn serialize_unit(self) -> Result<String, Error> {
        Err(not_text())
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<String, Error> {
        Err(not_text())
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<String, Error> {
        Ok(variant.to_string())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<String, Error> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<String, Error> {
        Err(not_text())
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, Error> {
        Err(not_text())
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, Error> {
        Err(not_text())
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct, Error> {
        Err(not_text())
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, Error> {
        Err(not_text())
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, Error> {
        Err(not_text())
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct, Error> {
        Err(not_text())
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, Error> {
        Err(not_text())
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
