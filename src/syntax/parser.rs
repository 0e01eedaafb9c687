//! The parser of the text form: chumsky over the lexer's tokens, producing
//! the [`ast`] with error nodes. It never fails.
//!
//! Recovery happens at the boundaries a reader sees: a declaration (`tool`,
//! `policy`, `plan`), a policy item, a plan item or step, a clause, an
//! element of a list (arguments, parameters, fields, entries, scopes), and a
//! closing delimiter. Each recovery skips balanced brackets up to the next
//! boundary of its level and records where it stopped, so that an error
//! right there (a consequence of the first) is not reported twice.
//!
//! The grammar is generic over chumsky's error type: [`parse`] runs it with
//! the zero-cost `EmptyErr` first, and only when that finds a syntax error
//! runs it again with `Rich` errors to describe them.

use chumsky::error::{EmptyErr, LabelError, Rich, RichPattern, RichReason};
use chumsky::extra;
use chumsky::input::{Checkpoint, Cursor, Input, ValueInput};
use chumsky::inspector::Inspector;
use chumsky::prelude::*;
use chumsky::util::MaybeRef;

use super::ast::{self, Doc, Expr, ExprKind, Literal, Name};
use super::lexer::{SpannedToken, Token, single_token};
use super::literal;
use crate::diagnostics::{Code, Diagnostic};
use crate::source::{FileId, Span, Spanned};

// ---------------------------------------------------------------- state

/// The parser's side channel: diagnostics that are not syntax errors (a
/// bad literal inside `name:value`, a duplicate attribute), and the offsets
/// where a recovery stopped. Both are truncated when chumsky backtracks, so
/// an abandoned reading leaves nothing behind.
pub struct State {
    file: FileId,
    diags: Vec<Diagnostic>,
    /// Recoveries that stopped at a boundary: the offsets where each started
    /// and where it stopped.
    sync: Vec<(usize, usize)>,
}

impl State {
    fn new(file: FileId) -> State {
        State {
            file,
            diags: Vec::new(),
            sync: Vec::new(),
        }
    }

    fn span(&self, s: SimpleSpan) -> Span {
        Span::new(self.file, s.start, s.end)
    }

    fn report(&mut self, d: Diagnostic) {
        self.diags.push(d);
    }
}

impl<'t, I: Input<'t>> Inspector<'t, I> for State {
    type Checkpoint = (usize, usize);

    fn on_token(&mut self, _: &I::Token) {}

    fn on_save<'p>(&self, _: &Cursor<'t, 'p, I>) -> (usize, usize) {
        (self.diags.len(), self.sync.len())
    }

    fn on_rewind<'p>(&mut self, cp: &Checkpoint<'t, 'p, I, (usize, usize)>) {
        let (d, s) = *cp.inspector();
        self.diags.truncate(d);
        self.sync.truncate(s);
    }
}

type Ex<E> = extra::Full<E, State, ()>;

/// The error types the grammar runs with (`EmptyErr` and `Rich`).
pub trait SynErr<'t, I: Input<'t>>:
    chumsky::error::Error<'t, I> + LabelError<'t, I, &'static str> + 't
{
}
impl<'t, I: Input<'t>, T> SynErr<'t, I> for T where
    T: chumsky::error::Error<'t, I> + LabelError<'t, I, &'static str> + 't
{
}

/// A token input over the lexer's output.
pub trait Toks<'t, 's: 't>: ValueInput<'t, Token = Token<'s>, Span = SimpleSpan> {}
impl<'t, 's: 't, T> Toks<'t, 's> for T where T: ValueInput<'t, Token = Token<'s>, Span = SimpleSpan> {}

// ---------------------------------------------------------------- entry point

/// What the parser found: the tree, its syntax errors (E0001), and the
/// diagnostics of its side channel.
pub struct Parsed {
    pub module: ast::Module,
    pub diagnostics: Vec<Diagnostic>,
}

/// How [`parse`] runs the grammar.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    /// With `EmptyErr` first, and again with `Rich` only when that finds a
    /// syntax error. The default.
    FastThenRich,
    /// With `Rich` at once (for benchmarks).
    RichOnly,
}

