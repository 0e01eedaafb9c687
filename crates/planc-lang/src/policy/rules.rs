//! The rules of a `where` list other than ceilings (`docs/language.md`,
//! "Rules"): an allowlist or a denylist (`in`, `not in`), a pattern
//! (`matches`), trusted data only (`trusted`), a total over every call
//! (`total ARG <= N per ARG2`) and a number of calls (`calls <= N`).
//!
//! Each is typed against the catalogue as a ceiling is, and fails closed
//! the same way: a rule over an argument the tool lacks (E0102), a value or
//! a maximum not of the parameter's type (E0201, E0204), a pattern over a
//! parameter that is not text (E0201), a pattern that does not compile
//! (E0002) are errors on the policy, and the rule is left out of the model
//! (the error stops every compile under the policy).

use regex::Regex;

use crate::ast::{self, Str};
use crate::catalog::{self, Ty, Value};
use crate::diagnostics::{Code, Diagnostic};
use crate::source::Span;

/// The most memory one compiled pattern may take: a policy's pattern is
/// small, and a larger one is refused rather than built.
const PATTERN_SIZE_LIMIT: usize = 1 << 20;

/// A rule over one argument.
#[derive(Clone, Debug)]
pub struct ArgCondition {
    pub arg: Str,
    pub arg_span: Span,
    pub kind: Condition,
    /// The argument is a list (`[T]`, `[T]?`) and the rule is an `in`, a
    /// `not in` or a `matches`: it holds of every element
    /// (`docs/language.md`, "Rules over a list").
    pub each: bool,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum Condition {
    /// `ARG in [...]` (an allowlist), or `not in` (a denylist) when
    /// `negated`; the values typed against the parameter.
    In { negated: bool, values: Vec<Value> },
    /// `ARG matches "RE"`: the whole value matches `pattern`.
    Matches { pattern: Str, re: Regex },
    /// `ARG trusted`: no part of the value comes from untrusted data.
    Trusted,
    /// `total ARG <= max [per ARG2]`.
    Total { max: Value, per: Option<Str> },
}

impl ArgCondition {
    /// The rule as the text form writes it, for messages.
    pub fn text(&self) -> String {
        match &self.kind {
            Condition::In { negated, values } => {
                let list: Vec<String> = values.iter().map(Value::display).collect();
                let word = if *negated { "not in" } else { "in" };
                format!("{} {word} [{}]", self.arg, list.join(", "))
            }
            Condition::Matches { pattern, .. } => format!("{} matches {pattern:?}", self.arg),
            Condition::Trusted => format!("{} trusted", self.arg),
            Condition::Total { max, per } => match per {
                Some(p) => format!("total {} <= {} per {p}", self.arg, max.display()),
                None => format!("total {} <= {}", self.arg, max.display()),
            },
        }
    }

    /// What the rule admits, in a sentence (hover): `trusted` and the list
    /// and pattern rules hold of an argument that is given.
    pub fn admits_text(&self) -> String {
        let whom = if self.each {
            format!("each element of `{}`", self.arg)
        } else {
            format!("`{}`", self.arg)
        };
        match &self.kind {
            Condition::In { negated, values } => {
                let list: Vec<String> = values.iter().map(Value::display).collect();
                let verb = if *negated { "is none of" } else { "is one of" };
                format!("when given, {whom} {verb} {}", list.join(", "))
            }
            Condition::Matches { pattern, .. } => {
                format!("when given, {whom} matches `{pattern}` as a whole")
            }
            Condition::Trusted => format!(
                "when given, no part of `{}` comes from an untrusted tool",
                self.arg
            ),
            Condition::Total { max, per } => match per {
                Some(p) => format!(
                    "the calls add `{}` up to at most {} for each `{p}`, the record's complete ones included",
                    self.arg,
                    max.display()
                ),
                None => format!(
                    "the calls add `{}` up to at most {}, the record's complete ones included",
                    self.arg,
                    max.display()
                ),
            },
        }
    }

    /// The rule's keyword, for messages.
    pub fn keyword(&self) -> &'static str {
        match &self.kind {
            Condition::In { negated: false, .. } => "in",
            Condition::In { negated: true, .. } => "not in",
            Condition::Matches { .. } => "matches",
            Condition::Trusted => "trusted",
            Condition::Total { .. } => "total",
        }
    }

