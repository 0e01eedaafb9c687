//! Probes (`post` and `pre`) and the literals they compare with, numbers
//! read exactly.

use super::*;

pub const RESULT_COUNT_KEYS: &[&str] = &["probe", "path", "equals", "op", "value"];
pub const FIELD_EQUALS_KEYS: &[&str] = &["probe", "path", "value"];
pub const CONTAINS_KEYS: &[&str] = &["probe", "path", "value"];
pub const FIELD_IN_KEYS: &[&str] = &["probe", "path", "values"];
pub const FIELD_EXISTS_KEYS: &[&str] = &["probe", "path"];
pub const FIELD_COMPARE_KEYS: &[&str] = &["probe", "path", "op", "value"];
pub const PROBE_ANY_KEYS: &[&str] = &["probe", "path", "equals", "op", "value", "values"];
pub const OPS: &[&str] = &["==", "!=", "<", "<=", ">", ">="];

/// The keys of a probe of `kind`; every probe key when the kind is not
/// known (the language server's completion offers these).
pub fn probe_keys(kind: Option<&str>) -> &'static [&'static str] {
    kind.and_then(kind_keys)
        .map_or(PROBE_ANY_KEYS, |(keys, _)| keys)
}

/// The keys of a probe of `kind`, and what messages call it ("a
/// `field_in` probe": written out, not formatted for every probe read);
/// `None` for a kind that is not one.
fn kind_keys(kind: &str) -> Option<(&'static [&'static str], &'static str)> {
    use probe_kind as k;
    Some(match kind {
        k::RESULT_COUNT => (RESULT_COUNT_KEYS, "a `result_count` probe"),
        k::FIELD_EQUALS => (FIELD_EQUALS_KEYS, "a `field_equals` probe"),
        k::FIELD_IN => (FIELD_IN_KEYS, "a `field_in` probe"),
        k::FIELD_NOT_IN => (FIELD_IN_KEYS, "a `field_not_in` probe"),
        k::FIELD_EXISTS => (FIELD_EXISTS_KEYS, "a `field_exists` probe"),
        k::FIELD_COMPARE => (FIELD_COMPARE_KEYS, "a `field_compare` probe"),
        k::CONTAINS => (CONTAINS_KEYS, "a `contains` probe"),
        k::KEYS_CONTAIN => (CONTAINS_KEYS, "a `keys_contain` probe"),
        _ => return None,
    })
}
/// A probe of `post` (`$` paths), or of `pre` (paths rooted at a binding).
pub(super) fn probe(r: &mut Reader<'_>, v: &Json<'_>, pre: bool) -> Probe {
    let kind = probe_kind(r, v, pre).unwrap_or(ProbeKind::Error);
    Probe { kind, span: v.span }
}

