//! Completion in `.plan` text: the innermost open bracket before the cursor
//! decides the context (see the module above).

use lsp_types as lsp;

use super::render::Form;
use super::{Bound, Ctx};
use crate::check::CheckedPlan;
use crate::lsp::cursor::{Tok, back, brackets, ident, is_kw, step_call, tok, tokens};
use crate::source::Span;
use crate::syntax::lexer::Token;
use crate::syntax::lexicon;

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

impl<'a> Ctx<'a> {
    pub(super) fn items(&self) -> Vec<lsp::CompletionItem> {
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
                    if lexicon::PROBE_WORDS
                        .iter()
                        .any(|w| is_kw(&toks, back(k, 1), w))
                    {
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
            return self.keywords(&lexicon::DECLARATIONS, replace, Form::Text);
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
                    Token::Ident(k) if lexicon::CLAUSES.contains(&k) => Some(k),
                    _ => None,
                });
                let after_list = prev == Some("after")
                    || (tok(&toks, last) == Some(Token::Comma) && clause == Some("after"));
                if prev == Some("pre") {
                    // A precondition's subject: a binding of an earlier
                    // step, or after `name.` its fields.
                    let bound = self.text_bound(step_at);
                    let typed = self.file.text.get(replace.range()).unwrap_or("");
                    self.members(&bound, typed, replace.start as usize)
                        .unwrap_or_else(|| self.binding_items(&bound, None, replace, Form::Text))
                } else if prev == Some("post") {
                    self.probes(tool, replace, Form::Text)
                } else if prev == Some("on_unmet") {
                    self.keywords(&lexicon::ON_UNMET, replace, Form::Text)
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
                    self.keywords(&lexicon::CLAUSES, replace, Form::Text)
                }
            }
            Opener::PlanBody => {
                if tok(&toks, last) == Some(Token::Assign)
                    && is_kw(&toks, last.and_then(|l| back(l, 2)), "step")
                {
                    self.tools(replace, Form::Text)
                } else if ident(&toks, last).is_some_and(|w| lexicon::PLAN_ITEMS.contains(&w)) {
                    Vec::new()
                } else {
                    self.keywords(&lexicon::PLAN_ITEMS, replace, Form::Text)
                }
            }
            Opener::PolicyBody => {
                if ident(&toks, last) == Some("effect") {
                    return self.keywords(&["read", "write"], replace, Form::Text);
                }
                // At the start of an item of a `where` list: the words that
                // start a rule there (the others follow an argument name).
                let in_where = toks.iter().skip(inner + 1).rev().find_map(|t| match t.0 {
                    Token::Ident(k) if lexicon::RULE_CLAUSES.contains(&k) => Some(k),
                    Token::DottedName(_) => Some(""),
                    _ => None,
                }) == Some("where");
                if in_where
                    && (ident(&toks, last) == Some("where")
                        || tok(&toks, last) == Some(Token::Comma))
                {
                    return self.keywords(&["total", "calls"], replace, Form::Text);
                }

                let words: Vec<&str> = lexicon::POLICY_ITEMS
                    .iter()
                    .chain(&lexicon::RULE_CLAUSES)
                    .copied()
                    .collect();
                let mut items = self.keywords(&words, replace, Form::Text);
                items.extend(self.tools(replace, Form::Text));
                items
            }
        }
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
                    name: b.name.clone().to_string(),
                    ty: b.ty.clone(),
                    step: step.name.clone().to_string(),
                    index: b.step,
                })
            })
            .collect()
    }

    /// The other steps of the plan, for `after`: name and tool.
    fn text_steps(&self, step_at: usize) -> Vec<(String, String)> {
        let Some(plan) = self.plan_at(step_at) else {
            return Vec::new();
        };
        plan.steps
            .iter()
            .filter(|s| s.span.start as usize != step_at && !s.name.is_empty())
            .map(|s| (s.name.to_string(), s.tool_name.to_string()))
            .collect()
    }
}