    /// Whether a value known now satisfies the rule: `None` for the rules
    /// a single value does not decide (`trusted`, `total`). A value of a
    /// kind the list cannot compare with is not in an allowlist, and may be
    /// in a denylist: both refuse it (fail closed). For a rule over each
    /// element of a list, `v` is one element: a whole list is never a
    /// [`Value`], and `null` for the list is refused by the caller.
    pub fn admits(&self, v: &Value) -> Option<bool> {
        match &self.kind {
            Condition::In { negated, values } => Some(admits_in(*negated, values, v)),
            Condition::Matches { re, .. } => Some(match v {
                Value::String(s) => re.is_match(s),
                _ => false,
            }),
            Condition::Trusted | Condition::Total { .. } => None,
        }
    }
}

/// Whether `v` passes an allowlist (`negated` false) or a denylist.
pub fn admits_in(negated: bool, values: &[Value], v: &Value) -> bool {
    if negated {
        values
            .iter()
            .all(|l| v.satisfies(ast::CmpOp::Eq, l) == Some(false))
    } else {
        values
            .iter()
            .any(|l| v.satisfies(ast::CmpOp::Eq, l) == Some(true))
    }
}

/// A policy pattern as the checker and every executor match it: the whole
/// value, never a part of it. The pattern must compile on its own first, so
/// that no pattern can close the group it is wrapped in (`a)|(b`).
pub fn whole_match(pattern: &str) -> Result<Regex, regex::Error> {
    regex::RegexBuilder::new(pattern)
        .size_limit(PATTERN_SIZE_LIMIT)
        .build()?;
    regex::RegexBuilder::new(&format!(r"\A(?:{pattern})\z"))
        .size_limit(PATTERN_SIZE_LIMIT)
        .build()
}

/// Builds one rule of a `where` list, typed against `tool` when the
/// catalogue has it. `None` (with the error reported) when it is ill-typed.
pub(super) fn build(
    r: &ast::ArgRule,
    tool_name: &str,
    tool: Option<&catalog::Tool>,
    diags: &mut Vec<Diagnostic>,
) -> Option<ArgCondition> {
    let param_ty = match tool {
        None => None,
        Some(t) => match t.param(&r.arg.node) {
            Some(p) => Some((p.ty.clone(), p.name_span)),
            None => {
                diags.push(super::no_such_argument("rule", &r.arg, tool_name, t));
                return None;
            }
        },
    };
    // A rule over a list argument (`recipients: [string]`) holds of each
    // element: its values and pattern are typed against the element.
    let (param_ty, each) = match param_ty {
        Some((ty, at)) => match ty.strip_optional() {
            Ty::List(elem)
                if !matches!(
                    r.kind,
                    ast::ArgRuleKind::Trusted | ast::ArgRuleKind::Total { .. }
                ) =>
            {
                (Some((elem.as_ref().clone(), at)), true)
            }
            _ => (Some((ty, at)), false),
        },
        None => (None, false),
    };
    let declared = |d: Diagnostic| match &param_ty {
        Some((_, at)) => d.with_secondary(*at, format!("`{}` is declared here", r.arg.node)),
        None => d,
    };
    let kind = match &r.kind {
        ast::ArgRuleKind::In {
            negated, values, ..
        } => {
            let mut typed = Vec::with_capacity(values.len());
            let mut ok = true;
            for l in values {
                match typed_value(&l.node, param_ty.as_ref().map(|p| &p.0)) {
                    Ok(v) => typed.push(v),
                    Err((e, ty)) => {
                        let what = format!("the list of `{}`", r.arg.node);
                        diags.push(declared(catalog::literal_error(
                            &e, &l.node, &ty, l.span, &what,
                        )));
                        ok = false;
                    }
                }
            }
            if !ok {
                return None;
            }
            Condition::In {
                negated: *negated,
                values: typed,
            }
        }
        ast::ArgRuleKind::Matches(p) => {
            if let Some((ty, _)) = &param_ty
                && !is_text(ty)
            {
                diags.push(declared(
                    Diagnostic::new(
                        Code::E0201,
                        p.span,
                        if each {
                            format!(
                                "`matches` tests text, but the elements of `{}` are `{ty}`, not strings",
                                r.arg.node
                            )
                        } else {
                            format!(
                                "`matches` tests text, but `{}` is `{ty}`, not a string",
                                r.arg.node
                            )
                        },
                    )
                    .with_label("a pattern over a value that is not text")
                    .with_help("put the pattern on a string argument, or use `in [...]` for a list of values"),
                ));
                return None;
            }
            match whole_match(&p.node) {
                Ok(re) => Condition::Matches {
                    pattern: p.node.clone(),
                    re,
                },
                Err(e) => {
                    let why = match &e {
                        regex::Error::CompiledTooBig(_) => {
                            "the pattern is too large to compile".to_string()
                        }
                        other => other
                            .to_string()
                            .lines()
                            .last()
                            .unwrap_or("not a regular expression")
                            .trim()
                            .trim_start_matches("error: ")
                            .to_string(),
                    };
                    diags.push(
                        Diagnostic::new(
                            Code::E0002,
                            p.span,
                            format!("the pattern of `{}` does not compile: {why}", r.arg.node),
                        )
                        .with_label("not a regular expression")
                        .with_help("a pattern is a regular expression in the Rust `regex` syntax (no backreferences, no lookaround), matched against the whole value"),
                    );
                    return None;
                }
            }
        }
        ast::ArgRuleKind::Trusted => Condition::Trusted,
        ast::ArgRuleKind::Total { max, per } => {
            if let Some((ty, _)) = &param_ty
                && !is_number(ty)
            {
                diags.push(declared(
                    Diagnostic::new(
                        Code::E0201,
                        r.arg.span,
                        format!(
                            "`total` adds values up, but `{}` is `{ty}`, not a number",
                            r.arg.node
                        ),
                    )
                    .with_label("not a number")
                    .with_help(
                        "put the total on a number argument, or bound the calls with `calls <= N`",
                    ),
                ));
                return None;
            }
            let max = match typed_value(&max.node, param_ty.as_ref().map(|p| &p.0)) {
                Ok(v @ (Value::Int(_) | Value::Decimal(_))) => v,
                Ok(_) | Err(_) => {
                    diags.push(declared(
                        Diagnostic::new(
                            Code::E0201,
                            max.span,
                            format!(
                                "the maximum of `total {}` must be a number, found {} `{}`",
                                r.arg.node,
                                max.node.kind_name(),
                                max.node.display()
                            ),
                        )
                        .with_label("not a number")
                        .with_help("write the maximum as a number: `total amount <= 1000`"),
                    ));
                    return None;
                }
            };
            if let (Some(p), Some(t)) = (per, tool)
                && t.param(&p.node).is_none()
            {
                diags.push(super::no_such_argument("rule", p, tool_name, t));
                return None;
            }
            Condition::Total {
                max,
                per: per.as_ref().map(|p| p.node.clone()),
            }
        }
    };
    Some(ArgCondition {
        arg: r.arg.node.clone(),
        arg_span: r.arg.span,
        kind,
        each,
        span: r.span,
    })
}

