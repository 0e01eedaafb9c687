//! The text form's layout (`planc fmt`).
//!
//! The layout works on the file's tokens and comments, guided by its syntax
//! tree, and changes whitespace only (but for the comma it adds after
//! the last item of a list it breaks):
//!
//! - every declaration, policy item and rule, plan item, step and step
//!   clause starts a line; so does every doc comment and what follows it;
//! - a line break the author put between two tokens is kept (at most one
//!   blank line), except before a comma;
//! - a bracket whose contents run over several lines is laid out as a
//!   block: they start on the line after it, and it closes on a line of
//!   its own; otherwise it closes where its contents end;
//! - a line is indented four spaces per open bracket line, and four more
//!   when it continues the line before (a rule broken before `where`);
//! - within a line, one space between tokens, none inside `(` `[`, before
//!   `,` `:` `?` and closing brackets, nor between a name and its `(`;
//! - a line wider than [`WIDTH`] is broken at the outermost bracket still
//!   on one line that spans it (the last of those as deep), until the
//!   lines fit or no such bracket is left;
//! - a bracket of items laid out as a block holds one item per line, each
//!   followed by a comma (the one token the layout may add).
//!
//! A file with syntax errors is not laid out. Before the result is returned
//! its tokens and comments are compared with the input's: a layout that
//! would change anything else is refused as an internal error,
//! so the command can never change what a plan means or drop a comment.

use std::collections::HashSet;

use crate::diagnostics::{Diagnostic, Severity};
use crate::source::FileId;
use crate::syntax::ast;
use crate::syntax::lexer::{self, Token};
use crate::syntax::lexicon;

/// Why a file was not laid out.
#[derive(Debug)]
pub enum LayoutError {
    /// The file has syntax errors: the front end's diagnostics.
    Syntax(Vec<Diagnostic>),
    /// The layout would have changed more than whitespace: a bug in it,
    /// described for a report.
    Internal(String),
}

/// The file laid out; the text is unchanged when it already is.
pub fn layout(text: &str) -> Result<String, LayoutError> {
    let file = FileId(0);
    let (module, diagnostics) = crate::syntax::parse_text(file, text);
    if diagnostics.iter().any(|d| d.severity == Severity::Error) {
        return Err(LayoutError::Syntax(diagnostics));
    }
    let pieces = pieces(text);
    let anchors = anchors(&module, &pieces);
    let split = splits(&module, &pieces);
    let brackets = Brackets::new(&pieces, &holds_items(&module, &pieces));
    let mut multi = multiline(&pieces, &anchors);
    // Brackets are broken, outermost first, until every line fits or no
    // bracket on a line that does not fit is left to break: a few rounds,
    // one per level of nesting broken.
    loop {
        let shape = Shape::new(&pieces, &brackets, &multi);
        let (out, lines) = print(&pieces, &anchors, &split, &shape);
        let wider = to_break(&out, &lines, &brackets, &multi);
        if wider.is_empty() {
            verify(&pieces, &split, &shape.comma_after, &out)?;
            return Ok(out);
        }
        for i in wider {
            if let Some(m) = multi.get_mut(i) {
                *m = true;
            }
        }
    }
}

/// The widest line the layout aims for, in characters: a line wider than
/// this is broken at its brackets where it can be.
pub const WIDTH: usize = 100;

