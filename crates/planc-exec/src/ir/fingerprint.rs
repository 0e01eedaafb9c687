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

use std::borrow::Cow;
use std::cmp::Ordering;
use std::fmt::Write as _;

use serde::ser::{self, Serialize};
use sha2::{Digest, Sha256};

use super::types::{PlanIr, StepIr};

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
/// compare; the canonical text of a large IR is never in memory whole,
/// only one step's at a time, in one buffer every step reuses.
fn streamed(ir: &PlanIr, plan: bool) -> Result<String, String> {
    let mut step_text = Writer::default();
    around_steps(ir, plan, &mut |hasher| {
        for (i, step) in ir.steps.iter().enumerate() {
            if i > 0 {
                hasher.update(b",");
            }
            step_text.text.clear();
            step.serialize(Canon::new(&mut step_text, Skip::Step, plan))
                .map_err(failed)?;
            hasher.update(step_text.text.as_bytes());
        }
        Ok(())
    })
}

/// [`fingerprint`] of an IR whose steps are given apart: `ir` has none
/// (its `steps` are not read), and `steps` reads their canonical texts
/// ([`canonical_step`]) in order, separated by commas. `planc compile`
/// lowers a long plan a step at a time and keeps these texts in a file,
/// since the digest needs the members that sort before `steps`, the
/// schedule among them, before the first step (`docs/performance.md`,
/// "Where the memory goes").
pub fn fingerprint_of_parts(ir: &PlanIr, steps: &mut dyn std::io::Read) -> Result<String, String> {
    around_steps(ir, false, &mut |hasher| {
        let mut chunk = vec![0u8; 64 * 1024];
        loop {
            match steps.read(&mut chunk) {
                Ok(0) => return Ok(()),
                Ok(n) => hasher.update(chunk.get(..n).unwrap_or_default()),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(format!("cannot fingerprint the IR: {e}")),
            }
        }
    })
}

/// The canonical text of `step` as the fingerprint reads it (without its
/// `span`), in `out` (cleared first, its room kept): the parts
/// [`fingerprint_of_parts`] reads.
pub fn canonical_step(step: &StepIr, out: &mut String) -> Result<(), String> {
    out.clear();
    let mut w = Writer {
        text: std::mem::take(out),
        ..Writer::default()
    };
    let written = step
        .serialize(Canon::new(&mut w, Skip::Step, false))
        .map_err(failed);
    *out = w.text;
    written
}

fn failed(e: Error) -> String {
    format!("cannot fingerprint the IR: {}", e.0)
}

/// The digest of `ir`'s canonical text (with `plan`, as
/// [`plan_fingerprint`] reads it), its steps' texts (between `[` and `]`)
/// fed by `steps`: the IR's members that sort before `steps`, the steps,
/// then the members after. Each part is [`canonical_ir`]'s text, which
/// the tests compare; the canonical text of a large IR is never in memory
/// whole.
fn around_steps(
    ir: &PlanIr,
    plan: bool,
    steps: &mut dyn FnMut(&mut Sha256) -> Result<(), String>,
) -> Result<String, String> {
    let mut w = Writer::default();
    ir.serialize(Canon::new(&mut w, Skip::TopBefore, plan))
        .map_err(failed)?;
    let mut hasher = Sha256::new();
    hasher.update(b"{");
    let before = inner(&w.text);
    if !before.is_empty() {
        hasher.update(before.as_bytes());
        hasher.update(b",");
    }
    hasher.update(b"\"steps\":[");
    steps(&mut hasher)?;
    hasher.update(b"]");
    w.text.clear();
    ir.serialize(Canon::new(&mut w, Skip::TopAfter, plan))
        .map_err(failed)?;
    let after = inner(&w.text);
    if !after.is_empty() {
        hasher.update(b",");
        hasher.update(after.as_bytes());
    }
    hasher.update(b"}");
    Ok(hex(hasher))
}

/// An object's text without its braces.
fn inner(text: &str) -> &str {
    let t = text.strip_prefix('{').unwrap_or(text);
    t.strip_suffix('}').unwrap_or(t)
}

