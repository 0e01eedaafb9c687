//! Completion in `.plan` text and in JSON plans.
//!
//! Text: the text before the cursor is lexed (it is often incomplete while
//! the user types, so the parse tree cannot be trusted to hold the construct
//! being written) and the innermost open bracket decides the context: a
//! step's call (argument names, then values: bindings in scope, and a
//! binding's fields after `name.`), a step's body (clause
//! keywords, `on_unmet` actions, `after` targets, probe forms after `post`,
//! result paths after `$`), a plan's body (`step` and budget lines, tool
//! names after `step NAME =`), a policy, or the top level. What the names
//! mean (tools, parameters, bindings of earlier steps, result types) comes
//! from the document's analysis.
//!
//! JSON (DESIGN.md §3): a tolerant scan of the whole document
//! ([`super::json_scan`]) gives the open objects and arrays at the cursor
//! and the key each value belongs to, and the members of every object, so
//! that an invalid document (the usual state while typing) still completes.
//! The place decides: the plan's and `budget`'s keys, a step's keys, its
//! `tool` (tool names), `args` keys (parameters not yet given) and values
//! (bindings of earlier steps as `"${name}"`, enum and `bool` values), names
//! and members inside `${`, `binds` paths, `on_unmet` actions, `after`
//! targets, probe objects for `post`, and a probe's keys, kinds, `path` and
//! `op`. Bindings of earlier steps and their types come from the scan (the
//! step's `tool` and `binds`) and the catalogue, since an invalid document
//! has no checked plan. Items are written for where they go ([`Form`]):
//! inside a string without its quotes, outside with them; the edit replaces
//! the partial word before the cursor.

use lsp_types as lsp;

use super::analysis::Analysis;
use super::json_scan::{self, Frame, Kind, Role, Scalar, Slot};
use super::{Failure, Server, convert};
use crate::catalog::Ty;
use crate::check::CheckedPlan;
use crate::source::{FileId, SourceFile, SourceKind, Span};
// The keys and values the JSON form reads: the reader's own lists.
use crate::syntax::json_plan::{
    BUDGET_KEYS, ON_UNMET, OPS, PLAN_KEYS, PROBE_KINDS, STEP_KEYS, probe_keys,
};
use crate::syntax::lexer::{self, Token};

pub fn completion(
    s: &Server<'_>,
    p: lsp::CompletionParams,
) -> Result<Option<lsp::CompletionResponse>, Failure> {
    let pos = &p.text_document_position;
    let Some(a) = s.analysis(&pos.text_document.uri) else {
        return Ok(None);
    };
    let Some(file) = a.doc_file() else {
        return Ok(None);
    };
    let offset = convert::offset(file, pos.position);
    let ctx = Ctx {
        a,
        file,
        offset,
        snippets: s.caps.snippets,
    };
    let items = match file.kind {
        SourceKind::Json => ctx.json_items(),
        SourceKind::Text => ctx.items(),
    };
    Ok(Some(lsp::CompletionResponse::Array(items)))
}

/// How a completion is written where it goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Form {
    /// Plan text, or a name inside `${…}`.
    Text,
    /// JSON; `quoted` outside a string, where the quotes are written too.
    Json { quoted: bool },
}

impl Form {
    /// A name or word as it stands: `email.send`, in JSON a string.
    fn name(self, s: &str) -> String {
        match self {
            Form::Text => s.to_string(),
            Form::Json { quoted } => json_string(s, quoted),
        }
    }

    /// A string value: quoted in text too.
    fn string(self, s: &str) -> String {
        match self {
            Form::Text => format!("{s:?}"),
            Form::Json { quoted } => json_string(s, quoted),
        }
    }

    /// A reference to a binding: `name`, in JSON `${name}`.
    fn reference(self, s: &str) -> String {
        match self {
            Form::Text => s.to_string(),
            Form::Json { quoted: false } => format!("${{{s}}}"),
            Form::Json { quoted: true } => format!("\"${{{s}}}\""),
        }
    }

    /// A key and what follows it: `name: `, in JSON `"name": `.
    fn key(self, s: &str) -> String {
        match self {
            Form::Text => format!("{s}: "),
            Form::Json { quoted: false } => json_string(s, false),
            Form::Json { quoted: true } => format!("{}: ", json_string(s, true)),
        }
    }

    /// Whether a bare JSON word (`true`, a number) may stand here.
    fn bare(self) -> bool {
        self != Form::Json { quoted: false }
    }
}

/// `s` as a JSON string, with or without its quotes.
fn json_string(s: &str, quoted: bool) -> String {
    let q = serde_json::Value::from(s).to_string();
    if quoted {
        return q;
    }
    q.strip_prefix('"')
        .and_then(|q| q.strip_suffix('"'))
        .unwrap_or(s)
        .to_string()
}

/// A binding in scope: from the checked plan (text) or the scan (JSON).
struct Bound {
    name: String,
    ty: Ty,
    /// The name and index of the step that binds it.
    step: String,
    index: usize,
}

struct Ctx<'a> {
    a: &'a Analysis,
    file: &'a SourceFile,
    offset: usize,
    snippets: bool,
}

/// What an open bracket is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Opener<'t> {
    /// `step NAME = TOOL(`: the tool's name and the offset of `step`.
    Call {
        tool: &'t str,
        step_at: usize,
    },
    /// `len(` or `exists(` in a probe.
    Probe,
    /// `{` after a step's call.
    StepBody {
        tool: &'t str,
        step_at: usize,
    },
    PlanBody,
    PolicyBody,
    /// A list or record inside a call, a type, or anything else.
    Other,
}

