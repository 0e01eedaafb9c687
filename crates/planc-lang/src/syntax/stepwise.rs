//! Reading a `.plan` text a step at a time, so that the tokens of the
//! whole text are never in memory at once (`docs/performance.md`, "Where
//! the memory goes").
//!
//! A whole parse lexes the text into one token vector (40 bytes a token,
//! about 5.6 times the text) and builds the tree beside it. This reading
//! lexes the text once, in order, and keeps apart the tokens of each step
//! one bracket deep (in a declaration's braces): a run of doc comments and
//! `step NAME = TOOL(…)`, with the `{…}` that follows it if one does. It
//! parses the steps a batch of [`BATCH`] at a time as their tokens are read
//! (`parser::parse_steps`), drops their tokens, and at the end parses the
//! tokens left (the declarations' heads, `replans`, `max_steps`, tools and
//! policies), then puts each step into the plan whose braces hold it.
//!
//! It is taken only when nothing is reported: the lexer reports nothing,
//! brackets stay within the lexer's cut (`limits::MAX_DEPTH`), each step
//! and the rest parse without a diagnostic, and every step falls inside a
//! plan. The tree is then the one a whole parse gives (`tests`: every plan
//! of the repository and random edits of them, both ways). Anything else is
//! a whole parse, with the same diagnostics as before.

use super::ast::{self, Item};
use super::lexer::{Lexing, SpannedToken, Token};
use super::parser;
use crate::limits;
use crate::source::{FileId, Span};

/// The tree of `text`, read step by step; `None` when a whole parse must
/// read it (anything reported, a step outside a plan, no step).
pub(super) fn parse(file: FileId, text: &str) -> Option<ast::Module> {
    parse_keeping(file, text, false)
}

/// [`parse`], each step cut down to what a check reads of every step
/// before it checks any ([`ast::Step::skeleton`]) as soon as its batch is
/// parsed, when `skeletal`.
pub(super) fn parse_keeping(file: FileId, text: &str, skeletal: bool) -> Option<ast::Module> {
    let mut lexing = Lexing::new(file, text);
    // The tokens outside the steps, and those of a batch of steps.
    let mut rest: Vec<SpannedToken<'_>> = Vec::new();
    let mut batch: Vec<SpannedToken<'_>> = Vec::new();
    let mut batched = 0usize;
    let mut ranges: Vec<(usize, usize)> = Vec::new();
    let mut steps: Vec<ast::Step> = Vec::new();
    let mut depth = 0usize;
    // A token read past a step without braces, still to be looked at.
    let mut ahead = false;
    loop {
        if !ahead && !read(&mut lexing, &mut rest)? {
            break;
        }
        ahead = false;
        let Some(&(token, _)) = rest.last() else {
            break;
        };
        if depth == 1 && token == Token::Ident("step") {
            // The step and the doc comments just before it.
            let docs = rest
                .iter()
                .rev()
                .skip(1)
                .take_while(|(t, _)| matches!(t, Token::Doc(_)))
                .count();
            let from = batch.len();
            batch.extend(rest.drain(rest.len().saturating_sub(1 + docs)..));
            if let Some(after) = read_step(&mut lexing, &mut batch)? {
                rest.push(after);
                ahead = true;
            }
            let (&(_, first), &(_, last)) = (batch.get(from)?, batch.last()?);
            ranges.push((first.start, last.end));
            batched += 1;
            if batched == BATCH {
                let from = ranges.first().map_or(0, |r| r.0);
                super::room_for(&mut steps, batched, from, last.end, text.len());
                let read = steps.len();
                parser::parse_steps(file, &batch, last.end, batched, &mut steps)?;
                if skeletal {
                    steps.iter_mut().skip(read).for_each(ast::Step::skeleton);
                }
                batch.clear();
                batched = 0;
            }
            continue;
        }
        depth = nest(depth, token)?;
    }
    if let Some(&(_, last)) = batch.last() {
        let read = steps.len();
        parser::parse_steps(file, &batch, last.end, batched, &mut steps)?;
        if skeletal {
            steps.iter_mut().skip(read).for_each(ast::Step::skeleton);
        }
    }
    if steps.is_empty() || steps.len() != ranges.len() || !lexing.clean() {
        return None;
    }
    drop(batch);
    let mut module = parser::parse_clean(file, &rest, text.len())?;
    drop(rest);
    place(&mut module, &ranges, steps)?;
    Some(module)
}