/// `sha256:` and the hex SHA-256 of `text`: the fingerprint of an IR whose
/// canonical text ([`canonical_ir`]) is `text`.
pub fn digest_of(text: &str) -> String {
    let mut digest = RunningDigest::default();
    digest.update(text.as_bytes());
    digest.finish()
}

/// The SHA-256 of bytes given in pieces, written as a fingerprint is: what
/// a writer that keeps text outside its memory (`planc compile`'s scratch
/// file and output, `docs/threat-model.md`) compares, once it reads the
/// text back, with what it wrote.
#[derive(Clone, Default)]
pub struct RunningDigest(Sha256);

impl RunningDigest {
    pub fn update(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }

    /// `sha256:` and the hex digest of every byte given.
    pub fn finish(self) -> String {
        hex(self.0)
    }
}

impl std::io::Write for RunningDigest {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.update(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
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
    let mut w = Writer::default();
    ir.serialize(Canon::new(&mut w, Skip::Top, false))
        .map_err(|e| format!("cannot fingerprint the IR: {}", e.0))?;
    Ok(w.text)
}

/// RFC 8785 canonical JSON of any value serde can serialise (numbers as
/// above: integers in decimal, `RawValue` numbers as written).
pub fn canonical<T: Serialize + ?Sized>(value: &T) -> Result<String, String> {
    let mut w = Writer::default();
    value
        .serialize(Canon::new(&mut w, Skip::Nothing, false))
        .map_err(|e| e.0)?;
    Ok(w.text)
}

/// What the serializer leaves out where it is: the IR's own members
/// (`fingerprint`, `source`), and each step's `span`. Every value is
/// written into one text as it is serialised; an object whose members did
/// not come in canonical order rewrites its own members, sorted, in place
/// (the IR's structs name their fields in another order, so most do), so
/// the canonical form of a value costs about its own text in memory.
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
                Skip::Top.leaves_out(key, plan) || key_order(key, "steps") != Ordering::Less
            }
            Skip::TopAfter => {
                Skip::Top.leaves_out(key, plan) || key_order(key, "steps") != Ordering::Greater
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

/// Two keys in canonical order: by their UTF-16 code units. That is the
/// order of their bytes except where the first difference is between a
/// character from U+E000 to U+FFFF and one above U+FFFF (a surrogate pair
/// in UTF-16 sorts below the first), so bytes decide unless both differ in
/// a byte that begins such a character.
fn key_order(a: &str, b: &str) -> Ordering {
    let at = a.bytes().zip(b.bytes()).position(|(x, y)| x != y);
    match at {
        // Whichever is a prefix of the other sorts first.
        None => a.len().cmp(&b.len()),
        Some(i) => match (a.as_bytes().get(i), b.as_bytes().get(i)) {
            (Some(&x), Some(&y)) if x >= 0xee && y >= 0xee => {
                a.encode_utf16().cmp(b.encode_utf16())
            }
            (x, y) => x.cmp(&y),
        },
    }
}

/// A string as RFC 8785 writes it (ECMAScript's `JSON.stringify`): `"` and
/// `\` escaped, the control characters with a short escape where JSON has
/// one and `\u00xx` (lowercase hex) otherwise, everything else as itself.
/// The runs between escapes are copied whole, and a string with nothing to
/// escape (nearly every one) at once.
fn write_string(s: &str, out: &mut String) {
    let escaped = |b: u8| b < 0x20 || b == b'"' || b == b'\\';
    out.push('"');
    if !s.bytes().any(escaped) {
        out.push_str(s);
        out.push('"');
        return;
    }
    let mut run = 0;
    for (i, b) in s.bytes().enumerate() {
        let escape = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            0x08 => "\\b",
            b'\t' => "\\t",
            b'\n' => "\\n",
            0x0c => "\\f",
            b'\r' => "\\r",
            _ if escaped(b) => "",
            _ => continue,
        };
        // `b` is ASCII, so `run..i` and `i + 1..` are on char boundaries.
        out.push_str(s.get(run..i).unwrap_or_default());
        if escape.is_empty() {
            let _ = write!(out, "\\u{:04x}", b);
        } else {
            out.push_str(escape);
        }
        run = i + 1;
    }
    out.push_str(s.get(run..).unwrap_or_default());
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

/// The serializer writing a value's canonical text at the end of `out`:
/// what it leaves out where it is, and whether it writes the plan's text
/// without what the IR took from a record.
struct Canon<'o> {
    out: &'o mut Writer,
    skip: Skip,
    plan: bool,
}

