//! The IR shown in the text form's notation, for people: a value as it
//! would be written in a `.plan` file (`"starter"`, `period_end`,
//! `"downgrade effective ${period_end}"`), a probe as its `post` line, a
//! guard as its ceiling. The review page and the graphs print these.

use std::fmt::{self, Display, Formatter};

use super::types::{
    CmpOp, Guard, GuardLimit, GuardOp, Literal, PreProbe, Probe, Str, Subject, TypeIr, Value,
};
use crate::syntax::ast;
use crate::syntax::literal::{escape_text, string_text};

impl CmpOp {
    /// The operator as written: `==`, `<=`, ...
    pub fn as_str(self) -> &'static str {
        self.to_ast().as_str()
    }

    /// The same operator in the syntax tree's terms, for the comparisons
    /// of `catalog::value` (the executor's guards and probes).
    pub fn to_ast(self) -> ast::CmpOp {
        match self {
            CmpOp::Eq => ast::CmpOp::Eq,
            CmpOp::Ne => ast::CmpOp::Ne,
            CmpOp::Lt => ast::CmpOp::Lt,
            CmpOp::Le => ast::CmpOp::Le,
            CmpOp::Gt => ast::CmpOp::Gt,
            CmpOp::Ge => ast::CmpOp::Ge,
        }
    }
}

impl Display for CmpOp {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Display for Literal {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Literal::String(s) => {
                let mut out = String::with_capacity(s.len() + 2);
                string_text(s, &mut out);
                f.write_str(&out)
            }
            Literal::Int(i) => write!(f, "{i}"),
            Literal::Decimal(t) | Literal::Date(t) | Literal::Datetime(t) => f.write_str(t),
            Literal::Bool(b) => write!(f, "{b}"),
            Literal::Null => f.write_str("null"),
        }
    }
}

/// `binding.member.member`.
/// `binding.member`, a member that is not an identifier as a quoted key
/// (`ratings["Le Marais"]`), as `syntax::path` writes a segment.
fn reference(f: &mut Formatter<'_>, binding: &str, path: &[Str]) -> fmt::Result {
    f.write_str(binding)?;
    for m in path {
        crate::syntax::path::write_segment(f, &crate::syntax::ast::PathSeg::Field(m.clone()))?;
    }
    Ok(())
}

fn list<T: Display>(f: &mut Formatter<'_>, items: &[T]) -> fmt::Result {
    f.write_str("[")?;
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{item}")?;
    }
    f.write_str("]")
}

/// Values nest no deeper than the front ends' nesting cap.
impl Display for Value {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Value::Literal { literal } => write!(f, "{literal}"),
            Value::Ref { binding, path, .. } => reference(f, binding, path),
            Value::List { items } => list(f, items),
            Value::Record { fields } if fields.is_empty() => f.write_str("{}"),
            Value::Record { fields } => {
                f.write_str("{ ")?;
                for (i, (name, value)) in fields.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{name}: {value}")?;
                }
                f.write_str(" }")
            }
            Value::Interpolate { parts } => {
                f.write_str("\"")?;
                for part in parts {
                    match part {
                        Value::Literal {
                            literal: Literal::String(text),
                        } => {
                            let mut out = String::with_capacity(text.len());
                            escape_text(text, &mut out);
                            f.write_str(&out)?;
                        }
                        Value::Ref { binding, path, .. } => {
                            f.write_str("${")?;
                            reference(f, binding, path)?;
                            f.write_str("}")?;
                        }
                        // The lowering builds only text and references.
                        other => write!(f, "${{{other}}}")?,
                    }
                }
                f.write_str("\"")
            }
        }
    }
}

impl Display for Probe {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        probe(f, &self.path(), self)
    }
}

/// A precondition as the text form writes it: `schema_tables contains "users"`.
impl Display for PreProbe {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        probe(f, self.subject(), &self.test())
    }
}

/// The artifact a precondition tests, as a reference: `settings.region`.
impl Display for Subject {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let Subject::Ref {
            binding, path, at, ..
        } = self;
        reference(f, binding, path)?;
        // `$[0].name` written after the reference: `tags[0].name`.
        f.write_str(
            at.as_deref()
                .and_then(|a| a.strip_prefix('$'))
                .unwrap_or(""),
        )
    }
}

/// `probe`'s test, of the value at `path` (its own path is not used).
fn probe(f: &mut Formatter<'_>, path: &dyn Display, probe: &Probe) -> fmt::Result {
    match probe {
        Probe::Len { op, value, .. } => write!(f, "len({path}) {op} {value}"),
        Probe::Compare { op, value, .. } => write!(f, "{path} {op} {value}"),
        Probe::In { values, .. } => {
            write!(f, "{path} in ")?;
            list(f, values)
        }
        Probe::NotIn { values, .. } => {
            write!(f, "{path} not in ")?;
            list(f, values)
        }
        Probe::Contains { value, .. } => write!(f, "{path} contains {value}"),
        Probe::KeysContain { key, .. } => {
            let mut quoted = String::with_capacity(key.len());
            escape_text(key, &mut quoted);
            write!(f, "keys({path}) contains \"{quoted}\"")
        }
        Probe::Exists { .. } => write!(f, "exists({path})"),
    }
}

