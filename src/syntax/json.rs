//! A span-preserving JSON parser (RFC 8259), and the shape-reading helpers
//! the JSON readers of plans, catalogues and policies share.
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

use std::borrow::Cow;

use super::ast::{Item, Module};
use crate::diagnostics::{Code, Diagnostic};
use crate::limits;
use crate::source::{FileId, PointerTable, Span};
use crate::suggest;

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

/// Parses one JSON document. Never panics; the first error ends the parse.
pub fn parse(file: FileId, text: &str) -> Result<Json<'_>, Box<Diagnostic>> {
    if text.len() > limits::MAX_INPUT_BYTES {
        return Err(Box::new(
            Diagnostic::new(
                Code::E0003,
                Span::point(file, limits::MAX_INPUT_BYTES),
                format!(
                    "input is {} bytes, over the limit of {} bytes",
                    text.len(),
                    limits::MAX_INPUT_BYTES
                ),
            )
            .with_label("the limit is reached here"),
        ));
    }
    let mut p = Parser {
        text,
        bytes: text.as_bytes(),
        pos: 0,
        file,
        items: Vec::new(),
        members: Vec::new(),
    };
    if text.starts_with('\u{feff}') {
        p.pos = '\u{feff}'.len_utf8();
    }
    p.document().map_err(|e| Box::new(e.into_diagnostic()))
}

/// The pointer table of a document (see [`PointerTable`]): every value with
/// its span. For an object member the span runs from the key to the end of
/// the value, so a diagnostic on a key (an unknown argument, say) gets the
/// member's pointer.
pub fn pointers(source: &str, root: &Json<'_>) -> PointerTable {
    let mut table = PointerTable::default();
    let at = table.root(root.span);
    walk_pointers(source, root, at, &mut table);
    table
}

/// Bounded recursion: the depth is capped by the parser.
fn walk_pointers(source: &str, v: &Json<'_>, at: u32, table: &mut PointerTable) {
    match &v.value {
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                let child = table.item(item.span, at, i);
                walk_pointers(source, item, child, table);
            }
        }
        Value::Object(members) => {
            for m in members {
                let child = table.member(m.span(), at, &m.key, m.key_text_span(), source);
                walk_pointers(source, &m.value, child, table);
            }
        }
        _ => {}
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

/// A parse error before it becomes a [`Diagnostic`]: small, so that the
/// parser's `Result`s stay cheap on the happy path.
struct Error {
    code: Code,
    span: Span,
    message: String,
    label: &'static str,
    help: Option<String>,
    secondary: Option<(Span, &'static str)>,
}

impl Error {
    fn into_diagnostic(self) -> Diagnostic {
        let mut d = Diagnostic::new(self.code, self.span, self.message);
        if !self.label.is_empty() {
            d = d.with_label(self.label);
        }
        if let Some(h) = self.help {
            d = d.with_help(h);
        }
        if let Some((s, m)) = self.secondary {
            d = d.with_secondary(s, m);
        }
        d
    }
}

type PResult<T> = Result<T, Box<Error>>;

struct Parser<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    file: FileId,
    /// Elements and members of the containers being read, innermost last:
    /// each container is moved out into a vector of its exact size when it
    /// closes, one allocation per container.
    items: Vec<Json<'a>>,
    members: Vec<Member<'a>>,
}

/// What may follow a number without being part of it: a run of these after
/// a number is reported as one malformed number (`12abc`, `1.2.3`).
fn numberish(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'.' | b'+' | b'-' | b'_')
}

impl<'a> Parser<'a> {
    fn span(&self, start: usize, end: usize) -> Span {
        Span::new(self.file, start, end)
    }