/// The opening brackets of comma-separated items (arguments, parameters,
/// record fields and entries, list values, scopes), where a comma may
/// follow the last item; not a block (`{` of a plan, policy or step), a
/// list type (`[string]`) nor the one path of a probe's `len(…)`,
/// `keys(…)` or `exists(…)` (`lexicon::PROBE_WORDS`).
fn holds_items(module: &ast::Module, pieces: &[Piece<'_>]) -> HashSet<usize> {
    // Inside a tool declaration, a `[` is a list type unless it is in a
    // parameter's default value.
    let mut types: Vec<(usize, usize)> = Vec::new();
    let mut values: Vec<(usize, usize)> = Vec::new();
    for item in &module.items {
        if let ast::Item::Tool(t) = item {
            types.push((t.span.start as usize, t.span.end as usize));
            for d in t.params.iter().filter_map(|p| p.default.as_ref()) {
                values.push((d.span.start as usize, d.span.end as usize));
            }
        }
    }
    let within =
        |spans: &[(usize, usize)], at: usize| spans.iter().any(|&(a, b)| a <= at && at < b);
    let mut out = HashSet::new();
    let mut prev: Option<Token<'_>> = None;
    for (i, p) in pieces.iter().enumerate() {
        let Kind::Tok(t) = p.kind else { continue };
        let items = match t {
            Token::LParen => matches!(
                prev,
                Some(Token::Ident(n) | Token::DottedName(n)) if !lexicon::PROBE_WORDS.contains(&n)
            ),
            Token::LBrace => matches!(
                prev,
                Some(
                    Token::Colon
                        | Token::Arrow
                        | Token::Comma
                        | Token::LBracket
                        | Token::LParen
                        | Token::Assign
                        | Token::Pipe
                )
            ),
            Token::LBracket => !within(&types, p.start) || within(&values, p.start),
            _ => false,
        };
        if items {
            out.insert(i);
        }
        prev = Some(t);
    }
    out
}

/// The brackets of a file: for each piece, the innermost bracket it is
/// in, and for each opening bracket, its nesting depth, the piece that
/// closes it and whether it holds items ([`holds_items`]).
struct Brackets {
    parent: Vec<Option<usize>>,
    depth: Vec<usize>,
    close: Vec<Option<usize>>,
    items: HashSet<usize>,
}

impl Brackets {
    fn new(pieces: &[Piece<'_>], items: &HashSet<usize>) -> Self {
        let n = pieces.len();
        let (mut parent, mut depth, mut close) = (vec![None; n], vec![0; n], vec![None; n]);
        let mut open: Vec<usize> = Vec::new();
        for (i, p) in pieces.iter().enumerate() {
            if p.kind.closes()
                && let Some(o) = open.pop()
                && let Some(c) = close.get_mut(o)
            {
                *c = Some(i);
            }
            if let Some(slot) = parent.get_mut(i) {
                *slot = open.last().copied();
            }
            if p.kind.opens() {
                if let Some(d) = depth.get_mut(i) {
                    *d = open.len();
                }
                open.push(i);
            }
        }
        Brackets {
            parent,
            depth,
            close,
            items: items.clone(),
        }
    }
}

/// What the layout adds to a file's line breaks: a bracket of items laid
/// out as a block holds one item per line, each followed by a comma.
struct Shape {
    /// The commas after which a line breaks.
    break_after: HashSet<usize>,
    /// The pieces after which a comma is added: the last item of such a
    /// list, when it has none.
    comma_after: HashSet<usize>,
    multi: Vec<bool>,
}

impl Shape {
    fn new(pieces: &[Piece<'_>], brackets: &Brackets, multi: &[bool]) -> Self {
        let is_list =
            |o: usize| multi.get(o).copied().unwrap_or(false) && brackets.items.contains(&o);
        let mut break_after = HashSet::new();
        for (i, p) in pieces.iter().enumerate() {
            if p.kind.is(Token::Comma)
                && let Some(Some(o)) = brackets.parent.get(i)
                && is_list(*o)
            {
                break_after.insert(i);
            }
        }
        let mut comma_after = HashSet::new();
        for &o in brackets.items.iter().filter(|&&o| is_list(o)) {
            let Some(Some(c)) = brackets.close.get(o) else {
                continue;
            };
            let last = (o + 1..*c).rev().find(|&j| {
                pieces
                    .get(j)
                    .is_some_and(|p| matches!(p.kind, Kind::Tok(_)))
            });
            if let Some(j) = last
                && j != o
                && !pieces.get(j).is_some_and(|p| p.kind.is(Token::Comma))
            {
                comma_after.insert(j);
            }
        }
        Shape {
            break_after,
            comma_after,
            multi: multi.to_vec(),
        }
    }
}

/// The brackets to break next: on each line wider than [`WIDTH`], the
/// outermost bracket still on one line that spans it (the last of them
/// when several are as deep: the result of a tool before its
/// parameters, a step's arguments rather than what they hold).
fn to_break(out: &str, lines: &[usize], brackets: &Brackets, multi: &[bool]) -> Vec<usize> {
    let wide: HashSet<usize> = out
        .lines()
        .enumerate()
        .filter(|(_, l)| l.chars().count() > WIDTH)
        .map(|(n, _)| n)
        .collect();
    if wide.is_empty() {
        return Vec::new();
    }
    // For each wide line, the best bracket so far: (depth, index).
    let mut best: std::collections::HashMap<usize, (usize, usize)> = Default::default();
    for (i, close) in brackets.close.iter().enumerate() {
        let Some(c) = *close else { continue };
        if c == i + 1 || multi.get(i).copied().unwrap_or(true) {
            continue;
        }
        let (Some(&from), Some(&to), Some(&depth)) =
            (lines.get(i), lines.get(c), brackets.depth.get(i))
        else {
            continue;
        };
        for line in from..=to {
            if !wide.contains(&line) {
                continue;
            }
            let slot = best.entry(line).or_insert((depth, i));
            if depth < slot.0 || (depth == slot.0 && i > slot.1) {
                *slot = (depth, i);
            }
        }
    }
    let mut chosen: Vec<usize> = best.into_values().map(|(_, i)| i).collect();
    chosen.sort_unstable();
    chosen.dedup();
    chosen
}

/// Where each plain `//` comment of `text` starts (byte offsets, in
/// order); `text` need not parse.
pub fn comment_offsets(text: &str) -> Vec<usize> {
    pieces(text)
        .iter()
        .filter(|p| matches!(p.kind, Kind::Comment(_)))
        .map(|p| p.start)
        .collect()
}

/// A token or a comment, with the number of line breaks before it.
#[derive(Clone, Copy, Debug)]
struct Piece<'t> {
    kind: Kind<'t>,
    start: usize,
    breaks: usize,
}

#[derive(Clone, Copy, Debug)]
enum Kind<'t> {
    Tok(Token<'t>),
    /// A `//` comment (`////` included), without its line end.
    Comment(&'t str),
}

impl<'t> Kind<'t> {
    fn is(&self, t: Token<'_>) -> bool {
        matches!(self, Kind::Tok(k) if *k == t)
    }

    fn opens(&self) -> bool {
        matches!(
            self,
            Kind::Tok(Token::LParen | Token::LBracket | Token::LBrace)
        )
    }

    fn closes(&self) -> bool {
        matches!(
            self,
            Kind::Tok(Token::RParen | Token::RBracket | Token::RBrace)
        )
    }

    fn is_doc(&self) -> bool {
        matches!(self, Kind::Tok(Token::Doc(_)))
    }

    /// The text written for it: comments and doc comments without trailing
    /// whitespace.
    fn text(&self) -> &'t str {
        match *self {
            Kind::Comment(c) => c.trim_end(),
            Kind::Tok(t) => match t.text() {
                Some(s) => s.trim_end(),
                None => t.punct(),
            },
        }
    }
}

/// The tokens of `text` and the comments between them, in order. The
/// lexer skips comments, so they are found in the gaps between tokens,
/// which hold nothing else but whitespace.
fn pieces<'t>(text: &'t str) -> Vec<Piece<'t>> {
    let lexed = lexer::lex(FileId(0), text);
    let mut out = Vec::with_capacity(lexed.tokens.len());
    let mut at = 0usize;
    let gap = |out: &mut Vec<Piece<'t>>, from: usize, to: usize| {
        let Some(gap) = text.get(from..to) else {
            return 0;
        };
        let mut breaks = 0usize;
        let mut rest = gap;
        let mut offset = from;
        while let Some(i) = rest.find("//") {
            let (before, after) = rest.split_at(i);
            breaks += before.matches('\n').count();
            let len = after.find('\n').unwrap_or(after.len());
            let comment = after.get(..len).unwrap_or("");
            out.push(Piece {
                kind: Kind::Comment(comment.trim_end_matches('\r')),
                start: offset + i,
                breaks,
            });
            breaks = 0;
            offset += i + len;
            rest = after.get(len..).unwrap_or("");
        }
        breaks + rest.matches('\n').count()
    };
    for (token, span) in &lexed.tokens {
        let breaks = gap(&mut out, at, span.start);
        out.push(Piece {
            kind: Kind::Tok(*token),
            start: span.start,
            breaks,
        });
        at = span.end;
    }
    gap(&mut out, at, text.len());
    out
}