impl GuardOp {
    /// The operator as the policy writes it: `<=`, `in`, `not in`,
    /// `matches`.
    pub fn as_str(self) -> &'static str {
        match self {
            GuardOp::Eq => "==",
            GuardOp::Ne => "!=",
            GuardOp::Lt => "<",
            GuardOp::Le => "<=",
            GuardOp::Gt => ">",
            GuardOp::Ge => ">=",
            GuardOp::In => "in",
            GuardOp::NotIn => "not in",
            GuardOp::Matches => "matches",
        }
    }

    /// The comparison, for the comparing operators.
    pub fn comparison(self) -> Option<ast::CmpOp> {
        Some(match self {
            GuardOp::Eq => ast::CmpOp::Eq,
            GuardOp::Ne => ast::CmpOp::Ne,
            GuardOp::Lt => ast::CmpOp::Lt,
            GuardOp::Le => ast::CmpOp::Le,
            GuardOp::Gt => ast::CmpOp::Gt,
            GuardOp::Ge => ast::CmpOp::Ge,
            GuardOp::In | GuardOp::NotIn | GuardOp::Matches => return None,
        })
    }
}

impl Display for GuardOp {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Display for GuardLimit {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            GuardLimit::One(l) => write!(f, "{l}"),
            GuardLimit::List(items) => list(f, items),
        }
    }
}

impl Display for Guard {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "{} {} {}", self.arg, self.op, self.limit)?;
        if self.each {
            f.write_str(" (each element)")?;
        }
        Ok(())
    }
}

/// A declared type as the text form writes it (`docs/language.md`,
/// "Types"): `[{ id: string, note?: string }]`, `"open" | "closed"`.
impl Display for TypeIr {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            TypeIr::String => f.write_str("string"),
            TypeIr::Int => f.write_str("int"),
            TypeIr::Decimal => f.write_str("decimal"),
            TypeIr::Bool => f.write_str("bool"),
            TypeIr::Date => f.write_str("date"),
            TypeIr::Datetime => f.write_str("datetime"),
            TypeIr::Null => f.write_str("null"),
            TypeIr::Any => f.write_str("any"),
            TypeIr::List(inner) => write!(f, "[{inner}]"),
            TypeIr::Record(fields) => {
                if fields.is_empty() {
                    return f.write_str("{}");
                }
                f.write_str("{ ")?;
                for (i, (name, field)) in fields.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    let q = if field.optional { "?" } else { "" };
                    write!(f, "{name}{q}: {}", field.ty)?;
                }
                f.write_str(" }")
            }
            TypeIr::Map(inner) => write!(f, "{{ [string]: {inner} }}"),
            TypeIr::Enum(values) => {
                let quoted: Vec<String> = values.iter().map(|v| format!("{v:?}")).collect();
                f.write_str(&quoted.join(" | "))
            }
            TypeIr::Lit(lit) => write!(f, "{lit}"),
            TypeIr::Union(members) => {
                let shown: Vec<String> = members.iter().map(ToString::to_string).collect();
                f.write_str(&shown.join(" | "))
            }
            TypeIr::Optional(inner) => match &**inner {
                TypeIr::Enum(_) | TypeIr::Union(_) => write!(f, "({inner})?"),
                _ => write!(f, "{inner}?"),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn values_read_as_the_text_form() {
        let v: Value = serde_json::from_str(
            r#"{"kind": "interpolate", "parts": [
                {"kind": "literal", "type": "string", "value": "a \"b\" ${c} "},
                {"kind": "ref", "binding": "period_end", "step": "s", "path": ["x"]}]}"#,
        )
        .unwrap();
        assert_eq!(v.to_string(), r#""a \"b\" \${c} ${period_end.x}""#);
        let v: Value = serde_json::from_str(
            r#"{"kind": "record", "fields": {
                "n": {"kind": "list", "items": [{"kind": "literal", "type": "decimal", "value": "1.50"},
                                                 {"kind": "literal", "type": "date", "value": "2026-03-04"}]},
                "ok": {"kind": "literal", "type": "null"}}}"#,
        )
        .unwrap();
        assert_eq!(v.to_string(), "{ n: [1.50, 2026-03-04], ok: null }");
    }

    #[test]
    fn probes_and_guards_read_as_written() {
        let p: Probe =
            serde_json::from_str(r#"{"probe": "not_in", "path": "$.a", "values": [{"type": "int", "value": 1}, {"type": "bool", "value": false}]}"#)
                .unwrap();
        assert_eq!(p.to_string(), "$.a not in [1, false]");
        let g: Guard = serde_json::from_str(
            r#"{"arg": "amount_eur", "op": "<=", "limit": {"type": "decimal", "value": "500"}}"#,
        )
        .unwrap();
        assert_eq!(g.to_string(), "amount_eur <= 500");
        let g: Guard = serde_json::from_str(
            r#"{"arg": "iban", "op": "not_in", "limit": [{"type": "string", "value": "DE1"}]}"#,
        )
        .unwrap();
        assert_eq!(g.to_string(), r#"iban not in ["DE1"]"#);
    }
}
