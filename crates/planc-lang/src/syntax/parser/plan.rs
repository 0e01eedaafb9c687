//! Plan declarations: the budget, steps, clauses and probes.

use super::*;

pub(super) enum PlanItem {
    Replans(Spanned<u64>),
    MaxSteps(Spanned<u64>),
    Step(ast::Step),
}

/// What a probe says after its path; `None` for a literal already reported.
enum Tested {
    In(bool, Vec<Option<Spanned<Literal>>>),
    Contains(Option<Spanned<Literal>>),
    Compare(Spanned<ast::CmpOp>, Option<Spanned<Literal>>),
}

/// A probe whose paths `path` reads: `$` paths for `post`, binding paths
/// for `pre`.
pub(super) fn probe<'t, 's: 't, I: Toks<'t, 's>, E: SynErr<'t, I>>(
    path: impl Parser<'t, I, ast::Path, Ex<E>> + Clone + 't,
    label: &'static str,
) -> impl Parser<'t, I, ast::Probe, Ex<E>> + Clone {
    let len = word("len")
        .ignore_then(
            path.clone()
                .delimited_by(just(Token::LParen), just(Token::RParen)),
        )
        .then(cmp_op())
        .then(
            select! { Token::Int(s) => Some(Literal::Int(Str::new(s))), Token::BadLit(_) => None }
                .labelled("a whole number")
                .map_with(|l, e| {
                    let span = sp(e);
                    l.map(|l| Spanned::new(l, span))
                }),
        )
        .map(|((path, op), value)| match value {
            Some(value) => ast::ProbeKind::Len { path, op, value },
            None => ast::ProbeKind::Error,
        });
    // `keys(PATH) contains "K"`: the map at the path has the key.
    let keys = word("keys")
        .ignore_then(
            path.clone()
                .delimited_by(just(Token::LParen), just(Token::RParen)),
        )
        .then_ignore(word("contains"))
        .then(literal())
        .map(|(path, value)| match value {
            Some(value) => ast::ProbeKind::KeysContain { path, value },
            None => ast::ProbeKind::Error,
        });
    let exists = word("exists")
        .ignore_then(
            path.clone()
                .delimited_by(just(Token::LParen), just(Token::RParen)),
        )
        .map(|path| ast::ProbeKind::Exists { path });
    // What follows the path of `PATH in [...]`, `PATH contains LITERAL`
    // and `PATH OP LITERAL`: the path is read once, then the three ways
    // it can go on are tried (trying the three whole probes read it, and
    // reported its problems, up to three times).
    let values = literal()
        .separated_by(just(Token::Comma))
        .allow_trailing()
        .collect::<Vec<_>>()
        .delimited_by(just(Token::LBracket), just(Token::RBracket));
    let within = word("not")
        .or_not()
        .then_ignore(word("in"))
        .then(values)
        .map(|(not, values)| Tested::In(not.is_some(), values));
    let contains = word("contains")
        .ignore_then(literal())
        .map(Tested::Contains);
    let compare = cmp_op()
        .then(literal())
        .map(|(op, value)| Tested::Compare(op, value));
    let tested = path
        .then(choice((within, contains, compare)))
        .map(|(path, rest)| match rest {
            Tested::In(negated, values) => {
                let values: Option<Vec<_>> = values.into_iter().collect();
                match values {
                    Some(values) => ast::ProbeKind::In {
                        path,
                        negated,
                        values,
                    },
                    None => ast::ProbeKind::Error,
                }
            }
            Tested::Contains(Some(value)) => ast::ProbeKind::Contains { path, value },
            Tested::Compare(op, Some(value)) => ast::ProbeKind::Compare { path, op, value },
            Tested::Contains(None) | Tested::Compare(_, None) => ast::ProbeKind::Error,
        });
    choice((len, keys, exists, tested))
        .labelled(label)
        .map_with(|kind, e| ast::Probe { kind, span: sp(e) })
}

pub(super) fn clause<'t, 's: 't, I: Toks<'t, 's>, E: SynErr<'t, I>>(
    file: FileId,
) -> impl Parser<'t, I, ast::Clause, Ex<E>> + Clone {
    let on_unmet =
        select! { Token::Ident(s) = e if ast::OnUnmet::from_name(s).is_some() => (s, e.span()) }
            .labelled(LABEL_ON_UNMET)
            .map_with(|(s, _), e| {
                let v = ast::OnUnmet::from_name(s).unwrap_or(ast::OnUnmet::Replan);
                Spanned::new(v, sp(e))
            });
    choice((
        word("pre")
            .ignore_then(probe(binding_path(file), LABEL_PRE_PROBE))
            .map(ast::Clause::Pre),
        word("post")
            .ignore_then(probe(path(), LABEL_PROBE))
            .map(ast::Clause::Post),
        word("bind")
            .ignore_then(ident(file, "a binding name"))
            .then_ignore(just(Token::Assign))
            .then(path())
            .map_with(|(name, path), e| ast::Clause::Bind {
                name,
                path,
                span: sp(e),
            }),
        word("on_unmet")
            .then(on_unmet)
            .map(|(w, v)| ast::Clause::OnUnmet(Spanned::new(v.node, w.to(v.span)))),
        word("retry")
            .then(count())
            .map(|(w, n)| ast::Clause::Retry(Spanned::new(n.node, w.to(n.span)))),
        word("after")
            .ignore_then(
                ident(file, "a step name")
                    .separated_by(just(Token::Comma))
                    .at_least(1)
                    .collect::<Vec<_>>(),
            )
            .map_with(|steps, e| ast::Clause::After { steps, span: sp(e) }),
    ))
    .labelled(LABEL_CLAUSE)
    .recover_with(via_parser(
        skipper(Sync::Clauses).map_with(|_, e| ast::Clause::Error(sp(e))),
    ))
}

