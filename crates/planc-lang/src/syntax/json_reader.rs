//! What the JSON readers of plans, catalogues and policies share: the
//! [`Reader`] state and its reports (ill-typed values, unknown, duplicate
//! and missing keys), and [`Fields`] looked up by the keys a shape allows.

use std::borrow::Cow;

use super::json::{Json, Member, Value, source_offset};
use crate::diagnostics::{Code, Diagnostic};
use crate::source::Span;
use crate::suggest;

/// The state the plan, catalogue and policy readers share: the file, its
/// text (to map offsets inside strings) and the diagnostics so far.
pub struct Reader<'t> {
    pub text: &'t str,
    pub diags: Vec<Diagnostic>,
    /// The name of every step of the plan being read, and the index of the
    /// step being read, whose name is attached to every diagnostic reported
    /// meanwhile.
    pub step_names: Vec<crate::syntax::ast::Str>,
    pub step: Option<usize>,
    /// The code of a shape error: E0004 for plans, catalogues and policies,
    /// E0601 for progress records.
    pub shape_code: Code,
}

impl<'t> Reader<'t> {
    pub fn new(text: &'t str) -> Reader<'t> {
        Reader {
            text,
            diags: Vec::new(),
            step_names: Vec::new(),
            step: None,
            shape_code: Code::E0004,
        }
    }

    pub fn report(&mut self, mut d: Diagnostic) {
        if let Some(name) = self.step.and_then(|i| self.step_names.get(i))
            && d.step.is_none()
        {
            d = d.in_step(name.clone());
        }
        self.diags.push(d);
    }

    /// E0004: `value` is not what `what` (a key in backticks, or "a step")
    /// must be (`expected`, such as "a string").
    pub fn ill_typed(&mut self, what: &str, value: &Json<'_>, expected: &str) {
        self.report(
            Diagnostic::new(
                self.shape_code,
                value.span,
                format!("{what} must be {expected}, found {}", value.kind_name()),
            )
            .with_label(format!("expected {expected}"))
            .with_help(format!("write {expected} here, not {}", value.kind_name())),
        );
    }

    /// Reads an object's members against the keys a shape allows, reporting
    /// unknown keys (with the nearest allowed one) and duplicate keys. `what`
    /// names the object in messages ("a step"). Returns `None` (after an
    /// E0004) when `value` is not an object.
    pub fn fields<'v, 'a>(
        &mut self,
        value: &'v Json<'a>,
        what: &str,
        allowed: &'static [&'static str],
    ) -> Option<Fields<'v, 'a>> {
        self.read_fields(value, what, allowed, true)
    }

