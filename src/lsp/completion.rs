//! Completion in `.plan` text. The text before the cursor is lexed (it is
//! often incomplete while the user types, so the parse tree cannot be
//! trusted to hold the construct being written) and the innermost open
//! bracket decides the context: a step's call (argument names, then values),
//! a step's body (clause keywords, `on_unmet` actions, `after` targets,
//! probe forms after `post`, result paths after `$`), a plan's body (`step`
//! and budget lines, tool names after `step NAME =`), a policy, or the top
//! level. What the names mean (tools, parameters, bindings of earlier steps,
//! result types) comes from the document's analysis.

use lsp_types as lsp;

use super::analysis::Analysis;
use super::{Failure, Server, convert};
use crate::catalog::Ty;
use crate::check::CheckedPlan;
use crate::source::{FileId, SourceFile, SourceKind, Span};
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
    if file.kind == SourceKind::Json {
        // Completion inside JSON plans is not offered yet.
        return Ok(Some(lsp::CompletionResponse::Array(Vec::new())));
    }
    let offset = convert::offset(file, pos.position);
    let ctx = Ctx {
        a,
        file,
        offset,
        snippets: s.caps.snippets,
    };
    Ok(Some(lsp::CompletionResponse::Array(ctx.items())))
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

type Tok<'t> = (Token<'t>, usize, usize);

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
        let lexed = lexer::lex(FileId(0), head);
        let mut toks: Vec<Tok<'_>> = lexed
            .tokens
            .iter()
            .filter(|(t, _)| !matches!(t, Token::Doc(_)))
            .map(|(t, s)| (*t, s.start, s.end))
            .collect();
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

        // The open brackets, innermost last; and for each close, its open.
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
        let classify = |k: usize| -> Opener<'_> {
            match tok(&toks, Some(k)) {
                Some(Token::LParen) => {
                    let tool = match tok(&toks, back(k, 1)) {
                        Some(Token::Ident(t) | Token::DottedName(t)) => Some(t),
                        _ => None,
                    };
                    if let Some(tool) = tool
                        && tok(&toks, back(k, 2)) == Some(Token::Assign)
                        && ident(&toks, back(k, 3)).is_some()
                        && is_kw(&toks, back(k, 4), "step")
                    {
                        let step_at = back(k, 4).and_then(|i| toks.get(i)).map_or(0, |t| t.1);
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
                        let tool = match tok(&toks, back(open, 1)) {
                            Some(Token::Ident(t) | Token::DottedName(t)) => Some(t),
                            _ => None,
                        };
                        if let Some(tool) = tool
                            && tok(&toks, back(open, 2)) == Some(Token::Assign)
                            && is_kw(&toks, back(open, 4), "step")
                        {
                            let step_at =
                                back(open, 4).and_then(|i| toks.get(i)).map_or(0, |t| t.1);
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
            return self.keywords(&["tool", "policy", "plan"], replace);
        };
        // The call this position is inside, at any depth of lists and
        // records.
        let call = stack.iter().rev().find_map(|&k| match classify(k) {
            Opener::Call { tool, step_at } => Some((k, tool, step_at)),
            _ => None,
        });
        if in_interp {
            return match call {
                Some((_, _, step_at)) => self.bindings(step_at, None, replace),
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
                        self.values(tool, param, step_at, replace)
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
                    self.values(tool, None, step_at, replace)
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
                    Some(tool) => self.paths(tool, path.unwrap_or("$"), prefix_start),
                    None => Vec::new(),
                }
            }
            Opener::StepBody { tool, step_at } => {
                if let Some(path) = path {
                    return self.paths(tool, path, prefix_start);
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
                    self.probes(tool, replace)
                } else if prev == Some("on_unmet") {
                    self.keywords(&["replan", "halt", "escalate"], replace)
                } else if after_list {
                    self.steps(step_at, replace)
                } else if tok(&toks, last) == Some(Token::Assign)
                    && is_kw(&toks, last.and_then(|l| back(l, 2)), "bind")
                {
                    self.paths(tool, "$", prefix_start)
                } else if matches!(prev, Some("bind" | "retry"))
                    || matches!(tok(&toks, last), Some(Token::Assign | Token::Comma))
                {
                    Vec::new()
                } else {
                    self.keywords(&["post", "bind", "on_unmet", "retry", "after"], replace)
                }
            }
            Opener::PlanBody => {
                if tok(&toks, last) == Some(Token::Assign)
                    && is_kw(&toks, last.and_then(|l| back(l, 2)), "step")
                {
                    self.tools(replace)
                } else if matches!(ident(&toks, last), Some("step" | "replans" | "max_steps")) {
                    Vec::new()
                } else {
                    self.keywords(&["step", "replans", "max_steps"], replace)
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
                );
                items.extend(self.tools(replace));
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
            filter_text: Some(insert.to_string()),
            text_edit: self.edit(replace, insert),
            ..Default::default()
        }
    }

    fn keywords(&self, words: &[&str], replace: Span) -> Vec<lsp::CompletionItem> {
        words
            .iter()
            .map(|w| self.item(w, lsp::CompletionItemKind::KEYWORD, None, replace, w))
            .collect()
    }

    fn tools(&self, replace: Span) -> Vec<lsp::CompletionItem> {
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
                    &t.name,
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
        let Some(t) = self.a.outcome.checked.catalog.get(tool) else {
            return Vec::new();
        };
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
                    &format!("{}: ", p.name),
                );
                item.filter_text = Some(p.name.clone());
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

    /// Values for an argument: the bindings of the steps before the one at
    /// `step_at`, those whose type fits the parameter first; and the values
    /// of an enum or `bool` parameter.
    fn values(
        &self,
        tool: &str,
        param: Option<&str>,
        step_at: usize,
        replace: Span,
    ) -> Vec<lsp::CompletionItem> {
        let ty = param.and_then(|p| {
            self.a
                .outcome
                .checked
                .catalog
                .get(tool)
                .and_then(|t| t.param(p))
                .map(|p| p.ty.clone())
        });
        let mut items = self.bindings(step_at, ty.as_ref(), replace);
        match ty.as_ref().map(Ty::strip_optional) {
            Some(Ty::Enum(values)) => {
                for v in values.iter() {
                    let quoted = format!("{v:?}");
                    let mut item = self.item(
                        &quoted,
                        lsp::CompletionItemKind::ENUM_MEMBER,
                        ty.as_ref().map(|t| t.to_string()),
                        replace,
                        &quoted,
                    );
                    item.sort_text = Some(format!("0{v}"));
                    items.push(item);
                }
            }
            Some(Ty::Bool) => {
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

    fn bindings(
        &self,
        step_at: usize,
        want: Option<&Ty>,
        replace: Span,
    ) -> Vec<lsp::CompletionItem> {
        let Some(plan) = self.plan_at(step_at) else {
            return Vec::new();
        };
        let mut seen: Vec<&str> = Vec::new();
        let mut items = Vec::new();
        for b in &plan.bindings {
            let Some(step) = plan.steps.get(b.step) else {
                continue;
            };
            // Only the bindings of earlier steps are in scope.
            if step.span.end as usize > step_at || seen.contains(&b.name.as_str()) {
                continue;
            }
            seen.push(&b.name);
            let fits = want.is_none_or(|w| b.ty.assignable_to(w));
            let mut item = self.item(
                &b.name,
                lsp::CompletionItemKind::VARIABLE,
                Some(format!("{} (from step `{}`)", b.ty, step.name)),
                replace,
                &b.name,
            );
            item.sort_text = Some(format!("{}{:06}", if fits { 0 } else { 1 }, b.step));
            items.push(item);
        }
        items
    }

    /// The other steps of the plan, for `after`.
    fn steps(&self, step_at: usize, replace: Span) -> Vec<lsp::CompletionItem> {
        let Some(plan) = self.plan_at(step_at) else {
            return Vec::new();
        };
        plan.steps
            .iter()
            .filter(|s| s.span.start as usize != step_at && !s.name.is_empty())
            .map(|s| {
                self.item(
                    &s.name,
                    lsp::CompletionItemKind::REFERENCE,
                    Some(s.tool_name.clone()),
                    replace,
                    &s.name,
                )
            })
            .collect()
    }

    /// The forms a `post` takes, and concrete probes over the fields of the
    /// tool's result.
    fn probes(&self, tool: &str, replace: Span) -> Vec<lsp::CompletionItem> {
        let forms: [(&str, &str, &str); 5] = [
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
                item.filter_text = Some((*label).to_string());
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
                let mut concrete = Vec::new();
                if matches!(f.ty.strip_optional(), Ty::List(_)) {
                    concrete.push(format!("len($.{}) == 1", f.name));
                }
                concrete.push(format!("exists($.{})", f.name));
                if let Ty::Enum(values) = f.ty.strip_optional() {
                    for v in values.iter().take(8) {
                        concrete.push(format!("$.{} == {v:?}", f.name));
                    }
                }
                for text in concrete {
                    let mut item = self.item(
                        &text,
                        lsp::CompletionItemKind::VALUE,
                        Some(f.ty.to_string()),
                        replace,
                        &text,
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
    fn paths(&self, tool: &str, path: &str, path_start: usize) -> Vec<lsp::CompletionItem> {
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
        let replace = Span::new(self.file.id, replace_from, self.offset);
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
                    &text,
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