/// Where the text before `offset` starts its last run of characters that
/// `keep` accepts.
fn run_start(text: &str, keep: impl Fn(char) -> bool) -> usize {
    text.char_indices()
        .rev()
        .find(|&(_, c)| !keep(c))
        .map(|(i, c)| i + c.len_utf8())
        .unwrap_or(0)
}

fn is_word(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '.'
}

fn is_path_char(c: char) -> bool {
    is_word(c) || matches!(c, '$' | '[' | ']')
}

pub(super) type Tok<'t> = (Token<'t>, usize, usize);

fn ident<'t>(toks: &[Tok<'t>], i: Option<usize>) -> Option<&'t str> {
    match toks.get(i?)?.0 {
        Token::Ident(s) => Some(s),
        _ => None,
    }
}

fn is_kw(toks: &[Tok<'_>], i: Option<usize>, kw: &str) -> bool {
    ident(toks, i) == Some(kw)
}

fn tok<'t>(toks: &[Tok<'t>], i: Option<usize>) -> Option<Token<'t>> {
    toks.get(i?).map(|t| t.0)
}

fn back(i: usize, n: usize) -> Option<usize> {
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

impl<'a> Ctx<'a> {
    fn items(&self) -> Vec<lsp::CompletionItem> {
        let Some(before) = self.file.text.get(..self.offset) else {
            return Vec::new();
        };
        let word_start = run_start(before, is_word);
        let path_start = run_start(before, is_path_char);
        let path = before.get(path_start..).filter(|p| p.starts_with('$'));
        let prefix_start = if path.is_some() {
            path_start
        } else {
            word_start
        };
        let Some(head) = before.get(..prefix_start) else {
            return Vec::new();
        };
        let mut toks = tokens(head);
        let replace = Span::new(self.file.id, prefix_start, self.offset);

        // Inside a string: only an interpolation `${` takes a completion.
        let mut in_interp = false;
        if let Some(&(t, _, end)) = toks.last()
            && end == head.len()
            && let Some(text) = t.text()
            && text.starts_with('"')
            && !matches!(t, Token::Str(_))
        {
            if !text.ends_with("${") {
                return Vec::new();
            }
            in_interp = true;
            toks.pop();
        }

        let (stack, opener_of) = brackets(&toks);
        let classify = |k: usize| -> Opener<'_> {
            match tok(&toks, Some(k)) {
                Some(Token::LParen) => {
                    if let Some((tool, step_at)) = step_call(&toks, k) {
                        return Opener::Call { tool, step_at };
                    }
                    if is_kw(&toks, back(k, 1), "len") || is_kw(&toks, back(k, 1), "exists") {
                        return Opener::Probe;
                    }
                    Opener::Other
                }
                Some(Token::LBrace) => {
                    if tok(&toks, back(k, 1)) == Some(Token::RParen)
                        && let Some(open) =
                            back(k, 1).and_then(|i| opener_of.get(i).copied().flatten())
                    {
                        // Re-classify the call's `(`, which is closed.
                        if let Some((tool, step_at)) = step_call(&toks, open) {
                            return Opener::StepBody { tool, step_at };
                        }
                    }
                    let plan_name = match tok(&toks, back(k, 1)) {
                        Some(Token::Str(_)) => back(k, 2),
                        _ => back(k, 1),
                    };
                    if ident(&toks, plan_name).is_some()
                        && is_kw(&toks, plan_name.and_then(|i| back(i, 1)), "plan")
                    {
                        return Opener::PlanBody;
                    }
                    if ident(&toks, back(k, 1)).is_some() && is_kw(&toks, back(k, 2), "policy") {
                        return Opener::PolicyBody;
                    }
                    Opener::Other
                }
                _ => Opener::Other,
            }
        };

        let last = toks.len().checked_sub(1);
        let Some(&inner) = stack.last() else {
            return self.keywords(&["tool", "policy", "plan"], replace, Form::Text);
        };
        // The call this position is inside, at any depth of lists and
        // records.
        let call = stack.iter().rev().find_map(|&k| match classify(k) {
            Opener::Call { tool, step_at } => Some((k, tool, step_at)),
            _ => None,
        });
        if in_interp {
            return match call {
                Some((_, _, step_at)) => {
                    self.binding_items(&self.text_bound(step_at), None, replace, Form::Text)
                }
                None => Vec::new(),
            };
        }
        // The tokens after `from`, after the last comma at that level.
        let segment = |from: usize| -> Vec<usize> {
            let mut seg = Vec::new();
            let mut depth = 0usize;
            for (i, (t, _, _)) in toks.iter().enumerate().skip(from + 1) {
                match t {
                    Token::LParen | Token::LBracket | Token::LBrace => depth += 1,
                    Token::RParen | Token::RBracket | Token::RBrace => {
                        depth = depth.saturating_sub(1)
                    }
                    Token::Comma if depth == 0 => {
                        seg.clear();
                        continue;
                    }
                    _ => {}
                }
                seg.push(i);
            }
            seg
        };
        match classify(inner) {
            Opener::Call { tool, step_at } => {
                let seg = segment(inner);
                match seg.as_slice() {
                    [] => self.params(&toks, inner, tool, replace),
                    [name, colon] if tok(&toks, Some(*colon)) == Some(Token::Colon) => {
                        let param = ident(&toks, Some(*name));
                        self.values(tool, param, &self.text_bound(step_at), replace, Form::Text)
                    }
                    _ => Vec::new(),
                }
            }
            Opener::Other => {
                let Some((_, tool, step_at)) = call else {
                    return Vec::new();
                };
                let seg = segment(inner);
                let list = tok(&toks, Some(inner)) == Some(Token::LBracket);
                let value_here = if list {
                    seg.is_empty()
                } else {
                    matches!(seg.as_slice(), [_, c] if tok(&toks, Some(*c)) == Some(Token::Colon))
                };
                if value_here {
                    self.values(tool, None, &self.text_bound(step_at), replace, Form::Text)
                } else {
                    Vec::new()
                }
            }
            Opener::Probe => {
                let tool = stack.iter().rev().find_map(|&k| match classify(k) {
                    Opener::StepBody { tool, .. } => Some(tool),
                    _ => None,
                });
                match tool {
                    Some(tool) => self.paths(tool, path.unwrap_or("$"), prefix_start, Form::Text),
                    None => Vec::new(),
                }
            }
            Opener::StepBody { tool, step_at } => {
                if let Some(path) = path {
                    return self.paths(tool, path, prefix_start, Form::Text);
                }
                let prev = ident(&toks, last);
                // The last clause keyword of the body, for lists (`after a, b`).
                let clause = toks.iter().skip(inner + 1).rev().find_map(|t| match t.0 {
                    Token::Ident(k @ ("post" | "bind" | "on_unmet" | "retry" | "after")) => Some(k),
                    _ => None,
                });
                let after_list = prev == Some("after")
                    || (tok(&toks, last) == Some(Token::Comma) && clause == Some("after"));
                if prev == Some("post") {
                    self.probes(tool, replace, Form::Text)
                } else if prev == Some("on_unmet") {
                    self.keywords(&["replan", "halt", "escalate"], replace, Form::Text)
                } else if after_list {
                    self.step_items(self.text_steps(step_at), replace, Form::Text)
                } else if tok(&toks, last) == Some(Token::Assign)
                    && is_kw(&toks, last.and_then(|l| back(l, 2)), "bind")
                {
                    self.paths(tool, "$", prefix_start, Form::Text)
                } else if matches!(prev, Some("bind" | "retry"))
                    || matches!(tok(&toks, last), Some(Token::Assign | Token::Comma))
                {
                    Vec::new()
                } else {
                    self.keywords(
                        &["post", "bind", "on_unmet", "retry", "after"],
                        replace,
                        Form::Text,
                    )
                }
            }
            Opener::PlanBody => {
                if tok(&toks, last) == Some(Token::Assign)
                    && is_kw(&toks, last.and_then(|l| back(l, 2)), "step")
                {
                    self.tools(replace, Form::Text)
                } else if matches!(ident(&toks, last), Some("step" | "replans" | "max_steps")) {
                    Vec::new()
                } else {
                    self.keywords(&["step", "replans", "max_steps"], replace, Form::Text)
                }
            }
            Opener::PolicyBody => {
                let mut items = self.keywords(
                    &[
                        "actor",
                        "max_steps",
                        "requires",
                        "approval",
                        "where",
                        "untrusted",
                    ],
                    replace,
                    Form::Text,
                );
                items.extend(self.tools(replace, Form::Text));
                items
            }
        }
    }

    fn edit(&self, replace: Span, text: &str) -> Option<lsp::CompletionTextEdit> {
        Some(lsp::CompletionTextEdit::Edit(lsp::TextEdit {
            range: convert::range(self.file, replace),
            new_text: text.to_string(),
        }))
    }

    /// An item that shows `label`, matches what was typed against it, and
    /// writes `insert` over `replace`.
    fn item(
        &self,
        label: &str,
        kind: lsp::CompletionItemKind,
        detail: Option<String>,
        replace: Span,
        insert: &str,
    ) -> lsp::CompletionItem {
        lsp::CompletionItem {
            label: label.to_string(),
            kind: Some(kind),
            detail,
            filter_text: Some(label.to_string()),
            text_edit: self.edit(replace, insert),
            ..Default::default()
        }
    }

    fn keywords(&self, words: &[&str], replace: Span, form: Form) -> Vec<lsp::CompletionItem> {
        let kind = lsp::CompletionItemKind::KEYWORD;
        self.words(words.iter().copied(), kind, replace, |w| form.name(w))
    }

    /// One item a word, labelled with it and written by `write`.
    fn words<'w>(
        &self,
        words: impl Iterator<Item = &'w str>,
        kind: lsp::CompletionItemKind,
        replace: Span,
        write: impl Fn(&str) -> String,
    ) -> Vec<lsp::CompletionItem> {
        words
            .map(|w| self.item(w, kind, None, replace, &write(w)))
            .collect()
    }

    fn tools(&self, replace: Span, form: Form) -> Vec<lsp::CompletionItem> {
        self.a
            .outcome
            .checked
            .catalog
            .tools()
            .iter()
            .map(|t| {
                let mut item = self.item(
                    &t.name,
                    lsp::CompletionItemKind::FUNCTION,
                    Some(t.signature()),
                    replace,
                    &form.name(&t.name),
                );
                if !t.doc.is_empty() {
                    item.documentation = Some(lsp::Documentation::String(t.doc.clone()));
                }
                item
            })
            .collect()
    }

    /// The parameters of `tool` not yet given in the call opened at `open`.
    fn params(
        &self,
        toks: &[Tok<'_>],
        open: usize,
        tool: &str,
        replace: Span,
    ) -> Vec<lsp::CompletionItem> {
        let mut given: Vec<&str> = Vec::new();
        let mut depth = 0usize;
        for (i, (tk, _, _)) in toks.iter().enumerate().skip(open + 1) {
            match tk {
                Token::LParen | Token::LBracket | Token::LBrace => depth += 1,
                Token::RParen | Token::RBracket | Token::RBrace => depth = depth.saturating_sub(1),
                Token::Ident(name)
                    if depth == 0 && tok(toks, Some(i + 1)) == Some(Token::Colon) =>
                {
                    given.push(name)
                }
                Token::Scope(s) if depth == 0 => {
                    given.push(s.split(':').next().unwrap_or(""));
                }
                _ => {}
            }
        }
        self.param_items(tool, &given, replace, Form::Text)
    }

    /// The parameters of `tool` but those `given`, with their types,
    /// required ones first.
    fn param_items(
        &self,
        tool: &str,
        given: &[&str],
        replace: Span,
        form: Form,
    ) -> Vec<lsp::CompletionItem> {
        let Some(t) = self.a.outcome.checked.catalog.get(tool) else {
            return Vec::new();
        };
        t.params
            .iter()
            .filter(|p| !given.contains(&p.name.as_str()))
            .map(|p| {
                let required = p.required();
                let detail = if required {
                    format!("{} (required)", p.ty)
                } else {
                    p.ty.to_string()
                };
                let mut item = self.item(
                    &p.name,
                    lsp::CompletionItemKind::FIELD,
                    Some(detail),
                    replace,
                    &form.key(&p.name),
                );
                item.sort_text = Some(format!("{}{}", if required { 0 } else { 1 }, p.name));
                if !p.doc.is_empty() {
                    item.documentation = Some(lsp::Documentation::String(p.doc.clone()));
                }
                item
            })
            .collect()
    }

    /// The plan a position is in: the last whose declaration starts before.
    fn plan_at(&self, offset: usize) -> Option<&'a CheckedPlan> {
        self.a
            .outcome
            .checked
            .plans
            .iter()
            .filter(|p| p.span.file == self.a.doc && p.span.start as usize <= offset)
            .max_by_key(|p| p.span.start)
    }

    /// The bindings of the steps that end before `step_at`, in the checked
    /// plan.
    fn text_bound(&self, step_at: usize) -> Vec<Bound> {
        let Some(plan) = self.plan_at(step_at) else {
            return Vec::new();
        };
        plan.bindings
            .iter()
            .filter_map(|b| {
                let step = plan.steps.get(b.step)?;
                (step.span.end as usize <= step_at).then(|| Bound {
                    name: b.name.clone(),
                    ty: b.ty.clone(),
                    step: step.name.clone(),
                    index: b.step,
                })
            })
            .collect()
    }

    /// Values for an argument: the bindings in scope, those whose type fits
    /// the parameter first; and the values of an enum or `bool` parameter.
    fn values(
        &self,
        tool: &str,
        param: Option<&str>,
        bound: &[Bound],
        replace: Span,
        form: Form,
    ) -> Vec<lsp::CompletionItem> {
        // A reference's members, in the text: `owner.` then its fields.
        if form == Form::Text {
            let typed = self.file.text.get(replace.range()).unwrap_or("");
            if let Some(items) = self.members(bound, typed, replace.start as usize) {
                return items;
            }
        }
        let ty = param.and_then(|p| {
            self.a
                .outcome
                .checked
                .catalog
                .get(tool)
                .and_then(|t| t.param(p))
                .map(|p| p.ty.clone())
        });
        let mut items = self.binding_items(bound, ty.as_ref(), replace, form);
        match ty.as_ref().map(Ty::strip_optional) {
            Some(Ty::Enum(values)) => {
                for v in values.iter() {
                    let text = form.string(v);
                    let mut item = self.item(
                        &text,
                        lsp::CompletionItemKind::ENUM_MEMBER,
                        ty.as_ref().map(|t| t.to_string()),
                        replace,
                        &text,
                    );
                    item.sort_text = Some(format!("0{v}"));
                    items.push(item);
                }
            }
            Some(Ty::Bool) if form.bare() => {
                for v in ["true", "false"] {
                    items.push(self.item(
                        v,
                        lsp::CompletionItemKind::VALUE,
                        Some("bool".to_string()),
                        replace,
                        v,
                    ));
                }
            }
            _ => {}
        }
        items
    }

    /// The bindings of `bound` (each name once), those whose type fits
    /// `want` first.
    fn binding_items(
        &self,
        bound: &[Bound],
        want: Option<&Ty>,
        replace: Span,
        form: Form,
    ) -> Vec<lsp::CompletionItem> {
        let mut seen: Vec<&str> = Vec::new();
        let mut items = Vec::new();
        for b in bound {
            if seen.contains(&b.name.as_str()) {
                continue;
            }
            seen.push(&b.name);
            let fits = want.is_none_or(|w| b.ty.assignable_to(w));
            let mut item = self.item(
                &b.name,
                lsp::CompletionItemKind::VARIABLE,
                Some(format!("{} (from step `{}`)", b.ty, b.step)),
                replace,
                &form.reference(&b.name),
            );
            item.sort_text = Some(format!("{}{:06}", if fits { 0 } else { 1 }, b.index));
            if form != Form::Text {
                // Matched as written, from a `$` already typed.
                item.filter_text = Some(form.reference(&b.name));
            }
            items.push(item);
        }
        items
    }

    /// The other steps of the plan, for `after`: name and tool.
    fn text_steps(&self, step_at: usize) -> Vec<(String, String)> {
        let Some(plan) = self.plan_at(step_at) else {
            return Vec::new();
        };
        plan.steps
            .iter()
            .filter(|s| s.span.start as usize != step_at && !s.name.is_empty())
            .map(|s| (s.name.clone(), s.tool_name.clone()))
            .collect()
    }

    fn step_items(
        &self,
        steps: Vec<(String, String)>,
        replace: Span,
        form: Form,
    ) -> Vec<lsp::CompletionItem> {
        steps
            .into_iter()
            .map(|(name, tool)| {
                self.item(
                    &name,
                    lsp::CompletionItemKind::REFERENCE,
                    Some(tool),
                    replace,
                    &form.name(&name),
                )
            })
            .collect()
    }

    /// The forms a `post` takes, and concrete probes over the fields of the
    /// tool's result: in text `len($.results) == 1`, in JSON the probe
    /// object (`form` is never JSON inside a string here).
    fn probes(&self, tool: &str, replace: Span, form: Form) -> Vec<lsp::CompletionItem> {
        let forms: &[(&str, &str, &str)] = match form {
            Form::Text => &TEXT_PROBES,
            Form::Json { .. } => &JSON_PROBES,
        };
        let mut items: Vec<lsp::CompletionItem> = forms
            .iter()
            .enumerate()
            .map(|(i, (label, snippet, plain))| {
                let text = if self.snippets { snippet } else { plain };
                let mut item = self.item(
                    label,
                    lsp::CompletionItemKind::SNIPPET,
                    Some("probe".to_string()),
                    replace,
                    text,
                );
                item.sort_text = Some(format!("1{i}"));
                if self.snippets {
                    item.insert_text_format = Some(lsp::InsertTextFormat::SNIPPET);
                }
                item
            })
            .collect();
        let result = self
            .a
            .outcome
            .checked
            .catalog
            .get(tool)
            .map(|t| t.result.clone());
        if let Some(Ty::Record(fields)) = result.as_ref().map(Ty::strip_optional) {
            for f in fields.iter() {
                // (text, JSON) of each concrete probe.
                let path = format!("$.{}", f.name);
                let json_path = json_string(&path, true);
                let mut concrete = Vec::new();
                if matches!(f.ty.strip_optional(), Ty::List(_)) {
                    concrete.push((
                        format!("len({path}) == 1"),
                        format!(r#"{{"probe": "result_count", "path": {json_path}, "equals": 1}}"#),
                    ));
                }
                concrete.push((
                    format!("exists({path})"),
                    format!(r#"{{"probe": "field_exists", "path": {json_path}}}"#),
                ));
                if let Ty::Enum(values) = f.ty.strip_optional() {
                    for v in values.iter().take(8) {
                        concrete.push((
                            format!("{path} == {v:?}"),
                            format!(
                                r#"{{"probe": "field_equals", "path": {json_path}, "value": {}}}"#,
                                json_string(v, true)
                            ),
                        ));
                    }
                }
                for (text, json) in concrete {
                    let insert = if form == Form::Text { &text } else { &json };
                    let mut item = self.item(
                        &text,
                        lsp::CompletionItemKind::VALUE,
                        Some(f.ty.to_string()),
                        replace,
                        insert,
                    );
                    item.sort_text = Some(format!("0{text}"));
                    items.push(item);
                }
            }
        }
        items
    }

    /// The fields at the end of `path` (`$.results[0].`) in the tool's
    /// result type. The text after the last `.` is replaced; a bare `$`
    /// becomes `$.field`.
    fn paths(
        &self,
        tool: &str,
        path: &str,
        path_start: usize,
        form: Form,
    ) -> Vec<lsp::CompletionItem> {
        let Some(result) = self.a.outcome.checked.catalog.get(tool).map(|t| &t.result) else {
            return Vec::new();
        };
        let (parent, replace_from, lead) = match path.rfind('.') {
            Some(dot) => (path.get(..dot).unwrap_or("$"), path_start + dot + 1, ""),
            None => ("$", path_start, "$."),
        };
        let Some(ty) = walk(result, parent) else {
            return Vec::new();
        };
        self.fields(
            ty,
            lead,
            Span::new(self.file.id, replace_from, self.offset),
            form,
        )
    }

    /// The fields of the record `ty`, each written `lead` + name.
    fn fields(&self, ty: &Ty, lead: &str, replace: Span, form: Form) -> Vec<lsp::CompletionItem> {
        let Ty::Record(fields) = ty.strip_optional() else {
            return Vec::new();
        };
        fields
            .iter()
            .map(|f| {
                let text = format!("{lead}{}", f.name);
                let detail = if f.optional {
                    format!("{}?", f.ty)
                } else {
                    f.ty.to_string()
                };
                self.item(
                    &text,
                    lsp::CompletionItemKind::FIELD,
                    Some(detail),
                    replace,
                    &form.name(&text),
                )
            })
            .collect()
    }
}

/// The probe forms of the text, as (label, snippet, plain text).
const TEXT_PROBES: [(&str, &str, &str); 5] = [
    (
        "len(PATH) == N",
        "len(\\$.${1:path}) == ${2:1}",
        "len($.) == 1",
    ),
    ("exists(PATH)", "exists(\\$.${1:path})", "exists($.)"),
    ("PATH == VALUE", "\\$.${1:path} == ${2:value}", "$. == "),
    (
        "PATH in [...]",
        "\\$.${1:path} in [${2:values}]",
        "$. in []",
    ),
    (
        "PATH not in [...]",
        "\\$.${1:path} not in [${2:values}]",
        "$. not in []",
    ),
];

/// The probe objects of the JSON form, one per kind.
const JSON_PROBES: [(&str, &str, &str); 6] = [
    (
        "result_count",
        r#"{"probe": "result_count", "path": "\$.${1:path}", "equals": ${2:1}}"#,
        r#"{"probe": "result_count", "path": "$.", "equals": 1}"#,
    ),
    (
        "field_exists",
        r#"{"probe": "field_exists", "path": "\$.${1:path}"}"#,
        r#"{"probe": "field_exists", "path": "$."}"#,
    ),
    (
        "field_equals",
        r#"{"probe": "field_equals", "path": "\$.${1:path}", "value": ${2:null}}"#,
        r#"{"probe": "field_equals", "path": "$.", "value": null}"#,
    ),
    (
        "field_in",
        r#"{"probe": "field_in", "path": "\$.${1:path}", "values": [${2}]}"#,
        r#"{"probe": "field_in", "path": "$.", "values": []}"#,
    ),
    (
        "field_not_in",
        r#"{"probe": "field_not_in", "path": "\$.${1:path}", "values": [${2}]}"#,
        r#"{"probe": "field_not_in", "path": "$.", "values": []}"#,
    ),
    (
        "field_compare",
        r#"{"probe": "field_compare", "path": "\$.${1:path}", "op": "${2:>=}", "value": ${3:0}}"#,
        r#"{"probe": "field_compare", "path": "$.", "op": ">=", "value": 0}"#,
    ),
];

// ------------------------------------------------------------------ JSON

/// Where in a JSON plan's step the cursor is, from the scan, and what it
/// has typed.
struct JsonAt<'s> {
    scan: &'s json_scan::Scan,
    /// The `steps` array, and the index and frame of the step the cursor
    /// is in.
    steps: usize,
    index: usize,
    step: &'s Frame,
    /// The text typed before the cursor (a string's text or a bare word),
    /// where it starts, and how a completion is written over it.
    typed: &'s str,
    start: usize,
    replace: Span,
    form: Form,
}

