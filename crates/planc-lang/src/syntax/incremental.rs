//! Re-reading only the edited step of a `.plan` text: the language
//! server's path from a keystroke to diagnostics (`docs/performance.md`,
//! "The language server"). A check for the diagnostics only reads each
//! step again so too, from the span a skeletal reading kept
//! ([`read_steps_at`]; `docs/performance.md`, "Where the memory goes").
//!
//! An edit that lies inside one step of a plan (after its first byte and
//! before its last) is re-read by lexing and parsing that step's new text
//! alone; the other steps keep their trees, those after it moved by the
//! edit's change of length. It is taken only when the result is the tree a
//! whole parse of the new text gives:
//!
//! - the old tree came from a parse with no diagnostic at all;
//! - the step's new text lexes without a diagnostic, nests no deeper than
//!   a step inside a plan may, and is exactly one step, read without a
//!   diagnostic;
//! - its first and last bytes are unchanged, so the tokens around it split
//!   where they did (a step ends with `)` or `}`, which no token continues),
//!   and the step parser, which reads no further than its last token, sees
//!   the same tokens after it as the old step did.
//!
//! Anything else (an edit between steps, in a plan's header, in a later
//! declaration; a string or comment left open; a syntax error) is a whole
//! parse, and so is every parse after one that gave a diagnostic.

use super::ast::{self, Clause, ExprKind, InterpPart, Item, ProbeKind};
use super::{lexer, parser};
use crate::limits;
use crate::source::{Edit, FileId, Span};

/// Re-reads `module`, the tree of `old` (from a parse of `old` that gave no
/// diagnostic), for the edited text `new`. `true` when the module is now
/// the tree of `new`, which then parses without a diagnostic; `false`
/// when the edit is not one this can re-read, with `module` untouched:
/// parse `new` whole.
pub fn reparse(file: FileId, module: &mut ast::Module, old: &str, new: &str) -> bool {
    reparse_edited(module, old, new, &Edit::between(file, old, new))
}

/// [`reparse`] with the edit from `old` to `new` already found
/// (`Edit::between`), by a caller that needs it for more than the tree (the
/// language server moves its line index and its last check by it). A wrong
/// edit gives a wrong tree: it must be the one between these two texts.
pub fn reparse_edited(module: &mut ast::Module, old: &str, new: &str, edit: &Edit) -> bool {
    if new.len() > limits::MAX_INPUT_BYTES
        || edit.old_end > old.len()
        || edit.new_end > new.len()
        || old.len() - edit.old_end != new.len() - edit.new_end
    {
        return false;
    }
    let file = edit.file;
    if edit.is_none() {
        return true;
    }
    let (prefix, old_end) = (edit.start, edit.old_end);
    let delta = new.len() as i64 - old.len() as i64;

    // Only the last declaration: the spans of a later one would move.
    let Some(Item::Plan(plan)) = module.items.last_mut() else {
        return false;
    };
    let at = plan
        .steps
        .partition_point(|s| (s.span.start as usize) < prefix);
    let Some(index) = at.checked_sub(1) else {
        return false;
    };
    let Some(step) = plan.steps.get(index) else {
        return false;
    };
    let (start, end) = (step.span.start as usize, step.span.end as usize);
    // Strictly inside: the step's first and last bytes are unchanged.
    if !(start < prefix && old_end < end) {
        return false;
    }
    let Ok(new_end) = usize::try_from(end as i64 + delta) else {
        return false;
    };
    let Some(text) = new.get(start..new_end) else {
        return false;
    };
    let Some(step) = read_step(file, text, start) else {
        return false;
    };
    if let Some(s) = plan.steps.get_mut(index) {
        *s = step;
    }
    if delta != 0 {
        let mv = |span: &mut Span| shift(span, delta);
        for s in plan.steps.iter_mut().skip(index + 1) {
            step_spans(s, &mv);
        }
        for n in [&mut plan.replans, &mut plan.max_steps]
            .into_iter()
            .flatten()
        {
            if n.span.start as usize >= end {
                mv(&mut n.span);
            }
        }
        plan.span.end = moved(plan.span.end, delta);
    }
    true
}

/// The steps at `spans` of `text`, their file's whole text, read again,
/// in order: the steps a skeletal reading cut down
/// ([`super::parse_text_skeletal`]), as a whole parse of the text reads
/// them. Read together, as the step-by-step reading reads a batch
/// ([`super::stepwise`]): the parser is entered once for them all. `None`
/// unless each reads alone without a diagnostic and the spans are of one
/// file, in order.
pub fn read_steps_at(text: &str, spans: &[Span]) -> Option<Vec<ast::Step>> {
    let (first, last) = (spans.first()?, spans.last()?);
    let mut tokens = Vec::new();
    let mut end = 0usize;
    for span in spans {
        let (start, stop) = (span.start as usize, span.end as usize);
        if span.file != first.file || start < end {
            return None;
        }
        end = stop;
        tokens.extend(lex_step(span.file, text.get(start..stop)?, start)?);
    }
    let mut steps = Vec::with_capacity(spans.len());
    parser::parse_steps(
        first.file,
        &tokens,
        last.end as usize,
        spans.len(),
        &mut steps,
    )?;
    Some(steps)
}