impl<'o> Canon<'o> {
    fn new(out: &'o mut Writer, skip: Skip, plan: bool) -> Canon<'o> {
        Canon { out, skip, plan }
    }
}

fn float() -> Error {
    Error("the IR holds a binary floating-point number, which has no exact canonical form".into())
}

/// The serializer's integer methods: every integer in decimal.
macro_rules! integers {
    ($($method:ident: $ty:ty),* $(,)?) => {
        $(fn $method(self, v: $ty) -> Result<(), Error> {
            let _ = write!(self.out.text, "{v}");
            Ok(())
        })*
    };
}

impl<'o> ser::Serializer for Canon<'o> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Seq<'o>;
    type SerializeTuple = Seq<'o>;
    type SerializeTupleStruct = Seq<'o>;
    type SerializeTupleVariant = Seq<'o>;
    type SerializeMap = Obj<'o>;
    type SerializeStruct = Obj<'o>;
    type SerializeStructVariant = Obj<'o>;

    fn serialize_bool(self, v: bool) -> Result<(), Error> {
        self.out.text.push_str(if v { "true" } else { "false" });
        Ok(())
    }
    integers!(serialize_i8: i8, serialize_i16: i16, serialize_i32: i32, serialize_i64: i64,
        serialize_i128: i128, serialize_u8: u8, serialize_u16: u16, serialize_u32: u32,
        serialize_u64: u64, serialize_u128: u128);
    fn serialize_f32(self, _: f32) -> Result<(), Error> {
        Err(float())
    }
    fn serialize_f64(self, _: f64) -> Result<(), Error> {
        Err(float())
    }
    fn serialize_char(self, v: char) -> Result<(), Error> {
        write_string(v.encode_utf8(&mut [0; 4]), &mut self.out.text);
        Ok(())
    }
    fn serialize_str(self, v: &str) -> Result<(), Error> {
        write_string(v, &mut self.out.text);
        Ok(())
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<(), Error> {
        self.out.text.push('[');
        for (i, b) in v.iter().enumerate() {
            if i > 0 {
                self.out.text.push(',');
            }
            let _ = write!(self.out.text, "{b}");
        }
        self.out.text.push(']');
        Ok(())
    }
    fn serialize_none(self) -> Result<(), Error> {
        self.out.text.push_str("null");
        Ok(())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), Error> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), Error> {
        self.serialize_none()
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<(), Error> {
        self.serialize_none()
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<(), Error> {
        write_string(variant, &mut self.out.text);
        Ok(())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        open_variant(variant, &mut self.out.text);
        value.serialize(Canon::new(&mut *self.out, Skip::Nothing, self.plan))?;
        self.out.text.push('}');
        Ok(())
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Seq<'o>, Error> {
        Ok(Seq::new(self.out, self.skip, self.plan, false))
    }
    fn serialize_tuple(self, _: usize) -> Result<Seq<'o>, Error> {
        Ok(Seq::new(self.out, self.skip, self.plan, false))
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Seq<'o>, Error> {
        Ok(Seq::new(self.out, self.skip, self.plan, false))
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Seq<'o>, Error> {
        open_variant(variant, &mut self.out.text);
        Ok(Seq::new(self.out, Skip::Nothing, self.plan, true))
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Obj<'o>, Error> {
        Ok(Obj::new(self.out, false, self.skip, self.plan, false))
    }
    fn serialize_struct(self, name: &'static str, _: usize) -> Result<Obj<'o>, Error> {
        let raw = name == RAW_VALUE_TOKEN;
        Ok(Obj::new(self.out, raw, self.skip, self.plan, false))
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Obj<'o>, Error> {
        open_variant(variant, &mut self.out.text);
        Ok(Obj::new(self.out, false, Skip::Nothing, self.plan, true))
    }
}

/// An enum variant with content is the object `{"variant":content}`: its
/// opening, up to the content.
fn open_variant(variant: &str, out: &mut String) {
    out.push('{');
    write_string(variant, out);
    out.push(':');
}

/// An array being written: `[` and the elements so far are in `out`;
/// `variant`, it is a variant's content, and its object closes after it.
struct Seq<'o> {
    out: &'o mut Writer,
    first: bool,
    skip: Skip,
    plan: bool,
    variant: bool,
}

impl<'o> Seq<'o> {
    fn new(out: &'o mut Writer, skip: Skip, plan: bool, variant: bool) -> Seq<'o> {
        out.text.push('[');
        Seq {
            out,
            first: true,
            skip,
            plan,
            variant,
        }
    }
}

impl ser::SerializeSeq for Seq<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        if !self.first {
            self.out.text.push(',');
        }
        self.first = false;
        value.serialize(Canon::new(&mut *self.out, self.skip.element(), self.plan))
    }
    fn end(self) -> Result<(), Error> {
        self.out
            .text
            .push_str(if self.variant { "]}" } else { "]" });
        Ok(())
    }
}