pub(super) fn probe_kind(r: &mut Reader<'_>, v: &Json<'_>, pre: bool) -> Option<ProbeKind> {
    if v.as_object().is_none() {
        r.ill_typed("a probe", v, "an object with a `probe` key");
        return None;
    }
    let Some(kv) = v.get("probe") else {
        r.missing_key(v.span, "probe", "a probe");
        // Still report unknown keys against every probe key.
        r.fields(v, "a probe", PROBE_ANY_KEYS);
        return None;
    };
    let kind = r.string("probe", kv)?;
    let Some((keys, what)) = kind_keys(kind) else {
        r.report(bad_word(kv, kind, "`probe`", PROBE_KINDS));
        return None;
    };
    use probe_kind as k;
    let f = r.fields(v, what, keys)?;
    let path = match f.get("path") {
        Some(p) if pre => Some(binding_path(r, p)?),
        Some(p) => Some(path(r, "`path`", p)?),
        None if kind == k::RESULT_COUNT && !pre => None,
        None => {
            r.missing_key(v.span, "path", what);
            return None;
        }
    };
    match kind {
        k::RESULT_COUNT => {
            let (op, value) = match (f.member("equals"), f.get("op"), f.get("value")) {
                (Some(eq), None, None) => (
                    Spanned::new(CmpOp::Eq, eq.key_text_span()),
                    count_literal(r, "equals", &eq.value)?,
                ),
                (Some(eq), _, _) => {
                    r.report(
                        Diagnostic::new(
                            Code::E0004,
                            eq.key_span,
                            "a `result_count` probe has `equals` and also `op` or `value`",
                        )
                        .with_label("`equals` here")
                        .with_help("write either `equals`, or `op` and `value`"),
                    );
                    return None;
                }
                (None, op, value) => {
                    let op = op_of(r, v, what, op);
                    let value = match value {
                        Some(val) => count_literal(r, "value", val),
                        None => {
                            r.missing_key(v.span, "equals", what);
                            None
                        }
                    };
                    (op?, value?)
                }
            };
            Some(match path {
                Some(path) => ProbeKind::Len { path, op, value },
                None => ProbeKind::CountDefault { op, value },
            })
        }
        k::FIELD_EQUALS | k::FIELD_COMPARE => {
            let op = if kind == k::FIELD_EQUALS {
                f.member("value")
                    .map(|m| Spanned::new(CmpOp::Eq, m.key_text_span()))
            } else {
                op_of(r, v, what, f.get("op"))
            };
            let value = match f.get("value") {
                Some(val) => literal(r, "`value`", val),
                None => {
                    r.missing_key(v.span, "value", what);
                    None
                }
            };
            Some(ProbeKind::Compare {
                path: path?,
                op: op?,
                value: value?,
            })
        }
        k::CONTAINS | k::KEYS_CONTAIN => {
            let value = match f.get("value") {
                Some(val) => literal(r, "`value`", val),
                None => {
                    r.missing_key(v.span, "value", what);
                    None
                }
            };
            let (path, value) = (path?, value?);
            Some(if kind == k::CONTAINS {
                ProbeKind::Contains { path, value }
            } else {
                ProbeKind::KeysContain { path, value }
            })
        }
        k::FIELD_IN | k::FIELD_NOT_IN => {
            let Some(vals) = f.get("values") else {
                r.missing_key(v.span, "values", what);
                return None;
            };
            let Some(items) = vals.as_array() else {
                r.ill_typed("`values`", vals, "an array of literals");
                return None;
            };
            let mut values = Vec::with_capacity(items.len());
            let mut ok = true;
            for item in items {
                match literal(r, "an element of `values`", item) {
                    Some(l) => values.push(l),
                    None => ok = false,
                }
            }
            ok.then_some(ProbeKind::In {
                path: path?,
                negated: kind == k::FIELD_NOT_IN,
                values,
            })
        }
        _ => Some(ProbeKind::Exists { path: path? }),
    }
}

pub(super) fn op_of(
    r: &mut Reader<'_>,
    probe: &Json<'_>,
    what: &str,
    op: Option<&Json<'_>>,
) -> Option<Spanned<CmpOp>> {
    let Some(op) = op else {
        r.missing_key(probe.span, "op", what);
        return None;
    };
    let s = r.string("op", op)?;
    match CmpOp::from_symbol(s) {
        Some(c) => Some(Spanned::new(c, op.text_span())),
        None => {
            let mut d = bad_word(op, s, "`op`", OPS);
            let alias = match s {
                "=" | "eq" | "equals" => Some("=="),
                "ne" | "<>" | "neq" => Some("!="),
                "lt" => Some("<"),
                "le" | "lte" | "=<" => Some("<="),
                "gt" => Some(">"),
                "ge" | "gte" | "=>" => Some(">="),
                _ => None,
            };
            if let Some(a) = alias
                && d.fixes.is_empty()
            {
                d = d.with_help(format!("did you mean `{a}`?")).with_fix(
                    format!("replace with `{a}`"),
                    op.text_span(),
                    a,
                );
            }
            r.report(d);
            None
        }
    }
}

/// The count a `result_count` probe compares with: a non-negative integer.
pub(super) fn count_literal(
    r: &mut Reader<'_>,
    key: &str,
    v: &Json<'_>,
) -> Option<Spanned<Literal>> {
    let n = r.count(key, v)?;
    Some(Spanned::new(Literal::Int(Str::from(n.to_string())), v.span))
}

