//! The planner's side (`docs/json.md`, "`planc schema`"): JSON Schemas of the JSON plan
//! form, generic ([`forms`]) or specialised to a catalogue, a policy and an
//! actor ([`plan_schema`]), for a model's structured output.
//!
//! The specialised schema closes every vocabulary the checker would
//! otherwise enforce after the fact: `tool` is one of the tools the actor
//! may call under the policy, each tool's `args` are exactly its
//! parameters with their types, enums, formats and required set, literal
//! ceilings are `maximum`/`minimum`-style bounds, allowlists an `enum` and
//! patterns a `pattern` (`narrow`), probe and bind paths are
//! limited to the tool's result paths, and `retry` exists only on
//! idempotent tools. An argument may always be a reference string
//! (`"${name}"`, `"${name.member}"`) instead of a literal: whether the name
//! is bound, earlier, and of the right type is the compiler's to say.
//!
//! What a schema cannot state exactly is left out rather than guessed: a
//! ceiling the dialect cannot express (a datetime ordering, `!=` in the
//! strict dialect, a decimal limit that binary floating point cannot write
//! exactly) removes the literal form of that argument, so only a reference
//! is allowed there and the executor's guard enforces the ceiling.
//!
//! Everything here is pure: the caller loads and checks the catalogue and
//! policy (`planc schema` does it through the driver).

pub mod forms;

use serde_json::{Map, Value, json};

use forms::with_description;

use crate::catalog::value::{DATE_PATTERN, DATETIME_PATTERN};
use crate::catalog::{self, Catalog, Tool, Ty};
use crate::limits;
use crate::policy::{self, ArgCondition, CeilingRule, Condition, Policy, Rule, Traits};
use crate::syntax::ast::CmpOp;
use crate::syntax::json_plan::{self as plan, REFERENCE_PATTERN, escape_interp};
use crate::syntax::lexicon::{self, IDENT_PATTERN};

/// Which flavour of JSON Schema to write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    /// JSON Schema 2020-12, with every form the JSON plan reader accepts.
    JsonSchema,
    /// OpenAI's strict structured outputs: every object closed, every
    /// property required (optional ones nullable), only the keywords that
    /// mode supports (no `not`, `oneOf`, `allOf`, `propertyNames`, no open
    /// maps: `binds` is an array of `{"name", "path"}`).
    OpenAi,
    /// An Anthropic tool's `input_schema`: JSON Schema without `$schema`.
    Anthropic,
}

impl Dialect {
    fn strict(self) -> bool {
        self == Dialect::OpenAi
    }
}

/// The name of the tool `--wrap tool` defines.
pub const SUBMIT_PLAN: &str = "submit_plan";

/// The tools the actor may call: in the catalogue, named by the policy, and
/// every scope the policy requires for them held by the actor. Deny by
/// default: with no policy there are none.
pub fn permitted<'c>(
    catalog: &'c Catalog,
    policy: Option<&'c Policy>,
    actor: &[String],
) -> Vec<(&'c Tool, &'c Rule)> {
    let Some(policy) = policy else {
        return Vec::new();
    };
    catalog
        .tools()
        .iter()
        .filter_map(|t| {
            let rule = policy.rule(&t.name)?;
            rule.requires
                .iter()
                .all(|s| policy::holds(actor, &s.node))
                .then_some((t, rule))
        })
        .collect()
}

