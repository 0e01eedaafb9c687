//! Completion items: how each kind of item (keywords, tools, parameters,
//! values, bindings, steps, probes, fields) is shown and written, in the
//! text and the JSON form alike.

use lsp_types as lsp;

use super::{Bound, Ctx, walk};
use crate::catalog::Ty;
use crate::lsp::convert;
use crate::source::Span;
use crate::syntax::json_plan::probe_kind as pk;

/// How a completion is written where it goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Form {
    /// Plan text, or a name inside `${…}`.
    Text,
    /// JSON; `quoted` outside a string, where the quotes are written too.
    Json { quoted: bool },
}

impl Form {
    /// A name or word as it stands: `email.send`, in JSON a string.
    pub(super) fn name(self, s: &str) -> String {
        match self {
            Form::Text => s.to_string(),
            Form::Json { quoted } => json_string(s, quoted),
        }
    }

    /// A string value: quoted in text too.
    pub(super) fn string(self, s: &str) -> String {
        match self {
            Form::Text => format!("{s:?}"),
            Form::Json { quoted } => json_string(s, quoted),
        }
    }

    /// A reference to a binding: `name`, in JSON `${name}`.
    pub(super) fn reference(self, s: &str) -> String {
        match self {
            Form::Text => s.to_string(),
            Form::Json { quoted: false } => format!("${{{s}}}"),
            Form::Json { quoted: true } => format!("\"${{{s}}}\""),
        }
    }

    /// A key and what follows it: `name: `, in JSON `"name": `.
    pub(super) fn key(self, s: &str) -> String {
        match self {
            Form::Text => format!("{s}: "),
            Form::Json { quoted: false } => json_string(s, false),
            Form::Json { quoted: true } => format!("{}: ", json_string(s, true)),
        }
    }

    /// Whether a bare JSON word (`true`, a number) may stand here.
    pub(super) fn bare(self) -> bool {
        self != Form::Json { quoted: false }
    }
}

/// `s` as a JSON string, with or without its quotes.
pub(super) fn json_string(s: &str, quoted: bool) -> String {
    let q = serde_json::Value::from(s).to_string();
    if quoted {
        return q;
    }
    q.strip_prefix('"')
        .and_then(|q| q.strip_suffix('"'))
        .unwrap_or(s)
        .to_string()
}