impl<'s> JsonAt<'s> {
    fn tool(&self) -> &'s str {
        self.step.str("tool").unwrap_or("")
    }

    /// The steps of the plan in order: (index, frame index, frame).
    fn all_steps(&self) -> impl Iterator<Item = (usize, usize, &'s Frame)> + use<'s> {
        let steps = self.steps;
        self.scan
            .frames
            .iter()
            .enumerate()
            .filter_map(move |(fi, f)| match f.slot {
                Slot::Index(i) if f.parent == Some(steps) && f.kind == Kind::Object => {
                    Some((i, fi, f))
                }
                _ => None,
            })
    }
}

/// The keys of `f`, but the one being typed at `start`.
fn present(f: &Frame, start: usize) -> Vec<&str> {
    f.members
        .iter()
        .filter(|m| m.at != start)
        .map(|m| m.key.as_str())
        .collect()
}

/// A step's name as the JSON form reads it: `name`, or a string `id`, else
/// `step_N` from `n` or a numeric `id`, else from its index.
fn json_step_name(step: &Frame, index: usize) -> String {
    let ident = |s: &&str| crate::syntax::json::is_ident(s);
    if let Some(name) = ["name", "id"]
        .iter()
        .find_map(|k| step.str(k).filter(ident))
    {
        return name.to_string();
    }
    let number = ["n", "id"].iter().find_map(|k| match step.scalar(k) {
        Some(Scalar::Bare(n)) => n.parse::<u64>().ok(),
        _ => None,
    });
    format!("step_{}", number.unwrap_or(index as u64))
}

