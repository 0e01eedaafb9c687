//! Arrays and objects: the nesting limit, elements and members with their
//! commas and closing brackets, and the one array of the root object that
//! [`parse_streaming`](super::parse_streaming) hands over element by element.

use super::{Error, PResult, Parser};
use crate::diagnostics::Code;
use crate::limits;
use crate::source::Span;
use crate::syntax::json::{Json, Member, Value};

impl<'a> Parser<'a, '_, '_, '_> {
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

    pub(super) fn array(&mut self, depth: usize) -> PResult<Json<'a>> {
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

    pub(super) fn object(&mut self, depth: usize) -> PResult<Json<'a>> {
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
