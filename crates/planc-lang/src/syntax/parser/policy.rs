//! Policy declarations: the actor, scopes and rules with their clauses.

use super::*;

pub(super) enum PolicyItem {
    Actor(Spanned<Vec<Name>>),
    MaxSteps(Spanned<u64>),
    Replans(Spanned<u64>),
    Rule(ast::PolicyRule),
}

/// One item of a `where` list.
pub(super) enum WhereItem {
    Ceiling(ast::Ceiling),
    Rule(ast::ArgRule),
    Calls(Spanned<u64>),
}

pub(super) enum RuleClause {
    Requires(Vec<Name>),
    Approval(Spanned<ast::Approval>),
    Where(Vec<WhereItem>),
    Untrusted(Span),
    Trusted(Span),
    Effect(Option<Spanned<ast::Effect>>),
    Idempotent(Spanned<bool>),
}

pub(super) fn scope_list<'t, 's: 't, I: Toks<'t, 's>, E: SynErr<'t, I>>(
    file: FileId,
) -> impl Parser<'t, I, Vec<Name>, Ex<E>> + Clone {
    let scope = select! {
        Token::Scope(s) = e => Some(name_of(file, s, e.span())),
        Token::Ident(s) = e => Some(name_of(file, s, e.span())),
    }
    .labelled("a scope");
    let recovery = skipper(Sync::Elem(Delim::Bracket)).map(|_| None);
    list_of(scope, recovery, Token::LBracket, Delim::Bracket)
}

/// Words and scopes written where a bracketed scope list belongs (after
/// `requires`), up to the next clause keyword: what the fix wraps.
pub(super) fn bare_words<'t, 's: 't, I: Toks<'t, 's>, E: SynErr<'t, I>>(
    file: FileId,
) -> impl Parser<'t, I, Vec<Name>, Ex<E>> + Clone {
    select! {
        Token::Scope(s) = e => name_of(file, s, e.span()),
        Token::Ident(s) = e if !lexicon::RULE_CLAUSES.contains(&s) => name_of(file, s, e.span()),
    }
    .separated_by(just(Token::Comma).or_not())
    .collect()
}

/// A token that cannot start the next rule or close the policy: what a
/// broken `where` clause skips.
pub(super) fn not_a_rule_start<'t, 's: 't, I: Toks<'t, 's>, E: SynErr<'t, I>>()
-> impl Parser<'t, I, (), Ex<E>> + Clone {
    any()
        .filter(|t: &Token<'_>| !match t {
            Token::DottedName(_) | Token::RBrace | Token::LBrace | Token::Doc(_) => true,
            Token::Ident(w) => {
                lexicon::RULE_CLAUSES.contains(w) || lexicon::DECLARATIONS.contains(w)
            }
            _ => false,
        })
        .ignored()
}

/// `WORD`, `WORD true` or `WORD false`: whether the flag is set (only
/// `false` unsets it), and the clause's span.
fn flag_clause<'t, 's: 't, I: Toks<'t, 's>, E: SynErr<'t, I>>(
    w: &'static str,
) -> impl Parser<'t, I, (bool, Span), Ex<E>> + Clone {
    word(w)
        .then(
            select! {
                Token::Ident("true") => true,
                Token::Ident("false") => false,
            }
            .or_not(),
        )
        .map_with(|(_, flag), e| (flag != Some(false), sp(e)))
}