/// Parses the lexer's tokens. `quiet` (sorted) holds offsets at which the
/// lexer already reported a problem; `len` is the length of the text.
pub fn parse(
    file: FileId,
    tokens: &[SpannedToken<'_>],
    quiet: &[usize],
    len: usize,
    strategy: Strategy,
) -> Parsed {
    let eoi = SimpleSpan::from(len..len);
    if strategy == Strategy::FastThenRich {
        // A cheap error type suffices when there is no error.
        let mut state = State::new(file);
        let fast =
            module::<_, EmptyErr>(file).parse_with_state(tokens.split_token_span(eoi), &mut state);
        if !fast.has_errors() {
            let module = fast.into_output().unwrap_or_default();
            return Parsed {
                module,
                diagnostics: finish(state.diags),
            };
        }
    }
    let mut state = State::new(file);
    let (module, errors) = module::<_, Rich<'_, Token<'_>>>(file)
        .parse_with_state(tokens.split_token_span(eoi), &mut state)
        .into_output_errors();
    let mut diagnostics = Vec::new();
    let mut seen = std::collections::HashSet::new();
    // Each recovery explains one error: the first in its range. A later
    // error where it stopped only repeats it. Recoveries do not overlap
    // much, so looking at the few that start last before an error is
    // enough, and keeps this linear.
    let mut sync = state.sync;
    sync.sort_unstable();
    sync.dedup();
    let mut used = vec![false; sync.len()];
    let mut used_stops = std::collections::HashSet::new();
    for e in errors {
        let at = e.span().start;
        let found = e.found().copied();
        if found.is_some_and(|t| t.is_reported())
            || quiet.binary_search(&at).is_ok()
            || seen.contains(&at)
        {
            continue;
        }
        let upto = sync.partition_point(|&(from, _)| from <= at);
        let explains = (upto.saturating_sub(8)..upto).rev().find(|&i| {
            sync.get(i).is_some_and(|&(_, stop)| at <= stop) && used.get(i) == Some(&false)
        });
        match explains {
            Some(i) => {
                if let Some(u) = used.get_mut(i) {
                    *u = true;
                }
                if let Some(&(_, stop)) = sync.get(i) {
                    used_stops.insert(stop);
                }
            }
            None if used_stops.contains(&at) => continue,
            None => {}
        }
        seen.insert(at);
        diagnostics.push(describe(file, &e));
    }
    diagnostics.extend(finish(state.diags));
    Parsed {
        module: module.unwrap_or_default(),
        diagnostics,
    }
}

/// Removes the duplicates a re-read of the same text may leave.
fn finish(mut diags: Vec<Diagnostic>) -> Vec<Diagnostic> {
    diags.sort_by_key(|d| (d.span.start, d.span.end, d.code));
    diags.dedup_by(|a, b| a.span == b.span && a.code == b.code && a.message == b.message);
    diags
}

/// Turns a chumsky error into an E0001 diagnostic.
fn describe(file: FileId, e: &Rich<'_, Token<'_>>) -> Diagnostic {
    let span = Span::new(file, e.span().start, e.span().end);
    let found = match e.found() {
        Some(t) => t.describe(),
        None => "end of input".to_string(),
    };
    let diag = match e.reason() {
        RichReason::Custom(msg) => Diagnostic::new(Code::E0001, span, msg.clone()),
        RichReason::ExpectedFound { expected, .. } => {
            let mut items: Vec<String> = Vec::new();
            for p in expected {
                let item = match p {
                    RichPattern::Token(t) => t.describe(),
                    RichPattern::Label(l) => l.to_string(),
                    RichPattern::EndOfInput => "end of input".to_string(),
                    RichPattern::Identifier(s) => format!("`{s}`"),
                    _ => continue,
                };
                if !items.contains(&item) {
                    items.push(item);
                }
            }
            let list = join_or(&items);
            let help = match e.found() {
                Some(Token::Ident(w)) => {
                    let words: Vec<&str> = expected.iter().flat_map(keywords_of).collect();
                    crate::suggest::did_you_mean(&crate::suggest::nearest(w, words))
                }
                Some(Token::Path(_))
                    if expected
                        .iter()
                        .any(|p| matches!(p, RichPattern::Label(l) if l.as_ref() == LABEL_PRE_PROBE)) =>
                {
                    Some("a `pre` probe tests an artifact of an earlier step: its path starts with a binding name, not `$`, such as `settings.region`".to_string())
                }
                _ => None,
            };
            // Without a near keyword to suggest, say what may stand here:
            // with the message, enough for a planner to repair the text.
            let help = help.or_else(|| {
                if list.is_empty() {
                    None
                } else if e.found().is_none() {
                    Some(format!(
                        "the file ends where {list} is still expected: is a bracket or a brace left open?"
                    ))
                } else {
                    Some(format!("only {list} can come here"))
                }
            });
            let diag = if list.is_empty() {
                Diagnostic::new(Code::E0001, span, format!("unexpected {found}"))
                    .with_label("unexpected here")
            } else {
                Diagnostic::new(Code::E0001, span, format!("expected {list}, found {found}"))
                    .with_label(format!("expected {list}"))
            };
            match help {
                Some(h) => diag.with_help(h),
                None => diag,
            }
        }
    };
    match e.found() {
        Some(Token::Doc(_)) => diag.with_help(
            "a doc comment (`///`) documents the declaration, parameter, field or step that follows it; write `//` for a plain comment",
        ),
        _ => diag,
    }
}

/// The keywords an expected item stands for, to suggest the nearest to a
/// misspelt one.
fn keywords_of(p: &RichPattern<'_, Token<'_>>) -> Vec<&'static str> {
    match p {
        RichPattern::Token(t) => match &**t {
            Token::Ident(w) => KEYWORDS.iter().copied().filter(|k| k == w).collect(),
            _ => Vec::new(),
        },
        RichPattern::Label(l) => match l.as_ref() {
            LABEL_DECL => vec!["tool", "policy", "plan"],
            LABEL_PLAN_ITEM => vec!["step", "replans", "max_steps"],
            LABEL_POLICY_ITEM => vec!["actor", "max_steps"],
            LABEL_CLAUSE => CLAUSE_WORDS.to_vec(),
            LABEL_RULE_CLAUSE => RULE_WORDS.to_vec(),
            LABEL_ATTR => vec!["read", "write", "idempotent", "untrusted"],
            LABEL_ON_UNMET => vec!["replan", "halt", "escalate"],
            LABEL_TYPE => ast::Prim::ALL.iter().map(|p| p.as_str()).collect(),
            LABEL_PROBE | LABEL_PRE_PROBE => vec!["len", "exists"],
            _ => Vec::new(),
        },
        _ => Vec::new(),
    }
}

