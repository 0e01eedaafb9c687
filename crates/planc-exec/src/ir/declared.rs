//! A catalogue's declared types and values in the IR's form: what the
//! lowering writes into `result_types`, `arg_types` and guards, and what
//! the MCP backend checks a tool's `structuredContent` against.

use smol_str::ToSmolStr;

use super::{FieldIr, Literal, Map, TypeIr};
use crate::catalog::{Ty, Value as CValue};

/// The type a bound value is checked against (`docs/ir.md`, "Types"):
/// `None` for `any`, which admits every value.
pub fn result_type(ty: &Ty) -> Option<TypeIr> {
    (!matches!(ty, Ty::Any | Ty::Error)).then(|| type_ir(ty))
}

/// A declared type in the IR's form. An error type (never lowered: the
/// lowering runs without errors) is `any`. Recursion is bounded by the
/// types' nesting cap (`crate::limits`).
pub fn type_ir(ty: &Ty) -> TypeIr {
    match ty {
        Ty::String => TypeIr::String,
        Ty::Int => TypeIr::Int,
        Ty::Decimal => TypeIr::Decimal,
        Ty::Bool => TypeIr::Bool,
        Ty::Date => TypeIr::Date,
        Ty::Datetime => TypeIr::Datetime,
        Ty::Null => TypeIr::Null,
        Ty::Any | Ty::Error => TypeIr::Any,
        Ty::List(inner) => TypeIr::List(Box::new(type_ir(inner))),
        Ty::Record(fields) => {
            let mut out = Map::with_capacity(fields.len());
            for f in fields.iter() {
                out.insert(
                    f.name.clone(),
                    FieldIr {
                        ty: type_ir(&f.ty),
                        optional: f.optional,
                    },
                );
            }
            TypeIr::Record(out)
        }
        Ty::Map(inner) => TypeIr::Map(Box::new(type_ir(inner))),
        Ty::Enum(values) => TypeIr::Enum(values.to_vec()),
        Ty::Lit(v) => TypeIr::Lit(literal(v)),
        Ty::Union(members) => TypeIr::Union(members.iter().map(type_ir).collect()),
        Ty::Optional(inner) => TypeIr::Optional(Box::new(type_ir(inner))),
    }
}

/// A catalogue value as an IR literal (a guard's limit).
pub fn literal(v: &CValue) -> Literal {
    match v {
        CValue::String(s) => Literal::String(s.clone()),
        CValue::Int(i) => Literal::Int(*i),
        CValue::Decimal(d) => Literal::Decimal(d.to_smolstr()),
        CValue::Bool(b) => Literal::Bool(*b),
        CValue::Null => Literal::Null,
        CValue::Date(d) => Literal::Date(d.to_smolstr()),
        CValue::Datetime(d) => Literal::Datetime(d.to_smolstr()),
    }
}
