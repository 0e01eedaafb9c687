//! The recursive descent over the bytes of a JSON document: values, exact
//! number text, string escapes, the limits, and one error per document.

use std::borrow::Cow;

use super::{Json, Member, Value};

/// How many bytes of a string are looked at one by one before memchr is
/// asked for the rest (`Parser::string`).
const SHORT_STRING: usize = 32;

/// The bytes that end a string's plain run: its closing quote, a backslash
/// (an escape follows) and the control characters JSON does not allow raw.
// Indexed while the constant is evaluated: an index out of range fails the
// build, it cannot panic at run time.
#[allow(clippy::indexing_slicing)]
static ENDS_RUN: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = 0;
    while c < 256 {
        t[c] = is_control(c as u8);
        c += 1;
    }
    t[b'"' as usize] = true;
    t[b'\\' as usize] = true;
    t
};

/// A control character, which JSON allows in a string only escaped.
const fn is_control(c: u8) -> bool {
    c < 0x20
}

fn ends_run(c: u8) -> bool {
    ENDS_RUN.get(usize::from(c)).copied().unwrap_or(true)
}
use crate::diagnostics::{Code, Diagnostic};
use crate::limits;
use crate::source::{FileId, Span};

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

/// What may follow a number without being part of it: a run of these after
/// a number is reported as one malformed number (`12abc`, `1.2.3`).
fn numberish(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'.' | b'+' | b'-' | b'_')
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
        // The fast path: no escapes, borrow the text. `i` is the first byte
        // that ends the run (a quote, a backslash or a control character).
        // Most strings of a plan are short names and paths: their first
        // bytes are looked at one by one, with a table, because memchr's
        // set-up costs more than such a string. Past them, the quote or
        // backslash is found a word at a time, and the text before it is
        // checked for control characters without a branch per byte.
        let rest = b.get(start..).unwrap_or(&[]);
        let head = rest.get(..SHORT_STRING).unwrap_or(rest);
        let mut i = start
            + match head.iter().position(|&c| ends_run(c)) {
                Some(k) => k,
                None => {
                    // The head has no control character: only the tail
                    // before the quote or backslash is checked.
                    let tail = rest.get(head.len()..).unwrap_or(&[]);
                    let stop = memchr::memchr2(b'"', b'\\', tail).unwrap_or(tail.len());
                    let before = tail.get(..stop).unwrap_or(&[]);
                    head.len()
                        + if before.iter().fold(false, |any, &c| any | is_control(c)) {
                            before.iter().position(|&c| is_control(c)).unwrap_or(stop)
                        } else {
                            stop
                        }
                }
            };
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
                Some(&c) if is_control(c) => {
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
                            Some(&c) if c != b'"' && c != b'\\' && !is_control(c) => i += 1,
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
        let base = self.items.len();
        let span = self.elements(depth, |p, item| p.items.push(item))?;
        let items: Vec<Json<'a>> = self.items.drain(base..).collect();
        Ok(Json {
            value: Value::Array(items),
            span,
        })
    }

    /// Reads the elements of the array at the cursor, at `depth`, handing
    /// each to `take` as it is read; returns the array's span.
    fn elements(
        &mut self,
        depth: usize,
        mut take: impl FnMut(&mut Self, Json<'a>),
    ) -> PResult<Span> {
        let open = self.pos;
        if let Some(span) = self.enter(depth, b']')? {
            return Ok(span);
        }
        loop {
            let item = self.value(depth)?;
            take(self, item);
            if self.after_item(open, b']')? {
                return Ok(self.span(open, self.pos));
            }
        }
    }

    /// The value of the streamed member of the root object (`depth` 1):
    /// an array's elements go to the stream's `each` one by one, and the
    /// array stands in the tree empty; any other value is read as usual.
    /// Either way the stream is spent: only the first member of its name
    /// is streamed.
    fn streamed_value(&mut self, depth: usize) -> PResult<Json<'a>> {
        let Some(stream) = self.stream.take() else {
            return self.value(depth);
        };
        if self.peek() != Some(b'[') {
            return self.value(depth);
        }
        stream.streamed = true;
        let span = self.elements(depth + 1, |_, item| (stream.each)(item))?;
        Ok(Json {
            value: Value::Array(Vec::new()),
            span,
        })
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
            let value = if depth == 1 && self.stream.as_ref().is_some_and(|s| s.key == key) {
                self.streamed_value(depth)?
            } else {
                self.value(depth)?
            };
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
