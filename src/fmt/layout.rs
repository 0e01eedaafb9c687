//! The text form's layout (`planc fmt`).
//!
//! The layout works on the file's tokens and comments, guided by its syntax
//! tree, and changes whitespace only:
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
//!   `,` `:` `?` and closing brackets, nor between a name and its `(`.
//!
//! A file with syntax errors is not laid out. Before the result is returned
//! its tokens and comments are compared with the input's: a layout that
//! would change anything but whitespace is refused as an internal error,
//! so the command can never change what a plan means or drop a comment.

use std::collections::HashSet;

use crate::diagnostics::{Diagnostic, Severity};
use crate::source::FileId;
use crate::syntax::ast;
use crate::syntax::lexer::{self, Token};

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
    let out = print(&pieces, &anchors, &split);
    verify(&pieces, &split, &out)?;
    Ok(out)
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

fn print(pieces: &[Piece<'_>], anchors: &HashSet<usize>, split: &HashSet<usize>) -> String {
    let mut out = String::new();
    let mut open: Vec<Open> = Vec::new();
    let mut indent = 0usize;
    // The last token (not comment) written, for continuation lines.
    let mut last_tok: Option<Kind<'_>> = None;
    let mut prev: Option<Kind<'_>> = None;
    // The line indent of the bracket closed last: a bracket opened right
    // after a close (`) {` of a step whose arguments run over several
    // lines) belongs to the line that opened the closed one.
    let mut closed_indent = 0usize;
    let multi = multiline(pieces, anchors);
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
        let newline = match prev {
            None => false,
            Some(_) if after_comment || anchored || opens_block || closes_block => true,
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
            let blank = p.breaks >= 2 && !prev.is_some_and(|k| k.opens()) && !kind.closes();
            if blank {
                out.push('\n');
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
    out
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
/// (split scope tokens as their three parts). Token kinds follow from
/// their texts, and a space always follows a colon, so equal texts are
/// equal tokens.
fn verify(input: &[Piece<'_>], split: &HashSet<usize>, out: &str) -> Result<(), LayoutError> {
    let expected: Vec<(&str, usize)> = input
        .iter()
        .enumerate()
        .flat_map(|(i, p)| {
            texts(p, split.contains(&i))
                .into_iter()
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
