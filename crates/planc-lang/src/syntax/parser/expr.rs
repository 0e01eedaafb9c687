//! Expressions (argument values) and types.

use super::*;

pub(super) fn expr<'t, 's: 't, I: Toks<'t, 's>, E: SynErr<'t, I>>(
    file: FileId,
    interp: bool,
) -> impl Parser<'t, I, Expr, Ex<E>> + Clone {
    recursive(move |expr| {
        let atom = select! {
            Token::Str(s) = e => {
                let span = raw_span(e);
                if interp {
                    match literal::decode_interp(file, span.start, s) {
                        Ok(k) => k,
                        Err(d) => {
                            st(e).report(*d);
                            ExprKind::Error
                        }
                    }
                } else {
                    ExprKind::Literal(Literal::String(literal::decode(s).into()))
                }
            },
            Token::Int(s) => ExprKind::Literal(Literal::Int(Str::new(s))),
            Token::Decimal(s) => ExprKind::Literal(Literal::Decimal(Str::new(s))),
            Token::Date(s) => ExprKind::Literal(Literal::Date(Str::new(s))),
            Token::Datetime(s) => ExprKind::Literal(Literal::Datetime(Str::new(s))),
            Token::Ident("true") => ExprKind::Literal(Literal::Bool(true)),
            Token::Ident("false") => ExprKind::Literal(Literal::Bool(false)),
            Token::Ident("null") => ExprKind::Literal(Literal::Null),
            Token::Ident(s) = e => ExprKind::Ref(reference(file, s, raw_span(e).start)),
            Token::DottedName(s) = e => ExprKind::Ref(reference(file, s, raw_span(e).start)),
            Token::BadLit(_) => ExprKind::Error,
            Token::TooDeep => ExprKind::Error,
        }
        .map_with(|k, e| Spanned::new(k, sp(e)));

        let list_elem = expr.clone().map(Some);
        let list_recovery = skipper(Sync::Elem(Delim::Bracket))
            .map_with(|_, e| Some(Spanned::new(ExprKind::Error, sp(e))));
        let list = list_of(list_elem, list_recovery, Token::LBracket, Delim::Bracket)
            .map_with(|items, e| Spanned::new(ExprKind::List(items), sp(e)));

        let entry = entry(file, expr.clone());
        let entry_recovery = named_recovery(file, Delim::Brace).map(|(name, span)| {
            name.map(|name| ast::RecordEntry {
                name,
                value: Spanned::new(ExprKind::Error, span),
            })
        });
        let record = list_of(entry.map(Some), entry_recovery, Token::LBrace, Delim::Brace)
            .map_with(|entries, e| Spanned::new(ExprKind::Record(entries), sp(e)));

        choice((atom, list, record)).labelled("a value").boxed()
    })
}

/// `name: value`, or `name:value` written without a space.
pub(super) fn entry<'t, 's: 't, I: Toks<'t, 's>, E: SynErr<'t, I>>(
    file: FileId,
    value: impl Parser<'t, I, Expr, Ex<E>> + Clone,
) -> impl Parser<'t, I, ast::RecordEntry, Ex<E>> + Clone {
    let spaced = ident(file, "a name")
        .then_ignore(just(Token::Colon))
        .then(value)
        .map(|(name, value)| ast::RecordEntry { name, value });
    let joined = select! { Token::Scope(s) = e => (s, e.span()) }.map_with(move |(s, span), e| {
        let (name, rest, rest_span) = split_scope(file, s, span);
        let value = split_value(st(e), &name, rest, rest_span);
        ast::RecordEntry { name, value }
    });
    spaced.or(joined).labelled("a name")
}