impl ser::SerializeTuple for Seq<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        ser::SerializeSeq::serialize_element(self, value)
    }
    fn end(self) -> Result<(), Error> {
        ser::SerializeSeq::end(self)
    }
}

impl ser::SerializeTupleStruct for Seq<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        ser::SerializeSeq::serialize_element(self, value)
    }
    fn end(self) -> Result<(), Error> {
        ser::SerializeSeq::end(self)
    }
}

impl ser::SerializeTupleVariant for Seq<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        ser::SerializeSeq::serialize_element(self, value)
    }
    fn end(self) -> Result<(), Error> {
        ser::SerializeSeq::end(self)
    }
}

/// Where canonical text is written: the text, and the members of the
/// objects being written (each object's after its enclosing one's, so one
/// stack serves every depth), and room to sort an object's members in.
#[derive(Default)]
struct Writer {
    text: String,
    members: Vec<Member>,
    scratch: String,
}

/// One member written: its key, and where `"key":value` lies in the text.
struct Member {
    key: Cow<'static, str>,
    at: std::ops::Range<usize>,
}

/// An object being written: `{` and its members so far, as they came, are
/// in the text from `start`, and they are the writer's members from
/// `first`; [`Obj::close`] puts them in canonical order (a stable sort: a
/// key written twice keeps its order). Or (`raw`) serde_json's
/// `RawValue`, whose one field is a number's text, written as it is.
struct Obj<'o> {
    out: &'o mut Writer,
    start: usize,
    first: usize,
    /// Whether the members came in canonical order so far.
    sorted: bool,
    key: Option<String>,
    raw: bool,
    raw_written: bool,
    skip: Skip,
    plan: bool,
    variant: bool,
}