/// A scalar in literal position (probe values, ceilings): strings are plain
/// text, with no references. `what` names the value in messages ("`value`").
pub fn literal(r: &mut Reader<'_>, what: &str, v: &Json<'_>) -> Option<Spanned<Literal>> {
    let lit = match &v.value {
        Value::Null => Literal::Null,
        Value::Bool(b) => Literal::Bool(*b),
        Value::String(s) => Literal::String(Str::new(s)),
        Value::Number(n) => number(r, n, v)?,
        Value::Array(_) | Value::Object(_) => {
            r.ill_typed(what, v, "a string, number, boolean or `null`");
            return None;
        }
    };
    Some(Spanned::new(lit, v.span))
}

/// A JSON number as an exact literal: an integer when it has neither a
/// fraction nor an exponent, else a decimal with any exponent written out.
pub(super) fn number(r: &mut Reader<'_>, n: &str, v: &Json<'_>) -> Option<Literal> {
    match number_literal(n) {
        Some(lit) => Some(lit),
        None => {
            r.report(
                Diagnostic::new(
                    Code::E0002,
                    v.span,
                    format!("number `{n}` is too large or too small to write out exactly"),
                )
                .with_label("exponent out of range")
                .with_help("write the number without an exponent"),
            );
            None
        }
    }
}

/// The longest decimal an exponent may expand to.
pub(super) const MAX_EXPANDED_DIGITS: usize = 1000;

/// A JSON number's text as an exact literal: an integer when it has neither
/// a fraction nor an exponent, else a decimal with any exponent written out;
/// `None` when the exponent is too large to write out.
pub fn number_literal(n: &str) -> Option<Literal> {
    if !n.bytes().any(|b| matches!(b, b'.' | b'e' | b'E')) {
        return Some(Literal::Int(n.into()));
    }
    expand_exponent(n).map(|d| Literal::Decimal(d.into()))
}

/// `-1.25e2` as `-125`, `5e-3` as `0.005`: exact, by moving the point. A
/// number without an exponent is returned as written. `None` when the
/// result would be longer than [`MAX_EXPANDED_DIGITS`].
pub fn expand_exponent(n: &str) -> Option<String> {
    let Some(epos) = n.find(['e', 'E']) else {
        return Some(n.to_string());
    };
    let (mantissa, exp) = (n.get(..epos)?, n.get(epos + 1..)?);
    let exp: i64 = exp.trim_start_matches('+').parse().ok()?;
    let (neg, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => (true, m),
        None => (false, mantissa),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits: String = format!("{int}{frac}");
    let point = i64::try_from(int.len()).ok()?.checked_add(exp)?;
    let len = i64::try_from(digits.len()).ok()?;
    if point > MAX_EXPANDED_DIGITS as i64 || point < -(MAX_EXPANDED_DIGITS as i64) {
        return None;
    }
    let (int_part, frac_part) = if point <= 0 {
        let zeros = "0".repeat(usize::try_from(-point).ok()?);
        ("0".to_string(), format!("{zeros}{digits}"))
    } else if point >= len {
        let zeros = "0".repeat(usize::try_from(point - len).ok()?);
        (format!("{digits}{zeros}"), String::new())
    } else {
        let p = usize::try_from(point).ok()?;
        (digits.get(..p)?.to_string(), digits.get(p..)?.to_string())
    };
    let int_part = int_part.trim_start_matches('0');
    let int_part = if int_part.is_empty() { "0" } else { int_part };
    let frac_part = frac_part.trim_end_matches('0');
    let sign = if neg { "-" } else { "" };
    Some(if frac_part.is_empty() {
        format!("{sign}{int_part}")
    } else {
        format!("{sign}{int_part}.{frac_part}")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_probe_kind_has_its_keys_and_its_name_in_messages() {
        for kind in PROBE_KINDS {
            let (keys, what) = kind_keys(kind).unwrap_or_default();
            assert_eq!(what, format!("a `{kind}` probe"));
            assert!(keys.starts_with(&["probe", "path"]), "{kind}");
        }
    }
}
