//! The checker's types: what a parameter accepts, what a result holds.
//!
//! [`Ty`] is the semantic form of the syntax tree's [`ast::Type`]: spans are
//! gone, records and enums are shared (cloning a type is cheap), and an
//! error type stands for "already reported": it is assignable to and from
//! everything, so one mistake never produces a second diagnostic.

use std::fmt;
use std::sync::Arc;

use super::value::{self, Value};
use crate::ast::{self, PathSeg, Str};
use crate::limits;

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
    /// `{[string]: T}`: string keys, each to a value of `T`
    /// (`additionalProperties` in JSON Schema).
    Map(Arc<Ty>),
    /// `"a" | "b"`: a string that is one of these, in declaration order.
    Enum(Arc<[Str]>),
    /// `1`, `2.5`, `true`: the one number or boolean a literal type names
    /// (a string literal type is an [`Ty::Enum`] of one value). Shared, as
    /// the other compound types are: a type is 24 bytes, not 40, and the
    /// checked model holds two per argument.
    Lit(Arc<Value>),
    /// `string | int`, `1 | 2 | 5`: a value of any member. Built only by
    /// [`Ty::union`]: at least two members, none a union, `null`, `any` or
    /// optional (those go outside, as `(…)?`), string literals merged into
    /// one [`Ty::Enum`], no member twice.
    Union(Arc<[Ty]>),
    /// `T?`: `T` or `null`.
    Optional(Arc<Ty>),
    /// A type that could not be determined because of an error already
    /// reported. Silences every check that meets it.
    Error,
}