    fn err(&self, code: Code, start: usize, end: usize, message: impl Into<String>) -> Box<Error> {
        Box::new(Error {
            code,
            span: self.span(start, end),
            message: message.into(),
            label: "",
            help: None,
            secondary: None,
        })
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.pos += 1;
        }
    }

    /// The byte length of the character at `at` (1 at the end).
    fn char_len(&self, at: usize) -> usize {
        self.text
            .get(at..)
            .and_then(|s| s.chars().next())
            .map(char::len_utf8)
            .unwrap_or(1)
    }

    /// How the character at the cursor reads in a message.
    fn describe_here(&self) -> String {
        self.describe_at(self.pos)
    }

    fn describe_at(&self, at: usize) -> String {
        match self.text.get(at..).and_then(|s| s.chars().next()) {
            None => "the end of the input".to_string(),
            Some(c) if c.is_control() || c == '\u{feff}' => {
                format!("the character U+{:04X}", c as u32)
            }
            Some(c) => format!("`{c}`"),
        }
    }

    fn document(&mut self) -> PResult<Json<'a>> {
        self.skip_ws();
        if self.pos >= self.bytes.len() {
            let mut e = self.err(
                Code::E0001,
                self.pos,
                self.pos,
                "expected a JSON value, found the end of the input",
            );
            e.label = "the document is empty";
            return Err(e);
        }
        let v = self.value(0)?;
        self.skip_ws();
        if self.pos < self.bytes.len() {
            let end = self.pos + self.char_len(self.pos);
            let mut e = self.err(
                Code::E0001,
                self.pos,
                end,
                format!("unexpected {} after the JSON value", self.describe_here()),
            );
            e.label = "the document should end here";
            e.help = Some("a JSON document holds exactly one value".to_string());
            return Err(e);
        }
        Ok(v)
    }

    /// Reads one value at the cursor (whitespace already skipped). `depth`
    /// is the number of containers around it.
    fn value(&mut self, depth: usize) -> PResult<Json<'a>> {
        let start = self.pos;
        match self.peek() {
            Some(b'{') => self.object(depth + 1),
            Some(b'[') => self.array(depth + 1),
            Some(b'"') => {
                let s = self.string()?;
                Ok(Json {
                    value: Value::String(s),
                    span: self.span(start, self.pos),
                })
            }
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(b't') if self.bytes.get(start..start + 4) == Some(b"true") => {
                self.word(4, Value::Bool(true))
            }
            Some(b'f') if self.bytes.get(start..start + 5) == Some(b"false") => {
                self.word(5, Value::Bool(false))
            }
            Some(b'n') if self.bytes.get(start..start + 4) == Some(b"null") => {
                self.word(4, Value::Null)
            }
            _ => Err(self.unexpected_value()),
        }
    }

    fn word(&mut self, len: usize, value: Value<'a>) -> PResult<Json<'a>> {
        let start = self.pos;
        self.pos += len;
        if let Some(b) = self.peek()
            && (b.is_ascii_alphanumeric() || b == b'_')
        {
            return Err(self.unexpected_value_at(start));
        }
        Ok(Json {
            value,
            span: self.span(start, self.pos),
        })
    }

    fn unexpected_value(&self) -> Box<Error> {
        self.unexpected_value_at(self.pos)
    }

    /// The error for something that cannot start a value, with help for the
    /// usual non-JSON habits (single quotes, comments, NaN, Python's `True`).
    fn unexpected_value_at(&self, start: usize) -> Box<Error> {
        let rest = self.bytes.get(start..).unwrap_or(&[]);
        let Some(&b) = rest.first() else {
            return self.err(
                Code::E0001,
                start,
                start,
                "expected a JSON value, found the end of the input",
            );
        };
        if b.is_ascii_alphabetic() || b == b'_' {
            let len = rest
                .iter()
                .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
                .count();
            let word = self.text.get(start..start + len).unwrap_or("");
            let mut e = self.err(
                Code::E0001,
                start,
                start + len,
                format!("expected a JSON value, found `{word}`"),
            );
            e.help = Some(match word.to_ascii_lowercase().as_str() {
                "true" | "false" | "null" => format!(
                    "JSON literals are lowercase: did you mean `{}`?",
                    word.to_ascii_lowercase()
                ),
                "none" | "nil" | "undefined" => "did you mean `null`?".to_string(),
                "nan" | "infinity" | "inf" => {
                    "JSON has no NaN or infinity: write a number or a string".to_string()
                }
                _ => "strings are written in double quotes".to_string(),
            });
            return e;
        }
        if b == b'+' || b == b'.' {
            let len = rest.iter().take_while(|b| numberish(**b)).count();
            let mut e = self.err(
                Code::E0002,
                start,
                start + len,
                if b == b'+' {
                    "a JSON number cannot start with `+`"
                } else {
                    "a JSON number cannot start with `.`"
                },
            );
            e.help = Some(if b == b'+' {
                "write the number without the `+`".to_string()
            } else {
                "write a digit before the decimal point: `0.5`".to_string()
            });
            return e;
        }
        let len = self.char_len(start);
        let mut e = self.err(
            Code::E0001,
            start,
            start + len,
            format!("expected a JSON value, found {}", self.describe_at(start)),
        );
        match b {
            b'\'' => e.help = Some("JSON strings are written in double quotes".to_string()),
            b'/' => e.help = Some("JSON has no comments".to_string()),
            b']' | b'}' => e.label = "a value is missing here",
            _ => {}
        }
        e
    }

    fn number(&mut self) -> PResult<Json<'a>> {
        let start = self.pos;
        let b = self.bytes;
        let mut i = start;
        if b.get(i) == Some(&b'-') {
            i += 1;
        }
        match b.get(i) {
            Some(b'0') => {
                i += 1;
                if let Some(b'0'..=b'9') = b.get(i) {
                    let end = self.number_run_end(i);
                    let mut e = self.err(
                        Code::E0002,
                        start,
                        end,
                        "a JSON number cannot have a leading zero",
                    );
                    e.help = Some(
                        "remove the leading zeros, or write the value as a string".to_string(),
                    );
                    return Err(e);
                }
            }
            Some(b'1'..=b'9') => {
                while let Some(b'0'..=b'9') = b.get(i) {
                    i += 1;
                }
            }
            _ => {
                let end = self.number_run_end(i);
                return Err(self.err(Code::E0002, start, end, "expected a digit after `-`"));
            }
        }
        if b.get(i) == Some(&b'.') {
            i += 1;
            let digits = i;
            while let Some(b'0'..=b'9') = b.get(i) {
                i += 1;
            }
            if i == digits {
                let end = self.number_run_end(i);
                let mut e = self.err(
                    Code::E0002,
                    start,
                    end,
                    "expected a digit after the decimal point",
                );
                e.help = Some("write `1.0` or `1`, not `1.`".to_string());
                return Err(e);
            }
        }
        if let Some(b'e' | b'E') = b.get(i) {
            i += 1;
            if let Some(b'+' | b'-') = b.get(i) {
                i += 1;
            }
            let digits = i;
            while let Some(b'0'..=b'9') = b.get(i) {
                i += 1;
            }
            if i == digits {
                let end = self.number_run_end(i);
                return Err(self.err(Code::E0002, start, end, "expected a digit in the exponent"));
            }
        }
        if let Some(&c) = b.get(i)
            && numberish(c)
        {
            let end = self.number_run_end(i);
            let text = self.text.get(start..end).unwrap_or("");
            return Err(self.err(Code::E0002, start, end, format!("invalid number `{text}`")));
        }
        self.pos = i;
        Ok(Json {
            value: Value::Number(self.text.get(start..i).unwrap_or("0")),
            span: self.span(start, i),
        })
    }

    fn number_run_end(&self, from: usize) -> usize {
        let mut i = from;
        while let Some(&c) = self.bytes.get(i) {
            if !numberish(c) {
                break;
            }
            i += 1;
        }
        i
    }

    /// Reads a string at the cursor (on its opening quote), leaving the
    /// cursor after the closing quote.
    fn string(&mut self) -> PResult<Cow<'a, str>> {
        let open = self.pos;
        let start = open + 1;
        let b = self.bytes;
        let mut i = start;
        // The fast path: no escapes, borrow the text.
        while let Some(&c) = b.get(i) {
            if c == b'"' || c == b'\\' || c < 0x20 {
                break;
            }
            i += 1;
        }
        if b.get(i) == Some(&b'"') {
            if i - start > limits::MAX_STRING_BYTES {
                return Err(self.string_too_long(open, i + 1));
            }
            self.pos = i + 1;
            return Ok(Cow::Borrowed(self.text.get(start..i).unwrap_or("")));
        }
        let mut out = String::with_capacity((i - start) + 16);
        out.push_str(self.text.get(start..i).unwrap_or(""));
        loop {
            if i - start > limits::MAX_STRING_BYTES {
                let end = self.string_end(i);
                return Err(self.string_too_long(open, end));
            }
            match b.get(i) {
                None => {
                    let mut e = self.err(Code::E0002, open, i, "unterminated string");
                    e.label = "this string has no closing quote";
                    return Err(e);
                }
                Some(b'"') => {
                    self.pos = i + 1;
                    return Ok(Cow::Owned(out));
                }
                Some(b'\\') => {
                    i = self.escape(i, &mut out)?;
                }
                Some(&c) if c < 0x20 => {
                    // A raw line break most often means the closing quote is
                    // missing; say so when no quote follows on that line.
                    let mut e = self.err(
                        Code::E0002,
                        i,
                        i + 1,
                        format!("control character U+{c:04X} in a string"),
                    );
                    e.help = Some(match c {
                        b'\n' => {
                            "write a line break as `\\n`, or close the string with `\"`".to_string()
                        }
                        b'\t' => "write a tab as `\\t`".to_string(),
                        b'\r' => "write a carriage return as `\\r`".to_string(),
                        _ => format!("write it as `\\u{c:04x}`"),
                    });
                    e.secondary = Some((self.span(open, open + 1), "the string starts here"));
                    return Err(e);
                }
                Some(_) => {
                    let seg = i;
                    let stop = (start + limits::MAX_STRING_BYTES + 1).min(b.len());
                    while i < stop {
                        match b.get(i) {
                            Some(&c) if c != b'"' && c != b'\\' && c >= 0x20 => i += 1,
                            _ => break,
                        }
                    }
                    out.push_str(self.text.get(seg..i).unwrap_or(""));
                }
            }
        }
    }

    /// Where the string that contains byte `from` ends (after its closing
    /// quote, or at the end of the input), for the span of an E0003.
    fn string_end(&self, from: usize) -> usize {
        let mut i = from;
        while let Some(&c) = self.bytes.get(i) {
            match c {
                b'"' => return i + 1,
                b'\\' => i += 2,
                _ => i += 1,
            }
        }
        self.bytes.len()
    }

    fn string_too_long(&self, open: usize, end: usize) -> Box<Error> {
        self.err(
            Code::E0003,
            open,
            end,
            format!(
                "string of {} bytes, over the limit of {} bytes",
                end.saturating_sub(open + 2),
                limits::MAX_STRING_BYTES
            ),
        )
    }

    /// Decodes the escape at `at` (on the backslash) into `out`; returns the
    /// index after it.
    fn escape(&self, at: usize, out: &mut String) -> PResult<usize> {
        let c = match self.bytes.get(at + 1) {
            Some(b'"') => '"',
            Some(b'\\') => '\\',
            Some(b'/') => '/',
            Some(b'b') => '\u{8}',
            Some(b'f') => '\u{c}',
            Some(b'n') => '\n',
            Some(b'r') => '\r',
            Some(b't') => '\t',
            Some(b'u') => {
                let hi = self.hex4(at)?;
                if (0xDC00..=0xDFFF).contains(&hi) {
                    return Err(self.lone_surrogate(
                        at,
                        hi,
                        "a low surrogate with no high surrogate before it",
                    ));
                }
                if (0xD800..=0xDBFF).contains(&hi) {
                    let next = at + 6;
                    if self.bytes.get(next..next + 2) != Some(b"\\u") {
                        return Err(self.lone_surrogate(
                            at,
                            hi,
                            "a high surrogate must be followed by a `\\u` low surrogate",
                        ));
                    }
                    let lo = self.hex4(next)?;
                    if !(0xDC00..=0xDFFF).contains(&lo) {
                        return Err(self.lone_surrogate(
                            at,
                            hi,
                            "a high surrogate must be followed by a `\\u` low surrogate",
                        ));
                    }
                    let cp = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
                    out.push(char::from_u32(cp).unwrap_or('\u{fffd}'));
                    return Ok(at + 12);
                }
                out.push(char::from_u32(hi).unwrap_or('\u{fffd}'));
                return Ok(at + 6);
            }
            None => {
                let mut e = self.err(Code::E0002, at, at + 1, "unterminated string");
                e.label = "the input ends inside an escape";
                return Err(e);
            }
            Some(_) => {
                let end = at + 1 + self.char_len(at + 1);
                let esc = self.text.get(at..end).unwrap_or("\\");
                let mut e = self.err(
                    Code::E0002,
                    at,
                    end,
                    format!("invalid escape `{esc}` in a string"),
                );
                e.help = Some(
                    "the escapes are `\\\"`, `\\\\`, `\\/`, `\\b`, `\\f`, `\\n`, `\\r`, `\\t` and `\\uXXXX`".to_string(),
                );
                return Err(e);
            }
        };
        out.push(c);
        Ok(at + 2)
    }

    /// The four hex digits of the `\u` escape at `at`.
    fn hex4(&self, at: usize) -> PResult<u32> {
        let mut v = 0u32;
        for k in 0..4 {
            let d = self
                .bytes
                .get(at + 2 + k)
                .and_then(|&c| (c as char).to_digit(16));
            match d {
                Some(d) => v = v * 16 + d,
                None => {
                    let mut e = self.err(
                        Code::E0002,
                        at,
                        at + 2 + k,
                        "`\\u` must be followed by four hexadecimal digits",
                    );
                    e.help = Some(
                        "write a code point as `\\u00e9`, and one above U+FFFF as a surrogate pair"
                            .to_string(),
                    );
                    return Err(e);
                }
            }
        }
        Ok(v)
    }

    fn lone_surrogate(&self, at: usize, cp: u32, why: &str) -> Box<Error> {
        let mut e = self.err(
            Code::E0002,
            at,
            at + 6,
            format!("unpaired surrogate `\\u{cp:04x}` in a string"),
        );
        e.help = Some(why.to_string());
        e
    }

    fn too_deep(&self, open: usize) -> Box<Error> {
        let mut e = self.err(
            Code::E0003,
            open,
            open + 1,
            format!(
                "nesting deeper than {} arrays and objects",
                limits::MAX_DEPTH
            ),
        );
        e.label = "too deep";
        e.help =
            Some("flatten the document: no plan, catalogue or policy needs this depth".to_string());
        e
    }

    /// Opens an array or object at `depth` (E0003 past the limit) and
    /// consumes its opening bracket; returns the span of the whole container
    /// when it is empty (`close` follows at once), else `None`.
    fn enter(&mut self, depth: usize, close: u8) -> PResult<Option<Span>> {
        let open = self.pos;
        if depth > limits::MAX_DEPTH {
            return Err(self.too_deep(open));
        }
        self.pos += 1;
        self.skip_ws();
        if self.peek() == Some(close) {
            self.pos += 1;
            return Ok(Some(self.span(open, self.pos)));
        }
        Ok(None)
    }

    fn array(&mut self, depth: usize) -> PResult<Json<'a>> {
        let open = self.pos;
        if let Some(span) = self.enter(depth, b']')? {
            return Ok(Json {
                value: Value::Array(Vec::new()),
                span,
            });
        }
        let base = self.items.len();
        loop {
            let item = self.value(depth)?;
            self.items.push(item);
            if self.after_item(open, b']')? {
                let items: Vec<Json<'a>> = self.items.drain(base..).collect();
                return Ok(Json {
                    value: Value::Array(items),
                    span: self.span(open, self.pos),
                });
            }
        }
    }

    /// After an element or a member: consumes a `,` (refusing a trailing
    /// one) and returns `false`, or consumes the closing `close` and
    /// returns `true`.
    fn after_item(&mut self, open: usize, close: u8) -> PResult<bool> {
        self.skip_ws();
        match self.peek() {
            Some(b',') => {
                let comma = self.pos;
                self.pos += 1;
                self.skip_ws();
                if self.peek() == Some(close) {
                    return Err(self.trailing_comma(comma));
                }
                Ok(false)
            }
            Some(c) if c == close => {
                self.pos += 1;
                Ok(true)
            }
            _ => Err(self.expected_after_item(open, close)),
        }
    }

    fn object(&mut self, depth: usize) -> PResult<Json<'a>> {
        let open = self.pos;
        if let Some(span) = self.enter(depth, b'}')? {
            return Ok(Json {
                value: Value::Object(Vec::new()),
                span,
            });
        }
        let base = self.members.len();
        loop {
            let key_start = self.pos;
            if self.peek() != Some(b'"') {
                return Err(self.expected_key(open));
            }
            let key = self.string()?;
            let key_span = self.span(key_start, self.pos);
            self.skip_ws();
            if self.peek() != Some(b':') {
                let end = self.pos
                    + if self.pos < self.bytes.len() {
                        self.char_len(self.pos)
                    } else {
                        0
                    };
                let mut e = self.err(
                    Code::E0001,
                    self.pos,
                    end,
                    format!("expected `:` after the key, found {}", self.describe_here()),
                );
                e.secondary = Some((key_span, "this key"));
                return Err(e);
            }
            self.pos += 1;
            self.skip_ws();
            let value = self.value(depth)?;
            self.members.push(Member {
                key,
                key_span,
                value,
            });
            if self.after_item(open, b'}')? {
                let members: Vec<Member<'a>> = self.members.drain(base..).collect();
                return Ok(Json {
                    value: Value::Object(members),
                    span: self.span(open, self.pos),
                });
            }
        }
    }

    fn expected_key(&self, open: usize) -> Box<Error> {
        let here = self.pos;
        let end = here
            + if here < self.bytes.len() {
                self.char_len(here)
            } else {
                0
            };
        let mut e = self.err(
            Code::E0001,
            here,
            end,
            format!(
                "expected a key in double quotes, found {}",
                self.describe_here()
            ),
        );
        match self.peek() {
            None => {
                e.message = "unclosed object: expected a key or `}`".to_string();
                e.secondary = Some((self.span(open, open + 1), "the object starts here"));
            }
            Some(b'\'') => e.help = Some("JSON strings are written in double quotes".to_string()),
            Some(b'/') => e.help = Some("JSON has no comments".to_string()),
            Some(c) if c.is_ascii_alphabetic() || c == b'_' => {
                e.help = Some("object keys are strings: write them in double quotes".to_string())
            }
            _ => {}
        }
        e
    }

    fn trailing_comma(&self, comma: usize) -> Box<Error> {
        let mut e = self.err(Code::E0001, comma, comma + 1, "trailing comma");
        e.label = "no value follows this comma";
        e.help = Some("JSON allows no comma after the last element: remove it".to_string());
        e
    }

    /// The error after an element or member that is followed by neither `,`
    /// nor the closing bracket.
    fn expected_after_item(&self, open: usize, close: u8) -> Box<Error> {
        let (what, closer) = if close == b']' {
            ("array", "]")
        } else {
            ("object", "}")
        };
        if self.pos >= self.bytes.len() {
            let mut e = self.err(
                Code::E0001,
                self.pos,
                self.pos,
                format!("unclosed {what}: expected `,` or `{closer}`"),
            );
            e.secondary = Some((self.span(open, open + 1), "the unclosed bracket"));
            return e;
        }
        let end = self.pos + self.char_len(self.pos);
        let mut e = self.err(
            Code::E0001,
            self.pos,
            end,
            format!("expected `,` or `{closer}`, found {}", self.describe_here()),
        );
        match self.peek() {
            Some(b'/') => e.help = Some("JSON has no comments".to_string()),
            Some(b'"' | b'{' | b'[' | b'0'..=b'9' | b'-' | b't' | b'f' | b'n') => {
                e.help = Some("a comma is missing before this".to_string())
            }
            _ => {}
        }
        e
    }
}

