//! A run-time value against a declared type (`docs/ir.md`, "Types"): a
//! step's bound values against `result_types` after the call, its
//! arguments against `arg_types` before it (`failure.kind` `result_type`).
//!
//! Pure, like `eval.rs`. Numbers are read exactly from their text, never as
//! binary floating point: an `int` is a number with no fractional part (`2.0`
//! is one; any number of digits), a `decimal` any number (kept as written),
//! a literal type compared by value. A record admits fields it
//! does not declare (they are never bound: a path into one is a compile
//! error); a declared field must be present unless it is optional, and of
//! its type when present. The walk follows the type, so it is as deep as
//! the type, whatever the value.

use super::data::Data;
use super::eval::literal_value;
use crate::catalog::value::{Date, Datetime};
use crate::ir::TypeIr;
use crate::syntax::ast::{CmpOp, PathSeg};

/// Whether a JSON number's text is an integer: no fraction but zeros, any
/// number of digits (an identifier of 30 digits is one). With an exponent
/// it is read as a decimal, and refused when a decimal cannot hold it.
fn integral(text: &str) -> bool {
    if text.contains(['e', 'E']) {
        return rust_decimal::Decimal::from_scientific(text).is_ok_and(|d| d.fract().is_zero());
    }
    match text.split_once('.') {
        Some((_, fraction)) => fraction.bytes().all(|b| b == b'0'),
        None => true,
    }
}

/// Whether a result's string is a `datetime`: an RFC 3339 date and time,
/// or one without its offset (a local date and time, which is how pydantic
/// writes a naive `datetime` under the same `format: date-time`). Only the
/// shape is admitted: an ordering of such a value against one with an
/// offset stays undecided, and a probe over it fails closed.
fn datetime(s: &str) -> bool {
    Datetime::parse(s).is_some() || Datetime::parse(&format!("{s}Z")).is_some()
}

/// Where a value leaves its type: the path to the part that does (`$`
/// for the value itself), the type wanted there and the part seen
/// (`null` for an absent field).
#[derive(Clone, Debug, PartialEq)]
pub struct Mismatch {
    pub at: String,
    pub expected: String,
    pub observed: Data,
}

impl Mismatch {
    /// For people: "`$.status` is "lost", not "open" | "closed"".
    pub fn describe(&self) -> String {
        let seen = match &self.observed {
            Data::String(_) | Data::Number(_) | Data::Bool(_) | Data::Null => {
                self.observed.to_json_string()
            }
            other => other.kind_name().to_string(),
        };
        format!("`{}` is {seen}, not `{}`", self.at, self.expected)
    }
}

/// Checks `value` against `ty`; the first part that does not fit is
/// returned.
pub fn check(ty: &TypeIr, value: &Data) -> Result<(), Mismatch> {
    let mut at = Vec::new();
    walk(ty, Some(value), &mut at).map_err(|(expected, observed)| Mismatch {
        at: crate::syntax::path::write(&at),
        expected,
        observed,
    })
}

