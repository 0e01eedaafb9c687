//! Several alternative types as one: their union with the alternatives that
//! agree merged (enums, literals, records field by field, lists).

use super::*;

/// One type for several: their union, with alternatives that agree joined
/// (enums merged, a string or `decimal` absorbing an enum or an `int`, a
/// literal absorbed by its own type, records merged field by field, lists
/// element by element), `null` making it optional and `any` swallowing
/// the rest.
pub(super) fn join(r: &mut Reader<'_>, tys: Vec<Type>, at: Span, span: Span) -> Type {
    let mut nullable = false;
    let mut out: Vec<Type> = Vec::new();
    let mut todo = tys;
    todo.reverse();
    while let Some(ty) = todo.pop() {
        match ty.node {
            TypeKind::Optional(inner) => {
                nullable = true;
                todo.push(*inner);
            }
            TypeKind::Prim(Prim::Null) => nullable = true,
            TypeKind::Prim(Prim::Any) => return any(span),
            TypeKind::Union(members) => todo.extend(members.into_iter().rev()),
            node => merge_into(r, &mut out, Spanned::new(node, ty.span), at, span),
        }
    }
    let one = match out.len() {
        0 if nullable => return Spanned::new(TypeKind::Prim(Prim::Null), span),
        0 => return any(span),
        1 => out
            .pop()
            .map(|t| Spanned::new(t.node, span))
            .unwrap_or_else(|| any(span)),
        _ => Spanned::new(TypeKind::Union(out), span),
    };
    if nullable { optional(one) } else { one }
}

/// Adds the alternative `b` to the members `out`: joined with the first
/// member it agrees with, else a member of its own.
pub(super) fn merge_into(r: &mut Reader<'_>, out: &mut Vec<Type>, b: Type, at: Span, span: Span) {
    for slot in out.iter_mut() {
        let a = std::mem::replace(slot, any(span));
        let joined = match (a.node, b.node.clone()) {
            (x, y)
                if same_type(
                    &Spanned::new(x.clone(), span),
                    &Spanned::new(y.clone(), span),
                ) =>
            {
                Some(x)
            }
            (TypeKind::Enum(mut x), TypeKind::Enum(y)) => {
                x.extend(
                    y.into_iter()
                        .filter(|v| !x.iter().any(|w| w.node == v.node))
                        .collect::<Vec<_>>(),
                );
                Some(TypeKind::Enum(x))
            }
            (TypeKind::Enum(_), TypeKind::Prim(Prim::String))
            | (TypeKind::Prim(Prim::String), TypeKind::Enum(_)) => {
                Some(TypeKind::Prim(Prim::String))
            }
            (TypeKind::Record(x), TypeKind::Record(y)) => {
                Some(join_records(r, x, y, at, span).node)
            }
            (TypeKind::List(x), TypeKind::List(y)) => {
                let elem = join(r, vec![*x, *y], at, span);
                Some(TypeKind::List(Box::new(elem)))
            }
            (TypeKind::Map(x), TypeKind::Map(y)) => {
                let values = join(r, vec![*x, *y], at, span);
                Some(TypeKind::Map(Box::new(values)))
            }
            (TypeKind::Prim(Prim::Int), TypeKind::Prim(Prim::Decimal))
            | (TypeKind::Prim(Prim::Decimal), TypeKind::Prim(Prim::Int)) => {
                Some(TypeKind::Prim(Prim::Decimal))
            }
            (TypeKind::Literal(l), TypeKind::Prim(p))
            | (TypeKind::Prim(p), TypeKind::Literal(l))
                if literal_of(&l, p) =>
            {
                Some(TypeKind::Prim(p))
            }
            (x, _) => {
                *slot = Spanned::new(x, a.span);
                None
            }
        };
        if let Some(node) = joined {
            *slot = Spanned::new(node, span);
            return;
        }
    }
    out.push(b);
}

/// Whether the literal `l` is a value of the primitive type `p`.
pub(super) fn literal_of(l: &Literal, p: Prim) -> bool {
    matches!(
        (l, p),
        (Literal::Bool(_), Prim::Bool)
            | (Literal::Int(_), Prim::Int | Prim::Decimal)
            | (Literal::Decimal(_), Prim::Decimal)
    )
}

/// Two alternative records as one: a field of both has both types joined,
/// a field of only one is optional.
pub(super) fn join_records(
    r: &mut Reader<'_>,
    a: Vec<Field>,
    b: Vec<Field>,
    at: Span,
    span: Span,
) -> Type {
    let mut out: Vec<Field> = Vec::with_capacity(a.len().max(b.len()));
    let mut rest = b;
    for f in a {
        match rest.iter().position(|g| g.name.node == f.name.node) {
            Some(i) => {
                let g = rest.remove(i);
                let ty = join(r, vec![f.ty, g.ty], at, f.span);
                out.push(Field {
                    optional: f.optional || g.optional,
                    ty,
                    ..f
                });
            }
            None => out.push(Field {
                optional: true,
                ..f
            }),
        }
    }
    out.extend(rest.into_iter().map(|g| Field {
        optional: true,
        ..g
    }));
    Spanned::new(TypeKind::Record(out), span)
}

/// Whether two types are the same, spans aside.
pub(super) fn same_type(a: &Type, b: &Type) -> bool {
    crate::catalog::Ty::from_ast(a) == crate::catalog::Ty::from_ast(b)
}