// ------------------------------------------------------------------ entry points

/// What the JSON front end's entry points return: the tree, the diagnostics,
/// and the pointer table for `SourceFile::set_pointers` (empty when the text
/// is not JSON).
pub type JsonRead = (Module, Vec<Diagnostic>, PointerTable);

/// Parses `text` and reads the document with `read`, its diagnostics sorted
/// by position; a document that does not parse is one `Item::Error` and its
/// diagnostic.
pub fn read_with(
    file: FileId,
    text: &str,
    read: impl FnOnce(&str, &Json<'_>) -> (Module, Vec<Diagnostic>),
) -> JsonRead {
    match parse(file, text) {
        Ok(root) => {
            let (module, mut diags) = read(text, &root);
            crate::diagnostics::sort(&mut diags);
            let pointers = pointers(text, &root);
            (module, diags, pointers)
        }
        Err(d) => {
            let span = Span::new(file, 0, text.len());
            let module = Module {
                items: vec![Item::Error(span)],
            };
            (module, vec![*d], PointerTable::default())
        }
    }
}

/// Which of the three JSON documents a value is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    Plan,
    Catalog,
    Policy,
}

/// Tells the documents apart by their keys: a plan has `steps`; a catalogue
/// is an array, or has `tools` as an array, or `result.tools`; a policy has
/// `tools` as an object, or `actor`.
pub fn detect(root: &Json<'_>) -> Option<Shape> {
    if root.as_array().is_some() {
        return Some(Shape::Catalog);
    }
    root.as_object()?;
    if root.get("steps").is_some() {
        return Some(Shape::Plan);
    }
    match root.get("tools") {
        Some(t) if t.as_array().is_some() => return Some(Shape::Catalog),
        Some(t) if t.as_object().is_some() => return Some(Shape::Policy),
        _ => {}
    }
    if root.get("result").and_then(|r| r.get("tools")).is_some() {
        return Some(Shape::Catalog);
    }
    root.get("actor").is_some().then_some(Shape::Policy)
}