/// Inside a string, the text of an open `${` before the cursor: its offset
/// in `typed`, when only a reference's characters follow it.
fn open_interpolation(typed: &str) -> Option<usize> {
    let k = typed.rfind("${")?;
    if typed.get(..k)?.ends_with('$') {
        return None; // `$${` is a literal `${`
    }
    let inner = typed.get(k + 2..)?;
    inner
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
        .then_some(k + 2)
}

impl Ctx<'_> {
    fn json_items(&self) -> Vec<lsp::CompletionItem> {
        let text = self.file.text.as_str();
        let scan = json_scan::scan(text, self.offset);
        let c = &scan.cursor;
        let start = c.string.unwrap_or(c.word).min(self.offset);
        let Some(typed) = text.get(start..self.offset) else {
            return Vec::new();
        };
        let form = Form::Json {
            quoted: c.string.is_none(),
        };
        let replace = Span::new(self.file.id, start, self.offset);
        let open = scan.open();
        let slot = |i: usize| open.get(i).map(|f| (f.kind, &f.slot));
        let key = |k: &str| Slot::Key(k.to_string());
        match (slot(0), slot(1), slot(2)) {
            (Some((Kind::Object, Slot::Root)), None, _) if c.role == Role::Key => open
                .first()
                .map(|f| self.keys(PLAN_KEYS, &present(f, start), replace, form))
                .unwrap_or_default(),
            (Some((Kind::Object, Slot::Root)), Some((Kind::Object, s)), None)
                if *s == key("budget") && c.role == Role::Key =>
            {
                open.get(1)
                    .map(|f| self.keys(BUDGET_KEYS, &present(f, start), replace, form))
                    .unwrap_or_default()
            }
            (
                Some((Kind::Object, Slot::Root)),
                Some((Kind::Array, s)),
                Some((Kind::Object, Slot::Index(index))),
            ) if *s == key("steps") => {
                let (Some(&steps), Some(step)) = (c.stack.get(1), open.get(2)) else {
                    return Vec::new();
                };
                let at = JsonAt {
                    scan: &scan,
                    steps,
                    index: *index,
                    step,
                    typed,
                    start,
                    replace,
                    form,
                };
                self.json_step(&at, open.get(3..).unwrap_or_default())
            }
            _ => Vec::new(),
        }
    }

    /// Completion inside a step; `rest` are the containers open inside it.
    fn json_step(&self, at: &JsonAt<'_>, rest: &[&Frame]) -> Vec<lsp::CompletionItem> {
        let c = &at.scan.cursor;
        let (tool, replace, form) = (at.tool(), at.replace, at.form);
        let is = |f: &Frame, kind: Kind, k: &str| f.kind == kind && f.slot == Slot::Key(k.into());
        let probe = match rest {
            [p] if is(p, Kind::Object, "post") => Some(*p),
            [list, p] if is(list, Kind::Array, "post") && p.kind == Kind::Object => Some(*p),
            _ => None,
        };
        if let Some(probe) = probe {
            return match &c.role {
                Role::Key => {
                    let keys = probe_keys(probe.str("probe"));
                    self.keys(keys, &present(probe, at.start), replace, form)
                }
                Role::Value(Some(k)) => match k.as_str() {
                    "probe" => self.keywords(PROBE_KINDS, replace, form),
                    "path" => self.json_path(tool, at),
                    "op" => self.keywords(OPS, replace, form),
                    _ => Vec::new(),
                },
                _ => Vec::new(),
            };
        }
        match rest {
            [] => match &c.role {
                Role::Key => self.keys(STEP_KEYS, &present(at.step, at.start), replace, form),
                Role::Value(Some(k)) => match k.as_str() {
                    "tool" => self.tools(replace, form),
                    "on_unmet" => self.keywords(ON_UNMET, replace, form),
                    "after" => self.step_items(self.json_steps(at), replace, form),
                    "post" if form.bare() => self.probes(tool, replace, form),
                    _ => Vec::new(),
                },
                _ => Vec::new(),
            },
            [args, inner @ ..] if is(args, Kind::Object, "args") => {
                let bound = self.json_bound(at);
                if c.string.is_some()
                    && c.role != Role::Key
                    && let Some(k) = open_interpolation(at.typed)
                {
                    return self.interpolation(&bound, at, k);
                }
                // A string's text is replaced by a value only while it may
                // still be the start of one (`$` of `${…}`, or a word).
                if c.string.is_some() && at.typed.contains('$') && at.typed != "$" {
                    return Vec::new();
                }
                match (inner, &c.role) {
                    ([], Role::Key) => {
                        self.param_items(tool, &present(args, at.start), replace, form)
                    }
                    ([], Role::Value(Some(param))) => {
                        self.values(tool, Some(param), &bound, replace, form)
                    }
                    ([_, ..], Role::Value(_)) => self.values(tool, None, &bound, replace, form),
                    _ => Vec::new(),
                }
            }
            [binds] if is(binds, Kind::Object, "binds") && matches!(c.role, Role::Value(_)) => {
                self.json_path(tool, at)
            }
            [after] if is(after, Kind::Array, "after") && c.role == Role::Value(None) => {
                self.step_items(self.json_steps(at), replace, form)
            }
            [post]
                if is(post, Kind::Array, "post") && c.role == Role::Value(None) && form.bare() =>
            {
                self.probes(tool, replace, form)
            }
            _ => Vec::new(),
        }
    }

    /// Keys of an object, but those `present`.
    fn keys(
        &self,
        keys: &[&str],
        present: &[&str],
        replace: Span,
        form: Form,
    ) -> Vec<lsp::CompletionItem> {
        let absent = keys.iter().copied().filter(|k| !present.contains(k));
        self.words(absent, lsp::CompletionItemKind::PROPERTY, replace, |k| {
            form.key(k)
        })
    }

    /// A result path in a JSON string (or where one starts): the fields of
    /// the tool's result at the path typed so far.
    fn json_path(&self, tool: &str, at: &JsonAt<'_>) -> Vec<lsp::CompletionItem> {
        let path = if at.form.bare() || at.typed.is_empty() {
            "$"
        } else {
            at.typed
        };
        self.paths(tool, path, at.start, at.form)
    }

    /// After `${` (at `k` in the typed text) in a string: the bindings in
    /// scope, or after `${name.` the fields of the binding's type.
    fn interpolation(
        &self,
        bound: &[Bound],
        at: &JsonAt<'_>,
        k: usize,
    ) -> Vec<lsp::CompletionItem> {
        let inner = at.typed.get(k..).unwrap_or("");
        let from = at.start + k;
        match self.members(bound, inner, from) {
            Some(items) => items,
            None => {
                let replace = Span::new(self.file.id, from, self.offset);
                self.binding_items(bound, None, replace, Form::Text)
            }
        }
    }

    /// After `name.` or `name.field.` (`typed`, from byte `from` up to the
    /// cursor): the fields of that member of a binding, replacing what
    /// follows the last dot. `None` when there is no dot.
    fn members(
        &self,
        bound: &[Bound],
        typed: &str,
        from: usize,
    ) -> Option<Vec<lsp::CompletionItem>> {
        let dot = typed.rfind('.')?;
        let reference = typed.get(..dot).unwrap_or("");
        let (name, members) = reference.split_once('.').unwrap_or((reference, ""));
        let Some(b) = bound.iter().find(|b| b.name == name) else {
            return Some(Vec::new());
        };
        let path = if members.is_empty() {
            "$".to_string()
        } else {
            format!("$.{members}")
        };
        let Some(ty) = walk(&b.ty, &path) else {
            return Some(Vec::new());
        };
        let replace = Span::new(self.file.id, from + dot + 1, self.offset);
        Some(self.fields(ty, "", replace, Form::Text))
    }

    /// The bindings of the steps before the cursor's, typed by their tool's
    /// result in the catalogue.
    fn json_bound(&self, at: &JsonAt<'_>) -> Vec<Bound> {
        let catalog = &self.a.outcome.checked.catalog;
        let steps: Vec<(usize, usize, &Frame)> =
            at.all_steps().filter(|(i, _, _)| *i < at.index).collect();
        let mut bound = Vec::new();
        for f in &at.scan.frames {
            let (Some(parent), Slot::Key(k)) = (f.parent, &f.slot) else {
                continue;
            };
            if k != "binds" || f.kind != Kind::Object {
                continue;
            }
            let Some(&(index, _, step)) = steps.iter().find(|(_, fi, _)| *fi == parent) else {
                continue;
            };
            let result = step
                .str("tool")
                .and_then(|t| catalog.get(t))
                .map(|t| &t.result);
            let name = json_step_name(step, index);
            for m in &f.members {
                let ty = match (&m.value, result) {
                    (Some(Scalar::Str(path)), Some(r)) => walk(r, path).cloned(),
                    _ => None,
                };
                bound.push(Bound {
                    name: m.key.clone(),
                    ty: ty.unwrap_or(Ty::Any),
                    step: name.clone(),
                    index,
                });
            }
        }
        bound
    }

    /// The other steps of the plan, for `after`: name and tool.
    fn json_steps(&self, at: &JsonAt<'_>) -> Vec<(String, String)> {
        at.all_steps()
            .filter(|(i, _, _)| *i != at.index)
            .map(|(i, _, f)| {
                (
                    json_step_name(f, i),
                    f.str("tool").unwrap_or("").to_string(),
                )
            })
            .collect()
    }
}

