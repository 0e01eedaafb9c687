//! Exact numbers on their way to JavaScript.
//!
//! planc keeps a number as the text it was written with (`4180.00`, a
//! 30-digit integer); JavaScript parses JSON numbers into doubles. A number
//! crosses as a JSON number when the double JavaScript reads from it is the
//! same value (`41.50` is `41.5`, `0.1` reads back as `0.1`), and as a
//! string of its own digits when the double would be another number
//! (`12345678901234567891`, `0.1000000000000000000001`, `1e400`): nothing is
//! rounded silently (`bindings/js/README.md`, "Exact numbers").

use planc::exec::Data;

/// A number's value as `(negative, significant digits, exponent)`, with
/// value `0.DIGITS × 10^exponent`, no leading or trailing zero in DIGITS;
/// zero is `(false, "", 0)`. `None` when the text is not a decimal number
/// or its exponent does not fit.
fn decimal_parts(text: &str) -> Option<(bool, String, i64)> {
    let (negative, rest) = match text.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let (mantissa, exponent) = match rest.find(['e', 'E']) {
        Some(at) => {
            let (m, e) = rest.split_at(at);
            (m, e.get(1..)?.parse::<i64>().ok()?)
        }
        None => (rest, 0),
    };
    let (int, frac) = match mantissa.split_once('.') {
        Some((i, f)) => (i, f),
        None => (mantissa, ""),
    };
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    if !int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit()) {
        return None;
    }
    let all: String = int.chars().chain(frac.chars()).collect();
    // The point stands after `int`: value = 0.ALL × 10^(len(int) + exp).
    let mut point = i64::try_from(int.len()).ok()?.checked_add(exponent)?;
    let leading = all.len() - all.trim_start_matches('0').len();
    point = point.checked_sub(i64::try_from(leading).ok()?)?;
    let digits = all
        .trim_start_matches('0')
        .trim_end_matches('0')
        .to_string();
    if digits.is_empty() {
        return Some((false, String::new(), 0));
    }
    Some((negative, digits, point))
}

/// Whether JavaScript's `Number(text)` is exactly the value `text` writes.
pub fn exact_in_f64(text: &str) -> bool {
    let Ok(double) = text.parse::<f64>() else {
        return false;
    };
    if !double.is_finite() {
        return false;
    }
    // `{:e}` writes the shortest text that reads back as this double, the
    // text JavaScript's own number-to-string conversion writes.
    let shortest = format!("{double:e}");
    match (decimal_parts(text), decimal_parts(&shortest)) {
        (Some(a), Some(b)) => a == b,
        _ => false,
    }
}

/// `value` as compact JSON for JavaScript: a number a double cannot hold
/// exactly becomes a string of its digits.
pub fn write_js(value: &Data) -> String {
    let mut out = String::new();
    write(value, &mut out);
    out
}

fn write(value: &Data, out: &mut String) {
    match value {
        Data::Number(n) if exact_in_f64(n.as_str()) => out.push_str(n.as_str()),
        Data::Number(n) => string(n.as_str(), out),
        Data::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write(item, out);
            }
            out.push(']');
        }
        Data::Object(fields) => {
            out.push('{');
            for (i, (key, item)) in fields.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                string(key, out);
                out.push(':');
                write(item, out);
            }
            out.push('}');
        }
        // Null, booleans and strings: as the value writes itself.
        other => out.push_str(&other.to_json_string()),
    }
}

/// The numbers inside `value` that a tool marked `exact` receives as
/// `Exact` (`bindings/js/README.md`, "Exact numbers"): every number but an
/// integer a double holds, as `[path, digits]`, where `path` lists the
/// keys and indices from `value` down to the number. `41.50` keeps its
/// scale this way, which a JSON number read by JavaScript loses.
pub fn exact_numbers(value: &Data) -> Data {
    let mut found = Vec::new();
    let mut path = Vec::new();
    collect_exact(value, &mut path, &mut found);
    Data::Array(found)
}

fn collect_exact(value: &Data, path: &mut Vec<Data>, found: &mut Vec<Data>) {
    match value {
        Data::Number(n) => {
            let text = n.as_str();
            let integer = !text.contains(['.', 'e', 'E']);
            if !(integer && exact_in_f64(text)) {
                found.push(Data::Array(vec![
                    Data::Array(path.clone()),
                    Data::String(text.to_string()),
                ]));
            }
        }
        Data::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                path.push(Data::number(&i.to_string()));
                collect_exact(item, path, found);
                path.pop();
            }
        }
        Data::Object(fields) => {
            for (key, item) in fields {
                path.push(Data::String(key.clone()));
                collect_exact(item, path, found);
                path.pop();
            }
        }
        Data::Null | Data::Bool(_) | Data::String(_) => {}
    }
}