/// Reads a document of whichever shape [`detect`] finds; E0004 for none.
pub fn read_any(text: &str, root: &Json<'_>) -> (Module, Vec<Diagnostic>) {
    match detect(root) {
        Some(Shape::Plan) => super::json_plan::read_plan(text, root),
        Some(Shape::Catalog) => super::json_catalog::read_catalog(text, root),
        Some(Shape::Policy) => super::json_policy::read_policy(text, root),
        None => {
            let at = Span {
                end: root.span.start.saturating_add(1).min(root.span.end),
                ..root.span
            };
            let d = Diagnostic::new(Code::E0004, at, "not a plan, a tool catalogue or a policy")
                .with_label(format!("this is {}", root.kind_name()))
                .with_help(
                    "a plan has `steps`; a catalogue is an array of tools, or has `tools` as an \
                     array or `result.tools`; a policy has `actor`, or `tools` as an object",
                );
            let module = Module {
                items: vec![Item::Error(root.span)],
            };
            (module, vec![d])
        }
    }
}

// ------------------------------------------------------------------ shape reading

/// The state the plan, catalogue and policy readers share: the file, its
/// text (to map offsets inside strings) and the diagnostics so far.
pub(crate) struct Reader<'t> {
    pub text: &'t str,
    pub diags: Vec<Diagnostic>,
    /// The name of every step of the plan being read, and the index of the
    /// step being read, whose name is attached to every diagnostic reported
    /// meanwhile.
    pub step_names: Vec<String>,
    pub step: Option<usize>,
}