/// One field of a record type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldTy {
    pub name: Str,
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
            ast::TypeKind::Map(inner) => Ty::Map(Arc::new(Ty::from_ast_depth(inner, depth + 1))),
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
                let mut out: Vec<Str> = Vec::with_capacity(values.len());
                for v in values {
                    if !out.contains(&v.node) {
                        out.push(v.node.clone());
                    }
                }
                Ty::Enum(out.into())
            }
            ast::TypeKind::Optional(inner) => Ty::optional(Ty::from_ast_depth(inner, depth + 1)),
            ast::TypeKind::Literal(lit) => Ty::literal(lit),
            ast::TypeKind::Union(members) => Ty::union(
                members
                    .iter()
                    .map(|m| Ty::from_ast_depth(m, depth + 1))
                    .collect(),
            ),
            ast::TypeKind::Error => Ty::Error,
        }
    }

    /// The type a number or boolean literal names; an integer too large for
    /// 64 bits names the exact decimal. What names no value (a number
    /// beyond an exact decimal, a literal of another kind) is the error
    /// type: the catalogue reports it ([`Ty::literal_problem`]).
    pub fn literal(lit: &ast::Literal) -> Ty {
        match Ty::literal_value(lit) {
            Some(v) => Ty::Lit(Arc::new(v)),
            None => Ty::Error,
        }
    }

    /// The value of a literal type, `None` when it names none.
    pub fn literal_value(lit: &ast::Literal) -> Option<Value> {
        match lit {
            ast::Literal::Int(t) => value::natural_value(lit)
                .or_else(|_| value::parse_decimal(t).map(Value::Decimal))
                .ok(),
            ast::Literal::Decimal(_) | ast::Literal::Bool(_) => value::natural_value(lit).ok(),
            _ => None,
        }
    }

    /// A union of `members`, normalised: nested unions flattened, string
    /// literals merged into one enum, a string or enum absorbing the enum,
    /// `int` absorbed by `decimal`, a literal by its own type, duplicates
    /// dropped, `null` and optional members made the whole union optional,
    /// `any` or the error type swallowing the rest. One member left is that
    /// member.
    pub fn union(members: Vec<Ty>) -> Ty {
        let mut nullable = false;
        let mut flat: Vec<Ty> = Vec::with_capacity(members.len());
        let mut todo: Vec<Ty> = members;
        todo.reverse();
        while let Some(m) = todo.pop() {
            match m {
                Ty::Error => return Ty::Error,
                Ty::Any => {
                    return if nullable {
                        Ty::optional(Ty::Any)
                    } else {
                        Ty::Any
                    };
                }
                Ty::Null => nullable = true,
                Ty::Optional(inner) => {
                    nullable = true;
                    todo.push((*inner).clone());
                }
                Ty::Union(ms) => todo.extend(ms.iter().rev().cloned()),
                other => flat.push(other),
            }
        }
        let mut out: Vec<Ty> = Vec::with_capacity(flat.len());
        for m in flat {
            if let (Ty::Enum(new), Some(at)) =
                (&m, out.iter().position(|o| matches!(o, Ty::Enum(_))))
            {
                if let Some(Ty::Enum(old)) = out.get(at) {
                    let mut merged: Vec<Str> = old.to_vec();
                    merged.extend(new.iter().filter(|v| !old.contains(v)).cloned());
                    if let Some(slot) = out.get_mut(at) {
                        *slot = Ty::Enum(merged.into());
                    }
                }
                continue;
            }
            if out.iter().any(|o| m.assignable_to(o)) {
                continue;
            }
            out.retain(|o| !o.assignable_to(&m));
            out.push(m);
        }
        let one = match out.len() {
            0 => return Ty::Null,
            1 => out.pop().unwrap_or(Ty::Error),
            _ => Ty::Union(out.into()),
        };
        if nullable { Ty::optional(one) } else { one }
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

    /// Numbers, dates and datetimes: the types `<`, `<=`, `>` and `>=` order;
    /// a union when one member is (like `any`, a value of another member
    /// does not compare: a ceiling refuses it, E0303, and a probe fails).
    pub fn is_ordered(&self) -> bool {
        match self.strip_optional() {
            Ty::Int | Ty::Decimal | Ty::Date | Ty::Datetime | Ty::Any | Ty::Error => true,
            Ty::Lit(v) => matches!(**v, Value::Int(_) | Value::Decimal(_)),
            Ty::Union(ms) => ms.iter().any(Ty::is_ordered),
            _ => false,
        }
    }

    /// The members of a union, or the type itself as the only one.
    pub fn members(&self) -> &[Ty] {
        match self {
            Ty::Union(ms) => ms,
            other => std::slice::from_ref(other),
        }
    }

    /// The values a literal type or a union of literals allows, as a
    /// message shows them (strings quoted); empty when some member is not
    /// a literal set.
    pub fn literal_values(&self) -> Vec<String> {
        let mut out = Vec::new();
        for m in self.strip_optional().members() {
            match m {
                Ty::Enum(vs) => out.extend(vs.iter().map(|v| format!("{v:?}"))),
                Ty::Lit(v) => out.push(v.display()),
                _ => return Vec::new(),
            }
        }
        out
    }

    /// Whether `any` is the type or a part of it (an item, a field, a
    /// member): a value of it was not checked against what it is passed to.
    pub fn holds_any(&self) -> bool {
        match self {
            Ty::Any => true,
            Ty::List(inner) | Ty::Optional(inner) => inner.holds_any(),
            Ty::Record(fields) => fields.iter().any(|f| f.ty.holds_any()),
            Ty::Union(members) => members.iter().any(Ty::holds_any),
            _ => false,
        }
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
                | Ty::Lit(_)
                | Ty::Any
                | Ty::Error
        ) || matches!(self.strip_optional(), Ty::Union(ms) if ms.iter().all(Ty::is_scalar))
    }

    /// One segment of a path into a value of this type (`.field`,
    /// `["key"]` or `[n]`), an optional type looked through: the checker's
    /// E0202 and an editor's hover read paths the same way. A key of a map
    /// is its value type, not optional: as an index past a list's end, a
    /// key the map lacks fails at run time (`docs/language.md`).
    pub fn path_step(&self, seg: &PathSeg) -> PathStep<'_> {
        let (cur, optional) = match self {
            Ty::Optional(inner) => (&**inner, true),
            other => (other, false),
        };
        match (seg, cur) {
            (_, Ty::Error | Ty::Any) => PathStep::Opaque(cur.clone()),
            (PathSeg::Field(f), Ty::Record(fields)) => match fields.iter().find(|x| &x.name == f) {
                Some(field) => PathStep::Into(field.ty.clone(), optional || field.optional),
                None => PathStep::NoField(fields),
            },
            (PathSeg::Field(_), Ty::Map(inner)) => PathStep::Into((**inner).clone(), optional),
            (PathSeg::Field(_), other) => PathStep::NotRecord(other),
            (PathSeg::Index(_), Ty::List(inner)) => PathStep::Into((**inner).clone(), optional),
            (PathSeg::Index(_), other) => PathStep::NotList(other),
        }
    }

    /// The type at `path` in a value of this type (optional when a step
    /// on the way may be absent); `None` when the path does not exist.
    pub fn at_path(&self, path: &[PathSeg]) -> Option<Ty> {
        let mut cur = self.clone();
        let mut optional = false;
        for seg in path {
            match cur.path_step(seg) {
                PathStep::Into(ty, o) => {
                    cur = ty;
                    optional |= o;
                }
                PathStep::Opaque(ty) => return Some(ty),
                PathStep::NoField(_) | PathStep::NotRecord(_) | PathStep::NotList(_) => {
                    return None;
                }
            }
        }
        Some(if optional { Ty::optional(cur) } else { cur })
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
    /// is present and assignable (extra fields are allowed); a literal
    /// where its own type or an equal literal is expected; a union where
    /// every member is assignable, and anything where one member of an
    /// expected union accepts it.
    pub fn assignable_to(&self, to: &Ty) -> bool {
        match (self, to) {
            (Ty::Error, _) | (_, Ty::Error) | (_, Ty::Any) | (Ty::Any, _) => true,
            (Ty::Union(ms), _) => ms.iter().all(|m| m.assignable_to(to)),
            (_, Ty::Union(ms)) => ms.iter().any(|m| self.assignable_to(m)),

            (Ty::Int, Ty::Decimal) => true,
            (Ty::Enum(_), Ty::String) => true,
            (Ty::Enum(a), Ty::Enum(b)) => a.iter().all(|v| b.contains(v)),
            (Ty::Null, t) => t.accepts_null(),
            (Ty::Optional(a), Ty::Optional(b)) => a.assignable_to(b),
            (Ty::Optional(_), _) => false,
            (a, Ty::Optional(b)) => a.assignable_to(b),
            (Ty::List(a), Ty::List(b)) | (Ty::Map(a), Ty::Map(b)) => a.assignable_to(b),
            // A record passes for a map when every field's value would.
            (Ty::Record(a), Ty::Map(b)) => a.iter().all(|f| f.ty.assignable_to(b)),
            (Ty::Record(a), Ty::Record(b)) => {
                b.iter()
                    .all(|want| match a.iter().find(|f| f.name == want.name) {
                        Some(have) => {
                            (want.optional || !have.optional) && have.ty.assignable_to(&want.ty)
                        }
                        None => want.optional,
                    })
            }
            (Ty::Lit(a), Ty::Lit(b)) => {
                same_kind(a, b) && a.compare(b) == Some(std::cmp::Ordering::Equal)
            }
            (Ty::Lit(v), _) => v.natural_type().assignable_to(to),
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
            Ty::Map(inner) => format!("{{\"<key>\": {}}}", inner.json_placeholder()),
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
            Ty::Lit(v) => v.display(),
            Ty::Union(_) => match &*self.literal_values() {
                [] => format!("<{self}>"),
                values => format!("<one of {}>", values.join(", ")),
            },
        }
    }

    /// The type as a message shows it; long records are shortened.
    pub fn display(&self) -> String {
        self.to_string()
    }
}

