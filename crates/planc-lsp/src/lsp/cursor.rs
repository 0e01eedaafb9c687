//! The cursor's context in `.plan` text, shared by completion and
//! signature help: the text before the cursor is lexed (it is often
//! incomplete while the user types, so the parse tree cannot be trusted to
//! hold the construct being written), and its open brackets are found.

use crate::source::FileId;
use crate::syntax::lexer::{self, Token};

pub(super) type Tok<'t> = (Token<'t>, usize, usize);

pub(super) fn ident<'t>(toks: &[Tok<'t>], i: Option<usize>) -> Option<&'t str> {
    match toks.get(i?)?.0 {
        Token::Ident(s) => Some(s),
        _ => None,
    }
}

pub(super) fn is_kw(toks: &[Tok<'_>], i: Option<usize>, kw: &str) -> bool {
    ident(toks, i) == Some(kw)
}

pub(super) fn tok<'t>(toks: &[Tok<'t>], i: Option<usize>) -> Option<Token<'t>> {
    toks.get(i?).map(|t| t.0)
}

pub(super) fn back(i: usize, n: usize) -> Option<usize> {
    i.checked_sub(n)
}

/// The tokens of `text` but doc comments, with their byte ranges.
pub(super) fn tokens(text: &str) -> Vec<Tok<'_>> {
    lexer::lex(FileId(0), text)
        .tokens
        .iter()
        .filter(|(t, _)| !matches!(t, Token::Doc(_)))
        .map(|(t, s)| (*t, s.start, s.end))
        .collect()
}

/// The brackets of `toks` still open at the end, innermost last; and for
/// each closing bracket, the index of the bracket it closes.
pub(super) fn brackets(toks: &[Tok<'_>]) -> (Vec<usize>, Vec<Option<usize>>) {
    let mut stack: Vec<usize> = Vec::new();
    let mut opener_of: Vec<Option<usize>> = vec![None; toks.len()];
    for (i, (t, _, _)) in toks.iter().enumerate() {
        let open = match t {
            Token::LParen | Token::LBracket | Token::LBrace => {
                stack.push(i);
                continue;
            }
            Token::RParen => Token::LParen,
            Token::RBracket => Token::LBracket,
            Token::RBrace => Token::LBrace,
            _ => continue,
        };
        if let Some(at) = stack
            .iter()
            .rposition(|&j| toks.get(j).is_some_and(|o| o.0 == open))
        {
            if let (Some(&j), Some(slot)) = (stack.get(at), opener_of.get_mut(i)) {
                *slot = Some(j);
            }
            stack.truncate(at);
        }
    }
    (stack, opener_of)
}

/// When the `(` at `k` opens a step's call (`step NAME = TOOL(`): the
/// tool's name and the offset of `step`.
pub(super) fn step_call<'t>(toks: &[Tok<'t>], k: usize) -> Option<(&'t str, usize)> {
    let tool = match tok(toks, back(k, 1)) {
        Some(Token::Ident(t) | Token::DottedName(t)) => t,
        _ => return None,
    };
    if tok(toks, back(k, 2)) == Some(Token::Assign)
        && ident(toks, back(k, 3)).is_some()
        && is_kw(toks, back(k, 4), "step")
    {
        let step_at = back(k, 4).and_then(|i| toks.get(i)).map_or(0, |t| t.1);
        return Some((tool, step_at));
    }
    None
}
