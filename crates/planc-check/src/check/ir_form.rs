//! The checked model's values, comparisons and probes in the IR's form
//! (`docs/ir.md`): what the lowering (`crate::ir::lower`) writes, and what
//! a replan's recorded values are decided with here, by the executor's own
//! `eval` over the very forms the executor will run (`docs/replanning.md`).
//! A pure change of shape of the model: nothing is decided here.

use planc_exec::ir::{self, literal};

use super::model::{InterpPiece, ProbeKind, RefValue, TypedValue, ValueKind};
use crate::syntax::ast;

/// The IR value of an argument; `None` when an error made it unknown.
/// `step_name` names the plan's step at an index: the model refers to a
/// step by its index, the IR by its name. Recursion is bounded by the
/// nesting cap of the front ends.
pub(crate) fn value(v: &TypedValue, step_name: &dyn Fn(usize) -> ir::Str) -> Option<ir::Value> {
    Some(match &v.kind {
        ValueKind::Literal(l) => ir::Value::Literal {
            literal: literal(l),
        },
        ValueKind::Ref(r) => reference(r, step_name),
        ValueKind::List(items) => ir::Value::List {
            items: items
                .iter()
                .map(|v| value(v, step_name))
                .collect::<Option<_>>()?,
        },
        ValueKind::Record(entries) => ir::Value::Record {
            fields: entries
                .iter()
                .map(|(k, v)| Some((k.clone(), value(v, step_name)?)))
                .collect::<Option<_>>()?,
        },
        ValueKind::Interp(parts) => ir::Value::Interpolate {
            parts: parts
                .iter()
                .map(|p| match p {
                    InterpPiece::Text(t) => ir::Value::Literal {
                        literal: ir::Literal::String(t.clone()),
                    },
                    InterpPiece::Ref { reference: r, .. } => reference(r, step_name),
                })
                .collect(),
        },
        ValueKind::Error => return None,
    })
}

fn reference(r: &RefValue, step_name: &dyn Fn(usize) -> ir::Str) -> ir::Value {
    ir::Value::Ref {
        binding: r.binding.clone(),
        step: step_name(r.step),
        path: r.members.clone(),
    }
}

pub(crate) fn cmp(op: ast::CmpOp) -> ir::CmpOp {
    match op {
        ast::CmpOp::Eq => ir::CmpOp::Eq,
        ast::CmpOp::Ne => ir::CmpOp::Ne,
        ast::CmpOp::Lt => ir::CmpOp::Lt,
        ast::CmpOp::Le => ir::CmpOp::Le,
        ast::CmpOp::Gt => ir::CmpOp::Gt,
        ast::CmpOp::Ge => ir::CmpOp::Ge,
    }
}

pub(crate) fn guard_op(op: ast::CmpOp) -> ir::GuardOp {
    match op {
        ast::CmpOp::Eq => ir::GuardOp::Eq,
        ast::CmpOp::Ne => ir::GuardOp::Ne,
        ast::CmpOp::Lt => ir::GuardOp::Lt,
        ast::CmpOp::Le => ir::GuardOp::Le,
        ast::CmpOp::Gt => ir::GuardOp::Gt,
        ast::CmpOp::Ge => ir::GuardOp::Ge,
    }
}

pub(crate) fn probe(p: &ProbeKind) -> ir::Probe {
    match p {
        ProbeKind::Len { path: p, op, value } => ir::Probe::Len {
            path: ir::path::write(p),
            op: cmp(*op),
            value: *value,
        },
        ProbeKind::Compare { path: p, op, value } => ir::Probe::Compare {
            path: ir::path::write(p),
            op: cmp(*op),
            value: literal(value),
        },
        ProbeKind::In {
            path: p,
            negated,
            values,
        } => {
            let values = values.iter().map(literal).collect();
            if *negated {
                ir::Probe::NotIn {
                    path: ir::path::write(p),
                    values,
                }
            } else {
                ir::Probe::In {
                    path: ir::path::write(p),
                    values,
                }
            }
        }
        ProbeKind::Contains { path: p, value } => ir::Probe::Contains {
            path: ir::path::write(p),
            value: literal(value),
        },
        ProbeKind::KeysContain { path: p, key } => ir::Probe::KeysContain {
            path: ir::path::write(p),
            key: key.clone(),
        },
        ProbeKind::Exists { path: p } => ir::Probe::Exists {
            path: ir::path::write(p),
        },
    }
}