    /// [`Reader::fields`] for a document planc does not own (a tool
    /// catalogue): keys outside `allowed` are ignored, so that what a
    /// protocol adds next is read, not refused. Duplicate keys are still
    /// E0004.
    pub fn fields_open<'v, 'a>(
        &mut self,
        value: &'v Json<'a>,
        what: &str,
        allowed: &'static [&'static str],
    ) -> Option<Fields<'v, 'a>> {
        self.read_fields(value, what, allowed, false)
    }

    fn read_fields<'v, 'a>(
        &mut self,
        value: &'v Json<'a>,
        what: &str,
        allowed: &'static [&'static str],
        closed: bool,
    ) -> Option<Fields<'v, 'a>> {
        let Some(members) = value.as_object() else {
            self.ill_typed(what, value, "an object");
            return None;
        };
        let mut found: [Option<&'v Member<'a>>; MAX_SHAPE_KEYS] = [None; MAX_SHAPE_KEYS];
        for m in members {
            match allowed.iter().position(|k| *k == m.key) {
                Some(i) => match found.get_mut(i) {
                    Some(slot @ None) => *slot = Some(m),
                    Some(Some(first)) => {
                        let first = first.key_span;
                        self.duplicate_key(m, first);
                    }
                    None => {}
                },
                None if closed => self.unknown_key(m, what, allowed),
                None => {}
            }
        }
        Some(Fields {
            allowed,
            found,
            members,
        })
    }

    /// The members of a name-keyed object (arguments, bindings, properties,
    /// policy rules), each key once: a repeated key is E0004 and dropped.
    pub fn unique<'v, 'a>(
        &mut self,
        members: &'v [Member<'a>],
    ) -> impl Iterator<Item = &'v Member<'a>> + use<'v, 'a> {
        let has_duplicates = if members.len() <= 16 {
            members.iter().enumerate().any(|(i, m)| {
                members
                    .get(..i)
                    .is_some_and(|before| before.iter().any(|o| o.key == m.key))
            })
        } else {
            let mut seen =
                crate::FastSet::with_capacity_and_hasher(members.len(), Default::default());
            !members.iter().all(|m| seen.insert(&*m.key))
        };
        let keep = has_duplicates.then(|| {
            let mut first: crate::FastMap<&str, Span> = crate::FastMap::default();
            members
                .iter()
                .map(|m| match first.get(&*m.key) {
                    Some(at) => {
                        let at = *at;
                        self.duplicate_key(m, at);
                        false
                    }
                    None => {
                        first.insert(&m.key, m.key_span);
                        true
                    }
                })
                .collect::<Vec<bool>>()
        });
        members
            .iter()
            .enumerate()
            .filter(move |(i, _)| {
                keep.as_ref()
                    .is_none_or(|k| k.get(*i).copied().unwrap_or(true))
            })
            .map(|(_, m)| m)
    }

    pub fn duplicate_key(&mut self, m: &Member<'_>, first: Span) {
        self.report(
            Diagnostic::new(
                self.shape_code,
                m.key_span,
                format!("duplicate key `{}`", m.key),
            )
            .with_label("duplicate key")
            .with_secondary(first, "first written here")
            .with_help("JSON readers disagree on which of two equal keys wins: keep one"),
        );
    }

    pub fn unknown_key(&mut self, m: &Member<'_>, what: &str, allowed: &[&str]) {
        let near = suggest::nearest(&m.key, allowed.iter().copied());
        let mut d = Diagnostic::new(
            self.shape_code,
            m.key_span,
            format!("unknown key `{}` in {what}", m.key),
        )
        .with_label("unknown key");
        match suggest::did_you_mean(&near) {
            Some(help) => d = d.with_help(help),
            None => {
                let list: Vec<String> = allowed.iter().map(|k| format!("`{k}`")).collect();
                d = d.with_help(format!("the keys of {what} are {}", list.join(", ")));
            }
        }
        if let [one] = near.as_slice() {
            d = d.with_fix(format!("replace with `{one}`"), m.key_text_span(), *one);
        }
        self.report(d);
    }

    /// E0004 for a key a shape requires, at the opening brace of `object`.
    /// Nothing when an unknown key of the same object was already
    /// reported with `key` as its suggestion (`"tol"`): one mistake, one
    /// message.
    pub fn missing_key(&mut self, object: Span, key: &str, what: &str) {
        let suggested = self.diags.iter().any(|d| {
            d.span.file == object.file
                && d.span.start >= object.start
                && d.span.end <= object.end
                && d.message.starts_with("unknown key")
                && d.fixes.iter().any(|f| f.replacement == key)
        });
        if suggested {
            return;
        }
        let at = Span {
            end: object.start.saturating_add(1).min(object.end),
            ..object
        };
        self.report(
            Diagnostic::new(
                self.shape_code,
                at,
                format!("missing key `{key}` in {what}"),
            )
            .with_label(format!("{what} without `{key}`"))
            .with_help(format!("add `\"{key}\": …` to {what}: it is required")),
        );
    }

    /// A string value, or an E0004.
    pub fn string<'v>(&mut self, key: &str, value: &'v Json<'_>) -> Option<&'v str> {
        match &value.value {
            Value::String(s) => Some(s),
            _ => {
                self.ill_typed(&format!("`{key}`"), value, "a string");
                None
            }
        }
    }

    /// A non-negative integer that fits 64 bits, or an E0004.
    pub fn count(&mut self, key: &str, value: &Json<'_>) -> Option<u64> {
        if let Value::Number(n) = value.value
            && let Some(v) = whole_number(n)
        {
            return Some(v);
        }
        self.ill_typed(&format!("`{key}`"), value, "a non-negative integer");
        None
    }

    pub fn boolean(&mut self, key: &str, value: &Json<'_>) -> Option<bool> {
        match value.value {
            Value::Bool(b) => Some(b),
            _ => {
                self.ill_typed(&format!("`{key}`"), value, "`true` or `false`");
                None
            }
        }
    }

    /// The source span of bytes `a..b` of a string value's decoded text.
    pub fn sub_span(&self, value: &Json<'_>, a: usize, b: usize) -> Span {
        if let Value::String(Cow::Borrowed(_)) = value.value {
            // No escapes: the decoded text is the source text.
            let start = value.span.start as usize + 1;
            return Span::new(value.span.file, start + a, start + b);
        }
        let start = source_offset(self.text, value.span, a);
        let end = source_offset(self.text, value.span, b);
        Span::new(value.span.file, start, end)
    }
}