/// How many steps are parsed together: chumsky is entered, and the step's
/// parser built, once a batch (once a step cost about 1,300 instructions a
/// step), and a batch's tokens are about 20 KB (64 cost the same
/// instructions, `docs/performance.md`).
pub const BATCH: usize = 16;

/// Reads the next token onto `tokens`: `Some(false)` at the end of the
/// text, `None` once anything was reported.
fn read<'src>(lexing: &mut Lexing<'src>, tokens: &mut Vec<SpannedToken<'src>>) -> Option<bool> {
    let more = lexing.next_into(tokens);
    lexing.clean().then_some(more)
}

/// The depth after `token`, from `depth`; `None` past the lexer's cut.
fn nest(depth: usize, token: Token<'_>) -> Option<usize> {
    if token.opens() {
        (depth < limits::MAX_DEPTH).then_some(depth + 1)
    } else if token.closes() {
        depth.checked_sub(1)
    } else {
        Some(depth)
    }
}

/// Reads on from a step's `step` (one bracket deep) onto `step`:
/// `NAME = TOOL(…)`, then its `{…}` if the next token opens one. The token
/// read after a step without braces is taken off `step` and returned: it
/// begins whatever follows. `None` when the step is not of that shape, its
/// brackets are not closed, or anything is reported.
fn read_step<'src>(
    lexing: &mut Lexing<'src>,
    step: &mut Vec<SpannedToken<'src>>,
) -> Option<Option<SpannedToken<'src>>> {
    for _ in 0..4 {
        read(lexing, step)?.then_some(())?;
    }
    let head = step.get(step.len().checked_sub(4)?..)?;
    let [
        (Token::Ident(_), _),
        (Token::Assign, _),
        (Token::Ident(_) | Token::DottedName(_), _),
        (Token::LParen, _),
    ] = head
    else {
        return None;
    };
    close(lexing, step)?;
    if !read(lexing, step)? {
        return Some(None);
    }
    match step.last() {
        Some((Token::LBrace, _)) => {
            close(lexing, step)?;
            Some(None)
        }
        _ => Some(step.pop()),
    }
}

/// Reads onto `step` up to the bracket that closes the one just read (two
/// deep: inside a declaration's braces). `None` at the end of the text, past
/// the lexer's cut, or once anything is reported.
fn close<'src>(lexing: &mut Lexing<'src>, step: &mut Vec<SpannedToken<'src>>) -> Option<()> {
    let mut depth = 2usize;
    while depth > 1 {
        read(lexing, step)?.then_some(())?;
        depth = nest(depth, step.last()?.0)?;
    }
    Some(())
}

/// Puts each step read apart into the plan whose braces hold it. `None`
/// when a step lies outside every plan or a plan would pass
/// [`limits::MAX_STEPS`] (a whole parse reports it).
fn place(
    module: &mut ast::Module,
    ranges: &[(usize, usize)],
    mut steps: Vec<ast::Step>,
) -> Option<()> {
    // The first step each item holds, by index: it holds those up to the
    // next item's first.
    let mut held = Vec::with_capacity(module.items.len());
    let mut at = 0usize;
    for item in &module.items {
        let span = item_span(item);
        let from = at;
        while let Some(&(start, end)) = ranges.get(at) {
            if start < span.start as usize {
                return None;
            }
            if end > span.end as usize {
                break;
            }
            at += 1;
        }
        if from < at && !matches!(item, Item::Plan(_)) {
            return None;
        }
        held.push(from);
    }
    if at != ranges.len() {
        return None;
    }
    // From the last plan back, so that each split moves only that plan's
    // steps, and the first plan's (most often the only one) are not moved.
    for (item, from) in module.items.iter_mut().zip(held).rev() {
        let Item::Plan(plan) = item else {
            continue;
        };
        // Every step one bracket deep was read apart: the plan's parse
        // found none.
        if from > steps.len() {
            return None;
        }
        // (`split_off(0)` would leave behind an empty vector as large.)
        let mine = if from == 0 {
            std::mem::take(&mut steps)
        } else {
            steps.split_off(from)
        };
        if !plan.steps.is_empty() || mine.len() > limits::MAX_STEPS {
            return None;
        }
        plan.steps = mine;
    }
    Some(())
}

fn item_span(item: &Item) -> Span {
    match item {
        Item::Tool(t) => t.span,
        Item::Policy(p) => p.span,
        Item::Plan(p) => p.span,
        Item::Error(s) => *s,
    }
}

#[cfg(test)]
mod tests;
