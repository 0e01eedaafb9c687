//! Recovery: skipping balanced brackets to the next boundary of a level
//! (a declaration, an item, a clause, a list element, a closing delimiter)
//! and recording where it stopped.

use super::*;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Delim {
    Paren,
    Bracket,
    Brace,
}

pub(super) fn opener(t: &Token<'_>) -> Option<Delim> {
    match t {
        Token::LParen => Some(Delim::Paren),
        Token::LBracket => Some(Delim::Bracket),
        Token::LBrace => Some(Delim::Brace),
        _ => None,
    }
}

pub(super) fn closer(t: &Token<'_>) -> Option<Delim> {
    match t {
        Token::RParen => Some(Delim::Paren),
        Token::RBracket => Some(Delim::Bracket),
        Token::RBrace => Some(Delim::Brace),
        _ => None,
    }
}

pub(super) fn close_token(d: Delim) -> Token<'static> {
    match d {
        Delim::Paren => Token::RParen,
        Delim::Bracket => Token::RBracket,
        Delim::Brace => Token::RBrace,
    }
}

/// Where a recovery skips to.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Sync {
    /// The next declaration.
    Top,
    /// The next item of a policy, or its `}`.
    Policy,
    /// The next step (or budget line) of a plan, or its `}`.
    Plan,
    /// The next clause of a step, or its `}`.
    Clauses,
    /// The next element of a list closed by the delimiter: its `,` or close.
    Elem(Delim),
    /// The close of a list, which is consumed.
    Close(Delim),
}

pub(super) fn is_ident(t: Option<Token<'_>>, words: &[&str]) -> bool {
    matches!(t, Some(Token::Ident(s)) if words.contains(&s))
}

pub(super) fn is_name(t: Option<Token<'_>>) -> bool {
    matches!(t, Some(Token::Ident(_) | Token::DottedName(_)))
}

/// Whether the recovery stops before `t` (at bracket depth 0), `next` and
/// `third` being the tokens after it.
pub(super) fn stops(
    sync: Sync,
    t: Token<'_>,
    next: Option<Token<'_>>,
    third: Option<Token<'_>>,
) -> bool {
    let starts_decl =
        matches!(t, Token::Ident(w) if lexicon::DECLARATIONS.contains(&w)) && is_name(next);
    let starts_step = matches!(t, Token::Ident("step")) && matches!(next, Some(Token::Ident(_)));
    let starts_block = t == Token::LBrace
        && (next == Some(Token::RBrace) || is_ident(next, &lexicon::CLAUSES))
        && !matches!(third, Some(Token::Colon));
    match sync {
        Sync::Top => starts_decl || matches!(t, Token::Doc(_)),
        Sync::Policy => {
            starts_decl
                || (t == Token::Ident("actor") && next == Some(Token::LBracket))
                || (t == Token::Ident("max_steps") && matches!(next, Some(Token::Int(_))))
                || matches!(t, Token::DottedName(_))
                || (matches!(t, Token::Ident(_)) && is_ident(next, &lexicon::RULE_CLAUSES))
        }
        Sync::Plan => {
            starts_decl
                || starts_step
                || matches!(t, Token::Doc(_))
                || (matches!(t, Token::Ident("replans" | "max_steps"))
                    && matches!(next, Some(Token::Int(_))))
        }
        Sync::Clauses => {
            starts_decl
                || starts_step
                || matches!(t, Token::Doc(_))
                || matches!(t, Token::Ident("pre" | "post"))
                || (matches!(t, Token::Ident("bind" | "on_unmet" | "after"))
                    && matches!(next, Some(Token::Ident(_))))
                || (t == Token::Ident("retry") && matches!(next, Some(Token::Int(_))))
        }
        Sync::Elem(d) => {
            t == Token::Comma
                || starts_decl
                || starts_step
                || (d == Delim::Paren && (starts_block || t == Token::Arrow))
        }
        Sync::Close(d) => {
            starts_decl || starts_step || (d == Delim::Paren && (starts_block || t == Token::Arrow))
        }
    }
}

/// Skips tokens for a recovery, keeping brackets balanced; fails when it
/// cannot skip anything. Records where it stopped.
pub(super) fn skip<'t, 's: 't, I: Toks<'t, 's>, E: SynErr<'t, I>>(
    inp: &mut chumsky::input::InputRef<'t, '_, I, Ex<E>>,
    sync: Sync,
) -> Result<SimpleSpan, E> {
    let start = inp.cursor();
    let first = inp.save();
    inp.next();
    let from = inp.span_since(first.cursor()).start;
    inp.rewind(first);
    let mut stack: Vec<Delim> = Vec::new();
    let mut consumed = 0usize;
    // An item that failed is skipped from its first token on, even when that
    // token looks like the start of an item; a list element or a close is
    // not, so that a boundary right there is kept.
    let forced = matches!(sync, Sync::Top | Sync::Policy | Sync::Plan | Sync::Clauses);
    loop {
        let here = inp.save();
        let Some(t) = inp.next() else { break };
        let at = inp.span_since(here.cursor());
        let (next, third) = if stack.is_empty() {
            (inp.next(), inp.next())
        } else {
            (None, None)
        };
        inp.rewind(here.clone());
        if stack.is_empty()
            && !(forced && consumed == 0 && closer(&t).is_none())
            && stops(sync, t, next, third)
        {
            inp.state().sync.push((from, at.start));
            break;
        }
        if let Some(d) = opener(&t) {
            stack.push(d);
        } else if let Some(d) = closer(&t) {
            if let Some(pos) = stack.iter().rposition(|&o| o == d) {
                stack.truncate(pos);
            } else {
                // A close with no open of its own here: it belongs to an
                // enclosing level, or it is stray.
                let encloses = match sync {
                    Sync::Top => false,
                    Sync::Policy | Sync::Plan | Sync::Clauses => d == Delim::Brace,
                    Sync::Elem(c) | Sync::Close(c) => d == c || d == Delim::Brace,
                };
                if encloses {
                    if let Sync::Close(c) = sync
                        && c == d
                        && stack.is_empty()
                    {
                        inp.skip();
                        consumed += 1;
                        break;
                    }
                    inp.state().sync.push((from, at.start));
                    break;
                }
            }
        }
        inp.skip();
        consumed += 1;
    }
    if consumed == 0 {
        let here = inp.save();
        let found = inp.next();
        let span = inp.span_since(here.cursor());
        inp.rewind(here);
        return Err(<E as LabelError<'t, I, &'static str>>::expected_found(
            [],
            found.map(MaybeRef::Val),
            span,
        ));
    }
    Ok(inp.span_since(&start))
}

pub(super) fn skipper<'t, 's: 't, I: Toks<'t, 's>, E: SynErr<'t, I>>(
    sync: Sync,
) -> impl Parser<'t, I, SimpleSpan, Ex<E>> + Clone {
    custom(move |inp| skip(inp, sync))
}

/// A closing delimiter. When it is missing, skips to it (consuming it) or,
/// when a boundary comes first, goes on as if it were there; either way the
/// error is reported once.
pub(super) fn close<'t, 's: 't, I: Toks<'t, 's>, E: SynErr<'t, I>>(
    d: Delim,
) -> impl Parser<'t, I, (), Ex<E>> + Clone {
    just(close_token(d))
        .ignored()
        .recover_with(via_parser(skipper(Sync::Close(d)).ignored().or(empty())))
}
