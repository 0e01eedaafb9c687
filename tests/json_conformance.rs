//! RFC 8259 conformance of the JSON value parser: every valid document is
//! accepted with the right value and spans, every invalid one is rejected
//! with the exact code and span, and hostile inputs end in E0003, not in a
//! stack overflow or a hang.

// Test helpers outside `#[test]` functions fail the test by panicking.
#![allow(clippy::panic)]

use std::borrow::Cow;

use planc::Code;
use planc::limits;
use planc::source::{FileId, SourceFile, SourceKind, Span};
use planc::syntax::json::{self, Json, Value};

fn parse(text: &str) -> Result<Json<'_>, Box<planc::Diagnostic>> {
    json::parse(FileId(0), text)
}

fn accept(text: &str) -> Json<'_> {
    match parse(text) {
        Ok(v) => v,
        Err(e) => panic!(
            "rejected valid JSON {text:?}: {} {} at {:?}",
            e.code, e.message, e.span
        ),
    }
}

/// Asserts `text` is rejected with `code` at bytes `start..end`.
#[track_caller]
fn reject(text: &str, code: Code, start: usize, end: usize) {
    match parse(text) {
        Ok(v) => panic!("accepted invalid JSON {text:?} as {v:?}"),
        Err(e) => {
            assert_eq!(
                (e.code, e.span.start as usize, e.span.end as usize),
                (code, start, end),
                "{text:?}: {}",
                e.message
            );
            assert!(!e.message.is_empty());
        }
    }
}

fn number(text: &str) -> String {
    match accept(text).value {
        Value::Number(n) => n.to_string(),
        other => panic!("{text:?} is not a number: {other:?}"),
    }
}

fn string(text: &str) -> String {
    match accept(text).value {
        Value::String(s) => s.into_owned(),
        other => panic!("{text:?} is not a string: {other:?}"),
    }
}

// ------------------------------------------------------------------ valid

#[test]
fn scalars() {
    assert_eq!(accept("null").value, Value::Null);
    assert_eq!(accept("true").value, Value::Bool(true));
    assert_eq!(accept("false").value, Value::Bool(false));
    assert_eq!(accept(" \t\r\n0 \n").span, Span::new(FileId(0), 4, 5));
}

#[test]
fn numbers_keep_their_exact_text() {
    for n in [
        "0",
        "-0",
        "1",
        "-1",
        "10",
        "123456789012345678901234567890",
        "0.5",
        "-0.50",
        "1.000",
        "1e3",
        "1E3",
        "1e+3",
        "1e-3",
        "-1.5e-300",
        "1e400",
        "0e0",
        "0.0e00",
    ] {
        assert_eq!(number(n), n);
    }
}

