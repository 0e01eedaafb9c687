//! A span-preserving JSON parser (RFC 8259): the value tree with its spans
//! ([`Json`]), the parser ([`parse`], in `parser.rs`) and the RFC 6901
//! pointer table of a document ([`pointers`], in `pointer.rs`). The readers
//! of plans, catalogues and policies build on it (`json_reader.rs` and the
//! `json_*.rs` beside it); nothing here knows those shapes.
//!
//! Why our own parser: diagnostics must point into the JSON text (byte spans
//! and RFC 6901 pointers), and numbers must keep their exact text; serde_json
//! gives neither.
//!
//! What it accepts is exactly RFC 8259 `JSON-text`, with these decisions:
//! - **Byte order mark**: one leading U+FEFF is skipped (RFC 8259 §8.1 lets a
//!   parser ignore it; editors on Windows write it). Spans stay offsets into
//!   the text as given. A BOM anywhere else is an unexpected character.
//! - **Duplicate keys** are kept, in order ([`Value::Object`] is a list of
//!   members, not a map). The plan, catalogue and policy readers reject them
//!   (E0004), because JSON parsers disagree on which of two equal keys wins.
//! - **Numbers** keep their exact text ([`Value::Number`]); nothing here turns
//!   them into binary floating point. `-0`, `1e400` and 30-digit integers are
//!   valid JSON and are kept as written.
//! - **Errors**: the first error ends the parse (a JSON document with a syntax
//!   error has no useful partial value). E0001 for syntax (unexpected
//!   character, missing `,` `:` or bracket, trailing comma, trailing text),
//!   E0002 for a bad literal (string escape, control character, unpaired
//!   surrogate, unterminated string, malformed number), E0003 for a limit
//!   (input size, string length, nesting depth).
//!
//! Nesting is capped at [`limits::MAX_DEPTH`] containers, so the recursive
//! descent here, the recursive `Drop` of the tree and every recursive pass
//! over it are bounded: no input can overflow the stack. The caller has
//! already checked UTF-8 (the parser takes `&str`).

mod parser;
mod pointer;

use std::borrow::Cow;

use crate::source::Span;

pub use parser::{Stream, parse, parse_streaming, parse_value_at};
pub use pointer::{Unresolved, pointer_table, pointers, resolve};

