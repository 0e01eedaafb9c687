//! The recursive descent over the bytes of a JSON document: the entry points
//! ([`parse`], [`parse_streaming`]), the parser's state and errors, the
//! document and the dispatch on a value's first byte, and the limits on
//! input size. The rest is read in the submodules of `parser/`: numbers with
//! their exact text (`number.rs`), strings and their escapes (`string.rs`),
//! arrays and objects, the streamed array among them (`containers.rs`).

mod containers;
mod number;
mod string;

use super::{Json, Member, Value};
use crate::diagnostics::{Code, Diagnostic};
use crate::limits;
use crate::source::{FileId, Span};
use number::numberish;

/// Parses one JSON document. Never panics; the first error ends the parse.
pub fn parse(file: FileId, text: &str) -> Result<Json<'_>, Box<Diagnostic>> {
    parse_with(file, text, None)
}

/// Where [`parse_streaming`] hands over the elements of one array.
pub struct Stream<'k, 's, 'a> {
    /// The key of the root object's member whose array is streamed: its
    /// first member of that name, when its value is an array.
    pub key: &'k str,
    /// Called with each element, in order, as soon as it is read; the
    /// element is dropped when it returns.
    pub each: &'s mut dyn FnMut(Json<'a>),
    /// Whether an array was streamed: set by the parser.
    pub streamed: bool,
}

/// Parses one JSON document as [`parse`] does, except that the elements of
/// the array `stream.key` of the root object are handed to `stream.each`
/// one at a time instead of being kept: in the returned tree that member's
/// value is an empty array with the span of the whole array. A large plan's
/// steps are read one step's tree at a time, so the value tree of the
/// whole document is never in memory. When the parse fails, the elements
/// handed over so far belong to a document that is not JSON.
pub fn parse_streaming<'a>(
    file: FileId,
    text: &'a str,
    stream: &mut Stream<'_, '_, 'a>,
) -> Result<Json<'a>, Box<Diagnostic>> {
    parse_with(file, text, Some(stream))
}

/// The value at `span` of `text`, a whole document, read again with the
/// document's spans: `depth` is the number of containers around it. For
/// a plan's step read a second time (`json_plan::read_step_again`).
/// `None` unless it reads without an error and ends where `span` does.
pub fn parse_value_at(text: &str, span: Span, depth: usize) -> Option<Json<'_>> {
    let (start, end) = (span.start as usize, span.end as usize);
    if end > text.len() || start >= end {
        return None;
    }
    let mut p = Parser {
        text,
        bytes: text.as_bytes(),
        pos: start,
        file: span.file,
        items: Vec::new(),
        members: Vec::new(),
        stream: None,
    };
    let v = p.value(depth).ok()?;
    (p.pos == end && v.span == span).then_some(v)
}

fn parse_with<'a>(
    file: FileId,
    text: &'a str,
    stream: Option<&mut Stream<'_, '_, 'a>>,
) -> Result<Json<'a>, Box<Diagnostic>> {
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
        stream,
    };
    if text.starts_with('\u{feff}') {
        p.pos = '\u{feff}'.len_utf8();
    }
    p.document().map_err(|e| Box::new(e.into_diagnostic()))
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

struct Parser<'a, 'k, 's, 'r> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    file: FileId,
    /// Elements and members of the containers being read, innermost last:
    /// each container is moved out into a vector of its exact size when it
    /// closes, one allocation per container.
    items: Vec<Json<'a>>,
    members: Vec<Member<'a>>,
    /// The array to hand over element by element, until its member has
    /// been met (then `None`).
    stream: Option<&'r mut Stream<'k, 's, 'a>>,
}

impl<'a> Parser<'a, '_, '_, '_> {
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
}
