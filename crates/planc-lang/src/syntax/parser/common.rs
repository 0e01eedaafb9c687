//! The small parsers every declaration uses: spans, names, doc comments,
//! counts, comparison operators, literals, paths, `name:value` written
//! without a space, and comma-separated lists with their recovery.

use super::*;

pub(super) fn sp<'t, 's: 't, I: Toks<'t, 's>, E: SynErr<'t, I>>(
    e: &mut chumsky::input::MapExtra<'t, '_, I, Ex<E>>,
) -> Span {
    let s = e.span();
    st(e).span(s)
}

pub(super) fn st<'a, 't, 's: 't, I: Toks<'t, 's>, E: SynErr<'t, I>>(
    e: &'a mut chumsky::input::MapExtra<'t, '_, I, Ex<E>>,
) -> &'a mut State {
    e.state()
}

pub(super) fn raw_span<'t, 's: 't, I: Toks<'t, 's>, E: SynErr<'t, I>>(
    e: &mut chumsky::input::MapExtra<'t, '_, I, Ex<E>>,
) -> SimpleSpan {
    e.span()
}

pub(super) fn name_of(file: FileId, s: &str, span: SimpleSpan) -> Name {
    Spanned::new(Str::new(s), Span::new(file, span.start, span.end))
}

pub(super) fn word<'t, 's: 't, I: Toks<'t, 's>, E: SynErr<'t, I>>(
    w: &'static str,
) -> impl Parser<'t, I, Span, Ex<E>> + Clone {
    just(Token::Ident(w)).map_with(|_, e| sp(e))
}

pub(super) fn ident<'t, 's: 't, I: Toks<'t, 's>, E: SynErr<'t, I>>(
    file: FileId,
    label: &'static str,
) -> impl Parser<'t, I, Name, Ex<E>> + Clone {
    select! { Token::Ident(s) = e => name_of(file, s, e.span()) }.labelled(label)
}

pub(super) fn tool_name<'t, 's: 't, I: Toks<'t, 's>, E: SynErr<'t, I>>(
    file: FileId,
) -> impl Parser<'t, I, Name, Ex<E>> + Clone {
    select! {
        Token::Ident(s) = e => name_of(file, s, e.span()),
        Token::DottedName(s) = e => name_of(file, s, e.span()),
    }
    .labelled("a tool name")
}

pub(super) fn docs<'t, 's: 't, I: Toks<'t, 's>, E: SynErr<'t, I>>(
    file: FileId,
) -> impl Parser<'t, I, Doc, Ex<E>> + Clone {
    select! { Token::Doc(s) = e => (s, e.span()) }
        .repeated()
        .collect::<Vec<_>>()
        .map(move |lines: Vec<(&str, SimpleSpan)>| {
            let span = match (lines.first(), lines.last()) {
                (Some(a), Some(b)) => Some(Span::new(file, a.1.start, b.1.end)),
                _ => None,
            };
            Doc {
                lines: lines
                    .iter()
                    .map(|(s, _)| {
                        let t = s.strip_prefix("///").unwrap_or(s);
                        t.strip_prefix(' ').unwrap_or(t).trim_end().to_string()
                    })
                    .collect(),
                span,
            }
        })
}

/// A count: `replans 2`, `retry 3`.
pub(super) fn count<'t, 's: 't, I: Toks<'t, 's>, E: SynErr<'t, I>>()
-> impl Parser<'t, I, Spanned<u64>, Ex<E>> + Clone {
    select! { Token::Int(s) = e if !s.starts_with('-') => (s, e.span()) }
        .labelled("a whole number")
        .map_with(|(s, span), e| {
            let span = st(e).span(span);
            let n = match s.parse::<u64>() {
                Ok(n) => n,
                Err(_) => {
                    st(e).report(
                        Diagnostic::new(Code::E0002, span, format!("number `{s}` is too large"))
                            .with_label("too large")
                            .with_help(format!("a count is at most {}", u64::MAX)),
                    );
                    u64::MAX
                }
            };
            Spanned::new(n, span)
        })
}

pub(super) fn cmp_op<'t, 's: 't, I: Toks<'t, 's>, E: SynErr<'t, I>>()
-> impl Parser<'t, I, Spanned<ast::CmpOp>, Ex<E>> + Clone {
    select! {
        Token::EqEq => ast::CmpOp::Eq,
        Token::NotEq => ast::CmpOp::Ne,
        Token::Lt => ast::CmpOp::Lt,
        Token::Le => ast::CmpOp::Le,
        Token::Gt => ast::CmpOp::Gt,
        Token::Ge => ast::CmpOp::Ge,
    }
    .labelled("a comparison (`==`, `!=`, `<`, `<=`, `>`, `>=`)")
    .map_with(|op, e| Spanned::new(op, sp(e)))
}