fn string(s: &str, out: &mut String) {
    out.push_str(&Data::String(s.to_string()).to_json_string());
}

/// Whether a number of the JSON text `text` is one a double cannot hold:
/// a scan of the number tokens outside strings, without building a value
/// (an IR's numbers are nearly all small integers).
pub fn has_inexact_number(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut i = 0;
    let mut in_string = false;
    while let Some(&c) = bytes.get(i) {
        if in_string {
            match c {
                b'\\' => i += 2,
                b'"' => {
                    in_string = false;
                    i += 1;
                }
                _ => i += 1,
            }
            continue;
        }
        match c {
            b'"' => in_string = true,
            // Outside strings, a digit or a minus starts a number.
            b'-' | b'0'..=b'9' => {
                let start = i;
                while bytes
                    .get(i)
                    .is_some_and(|b| matches!(b, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E'))
                {
                    i += 1;
                }
                let token = text.get(start..i).unwrap_or_default();
                let digits = token.strip_prefix('-').unwrap_or(token);
                // Up to 15 digits, no point or exponent: always exact.
                let small_int = digits.len() <= 15 && digits.bytes().all(|b| b.is_ascii_digit());
                if !small_int && !exact_in_f64(token) {
                    return true;
                }
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    false
}

/// The JSON text `text` with the numbers a double cannot hold as strings
/// (`text` itself when it has none); text that is not JSON is returned as
/// it is (the library wrote it).
pub fn js_json(text: String) -> String {
    if !has_inexact_number(&text) {
        return text;
    }
    match Data::parse_text(&text) {
        Ok(d) => write_js(&d),
        Err(_) => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_exact_tool_gets_every_number_but_a_plain_integer_with_its_digits() {
        let args = Data::parse_text(
            r#"{"amount": 41.50, "count": 3, "big": 12345678901234567891,
                "lines": [{"price": 1e3, "qty": 2}, -0.10], "name": "x"}"#,
        )
        .unwrap();
        assert_eq!(
            exact_numbers(&args).to_json_string(),
            r#"[[["amount"],"41.50"],[["big"],"12345678901234567891"],[["lines",0,"price"],"1e3"],[["lines",1],"-0.10"]]"#
        );
        assert_eq!(
            exact_numbers(&Data::parse_text(r#"{"a": [1, 2], "b": "1.5"}"#).unwrap()),
            Data::Array(Vec::new())
        );
    }

    #[test]
    fn numbers_a_double_holds_stay_numbers() {
        for t in [
            "0",
            "-0",
            "41.50",
            "41.5",
            "0.1",
            "4180.00",
            "1e3",
            "1E-7",
            "-2.5e-3",
            "9007199254740992",
            "123456789.125",
            "5e-324",
            "1.7976931348623157e308",
        ] {
            assert!(exact_in_f64(t), "{t}");
        }
    }

    #[test]
    fn numbers_a_double_would_round_become_strings() {
        for t in [
            "9007199254740993",
            "12345678901234567891",
            "0.1000000000000000000001",
            "1e400",
            "-1e400",
            "4180.000000000000000001",
            "1e-400",
            "1e99999999999999999999",
        ] {
            assert!(!exact_in_f64(t), "{t}");
        }
        let d = Data::parse_text(r#"{"a": 9007199254740993, "b": [1.50, 1e400], "c": "x\"y"}"#);
        assert_eq!(
            d.map(|d| write_js(&d)).ok().as_deref(),
            Some(r#"{"a":"9007199254740993","b":[1.50,"1e400"],"c":"x\"y"}"#)
        );
    }

    #[test]
    fn the_scan_finds_what_the_rewrite_would_change() {
        for (text, inexact) in [
            (
                r#"{"a": 1, "b": [2.5, -3e2], "c": "99999999999999999999"}"#,
                false,
            ),
            (r#"{"a": 99999999999999999999}"#, true),
            (r#"{"s": "\\", "a": [0.1000000000000000000001]}"#, true),
            (r#"{"s": "\" 1e400"}"#, false),
            (r#"[-9007199254740993]"#, true),
        ] {
            assert_eq!(has_inexact_number(text), inexact, "{text}");
            let rewritten = js_json(text.to_string());
            assert_eq!(rewritten != text, inexact, "{text}");
        }
    }

    #[test]
    fn parts_are_values_not_spellings() {
        assert_eq!(decimal_parts("041.500"), decimal_parts("4.15e1"));
        assert_eq!(decimal_parts("0.000"), Some((false, String::new(), 0)));
        assert_eq!(decimal_parts("-0"), decimal_parts("0"));
        assert_ne!(decimal_parts("-1"), decimal_parts("1"));
        assert_eq!(decimal_parts("."), None);
        assert_eq!(decimal_parts("1x"), None);
    }
}