/// A literal of a rule as a value: typed against the parameter when the
/// catalogue has the tool, else as written.
fn typed_value(
    lit: &ast::Literal,
    ty: Option<&Ty>,
) -> Result<Value, (catalog::value::LiteralError, Ty)> {
    match ty {
        Some(ty) => catalog::value::literal_value(lit, ty)
            .map(|(v, _)| v)
            .map_err(|e| (e, ty.clone())),
        None => catalog::value::natural_value(lit).map_err(|e| (e, Ty::Any)),
    }
}

/// Whether a value of `ty` may be text (a pattern can match it).
fn is_text(ty: &Ty) -> bool {
    match ty.strip_optional() {
        Ty::String | Ty::Enum(_) | Ty::Any | Ty::Error => true,
        Ty::Union(members) => members.iter().any(is_text),
        _ => false,
    }
}

/// Whether every value of `ty` is a number (a total adds them up).
fn is_number(ty: &Ty) -> bool {
    match ty.strip_optional() {
        Ty::Int | Ty::Decimal | Ty::Error => true,
        Ty::Lit(v) => matches!(**v, Value::Int(_) | Value::Decimal(_)),
        Ty::Union(members) => members.iter().all(is_number),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pattern_matches_the_whole_value_and_cannot_escape_its_group() {
        let re = whole_match(r"DE[0-9]{20}").unwrap();
        assert!(re.is_match("DE89370400440532013000"));
        assert!(!re.is_match("XDE89370400440532013000"));
        assert!(!re.is_match("DE89370400440532013000 and more"));
        let re = whole_match("a|b").unwrap();
        assert!(re.is_match("a") && re.is_match("b") && !re.is_match("ab"));
        assert!(whole_match("a)|(b").is_err());
        assert!(whole_match("(a").is_err());
    }

    #[test]
    fn a_denylist_refuses_what_it_cannot_compare() {
        let list = vec![Value::String("x".into())];
        assert!(!admits_in(true, &list, &Value::String("x".into())));
        assert!(admits_in(true, &list, &Value::String("y".into())));
        assert!(!admits_in(true, &list, &Value::Int(1)));
        assert!(!admits_in(false, &list, &Value::Int(1)));
        assert!(admits_in(false, &list, &Value::String("x".into())));
    }
}