/// The JSON plan form specialised to what `actor` may call. `Err` when no
/// tool is permitted (a schema with an empty vocabulary admits no plan).
pub fn plan_schema(
    catalog: &Catalog,
    policy: Option<&Policy>,
    actor: &[String],
    dialect: Dialect,
) -> Result<Value, String> {
    let tools = permitted(catalog, policy, actor);
    if tools.is_empty() {
        return Err(match policy {
            None => "no policy is in force, so no tool is permitted: name a policy (`--policy` or `planc.toml`)".to_string(),
            Some(p) => format!(
                "policy `{}` permits no tool of the catalogue to this actor{}",
                p.name,
                if actor.is_empty() {
                    " (the actor holds no scopes)".to_string()
                } else {
                    format!(" (holding {})", actor.join(", "))
                }
            ),
        });
    }
    let s = Spec {
        dialect,
        probes: std::cell::RefCell::new(Vec::new()),
    };
    let steps: Vec<Value> = tools.iter().map(|(t, r)| s.step(t, r)).collect();
    let max_steps = policy
        .and_then(|p| p.max_steps.map(|m| m.node))
        .map_or(limits::MAX_STEPS as u64, |m| {
            m.min(limits::MAX_STEPS as u64)
        });
    let names: Vec<&str> = tools.iter().map(|(t, _)| t.name.as_str()).collect();
    let step_items = match steps.as_slice() {
        [one] => one.clone(),
        _ => json!({"anyOf": steps}),
    };
    let steps_schema = json!({
        "type": "array",
        "items": step_items,
        "maxItems": max_steps,
        "description": "the steps, in the order written; a later step refers to an earlier step's bindings by name",
    });
    let budget = {
        let field = if s.strict() {
            json!({"type": ["integer", "null"], "minimum": 0})
        } else {
            forms::count()
        };
        let required: &[&str] = if s.strict() { plan::BUDGET_KEYS } else { &[] };
        let b = forms::closed(plan::BUDGET_KEYS, required, |_| field.clone());
        s.nullable(b)
    };
    let ident = forms::string_pattern(IDENT_PATTERN);
    let required: &[&str] = if s.strict() {
        plan::PLAN_KEYS
    } else {
        &["goal", "steps"]
    };
    let mut root = forms::closed(plan::PLAN_KEYS, required, |k| match k {
        "name" => ident.clone(),
        "goal" => json!({"type": "string", "description": "what the plan achieves, in a sentence"}),
        "budget" => budget.clone(),
        _ => steps_schema.clone(),
    });
    if let Some(o) = root.as_object_mut() {
        if dialect == Dialect::JsonSchema {
            o.insert(
                "$schema".into(),
                json!("https://json-schema.org/draft/2020-12/schema"),
            );
        }
        o.insert("title".into(), json!("plan"));
        let mut defs = shared_defs();
        if let Some(d) = defs.as_object_mut() {
            for (i, p) in s.probes.borrow().iter().enumerate() {
                d.insert(format!("probe_{i}"), p.clone());
            }
        }
        o.insert("$defs".into(), defs);
        o.insert(
            "description".into(),
            json!(format!(
                "A plan: every step a call of one of the permitted tools ({}), with its arguments fully decided, a postcondition and the names it binds. planc checks it before anything runs.",
                names.join(", ")
            )),
        );
    }
    Ok(root)
}

/// A `submit_plan` tool definition holding `schema`, in the vendor's
/// format: OpenAI's function tool (strict), Anthropic's tool, or an MCP
/// tool for plain JSON Schema.
pub fn submit_plan_tool(schema: Value, dialect: Dialect) -> Value {
    let description = "Submit the plan for checking. It is compiled against the tool catalogue and the policy before anything runs; if it has errors, they come back as diagnostics (code, message, JSON pointer, step) to correct the plan with.";
    match dialect {
        Dialect::OpenAi => json!({
            "type": "function",
            "function": {
                "name": SUBMIT_PLAN,
                "description": description,
                "strict": true,
                "parameters": schema,
            },
        }),
        Dialect::Anthropic => json!({
            "name": SUBMIT_PLAN,
            "description": description,
            "input_schema": schema,
        }),
        Dialect::JsonSchema => json!({
            "name": SUBMIT_PLAN,
            "description": description,
            "inputSchema": schema,
        }),
    }
}

/// The specialisation in progress.
struct Spec {
    dialect: Dialect,
    /// The probe schemas the steps use, each stated once in `$defs` as
    /// `probe_N` (tools whose results have the same paths share one).
    probes: std::cell::RefCell<Vec<Value>>,
}

impl Spec {
    fn strict(&self) -> bool {
        self.dialect.strict()
    }

    /// A `$ref` to `probe` in the root's `$defs`, added there when new.
    fn shared_probe(&self, probe: Value) -> Value {
        let mut all = self.probes.borrow_mut();
        let i = match all.iter().position(|p| *p == probe) {
            Some(i) => i,
            None => {
                all.push(probe);
                all.len() - 1
            }
        };
        json!({ "$ref": format!("#/$defs/probe_{i}") })
    }