const KEYWORDS: [&str; 16] = [
    "tool", "policy", "plan", "step", "pre", "post", "bind", "on_unmet", "retry", "after",
    "requires", "approval", "where", "human", "in", "contains",
];
const LABEL_DECL: &str = "a declaration (`tool`, `policy` or `plan`)";
const LABEL_PLAN_ITEM: &str = "a step";
const LABEL_POLICY_ITEM: &str = "a policy rule";
const LABEL_CLAUSE: &str = "a clause (`pre`, `post`, `bind`, `on_unmet`, `retry`, `after`)";
const LABEL_RULE_CLAUSE: &str = "a rule clause (`requires`, `approval`, `where`, `untrusted`)";
const LABEL_ATTR: &str = "a tool attribute (`read`, `write`, `idempotent`, `untrusted`)";
const LABEL_ON_UNMET: &str = "`replan`, `halt` or `escalate`";
const LABEL_TYPE: &str = "a type";
const LABEL_PROBE: &str = "a probe (`len($.x) == 1`, `$.x == value`, `$.x in [...]`, `$.x contains value`, `exists($.x)`)";
const LABEL_PRE_PROBE: &str = "a probe (`len(name) == 1`, `name.x == value`, `name in [...]`, `name contains value`, `exists(name.x)`)";

/// `a`, `a or b`, `a, b or c`
fn join_or(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

// ---------------------------------------------------------------- recovery

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Delim {
    Paren,
    Bracket,
    Brace,
}

fn opener(t: &Token<'_>) -> Option<Delim> {
    match t {
        Token::LParen => Some(Delim::Paren),
        Token::LBracket => Some(Delim::Bracket),
        Token::LBrace => Some(Delim::Brace),
        _ => None,
    }
}

fn closer(t: &Token<'_>) -> Option<Delim> {
    match t {
        Token::RParen => Some(Delim::Paren),
        Token::RBracket => Some(Delim::Bracket),
        Token::RBrace => Some(Delim::Brace),
        _ => None,
    }
}

fn close_token(d: Delim) -> Token<'static> {
    match d {
        Delim::Paren => Token::RParen,
        Delim::Bracket => Token::RBracket,
        Delim::Brace => Token::RBrace,
    }
}

/// Where a recovery skips to.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Sync {
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

const CLAUSE_WORDS: [&str; 6] = ["pre", "post", "bind", "on_unmet", "retry", "after"];
const RULE_WORDS: [&str; 4] = ["requires", "approval", "where", "untrusted"];

fn is_ident(t: Option<Token<'_>>, words: &[&str]) -> bool {
    matches!(t, Some(Token::Ident(s)) if words.contains(&s))
}

fn is_name(t: Option<Token<'_>>) -> bool {
    matches!(t, Some(Token::Ident(_) | Token::DottedName(_)))
}

