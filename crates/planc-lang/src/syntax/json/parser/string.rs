//! Strings: the fast path that borrows an unescaped string from the text,
//! the escapes (`\uXXXX` and surrogate pairs) and the control characters
//! JSON does not allow raw, and the limit on a string's length.

use std::borrow::Cow;

use super::{Error, PResult, Parser};
use crate::diagnostics::Code;
use crate::limits;

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

impl<'a> Parser<'a, '_, '_, '_> {
    /// Reads a string at the cursor (on its opening quote), leaving the
    /// cursor after the closing quote.
    pub(super) fn string(&mut self) -> PResult<Cow<'a, str>> {
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
}