    /// `schema` or `null`.
    fn nullable(&self, schema: Value) -> Value {
        json!({"anyOf": [schema, {"type": "null"}]})
    }

    fn step(&self, tool: &Tool, rule: &Rule) -> Value {
        let strict = self.strict();
        let path = forms::string_pattern(&result_path_pattern(&tool.result));
        let ident = json!({"$ref": "#/$defs/name"});
        let lit = json!({"$ref": "#/$defs/literal"});
        let probes = forms::probe_variants(&path, &lit, !strict);
        let probe = self.shared_probe(json!({"anyOf": probes}));
        // A `pre` path names a binding of an earlier step: which ones
        // exist depends on the plan, so the schema says only its shape.
        let binding_path = forms::string_pattern(plan::BINDING_PATH_PATTERN);
        let pre_probe = self.shared_probe(json!({"anyOf": forms::pre_variants(forms::probe_variants(&binding_path, &lit, !strict))}));
        let keys: Vec<&str> = plan::STEP_KEYS
            .iter()
            .copied()
            .filter(|k| !(strict && matches!(*k, "n" | "id")))
            .filter(|k| *k != "retry" || Traits::of(tool, Some(rule)).idempotent)
            .collect();
        let args = self.args(tool, rule);
        let args_required = !strict
            && args
                .get("required")
                .and_then(Value::as_array)
                .is_some_and(|r| !r.is_empty());
        let step_ref = if strict {
            ident.clone()
        } else {
            json!({"anyOf": [{"type": "integer", "minimum": 0}, ident.clone()]})
        };
        let required: Vec<&str> = if strict {
            keys.clone()
        } else if args_required {
            vec!["tool", "args"]
        } else {
            vec!["tool"]
        };
        let mut step = forms::closed(&keys, &required, |k| match k {
            "n" => json!({"type": "integer", "minimum": 0}),
            "id" => json!({"anyOf": [{"type": "integer", "minimum": 0}, ident.clone()]}),
            "name" => with_description(ident.clone(), "the step's name, stable across replans"),
            "tool" => json!({"const": tool.name, "description": tool_description(tool, rule)}),
            "args" => args.clone(),
            "pre" if strict => json!({"type": "array", "items": pre_probe.clone(),
                                      "description": PRE_DESCRIPTION}),
            "pre" => {
                json!({"anyOf": [pre_probe.clone(), {"type": "array", "items": pre_probe.clone()}],
                            "description": PRE_DESCRIPTION})
            }
            "post" if strict => json!({"type": "array", "items": probe.clone(),
                                       "description": "postconditions over the result `$`, all of which must hold"}),
            "post" => json!({"anyOf": [probe.clone(), {"type": "array", "items": probe.clone()}],
                             "description": "postconditions over the result `$`, all of which must hold"}),
            "binds" if strict => {
                json!({"type": "array", "items": forms::closed(plan::BIND_KEYS, plan::BIND_KEYS, |k| match k {
                "name" => ident.clone(),
                _ => path.clone(),
            }), "description": "names for values of the result, for later steps to refer to as `${name}`"})
            }
            "binds" => json!({"type": "object", "propertyNames": ident.clone(),
                              "additionalProperties": path.clone(),
                              "description": "binding name → path into the result, for later steps to refer to as `${name}`"}),
            "on_unmet" => json!({"enum": lexicon::ON_UNMET}),
            "retry" => with_description(
                forms::count(),
                "retries on a tool error (the tool is idempotent)",
            ),
            _ if strict => json!({"type": "array", "items": step_ref.clone()}),
            _ => json!({"anyOf": [step_ref.clone(), {"type": "array", "items": step_ref.clone()}]}),
        });
        if !strict && let Some(o) = step.as_object_mut() {
            o.insert("not".into(), json!({"required": ["n", "id"]}));
        }
        step
    }