impl<'t> Reader<'t> {
    pub fn new(text: &'t str) -> Reader<'t> {
        Reader {
            text,
            diags: Vec::new(),
            step_names: Vec::new(),
            step: None,
        }
    }

    pub fn report(&mut self, mut d: Diagnostic) {
        if let Some(name) = self.step.and_then(|i| self.step_names.get(i))
            && d.step.is_none()
        {
            d = d.in_step(name.clone());
        }
        self.diags.push(d);
    }

    /// E0004: `value` is not what `what` (a key in backticks, or "a step")
    /// must be (`expected`, such as "a string").
    pub fn ill_typed(&mut self, what: &str, value: &Json<'_>, expected: &str) {
        self.report(
            Diagnostic::new(
                Code::E0004,
                value.span,
                format!("{what} must be {expected}, found {}", value.kind_name()),
            )
            .with_label(format!("expected {expected}"))
            .with_help(format!("write {expected} here, not {}", value.kind_name())),
        );
    }

    /// Reads an object's members against the keys a shape allows, reporting
    /// unknown keys (with the nearest allowed one) and duplicate keys. `what`
    /// names the object in messages ("a step"). Returns `None` (after an
    /// E0004) when `value` is not an object.
    pub fn fields<'v, 'a>(
        &mut self,
        value: &'v Json<'a>,
        what: &str,
        allowed: &'static [&'static str],
    ) -> Option<Fields<'v, 'a>> {
        self.read_fields(value, what, allowed, true)
    }