/// Whether the recovery stops before `t` (at bracket depth 0), `next` and
/// `third` being the tokens after it.
fn stops(sync: Sync, t: Token<'_>, next: Option<Token<'_>>, third: Option<Token<'_>>) -> bool {
    let starts_decl = matches!(t, Token::Ident("tool" | "policy" | "plan")) && is_name(next);
    let starts_step = matches!(t, Token::Ident("step")) && matches!(next, Some(Token::Ident(_)));
    let starts_block = t == Token::LBrace
        && (next == Some(Token::RBrace) || is_ident(next, &CLAUSE_WORDS))
        && !matches!(third, Some(Token::Colon));
    match sync {
        Sync::Top => starts_decl || matches!(t, Token::Doc(_)),
        Sync::Policy => {
            starts_decl
                || (t == Token::Ident("actor") && next == Some(Token::LBracket))
                || (t == Token::Ident("max_steps") && matches!(next, Some(Token::Int(_))))
                || matches!(t, Token::DottedName(_))
                || (matches!(t, Token::Ident(_)) && is_ident(next, &RULE_WORDS))
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
fn skip<'t, 's: 't, I: Toks<'t, 's>, E: SynErr<'t, I>>(
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

fn skipper<'t, 's: 't, I: Toks<'t, 's>, E: SynErr<'t, I>>(
    sync: Sync,
) -> impl Parser<'t, I, SimpleSpan, Ex<E>> + Clone {
    custom(move |inp| skip(inp, sync))
}

/// A closing delimiter. When it is missing, skips to it (consuming it) or,
/// when a boundary comes first, goes on as if it were there; either way the
/// error is reported once.
fn close<'t, 's: 't, I: Toks<'t, 's>, E: SynErr<'t, I>>(
    d: Delim,
) -> impl Parser<'t, I, (), Ex<E>> + Clone {
    just(close_token(d))
        .ignored()
        .recover_with(via_parser(skipper(Sync::Close(d)).ignored().or(empty())))
}

// ---------------------------------------------------------------- small parsers

fn sp<'t, 's: 't, I: Toks<'t, 's>, E: SynErr<'t, I>>(
    e: &mut chumsky::input::MapExtra<'t, '_, I, Ex<E>>,
) -> Span {
    let s = e.span();
    st(e).span(s)
}

fn st<'a, 't, 's: 't, I: Toks<'t, 's>, E: SynErr<'t, I>>(
    e: &'a mut chumsky::input::MapExtra<'t, '_, I, Ex<E>>,
) -> &'a mut State {
    e.state()
}

fn raw_span<'t, 's: 't, I: Toks<'t, 's>, E: SynErr<'t, I>>(
    e: &mut chumsky::input::MapExtra<'t, '_, I, Ex<E>>,
) -> SimpleSpan {
    e.span()
}

fn name_of(file: FileId, s: &str, span: SimpleSpan) -> Name {
    Spanned::new(s.to_string(), Span::new(file, span.start, span.end))
}

fn word<'t, 's: 't, I: Toks<'t, 's>, E: SynErr<'t, I>>(
    w: &'static str,
) -> impl Parser<'t, I, Span, Ex<E>> + Clone {
    just(Token::Ident(w)).map_with(|_, e| sp(e))
}

fn ident<'t, 's: 't, I: Toks<'t, 's>, E: SynErr<'t, I>>(
    file: FileId,
    label: &'static str,
) -> impl Parser<'t, I, Name, Ex<E>> + Clone {
    select! { Token::Ident(s) = e => name_of(file, s, e.span()) }.labelled(label)
}

fn tool_name<'t, 's: 't, I: Toks<'t, 's>, E: SynErr<'t, I>>(
    file: FileId,
) -> impl Parser<'t, I, Name, Ex<E>> + Clone {
    select! {
        Token::Ident(s) = e => name_of(file, s, e.span()),
        Token::DottedName(s) = e => name_of(file, s, e.span()),
    }
    .labelled("a tool name")
}