/// Which pieces must start a line: the first token of each construct that
/// has a line of its own.
fn anchors(module: &ast::Module, pieces: &[Piece<'_>]) -> HashSet<usize> {
    // Offsets of first tokens, and offsets of tokens whose preceding token
    // starts the construct (the tree's span of `pre PROBE` or `post PROBE` is the probe's,
    // of `replans N` the count's).
    let mut at: Vec<usize> = Vec::new();
    let mut after: Vec<usize> = Vec::new();
    for item in &module.items {
        match item {
            ast::Item::Tool(t) => at.push(t.span.start as usize),
            ast::Item::Policy(p) => {
                at.push(p.span.start as usize);
                if let Some(a) = &p.actor {
                    at.push(a.span.start as usize);
                }
                if let Some(m) = &p.max_steps {
                    after.push(m.span.start as usize);
                }
                at.extend(p.rules.iter().map(|r| r.span.start as usize));
            }
            ast::Item::Plan(p) => {
                at.push(p.span.start as usize);
                for count in [&p.replans, &p.max_steps].into_iter().flatten() {
                    after.push(count.span.start as usize);
                }
                for step in &p.steps {
                    at.push(step.span.start as usize);
                    for clause in &step.clauses {
                        match clause {
                            ast::Clause::Pre(probe) | ast::Clause::Post(probe) => {
                                after.push(probe.span.start as usize)
                            }
                            other => at.push(other.span().start as usize),
                        }
                    }
                }
            }
            ast::Item::Error(_) => {}
        }
    }
    let index_of = |offset: usize| {
        pieces
            .binary_search_by_key(&offset, |p| p.start)
            .ok()
            .filter(|&i| {
                pieces
                    .get(i)
                    .is_some_and(|p| matches!(p.kind, Kind::Tok(_)))
            })
    };
    let mut set: HashSet<usize> = at.into_iter().filter_map(index_of).collect();
    for offset in after {
        if let Some(i) = index_of(offset)
            && let Some(prev) = (0..i).rev().find(|&j| {
                pieces
                    .get(j)
                    .is_some_and(|p| matches!(p.kind, Kind::Tok(_)))
            })
        {
            set.insert(prev);
        }
    }
    set
}

/// The `name:value` tokens written without a space (an argument, a
/// parameter, a record field or entry: the lexer reads them as one scope
/// token and the parser splits them), to be written `name: value`. The
/// scopes of `actor` and `requires` lists are scopes and stay whole.
fn splits(module: &ast::Module, pieces: &[Piece<'_>]) -> HashSet<usize> {
    let scopes: HashSet<usize> = module
        .policies()
        .flat_map(|p| {
            let actor = p.actor.iter().flat_map(|a| a.node.iter());
            let required = p.rules.iter().flat_map(|r| r.requires.iter());
            actor.chain(required).map(|n| n.span.start as usize)
        })
        .collect();
    pieces
        .iter()
        .enumerate()
        .filter(|(_, p)| matches!(p.kind, Kind::Tok(Token::Scope(_))) && !scopes.contains(&p.start))
        .map(|(i, _)| i)
        .collect()
}

/// The texts a piece is written as: a split scope token is three.
fn texts<'t>(p: &Piece<'t>, split: bool) -> Vec<&'t str> {
    match p.kind {
        Kind::Tok(Token::Scope(s)) if split => match s.split_once(':') {
            Some((name, rest)) => vec![name, ":", rest],
            None => vec![s],
        },
        kind => vec![kind.text()],
    }
}