pub(super) fn ty<'t, 's: 't, I: Toks<'t, 's>, E: SynErr<'t, I>>(
    file: FileId,
) -> impl Parser<'t, I, ast::Type, Ex<E>> + Clone {
    recursive(move |ty| {
        let prim = select! {
            Token::Ident(s) if ast::Prim::from_name(s).is_some() => {
                ast::Prim::from_name(s).map(ast::TypeKind::Prim).unwrap_or(ast::TypeKind::Error)
            },
            Token::TooDeep => ast::TypeKind::Error,
        };
        // A literal as a type: a string is an enum of that one value (a
        // union of strings merges into one enum below), a number or a
        // boolean names that value.
        let lit_ty = select! {
            Token::Str(s) = e => ast::TypeKind::Enum(vec![Spanned::new(literal::decode(s).into(), { let r = raw_span(e); Span::new(file, r.start, r.end) })]),
            Token::BadLit(_) => ast::TypeKind::Error,
            Token::Int(s) => ast::TypeKind::Literal(ast::Literal::Int(Str::new(s))),
            Token::Decimal(s) => ast::TypeKind::Literal(ast::Literal::Decimal(Str::new(s))),
            Token::Ident("true") => ast::TypeKind::Literal(ast::Literal::Bool(true)),
            Token::Ident("false") => ast::TypeKind::Literal(ast::Literal::Bool(false)),
        };
        let list = ty
            .clone()
            .delimited_by(just(Token::LBracket), close(Delim::Bracket))
            .map(|t| ast::TypeKind::List(Box::new(t)));

        let field =
            docs(file)
                .then(field(file, ty.clone()))
                .map_with(|(doc, (name, optional, ty)), e| {
                    Some(ast::Field {
                        doc,
                        name,
                        optional,
                        ty,
                        span: sp(e),
                    })
                });
        let field_recovery = docs(file)
            .ignore_then(named_recovery(file, Delim::Brace))
            .map(|(name, span)| {
                name.map(|name| ast::Field {
                    doc: Doc::default(),
                    name,
                    optional: false,
                    ty: Spanned::new(ast::TypeKind::Error, span),
                    span,
                })
            });
        let record =
            list_of(field, field_recovery, Token::LBrace, Delim::Brace).map(ast::TypeKind::Record);

        // `{[string]: T}`: tried before a record, which it starts as.
        let map = just(Token::LBrace)
            .ignore_then(just(Token::LBracket))
            .ignore_then(word("string"))
            .ignore_then(just(Token::RBracket))
            .ignore_then(just(Token::Colon))
            .ignore_then(ty.clone())
            .then_ignore(just(Token::Comma).or_not())
            .then_ignore(close(Delim::Brace))
            .map(|t| ast::TypeKind::Map(Box::new(t)));

        let atom =
            choice((prim, list, map, record, lit_ty)).map_with(|k, e| Spanned::new(k, sp(e)));
        // `A | B | …`: the members after the first are collected apart, so
        // that a type of one member (nearly every type) allocates nothing.
        let union = atom
            .clone()
            .then(
                just(Token::Pipe)
                    .ignore_then(atom)
                    .repeated()
                    .collect::<Vec<_>>(),
            )
            .map_with(|(first, rest), e| union_type(first, rest, sp(e)));
        union
            .then(just(Token::Question).map_with(|_, e| sp(e)).or_not())
            .map(|(t, q)| match q {
                Some(q) => {
                    let span = t.span.to(q);
                    Spanned::new(ast::TypeKind::Optional(Box::new(t)), span)
                }
                None => t,
            })
            .labelled(LABEL_TYPE)
            .boxed()
    })
}

/// The members of `A | B | …` (the first, then the rest) as one type: a
/// single member is itself, members that are all strings are one enum,
/// anything else a union.
pub(super) fn union_type(first: ast::Type, rest: Vec<ast::Type>, span: Span) -> ast::Type {
    if rest.is_empty() {
        return first;
    }
    let mut members = Vec::with_capacity(rest.len() + 1);
    members.push(first);
    members.extend(rest);
    if members
        .iter()
        .any(|m| matches!(m.node, ast::TypeKind::Error))
    {
        return Spanned::new(ast::TypeKind::Error, span);
    }
    if members
        .iter()
        .all(|m| matches!(m.node, ast::TypeKind::Enum(_)))
    {
        let values = members
            .into_iter()
            .flat_map(|m| match m.node {
                ast::TypeKind::Enum(vs) => vs,
                _ => Vec::new(),
            })
            .collect();
        return Spanned::new(ast::TypeKind::Enum(values), span);
    }
    Spanned::new(ast::TypeKind::Union(members), span)
}

/// `name: T`, `name?: T`, or `name:T` written without a space.
pub(super) fn field<'t, 's: 't, I: Toks<'t, 's>, E: SynErr<'t, I>>(
    file: FileId,
    ty: impl Parser<'t, I, ast::Type, Ex<E>> + Clone,
) -> impl Parser<'t, I, (Name, bool, ast::Type), Ex<E>> + Clone {
    let spaced = ident(file, "a field name")
        .then(just(Token::Question).or_not())
        .then_ignore(just(Token::Colon))
        .then(ty)
        .map(|((name, q), ty)| (name, q.is_some(), ty));
    let joined = split_type(file).map(|(name, ty)| (name, false, ty));
    spaced.or(joined).labelled("a field name")
}

/// `name:T` (and `name:T?`) written without a space.
pub(super) fn split_type<'t, 's: 't, I: Toks<'t, 's>, E: SynErr<'t, I>>(
    file: FileId,
) -> impl Parser<'t, I, (Name, ast::Type), Ex<E>> + Clone {
    select! { Token::Scope(s) = e => (s, e.span()) }
        .map_with(move |(s, span), e| {
            let (name, rest, rest_span) = split_scope(file, s, span);
            let kind = match ast::Prim::from_name(rest) {
                Some(p) => ast::TypeKind::Prim(p),
                None => {
                    st(e).report(
                        Diagnostic::new(Code::E0001, rest_span, format!("expected a type, found `{rest}`"))
                            .with_label("not a type")
                            .with_help("the types are `string`, `int`, `decimal`, `bool`, `date`, `datetime`, `null`, `any`, `[T]`, `{ name: T }`, `\"a\" | \"b\"` and `T?`"),
                    );
                    ast::TypeKind::Error
                }
            };
            (name, Spanned::new(kind, rest_span))
        })
        .then(just(Token::Question).map_with(|_, e| sp(e)).or_not())
        .map(|((name, t), q)| match q {
            Some(q) => {
                let span = t.span.to(q);
                (name, Spanned::new(ast::TypeKind::Optional(Box::new(t)), span))
            }
            None => (name, t),
        })
}