    /// The `args` object of a step calling `tool`.
    fn args(&self, tool: &Tool, rule: &Rule) -> Value {
        let strict = self.strict();
        let names: Vec<&str> = tool.params.iter().map(|p| p.name.as_str()).collect();
        let mut required: Vec<&str> = Vec::new();
        let mut schemas: Vec<Value> = Vec::with_capacity(tool.params.len());
        for p in &tool.params {
            let ceilings: Vec<&CeilingRule> = rule
                .ceilings
                .iter()
                .filter(|c| c.arg == p.name && c.limit.is_some())
                .collect();
            // Under a ceiling an argument must be given a value the
            // checker can compare: left out with no default it is E0103, a
            // default outside the ceiling (or `null`) would be used (E0303).
            let default_fails = p.default.as_ref().is_some_and(|d| {
                ceilings.iter().any(|c| {
                    c.limit
                        .as_ref()
                        .is_some_and(|l| d.satisfies(c.op, l) != Some(true))
                })
            });
            let must_give = !ceilings.is_empty() && (p.default.is_none() || default_fails);
            if strict || p.required() || must_give {
                required.push(&p.name);
            }
            let mut notes: Vec<String> = Vec::new();
            if !p.doc.is_empty() {
                notes.push(p.doc.clone());
            }
            notes.push(format!("`{}`", p.ty));
            if let Some(d) = &p.default {
                notes.push(format!("default {}", d.display()));
            }
            for c in &ceilings {
                notes.push(format!("policy ceiling `{}`", c.text()));
            }
            // The policy's allowlists and patterns over the argument (over
            // each element of a list) narrow its literals: what a literal
            // outside them would be is E0311/E0312.
            let rules: Vec<&ArgCondition> = rule
                .conditions
                .iter()
                .filter(|c| {
                    c.arg == p.name
                        && matches!(
                            c.kind,
                            Condition::In { negated: false, .. } | Condition::Matches { .. }
                        )
                })
                .collect();
            for c in &rules {
                notes.push(format!("policy rule `{}`", c.text()));
            }
            let literal = self
                .literal(&p.ty, &ceilings)
                .map(|l| rules.iter().fold(l, |l, c| narrow(l, c)));
            if literal.is_none() {
                notes.push(
                    "the schema cannot state this ceiling over a literal: pass a reference, which the executor's guard checks"
                        .to_string(),
                );
            }
            let value = match literal {
                Some(l) => json!({"anyOf": [l, reference()]}),
                None => reference(),
            };
            schemas.push(with_description(value, &notes.join("; ")));
        }
        let mut i = 0;
        forms::closed(&names, &required, |_| {
            let s = schemas.get(i).cloned().unwrap_or_else(reference);
            i += 1;
            s
        })
    }

    /// A value of `ty` nested in an argument: a literal or a reference.
    fn value(&self, ty: &Ty) -> Value {
        match self.literal(ty, &[]) {
            Some(l) => json!({"anyOf": [l, reference()]}),
            None => reference(),
        }
    }