/// An open bracket: the indent of the line it is on, and whether its
/// contents start on a new line.
struct Open {
    indent: usize,
    multi: bool,
}

/// For each opening bracket, whether its contents run over several lines:
/// a line starts inside it, at its own level (an anchor, a doc comment, a
/// line the author broke, the line after a comment). Such a bracket is laid
/// out as a block: its contents start on a new line, and it closes on a
/// line of its own.
fn multiline(pieces: &[Piece<'_>], anchors: &HashSet<usize>) -> Vec<bool> {
    let mut multi = vec![false; pieces.len()];
    let mut open: Vec<usize> = Vec::new();
    let mut prev: Option<Kind<'_>> = None;
    for (i, p) in pieces.iter().enumerate() {
        let starts_line = prev.is_some()
            && (anchors.contains(&i)
                || p.kind.is_doc()
                || prev.is_some_and(|k| k.is_doc() || matches!(k, Kind::Comment(_)))
                || (p.breaks > 0 && !p.kind.is(Token::Comma)));
        if starts_line && let Some(slot) = open.last().and_then(|&o| multi.get_mut(o)) {
            *slot = true;
        }
        if p.kind.closes() {
            open.pop();
        }
        if p.kind.opens() {
            open.push(i);
        }
        prev = Some(p.kind);
    }
    multi
}

/// The file written out, and the line (from 0) each piece is on.
fn print(
    pieces: &[Piece<'_>],
    anchors: &HashSet<usize>,
    split: &HashSet<usize>,
    shape: &Shape,
) -> (String, Vec<usize>) {
    let mut out = String::new();
    let mut lines = Vec::with_capacity(pieces.len());
    let mut line = 0usize;
    let mut open: Vec<Open> = Vec::new();
    let mut indent = 0usize;
    // The last token (not comment) written, for continuation lines.
    let mut last_tok: Option<Kind<'_>> = None;
    let mut prev: Option<Kind<'_>> = None;
    // The line indent of the bracket closed last: a bracket opened right
    // after a close (`) {` of a step whose arguments run over several
    // lines) belongs to the line that opened the closed one.
    let mut closed_indent = 0usize;
    let multi = &shape.multi;
    for (i, p) in pieces.iter().enumerate() {
        let kind = p.kind;
        let anchored = anchors.contains(&i) || kind.is_doc() || prev.is_some_and(|k| k.is_doc());
        let after_comment = matches!(prev, Some(Kind::Comment(_)));
        let in_block = open.last().is_some_and(|o| o.multi);
        // A block's first line starts after its bracket, but a comment
        // the author put right after the bracket stays there.
        let trailing_comment = matches!(kind, Kind::Comment(_)) && p.breaks == 0;
        let opens_block = in_block && prev.is_some_and(|k| k.opens()) && !trailing_comment;
        let closes_block = in_block && kind.closes();
        let next_item = i
            .checked_sub(1)
            .is_some_and(|j| shape.break_after.contains(&j))
            && !trailing_comment;
        let newline = match prev {
            None => false,
            Some(_) if after_comment || anchored || opens_block || closes_block || next_item => {
                true
            }
            // A comma stays with what it follows.
            Some(_) if kind.is(Token::Comma) => false,
            Some(_) => p.breaks > 0,
        };
        if kind.closes() {
            let o = open.pop();
            closed_indent = o.map_or(0, |o| o.indent);
            if newline {
                indent = closed_indent;
            }
        } else if newline {
            let base = open.last().map_or(0, |o| o.indent + 1);
            let continues = matches!(kind, Kind::Tok(_))
                && !anchored
                && last_tok.is_some_and(|k| !k.is(Token::Comma) && !k.opens());
            indent = base + usize::from(continues);
        }
        if newline {
            trim_line_end(&mut out);
            out.push('\n');
            line += 1;
            let blank = p.breaks >= 2 && !prev.is_some_and(|k| k.opens()) && !kind.closes();
            if blank {
                out.push('\n');
                line += 1;
            }
            for _ in 0..indent {
                out.push_str("    ");
            }
        } else if let Some(a) = prev
            && space(a, kind)
        {
            out.push(' ');
        }
        match texts(p, split.contains(&i)).as_slice() {
            [name, colon, rest] => {
                out.push_str(name);
                out.push_str(colon);
                out.push(' ');
                out.push_str(rest);
            }
            _ => out.push_str(kind.text()),
        }
        if shape.comma_after.contains(&i) {
            out.push(',');
        }
        lines.push(line);
        if kind.opens() {
            let after_close = prev.is_some_and(|k| k.closes()) && !newline;
            open.push(Open {
                indent: if after_close { closed_indent } else { indent },
                multi: multi.get(i).copied().unwrap_or(false),
            });
        }
        if let Kind::Tok(_) = kind {
            last_tok = Some(kind);
        }
        prev = Some(kind);
    }
    trim_line_end(&mut out);
    if !out.is_empty() {
        out.push('\n');
    }
    (out, lines)
}

fn trim_line_end(out: &mut String) {
    let kept = out.trim_end_matches([' ', '\t']).len();
    out.truncate(kept);
}

/// Whether one space separates `a` and `b` on a line.
fn space(a: Kind<'_>, b: Kind<'_>) -> bool {
    use Token::*;
    let (Kind::Tok(a), Kind::Tok(b)) = (a, b) else {
        // A trailing comment is set off by one space.
        return true;
    };
    !(matches!(b, Comma | RParen | RBracket | Question | Colon)
        || matches!(a, LParen | LBracket)
        || (b == LParen && matches!(a, Ident(_) | DottedName(_)))
        || (a == LBrace && b == RBrace))
}

/// Refuses a layout whose tokens and comments differ from the input's:
/// the output, lexed again, must give the same texts in the same order
/// (split scope tokens as their three parts, with the commas added after
/// the pieces of `comma_after`). Token kinds follow from
/// their texts, and a space always follows a colon, so equal texts are
/// equal tokens.
fn verify(
    input: &[Piece<'_>],
    split: &HashSet<usize>,
    comma_after: &HashSet<usize>,
    out: &str,
) -> Result<(), LayoutError> {
    let expected: Vec<(&str, usize)> = input
        .iter()
        .enumerate()
        .flat_map(|(i, p)| {
            let added = comma_after.contains(&i).then_some(",");
            texts(p, split.contains(&i))
                .into_iter()
                .chain(added)
                .map(move |t| (t, p.start))
        })
        .collect();
    let output = pieces(out);
    let got: Vec<&str> = output.iter().map(|p| p.kind.text()).collect();
    if let Some(i) = (0..expected.len().max(got.len()))
        .find(|&i| expected.get(i).map(|e| e.0) != got.get(i).copied())
    {
        let (text, at) = expected.get(i).copied().unwrap_or(("the end", out.len()));
        return Err(LayoutError::Internal(format!(
            "the layout changes token {} (`{text}` at byte {at} of the input)",
            i + 1
        )));
    }
    Ok(())
}