/// The type at a path (`$.results[0]`) of `ty`, or `None` where the path
/// leaves it.
fn walk<'t>(ty: &'t Ty, path: &str) -> Option<&'t Ty> {
    let mut rest = path.strip_prefix('$')?;
    let mut ty = ty;
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix('.') {
            let end = r.find(['.', '[']).unwrap_or(r.len());
            let name = r.get(..end)?;
            ty = &ty.strip_optional().field(name)?.ty;
            rest = r.get(end..)?;
        } else if let Some(r) = rest.strip_prefix('[') {
            let end = r.find(']')?;
            r.get(..end)?.parse::<u64>().ok()?;
            ty = match ty.strip_optional() {
                Ty::List(inner) => inner,
                Ty::Any => return Some(ty),
                _ => return None,
            };
            rest = r.get(end + 1..)?;
        } else {
            return None;
        }
    }
    Some(ty)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The words in backquotes of `text`.
    fn quoted(text: &str) -> Vec<String> {
        text.split('`')
            .skip(1)
            .step_by(2)
            .map(str::to_string)
            .collect()
    }

    /// The JSON reader's error about `zzzzzzzzzzzz` in `doc`: the keys or
    /// words it accepts there, as it lists them.
    fn accepted(doc: &str) -> Vec<String> {
        let (_, diags, _) = crate::syntax::read_json_plan(FileId(0), doc);
        let Some(d) = diags.iter().find(|d| d.message.contains("zzzzzzzzzzzz")) else {
            return vec![format!("no error in {doc}")];
        };
        match &d.help {
            // An unknown key: "the keys of … are `a`, `b`".
            Some(help) if d.message.starts_with("unknown key") => {
                quoted(help.rsplit(" are ").next().unwrap_or(""))
            }
            // A bad word: "`what` must be one of `a`, `b`, found `zzz…`".
            _ => {
                let mut words = quoted(d.message.split(" must be one of ").nth(1).unwrap_or(""));
                words.pop();
                words
            }
        }
    }

    #[test]
    fn the_key_lists_are_the_readers() {
        let z = r#""zzzzzzzzzzzz": 0"#;
        let step = |inner: &str| format!(r#"{{"steps": [{{"tool": "t", {inner}}}]}}"#);
        assert_eq!(accepted(&format!(r#"{{{z}, "steps": []}}"#)), PLAN_KEYS);
        assert_eq!(
            accepted(&format!(r#"{{"steps": [], "budget": {{{z}}}}}"#)),
            BUDGET_KEYS
        );
        assert_eq!(accepted(&step(z)), STEP_KEYS);
        assert_eq!(
            accepted(&step(&format!(r#""post": {{{z}}}"#))),
            probe_keys(None)
        );
        for kind in PROBE_KINDS {
            let doc = step(&format!(r#""post": {{"probe": "{kind}", {z}}}"#));
            assert_eq!(accepted(&doc), probe_keys(Some(kind)), "{kind}");
        }
        let probe = |inner: &str| step(&format!(r#""post": {{{inner}}}"#));
        assert_eq!(accepted(&probe(r#""probe": "zzzzzzzzzzzz""#)), PROBE_KINDS);
        let compare = r#""probe": "field_compare", "path": "$.a", "value": 1"#;
        assert_eq!(
            accepted(&probe(&format!(r#"{compare}, "op": "zzzzzzzzzzzz""#))),
            OPS
        );
        assert_eq!(accepted(&step(r#""on_unmet": "zzzzzzzzzzzz""#)), ON_UNMET);
    }

    #[test]
    fn interpolations_and_step_names() {
        assert_eq!(open_interpolation("a ${acc"), Some(4));
        assert_eq!(open_interpolation("${x.y"), Some(2));
        assert_eq!(open_interpolation("$${acc"), None);
        assert_eq!(open_interpolation("${a} b"), None);
        assert_eq!(open_interpolation("${a b"), None);
        assert_eq!(open_interpolation("plain"), None);
        let scan = json_scan::scan(
            r#"[{"n": 3}, {"id": "x"}, {"name": "y", "n": 1}, {}, {"n": "?"}]"#,
            0,
        );
        let names: Vec<String> = scan
            .frames
            .iter()
            .skip(1)
            .enumerate()
            .map(|(i, f)| json_step_name(f, i))
            .collect();
        assert_eq!(names, ["step_3", "x", "y", "step_3", "step_4"]);
    }
}