/// A literal in a literal position (probes, ceilings): strings are plain
/// text. `None` for a literal the lexer already reported.
pub(super) fn literal<'t, 's: 't, I: Toks<'t, 's>, E: SynErr<'t, I>>()
-> impl Parser<'t, I, Option<Spanned<Literal>>, Ex<E>> + Clone {
    select! {
        Token::Str(s) => Some(Literal::String(literal::decode(s).into())),
        Token::Int(s) => Some(Literal::Int(Str::new(s))),
        Token::Decimal(s) => Some(Literal::Decimal(Str::new(s))),
        Token::Date(s) => Some(Literal::Date(Str::new(s))),
        Token::Datetime(s) => Some(Literal::Datetime(Str::new(s))),
        Token::Ident("true") => Some(Literal::Bool(true)),
        Token::Ident("false") => Some(Literal::Bool(false)),
        Token::Ident("null") => Some(Literal::Null),
        Token::BadLit(_) => None,
        Token::TooDeep => None,
    }
    .labelled("a literal")
    .map_with(|l, e| {
        let span = sp(e);
        l.map(|l| Spanned::new(l, span))
    })
}

/// `$.results[0].id`
pub(super) fn path<'t, 's: 't, I: Toks<'t, 's>, E: SynErr<'t, I>>()
-> impl Parser<'t, I, ast::Path, Ex<E>> + Clone {
    select! { Token::Path(s) = e => (s, e.span()) }
        .labelled("a path (`$`, `$.field`, `$.list[0]`)")
        .map_with(|(s, span), e| read_path(st(e), s, span))
}

pub(super) fn read_path(state: &mut State, s: &str, span: SimpleSpan) -> ast::Path {
    let file = state.file;
    let at = |r: &std::ops::Range<usize>| Span::new(file, span.start + r.start, span.start + r.end);
    // The lexer's path token has the path's shape, so only an index too
    // large for a `u64` is left to report here.
    let mut segments = Vec::with_capacity(crate::syntax::path::max_segments(s));
    for seg in crate::syntax::path::segments(s) {
        let Ok(seg) = seg else { break };
        if seg.too_large {
            let digits = s.get(seg.range.start + 1..seg.range.end - 1).unwrap_or("");
            state.report(
                Diagnostic::new(
                    Code::E0002,
                    at(&seg.range),
                    format!("index `{digits}` is too large"),
                )
                .with_label("too large"),
            );
        }
        segments.push(Spanned::new(seg.seg, at(&seg.range)));
    }
    ast::Path {
        root: None,
        segments,
        span: state.span(span),
    }
}

/// A `pre` probe's path: a binding name with its fields and indexes,
/// `settings.db_size_gb`, `tags[0].name`. What follows the first index is
/// read as a result path is (`syntax::path`).
pub(super) fn binding_path<'t, 's: 't, I: Toks<'t, 's>, E: SynErr<'t, I>>(
    file: FileId,
) -> impl Parser<'t, I, ast::Path, Ex<E>> + Clone {
    select! {
        Token::Ident(s) = e => (s, raw_span(e)),
        Token::DottedName(s) = e => (s, raw_span(e)),
        Token::IndexedName(s) = e => (s, raw_span(e)),
    }
    .labelled("a binding name, with its fields (`name`, `name.field`, `name[0].field`)")
    .map_with(move |(s, span): (&str, SimpleSpan), e| {
        let k = s.find('[').unwrap_or(s.len());
        let r = reference(file, s.get(..k).unwrap_or(s), span.start);
        let mut segments: Vec<Spanned<ast::PathSeg>> = r
            .members
            .into_iter()
            .map(|m| Spanned::new(ast::PathSeg::Field(m.node), m.span))
            .collect();
        if let Some(rest) = s.get(k..).filter(|rest| !rest.is_empty()) {
            // `$` stands one byte before the first `[`.
            let at = SimpleSpan::from(span.start + k - 1..span.end);
            segments.extend(read_path(st(e), &format!("${rest}"), at).segments);
        }
        ast::Path {
            root: Some(r.name),
            segments,
            span: Span::new(file, span.start, span.end),
        }
    })
}

/// A `name:value` written without a space, split at its first `:`. The
/// right side is lexed again as one token.
pub(super) fn split_scope(file: FileId, s: &str, span: SimpleSpan) -> (Name, &str, Span) {
    let colon = s.find(':').unwrap_or(s.len());
    let name = s.get(..colon).unwrap_or(s);
    let rest = s.get(colon + 1..).unwrap_or("");
    let rest_start = span.start + colon + 1;
    (
        Spanned::new(
            Str::new(name),
            Span::new(file, span.start, span.start + colon),
        ),
        rest,
        Span::new(file, rest_start, span.end),
    )
}

