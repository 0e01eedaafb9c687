//! The result path, `$` followed by `.field`, `[index]` and `["key"]`
//! segments (`$.results[0].id`, `$.ratings["Le Marais"]`): its one reader
//! ([`parse`]) and its one writer
//! ([`write`], [`write_segment`]). The text parser (a path token), the JSON
//! plan reader (a path string), the IR (its `path` strings, read back by the
//! executor) and every message that shows a path go through here, so the
//! forms cannot disagree on what a path is.

use std::fmt;
use std::ops::Range;

use super::ast::{self, PathSeg, Str};
use super::{lexicon, literal};

/// What [`parse`] reads, as a JSON Schema `pattern`: `$`, then `.field`,
/// `[N]` and `["key"]` segments (the planner's schema says it;
/// `tests/plan_schema.rs` checks that the two agree). A key is a string
/// literal of the text form, escapes and all (`docs/language.md`).
pub const PATTERN: &str =
    r#"^\$(\.[A-Za-z_][A-Za-z0-9_]*|\[[0-9]+\]|\["([^"\\\r\n]|\\[^\r\n])*"\])*$"#;

/// The segments of [`PATTERN`] after its `$`, as a pattern to build others
/// from (the paths into an `any` value).
pub const SEGMENTS_PATTERN: &str =
    r#"(\.[A-Za-z_][A-Za-z0-9_]*|\[[0-9]+\]|\["([^"\\\r\n]|\\[^\r\n])*"\])*"#;

/// A quoted key segment of [`PATTERN`], `["…"]`.
pub const KEY_PATTERN: &str = r#"\["([^"\\\r\n]|\\[^\r\n])*"\]"#;

/// One segment read by [`parse`], with its byte range in the path text
/// (`.id` or `[0]`, the punctuation included).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Segment {
    pub seg: PathSeg,
    pub range: Range<usize>,
    /// An index with more digits than a `u64` holds: `seg` is
    /// `Index(u64::MAX)`, and the reader decides what to report.
    pub too_large: bool,
}

/// Why a text is not a path: what was expected, and the byte offset where.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathError {
    /// The text does not start with `$`.
    NoRoot,
    /// After `.`: a field name (an identifier).
    Field(usize),
    /// After `[`: digits or a quoted key.
    Index(usize),
    /// In a quoted key: a closing `"` on the line, and escapes the text
    /// form reads (`\"`, `\\`, `\u{…}`, …).
    Key(usize),
    /// After the digits: `]`.
    Close(usize),
    /// Between segments: `.` or `[`.
    Segment(usize),
}

impl PathError {
    /// What was expected, as a diagnostic's label says it.
    pub fn expected(self) -> &'static str {
        match self {
            PathError::NoRoot => "a path starts with `$`",
            PathError::Field(_) => "expected a field name",
            PathError::Index(_) => "expected an index or a quoted key",
            PathError::Key(_) => "expected a key: a string closed on its line, with valid escapes",
            PathError::Close(_) => "expected `]`",
            PathError::Segment(_) => "expected `.` or `[`",
        }
    }

    /// Where it was expected (0 for a missing `$`).
    pub fn at(self) -> usize {
        match self {
            PathError::NoRoot => 0,
            PathError::Field(at)
            | PathError::Index(at)
            | PathError::Key(at)
            | PathError::Close(at)
            | PathError::Segment(at) => at,
        }
    }
}

/// Reads a path: `$`, then `.field` (an identifier), `[digits]` and
/// `["key"]` (a string literal of the text form) segments, nothing else
/// (no spaces, no wildcards). `.id` and `["id"]` are the same segment.
pub fn parse(text: &str) -> Result<Vec<Segment>, PathError> {
    segments(text).collect()
}

/// How many segments the path text can hold at most (one per `.` or `[`;
/// exactly that many when it is a path), so that a reader sizes its vector
/// once: a vector grown by pushes keeps room for four.
pub fn max_segments(text: &str) -> usize {
    text.bytes().filter(|&b| b == b'.' || b == b'[').count()
}