/// The step whose text is `text`, at `offset` in its file; `None` unless
/// it reads alone exactly as it would in its plan, without a diagnostic.
fn read_step(file: FileId, text: &str, offset: usize) -> Option<ast::Step> {
    let tokens = lex_step(file, text, offset)?;
    parser::parse_step(file, &tokens, offset + text.len())
}

/// The tokens of a step's text, at `offset` in its file; `None` when it
/// lexes with a diagnostic or nests deeper than a step in a plan may.
fn lex_step(file: FileId, text: &str, offset: usize) -> Option<Vec<lexer::SpannedToken<'_>>> {
    let mut lexed = lexer::lex(file, text);
    if !lexed.diagnostics.is_empty() || !lexed.quiet.is_empty() {
        return None;
    }
    // Inside its plan's braces, a step has one bracket fewer to nest in
    // before the lexer's cut (`limits::MAX_DEPTH`).
    let mut depth = 0usize;
    for (token, _) in &lexed.tokens {
        if token.opens() {
            depth += 1;
            if depth >= limits::MAX_DEPTH {
                return None;
            }
        } else if token.closes() {
            depth = depth.checked_sub(1)?;
        } else if *token == lexer::Token::TooDeep {
            return None;
        }
    }
    for (_, span) in &mut lexed.tokens {
        *span = (span.start + offset..span.end + offset).into();
    }
    Some(lexed.tokens)
}

fn moved(at: u32, delta: i64) -> u32 {
    u32::try_from(i64::from(at) + delta).unwrap_or(u32::MAX)
}

fn shift(span: &mut Span, delta: i64) {
    span.start = moved(span.start, delta);
    span.end = moved(span.end, delta);
}

/// Calls `f` on every span of a step's tree. Every field is named (no
/// `..`), so a span added to the tree fails to compile here until it is
/// moved too.
fn step_spans(step: &mut ast::Step, f: &impl Fn(&mut Span)) {
    let ast::Step {
        doc,
        name,
        tool,
        args,
        json_args,
        clauses,
        span,
    } = step;
    let ast::Doc {
        lines: _,
        span: doc_span,
    } = doc;
    doc_span.iter_mut().for_each(f);
    f(&mut name.span);
    f(&mut tool.span);
    for ast::Arg { name, value, span } in args {
        f(&mut name.span);
        expr_spans(value, f);
        f(span);
    }
    json_args.iter_mut().for_each(f);
    for clause in clauses {
        match clause {
            Clause::Pre(probe) | Clause::Post(probe) => {
                let ast::Probe { kind, span } = probe;
                f(span);
                match kind {
                    ProbeKind::Len { path, op, value } | ProbeKind::Compare { path, op, value } => {
                        path_spans(path, f);
                        f(&mut op.span);
                        f(&mut value.span);
                    }
                    ProbeKind::In {
                        path,
                        negated: _,
                        values,
                    } => {
                        path_spans(path, f);
                        values.iter_mut().for_each(|v| f(&mut v.span));
                    }
                    ProbeKind::Contains { path, value }
                    | ProbeKind::KeysContain { path, value } => {
                        path_spans(path, f);
                        f(&mut value.span);
                    }
                    ProbeKind::Exists { path } => path_spans(path, f),
                    ProbeKind::CountDefault { op, value } => {
                        f(&mut op.span);
                        f(&mut value.span);
                    }
                    ProbeKind::Error => {}
                }
            }
            Clause::Bind { name, path, span } => {
                f(&mut name.span);
                path_spans(path, f);
                f(span);
            }
            Clause::OnUnmet(s) => f(&mut s.span),
            Clause::Retry(s) => f(&mut s.span),
            Clause::After { steps, span } => {
                steps.iter_mut().for_each(|s| f(&mut s.span));
                f(span);
            }
            Clause::Error(span) => f(span),
        }
    }
    f(span);
}

fn path_spans(path: &mut ast::Path, f: &impl Fn(&mut Span)) {
    let ast::Path {
        root,
        segments,
        span,
    } = path;
    root.iter_mut().for_each(|r| f(&mut r.span));
    segments.iter_mut().for_each(|s| f(&mut s.span));
    f(span);
}

fn expr_spans(expr: &mut ast::Expr, f: &impl Fn(&mut Span)) {
    f(&mut expr.span);
    match &mut expr.node {
        ExprKind::Literal(_) | ExprKind::Error => {}
        ExprKind::Ref(r) => reference_spans(r, f),
        ExprKind::List(items) => items.iter_mut().for_each(|e| expr_spans(e, f)),
        ExprKind::Record(entries) => {
            for ast::RecordEntry { name, value } in entries {
                f(&mut name.span);
                expr_spans(value, f);
            }
        }
        ExprKind::Interp(parts) => {
            for part in parts {
                match part {
                    InterpPart::Text(_) => {}
                    InterpPart::Ref(r) => {
                        f(&mut r.span);
                        reference_spans(&mut r.node, f);
                    }
                }
            }
        }
    }
}

fn reference_spans(r: &mut ast::Reference, f: &impl Fn(&mut Span)) {
    let ast::Reference { name, members } = r;
    f(&mut name.span);
    members.iter_mut().for_each(|m| f(&mut m.span));
}

#[cfg(test)]
mod tests;