    /// [`Reader::fields`] for a document planc does not own (a tool
    /// catalogue): keys outside `allowed` are ignored, so that what a
    /// protocol adds next is read, not refused. Duplicate keys are still
    /// E0004.
    pub fn fields_open<'v, 'a>(
        &mut self,
        value: &'v Json<'a>,
        what: &str,
        allowed: &'static [&'static str],
    ) -> Option<Fields<'v, 'a>> {
        self.read_fields(value, what, allowed, false)
    }

    fn read_fields<'v, 'a>(
        &mut self,
        value: &'v Json<'a>,
        what: &str,
        allowed: &'static [&'static str],
        closed: bool,
    ) -> Option<Fields<'v, 'a>> {
        let Some(members) = value.as_object() else {
            self.ill_typed(what, value, "an object");
            return None;
        };
        let mut found: [Option<&'v Member<'a>>; MAX_SHAPE_KEYS] = [None; MAX_SHAPE_KEYS];
        for m in members {
            match allowed.iter().position(|k| *k == m.key) {
                Some(i) => match found.get_mut(i) {
                    Some(slot @ None) => *slot = Some(m),
                    Some(Some(first)) => {
                        let first = first.key_span;
                        self.duplicate_key(m, first);
                    }
                    None => {}
                },
                None if closed => self.unknown_key(m, what, allowed),
                None => {}
            }
        }
        Some(Fields {
            allowed,
            found,
            members,
        })
    }

    /// The members of a name-keyed object (arguments, bindings, properties,
    /// policy rules), each key once: a repeated key is E0004 and dropped.
    pub fn unique<'v, 'a>(
        &mut self,
        members: &'v [Member<'a>],
    ) -> impl Iterator<Item = &'v Member<'a>> + use<'v, 'a> {
        let has_duplicates = if members.len() <= 16 {
            members.iter().enumerate().any(|(i, m)| {
                members
                    .get(..i)
                    .is_some_and(|before| before.iter().any(|o| o.key == m.key))
            })
        } else {
            let mut seen = std::collections::HashSet::with_capacity(members.len());
            !members.iter().all(|m| seen.insert(&*m.key))
        };
        let keep = has_duplicates.then(|| {
            let mut first: std::collections::HashMap<&str, Span> = std::collections::HashMap::new();
            members
                .iter()
                .map(|m| match first.get(&*m.key) {
                    Some(at) => {
                        let at = *at;
                        self.duplicate_key(m, at);
                        false
                    }
                    None => {
                        first.insert(&m.key, m.key_span);
                        true
                    }
                })
                .collect::<Vec<bool>>()
        });
        members
            .iter()
            .enumerate()
            .filter(move |(i, _)| {
                keep.as_ref()
                    .is_none_or(|k| k.get(*i).copied().unwrap_or(true))
            })
            .map(|(_, m)| m)
    }

    pub fn duplicate_key(&mut self, m: &Member<'_>, first: Span) {
        self.report(
            Diagnostic::new(
                Code::E0004,
                m.key_span,
                format!("duplicate key `{}`", m.key),
            )
            .with_label("duplicate key")
            .with_secondary(first, "first written here")
            .with_help("JSON readers disagree on which of two equal keys wins: keep one"),
        );
    }

    pub fn unknown_key(&mut self, m: &Member<'_>, what: &str, allowed: &[&str]) {
        let near = suggest::nearest(&m.key, allowed.iter().copied());
        let mut d = Diagnostic::new(
            Code::E0004,
            m.key_span,
            format!("unknown key `{}` in {what}", m.key),
        )
        .with_label("unknown key");
        match suggest::did_you_mean(&near) {
            Some(help) => d = d.with_help(help),
            None => {
                let list: Vec<String> = allowed.iter().map(|k| format!("`{k}`")).collect();
                d = d.with_help(format!("the keys of {what} are {}", list.join(", ")));
            }
        }
        if let [one] = near.as_slice() {
            d = d.with_fix(format!("replace with `{one}`"), m.key_text_span(), *one);
        }
        self.report(d);
    }

    /// E0004 for a key a shape requires, at the opening brace of `object`.
    /// Nothing when an unknown key of the same object was already
    /// reported with `key` as its suggestion (`"tol"`): one mistake, one
    /// message.
    pub fn missing_key(&mut self, object: Span, key: &str, what: &str) {
        let suggested = self.diags.iter().any(|d| {
            d.span.file == object.file
                && d.span.start >= object.start
                && d.span.end <= object.end
                && d.message.starts_with("unknown key")
                && d.fixes.iter().any(|f| f.replacement == key)
        });
        if suggested {
            return;
        }
        let at = Span {
            end: object.start.saturating_add(1).min(object.end),
            ..object
        };
        self.report(
            Diagnostic::new(Code::E0004, at, format!("missing key `{key}` in {what}"))
                .with_label(format!("{what} without `{key}`"))
                .with_help(format!("add `\"{key}\": …` to {what}: it is required")),
        );
    }

    /// A string value, or an E0004.
    pub fn string<'v>(&mut self, key: &str, value: &'v Json<'_>) -> Option<&'v str> {
        match &value.value {
            Value::String(s) => Some(s),
            _ => {
                self.ill_typed(&format!("`{key}`"), value, "a string");
                None
            }
        }
    }

    /// A non-negative integer that fits 64 bits, or an E0004.
    pub fn count(&mut self, key: &str, value: &Json<'_>) -> Option<u64> {
        if let Value::Number(n) = value.value
            && let Ok(v) = n.parse::<u64>()
        {
            return Some(v);
        }
        self.ill_typed(&format!("`{key}`"), value, "a non-negative integer");
        None
    }

    pub fn boolean(&mut self, key: &str, value: &Json<'_>) -> Option<bool> {
        match value.value {
            Value::Bool(b) => Some(b),
            _ => {
                self.ill_typed(&format!("`{key}`"), value, "`true` or `false`");
                None
            }
        }
    }

    /// The source span of bytes `a..b` of a string value's decoded text.
    pub fn sub_span(&self, value: &Json<'_>, a: usize, b: usize) -> Span {
        if let Value::String(Cow::Borrowed(_)) = value.value {
            // No escapes: the decoded text is the source text.
            let start = value.span.start as usize + 1;
            return Span::new(value.span.file, start + a, start + b);
        }
        let start = source_offset(self.text, value.span, a);
        let end = source_offset(self.text, value.span, b);
        Span::new(value.span.file, start, end)
    }
}