/// The segments of a path one by one, as [`parse`] reads them: a reader
/// that builds its own segments takes them from here without a second
/// vector. After an error it yields nothing more.
pub fn segments(text: &str) -> Segments<'_> {
    Segments {
        text,
        at: 0,
        done: false,
    }
}

/// The iterator of [`segments`].
#[derive(Clone, Debug)]
pub struct Segments<'a> {
    text: &'a str,
    at: usize,
    done: bool,
}

impl Iterator for Segments<'_> {
    type Item = Result<Segment, PathError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let r = self.step();
        if !matches!(r, Some(Ok(_))) {
            self.done = true;
        }
        r
    }
}

impl Segments<'_> {
    fn step(&mut self) -> Option<Result<Segment, PathError>> {
        let text = self.text;
        let b = text.as_bytes();
        if self.at == 0 {
            if b.first() != Some(&b'$') {
                return Some(Err(PathError::NoRoot));
            }
            self.at = 1;
        }
        let start = self.at;
        let mut i = start;
        let seg = match b.get(i)? {
            b'.' => {
                i += 1;
                let name_start = i;
                while b.get(i).is_some_and(|&c| lexicon::is_ident_byte(c)) {
                    i += 1;
                }
                // Every byte read continues an identifier: it is one unless
                // it is empty or starts with a digit (`lexicon::is_ident`).
                let name = text.get(name_start..i).unwrap_or("");
                if name.bytes().next().is_none_or(|c| c.is_ascii_digit()) {
                    return Some(Err(PathError::Field(name_start)));
                }
                Segment {
                    seg: PathSeg::Field(Str::new(name)),
                    range: start..i,
                    too_large: false,
                }
            }
            b'[' if b.get(i + 1) == Some(&b'"') => {
                let quote = i + 1;
                let Some(len) = literal::string_len(text.get(quote..).unwrap_or("")) else {
                    return Some(Err(PathError::Key(quote)));
                };
                let raw = text.get(quote..quote + len).unwrap_or("");
                if !literal::escapes_ok(raw) {
                    return Some(Err(PathError::Key(quote)));
                }
                i = quote + len;
                if b.get(i) != Some(&b']') {
                    return Some(Err(PathError::Close(i)));
                }
                i += 1;
                Segment {
                    seg: PathSeg::Field(Str::from(literal::decode(raw))),
                    range: start..i,
                    too_large: false,
                }
            }
            b'[' => {
                i += 1;
                let digits = i;
                while b.get(i).is_some_and(u8::is_ascii_digit) {
                    i += 1;
                }
                if i == digits {
                    return Some(Err(PathError::Index(digits)));
                }
                if b.get(i) != Some(&b']') {
                    return Some(Err(PathError::Close(i)));
                }
                let parsed = text.get(digits..i).and_then(|d| d.parse::<u64>().ok());
                i += 1;
                Segment {
                    seg: PathSeg::Index(parsed.unwrap_or(u64::MAX)),
                    range: start..i,
                    too_large: parsed.is_none(),
                }
            }
            _ => return Some(Err(PathError::Segment(i))),
        };
        self.at = i;
        Some(Ok(seg))
    }
}

/// A reference path as every form spells it: its root (`$` for the result)
/// and each [`write_segment`].
impl fmt::Display for ast::Path {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.root {
            Some(name) => f.write_str(&name.node)?,
            None => f.write_str("$")?,
        }
        for s in &self.segments {
            write_segment(f, &s.node)?;
        }
        Ok(())
    }
}

/// A path's text, from its segments: `$` and each [`write_segment`].
pub fn write(segments: &[PathSeg]) -> String {
    let mut s = String::from("$");
    for seg in segments {
        // Writing into a `String` cannot fail.
        let _ = write_segment(&mut s, seg);
    }
    s
}