/// Whether two literal values are of one kind: `true` never equals `1`.
fn same_kind(a: &Value, b: &Value) -> bool {
    matches!(
        (a, b),
        (Value::Bool(_), Value::Bool(_))
            | (
                Value::Int(_) | Value::Decimal(_),
                Value::Int(_) | Value::Decimal(_)
            )
    )
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
            Ty::Map(inner) => write!(f, "{{ [string]: {inner} }}"),
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
            Ty::Lit(v) => f.write_str(&v.display()),
            Ty::Union(ms) => {
                for (i, m) in ms.iter().take(SHOWN_VALUES).enumerate() {
                    if i > 0 {
                        f.write_str(" | ")?;
                    }
                    write!(f, "{m}")?;
                }
                if ms.len() > SHOWN_VALUES {
                    f.write_str(" | …")?;
                }
                Ok(())
            }
            Ty::Optional(inner) => match &**inner {
                Ty::Enum(_) | Ty::Union(_) => write!(f, "({inner})?"),
                _ => write!(f, "{inner}?"),
            },
        }
    }
}

/// One segment of a path into a type ([`Ty::path_step`]).
#[derive(Debug)]
pub enum PathStep<'t> {
    /// Into this type; `true` when the value there may be absent.
    Into(Ty, bool),
    /// `any` or an error: whatever the rest of the path, this type.
    Opaque(Ty),
    /// A record without the field: its fields.
    NoField(&'t [FieldTy]),
    /// A field of a type that is not a record.
    NotRecord(&'t Ty),
    /// An element of a type that is not a list.
    NotList(&'t Ty),
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(fields: &[(&str, bool, Ty)]) -> Ty {
        Ty::Record(
            fields
                .iter()
                .map(|(n, o, t)| FieldTy {
                    name: (*n).into(),
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
                .map(|v| Str::from(*v))
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

    fn lit(v: i64) -> Ty {
        Ty::Lit(Arc::new(Value::Int(v)))
    }

    #[test]
    fn unions() {
        let si = Ty::union(vec![Ty::String, Ty::Int]);
        assert_eq!(si.to_string(), "string | int");
        assert!(Ty::Int.assignable_to(&si));
        assert!(en(&["a"]).assignable_to(&si));
        assert!(!Ty::Bool.assignable_to(&si));
        assert!(!si.assignable_to(&Ty::String));
        assert!(si.assignable_to(&Ty::union(vec![Ty::Int, Ty::String, Ty::Bool])));
        // Normalised: nested unions flattened, duplicates and absorbed
        // members dropped, `null` outside, one member is itself.
        let levels = Ty::union(vec![lit(1), Ty::union(vec![lit(2), lit(5)]), lit(2)]);
        assert_eq!(levels.to_string(), "1 | 2 | 5");
        assert_eq!(Ty::union(vec![lit(1), Ty::Int]), Ty::Int);
        assert_eq!(Ty::union(vec![Ty::Int, Ty::Decimal]), Ty::Decimal);
        assert_eq!(
            Ty::union(vec![en(&["a"]), Ty::Null, en(&["b"])]),
            Ty::optional(en(&["a", "b"]))
        );
        assert_eq!(Ty::union(vec![Ty::String, Ty::Any]), Ty::Any);
        assert_eq!(
            Ty::union(vec![Ty::String, Ty::Null, Ty::Int]).to_string(),
            "(string | int)?"
        );
        // Literals: a value of their own kind, equal numbers across kinds.
        assert!(lit(2).assignable_to(&levels));
        assert!(!lit(3).assignable_to(&levels));
        assert!(lit(2).assignable_to(&Ty::Decimal));
        assert!(Ty::Lit(Arc::new(Value::Decimal(2.into()))).assignable_to(&levels));
        assert!(!Ty::Lit(Arc::new(Value::Bool(true))).assignable_to(&lit(1)));
        assert!(!Ty::Int.assignable_to(&levels));
        assert!(levels.assignable_to(&Ty::Int));
        assert!(levels.is_ordered());
        assert!(si.is_ordered());
        assert!(!Ty::union(vec![Ty::String, Ty::Bool]).is_ordered());
        assert_eq!(levels.json_placeholder(), "<one of 1, 2, 5>");
        assert_eq!(levels.literal_values(), vec!["1", "2", "5"]);
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
        let map = Ty::Map(Arc::new(Ty::optional(Ty::Decimal)));
        assert_eq!(map.to_string(), "{ [string]: decimal? }");
        assert_eq!(map.json_placeholder(), r#"{"<key>": <number>}"#);
    }

    #[test]
    fn maps() {
        let map = Ty::Map(Arc::new(Ty::Decimal));
        let key = PathSeg::Field("Le Marais".into());
        assert_eq!(map.at_path(std::slice::from_ref(&key)), Some(Ty::Decimal));
        assert_eq!(
            Ty::optional(map.clone()).at_path(&[key]),
            Some(Ty::optional(Ty::Decimal))
        );
        assert_eq!(map.at_path(&[PathSeg::Index(0)]), None);
        assert!(Ty::Map(Arc::new(Ty::Int)).assignable_to(&map));
        assert!(!map.assignable_to(&Ty::Map(Arc::new(Ty::Int))));
        assert!(rec(&[("a", false, Ty::Int), ("b", true, Ty::Decimal)]).assignable_to(&map));
        assert!(!rec(&[("a", false, Ty::String)]).assignable_to(&map));
        assert!(!map.assignable_to(&rec(&[])));
        assert!(!map.assignable_to(&Ty::List(Arc::new(Ty::Decimal))));
        assert!(!map.is_scalar());
        assert_eq!(map.counted(), Counted::Nothing);
    }
}
