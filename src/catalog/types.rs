//! The checker's types: what a parameter accepts, what a result holds.
//!
//! [`Ty`] is the semantic form of the syntax tree's [`ast::Type`]: spans are
//! gone, records and enums are shared (cloning a type is cheap), and an
//! error type stands for "already reported": it is assignable to and from
//! everything, so one mistake never produces a second diagnostic.

use std::fmt;
use std::sync::Arc;

use crate::limits;
use crate::syntax::ast;

/// A type of the plan language (`docs/language.md`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ty {
    String,
    Int,
    /// Exact decimal: never binary floating point.
    Decimal,
    Bool,
    Date,
    Datetime,
    Null,
    /// Anything: assignable to and from every type.
    Any,
    /// `[T]`
    List(Arc<Ty>),
    /// `{ name: T, opt?: T }`, fields in declaration order.
    Record(Arc<[FieldTy]>),
    /// `"a" | "b"`: a string that is one of these, in declaration order.
    Enum(Arc<[String]>),
    /// `T?`: `T` or `null`.
    Optional(Arc<Ty>),
    /// A type that could not be determined because of an error already
    /// reported. Silences every check that meets it.
    Error,
}

/// One field of a record type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldTy {
    pub name: String,
    /// `name?: T`: the field may be absent.
    pub optional: bool,
    pub ty: Ty,
}