fn docs<'t, 's: 't, I: Toks<'t, 's>, E: SynErr<'t, I>>(
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
fn count<'t, 's: 't, I: Toks<'t, 's>, E: SynErr<'t, I>>()
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

fn cmp_op<'t, 's: 't, I: Toks<'t, 's>, E: SynErr<'t, I>>()
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
fn literal<'t, 's: 't, I: Toks<'t, 's>, E: SynErr<'t, I>>()
-> impl Parser<'t, I, Option<Spanned<Literal>>, Ex<E>> + Clone {
    select! {
        Token::Str(s) => Some(Literal::String(literal::decode(s))),
        Token::Int(s) => Some(Literal::Int(s.to_string())),
        Token::Decimal(s) => Some(Literal::Decimal(s.to_string())),
        Token::Date(s) => Some(Literal::Date(s.to_string())),
        Token::Datetime(s) => Some(Literal::Datetime(s.to_string())),
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
fn path<'t, 's: 't, I: Toks<'t, 's>, E: SynErr<'t, I>>()
-> impl Parser<'t, I, ast::Path, Ex<E>> + Clone {
    select! { Token::Path(s) = e => (s, e.span()) }
        .labelled("a path (`$`, `$.field`, `$.list[0]`)")
        .map_with(|(s, span), e| read_path(st(e), s, span))
}

fn read_path(state: &mut State, s: &str, span: SimpleSpan) -> ast::Path {
    let file = state.file;
    let bytes = s.as_bytes();
    let mut segments = Vec::new();
    let mut i = 1; // after `$`
    while let Some(&b) = bytes.get(i) {
        let start = i;
        let (end, seg) = if b == b'.' {
            let len = bytes
                .get(i + 1..)
                .map(|r| {
                    r.iter()
                        .take_while(|c| c.is_ascii_alphanumeric() || **c == b'_')
                        .count()
                })
                .unwrap_or(0);
            let end = i + 1 + len;
            (
                end,
                ast::PathSeg::Field(s.get(i + 1..end).unwrap_or("").to_string()),
            )
        } else {
            let len = bytes
                .get(i + 1..)
                .map(|r| r.iter().take_while(|c| c.is_ascii_digit()).count())
                .unwrap_or(0);
            let digits = s.get(i + 1..i + 1 + len).unwrap_or("");
            let end = i + len + 2;
            let seg_span = Span::new(file, span.start + start, span.start + end);
            let n = digits.parse::<u64>().unwrap_or_else(|_| {
                state.report(
                    Diagnostic::new(
                        Code::E0002,
                        seg_span,
                        format!("index `{digits}` is too large"),
                    )
                    .with_label("too large"),
                );
                u64::MAX
            });
            (end, ast::PathSeg::Index(n))
        };
        segments.push(Spanned::new(
            seg,
            Span::new(file, span.start + start, span.start + end),
        ));
        i = end.max(i + 1);
    }
    ast::Path {
        root: None,
        segments,
        span: state.span(span),
    }
}

/// A `pre` probe's path: a binding name with its fields,
/// `settings.db_size_gb`.
fn binding_path<'t, 's: 't, I: Toks<'t, 's>, E: SynErr<'t, I>>(
    file: FileId,
) -> impl Parser<'t, I, ast::Path, Ex<E>> + Clone {
    select! {
        Token::Ident(s) = e => (s, raw_span(e)),
        Token::DottedName(s) = e => (s, raw_span(e)),
    }
    .labelled("a binding name, with its fields (`name`, `name.field`)")
    .map(move |(s, span): (&str, SimpleSpan)| {
        let r = reference(file, s, span.start);
        ast::Path {
            root: Some(r.name),
            segments: r
                .members
                .into_iter()
                .map(|m| Spanned::new(ast::PathSeg::Field(m.node), m.span))
                .collect(),
            span: Span::new(file, span.start, span.end),
        }
    })
}

/// A `name:value` written without a space, split at its first `:`. The
/// right side is lexed again as one token.
fn split_scope(file: FileId, s: &str, span: SimpleSpan) -> (Name, &str, Span) {
    let colon = s.find(':').unwrap_or(s.len());
    let name = s.get(..colon).unwrap_or(s);
    let rest = s.get(colon + 1..).unwrap_or("");
    let rest_start = span.start + colon + 1;
    (
        Spanned::new(
            name.to_string(),
            Span::new(file, span.start, span.start + colon),
        ),
        rest,
        Span::new(file, rest_start, span.end),
    )
}