    /// The literals of `ty` within `ceilings`; `None` when a ceiling cannot
    /// be stated in this dialect.
    fn literal(&self, ty: &Ty, ceilings: &[&CeilingRule]) -> Option<Value> {
        if let Ty::Optional(inner) = ty {
            let l = self.literal(inner, ceilings)?;
            // Under a ceiling, `null` does not compare with the limit (E0303).
            return Some(if ceilings.is_empty() {
                self.nullable(l)
            } else {
                l
            });
        }
        if let Ty::Lit(_) | Ty::Union(_) = ty {
            return self.union_literal(ty, ceilings);
        }
        let mut s = match ty {
            Ty::String => json!({"type": "string"}),
            Ty::Int => json!({"type": "integer", "minimum": i64::MIN, "maximum": i64::MAX}),
            Ty::Decimal => json!({"type": "number", "description": catalog::value::DECIMAL_LIMIT}),
            Ty::Bool => json!({"type": "boolean"}),
            Ty::Null => json!({"type": "null"}),
            Ty::Date => json!({"type": "string", "format": "date", "pattern": DATE_PATTERN}),
            Ty::Datetime => {
                json!({"type": "string", "format": "date-time", "pattern": DATETIME_PATTERN})
            }
            // Under ceilings, only values of the limits' kind compare.
            Ty::Any | Ty::Error if !ceilings.is_empty() => {
                use catalog::Value as V;
                let kind = |c: &&CeilingRule| match c.limit {
                    Some(V::Int(_) | V::Decimal(_)) => Some("number"),
                    Some(V::String(_)) => Some("string"),
                    Some(V::Bool(_)) => Some("boolean"),
                    _ => None,
                };
                let first = ceilings.first().and_then(kind)?;
                if ceilings.iter().any(|c| kind(c) != Some(first)) {
                    return None;
                }
                json!({ "type": first })
            }
            Ty::Any | Ty::Error if self.strict() => forms::literal(),
            Ty::Any | Ty::Error => json!({}),
            Ty::Enum(values) => {
                let spelt: Vec<String> = values.iter().map(|v| escape_interp(v)).collect();
                json!({"type": "string", "enum": spelt})
            }
            Ty::List(inner) => json!({"type": "array", "items": self.value(inner)}),
            // OpenAI's strict mode has no schema for a map's keys: any
            // value there, which the check types.
            Ty::Map(_) if self.strict() => forms::literal(),
            Ty::Map(inner) => json!({"type": "object", "additionalProperties": self.value(inner)}),
            Ty::Record(fields) => {
                let names: Vec<&str> = fields.iter().map(|f| f.name.as_str()).collect();
                let required: Vec<&str> = fields
                    .iter()
                    .filter(|f| self.strict() || (!f.optional && !f.ty.accepts_null()))
                    .map(|f| f.name.as_str())
                    .collect();
                let mut i = 0;
                forms::closed(&names, &required, |_| {
                    let v = match fields.get(i) {
                        Some(f) if f.optional => self.value(&Ty::optional(f.ty.clone())),
                        Some(f) => self.value(&f.ty),
                        None => reference(),
                    };
                    i += 1;
                    v
                })
            }
            Ty::Optional(_) | Ty::Lit(_) | Ty::Union(_) => return None,
        };
        let o = s.as_object_mut()?;
        for c in ceilings {
            let limit = c.limit.as_ref()?;
            if !self.bound(o, ty, c.op, limit) {
                return None;
            }
        }
        Some(s)
    }

    /// The literals of a literal type or a union within `ceilings`: the
    /// literal members' values that satisfy every ceiling (as one `enum`
    /// per kind), and each other member's literals within them; a member
    /// none of whose literals can be stated is left out (a reference still
    /// reaches it). `None` when nothing is left.
    fn union_literal(&self, ty: &Ty, ceilings: &[&CeilingRule]) -> Option<Value> {
        use catalog::Value as V;
        let within = |v: &V| {
            ceilings.iter().all(|c| {
                c.limit
                    .as_ref()
                    .is_some_and(|l| v.satisfies(c.op, l) == Some(true))
            })
        };
        let mut numbers: Vec<Value> = Vec::new();
        let mut bools: Vec<Value> = Vec::new();
        let mut alts: Vec<Value> = Vec::new();
        for m in ty.members() {
            match m {
                Ty::Lit(v) if within(v) => match &**v {
                    V::Bool(b) => bools.push(json!(b)),
                    V::Int(i) => numbers.push(json!(i)),
                    other => numbers.extend(exact_number(other).map(Value::Number)),
                },
                Ty::Lit(_) => {}
                other => alts.extend(self.literal(other, ceilings)),
            }
        }
        if !numbers.is_empty() {
            alts.push(json!({"type": "number", "enum": numbers}));
        }
        if !bools.is_empty() {
            alts.push(json!({"type": "boolean", "enum": bools}));
        }
        match alts.len() {
            0 => None,
            1 => alts.pop(),
            _ => Some(json!({ "anyOf": alts })),
        }
    }