pub(super) fn policy<'t, 's: 't, I: Toks<'t, 's>, E: SynErr<'t, I>>(
    file: FileId,
    doc: impl Parser<'t, I, Doc, Ex<E>> + Clone,
) -> impl Parser<'t, I, ast::PolicyDecl, Ex<E>> + Clone {
    let ceiling = ident(file, "an argument name")
        .then(cmp_op())
        .then(literal())
        .map_with(|((arg, op), limit), e| {
            let span = sp(e);
            limit.map(|limit| {
                WhereItem::Ceiling(ast::Ceiling {
                    arg,
                    op,
                    limit,
                    span,
                })
            })
        });
    // The rules of `docs/language.md` ("Rules"), tried before a ceiling:
    // `total` and `calls` are words only when the rule's shape follows
    // (`total <= 5` is a ceiling over an argument named `total`).
    let arg_rule = |kind: ast::ArgRuleKind, arg: Name, span: Span| {
        WhereItem::Rule(ast::ArgRule { arg, kind, span })
    };
    let value_list = list_of(
        literal(),
        skipper(Sync::Elem(Delim::Bracket)).map(|_| None),
        Token::LBracket,
        Delim::Bracket,
    )
    .map_with(|values, e| (values, sp(e)));
    let total = word("total")
        .ignore_then(ident(file, "an argument name"))
        .then_ignore(just(Token::Le))
        .then(literal())
        .then(
            word("per")
                .ignore_then(ident(file, "an argument name"))
                .or_not(),
        )
        .map_with(move |((arg, max), per), e| {
            let span = sp(e);
            max.map(|max| arg_rule(ast::ArgRuleKind::Total { max, per }, arg, span))
        });
    let calls = word("calls")
        .ignore_then(just(Token::Le))
        .ignore_then(count())
        .map(|n| Some(WhereItem::Calls(n)));
    let membership = ident(file, "an argument name")
        .then(word("not").or_not())
        .then_ignore(word("in"))
        .then(value_list)
        .map_with(move |((arg, not), (values, list)), e| {
            let span = sp(e);
            let kind = ast::ArgRuleKind::In {
                negated: not.is_some(),
                values,
                list,
            };
            Some(arg_rule(kind, arg, span))
        });
    // `x in[5]` written without a space lexes `in[5]` as one indexed name
    // (the token of a `pre` subject such as `tags[0]`): read here as the
    // one-number list it is. Only that exact shape: `in[5].a` or `in[5][6]`
    // stay what the lexer made of them, and are errors.
    let glued_membership = ident(file, "an argument name")
        .then(word("not").or_not())
        .then(select! {
            Token::IndexedName(s) = e if glued_in(s).is_some() => (s, e.span()),
        })
        .map_with(
            move |((arg, not), (s, at)): ((Name, Option<Span>), (&str, SimpleSpan)), e| {
                let span = sp(e);
                let digits = glued_in(s).unwrap_or_default();
                let start = at.start + "in[".len();
                let value = Spanned::new(
                    Literal::Int(Str::new(digits)),
                    Span::new(file, start, start + digits.len()),
                );
                let kind = ast::ArgRuleKind::In {
                    negated: not.is_some(),
                    values: vec![value],
                    list: Span::new(file, at.start + "in".len(), at.end),
                };
                Some(arg_rule(kind, arg, span))
            },
        );
    let matches_ = ident(file, "an argument name")
        .then_ignore(word("matches"))
        .then(literal())
        .map_with(move |(arg, pattern), e| {
            let span = sp(e);
            let state = st(e);
            match pattern {
                Some(Spanned {
                    node: Literal::String(p),
                    span: at,
                }) => Some(arg_rule(
                    ast::ArgRuleKind::Matches(Spanned::new(p, at)),
                    arg,
                    span,
                )),
                Some(other) => {
                    state.report(
                        Diagnostic::new(
                            Code::E0001,
                            other.span,
                            format!(
                                "`matches` takes a pattern in quotes, found {} `{}`",
                                other.node.kind_name(),
                                other.node.display()
                            ),
                        )
                        .with_label("not a string")
                        .with_help("write the regular expression as a string: `url matches \"^https://example\\.com/\"`"),
                    );
                    None
                }
                None => None,
            }
        });
    let trusted = ident(file, "an argument name")
        .then_ignore(word("trusted"))
        .map_with(move |arg, e| {
            let span = sp(e);
            Some(arg_rule(ast::ArgRuleKind::Trusted, arg, span))
        });
    let where_item = choice((
        total,
        calls,
        membership,
        glued_membership,
        matches_,
        trusted,
        ceiling,
    ));
    // Each clause keyword commits: what follows it is its clause or an
    // error, never the start of another rule. (Read leniently, `approval
    // Human` was a rule for a tool `approval` and one for `Human`, and the
    // real rule lost its approval.)
    let requires = word("requires")
        .then(scope_list(file).map(Ok).or(bare_words(file).map(Err)))
        .map_with(|(kw, scopes), e| match scopes {
            Ok(s) => RuleClause::Requires(s),
            Err(words) => {
                let state = st(e);
                let d = match words.as_slice() {
                    [] => Diagnostic::new(
                        Code::E0001,
                        kw,
                        "`requires` must be followed by a bracketed list of scopes",
                    )
                    .with_label("no `[` after `requires`")
                    .with_help("write the scopes in brackets: `requires [billing:write]`"),
                    [first, .., last] | [first @ last] => {
                        let span = first.span.to(last.span);
                        let list: Vec<&str> = words.iter().map(|w| w.node.as_str()).collect();
                        let fixed = format!("[{}]", list.join(", "));
                        Diagnostic::new(
                            Code::E0001,
                            span,
                            format!("expected `[` after `requires`, found `{}`", first.node),
                        )
                        .with_label("scopes without brackets")
                        .with_help(format!(
                            "the scopes of `requires` are a bracketed list: `requires {fixed}`"
                        ))
                        .with_fix(format!("write `{fixed}`"), span, fixed)
                    }
                };
                state.report(d);
                RuleClause::Requires(words)
            }
        });
    let after_approval = select! {
        Token::Ident(w) = e if !lexicon::RULE_CLAUSES.contains(&w) => name_of(file, w, e.span()),
    }
    .or_not();
    let approval = word("approval")
        .then(after_approval)
        .map_with(|(kw, next), e| {
            let state = st(e);
            match next {
                Some(h) if h.node == "human" => {}
                Some(other) => state.report(
                    Diagnostic::new(
                        Code::E0001,
                        other.span,
                        format!("expected `human` after `approval`, found `{}`", other.node),
                    )
                    .with_label("not `human`")
                    .with_help("the one approval there is is `approval human`")
                    .with_fix("replace with `human`", other.span, "human"),
                ),
                None => state.report(
                    Diagnostic::new(Code::E0001, kw, "`approval` must be followed by `human`")
                        .with_label("no `human` after `approval`")
                        .with_help("write `approval human`")
                        .with_fix("write `approval human`", kw, "approval human"),
                ),
            }
            // Even misspelt, the approval stands: the error stops the
            // compile, and nothing is ever read as less than was written.
            RuleClause::Approval(Spanned::new(ast::Approval::Human, sp(e)))
        });
    let where_ = word("where")
        .then(
            where_item
                .separated_by(just(Token::Comma))
                .at_least(1)
                .collect::<Vec<_>>()
                .map(Ok)
                .or(not_a_rule_start()
                    .repeated()
                    .collect::<Vec<_>>()
                    .map_with(|toks, e| Err((toks.len(), raw_span(e))))),
        )
        .map_with(|(kw, ceilings), e| match ceilings {
            Ok(v) => RuleClause::Where(v.into_iter().flatten().collect()),
            Err((n, at)) => {
                let span = if n == 0 {
                    kw
                } else {
                    Span::new(kw.file, at.start, at.end)
                };
                st(e).report(
                    Diagnostic::new(
                        Code::E0001,
                        span,
                        "`where` must be followed by a comparison such as `amount_eur <= 500`",
                    )
                    .with_label(if n == 0 {
                        "no comparison after `where`"
                    } else {
                        "not a comparison"
                    })
                    .with_help(
                        "a ceiling is an argument name, a comparison (`==`, `!=`, `<`, `<=`, `>`, `>=`) and a literal: `where amount_eur <= 500`; the other rules are `ARG in [...]`, `ARG not in [...]`, `ARG matches \"RE\"`, `ARG trusted`, `total ARG <= N per ARG2` and `calls <= N`",
                    ),
                );
                RuleClause::Where(Vec::new())
            }
        });
    // `effect read|write`: the keyword commits, like `approval`.
    let after_effect = select! {
        Token::Ident(w) = e if !lexicon::RULE_CLAUSES.contains(&w) => name_of(file, w, e.span()),
    }
    .or_not();
    let effect = word("effect")
        .then(after_effect)
        .map_with(|(kw, next), e| {
            let effect = match next.as_ref().map(|n| n.node.as_str()) {
                Some("read") => Some(ast::Effect::Read),
                Some("write") => Some(ast::Effect::Write),
                _ => None,
            };
            if effect.is_none() {
                let (at, msg) = match &next {
                    Some(other) => (
                        other.span,
                        format!("expected `read` or `write` after `effect`, found `{}`", other.node),
                    ),
                    None => (kw, "`effect` must be followed by `read` or `write`".to_string()),
                };
                st(e).report(
                    Diagnostic::new(Code::E0001, at, msg)
                        .with_label("not `read` or `write`")
                        .with_help("write `effect write` if the tool changes anything outside the run, else `effect read`"),
                );
            }
            RuleClause::Effect(effect.map(|eff| Spanned::new(eff, sp(e))))
        });
    let rule_clause = choice((
        requires,
        approval,
        where_,
        flag_clause("untrusted").map(|(set, span)| {
            if set {
                RuleClause::Untrusted(span)
            } else {
                RuleClause::Trusted(span)
            }
        }),
        effect,
        flag_clause("idempotent")
            .map(|(set, span)| RuleClause::Idempotent(Spanned::new(set, span))),
    ))
    .labelled(LABEL_RULE_CLAUSE);
    // `*`: the default rule, for every catalogue tool no other rule names.
    let star = just(Token::Star).map_with(move |_, e| name_of(file, "*", e.span()));
    let rule = tool_name(file)
        .or(star)
        .then(rule_clause.repeated().collect::<Vec<_>>())
        .map_with(|(tool, clauses), e| {
            let span = sp(e);
            if lexicon::RESERVED_IN_POLICY.contains(&tool.node.as_str()) {
                st(e).report(
                    Diagnostic::new(
                        Code::E0001,
                        tool.span,
                        format!("`{}` is a word of the policy, not a tool name", tool.node),
                    )
                    .with_label("not a rule")
                    .with_help(
                        "a rule is a tool name, then its clauses on the same rule: `billing.refund requires [billing:write] approval human`",
                    ),
                );
            }
            let mut rule = ast::PolicyRule {
                tool,
                requires: Vec::new(),
                approval: None,
                ceilings: Vec::new(),
                arg_rules: Vec::new(),
                calls: None,
                untrusted: None,
                trusted: None,
                effect: None,
                idempotent: None,
                span,
            };
            for c in clauses {
                match c {
                    RuleClause::Requires(s) => rule.requires.extend(s),
                    RuleClause::Approval(a) => rule.approval = Some(a),
                    RuleClause::Where(items) => {
                        for item in items {
                            match item {
                                WhereItem::Ceiling(c) => rule.ceilings.push(c),
                                WhereItem::Rule(r) => rule.arg_rules.push(r),
                                WhereItem::Calls(n) => {
                                    if let Some(prev) = &rule.calls {
                                        st(e).report(twice("calls", n.span, prev.span));
                                    }
                                    rule.calls = Some(n);
                                }
                            }
                        }
                    }
                    RuleClause::Untrusted(s) => rule.untrusted = Some(s),
                    RuleClause::Trusted(s) => rule.trusted = Some(s),
                    RuleClause::Effect(eff) => rule.effect = eff.or(rule.effect),
                    RuleClause::Idempotent(i) => rule.idempotent = Some(i),
                }
            }
            PolicyItem::Rule(rule)
        });
    let item = choice((
        word("actor")
            .ignore_then(scope_list(file))
            .map_with(|s, e| PolicyItem::Actor(Spanned::new(s, sp(e)))),
        word("max_steps")
            .ignore_then(count())
            .map(PolicyItem::MaxSteps),
        word("replans")
            .ignore_then(just(Token::Le))
            .ignore_then(count())
            .map(PolicyItem::Replans),
        rule,
    ))
    .map(Some)
    .labelled(LABEL_POLICY_ITEM)
    .recover_with(via_parser(skipper(Sync::Policy).map(|_| None)));

    doc.then_ignore(word("policy"))
        .then(ident(file, "a policy name"))
        .then(
            item.repeated()
                .collect::<Vec<_>>()
                .delimited_by(just(Token::LBrace), close(Delim::Brace)),
        )
        .map_with(|((doc, name), items), e| {
            let span = sp(e);
            let state = st(e);
            let mut decl = ast::PolicyDecl {
                doc,
                name,
                actor: None,
                max_steps: None,
                replans: None,
                rules: Vec::new(),
                span,
            };
            for item in items.into_iter().flatten() {
                match item {
                    PolicyItem::Actor(a) => {
                        if let Some(prev) = &decl.actor {
                            state.report(twice("actor", a.span, prev.span));
                        }
                        decl.actor = Some(a);
                    }
                    PolicyItem::MaxSteps(m) => {
                        if let Some(prev) = &decl.max_steps {
                            state.report(twice("max_steps", m.span, prev.span));
                        }
                        decl.max_steps = Some(m);
                    }
                    PolicyItem::Replans(m) => {
                        if let Some(prev) = &decl.replans {
                            state.report(twice("replans", m.span, prev.span));
                        }
                        decl.replans = Some(m);
                    }
                    PolicyItem::Rule(r) => decl.rules.push(r),
                }
            }
            decl
        })
}

pub(super) fn twice(what: &str, at: Span, first: Span) -> Diagnostic {
    Diagnostic::new(Code::E0001, at, format!("`{what}` is given twice"))
        .with_label("again")
        .with_secondary(first, "first given here")
}

/// The digits of `in[DIGITS]`, the token `x in[5]` makes without a space.
fn glued_in(token: &str) -> Option<&str> {
    let digits = token.strip_prefix("in[")?.strip_suffix(']')?;
    (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())).then_some(digits)
}