/// One JSON value with its span (for a string, the span includes the quotes).
#[derive(Clone, Debug, PartialEq)]
pub struct Json<'a> {
    pub value: Value<'a>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Value<'a> {
    Null,
    Bool(bool),
    /// The number exactly as written: `-0.50`, `1e3`.
    Number(&'a str),
    /// The decoded string; borrowed from the text when it has no escapes.
    String(Cow<'a, str>),
    Array(Vec<Json<'a>>),
    /// The members in source order, duplicate keys included.
    Object(Vec<Member<'a>>),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Member<'a> {
    pub key: Cow<'a, str>,
    /// The key's span, quotes included.
    pub key_span: Span,
    pub value: Json<'a>,
}

impl Member<'_> {
    /// The span from the key's opening quote to the end of the value.
    pub fn span(&self) -> Span {
        self.key_span.to(self.value.span)
    }

    /// The span of the key's text, without the quotes.
    pub fn key_text_span(&self) -> Span {
        inner(self.key_span)
    }
}

impl<'a> Json<'a> {
    pub fn as_str(&self) -> Option<&str> {
        match &self.value {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_object(&self) -> Option<&[Member<'a>]> {
        match &self.value {
            Value::Object(m) => Some(m),
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&[Json<'a>]> {
        match &self.value {
            Value::Array(v) => Some(v),
            _ => None,
        }
    }

    /// The first member named `key`, for an object.
    pub fn get(&self, key: &str) -> Option<&Json<'a>> {
        self.as_object()?
            .iter()
            .find(|m| m.key == key)
            .map(|m| &m.value)
    }

    /// What kind of value this is, for messages: "a string", "an object".
    pub fn kind_name(&self) -> &'static str {
        match &self.value {
            Value::Null => "`null`",
            Value::Bool(_) => "a boolean",
            Value::Number(_) => "a number",
            Value::String(_) => "a string",
            Value::Array(_) => "an array",
            Value::Object(_) => "an object",
        }
    }

    /// The span of a string's text without its quotes; the whole span for
    /// other values.
    pub fn text_span(&self) -> Span {
        match self.value {
            Value::String(_) => inner(self.span),
            _ => self.span,
        }
    }
}

/// A string value's span without its quotes.
fn inner(span: Span) -> Span {
    if span.len() >= 2 {
        Span {
            file: span.file,
            start: span.start + 1,
            end: span.end - 1,
        }
    } else {
        span
    }
}

/// The byte offset in the source of byte `decoded` of a string's decoded
/// text, given the string value's span (quotes included). For a string
/// without escapes this is a sum; with escapes it rescans the source text.
pub fn source_offset(text: &str, span: Span, decoded: usize) -> usize {
    let start = span.start as usize + 1;
    let end = (span.end as usize).saturating_sub(1).max(start);
    let raw = text.get(start..end).unwrap_or("");
    if !raw.contains('\\') {
        return start + decoded.min(raw.len());
    }
    let bytes = raw.as_bytes();
    let mut i = 0; // in raw
    let mut d = 0; // in decoded
    while i < bytes.len() && d < decoded {
        match bytes.get(i) {
            Some(b'\\') => {
                let (len, out) = match bytes.get(i + 1) {
                    Some(b'u') => {
                        let c = raw
                            .get(i + 2..i + 6)
                            .and_then(|h| u32::from_str_radix(h, 16).ok());
                        match c {
                            Some(0xD800..=0xDBFF) if raw.get(i + 6..i + 8) == Some("\\u") => {
                                (12, 4)
                            }
                            Some(c) => (6, char::from_u32(c).map(char::len_utf8).unwrap_or(3)),
                            None => (2, 1),
                        }
                    }
                    _ => (2, 1),
                };
                i += len;
                d += out;
            }
            Some(_) => {
                i += 1;
                d += 1;
            }
            None => break,
        }
    }
    start + i.min(bytes.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::FileId;

    fn ok(text: &str) -> Json<'_> {
        match parse(FileId(0), text) {
            Ok(v) => v,
            Err(e) => panic!("{text}: {e:?}"),
        }
    }

    #[test]
    fn borrowed_and_owned_strings() {
        let v = ok(r#"["abc", "a\nb"]"#);
        let items = v.as_array().unwrap_or(&[]);
        assert!(matches!(
            &items[0].value,
            Value::String(Cow::Borrowed("abc"))
        ));
        assert!(matches!(&items[1].value, Value::String(Cow::Owned(s)) if s == "a\nb"));
    }

    /// The string reader looks at the first bytes one by one and asks
    /// memchr for the rest: an escape, a raw control character or the
    /// closing quote is found on either side of that boundary.
    #[test]
    fn string_runs_end_on_both_sides_of_the_short_scan() {
        for at in [0, 1, 30, 31, 32, 33, 64, 200] {
            let plain = "x".repeat(at);
            let borrowed = format!("\"{plain}\"");
            assert!(
                matches!(&ok(&borrowed).value, Value::String(Cow::Borrowed(s)) if *s == plain),
                "{at}"
            );
            let escaped = format!("\"{plain}\\ty\"");
            assert!(
                matches!(&ok(&escaped).value, Value::String(Cow::Owned(s)) if *s == format!("{plain}\ty")),
                "{at}"
            );
            let raw = format!("\"{plain}\u{1}y\"");
            let e = match parse(FileId(0), &raw) {
                Ok(v) => panic!("{at}: a raw control character was read: {v:?}"),
                Err(e) => e,
            };
            assert_eq!(e.span.start as usize, 1 + at, "{at}: {e:?}");
        }
    }

    /// Each streamed element is the element a whole parse reads, whatever
    /// shapes came before it (wide, nested, empty, scalar), and what
    /// follows the streamed array is read as a whole parse reads it.
    #[test]
    fn streamed_elements_are_the_whole_parse() {
        let mut items = Vec::new();
        for i in 0..200 {
            let wide: Vec<String> = (0..i % 40)
                .map(|k| format!("\"k{k}\": [{k}, {{}}]"))
                .collect();
            let deep = format!("{}{i}{}", "[".repeat(i % 7), "]".repeat(i % 7));
            items.push(match i % 5 {
                0 => format!("{{{}}}", wide.join(", ")),
                1 => format!("[{deep}, {{\"a\": {deep}}}, [], {{}}]"),
                2 => format!(
                    "{{\"x\": {{\"y\": [{}]}}}}",
                    (0..i).map(|k| k.to_string()).collect::<Vec<_>>().join(", ")
                ),
                3 => "[]".to_string(),
                _ => format!("\"s{i}\""),
            });
        }
        let text = format!(
            "{{\"steps\": [{}], \"after\": [[1], {{\"b\": 2}}]}}",
            items.join(", ")
        );
        let whole = ok(&text);
        let mut seen = Vec::new();
        let mut each = |item: Json<'_>| seen.push(format!("{item:?}"));
        let mut stream = Stream {
            key: "steps",
            each: &mut each,
            streamed: false,
        };
        let root = parse_streaming(FileId(0), &text, &mut stream).unwrap();
        assert!(stream.streamed);
        let expected: Vec<String> = whole
            .get("steps")
            .and_then(Json::as_array)
            .unwrap_or(&[])
            .iter()
            .map(|v| format!("{v:?}"))
            .collect();
        assert_eq!(seen.len(), 200);
        assert_eq!(seen, expected);
        assert_eq!(
            format!("{:?}", root.get("after")),
            format!("{:?}", whole.get("after"))
        );
    }

    #[test]
    fn source_offsets_through_escapes() {
        let text = r#""a\u00e9\n$x""#;
        let v = ok(text);
        // decoded: a (1) é (2) \n (1) $ x
        let off = source_offset(text, v.span, 4);
        assert_eq!(&text[off..off + 2], "$x");
        let text2 = r#""\ud83d\ude00$""#;
        let v2 = ok(text2);
        let off2 = source_offset(text2, v2.span, 4);
        assert_eq!(&text2[off2..off2 + 1], "$");
    }
}