#[test]
fn strings_and_escapes() {
    assert_eq!(string(r#""""#), "");
    assert_eq!(string(r#""abc""#), "abc");
    assert_eq!(string(r#""\"\\\/\b\f\n\r\t""#), "\"\\/\u{8}\u{c}\n\r\t");
    assert_eq!(string(r#""\u0041\u00e9\u20AC""#), "Aé€");
    assert_eq!(string(r#""\u0000""#), "\0");
    // A surrogate pair is one astral character.
    assert_eq!(string(r#""\ud83d\ude00""#), "😀");
    assert_eq!(string(r#""\uD834\uDD1E""#), "𝄞");
    // Raw non-ASCII text, and U+2028 (valid in JSON, not in old JavaScript).
    assert_eq!(
        string("\"Zürich 東京 😀 \u{2028}\""),
        "Zürich 東京 😀 \u{2028}"
    );
    // DEL (U+007F) is not a control character for JSON.
    assert_eq!(string("\"\u{7f}\""), "\u{7f}");
}

#[test]
fn strings_without_escapes_are_borrowed() {
    assert!(matches!(
        accept(r#""plain""#).value,
        Value::String(Cow::Borrowed("plain"))
    ));
    assert!(matches!(
        accept(r#""a\tb""#).value,
        Value::String(Cow::Owned(_))
    ));
}

#[test]
fn containers_and_spans() {
    let text = r#" { "a" : [ 1 , {} , [ ] ] , "b":"x" } "#;
    let v = accept(text);
    assert_eq!(v.span, Span::new(FileId(0), 1, text.len() - 1));
    let Value::Object(members) = &v.value else {
        panic!("not an object")
    };
    assert_eq!(members.len(), 2);
    assert_eq!(members[0].key, "a");
    assert_eq!(&text[members[0].key_span.range()], r#""a""#);
    assert_eq!(&text[members[0].value.span.range()], "[ 1 , {} , [ ] ]");
    let Value::Array(items) = &members[0].value.value else {
        panic!("not an array")
    };
    assert_eq!(items.len(), 3);
    assert_eq!(&text[items[1].span.range()], "{}");
    assert_eq!(items[2].value, Value::Array(vec![]));
    assert_eq!(&text[members[1].value.span.range()], r#""x""#);
}

#[test]
fn empty_containers() {
    assert_eq!(accept("[]").value, Value::Array(vec![]));
    assert_eq!(accept("{}").value, Value::Object(vec![]));
    assert_eq!(accept("[ \n ]").value, Value::Array(vec![]));
    assert_eq!(accept("{\t}").value, Value::Object(vec![]));
}

#[test]
fn duplicate_keys_are_kept_in_order() {
    let v = accept(r#"{"k": 1, "k": 2, "j": 3}"#);
    let Value::Object(members) = &v.value else {
        panic!()
    };
    let keys: Vec<(&str, &Value)> = members.iter().map(|m| (&*m.key, &m.value.value)).collect();
    assert_eq!(
        keys,
        vec![
            ("k", &Value::Number("1")),
            ("k", &Value::Number("2")),
            ("j", &Value::Number("3"))
        ]
    );
}

#[test]
fn escaped_keys_decode() {
    let v = accept(r#"{"a\u0062": 1}"#);
    assert!(v.get("ab").is_some());
}

#[test]
fn a_leading_byte_order_mark_is_skipped() {
    let text = "\u{feff}[1]";
    let v = accept(text);
    // Spans are offsets into the text as given, BOM included.
    assert_eq!(v.span, Span::new(FileId(0), 3, 6));
    // A BOM anywhere else is an error.
    reject("[\u{feff}1]", Code::E0001, 1, 4);
    reject("\u{feff}\u{feff}1", Code::E0001, 3, 6);
}

#[test]
fn depth_up_to_the_limit_is_fine() {
    let n = limits::MAX_DEPTH;
    let text = format!("{}{}", "[".repeat(n), "]".repeat(n));
    accept(&text);
    let objects = format!("{}1{}", r#"{"a":"#.repeat(n), "}".repeat(n));
    accept(&objects);
}

// ------------------------------------------------------------------ invalid

#[test]
fn empty_and_blank_input() {
    reject("", Code::E0001, 0, 0);
    reject("   \n", Code::E0001, 4, 4);
    reject("\u{feff}", Code::E0001, 3, 3);
}

#[test]
fn bad_numbers() {
    reject("01", Code::E0002, 0, 2);
    reject("-01", Code::E0002, 0, 3);
    reject("00", Code::E0002, 0, 2);
    reject("1.", Code::E0002, 0, 2);
    reject("[1.]", Code::E0002, 1, 3);
    reject(".5", Code::E0002, 0, 2);
    reject("+1", Code::E0002, 0, 2);
    reject("-", Code::E0002, 0, 1);
    reject("-a", Code::E0002, 0, 2);
    reject("1e", Code::E0002, 0, 2);
    reject("1e+", Code::E0002, 0, 3);
    reject("1.5e", Code::E0002, 0, 4);
    reject("0x10", Code::E0002, 0, 4);
    reject("1.2.3", Code::E0002, 0, 5);
    reject("12abc", Code::E0002, 0, 5);
    reject("[1, -]", Code::E0002, 4, 5);
    reject("1_000", Code::E0002, 0, 5);
}

#[test]
fn bad_words() {
    reject("NaN", Code::E0001, 0, 3);
    reject("[Infinity]", Code::E0001, 1, 9);
    reject("-Infinity", Code::E0002, 0, 9);
    reject("True", Code::E0001, 0, 4);
    reject("nul", Code::E0001, 0, 3);
    reject("nulls", Code::E0001, 0, 5);
    reject("truex", Code::E0001, 0, 5);
    reject("undefined", Code::E0001, 0, 9);
    let e = parse("True").err().map(|e| e.help.unwrap_or_default());
    assert_eq!(
        e.as_deref(),
        Some("JSON literals are lowercase: did you mean `true`?")
    );
}

#[test]
fn bad_strings() {
    // Unterminated: the span runs from the opening quote to the end.
    reject(r#""abc"#, Code::E0002, 0, 4);
    reject(r#"["abc\"]"#, Code::E0002, 1, 8);
    reject(r#""abc\"#, Code::E0002, 4, 5);
    // Bad escapes: the escape itself.
    reject(r#""a\x""#, Code::E0002, 2, 4);
    reject(r#""a\'""#, Code::E0002, 2, 4);
    reject(r#""\a""#, Code::E0002, 1, 3);
    reject("\"\\é\"", Code::E0002, 1, 4);
    reject(r#""\u12""#, Code::E0002, 1, 5);
    reject(r#""\u""#, Code::E0002, 1, 3);
    reject(r#""\uzzzz""#, Code::E0002, 1, 3);
    // Control characters must be escaped: the character itself.
    reject("\"a\nb\"", Code::E0002, 2, 3);
    reject("\"a\tb\"", Code::E0002, 2, 3);
    reject("\"\u{0}\"", Code::E0002, 1, 2);
    reject("\"\u{1f}\"", Code::E0002, 1, 2);
    reject("\"ab\\n\u{1}\"", Code::E0002, 5, 6);
    // Single quotes.
    reject("'a'", Code::E0001, 0, 1);
}

#[test]
fn unpaired_surrogates() {
    // A lone high surrogate, at the end or followed by other text.
    reject(r#""\ud800""#, Code::E0002, 1, 7);
    reject(r#""\ud800x""#, Code::E0002, 1, 7);
    // A high surrogate followed by a non-surrogate escape.
    reject(r#""\ud800\u0041""#, Code::E0002, 1, 7);
    // Two high surrogates.
    reject(r#""\ud800\ud800""#, Code::E0002, 1, 7);
    // A high surrogate followed by another escape.
    reject(r#""\ud800\n""#, Code::E0002, 1, 7);
    // A lone low surrogate.
    reject(r#""a\udc00""#, Code::E0002, 2, 8);
    // The pair reversed.
    reject(r#""\ude00\ud83d""#, Code::E0002, 1, 7);
    // A high surrogate whose partner has bad hex.
    reject(r#""\ud800\uzz""#, Code::E0002, 7, 9);
}

#[test]
fn structural_errors() {
    reject("[1,]", Code::E0001, 2, 3);
    reject("[1 , ]", Code::E0001, 3, 4);
    reject(r#"{"a":1,}"#, Code::E0001, 6, 7);
    reject("[,1]", Code::E0001, 1, 2);
    reject("[1 2]", Code::E0001, 3, 4);
    reject("[1", Code::E0001, 2, 2);
    reject("[", Code::E0001, 1, 1);
    reject("{", Code::E0001, 1, 1);
    reject(r#"{"a":1"#, Code::E0001, 6, 6);
    reject(r#"{"a" 1}"#, Code::E0001, 5, 6);
    reject(r#"{"a":}"#, Code::E0001, 5, 6);
    reject(r#"{a:1}"#, Code::E0001, 1, 2);
    reject(r#"{'a':1}"#, Code::E0001, 1, 2);
    reject(r#"{1:1}"#, Code::E0001, 1, 2);
    reject(r#"{"a":1 "b":2}"#, Code::E0001, 7, 8);
    reject("]", Code::E0001, 0, 1);
    reject("[}", Code::E0001, 1, 2);
    reject(r#"{"a":1]"#, Code::E0001, 6, 7);
    reject(":", Code::E0001, 0, 1);
}

#[test]
fn trailing_garbage() {
    reject("1 2", Code::E0001, 2, 3);
    reject("{} {}", Code::E0001, 3, 4);
    reject("[]]", Code::E0001, 2, 3);
    reject("null x", Code::E0001, 5, 6);
    reject("\"a\" \"b\"", Code::E0001, 4, 5);
    reject("{}\u{0}", Code::E0001, 2, 3);
}

#[test]
fn comments_are_not_json() {
    reject("// c\n1", Code::E0001, 0, 1);
    reject("[1 /* c */]", Code::E0001, 3, 4);
    reject("[1] // c", Code::E0001, 4, 5);
    reject("# c\n1", Code::E0001, 0, 1);
}

#[test]
fn whitespace_is_only_the_four_rfc_characters() {
    // Form feed, vertical tab and no-break space are not JSON whitespace.
    reject("\u{c}1", Code::E0001, 0, 1);
    reject("[1,\u{b}2]", Code::E0001, 3, 4);
    reject("\u{a0}1", Code::E0001, 0, 2);
}

// ------------------------------------------------------------------ limits

#[test]
fn nesting_past_the_limit_is_e0003_at_the_first_bracket_too_deep() {
    let n = limits::MAX_DEPTH;
    let text = format!("{}{}", "[".repeat(n + 1), "]".repeat(n + 1));
    reject(&text, Code::E0003, n, n + 1);
    let objects = format!("{}1{}", r#"{"a":"#.repeat(n + 1), "}".repeat(n + 1));
    reject(&objects, Code::E0003, 5 * n, 5 * n + 1);
}

#[test]
fn hostile_nesting_100k_arrays() {
    let text = "[".repeat(100_000) + &"]".repeat(100_000);
    let n = limits::MAX_DEPTH;
    reject(&text, Code::E0003, n, n + 1);
    // Unclosed, too.
    reject(&"[".repeat(100_000), Code::E0003, n, n + 1);
    // And deep objects.
    let objects = r#"{"k":"#.repeat(100_000);
    reject(&objects, Code::E0003, 5 * n, 5 * n + 1);
    // Alternating objects and arrays.
    let mixed = r#"{"k":["#.repeat(50_000);
    reject(&mixed, Code::E0003, 6 * (n / 2), 6 * (n / 2) + 1);
}

#[test]
fn hostile_30_mb_string() {
    let len = 30 * 1024 * 1024;
    let mut text = String::with_capacity(len + 2);
    text.push('"');
    text.extend(std::iter::repeat_n('a', len));
    text.push('"');
    reject(&text, Code::E0003, 0, len + 2);
    // With escapes the string is decoded, and stopped at the limit all the same.
    let mut escaped = String::with_capacity(len + 2);
    escaped.push_str("[\"\\n");
    escaped.extend(std::iter::repeat_n('b', len));
    escaped.push_str("\"]");
    reject(&escaped, Code::E0003, 1, escaped.len() - 1);
    // Unterminated and huge.
    let open = format!("\"{}", "c".repeat(limits::MAX_STRING_BYTES + 10));
    reject(&open, Code::E0003, 0, open.len());
}

#[test]
fn a_string_at_the_limit_is_fine() {
    let text = format!("\"{}\"", "d".repeat(limits::MAX_STRING_BYTES));
    accept(&text);
    let over = format!("{{\"{}\": 1}}", "d".repeat(limits::MAX_STRING_BYTES + 1));
    reject(&over, Code::E0003, 1, over.len() - 4);
}

#[test]
fn input_over_the_size_limit() {
    let text = " ".repeat(limits::MAX_INPUT_BYTES + 1);
    reject(
        &text,
        Code::E0003,
        limits::MAX_INPUT_BYTES,
        limits::MAX_INPUT_BYTES,
    );
}

#[test]
fn wide_documents_are_fine() {
    let text = format!("[{}1]", "1,".repeat(200_000));
    let v = accept(&text);
    assert_eq!(v.as_array().map(<[_]>::len), Some(200_001));
}

// ------------------------------------------------------------------ pointers

#[test]
fn every_value_has_a_pointer() {
    let text =
        r#"{"steps": [{"binds": {"a/b": "$.x", "t~": [true, null]}}], "": 0, "k\u00e9/y": 1}"#;
    let v = accept(text);
    let table = json::pointers(text, &v);
    let all = table.all(text);
    let pointers: Vec<&str> = all.iter().map(|(_, p)| p.as_str()).collect();
    assert_eq!(
        pointers,
        vec![
            "",
            "/steps",
            "/steps/0",
            "/steps/0/binds",
            "/steps/0/binds/a~1b",
            "/steps/0/binds/t~0",
            "/steps/0/binds/t~0/0",
            "/steps/0/binds/t~0/1",
            "/",
            "/ké~1y",
        ]
    );
    // The file builds the same table from its text on the first request.
    let file = SourceFile::new(FileId(0), "p.json", text, SourceKind::Json);
    // The span of a value maps to its pointer; a key to its member's.
    let at = |needle: &str| {
        let start = text.find(needle).unwrap_or(0);
        Span::new(FileId(0), start, start + needle.len())
    };
    assert_eq!(
        file.pointer_at(at(r#""$.x""#)).as_deref(),
        Some("/steps/0/binds/a~1b")
    );
    assert_eq!(
        file.pointer_at(at(r#""a/b""#)).as_deref(),
        Some("/steps/0/binds/a~1b")
    );
    assert_eq!(
        file.pointer_at(at("null")).as_deref(),
        Some("/steps/0/binds/t~0/1")
    );
    let one = text.rfind("1}").unwrap_or(0);
    assert_eq!(
        file.pointer_at(Span::new(FileId(0), one, one + 1))
            .as_deref(),
        Some("/ké~1y")
    );
    let zero = text.rfind("0,").unwrap_or(0);
    assert_eq!(
        file.pointer_at(Span::new(FileId(0), zero, zero + 1))
            .as_deref(),
        Some("/")
    );
    assert_eq!(
        file.pointer_at(Span::new(FileId(0), 0, 1)).as_deref(),
        Some("")
    );
}

// ------------------------------------------------------------------ differential

/// serde_json is a well-tested RFC 8259 parser: on thousands of mutations of
/// a document that exercises every construct, both must agree on accepting
/// or rejecting, except where serde_json departs from the RFC (it rejects
/// numbers out of `f64` range).
#[test]
fn agrees_with_serde_json_on_mutations() {
    let seed = r#"{"a": [1, -0.5e+3, true, false, null], "b\u00e9\n": {"c": "\ud83d\ude00 x\"y"}, "d": [], "e": {}, "f": 0}"#;
    let alphabet: &[u8] = b" \t\n\r{}[],:\"\\/-+.0123456789eEtrufalsn\x01'x";
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut checked = 0;
    for _ in 0..20_000 {
        let mut bytes = seed.as_bytes().to_vec();
        for _ in 0..(1 + next() % 3) {
            let at = (next() as usize) % (bytes.len() + 1);
            let c = alphabet[(next() as usize) % alphabet.len()];
            match next() % 3 {
                0 if at < bytes.len() => bytes[at] = c,
                1 if at < bytes.len() => {
                    bytes.remove(at);
                }
                _ => bytes.insert(at, c),
            }
        }
        let Ok(text) = String::from_utf8(bytes) else {
            continue;
        };
        let ours = parse(&text);
        let theirs = serde_json::from_str::<serde_json::Value>(&text);
        if let Err(e) = &theirs
            && e.to_string().contains("number out of range")
        {
            continue;
        }
        assert_eq!(
            ours.is_ok(),
            theirs.is_ok(),
            "{text:?}: ours {:?}, serde_json {:?}",
            ours.as_ref().err().map(|e| &e.message),
            theirs.as_ref().err().map(ToString::to_string)
        );
        if let Err(e) = &ours {
            // Every error points inside the text (or at its end).
            assert!(e.span.end as usize <= text.len(), "{text:?}");
            assert!(
                matches!(e.code, Code::E0001 | Code::E0002),
                "{text:?}: {}",
                e.code
            );
        }
        checked += 1;
    }
    assert!(checked > 10_000);
}