impl Ctx<'_> {
    pub(super) fn edit(&self, replace: Span, text: &str) -> Option<lsp::CompletionTextEdit> {
        Some(lsp::CompletionTextEdit::Edit(lsp::TextEdit {
            range: convert::range(self.file, replace),
            new_text: text.to_string(),
        }))
    }

    /// An item that shows `label`, matches what was typed against it, and
    /// writes `insert` over `replace`.
    pub(super) fn item(
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

    pub(super) fn keywords(
        &self,
        words: &[&str],
        replace: Span,
        form: Form,
    ) -> Vec<lsp::CompletionItem> {
        let kind = lsp::CompletionItemKind::KEYWORD;
        self.words(words.iter().copied(), kind, replace, |w| form.name(w))
    }

    /// One item a word, labelled with it and written by `write`.
    pub(super) fn words<'w>(
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

    pub(super) fn tools(&self, replace: Span, form: Form) -> Vec<lsp::CompletionItem> {
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

    /// The parameters of `tool` but those `given`, with their types,
    /// required ones first.
    pub(super) fn param_items(
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

    /// Values for an argument: the bindings in scope, those whose type fits
    /// the parameter first; and the values of an enum or `bool` parameter.
    pub(super) fn values(
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
    pub(super) fn binding_items(
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

    pub(super) fn step_items(
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
    pub(super) fn probes(&self, tool: &str, replace: Span, form: Form) -> Vec<lsp::CompletionItem> {
        let forms: Vec<(&str, String, String)> = match form {
            Form::Text => TEXT_PROBES
                .iter()
                .map(|&(label, snippet, plain)| (label, snippet.to_string(), plain.to_string()))
                .collect(),
            Form::Json { .. } => JSON_PROBES
                .iter()
                .map(|&(kind, snippet, plain)| {
                    (kind, json_probe(kind, snippet), json_probe(kind, plain))
                })
                .collect(),
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
                        json_probe(
                            pk::RESULT_COUNT,
                            &format!(r#""path": {json_path}, "equals": 1}}"#),
                        ),
                    ));
                }
                concrete.push((
                    format!("exists({path})"),
                    json_probe(pk::FIELD_EXISTS, &format!(r#""path": {json_path}}}"#)),
                ));
                if let Ty::Enum(values) = f.ty.strip_optional() {
                    for v in values.iter().take(8) {
                        concrete.push((
                            format!("{path} == {v:?}"),
                            json_probe(
                                pk::FIELD_EQUALS,
                                &format!(
                                    r#""path": {json_path}, "value": {}}}"#,
                                    json_string(v, true)
                                ),
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
    pub(super) fn paths(
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
    pub(super) fn fields(
        &self,
        ty: &Ty,
        lead: &str,
        replace: Span,
        form: Form,
    ) -> Vec<lsp::CompletionItem> {
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

    /// Keys of an object, but those `present`.
    pub(super) fn keys(
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

    /// After `name.` or `name.field.` (`typed`, from byte `from` up to the
    /// cursor): the fields of that member of a binding, replacing what
    /// follows the last dot. `None` when there is no dot.
    pub(super) fn members(
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
}

/// The probe forms of the text, as (label, snippet, plain text).
const TEXT_PROBES: [(&str, &str, &str); 7] = [
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
    (
        "PATH contains VALUE",
        "\\$.${1:path} contains ${2:value}",
        "$. contains ",
    ),
    (
        "keys(PATH) contains KEY",
        "keys(\\$.${1:path}) contains \"${2:key}\"",
        "keys($.) contains \"\"",
    ),
];

/// The probe objects of the JSON form, one per kind, as (kind, snippet,
/// plain text) after the `"probe"` member ([`json_probe`]).
const JSON_PROBES: [(&str, &str, &str); 8] = [
    (
        pk::RESULT_COUNT,
        r#""path": "\$.${1:path}", "equals": ${2:1}}"#,
        r#""path": "$.", "equals": 1}"#,
    ),
    (
        pk::FIELD_EXISTS,
        r#""path": "\$.${1:path}"}"#,
        r#""path": "$."}"#,
    ),
    (
        pk::FIELD_EQUALS,
        r#""path": "\$.${1:path}", "value": ${2:null}}"#,
        r#""path": "$.", "value": null}"#,
    ),
    (
        pk::FIELD_IN,
        r#""path": "\$.${1:path}", "values": [${2}]}"#,
        r#""path": "$.", "values": []}"#,
    ),
    (
        pk::FIELD_NOT_IN,
        r#""path": "\$.${1:path}", "values": [${2}]}"#,
        r#""path": "$.", "values": []}"#,
    ),
    (
        pk::FIELD_COMPARE,
        r#""path": "\$.${1:path}", "op": "${2:>=}", "value": ${3:0}}"#,
        r#""path": "$.", "op": ">=", "value": 0}"#,
    ),
    (
        pk::CONTAINS,
        r#""path": "\$.${1:path}", "value": ${2:null}}"#,
        r#""path": "$.", "value": null}"#,
    ),
    (
        pk::KEYS_CONTAIN,
        r#""path": "\$.${1:path}", "value": "${2:key}"}"#,
        r#""path": "$.", "value": "key"}"#,
    ),
];

/// A probe object of the JSON form: `"probe": kind`, then `rest` (the
/// other members and the closing brace).
fn json_probe(kind: &str, rest: &str) -> String {
    format!(r#"{{"probe": "{kind}", {rest}"#)
}