/// What a `result_count` probe without a `path` counts in a result of a
/// type ([`Ty::counted`]): the result itself when it is a list, else its
/// one list field.
#[derive(Clone, Debug, PartialEq)]
pub enum Counted<'t> {
    /// The result is a list: `$`.
    Itself,
    /// The record's one list field.
    Field(&'t FieldTy),
    /// A record with no list field, or with several (listed).
    Ambiguous(Vec<&'t FieldTy>),
    /// Neither a list nor a record: nothing to count.
    Nothing,
    /// Not known: an error type or `any`.
    Unknown,
}

impl Ty {
    /// What a `result_count` probe without a `path` counts in a result of
    /// this type (optional or not).
    pub fn counted(&self) -> Counted<'_> {
        match self.strip_optional() {
            Ty::Error | Ty::Any => Counted::Unknown,
            Ty::List(_) => Counted::Itself,
            Ty::Record(fields) => {
                let lists: Vec<&FieldTy> = fields
                    .iter()
                    .filter(|f| matches!(f.ty.strip_optional(), Ty::List(_)))
                    .collect();
                match lists.as_slice() {
                    [one] => Counted::Field(one),
                    _ => Counted::Ambiguous(lists),
                }
            }
            _ => Counted::Nothing,
        }
    }

    /// The semantic type of a syntax tree type. Duplicate record fields and
    /// enum values are reported by [`crate::catalog`] (which sees the spans);
    /// here the first one wins. Nesting deeper than [`limits::MAX_DEPTH`]
    /// (which the front ends already refuse) becomes [`Ty::Error`].
    pub fn from_ast(ty: &ast::Type) -> Ty {
        Ty::from_ast_depth(ty, 0)
    }

    fn from_ast_depth(ty: &ast::Type, depth: usize) -> Ty {
        if depth > limits::MAX_DEPTH {
            return Ty::Error;
        }
        match &ty.node {
            ast::TypeKind::Prim(p) => Ty::prim(*p),
            ast::TypeKind::List(inner) => Ty::List(Arc::new(Ty::from_ast_depth(inner, depth + 1))),
            ast::TypeKind::Record(fields) => {
                let mut out: Vec<FieldTy> = Vec::with_capacity(fields.len());
                for f in fields {
                    if out.iter().any(|o| o.name == f.name.node) {
                        continue;
                    }
                    out.push(FieldTy {
                        name: f.name.node.clone(),
                        optional: f.optional,
                        ty: Ty::from_ast_depth(&f.ty, depth + 1),
                    });
                }
                Ty::Record(out.into())
            }
            ast::TypeKind::Enum(values) => {
                let mut out: Vec<String> = Vec::with_capacity(values.len());
                for v in values {
                    if !out.contains(&v.node) {
                        out.push(v.node.clone());
                    }
                }
                Ty::Enum(out.into())
            }
            ast::TypeKind::Optional(inner) => Ty::optional(Ty::from_ast_depth(inner, depth + 1)),
            ast::TypeKind::Error => Ty::Error,
        }
    }

    pub fn prim(p: ast::Prim) -> Ty {
        match p {
            ast::Prim::String => Ty::String,
            ast::Prim::Int => Ty::Int,
            ast::Prim::Decimal => Ty::Decimal,
            ast::Prim::Bool => Ty::Bool,
            ast::Prim::Date => Ty::Date,
            ast::Prim::Datetime => Ty::Datetime,
            ast::Prim::Null => Ty::Null,
            ast::Prim::Any => Ty::Any,
        }
    }

    /// `T?`, without doubling an optional (`T??` is `T?`) and leaving `null`
    /// and the error type as they are. `any?` stays: it admits what `any`
    /// does, but a parameter of that type may be left out.
    pub fn optional(inner: Ty) -> Ty {
        match inner {
            Ty::Optional(_) | Ty::Null | Ty::Error => inner,
            other => Ty::Optional(Arc::new(other)),
        }
    }

    pub fn is_error(&self) -> bool {
        matches!(self, Ty::Error)
    }

    /// The type without its optional wrapper.
    pub fn strip_optional(&self) -> &Ty {
        match self {
            Ty::Optional(inner) => inner,
            other => other,
        }
    }

    /// Whether `null` is a value of this type.
    pub fn accepts_null(&self) -> bool {
        matches!(self, Ty::Optional(_) | Ty::Null | Ty::Any | Ty::Error)
    }

    /// Whether a parameter of this type may be left out when it has no
    /// default: `T?` and `null` (and the error type, already reported).
    /// `any` may not: it says what is accepted, not that nothing is.
    pub fn may_be_left_out(&self) -> bool {
        matches!(self, Ty::Optional(_) | Ty::Null | Ty::Error)
    }

    /// Numbers, dates and datetimes: the types `<`, `<=`, `>` and `>=` order.
    pub fn is_ordered(&self) -> bool {
        matches!(
            self.strip_optional(),
            Ty::Int | Ty::Decimal | Ty::Date | Ty::Datetime | Ty::Any | Ty::Error
        )
    }

    /// Scalars: the types whose values can be written into a string.
    pub fn is_scalar(&self) -> bool {
        matches!(
            self.strip_optional(),
            Ty::String
                | Ty::Int
                | Ty::Decimal
                | Ty::Bool
                | Ty::Date
                | Ty::Datetime
                | Ty::Null
                | Ty::Enum(_)
                | Ty::Any
                | Ty::Error
        )
    }

    /// The field `name` of a record type, if this is one and has it.
    pub fn field(&self, name: &str) -> Option<&FieldTy> {
        match self {
            Ty::Record(fields) => fields.iter().find(|f| f.name == name),
            _ => None,
        }
    }

    /// Whether a value of type `self` may be passed where `to` is expected:
    /// the same type; `int` where `decimal` is expected; an enum where a
    /// `string` or a larger enum is expected; `T` or `null` where `T?` is;
    /// anything where `any` is (and `any` anywhere: its value is checked at
    /// run time); lists element-wise; records when every field `to` requires
    /// is present and assignable (extra fields are allowed).
    pub fn assignable_to(&self, to: &Ty) -> bool {
        match (self, to) {
            (Ty::Error, _) | (_, Ty::Error) | (_, Ty::Any) | (Ty::Any, _) => true,
            (Ty::Int, Ty::Decimal) => true,
            (Ty::Enum(_), Ty::String) => true,
            (Ty::Enum(a), Ty::Enum(b)) => a.iter().all(|v| b.contains(v)),
            (Ty::Null, t) => t.accepts_null(),
            (Ty::Optional(a), Ty::Optional(b)) => a.assignable_to(b),
            (Ty::Optional(_), _) => false,
            (a, Ty::Optional(b)) => a.assignable_to(b),
            (Ty::List(a), Ty::List(b)) => a.assignable_to(b),
            (Ty::Record(a), Ty::Record(b)) => {
                b.iter()
                    .all(|want| match a.iter().find(|f| f.name == want.name) {
                        Some(have) => {
                            (want.optional || !have.optional) && have.ty.assignable_to(&want.ty)
                        }
                        None => want.optional,
                    })
            }
            (a, b) => a == b,
        }
    }

    /// A value of the type as a JSON plan writes it, for a help line:
    /// `<integer>`, `"<date>"`, `{"id": <string>}`. Never shortened: the
    /// planner reading it must see every field.
    pub fn json_placeholder(&self) -> String {
        match self {
            Ty::String => "<string>".into(),
            Ty::Int => "<integer>".into(),
            Ty::Decimal => "<number>".into(),
            Ty::Bool => "<boolean>".into(),
            Ty::Date => "\"<date YYYY-MM-DD>\"".into(),
            Ty::Datetime => "\"<datetime>\"".into(),
            Ty::Null => "null".into(),
            Ty::Any | Ty::Error => "<any value>".into(),
            Ty::Optional(inner) => inner.json_placeholder(),
            Ty::List(inner) => format!("[{}]", inner.json_placeholder()),
            Ty::Record(fields) => {
                let shown: Vec<String> = fields
                    .iter()
                    .filter(|f| !f.optional)
                    .map(|f| format!("{:?}: {}", f.name, f.ty.json_placeholder()))
                    .collect();
                format!("{{{}}}", shown.join(", "))
            }
            Ty::Enum(values) => match &**values {
                [one] => format!("{one:?}"),
                _ => {
                    let quoted: Vec<String> = values.iter().map(|v| format!("{v:?}")).collect();
                    format!("<one of {}>", quoted.join(", "))
                }
            },
        }
    }

    /// The type as a message shows it; long records are shortened.
    pub fn display(&self) -> String {
        self.to_string()
    }
}