    /// Narrows the literal schema `o` of type `ty` to the values that
    /// satisfy `OP limit`; `false` when the dialect cannot say it exactly.
    fn bound(
        &self,
        o: &mut Map<String, Value>,
        ty: &Ty,
        op: CmpOp,
        limit: &catalog::Value,
    ) -> bool {
        use catalog::Value as V;
        match (ty, limit) {
            (Ty::Int | Ty::Decimal | Ty::Any | Ty::Error, V::Int(_) | V::Decimal(_)) => {
                let Some(n) = exact_number(limit) else {
                    return false;
                };
                match op {
                    CmpOp::Le => tighten(o, "maximum", n, true),
                    CmpOp::Lt => tighten(o, "exclusiveMaximum", n, true),
                    CmpOp::Ge => tighten(o, "minimum", n, false),
                    CmpOp::Gt => tighten(o, "exclusiveMinimum", n, false),
                    CmpOp::Eq => set_once(o, "const", Value::Number(n)),
                    CmpOp::Ne => !self.strict() && set_once(o, "not", json!({"const": n})),
                }
            }
            (Ty::Date, V::Date(d)) => match op {
                CmpOp::Eq => set_once(o, "const", json!(d.to_string())),
                CmpOp::Ne => !self.strict() && set_once(o, "not", json!({"const": d.to_string()})),
                _ => match lexical_pattern(&d.to_string(), op) {
                    // The date's shape and the ordering in one pattern:
                    // two orderings would need two patterns.
                    Some(p) if o.get("pattern").and_then(Value::as_str) == Some(DATE_PATTERN) => {
                        o.insert("pattern".into(), json!(p));
                        true
                    }
                    _ => false,
                },
            },
            (Ty::String | Ty::Any | Ty::Error, V::String(v)) => match op {
                CmpOp::Eq => set_once(o, "const", json!(escape_interp(v))),
                CmpOp::Ne => {
                    !self.strict() && set_once(o, "not", json!({"const": escape_interp(v)}))
                }
                _ => false,
            },
            (Ty::Enum(_), V::String(v)) => {
                let spelt = escape_interp(v);
                let Some(Value::Array(values)) = o.get_mut("enum") else {
                    return false;
                };
                match op {
                    CmpOp::Eq => values.retain(|x| x.as_str() == Some(spelt.as_str())),
                    CmpOp::Ne => values.retain(|x| x.as_str() != Some(spelt.as_str())),
                    _ => return false,
                }
                !values.is_empty()
            }
            (Ty::Bool | Ty::Any | Ty::Error, V::Bool(b)) => match op {
                CmpOp::Eq => set_once(o, "const", json!(b)),
                CmpOp::Ne => set_once(o, "const", json!(!b)),
                _ => false,
            },
            _ => false,
        }
    }
}

const PRE_DESCRIPTION: &str = "preconditions over earlier steps' artifacts, all of which must hold before the call: each `path` is a binding name with its fields (`settings.region`), never `$`";

/// A reference string: `"${name}"` or `"${name.member}"`, stated once in
/// the root's `$defs` ([`shared_defs`]) and named at every argument.
fn reference() -> Value {
    json!({"$ref": "#/$defs/reference"})
}

/// The pieces every step repeats, stated once: the reference string, the
/// literal a probe compares with, and a name.
fn shared_defs() -> Value {
    json!({
        "reference": {"type": "string", "pattern": REFERENCE_PATTERN,
                      "description": "a reference to a binding of an earlier step: `${name}` or `${name.member}`"},
        "literal": forms::literal(),
        "name": forms::string_pattern(IDENT_PATTERN),
    })
}

fn tool_description(tool: &Tool, rule: &Rule) -> String {
    let mut s = String::new();
    if !tool.doc.is_empty() {
        s.push_str(&tool.doc);
        s.push('\n');
    }
    s.push_str(&tool.signature());
    // What the policy states that the catalogue does not.
    let traits = Traits::of(tool, Some(rule));
    if let Some(e) = rule.effect.filter(|_| tool.effect.is_none()) {
        s.push_str(&format!("\n{} (by the policy)", e.node.as_str()));
    }
    if traits.idempotent && tool.idempotent.is_none() {
        s.push_str("\nidempotent (by the policy)");
    }
    if rule.approval.is_some() {
        s.push_str("\nneeds a person's approval before the run starts");
    }
    s
}