/// The value of a split `name:value`, reporting what cannot stand there.
fn split_value(state: &mut State, name: &Name, rest: &str, span: Span) -> Expr {
    let kind = match single_token(rest) {
        Some(Token::Ident("true")) => ExprKind::Literal(Literal::Bool(true)),
        Some(Token::Ident("false")) => ExprKind::Literal(Literal::Bool(false)),
        Some(Token::Ident("null")) => ExprKind::Literal(Literal::Null),
        Some(Token::Ident(s)) | Some(Token::DottedName(s)) => {
            ExprKind::Ref(reference(span.file, s, span.start as usize))
        }
        Some(Token::Int(s)) => ExprKind::Literal(Literal::Int(s.to_string())),
        Some(Token::Decimal(s)) => ExprKind::Literal(Literal::Decimal(s.to_string())),
        Some(Token::Date(s)) => match literal::check_date(s) {
            Ok(()) => ExprKind::Literal(Literal::Date(s.to_string())),
            Err(why) => {
                state.report(literal::invalid_date(span, s, &why));
                ExprKind::Error
            }
        },
        Some(Token::Datetime(s)) => match literal::check_datetime(s) {
            Ok(()) => ExprKind::Literal(Literal::Datetime(s.to_string())),
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
fn reference(file: FileId, s: &str, at: usize) -> ast::Reference {
    let mut names = Vec::new();
    let mut pos = at;
    for part in s.split('.') {
        names.push(Spanned::new(
            part.to_string(),
            Span::new(file, pos, pos + part.len()),
        ));
        pos += part.len() + 1;
    }
    let mut names = names.into_iter();
    let name = names
        .next()
        .unwrap_or_else(|| Spanned::new(String::new(), Span::point(file, at)));
    ast::Reference {
        name,
        members: names.collect(),
    }
}

/// A comma-separated list between delimiters, each element recovering up to
/// the next `,` or the close.
fn list_of<'t, 's: 't, I, E, O, P, R>(
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
    elem.recover_with(via_parser(recovery))
        .separated_by(just(Token::Comma))
        .allow_trailing()
        .collect::<Vec<_>>()
        .map(|v| v.into_iter().flatten().collect())
        .delimited_by(just(open), close(d))
}

/// An element recovery that keeps the element's name when it was read:
/// `name: <junk>` becomes the name with an error value.
fn named_recovery<'t, 's: 't, I: Toks<'t, 's>, E: SynErr<'t, I>>(
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

// ---------------------------------------------------------------- expressions

fn expr<'t, 's: 't, I: Toks<'t, 's>, E: SynErr<'t, I>>(
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
                    ExprKind::Literal(Literal::String(literal::decode(s)))
                }
            },
            Token::Int(s) => ExprKind::Literal(Literal::Int(s.to_string())),
            Token::Decimal(s) => ExprKind::Literal(Literal::Decimal(s.to_string())),
            Token::Date(s) => ExprKind::Literal(Literal::Date(s.to_string())),
            Token::Datetime(s) => ExprKind::Literal(Literal::Datetime(s.to_string())),
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
fn entry<'t, 's: 't, I: Toks<'t, 's>, E: SynErr<'t, I>>(
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

// ---------------------------------------------------------------- types

fn ty<'t, 's: 't, I: Toks<'t, 's>, E: SynErr<'t, I>>(
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
            Token::Str(s) = e => ast::TypeKind::Enum(vec![Spanned::new(literal::decode(s), { let r = raw_span(e); Span::new(file, r.start, r.end) })]),
            Token::BadLit(_) => ast::TypeKind::Error,
            Token::Int(s) => ast::TypeKind::Literal(ast::Literal::Int(s.to_string())),
            Token::Decimal(s) => ast::TypeKind::Literal(ast::Literal::Decimal(s.to_string())),
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

        let atom = choice((prim, list, record, lit_ty)).map_with(|k, e| Spanned::new(k, sp(e)));
        let union = atom
            .separated_by(just(Token::Pipe))
            .at_least(1)
            .collect::<Vec<_>>()
            .map_with(|members: Vec<ast::Type>, e| union_type(members, sp(e)));
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

/// The members of `A | B | …` as one type: a single member is itself,
/// members that are all strings are one enum, anything else a union.
fn union_type(mut members: Vec<ast::Type>, span: Span) -> ast::Type {
    if members.len() == 1
        && let Some(one) = members.pop()
    {
        return one;
    }
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
fn field<'t, 's: 't, I: Toks<'t, 's>, E: SynErr<'t, I>>(
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
fn split_type<'t, 's: 't, I: Toks<'t, 's>, E: SynErr<'t, I>>(
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

// ---------------------------------------------------------------- tools

enum Attr {
    Effect(ast::Effect),
    Idempotent,
    Untrusted,
    /// A word that is no attribute (already reported).
    Unknown,
}

const ATTRS: [&str; 4] = ["read", "write", "idempotent", "untrusted"];

/// A word after a tool's result type that is not an attribute, nor the
/// start of the next declaration: reported with the nearest attribute.
fn unknown_attr<'t, 's: 't, I: Toks<'t, 's>, E: SynErr<'t, I>>()
-> impl Parser<'t, I, (Attr, Span), Ex<E>> + Clone {
    custom(|inp: &mut chumsky::input::InputRef<'t, '_, I, Ex<E>>| {
        let here = inp.save();
        let t = inp.next();
        let span = inp.span_since(here.cursor());
        let next = inp.next();
        inp.rewind(here);
        match t {
            Some(Token::Ident(w))
                if !(matches!(w, "tool" | "policy" | "plan") && is_name(next)) =>
            {
                inp.skip();
                let state = inp.state();
                let at = state.span(span);
                let mut d = Diagnostic::new(Code::E0001, at, format!("unknown tool attribute `{w}`"))
                    .with_label("not an attribute")
                    .with_note("the attributes are `read` or `write`, then `idempotent` and `untrusted` where they apply");
                if let Some(h) = crate::suggest::did_you_mean(&crate::suggest::nearest(w, ATTRS)) {
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

fn tool<'t, 's: 't, I: Toks<'t, 's>, E: SynErr<'t, I>>(
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
                    Attr::Idempotent => (idempotent.replace(at).is_some(), "idempotent"),
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
                span,
            }
        })
}

// ---------------------------------------------------------------- policies

enum PolicyItem {
    Actor(Spanned<Vec<Name>>),
    MaxSteps(Spanned<u64>),
    Rule(ast::PolicyRule),
}

enum RuleClause {
    Requires(Vec<Name>),
    Approval(Spanned<ast::Approval>),
    Where(Vec<ast::Ceiling>),
    Untrusted(Span),
    Trusted(Span),
}

fn scope_list<'t, 's: 't, I: Toks<'t, 's>, E: SynErr<'t, I>>(
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

/// Words a policy rule's tool may not be named: a clause or an item
/// keyword standing where a rule starts is a clause gone astray.
const RESERVED_IN_POLICY: [&str; 7] = [
    "requires",
    "approval",
    "where",
    "untrusted",
    "human",
    "actor",
    "max_steps",
];

/// Words and scopes written where a bracketed scope list belongs (after
/// `requires`), up to the next clause keyword: what the fix wraps.
fn bare_words<'t, 's: 't, I: Toks<'t, 's>, E: SynErr<'t, I>>(
    file: FileId,
) -> impl Parser<'t, I, Vec<Name>, Ex<E>> + Clone {
    select! {
        Token::Scope(s) = e => name_of(file, s, e.span()),
        Token::Ident(s) = e if !RULE_WORDS.contains(&s) => name_of(file, s, e.span()),
    }
    .separated_by(just(Token::Comma).or_not())
    .collect()
}

/// A token that cannot start the next rule or close the policy: what a
/// broken `where` clause skips.
fn not_a_rule_start<'t, 's: 't, I: Toks<'t, 's>, E: SynErr<'t, I>>()
-> impl Parser<'t, I, (), Ex<E>> + Clone {
    any()
        .filter(|t: &Token<'_>| {
            !matches!(
                t,
                Token::DottedName(_)
                    | Token::RBrace
                    | Token::LBrace
                    | Token::Doc(_)
                    | Token::Ident(
                        "requires"
                            | "approval"
                            | "where"
                            | "untrusted"
                            | "policy"
                            | "plan"
                            | "tool"
                    )
            )
        })
        .ignored()
}

fn policy<'t, 's: 't, I: Toks<'t, 's>, E: SynErr<'t, I>>(
    file: FileId,
    doc: impl Parser<'t, I, Doc, Ex<E>> + Clone,
) -> impl Parser<'t, I, ast::PolicyDecl, Ex<E>> + Clone {
    let ceiling = ident(file, "an argument name")
        .then(cmp_op())
        .then(literal())
        .map_with(|((arg, op), limit), e| {
            let span = sp(e);
            limit.map(|limit| ast::Ceiling {
                arg,
                op,
                limit,
                span,
            })
        });
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
        Token::Ident(w) = e if !RULE_WORDS.contains(&w) => name_of(file, w, e.span()),
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
            ceiling
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
                        "a ceiling is an argument name, a comparison (`==`, `!=`, `<`, `<=`, `>`, `>=`) and a literal: `where amount_eur <= 500`",
                    ),
                );
                RuleClause::Where(Vec::new())
            }
        });
    let rule_clause = choice((
        requires,
        approval,
        where_,
        word("untrusted")
            .then(
                select! {
                    Token::Ident("true") => true,
                    Token::Ident("false") => false,
                }
                .or_not(),
            )
            .map_with(|(_, flag), e| {
                let span = sp(e);
                if flag == Some(false) {
                    RuleClause::Trusted(span)
                } else {
                    RuleClause::Untrusted(span)
                }
            }),
    ))
    .labelled(LABEL_RULE_CLAUSE);
    let rule = tool_name(file)
        .then(rule_clause.repeated().collect::<Vec<_>>())
        .map_with(|(tool, clauses), e| {
            let span = sp(e);
            if RESERVED_IN_POLICY.contains(&tool.node.as_str()) {
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
                untrusted: None,
                trusted: None,
                span,
            };
            for c in clauses {
                match c {
                    RuleClause::Requires(s) => rule.requires.extend(s),
                    RuleClause::Approval(a) => rule.approval = Some(a),
                    RuleClause::Where(c) => rule.ceilings.extend(c),
                    RuleClause::Untrusted(s) => rule.untrusted = Some(s),
                    RuleClause::Trusted(s) => rule.trusted = Some(s),
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
                    PolicyItem::Rule(r) => decl.rules.push(r),
                }
            }
            decl
        })
}

fn twice(what: &str, at: Span, first: Span) -> Diagnostic {
    Diagnostic::new(Code::E0001, at, format!("`{what}` is given twice"))
        .with_label("again")
        .with_secondary(first, "first given here")
}

// ---------------------------------------------------------------- plans

enum PlanItem {
    Replans(Spanned<u64>),
    MaxSteps(Spanned<u64>),
    Step(ast::Step),
}

/// A probe whose paths `path` reads: `$` paths for `post`, binding paths
/// for `pre`.
fn probe<'t, 's: 't, I: Toks<'t, 's>, E: SynErr<'t, I>>(
    path: impl Parser<'t, I, ast::Path, Ex<E>> + Clone + 't,
    label: &'static str,
) -> impl Parser<'t, I, ast::Probe, Ex<E>> + Clone {
    let len = word("len")
        .ignore_then(path.clone().delimited_by(just(Token::LParen), just(Token::RParen)))
        .then(cmp_op())
        .then(
            select! { Token::Int(s) => Some(Literal::Int(s.to_string())), Token::BadLit(_) => None }
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
    let exists = word("exists")
        .ignore_then(
            path.clone()
                .delimited_by(just(Token::LParen), just(Token::RParen)),
        )
        .map(|path| ast::ProbeKind::Exists { path });
    let compare =
        path.clone()
            .then(cmp_op())
            .then(literal())
            .map(|((path, op), value)| match value {
                Some(value) => ast::ProbeKind::Compare { path, op, value },
                None => ast::ProbeKind::Error,
            });
    let values = literal()
        .separated_by(just(Token::Comma))
        .allow_trailing()
        .collect::<Vec<_>>()
        .delimited_by(just(Token::LBracket), just(Token::RBracket));
    let contains = path
        .clone()
        .then_ignore(word("contains"))
        .then(literal())
        .map(|(path, value)| match value {
            Some(value) => ast::ProbeKind::Contains { path, value },
            None => ast::ProbeKind::Error,
        });
    let within = path
        .then(word("not").or_not())
        .then_ignore(word("in"))
        .then(values)
        .map(|((path, not), values)| {
            let values: Option<Vec<_>> = values.into_iter().collect();
            match values {
                Some(values) => ast::ProbeKind::In {
                    path,
                    negated: not.is_some(),
                    values,
                },
                None => ast::ProbeKind::Error,
            }
        });
    choice((len, exists, within, contains, compare))
        .labelled(label)
        .map_with(|kind, e| ast::Probe { kind, span: sp(e) })
}

fn clause<'t, 's: 't, I: Toks<'t, 's>, E: SynErr<'t, I>>(
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

fn step<'t, 's: 't, I: Toks<'t, 's>, E: SynErr<'t, I>>(
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
        .map_with(|((((doc, name), tool), args), clauses), e| ast::Step {
            doc,
            name,
            tool,
            args,
            json_args: None,
            clauses: clauses.unwrap_or_default(),
            span: sp(e),
        })
}

fn plan<'t, 's: 't, I: Toks<'t, 's>, E: SynErr<'t, I>>(
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
                steps: Vec::new(),
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
            if let Some(extra) = decl.steps.get(crate::limits::MAX_STEPS) {
                state.report(
                    Diagnostic::new(
                        Code::E0003,
                        extra.name.span,
                        format!(
                            "plan `{}` has {} steps, the limit is {}",
                            decl.name.node,
                            decl.steps.len(),
                            crate::limits::MAX_STEPS
                        ),
                    )
                    .with_label("one step too many"),
                );
            }
            decl
        })
}

// ---------------------------------------------------------------- files

fn module<'t, 's: 't, I: Toks<'t, 's>, E: SynErr<'t, I>>(
    file: FileId,
) -> impl Parser<'t, I, ast::Module, Ex<E>> {
    let decl = choice((
        tool(file, docs(file)).map(ast::Item::Tool),
        policy(file, docs(file)).map(ast::Item::Policy),
        plan(file, docs(file)).map(ast::Item::Plan),
    ))
    .labelled(LABEL_DECL)
    .recover_with(via_parser(
        skipper(Sync::Top).map_with(|_, e| ast::Item::Error(sp(e))),
    ));
    decl.repeated()
        .collect::<Vec<_>>()
        .then_ignore(end())
        .map(|items| ast::Module { items })
}