/// How many record fields a message shows before `…`.
const SHOWN_FIELDS: usize = 4;
/// How many enum values a message shows before `…`.
const SHOWN_VALUES: usize = 6;

impl fmt::Display for Ty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ty::String => f.write_str("string"),
            Ty::Int => f.write_str("int"),
            Ty::Decimal => f.write_str("decimal"),
            Ty::Bool => f.write_str("bool"),
            Ty::Date => f.write_str("date"),
            Ty::Datetime => f.write_str("datetime"),
            Ty::Null => f.write_str("null"),
            Ty::Any | Ty::Error => f.write_str("any"),
            Ty::List(inner) => write!(f, "[{inner}]"),
            Ty::Record(fields) => {
                if fields.is_empty() {
                    return f.write_str("{}");
                }
                f.write_str("{ ")?;
                for (i, field) in fields.iter().take(SHOWN_FIELDS).enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    let q = if field.optional { "?" } else { "" };
                    write!(f, "{}{q}: {}", field.name, field.ty)?;
                }
                if fields.len() > SHOWN_FIELDS {
                    f.write_str(", …")?;
                }
                f.write_str(" }")
            }
            Ty::Enum(values) => {
                for (i, v) in values.iter().take(SHOWN_VALUES).enumerate() {
                    if i > 0 {
                        f.write_str(" | ")?;
                    }
                    write!(f, "{v:?}")?;
                }
                if values.len() > SHOWN_VALUES {
                    f.write_str(" | …")?;
                }
                Ok(())
            }
            Ty::Optional(inner) => match &**inner {
                Ty::Enum(_) => write!(f, "({inner})?"),
                _ => write!(f, "{inner}?"),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(fields: &[(&str, bool, Ty)]) -> Ty {
        Ty::Record(
            fields
                .iter()
                .map(|(n, o, t)| FieldTy {
                    name: (*n).to_string(),
                    optional: *o,
                    ty: t.clone(),
                })
                .collect::<Vec<_>>()
                .into(),
        )
    }

    fn en(values: &[&str]) -> Ty {
        Ty::Enum(
            values
                .iter()
                .map(|v| (*v).to_string())
                .collect::<Vec<_>>()
                .into(),
        )
    }

    #[test]
    fn assignability() {
        assert!(Ty::Int.assignable_to(&Ty::Decimal));
        assert!(!Ty::Decimal.assignable_to(&Ty::Int));
        assert!(en(&["a", "b"]).assignable_to(&Ty::String));
        assert!(!Ty::String.assignable_to(&en(&["a"])));
        assert!(en(&["a"]).assignable_to(&en(&["a", "b"])));
        assert!(!en(&["a", "c"]).assignable_to(&en(&["a", "b"])));
        assert!(Ty::Int.assignable_to(&Ty::optional(Ty::Int)));
        assert!(Ty::Null.assignable_to(&Ty::optional(Ty::Int)));
        assert!(!Ty::optional(Ty::Int).assignable_to(&Ty::Int));
        assert!(Ty::Date.assignable_to(&Ty::Any));
        assert!(Ty::Error.assignable_to(&Ty::Date));
        assert!(!Ty::Date.assignable_to(&Ty::Datetime));
        assert!(Ty::List(Arc::new(Ty::Int)).assignable_to(&Ty::List(Arc::new(Ty::Decimal))));
        let want = rec(&[("plan", false, Ty::String), ("note", true, Ty::String)]);
        assert!(
            rec(&[("plan", false, en(&["starter"])), ("x", false, Ty::Int)]).assignable_to(&want)
        );
        assert!(!rec(&[("plan", true, Ty::String)]).assignable_to(&want));
        assert!(!rec(&[("note", false, Ty::String)]).assignable_to(&want));
    }

    #[test]
    fn display() {
        let t = rec(&[
            ("id", false, Ty::String),
            ("opt", true, Ty::optional(en(&["a", "b"]))),
        ]);
        assert_eq!(t.to_string(), r#"{ id: string, opt?: ("a" | "b")? }"#);
        assert_eq!(Ty::List(Arc::new(Ty::Decimal)).to_string(), "[decimal]");
        let wide = rec(&[
            ("a", false, Ty::Int),
            ("b", false, Ty::Int),
            ("c", false, Ty::Int),
            ("d", false, Ty::Int),
            ("e", false, Ty::Int),
        ]);
        assert_eq!(wide.to_string(), "{ a: int, b: int, c: int, d: int, … }");
    }
}