/// The members of an object, looked up by the keys its shape allows.
pub(crate) struct Fields<'v, 'a> {
    allowed: &'static [&'static str],
    found: [Option<&'v Member<'a>>; MAX_SHAPE_KEYS],
    members: &'v [Member<'a>],
}

/// The most keys one shape allows (a step has ten).
const MAX_SHAPE_KEYS: usize = 16;

impl<'v, 'a> Fields<'v, 'a> {
    pub fn member(&self, key: &str) -> Option<&'v Member<'a>> {
        let i = self.allowed.iter().position(|k| *k == key)?;
        self.found.get(i).copied().flatten()
    }

    pub fn get(&self, key: &str) -> Option<&'v Json<'a>> {
        self.member(key).map(|m| &m.value)
    }

    /// The members read (allowed, first of their key), in source order.
    pub fn in_order(&self) -> impl Iterator<Item = &'v Member<'a>> + use<'v, 'a> {
        let found = self.found;
        self.members
            .iter()
            .filter(move |m| found.iter().flatten().any(|f| std::ptr::eq(*f, *m)))
    }
}

/// Whether `s` is an identifier of the plan language: a letter or `_`, then
/// letters, digits and `_`.
pub fn is_ident(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_fit_the_key_table() {
        use super::super::{json_catalog, json_plan, json_policy};
        let most = [json_plan::SHAPES, json_catalog::SHAPES, json_policy::SHAPES]
            .iter()
            .flat_map(|s| s.iter())
            .map(|k| k.len())
            .max();
        assert!(most.unwrap_or(0) <= MAX_SHAPE_KEYS);
    }

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

    #[test]
    fn pointer_tokens_escape() {
        let text = r#"{"a/b": {"m~n": [0]}}"#;
        let v = ok(text);
        let p: Vec<String> = pointers(text, &v)
            .all(text)
            .into_iter()
            .map(|(_, p)| p)
            .collect();
        assert_eq!(p, vec!["", "/a~1b", "/a~1b/m~0n", "/a~1b/m~0n/0"]);
    }
}
