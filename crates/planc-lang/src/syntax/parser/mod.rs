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

use super::ast::{self, Doc, Expr, ExprKind, Literal, Name, Str};
use super::lexer::{SpannedToken, Token, single_token};
use super::lexicon;
use super::literal;
use crate::diagnostics::{Code, Diagnostic};
use crate::source::{FileId, Span, Spanned};

mod common;
mod expr;
mod plan;
mod policy;
mod recovery;
mod tool;

use common::*;
use expr::*;
use plan::*;
use policy::*;
use recovery::*;
use tool::*;

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
    /// As `FastThenRich`, and [`crate::syntax::parse_text_with`] reads the
    /// whole text's tokens at once where `FastThenRich` reads step by step
    /// (`syntax::stepwise`): for a text that most likely has a problem
    /// (the language server's document whose last parse had one), the
    /// tests that compare the two, and benchmarks.
    Whole,
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
    if strategy != Strategy::RichOnly {
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

/// One step read alone: the language server's re-reading of an edited
/// step (`syntax::incremental`). `tokens` are exactly the step's, their
/// spans where they are in the file, and `len` the offset just after it.
/// `None` unless the tokens are one whole step read without any
/// diagnostic.
pub fn parse_step(file: FileId, tokens: &[SpannedToken<'_>], len: usize) -> Option<ast::Step> {
    let eoi = SimpleSpan::from(len..len);
    let mut state = State::new(file);
    let read = step::<_, EmptyErr>(file)
        .then_ignore(end())
        .parse_with_state(tokens.split_token_span(eoi), &mut state);
    if read.has_errors() || !state.diags.is_empty() {
        return None;
    }
    read.into_output()
}

/// Steps read one after another, appended to `steps`: a batch of the
/// steps of a text read step by step (`syntax::stepwise`). `tokens` are
/// exactly the steps', `len` the offset just after the last. `None` unless
/// they are `count` whole steps read without any diagnostic.
pub fn parse_steps(
    file: FileId,
    tokens: &[SpannedToken<'_>],
    len: usize,
    count: usize,
    steps: &mut Vec<ast::Step>,
) -> Option<()> {
    let eoi = SimpleSpan::from(len..len);
    let mut state = State::new(file);
    let read = step::<_, EmptyErr>(file)
        .repeated()
        .exactly(count)
        .collect::<Vec<_>>()
        .then_ignore(end())
        .parse_with_state(tokens.split_token_span(eoi), &mut state);
    if read.has_errors() || !state.diags.is_empty() {
        return None;
    }
    steps.append(&mut read.into_output()?);
    Some(())
}

/// The tree of the tokens when they read without any diagnostic, `None`
/// otherwise: the rest of a text read step by step (`syntax::stepwise`).
pub fn parse_clean(file: FileId, tokens: &[SpannedToken<'_>], len: usize) -> Option<ast::Module> {
    let eoi = SimpleSpan::from(len..len);
    let mut state = State::new(file);
    let read =
        module::<_, EmptyErr>(file).parse_with_state(tokens.split_token_span(eoi), &mut state);
    if read.has_errors() || !state.diags.is_empty() {
        return None;
    }
    read.into_output()
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
            Token::Ident(w) => lexicon::KEYWORDS
                .iter()
                .copied()
                .filter(|k| k == w)
                .collect(),
            _ => Vec::new(),
        },
        RichPattern::Label(l) => match l.as_ref() {
            LABEL_DECL => lexicon::DECLARATIONS.to_vec(),
            LABEL_PLAN_ITEM => lexicon::PLAN_ITEMS.to_vec(),
            LABEL_POLICY_ITEM => lexicon::POLICY_ITEMS.to_vec(),
            LABEL_CLAUSE => lexicon::CLAUSES.to_vec(),
            LABEL_RULE_CLAUSE => lexicon::RULE_CLAUSES.to_vec(),
            LABEL_ATTR => lexicon::TOOL_ATTRS.to_vec(),
            LABEL_ON_UNMET => lexicon::ON_UNMET.to_vec(),
            LABEL_TYPE => ast::Prim::ALL.iter().map(|p| p.as_str()).collect(),
            LABEL_PROBE | LABEL_PRE_PROBE => lexicon::PROBE_WORDS.to_vec(),
            _ => Vec::new(),
        },
        _ => Vec::new(),
    }
}

const LABEL_DECL: &str = "a declaration (`tool`, `policy` or `plan`)";
const LABEL_PLAN_ITEM: &str = "a step";
const LABEL_POLICY_ITEM: &str = "a policy rule";
const LABEL_CLAUSE: &str = "a clause (`pre`, `post`, `bind`, `on_unmet`, `retry`, `after`)";
const LABEL_RULE_CLAUSE: &str =
    "a rule clause (`requires`, `approval`, `where`, `untrusted`, `effect`, `idempotent`)";
const LABEL_ATTR: &str = "a tool attribute (`read`, `write`, `idempotent`, `untrusted`)";
const LABEL_ON_UNMET: &str = "`replan`, `halt` or `escalate`";
const LABEL_TYPE: &str = "a type";
const LABEL_PROBE: &str = "a probe (`len($.x) == 1`, `$.x == value`, `$.x in [...]`, `$.x contains value`, `keys($.x) contains \"k\"`, `exists($.x)`)";
const LABEL_PRE_PROBE: &str = "a probe (`len(name) == 1`, `name.x == value`, `name in [...]`, `name contains value`, `keys(name) contains \"k\"`, `exists(name.x)`)";

/// `a`, `a or b`, `a, b or c`
fn join_or(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
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