pub(super) fn step<'t, 's: 't, I: Toks<'t, 's>, E: SynErr<'t, I>>(
    file: FileId,
) -> impl Parser<'t, I, ast::Step, Ex<E>> + Clone {
    let value = expr(file, true).boxed();
    let spaced = ident(file, "an argument name")
        .then_ignore(just(Token::Colon))
        .then(value)
        .map_with(|(name, value), e| ast::Arg {
            name,
            value,
            span: sp(e),
        });
    let joined = select! { Token::Scope(s) = e => (s, e.span()) }.map_with(move |(s, span), e| {
        let (name, rest, rest_span) = split_scope(file, s, span);
        let value = split_value(st(e), &name, rest, rest_span);
        ast::Arg {
            name,
            value,
            span: st(e).span(span),
        }
    });
    let arg = spaced.or(joined).map(Some).labelled("an argument name");
    let arg_recovery = named_recovery(file, Delim::Paren).map(|(name, span)| {
        name.map(|name| ast::Arg {
            name,
            value: Spanned::new(ExprKind::Error, span),
            span,
        })
    });
    let args = list_of(arg, arg_recovery, Token::LParen, Delim::Paren);
    let clauses = clause(file)
        .repeated()
        .collect::<Vec<_>>()
        .delimited_by(just(Token::LBrace), close(Delim::Brace));

    docs(file)
        .then_ignore(word("step"))
        .then(ident(file, "a step name"))
        .then_ignore(just(Token::Assign))
        .then(tool_name(file))
        .then(args)
        .then(clauses.or_not())
        .map_with(|((((doc, name), tool), mut args), clauses), e| {
            // The collected vectors grew from a capacity of four: a step of
            // two clauses kept room for four (docs/performance.md).
            let mut clauses: Vec<ast::Clause> = clauses.unwrap_or_default();
            args.shrink_to_fit();
            clauses.shrink_to_fit();
            ast::Step {
                doc,
                name,
                tool,
                args,
                json_args: None,
                clauses,
                span: sp(e),
            }
        })
}

pub(super) fn plan<'t, 's: 't, I: Toks<'t, 's>, E: SynErr<'t, I>>(
    file: FileId,
    doc: impl Parser<'t, I, Doc, Ex<E>> + Clone,
) -> impl Parser<'t, I, ast::PlanDecl, Ex<E>> + Clone {
    let item = choice((
        word("replans").ignore_then(count()).map(PlanItem::Replans),
        word("max_steps")
            .ignore_then(count())
            .map(PlanItem::MaxSteps),
        step(file).map(PlanItem::Step),
    ))
    .map(Some)
    .labelled(LABEL_PLAN_ITEM)
    .recover_with(via_parser(skipper(Sync::Plan).map(|_| None)));
    let goal = select! {
        Token::Str(s) = e => Some(Spanned::new(literal::decode(s), { let r = raw_span(e); Span::new(file, r.start, r.end) })),
        Token::BadLit(_) => None,
    };

    doc.then_ignore(word("plan"))
        .then(ident(file, "a plan name"))
        .then(goal.or_not())
        .then(
            item.repeated()
                .collect::<Vec<_>>()
                .delimited_by(just(Token::LBrace), close(Delim::Brace)),
        )
        .map_with(|(((doc, name), goal), items), e| {
            let span = sp(e);
            let state = st(e);
            let mut decl = ast::PlanDecl {
                doc,
                name,
                goal: goal.flatten(),
                replans: None,
                max_steps: None,
                steps: Vec::with_capacity(items.len()),
                span,
            };
            for item in items.into_iter().flatten() {
                match item {
                    PlanItem::Replans(n) => {
                        if let Some(prev) = &decl.replans {
                            state.report(twice("replans", n.span, prev.span));
                        }
                        decl.replans = Some(n);
                    }
                    PlanItem::MaxSteps(n) => {
                        if let Some(prev) = &decl.max_steps {
                            state.report(twice("max_steps", n.span, prev.span));
                        }
                        decl.max_steps = Some(n);
                    }
                    PlanItem::Step(s) => decl.steps.push(s),
                }
            }
            if let Some(extra) = decl.steps.get(crate::limits::MAX_STEPS)
                && let Some(d) = crate::limits::too_many_steps(decl.steps.len(), extra.name.span)
            {
                state.report(d);
                decl.steps.truncate(crate::limits::MAX_STEPS);
            }
            decl
        })
}