impl<'o> Obj<'o> {
    fn new(out: &'o mut Writer, raw: bool, skip: Skip, plan: bool, variant: bool) -> Obj<'o> {
        if !raw {
            out.text.push('{');
        }
        Obj {
            start: out.text.len(),
            first: out.members.len(),
            out,
            sorted: true,
            key: None,
            raw,
            raw_written: false,
            skip,
            plan,
            variant,
        }
    }

    fn member<T: Serialize + ?Sized>(
        &mut self,
        key: Cow<'static, str>,
        value: &T,
    ) -> Result<(), Error> {
        if self.skip.leaves_out(&key, self.plan) {
            return Ok(());
        }
        if self.out.members.len() > self.first {
            self.out.text.push(',');
            if let Some(last) = self.out.members.last() {
                self.sorted &= key_order(&last.key, &key) != Ordering::Greater;
            }
        }
        let from = self.out.text.len();
        write_string(&key, &mut self.out.text);
        self.out.text.push(':');
        let skip = self.skip.member(&key);
        value.serialize(Canon::new(&mut *self.out, skip, self.plan))?;
        let at = from..self.out.text.len();
        self.out.members.push(Member { key, at });
        Ok(())
    }

    fn close(self) -> Result<(), Error> {
        if self.raw {
            return match self.raw_written {
                true => Ok(()),
                false => Err(Error("an empty raw JSON value".into())),
            };
        }
        let Writer {
            text,
            members,
            scratch,
        } = self.out;
        if !self.sorted {
            let ours = members.get_mut(self.first..).unwrap_or_default();
            ours.sort_by(|a, b| key_order(&a.key, &b.key));
            scratch.clear();
            scratch.push_str(text.get(self.start..).unwrap_or_default());
            text.truncate(self.start);
            for (i, m) in ours.iter().enumerate() {
                if i > 0 {
                    text.push(',');
                }
                let at = m.at.start - self.start..m.at.end - self.start;
                text.push_str(scratch.get(at).unwrap_or_default());
            }
        }
        members.truncate(self.first);
        text.push_str(if self.variant { "}}" } else { "}" });
        Ok(())
    }
}

impl ser::SerializeMap for Obj<'_> {
    type Ok = ();
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
        self.member(Cow::Owned(key), value)
    }
    fn end(self) -> Result<(), Error> {
        self.close()
    }
}

impl ser::SerializeStruct for Obj<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        if self.raw {
            let text = value.serialize(Text)?;
            if !crate::value::is_json_number(&text) || self.raw_written {
                return Err(Error("raw JSON that is not a number".into()));
            }
            self.out.text.push_str(&text);
            self.raw_written = true;
            return Ok(());
        }
        self.member(Cow::Borrowed(key), value)
    }
    fn end(self) -> Result<(), Error> {
        self.close()
    }
}

impl ser::SerializeStructVariant for Obj<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        ser::SerializeStruct::serialize_field(self, key, value)
    }
    fn end(self) -> Result<(), Error> {
        self.close()
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
    fn key_order_is_the_order_of_utf16_code_units() {
        let chars = [
            "",
            "a",
            "b",
            "é",
            "\u{7ff}",
            "\u{d7ff}",
            "\u{e000}",
            "\u{fb33}",
            "\u{ffff}",
            "\u{10000}",
            "\u{1f600}",
            "\u{10ffff}",
        ];
        let mut keys = Vec::new();
        for x in chars {
            for y in chars {
                keys.push(format!("{x}{y}"));
            }
        }
        for a in &keys {
            for b in &keys {
                assert_eq!(
                    key_order(a, b),
                    a.encode_utf16().cmp(b.encode_utf16()),
                    "{a:?} against {b:?}"
                );
            }
        }
    }

    #[derive(serde::Serialize)]
    enum Shape {
        Unit,
        Wrapped(Inner),
        Pair(u8, Inner),
        Named { z: u8, a: Inner },
    }

    #[derive(serde::Serialize)]
    struct Inner {
        zeta: &'static str,
        alpha: Vec<u8>,
    }

    #[derive(serde::Serialize)]
    struct Outer {
        y: Inner,
        shapes: Vec<Shape>,
        b: Option<bool>,
        a: char,
    }

    #[test]
    fn members_written_out_of_order_are_put_in_order_at_every_depth() {
        let inner = || Inner {
            zeta: "z\"",
            alpha: vec![1, 2],
        };
        let v = Outer {
            y: inner(),
            shapes: vec![
                Shape::Unit,
                Shape::Wrapped(inner()),
                Shape::Pair(7, inner()),
                Shape::Named { z: 1, a: inner() },
            ],
            b: None,
            a: '\n',
        };
        let i = "{\"alpha\":[1,2],\"zeta\":\"z\\\"\"}";
        assert_eq!(
            canonical(&v).unwrap(),
            format!(
                "{{\"a\":\"\\n\",\"b\":null,\"shapes\":[\"Unit\",{{\"Wrapped\":{i}}},\
                 {{\"Pair\":[7,{i}]}},{{\"Named\":{{\"a\":{i},\"z\":1}}}}],\"y\":{i}}}"
            )
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