/// `None` for an absent record field. On a mismatch `at` is left holding
/// the path to it.
fn walk(ty: &TypeIr, value: Option<&Data>, at: &mut Vec<PathSeg>) -> Result<(), (String, Data)> {
    let wrong = || (ty.to_string(), value.cloned().unwrap_or(Data::Null));
    let Some(v) = value else {
        return Err(wrong());
    };
    let fits = match (ty, v) {
        (TypeIr::Any, _) => true,
        (TypeIr::String, Data::String(_)) => true,
        (TypeIr::Bool, Data::Bool(_)) => true,
        (TypeIr::Null, Data::Null) => true,
        (TypeIr::Int, Data::Number(n)) => integral(n.as_str()),
        // Any number: its digits are kept as written, never rounded.
        (TypeIr::Decimal, Data::Number(_)) => true,
        (TypeIr::Date, Data::String(s)) => Date::parse(s).is_some(),
        (TypeIr::Datetime, Data::String(s)) => datetime(s),
        (TypeIr::Enum(values), Data::String(s)) => values.iter().any(|e| e == s),
        (TypeIr::Lit(lit), _) => literal_value(lit).is_some_and(|l| {
            v.as_value_like(&l)
                .and_then(|x| x.satisfies(CmpOp::Eq, &l))
                .unwrap_or(false)
        }),
        (TypeIr::Optional(inner), _) => {
            return if *v == Data::Null {
                Ok(())
            } else {
                walk(inner, Some(v), at)
            };
        }
        (TypeIr::Union(members), _) => members
            .iter()
            .any(|m| walk(m, Some(v), &mut Vec::new()).is_ok()),
        (TypeIr::List(inner), Data::Array(items)) => {
            for (i, item) in items.iter().enumerate() {
                at.push(PathSeg::Index(u64::try_from(i).unwrap_or(u64::MAX)));
                walk(inner, Some(item), at)?;
                at.pop();
            }
            true
        }
        (TypeIr::Record(fields), Data::Object(have)) => {
            for (name, field) in fields.iter() {
                let got = have.get(name.as_str());
                if got.is_none() && field.optional {
                    continue;
                }
                at.push(PathSeg::Field(name.clone()));
                walk(&field.ty, got, at)?;
                at.pop();
            }
            true
        }
        (TypeIr::Map(inner), Data::Object(have)) => {
            for (key, value) in have.iter() {
                at.push(PathSeg::Field(key.as_str().into()));
                walk(inner, Some(value), at)?;
                at.pop();
            }
            true
        }
        _ => false,
    };
    if fits { Ok(()) } else { Err(wrong()) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{FieldIr, Literal, Map};

    fn data(text: &str) -> Data {
        Data::parse_text(text).unwrap()
    }

    fn record(fields: &[(&str, TypeIr, bool)]) -> TypeIr {
        let mut m = Map::new();
        for (name, ty, optional) in fields {
            m.insert(
                (*name).into(),
                FieldIr {
                    ty: ty.clone(),
                    optional: *optional,
                },
            );
        }
        TypeIr::Record(m)
    }

    #[test]
    fn numbers_are_read_exactly() {
        assert!(check(&TypeIr::Int, &data("2.0")).is_ok());
        assert!(check(&TypeIr::Int, &data("2.5")).is_err());
        assert!(check(&TypeIr::Int, &data("123456789012345678901234567890")).is_ok());
        assert!(check(&TypeIr::Int, &data("1.000000000000000000000000000001")).is_err());
        assert!(check(&TypeIr::Int, &data("1e3")).is_ok());
        assert!(check(&TypeIr::Int, &data("1.5e0")).is_err());
        assert!(check(&TypeIr::Decimal, &data("4180.00")).is_ok());
        assert!(check(&TypeIr::Decimal, &data("\"4180.00\"")).is_err());
        let lit = TypeIr::Lit(Literal::Decimal("1.5".into()));
        assert!(check(&lit, &data("1.50")).is_ok());
        assert!(check(&lit, &data("1.500000000000000000001")).is_err());
        assert!(check(&TypeIr::Lit(Literal::Bool(true)), &data("1")).is_err());
    }

    #[test]
    fn records_need_their_fields_and_admit_more() {
        let ty = record(&[
            ("id", TypeIr::String, false),
            ("note", TypeIr::String, true),
            (
                "status",
                TypeIr::Enum(vec!["open".into(), "closed".into()]),
                false,
            ),
        ]);
        assert!(check(&ty, &data(r#"{"id": "a", "status": "open", "x": 1}"#)).is_ok());
        let absent = check(&ty, &data(r#"{"status": "open"}"#)).unwrap_err();
        assert_eq!(absent.at, "$.id");
        assert_eq!(absent.observed, Data::Null);
        let null_optional = check(&ty, &data(r#"{"id": "a", "note": null, "status": "open"}"#));
        assert_eq!(null_optional.unwrap_err().at, "$.note");
        let outside = check(&ty, &data(r#"{"id": "a", "status": "lost"}"#)).unwrap_err();
        assert_eq!(outside.at, "$.status");
        assert_eq!(
            outside.describe(),
            r#"`$.status` is "lost", not `"open" | "closed"`"#
        );
    }

    #[test]
    fn maps_check_every_value_whatever_its_key() {
        let ty = TypeIr::Map(Box::new(TypeIr::Decimal));
        assert!(check(&ty, &data(r#"{"Le Marais": 4.5, "x": 3}"#)).is_ok());
        assert!(check(&ty, &data("{}")).is_ok());
        let lying = check(&ty, &data(r#"{"ok": 4, "Le \"Marais\"": "five"}"#)).unwrap_err();
        assert_eq!(lying.at, r#"$["Le \"Marais\""]"#);
        assert!(check(&ty, &data("[4.5]")).is_err());
        assert_eq!(ty.to_string(), "{ [string]: decimal }");
    }

    #[test]
    fn lists_optionals_unions_and_dates() {
        let ty = TypeIr::List(Box::new(TypeIr::Optional(Box::new(TypeIr::Date))));
        assert!(check(&ty, &data(r#"["2026-03-04", null]"#)).is_ok());
        let bad = check(&ty, &data(r#"["2026-03-04", "2026-02-30"]"#)).unwrap_err();
        assert_eq!(bad.at, "$[1]");
        let union = TypeIr::Union(vec![TypeIr::String, TypeIr::Int]);
        assert!(check(&union, &data("3")).is_ok());
        assert!(check(&union, &data("[]")).is_err());
        assert!(check(&TypeIr::Any, &data(r#"{"a": [1]}"#)).is_ok());
        assert!(check(&TypeIr::Datetime, &data(r#""2026-03-04T10:00:00Z""#)).is_ok());
        // A naive datetime as pydantic writes it; never two offsets.
        assert!(check(&TypeIr::Datetime, &data(r#""2026-03-04T10:00:00""#)).is_ok());
        assert!(check(&TypeIr::Datetime, &data(r#""2026-03-04T10:00:00+02:00Z""#)).is_err());
        assert!(check(&TypeIr::Datetime, &data(r#""2026-03-04T25:00:00""#)).is_err());
        assert!(check(&TypeIr::Datetime, &data(r#""2026-03-04""#)).is_err());
    }
}