/// Writes one segment as every form spells it: `.field` for a key that is
/// an identifier, `["key"]` (escaped as a string of the text form) for any
/// other, `[index]`.
pub fn write_segment<W: fmt::Write>(out: &mut W, seg: &PathSeg) -> fmt::Result {
    match seg {
        PathSeg::Field(name) if lexicon::is_ident(name) => {
            out.write_char('.')?;
            out.write_str(name)
        }
        PathSeg::Field(key) => {
            let mut quoted = String::with_capacity(key.len() + 4);
            literal::escape_text(key, &mut quoted);
            write!(out, "[\"{quoted}\"]")
        }
        PathSeg::Index(i) => write!(out, "[{i}]"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn segs(text: &str) -> Vec<PathSeg> {
        match parse(text) {
            Ok(s) => s.into_iter().map(|s| s.seg).collect(),
            Err(e) => panic!("{text}: {e:?}"),
        }
    }

    #[test]
    fn round_trip() {
        for text in ["$", "$.a", "$.results[0].id", "$[2][3]", "$.a_1.b"] {
            assert_eq!(write(&segs(text)), text);
        }
    }

    #[test]
    fn the_patterns_agree() {
        assert_eq!(PATTERN, format!("^\\${SEGMENTS_PATTERN}$"));
        assert!(SEGMENTS_PATTERN.contains(KEY_PATTERN));
    }

    #[test]
    fn quoted_keys_round_trip() {
        for text in [
            r#"$.ratings["Le Marais Boutique"]"#,
            r#"$["a b"].c[0]["x.y"]"#,
            r#"$["say \"hi\""]["back\\slash"]["tab\t"]["1a"][""]"#,
            r#"$["\u{7}"]["dollar \${x}"]"#,
        ] {
            assert_eq!(write(&segs(text)), text);
        }
        // A key that is an identifier is written as a field.
        assert_eq!(write(&segs(r#"$["id"]"#)), "$.id");
        assert_eq!(segs(r#"$["id"]"#), segs("$.id"));
        assert_eq!(
            segs(r#"$["a\"]b"]"#),
            vec![PathSeg::Field(Str::new("a\"]b"))]
        );
        // Every string survives the writer and the reader.
        for key in [
            "", " ", "é", "a\nb", "\"]", "${", "\\", "\u{0}", "\u{7f}", "\u{2028}",
        ] {
            let path = vec![PathSeg::Field(Str::new(key)), PathSeg::Index(3)];
            assert_eq!(segs(&write(&path)), path, "{key:?}");
        }
    }

    #[test]
    fn errors_say_what_and_where() {
        let cases = [
            ("", PathError::NoRoot),
            ("a", PathError::NoRoot),
            ("$.", PathError::Field(2)),
            ("$.1a", PathError::Field(2)),
            ("$[x]", PathError::Index(2)),
            ("$[1", PathError::Close(3)),
            ("$..a", PathError::Field(2)),
            ("$ .a", PathError::Segment(1)),
            ("$.a-b", PathError::Segment(3)),
            (r#"$["a"#, PathError::Key(2)),
            (r#"$["a"x"#, PathError::Close(5)),
            (r#"$["a\q"]"#, PathError::Key(2)),
            ("$[\"a\nb\"]", PathError::Key(2)),
            (r#"$['a']"#, PathError::Index(2)),
        ];
        for (text, want) in cases {
            assert_eq!(parse(text), Err(want), "{text}");
        }
    }

    #[test]
    fn a_huge_index_is_flagged_not_refused() {
        let Ok(s) = parse("$.a[99999999999999999999999]") else {
            panic!("a huge index still reads as a path");
        };
        assert_eq!(s.len(), 2);
        assert!(s[1].too_large && s[1].seg == PathSeg::Index(u64::MAX));
        assert_eq!(s[1].range, 3..28);
    }
}
