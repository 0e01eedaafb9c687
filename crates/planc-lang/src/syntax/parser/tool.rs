//! Tool declarations: parameters, result type and attributes.

use super::*;

pub(super) enum Attr {
    Effect(ast::Effect),
    Idempotent,
    Untrusted,
    /// A word that is no attribute (already reported).
    Unknown,
}

/// A word after a tool's result type that is not an attribute, nor the
/// start of the next declaration: reported with the nearest attribute.
pub(super) fn unknown_attr<'t, 's: 't, I: Toks<'t, 's>, E: SynErr<'t, I>>()
-> impl Parser<'t, I, (Attr, Span), Ex<E>> + Clone {
    custom(|inp: &mut chumsky::input::InputRef<'t, '_, I, Ex<E>>| {
        let here = inp.save();
        let t = inp.next();
        let span = inp.span_since(here.cursor());
        let next = inp.next();
        inp.rewind(here);
        match t {
            Some(Token::Ident(w)) if !(lexicon::DECLARATIONS.contains(&w) && is_name(next)) => {
                inp.skip();
                let state = inp.state();
                let at = state.span(span);
                let mut d = Diagnostic::new(Code::E0001, at, format!("unknown tool attribute `{w}`"))
                    .with_label("not an attribute")
                    .with_note("the attributes are `read` or `write`, then `idempotent` and `untrusted` where they apply");
                if let Some(h) =
                    crate::suggest::did_you_mean(&crate::suggest::nearest(w, lexicon::TOOL_ATTRS))
                {
                    d = d.with_help(h);
                }
                state.report(d);
                Ok((Attr::Unknown, at))
            }
            found => Err(<E as LabelError<'t, I, &'static str>>::expected_found(
                [LABEL_ATTR],
                found.map(MaybeRef::Val),
                span,
            )),
        }
    })
}

pub(super) fn tool<'t, 's: 't, I: Toks<'t, 's>, E: SynErr<'t, I>>(
    file: FileId,
    doc: impl Parser<'t, I, Doc, Ex<E>> + Clone,
) -> impl Parser<'t, I, ast::ToolDecl, Ex<E>> + Clone {
    let ty = ty(file).boxed();
    let param = docs(file)
        .then(
            ident(file, "a parameter name")
                .then_ignore(just(Token::Colon))
                .then(ty.clone())
                .or(split_type(file))
                .labelled("a parameter name"),
        )
        .then(just(Token::Assign).ignore_then(expr(file, false)).or_not())
        .map_with(|((doc, (name, ty)), default), e| {
            Some(ast::Param {
                doc,
                name,
                ty,
                default,
                span: sp(e),
            })
        });
    let param_recovery = docs(file)
        .ignore_then(named_recovery(file, Delim::Paren))
        .map(|(name, span)| {
            name.map(|name| ast::Param {
                doc: Doc::default(),
                name,
                ty: Spanned::new(ast::TypeKind::Error, span),
                default: None,
                span,
            })
        });
    let params = list_of(param, param_recovery, Token::LParen, Delim::Paren);
    let attr = select! {
        Token::Ident("read") => Attr::Effect(ast::Effect::Read),
        Token::Ident("write") => Attr::Effect(ast::Effect::Write),
        Token::Ident("idempotent") => Attr::Idempotent,
        Token::Ident("untrusted") => Attr::Untrusted,
    }
    .labelled(LABEL_ATTR)
    .map_with(|a, e| (a, sp(e)))
    .or(unknown_attr());

    doc.then_ignore(word("tool"))
        .then(tool_name(file))
        .then(params)
        .then_ignore(just(Token::Arrow))
        .then(ty)
        .then(attr.repeated().collect::<Vec<_>>())
        .map_with(|((((doc, name), params), result), attrs), e| {
            let span = sp(e);
            let state = st(e);
            let mut effect: Option<Spanned<ast::Effect>> = None;
            let mut idempotent = None;
            let mut untrusted = None;
            let mut unknown = false;
            for (attr, at) in attrs {
                let (slot_taken, word) = match attr {
                    Attr::Effect(eff) => {
                        let taken = effect.is_some();
                        if let Some(prev) = effect {
                            let msg = if prev.node == eff {
                                format!("`{}` is given twice", eff.as_str())
                            } else {
                                format!(
                                    "a tool is either `read` or `write`, not both: `{}` is already given",
                                    prev.node.as_str()
                                )
                            };
                            state.report(
                                Diagnostic::new(Code::E0001, at, msg)
                                    .with_label("second effect")
                                    .with_secondary(prev.span, "first given here")
                                    .with_help("keep one effect: `write` if the tool changes anything outside the run"),
                            );
                        } else {
                            effect = Some(Spanned::new(eff, at));
                        }
                        (taken, "")
                    }
                    Attr::Idempotent => (
                        idempotent.replace(Spanned::new(true, at)).is_some(),
                        "idempotent",
                    ),
                    Attr::Untrusted => (untrusted.replace(at).is_some(), "untrusted"),
                    Attr::Unknown => {
                        unknown = true;
                        (false, "")
                    }
                };
                if slot_taken && !word.is_empty() {
                    state.report(Diagnostic::new(Code::E0001, at, format!("`{word}` is given twice")).with_label("again"));
                }
            }
            if effect.is_none() && !unknown {
                state.report(
                    Diagnostic::new(
                        Code::E0001,
                        name.span,
                        format!("tool `{}` does not say whether it reads or writes", name.node),
                    )
                    .with_label("no `read` or `write`")
                    .with_help("add `read` or `write` after the result type"),
                );
            }
            ast::ToolDecl {
                doc,
                name,
                params,
                result,
                effect,
                idempotent,
                untrusted,
                degraded: None,
                foreign: false,
                span,
            }
        })
}
