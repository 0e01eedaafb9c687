//! The lexer of the text form: a logos state machine, then one linear pass
//! that reports bad input and enforces the limits.
//!
//! [`lex`] never fails. Anything the grammar does not know becomes an
//! [`Token::Error`] token (E0001); a literal that cannot be read (an
//! unterminated string, a bad escape, a date that is not in the calendar, a
//! malformed number) becomes a [`Token::BadLit`] token (E0002); a string
//! longer than [`limits::MAX_STRING_BYTES`] is a `BadLit` too (E0003).
//! Brackets nested deeper than [`limits::MAX_DEPTH`] are cut off: the tokens
//! from the bracket that crosses the limit to its matching close (or the end
//! of input) become one [`Token::TooDeep`] token (E0003). The parser accepts
//! these tokens wherever a value or a type may stand, and drops its own
//! errors about them, so that one mistake gives one diagnostic.

use chumsky::span::SimpleSpan;
use logos::Logos;

use super::literal;
use crate::diagnostics::{Code, Diagnostic};
use crate::limits;
use crate::source::{FileId, Span};

/// One token of the text form. Payloads borrow the source text: numbers and
/// dates are kept exactly as written.
#[derive(Logos, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[logos(skip r"[ \t\r\n]+")]
pub enum Token<'src> {
    /// A word. Every keyword lexes as an identifier (they are contextual).
    #[regex(r"[A-Za-z_][A-Za-z0-9_]*")]
    Ident(&'src str),
    /// `billing.issue_credit`, `facts.plan`
    #[regex(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)+")]
    DottedName(&'src str),
    /// A binding name with fields and at least one index or quoted key,
    /// `tags[0].name`, `ratings["Le Marais"]`: a `pre` probe's path into a
    /// list or a map (`docs/language.md`).
    #[regex(r#"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*(\[[0-9]+\]|\["([^"\\\r\n]|\\[^\r\n])*"\])(\.[A-Za-z_][A-Za-z0-9_]*|\[[0-9]+\]|\["([^"\\\r\n]|\\[^\r\n])*"\])*"#)]
    IndexedName(&'src str),
    /// `billing:write`; also `name:value` written without a space, which the
    /// parser splits where an argument or a field is expected.
    #[regex(r"[A-Za-z_][A-Za-z0-9_]*(:[A-Za-z0-9_*.+\-]+)+")]
    Scope(&'src str),
    /// `$.results[0].id`, `$.ratings["Le Marais"]`, one token.
    #[regex(r#"\$(\.[A-Za-z_][A-Za-z0-9_]*|\[[0-9]+\]|\["([^"\\\r\n]|\\[^\r\n])*"\])*"#)]
    Path(&'src str),
    #[regex(r"-?[0-9]+", priority = 4)]
    Int(&'src str),
    #[regex(r"-?[0-9]+\.[0-9]+", priority = 4)]
    Decimal(&'src str),
    #[regex(r"[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]")]
    Date(&'src str),
    #[regex(
        r"[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9][Tt][0-9][0-9]:[0-9][0-9]:[0-9][0-9](\.[0-9]+)?([Zz]|[+\-][0-9][0-9]:[0-9][0-9])",
        priority = 4
    )]
    Datetime(&'src str),
    /// A string literal with its quotes, escapes undecoded.
    #[regex(r#""([^"\\\r\n]|\\[^\r\n])*""#)]
    Str(&'src str),
    /// A `///` comment, with its slashes. `////` starts a plain comment.
    #[regex(r"///([^/\n][^\n]*)?", priority = 5, allow_greedy = true)]
    Doc(&'src str),
    /// A `//` comment: skipped.
    #[regex(r"//[^\n]*", logos::skip, priority = 1, allow_greedy = true)]
    Comment,
    #[token("(")]
    LParen,
    #[token(")")]
    RParen,
    #[token("[")]
    LBracket,
    #[token("]")]
    RBracket,
    #[token("{")]
    LBrace,
    #[token("}")]
    RBrace,
    #[token(",")]
    Comma,
    #[token(":")]
    Colon,
    #[token("=")]
    Assign,
    #[token("->")]
    Arrow,
    #[token("?")]
    Question,
    #[token("|")]
    Pipe,
    #[token("==")]
    EqEq,
    #[token("!=")]
    NotEq,
    #[token("<")]
    Lt,
    #[token("<=")]
    Le,
    #[token(">")]
    Gt,
    #[token(">=")]
    Ge,
    /// `*`: the tool of a policy's default rule.
    #[token("*")]
    Star,

    // Malformed literals, recognised so that they are reported as one
    // literal instead of a run of puzzling tokens. The lexing pass turns
    // them into `BadLit`.
    /// A string that reaches the end of its line.
    #[regex(r#""([^"\\\r\n]|\\[^\r\n])*\\?"#)]
    Unterminated(&'src str),
    /// Digits run together with letters or dots: `1e5`, `1.`, `1.2.3`.
    #[regex(r"-?[0-9][0-9A-Za-z_.]*", priority = 3)]
    BadNumber(&'src str),
    /// A date followed by a time that is not well formed.
    #[regex(
        r"[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9][Tt][0-9A-Za-z:.+\-]*",
        priority = 3
    )]
    BadDatetime(&'src str),

    /// A `#` comment, as in shells and Python: not a comment here, but
    /// reported as one mistake rather than a run of strange tokens.
    #[regex(r"#[^\n]*", allow_greedy = true)]
    HashComment(&'src str),

    // Made by the lexing pass, never by the state machine.
    /// Input the grammar does not know (reported as E0001).
    Error(&'src str),
    /// A literal that cannot be read (reported as E0002 or E0003).
    BadLit(&'src str),
    /// Brackets nested past the limit, up to their matching close
    /// (reported as E0003).
    TooDeep,
}

impl<'src> Token<'src> {
    /// The source text of a token that carries it.
    pub fn text(&self) -> Option<&'src str> {
        use Token::*;
        match *self {
            Ident(s) | DottedName(s) | IndexedName(s) | Scope(s) | Path(s) | Int(s)
            | Decimal(s) | Date(s) | Datetime(s) | Str(s) | Doc(s) | Unterminated(s)
            | BadNumber(s) | BadDatetime(s) | HashComment(s) | Error(s) | BadLit(s) => Some(s),
            _ => None,
        }
    }

    /// How the token reads in a message: `` `step` ``, `` `)` ``, "a doc
    /// comment". Long text is cut short.
    pub fn describe(&self) -> String {
        use Token::*;
        match *self {
            Doc(_) => "a doc comment".to_string(),
            TooDeep => "brackets nested too deeply".to_string(),
            Str(s) | BadLit(s) | Unterminated(s) => format!("`{}`", shorten(s)),
            _ => match self.text() {
                Some(s) => format!("`{}`", shorten(s)),
                None => format!("`{}`", self.punct()),
            },
        }
    }

    /// The text of a punctuation token; empty for the others.
    pub fn punct(&self) -> &'static str {
        use Token::*;
        match self {
            LParen => "(",
            RParen => ")",
            LBracket => "[",
            RBracket => "]",
            LBrace => "{",
            RBrace => "}",
            Comma => ",",
            Colon => ":",
            Assign => "=",
            Arrow => "->",
            Question => "?",
            Pipe => "|",
            Star => "*",
            EqEq => "==",
            NotEq => "!=",
            Lt => "<",
            Le => "<=",
            Gt => ">",
            Ge => ">=",
            _ => "",
        }
    }

    /// Tokens the lexing pass has already reported.
    pub fn is_reported(&self) -> bool {
        matches!(self, Token::Error(_) | Token::BadLit(_) | Token::TooDeep)
    }

    pub(crate) fn opens(&self) -> bool {
        matches!(self, Token::LParen | Token::LBracket | Token::LBrace)
    }

    pub(crate) fn closes(&self) -> bool {
        matches!(self, Token::RParen | Token::RBracket | Token::RBrace)
    }
}

/// Cuts a token's text for a message: the first 40 characters, or the first
/// line.
fn shorten(s: &str) -> String {
    let line = s.lines().next().unwrap_or("");
    let mut out: String = line.chars().take(40).collect();
    if out.len() < s.len() {
        out.push('…');
    }
    out
}

/// A token and its byte range.
pub type SpannedToken<'src> = (Token<'src>, SimpleSpan);

/// What [`lex`] found beyond the tokens: offsets where a parser error would
/// only repeat what the lexer said.
#[derive(Debug, Default)]
pub struct LexOutput<'src> {
    pub tokens: Vec<SpannedToken<'src>>,
    pub diagnostics: Vec<Diagnostic>,
    /// Start offsets of tokens at which the parser must not report an
    /// error, sorted: the reported tokens themselves, and what directly
    /// follows an unterminated string or an error token. The end of input
    /// is `text.len()`.
    pub quiet: Vec<usize>,
}

/// Lexes `text` into tokens, reporting bad input. Never fails; linear in
/// the length of the text.
pub fn lex<'src>(file: FileId, text: &'src str) -> LexOutput<'src> {
    let mut tokens = Vec::with_capacity(text.len() / 5 + 1);
    let mut lexing = Lexing::new(file, text);
    while lexing.next_into(&mut tokens) {}
    let (diagnostics, quiet) = lexing.finish();
    let mut out = LexOutput {
        tokens,
        diagnostics,
        quiet,
    };
    limit_depth(file, text.len(), &mut out);
    out
}

/// The lexing pass of [`lex`] one token at a time, into a vector the caller
/// chooses (a step-by-step reading keeps only a step's tokens at a time,
/// `syntax::stepwise`), without the cut of deep brackets.
pub struct Lexing<'src> {
    file: FileId,
    text: &'src str,
    lexer: logos::Lexer<'src, Token<'src>>,
    /// After an unterminated string or an error token, the next token's
    /// error (if any) is a consequence: it is kept quiet.
    quiet_next: bool,
    pub diagnostics: Vec<Diagnostic>,
    /// As [`LexOutput::quiet`].
    pub quiet: Vec<usize>,
}

impl<'src> Lexing<'src> {
    pub fn new(file: FileId, text: &'src str) -> Lexing<'src> {
        let mut lexer = Token::lexer(text);
        // A leading byte-order mark is skipped; offsets still count it, so
        // every span points into the text as given.
        if text.starts_with('\u{feff}') {
            lexer.bump('\u{feff}'.len_utf8());
        }
        Lexing {
            file,
            text,
            lexer,
            quiet_next: false,
            diagnostics: Vec::new(),
            quiet: Vec::new(),
        }
    }

    /// Whether nothing read so far was reported or kept quiet.
    pub fn clean(&self) -> bool {
        self.diagnostics.is_empty() && self.quiet.is_empty() && !self.quiet_next
    }

    /// Reads the next token and pushes it onto `tokens`, or, for a bad
    /// character right after another, widens the last token of `tokens`
    /// (one token for a run of them). `false` at the end of the text.
    pub fn next_into(&mut self, tokens: &mut Vec<SpannedToken<'src>>) -> bool {
        let (file, text) = (self.file, self.text);
        let span = |r: &std::ops::Range<usize>| Span::new(file, r.start, r.end);
        let Some(result) = self.lexer.next() else {
            return false;
        };
        let range = self.lexer.span();
        let slice = self.lexer.slice();
        let out = self;
        if out.quiet_next {
            out.quiet.push(range.start);
            out.quiet_next = false;
        }
        let token = match result {
            Err(()) => {
                // Merge a run of bad characters into one token.
                if let Some((Token::Error(prev), prev_span)) = tokens.last_mut()
                    && prev_span.end == range.start
                {
                    let start = prev_span.start;
                    prev_span.end = range.end;
                    *prev = text.get(start..range.end).unwrap_or(prev);
                    if let Some(d) = out.diagnostics.last_mut() {
                        d.span = Span::new(file, start, range.end);
                        d.message = bad_char_message(prev);
                    }
                    out.quiet_next = true;
                    return true;
                }
                out.diagnostics.push(
                    Diagnostic::new(Code::E0001, span(&range), bad_char_message(slice))
                        .with_label("not valid here"),
                );
                out.quiet.push(range.start);
                out.quiet_next = true;
                Token::Error(slice)
            }
            Ok(Token::Str(s)) => {
                if s.len() > limits::MAX_STRING_BYTES {
                    out.diagnostics.push(too_long(span(&range), s.len()));
                    out.quiet.push(range.start);
                    Token::BadLit(s)
                } else {
                    let before = out.diagnostics.len();
                    literal::check_string(file, range.start, s, &mut out.diagnostics);
                    if out.diagnostics.len() > before {
                        out.quiet.push(range.start);
                        Token::BadLit(s)
                    } else {
                        Token::Str(s)
                    }
                }
            }
            Ok(Token::Unterminated(s)) => {
                if s.len() > limits::MAX_STRING_BYTES {
                    out.diagnostics.push(too_long(span(&range), s.len()));
                } else {
                    out.diagnostics.push(
                        Diagnostic::new(Code::E0002, span(&range), "unterminated string")
                            .with_label("this string has no closing `\"` on its line")
                            .with_help("close the string with `\"`; a string cannot span lines (write `\\n` for a line break)"),
                    );
                }
                out.quiet.push(range.start);
                out.quiet_next = true;
                Token::BadLit(s)
            }
            Ok(Token::Date(s)) => match literal::check_date(s) {
                Ok(()) => Token::Date(s),
                Err(why) => {
                    out.diagnostics
                        .push(literal::invalid_date(span(&range), s, &why));
                    out.quiet.push(range.start);
                    Token::BadLit(s)
                }
            },
            Ok(Token::Datetime(s)) => match literal::check_datetime(s) {
                Ok(()) => Token::Datetime(s),
                Err(why) => {
                    out.diagnostics
                        .push(literal::invalid_datetime(span(&range), s, &why));
                    out.quiet.push(range.start);
                    Token::BadLit(s)
                }
            },
            Ok(Token::BadDatetime(s)) => {
                out.diagnostics.push(
                    Diagnostic::new(
                        Code::E0002,
                        span(&range),
                        format!("invalid datetime `{}`", shorten(s)),
                    )
                    .with_label("not a valid date and time")
                    .with_help(
                        "write a datetime as `2026-03-04T10:00:00Z` or `2026-03-04T10:00:00+01:00`",
                    ),
                );
                out.quiet.push(range.start);
                Token::BadLit(s)
            }
            Ok(Token::HashComment(s)) => {
                out.diagnostics.push(
                    Diagnostic::new(Code::E0001, span(&range), "`#` does not start a comment")
                        .with_label("not a comment")
                        .with_help("write `//` for a comment"),
                );
                out.quiet.push(range.start);
                out.quiet_next = true;
                Token::Error(s)
            }
            Ok(Token::BadNumber(s)) => {
                out.diagnostics.push(
                    Diagnostic::new(Code::E0002, span(&range), format!("invalid number `{}`", shorten(s)))
                        .with_label("not a number")
                        .with_help("write a whole number as `42` or `-3`, a decimal as `12.50`; there are no exponents"),
                );
                out.quiet.push(range.start);
                Token::BadLit(s)
            }
            Ok(Token::IndexedName(s)) if s.starts_with("in[") => {
                // `x in[5]`, `$.tags not in["a"]`: the word `in` and a
                // list written without a space, not a binding named `in`
                // indexed (`docs/language.md`). The list is lexed again
                // from its `[`.
                let word = range.start + 2;
                tokens.push((Token::Ident("in"), SimpleSpan::from(range.start..word)));
                out.lexer = Token::lexer(text);
                out.lexer.bump(word);
                return true;
            }
            Ok(t @ (Token::Path(s) | Token::IndexedName(s))) if s.contains('"') => {
                // The quoted keys of a path: their escapes are those of
                // a string (E0002 for a bad one).
                let before = out.diagnostics.len();
                check_keys(file, range.start, s, &mut out.diagnostics);
                if out.diagnostics.len() > before {
                    out.quiet.push(range.start);
                    Token::BadLit(s)
                } else {
                    t
                }
            }
            Ok(t) => t,
        };
        tokens.push((token, SimpleSpan::from(range)));
        true
    }

    /// What was reported, and the offsets kept quiet.
    pub fn finish(mut self) -> (Vec<Diagnostic>, Vec<usize>) {
        if self.quiet_next {
            self.quiet.push(self.text.len());
        }
        (self.diagnostics, self.quiet)
    }
}

/// Reports the bad escapes of each quoted key (`["…"]`) of a path token
/// starting at byte `offset`.
fn check_keys(file: FileId, offset: usize, token: &str, diags: &mut Vec<Diagnostic>) {
    let mut from = 0;
    while let Some(at) = token.get(from..).and_then(|rest| rest.find("[\"")) {
        let quote = from + at + 1;
        let rest = token.get(quote..).unwrap_or("");
        let len = literal::string_len(rest).unwrap_or(rest.len());
        literal::check_string(file, offset + quote, rest.get(..len).unwrap_or(rest), diags);
        from = quote + len.max(1);
    }
}

fn bad_char_message(s: &str) -> String {
    let mut chars = s.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) => format!("unexpected character {}", show_char(c)),
        _ => format!(
            "unexpected characters `{}`",
            shorten(&s.escape_debug().to_string())
        ),
    }
}

fn show_char(c: char) -> String {
    if crate::syntax::lexicon::is_hidden(c) || c == '\u{fffd}' {
        format!("U+{:04X}", c as u32)
    } else {
        format!("`{c}`")
    }
}

fn too_long(span: Span, len: usize) -> Diagnostic {
    Diagnostic::new(
        Code::E0003,
        Span::new(span.file, span.start as usize, span.start as usize + 1),
        format!(
            "string literal is too long: {len} bytes, the limit is {} bytes",
            limits::MAX_STRING_BYTES
        ),
    )
    .with_label("this string starts here")
}

/// Cuts bracket nesting at [`limits::MAX_DEPTH`]: the bracket that crosses
/// the limit and everything up to its matching close become one `TooDeep`
/// token. Brackets of any kind count alike. Linear, in place.
fn limit_depth(file: FileId, text_len: usize, out: &mut LexOutput<'_>) {
    let tokens = &mut out.tokens;
    let mut depth = 0usize;
    let mut write = 0usize;
    let mut read = 0usize;
    let mut cut = false;
    while let Some(&(token, span)) = tokens.get(read) {
        read += 1;
        if token.opens() && depth == limits::MAX_DEPTH {
            // Find the matching close.
            let start = span.start;
            let mut end = span.end;
            let mut inner = 1usize;
            while let Some(&(t, s)) = tokens.get(read) {
                read += 1;
                end = s.end;
                if t.opens() {
                    inner += 1;
                } else if t.closes() {
                    inner -= 1;
                    if inner == 0 {
                        break;
                    }
                }
            }
            out.diagnostics.push(
                Diagnostic::new(
                    Code::E0003,
                    Span::new(file, span.start, span.end),
                    format!("brackets are nested too deeply: the limit is {} levels", limits::MAX_DEPTH),
                )
                .with_label("this bracket is one level too deep")
                .with_help("flatten the value; deeply nested data belongs in a tool's result, not in a plan"),
            );
            out.quiet.push(start);
            if inner > 0 {
                // Unclosed up to the end: what the parser misses there is
                // part of the same problem.
                out.quiet.push(text_len);
            }
            if let Some(slot) = tokens.get_mut(write) {
                *slot = (Token::TooDeep, SimpleSpan::from(start..end));
            }
            write += 1;
            cut = true;
            continue;
        }
        if token.opens() {
            depth += 1;
        } else if token.closes() {
            depth = depth.saturating_sub(1);
        }
        if cut && let Some(slot) = tokens.get_mut(write) {
            *slot = (token, span);
        }
        write += 1;
    }
    tokens.truncate(write);
    if cut {
        out.quiet.sort_unstable();
        out.quiet.dedup();
    }
}

/// Lexes `text` as exactly one token (for the right side of a
/// `name:value` written without a space). `None` when it is not one token.
pub fn single_token(text: &str) -> Option<Token<'_>> {
    let mut lexer = Token::lexer(text);
    let first = lexer.next()?.ok()?;
    if lexer.span() != (0..text.len()) {
        return None;
    }
    match lexer.next() {
        None => Some(first),
        Some(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<Token<'_>> {
        lex(FileId(0), text)
            .tokens
            .into_iter()
            .map(|(t, _)| t)
            .collect()
    }

    fn codes(text: &str) -> Vec<(Code, u32, u32)> {
        lex(FileId(0), text)
            .diagnostics
            .iter()
            .map(|d| (d.code, d.span.start, d.span.end))
            .collect()
    }

    #[test]
    fn in_before_a_list_is_the_word() {
        use Token::*;
        assert_eq!(
            kinds("x in[5] y not in[\"a\", \"b\"] $.t in[1,2]"),
            vec![
                Ident("x"),
                Ident("in"),
                LBracket,
                Int("5"),
                RBracket,
                Ident("y"),
                Ident("not"),
                Ident("in"),
                LBracket,
                Str("\"a\""),
                Comma,
                Str("\"b\""),
                RBracket,
                Path("$.t"),
                Ident("in"),
                LBracket,
                Int("1"),
                Comma,
                Int("2"),
                RBracket,
            ]
        );
        let out = lex(FileId(0), "x in[5]");
        let spans: Vec<(u32, u32)> = out
            .tokens
            .iter()
            .map(|(_, s)| (s.start as u32, s.end as u32))
            .collect();
        assert_eq!(spans, vec![(0, 1), (2, 4), (4, 5), (5, 6), (6, 7)]);
        assert!(out.diagnostics.is_empty());
        // Other indexed names stay one token: `inbox[0]`, `tags[0].name`.
        assert_eq!(
            kinds("inbox[0] tags[0].name"),
            vec![IndexedName("inbox[0]"), IndexedName("tags[0].name")]
        );
        // A dotted name ending in `in` is not the word.
        assert_eq!(kinds("a.in[0]"), vec![IndexedName("a.in[0]")]);
    }

    #[test]
    fn a_leading_byte_order_mark_is_skipped() {
        let out = lex(FileId(0), "\u{feff}plan");
        assert!(out.diagnostics.is_empty(), "{:?}", out.diagnostics);
        // The token's span counts the mark's three bytes.
        assert_eq!(
            out.tokens.first().map(|(_, s)| (s.start, s.end)),
            Some((3, 7))
        );
        // Anywhere else it is a bad character.
        assert_eq!(codes("plan \u{feff}"), vec![(Code::E0001, 5, 8)]);
    }

    #[test]
    fn names_scopes_and_paths() {
        use Token::*;
        assert_eq!(
            kinds("step billing.issue_credit crm:read $.results[0].id $ a:b:c"),
            vec![
                Ident("step"),
                DottedName("billing.issue_credit"),
                Scope("crm:read"),
                Path("$.results[0].id"),
                Path("$"),
                Scope("a:b:c"),
            ]
        );
        // With a space, a colon is its own token.
        assert_eq!(kinds("a: b"), vec![Ident("a"), Colon, Ident("b")]);
        assert_eq!(kinds(r#"a:"x""#), vec![Ident("a"), Colon, Str(r#""x""#)]);
    }

    #[test]
    fn numbers_and_dates_keep_their_text() {
        use Token::*;
        assert_eq!(
            kinds("42 -3 12.50 2026-03-04 2026-03-04T10:00:00Z 2026-03-04T10:00:00.5+01:00"),
            vec![
                Int("42"),
                Int("-3"),
                Decimal("12.50"),
                Date("2026-03-04"),
                Datetime("2026-03-04T10:00:00Z"),
                Datetime("2026-03-04T10:00:00.5+01:00"),
            ]
        );
    }

    #[test]
    fn operators_and_punctuation() {
        use Token::*;
        assert_eq!(
            kinds("( ) [ ] { } , : = -> ? | == != < <= > >= *"),
            vec![
                LParen, RParen, LBracket, RBracket, LBrace, RBrace, Comma, Colon, Assign, Arrow,
                Question, Pipe, EqEq, NotEq, Lt, Le, Gt, Ge, Star
            ]
        );
    }

    #[test]
    fn comments_and_doc_comments() {
        use Token::*;
        assert_eq!(
            kinds("/// doc\n// plain\n//// banner\n///\nx // tail"),
            vec![Doc("/// doc"), Doc("///"), Ident("x")]
        );
    }

    #[test]
    fn bad_characters_are_one_error_token_per_run() {
        let out = lex(FileId(0), "a @% b\u{0}");
        let toks: Vec<_> = out.tokens.iter().map(|(t, _)| *t).collect();
        assert_eq!(
            toks,
            vec![
                Token::Ident("a"),
                Token::Error("@%"),
                Token::Ident("b"),
                Token::Error("\u{0}")
            ]
        );
        assert_eq!(
            codes("a @% b\u{0}"),
            vec![(Code::E0001, 2, 4), (Code::E0001, 6, 7)]
        );
        assert_eq!(out.diagnostics[0].message, "unexpected characters `@%`");
        assert_eq!(out.diagnostics[1].message, "unexpected character U+0000");
        // A `#` comment is one error, to the end of its line.
        assert_eq!(codes("a # b - c\nd"), vec![(Code::E0001, 2, 9)]);
        // A multi-byte character is one error, spanning its bytes.
        assert_eq!(codes("é"), vec![(Code::E0001, 0, 2)]);
    }

    #[test]
    fn unterminated_string_is_e0002_and_quiets_what_follows() {
        let out = lex(FileId(0), "x: \"abc\ny");
        assert_eq!(out.tokens[2].0, Token::BadLit("\"abc"));
        assert_eq!(codes("x: \"abc\ny"), vec![(Code::E0002, 3, 7)]);
        assert_eq!(out.quiet, vec![3, 8]);
        // A backslash at the end of the line belongs to the string.
        assert_eq!(codes("\"ab\\"), vec![(Code::E0002, 0, 4)]);
    }

    #[test]
    fn bad_literals() {
        assert_eq!(codes("2026-02-30"), vec![(Code::E0002, 0, 10)]);
        assert_eq!(codes("2024-02-29 2023-02-29"), vec![(Code::E0002, 11, 21)]);
        assert_eq!(
            codes("1e5 1. 1.2.3"),
            vec![
                (Code::E0002, 0, 3),
                (Code::E0002, 4, 6),
                (Code::E0002, 7, 12)
            ]
        );
        assert_eq!(codes("2026-03-04T25:00:00Z"), vec![(Code::E0002, 0, 20)]);
        assert_eq!(codes("2026-03-04T10:00"), vec![(Code::E0002, 0, 16)]);
        // The span of a bad escape is the escape.
        assert_eq!(codes(r#""ab\qc""#), vec![(Code::E0002, 3, 5)]);
    }

    #[test]
    fn long_string_is_e0003() {
        let text = format!("\"{}\"", "a".repeat(limits::MAX_STRING_BYTES));
        assert_eq!(codes(&text), vec![(Code::E0003, 0, 1)]);
    }

    #[test]
    fn nesting_is_cut_at_the_limit() {
        let depth = limits::MAX_DEPTH + 3;
        let text = format!("x{}{} y", "[".repeat(depth), "]".repeat(depth));
        let out = lex(FileId(0), &text);
        let crossing = 1 + limits::MAX_DEPTH;
        assert_eq!(
            out.diagnostics
                .iter()
                .map(|d| (d.code, d.span.start as usize))
                .collect::<Vec<_>>(),
            vec![(Code::E0003, crossing)]
        );
        // x, 64 opens, one TooDeep, 64 closes, y.
        assert_eq!(out.tokens.len(), 1 + 64 + 1 + 64 + 1);
        assert_eq!(
            out.tokens[65],
            (Token::TooDeep, SimpleSpan::from(crossing..crossing + 6))
        );
        assert_eq!(out.tokens.last().unwrap().0, Token::Ident("y"));
        assert_eq!(out.quiet, vec![crossing]);
    }

    #[test]
    fn unclosed_nesting_runs_to_the_end() {
        let text = "(".repeat(100_000);
        let out = lex(FileId(0), &text);
        assert_eq!(out.tokens.len(), limits::MAX_DEPTH + 1);
        assert_eq!(out.quiet, vec![limits::MAX_DEPTH, 100_000]);
    }

    #[test]
    fn single_token_relexes() {
        assert_eq!(single_token("2026-03-04"), Some(Token::Date("2026-03-04")));
        assert_eq!(single_token("a.b"), Some(Token::DottedName("a.b")));
        assert_eq!(single_token("a b"), None);
        assert_eq!(single_token(""), None);
    }
}
