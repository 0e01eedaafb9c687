//! Numbers: their exact text checked against RFC 8259's grammar (a leading
//! zero, a missing digit, `12abc` reported as one malformed number).

use super::{PResult, Parser};
use crate::diagnostics::Code;
use crate::syntax::json::{Json, Value};

/// What may follow a number without being part of it: a run of these after
/// a number is reported as one malformed number (`12abc`, `1.2.3`).
pub(super) fn numberish(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'.' | b'+' | b'-' | b'_')
}

impl<'a> Parser<'a, '_, '_, '_> {
    pub(super) fn number(&mut self) -> PResult<Json<'a>> {
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
}
