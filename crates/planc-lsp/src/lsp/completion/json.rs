//! Completion in JSON plans, from a tolerant scan of the document (see the
//! module above).

use lsp_types as lsp;

use super::render::Form;
use super::{Bound, Ctx, walk};
use crate::catalog::Ty;
use crate::lsp::json_scan::{self, Frame, Kind, Role, Scalar, Slot};
use crate::source::Span;
// The keys and values the JSON form reads: the reader's own lists.
use crate::syntax::json_plan::{BUDGET_KEYS, OPS, PLAN_KEYS, PROBE_KINDS, STEP_KEYS, probe_keys};
use crate::syntax::lexicon::ON_UNMET;

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
    let ident = |s: &&str| crate::syntax::lexicon::is_ident(s);
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
    pub(super) fn json_items(&self) -> Vec<lsp::CompletionItem> {
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
                    "on_unmet" => self.keywords(&ON_UNMET, replace, form),
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
        let (_, diags) = crate::syntax::read_json_plan(crate::source::FileId(0), doc);
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