/// The value of a split `name:value`, reporting what cannot stand there.
pub(super) fn split_value(state: &mut State, name: &Name, rest: &str, span: Span) -> Expr {
    let kind = match single_token(rest) {
        Some(Token::Ident("true")) => ExprKind::Literal(Literal::Bool(true)),
        Some(Token::Ident("false")) => ExprKind::Literal(Literal::Bool(false)),
        Some(Token::Ident("null")) => ExprKind::Literal(Literal::Null),
        Some(Token::Ident(s)) | Some(Token::DottedName(s)) => {
            ExprKind::Ref(reference(span.file, s, span.start as usize))
        }
        Some(Token::Int(s)) => ExprKind::Literal(Literal::Int(Str::new(s))),
        Some(Token::Decimal(s)) => ExprKind::Literal(Literal::Decimal(Str::new(s))),
        Some(Token::Date(s)) => match literal::check_date(s) {
            Ok(()) => ExprKind::Literal(Literal::Date(Str::new(s))),
            Err(why) => {
                state.report(literal::invalid_date(span, s, &why));
                ExprKind::Error
            }
        },
        Some(Token::Datetime(s)) => match literal::check_datetime(s) {
            Ok(()) => ExprKind::Literal(Literal::Datetime(Str::new(s))),
            Err(why) => {
                state.report(literal::invalid_datetime(span, s, &why));
                ExprKind::Error
            }
        },
        Some(Token::BadNumber(s) | Token::BadDatetime(s)) => {
            state.report(
                Diagnostic::new(Code::E0002, span, format!("invalid literal `{s}`"))
                    .with_label("not a valid value"),
            );
            ExprKind::Error
        }
        _ => {
            state.report(
                Diagnostic::new(
                    Code::E0001,
                    span,
                    format!("expected a value after `{}:`, found `{rest}`", name.node),
                )
                .with_label("not a value")
                .with_help(format!(
                    "write `{}: VALUE` with a space after the colon",
                    name.node
                )),
            );
            ExprKind::Error
        }
    };
    Spanned::new(kind, span)
}

/// `name` or `name.member.member`, starting at byte `at`.
pub(super) fn reference(file: FileId, s: &str, at: usize) -> ast::Reference {
    let mut names = Vec::new();
    let mut pos = at;
    for part in s.split('.') {
        names.push(Spanned::new(
            ast::Str::from(part),
            Span::new(file, pos, pos + part.len()),
        ));
        pos += part.len() + 1;
    }
    let mut names = names.into_iter();
    let name = names
        .next()
        .unwrap_or_else(|| Spanned::new(ast::Str::default(), Span::point(file, at)));
    ast::Reference {
        name,
        members: names.collect(),
    }
}

/// A comma-separated list between delimiters, each element recovering up to
/// the next `,` or the close.
pub(super) fn list_of<'t, 's: 't, I, E, O, P, R>(
    elem: P,
    recovery: R,
    open: Token<'static>,
    d: Delim,
) -> impl Parser<'t, I, Vec<O>, Ex<E>> + Clone
where
    I: Toks<'t, 's>,
    E: SynErr<'t, I>,
    P: Parser<'t, I, Option<O>, Ex<E>> + Clone,
    R: Parser<'t, I, Option<O>, Ex<E>> + Clone,
{
    elem.recover_with(via_parser(before_close(d).ignore_then(recovery)))
        .separated_by(just(Token::Comma))
        .allow_trailing()
        .collect::<Vec<_>>()
        .map(|v| v.into_iter().flatten().collect())
        .delimited_by(just(open), close(d))
}

/// Fails, consuming nothing, at the delimiter that closes the list. An
/// element's recovery (which skips to the element's end) could skip
/// nothing there and would fail: this says so at once, for the element a
/// trailing comma or an empty list leaves out, which every list meets.
fn before_close<'t, 's: 't, I: Toks<'t, 's>, E: SynErr<'t, I>>(
    d: Delim,
) -> impl Parser<'t, I, (), Ex<E>> + Clone {
    let close = close_token(d);
    custom(move |inp| {
        let here = inp.save();
        let next = inp.next();
        let span = inp.span_since(here.cursor());
        inp.rewind(here);
        match next {
            Some(t) if t == close => Err(<E as LabelError<'t, I, &'static str>>::expected_found(
                [],
                Some(MaybeRef::Val(t)),
                span,
            )),
            _ => Ok(()),
        }
    })
}

/// An element recovery that keeps the element's name when it was read:
/// `name: <junk>` becomes the name with an error value.
pub(super) fn named_recovery<'t, 's: 't, I: Toks<'t, 's>, E: SynErr<'t, I>>(
    file: FileId,
    d: Delim,
) -> impl Parser<'t, I, (Option<Name>, Span), Ex<E>> + Clone {
    custom(move |inp| {
        let here = inp.save();
        let first = inp.next();
        let first_span = inp.span_since(here.cursor());
        let second = inp.next();
        inp.rewind(here);
        let span = skip(inp, Sync::Elem(d))?;
        let name = match (first, second) {
            (Some(Token::Ident(s)), Some(Token::Colon | Token::Question)) => {
                Some(name_of(file, s, first_span))
            }
            (Some(Token::Scope(s)), _) => Some(split_scope(file, s, first_span).0),
            _ => None,
        };
        Ok((name, Span::new(file, span.start, span.end)))
    })
}