/// The members of an object, looked up by the keys its shape allows.
pub struct Fields<'v, 'a> {
    allowed: &'static [&'static str],
    found: [Option<&'v Member<'a>>; MAX_SHAPE_KEYS],
    members: &'v [Member<'a>],
}

/// The most keys one shape allows (a step has ten).
const MAX_SHAPE_KEYS: usize = 16;

impl<'v, 'a> Fields<'v, 'a> {
    pub fn member(&self, key: &str) -> Option<&'v Member<'a>> {
        let i = self.allowed.iter().position(|k| *k == key)?;
        self.found.get(i).copied().flatten()
    }

    pub fn get(&self, key: &str) -> Option<&'v Json<'a>> {
        self.member(key).map(|m| &m.value)
    }

    /// The members read, in the order of the shape's keys (cheaper than
    /// [`Fields::in_order`] where the order does not matter).
    pub fn present(&self) -> impl Iterator<Item = &'v Member<'a>> + use<'v, 'a> {
        self.found.into_iter().flatten()
    }

    /// The members read (allowed, first of their key), in source order.
    pub fn in_order(&self) -> impl Iterator<Item = &'v Member<'a>> + use<'v, 'a> {
        let found = self.found;
        self.members
            .iter()
            .filter(move |m| found.iter().flatten().any(|f| std::ptr::eq(*f, *m)))
    }
}

/// A JSON number that names a non-negative integer, as JSON Schema's
/// `integer` counts them: `2`, and also `2.0` and `2e0` (a fraction of
/// zeros, an exponent written out exactly). `None` for a fraction, a
/// negative number or one over `u64`. Every count, step number and `after`
/// number of the JSON forms is read through here (`docs/json.md`).
pub fn whole_number(n: &str) -> Option<u64> {
    if let Ok(v) = n.parse::<u64>() {
        return Some(v);
    }
    if !n.bytes().any(|b| matches!(b, b'.' | b'e' | b'E')) {
        return None;
    }
    let text = crate::syntax::json_plan::expand_exponent(n)?;
    let (int, frac) = text.split_once('.').unwrap_or((&text, ""));
    if !frac.bytes().all(|b| b == b'0') {
        return None;
    }
    int.parse::<u64>().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_fit_the_key_table() {
        use crate::syntax::{json_catalog, json_plan, json_policy};
        let most = [json_plan::SHAPES, json_catalog::SHAPES, json_policy::SHAPES]
            .iter()
            .flat_map(|s| s.iter())
            .map(|k| k.len())
            .max();
        assert!(most.unwrap_or(0) <= MAX_SHAPE_KEYS);
    }
}