/// Sets `key` when it is not set yet; `false` when it is (two equalities,
/// say, which one keyword cannot hold).
/// `literal` (the schema of an argument's literals) narrowed by an
/// allowlist to an `enum`, or by a pattern to `pattern`; a rule over each
/// element of a list narrows the literals of its `items`. Left as it is
/// when the rule cannot be stated: a list value that is not a string, an
/// integer or a boolean, a pattern in syntax JSON Schema's regular
/// expressions do not share (inline flags, `\A`, `\z`, classes such as
/// `\p{…}`), a schema that already has a pattern (a date's). The checker
/// refuses what the schema lets through.
fn narrow(mut literal: Value, c: &ArgCondition) -> Value {
    if c.each {
        // An optional list is `{"anyOf": [ARRAY, {"type": "null"}]}`: `null`
        // is not a list, which the rule refuses, so only the array stays.
        if literal.get("items").is_none()
            && let Some(array) = literal
                .get_mut("anyOf")
                .and_then(Value::as_array_mut)
                .and_then(|alts| alts.first_mut())
                .filter(|a| a.get("items").is_some())
        {
            literal = std::mem::take(array);
        }
        // `{"type": "array", "items": {"anyOf": [LITERAL, REFERENCE]}}`.
        if let Some(first) = literal
            .get_mut("items")
            .and_then(|i| i.get_mut("anyOf"))
            .and_then(Value::as_array_mut)
            .and_then(|alts| alts.first_mut())
        {
            let inner = std::mem::take(first);
            *first = narrow_one(inner, c);
        }
        return literal;
    }
    narrow_one(literal, c)
}

fn narrow_one(mut literal: Value, c: &ArgCondition) -> Value {
    use catalog::Value as V;
    let Some(o) = literal.as_object_mut() else {
        return literal;
    };
    match &c.kind {
        Condition::In {
            negated: false,
            values,
        } => {
            let plain: Option<Vec<Value>> = values
                .iter()
                .map(|v| match v {
                    V::String(s) => Some(json!(escape_interp(s))),
                    V::Int(i) => Some(json!(i)),
                    V::Bool(b) => Some(json!(b)),
                    _ => None,
                })
                .collect();
            let Some(mut plain) = plain else {
                return literal;
            };
            // Within an enum the type already has: only the members both
            // admit.
            if let Some(Value::Array(members)) = o.get("enum") {
                plain.retain(|v| members.contains(v));
            }
            o.insert("enum".into(), Value::Array(plain));
        }
        Condition::Matches { pattern, .. } => {
            let portable = !["(?", "\\A", "\\z", "\\Z", "\\p", "\\P", "[[:"]
                .iter()
                .any(|t| pattern.contains(t));
            if portable && !o.contains_key("pattern") {
                o.insert("pattern".into(), json!(format!("^(?:{pattern})$")));
            }
        }
        _ => {}
    }
    literal
}

fn set_once(o: &mut Map<String, Value>, key: &str, v: Value) -> bool {
    if o.contains_key(key) {
        return false;
    }
    o.insert(key.into(), v);
    true
}

/// Sets the bound `key` to `n`, or keeps the tighter of the two: the lower
/// for an upper bound (`upper`), the higher for a lower one.
fn tighten(o: &mut Map<String, Value>, key: &str, n: serde_json::Number, upper: bool) -> bool {
    let new = number_value(&n);
    let keep_old = match (
        o.get(key)
            .and_then(|v| v.as_number())
            .and_then(number_value),
        new,
    ) {
        (Some(old), Some(new)) => {
            if upper {
                old <= new
            } else {
                old >= new
            }
        }
        _ => false,
    };
    if !keep_old {
        o.insert(key.into(), Value::Number(n));
    }
    true
}

fn number_value(n: &serde_json::Number) -> Option<rust_decimal::Decimal> {
    catalog::value::parse_decimal(&plan::expand_exponent(&n.to_string())?).ok()
}

/// A limit as a JSON number with exactly its value: integers as integers,
/// a decimal when binary floating point writes it back unchanged; `None`
/// otherwise (`0.1000000000000000001`).
fn exact_number(limit: &catalog::Value) -> Option<serde_json::Number> {
    use catalog::Value as V;
    match limit {
        V::Int(i) => Some((*i).into()),
        V::Decimal(d) => {
            if d.fract().is_zero()
                && let Ok(i) = d.trunc().to_string().parse::<i64>()
            {
                return Some(i.into());
            }
            let f: f64 = d.to_string().parse().ok()?;
            let n = serde_json::Number::from_f64(f)?;
            (number_value(&n)? == *d).then_some(n)
        }
        _ => None,
    }
}

/// The fixed-width strings shaped like `bound` (digits where it has
/// digits, its other characters where it has them) that compare with it
/// as `op` says, lexically — which for `YYYY-MM-DD` is the calendar's
/// order. `None` when no string does.
fn lexical_pattern(bound: &str, op: CmpOp) -> Option<String> {
    let chars: Vec<char> = bound.chars().collect();
    let shape = |c: char| -> String {
        if c.is_ascii_digit() {
            "[0-9]".to_string()
        } else {
            regex_char(c)
        }
    };
    let below = matches!(op, CmpOp::Lt | CmpOp::Le);
    let mut alternatives: Vec<String> = Vec::new();
    for (k, c) in chars.iter().enumerate() {
        let Some(d) = c.to_digit(10) else { continue };
        let class = match (below, d) {
            (true, 0) | (false, 9) => continue,
            (true, d) => format!("[0-{}]", d - 1),
            (false, d) => format!("[{}-9]", d + 1),
        };
        let mut alt: String = chars.iter().take(k).map(|c| regex_char(*c)).collect();
        alt.push_str(&class);
        alt.extend(chars.iter().skip(k + 1).map(|c| shape(*c)));
        alternatives.push(alt);
    }
    if matches!(op, CmpOp::Le | CmpOp::Ge) {
        alternatives.push(chars.iter().map(|c| regex_char(*c)).collect());
    }
    if alternatives.is_empty() {
        return None;
    }
    Some(format!("^({})$", alternatives.join("|")))
}

fn regex_char(c: char) -> String {
    if c.is_ascii_alphanumeric() || c == '-' || c == ':' {
        c.to_string()
    } else {
        format!("\\{c}")
    }
}

/// The paths into a value of `ty`, as a pattern: `$`, then fields the
/// records have and indices where there are lists; anything below `any`.
pub fn result_path_pattern(ty: &Ty) -> String {
    format!("^\\${}$", path_tail(ty, 0))
}

fn path_tail(ty: &Ty, depth: usize) -> String {
    use crate::syntax::path::{KEY_PATTERN, SEGMENTS_PATTERN as ANY};
    if depth > limits::MAX_DEPTH {
        return ANY.to_string();
    }
    match ty.strip_optional() {
        Ty::Record(fields) if !fields.is_empty() => {
            let alts: Vec<String> = fields
                .iter()
                .map(|f| format!("\\.{}{}", f.name, path_tail(&f.ty, depth + 1)))
                .collect();
            format!("({})?", alts.join("|"))
        }
        Ty::List(inner) => format!("(\\[[0-9]+\\]{})?", path_tail(inner, depth + 1)),
        Ty::Map(inner) => format!(
            "((\\.[A-Za-z_][A-Za-z0-9_]*|{KEY_PATTERN}){})?",
            path_tail(inner, depth + 1)
        ),
        Ty::Any | Ty::Error => ANY.to_string(),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn date_orderings_are_lexical() {
        let p = lexical_pattern("2026-03-04", CmpOp::Le).unwrap_or_default();
        assert!(p.starts_with("^([0-1][0-9][0-9][0-9]-"));
        assert!(p.ends_with("|2026-03-04)$"));
        assert_eq!(lexical_pattern("0000-00-00", CmpOp::Lt), None);
        assert!(
            lexical_pattern("9999-99-99", CmpOp::Gt).is_none(),
            "nothing is above the largest"
        );
    }

    #[test]
    fn limits_are_written_exactly_or_not_at_all() {
        use catalog::Value as V;
        let d = |s: &str| V::Decimal(catalog::value::parse_decimal(s).unwrap_or_default());
        let shown = |v: &V| exact_number(v).map(|n| n.to_string());
        assert_eq!(shown(&d("500")), Some("500".to_string()));
        assert_eq!(shown(&d("500.00")), Some("500".to_string()));
        assert_eq!(shown(&d("0.1")), Some("0.1".to_string()));
        assert_eq!(shown(&d("499.99")), Some("499.99".to_string()));
        assert_eq!(shown(&d("0.1000000000000000001")), None);
        assert_eq!(shown(&V::Int(-3)), Some("-3".to_string()));
    }
}
