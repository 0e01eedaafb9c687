//! The generic JSON Schemas of the documents planc reads and writes: the
//! JSON plan, the JSON catalogue, the JSON policy, and the `--format json`
//! report. Each is built from the key lists and word lists the readers
//! themselves use (or, for the report, from the types the renderer
//! serialises), so a reader and its schema cannot say different things;
//! `tests/plan_schema.rs` checks the committed files under `schema/`.

use serde_json::{Map, Value, json};

use crate::catalog::value::{DATE_PATTERN, DATETIME_PATTERN};
use crate::limits;
use crate::syntax::json_catalog as cat;
use crate::syntax::json_plan as plan;
use crate::syntax::json_policy as pol;
use crate::syntax::lexicon::{self, IDENT_PATTERN, SCOPE_PATTERN};

const DRAFT: &str = "https://json-schema.org/draft/2020-12/schema";

/// A closed object whose properties are exactly `keys`, each given its
/// schema by `schema_of`; `required` lists the keys that must be present.
pub(crate) fn closed(
    keys: &[&str],
    required: &[&str],
    mut schema_of: impl FnMut(&str) -> Value,
) -> Value {
    let mut props = Map::new();
    for k in keys {
        props.insert((*k).to_string(), schema_of(k));
    }
    let mut o = Map::new();
    o.insert("type".into(), json!("object"));
    o.insert("properties".into(), Value::Object(props));
    if !required.is_empty() {
        o.insert("required".into(), json!(required));
    }
    o.insert("additionalProperties".into(), json!(false));
    Value::Object(o)
}

pub(crate) fn string_pattern(pattern: &str) -> Value {
    json!({"type": "string", "pattern": pattern})
}

pub(crate) fn count() -> Value {
    json!({"type": "integer", "minimum": 0})
}

/// A scalar in literal position: probe values, policy limits.
pub(crate) fn literal() -> Value {
    json!({"type": ["string", "number", "boolean", "null"]})
}

/// The JSON plan form (`docs/json.md`), for any catalogue.
pub fn plan() -> Value {
    let step_ref = json!({"anyOf": [
        {"type": "integer", "minimum": 0},
        string_pattern(IDENT_PATTERN),
    ]});
    let probe = json!({"$ref": "#/$defs/probe"});
    let pre_probe = json!({"$ref": "#/$defs/pre_probe"});
    let step = closed(plan::STEP_KEYS, &["tool"], |k| match k {
        "n" => {
            json!({"type": "integer", "minimum": 0, "description": "the step's number; its name is `step_N` unless `name` is given"})
        }
        "id" => json!({"anyOf": [{"type": "integer", "minimum": 0}, string_pattern(IDENT_PATTERN)],
                       "description": "a number (as `n`) or a name"}),
        "name" => json!({"$ref": "#/$defs/identifier"}),
        "tool" => json!({"type": "string", "description": "a tool of the catalogue"}),
        "args" => {
            json!({"type": "object", "description": "the arguments by name; a whole string `${name}` or `${name.member}` is a reference to a binding, `${…}` inside other text an interpolation, `$${` a literal `${`"})
        }
        "pre" => {
            json!({"anyOf": [pre_probe.clone(), {"type": "array", "items": pre_probe.clone()}],
                        "description": "the precondition: one probe or a list, all of which must hold of earlier steps' artifacts before the step is dispatched; each `path` starts with a binding name, never `$`"})
        }
        "post" => json!({"anyOf": [probe.clone(), {"type": "array", "items": probe.clone()}],
                         "description": "the postcondition: one probe or a list, all of which must hold"}),
        "binds" => json!({"anyOf": [
            {"type": "object", "propertyNames": {"$ref": "#/$defs/identifier"},
             "additionalProperties": {"$ref": "#/$defs/path"}},
            {"type": "array", "items": closed(plan::BIND_KEYS, plan::BIND_KEYS, |k| match k {
                "name" => json!({"$ref": "#/$defs/identifier"}),
                _ => json!({"$ref": "#/$defs/path"}),
            })},
        ], "description": "names for values of the result: binding name → path"}),
        "on_unmet" => json!({"enum": lexicon::ON_UNMET}),
        "retry" => {
            let mut c = count();
            if let Some(o) = c.as_object_mut() {
                o.insert(
                    "description".into(),
                    json!("retries on a tool error; idempotent tools only"),
                );
            }
            c
        }
        _ => json!({"anyOf": [step_ref.clone(), {"type": "array", "items": step_ref.clone()}],
                    "description": "steps this one runs after, by number or name"}),
    });
    let mut root = closed(plan::PLAN_KEYS, &["steps"], |k| match k {
        "name" => json!({"anyOf": [{"$ref": "#/$defs/identifier"}, {"type": "null"}]}),
        "goal" => json!({"type": "string"}),
        "budget" => json!({"anyOf": [
            closed(plan::BUDGET_KEYS, &[], |_| json!({"anyOf": [count(), {"type": "null"}]})),
            {"type": "null"},
        ]}),
        _ => {
            json!({"type": "array", "items": {"$ref": "#/$defs/step"}, "maxItems": limits::MAX_STEPS})
        }
    });
    let defs = json!({
        "identifier": string_pattern(IDENT_PATTERN),
        "path": string_pattern(plan::PATH_PATTERN),
        "binding_path": string_pattern(plan::BINDING_PATH_PATTERN),
        "literal": literal(),
        "step": step,
        "probe": probe_any(),
        "pre_probe": pre_probe_any(),
    });
    if let Some(o) = root.as_object_mut() {
        o.insert("$schema".into(), json!(DRAFT));
        o.insert("title".into(), json!("planc JSON plan"));
        o.insert("$defs".into(), defs);
    }
    root
}

/// The probe forms of the generic plan schema.
fn probe_any() -> Value {
    let path = json!({"$ref": "#/$defs/path"});
    let lit = json!({"$ref": "#/$defs/literal"});
    json!({"anyOf": probe_variants(&path, &lit, true)})
}

/// The probe forms of a `pre` clause: paths rooted at a binding.
fn pre_probe_any() -> Value {
    let path = json!({"$ref": "#/$defs/binding_path"});
    let lit = json!({"$ref": "#/$defs/literal"});
    json!({"anyOf": pre_variants(probe_variants(&path, &lit, true))})
}

/// Probe forms made `pre` forms: a `pre` probe always names its path (a
/// `result_count` has no result to default to).
pub(crate) fn pre_variants(mut variants: Vec<Value>) -> Vec<Value> {
    for v in &mut variants {
        if let Some(req) = v.get_mut("required").and_then(Value::as_array_mut)
            && !req.iter().any(|k| k == "path")
        {
            req.push(json!("path"));
        }
    }
    variants
}

/// One closed object per probe form, with `path` and `literal` as given.
/// `generic` keeps the optional keys optional (and `result_count`'s
/// `equals` form); otherwise every key is required (strict schemas).
pub(crate) fn probe_variants(path: &Value, lit: &Value, generic: bool) -> Vec<Value> {
    use plan::probe_kind as pk;
    let kind = |k: &str| json!({"const": k});
    let key_schema = |probe: &Value, k: &str| match k {
        "probe" => probe.clone(),
        "path" => path.clone(),
        "equals" => count(),
        "op" => json!({"enum": plan::OPS}),
        "values" => json!({"type": "array", "items": lit.clone()}),
        _ => lit.clone(),
    };
    let mut out = Vec::new();
    // `result_count`: `equals`, or `op` and `value`; `path` optional.
    let rc = kind(pk::RESULT_COUNT);
    let (eq_keys, op_keys): (Vec<&str>, Vec<&str>) = (
        plan::RESULT_COUNT_KEYS
            .iter()
            .copied()
            .filter(|k| !matches!(*k, "op" | "value"))
            .collect(),
        plan::RESULT_COUNT_KEYS
            .iter()
            .copied()
            .filter(|k| *k != "equals")
            .collect(),
    );
    let count_of = |k: &str| {
        if k == "value" {
            count()
        } else {
            key_schema(&rc, k)
        }
    };
    if generic {
        out.push(closed(&eq_keys, &["probe", "equals"], count_of));
        out.push(closed(&op_keys, &["probe", "op", "value"], count_of));
    } else {
        out.push(closed(&op_keys, &op_keys, count_of));
    }
    let forms: [(&[&str], Value); 5] = [
        (plan::FIELD_EQUALS_KEYS, kind(pk::FIELD_EQUALS)),
        (
            plan::CONTAINS_KEYS,
            json!({"enum": [pk::CONTAINS, pk::KEYS_CONTAIN]}),
        ),
        (
            plan::FIELD_IN_KEYS,
            json!({"enum": [pk::FIELD_IN, pk::FIELD_NOT_IN]}),
        ),
        (plan::FIELD_EXISTS_KEYS, kind(pk::FIELD_EXISTS)),
        (plan::FIELD_COMPARE_KEYS, kind(pk::FIELD_COMPARE)),
    ];
    for (keys, probe) in forms {
        out.push(closed(keys, keys, |k| key_schema(&probe, k)));
    }
    out
}

/// The JSON catalogue forms: an MCP `tools/list` result (bare, or inside
/// its JSON-RPC response), or an array of MCP or OpenAI function tools;
/// parameter schemas in the JSON Schema subset planc maps onto its types.
pub fn catalog() -> Value {
    // The reader takes tool lists forward-compatibly: keys it does not use
    // in a tool entry and the objects around it are ignored, so the schema
    // leaves those objects open (parameter schemas stay closed).
    let open = |mut v: Value| {
        if let Some(o) = v.as_object_mut() {
            o.remove("additionalProperties");
        }
        v
    };
    let schema = json!({"$ref": "#/$defs/schema"});
    let text = json!({"type": "string"});
    let mcp = open(closed(
        cat::MCP_TOOL_KEYS,
        &["name", "inputSchema"],
        |k| match k {
            "name" | "title" | "description" => text.clone(),
            "inputSchema" | "outputSchema" => schema.clone(),
            "annotations" => open(closed(cat::ANNOTATION_KEYS, &[], |k| match k {
                "title" => json!({"type": "string"}),
                _ => json!({"type": "boolean"}),
            })),
            "icons" => json!({"type": "array"}),
            _ => json!({"type": "object"}),
        },
    ));
    let function_of = |k: &str| match k {
        "type" => json!({"const": "function"}),
        "name" | "description" => text.clone(),
        "parameters" => schema.clone(),
        _ => json!({"type": "boolean"}),
    };
    let function = open(closed(cat::FUNCTION_KEYS, &["name"], function_of));
    let chat = open(closed(cat::CHAT_KEYS, &["type", "function"], |k| match k {
        "function" => function.clone(),
        _ => function_of(k),
    }));
    let responses = open(closed(cat::RESPONSES_KEYS, &["type", "name"], function_of));
    let tools = json!({"type": "array", "items": {"anyOf": [mcp, chat, responses]}});
    let list = open(closed(cat::LIST_KEYS, &["tools"], |k| match k {
        "tools" => json!({"$ref": "#/$defs/tools"}),
        "nextCursor" => json!({"type": ["string", "null"]}),
        _ => json!({"type": "object"}),
    }));
    let rpc = open(closed(cat::RPC_KEYS, &["result"], |k| match k {
        "result" => json!({"$ref": "#/$defs/list"}),
        "jsonrpc" => json!({"const": "2.0"}),
        _ => json!({"type": ["string", "integer", "null"]}),
    }));
    // A parameter schema: the keywords the catalogue reader maps, ignores
    // or accepts without enforcing; any other keyword is refused.
    let mut words: Vec<&str> = cat::MAPPED
        .iter()
        .chain(cat::ANNOTATIONS)
        .chain(cat::NARROWING)
        .copied()
        .collect();
    words.sort_unstable();
    let keyword = closed(&words, &[], |k| match k {
        "type" => {
            json!({"anyOf": [{"enum": cat::TYPE_NAMES}, {"type": "array", "items": {"enum": cat::TYPE_NAMES}}]})
        }
        "format" | "title" | "description" | "$comment" | "$schema" | "$id" | "pattern"
        | "contentEncoding" | "contentMediaType" => json!({"type": "string"}),
        "$ref" => json!({"type": "string", "pattern": "^#"}),
        "$defs" | "definitions" => {
            json!({"type": "object", "additionalProperties": schema.clone()})
        }
        "allOf" => json!({"type": "array", "items": schema.clone(), "minItems": 1}),
        "discriminator" => json!({"type": "object"}),
        "items" => schema.clone(),
        "properties" => json!({"type": "object", "additionalProperties": schema.clone()}),
        "required" => json!({"type": "array", "items": {"type": "string"}}),
        "enum" => json!({"type": "array"}),
        "anyOf" | "oneOf" => json!({"type": "array", "items": schema.clone()}),
        // A schema where JSON Schema takes one (`true` and `false` are
        // schemas): real tool lists write a map's value type here.
        "additionalProperties"
        | "additionalItems"
        | "unevaluatedProperties"
        | "unevaluatedItems"
        | "propertyNames"
        | "contains" => schema.clone(),
        "dependentRequired" => json!({"type": "object"}),
        "deprecated" | "readOnly" | "writeOnly" | "nullable" | "uniqueItems" => {
            json!({"type": "boolean"})
        }
        "const" | "default" | "examples" => json!({}),
        _ => json!({"type": "number"}),
    });
    json!({
        "$schema": DRAFT,
        "title": "planc JSON tool catalogue",
        "anyOf": [
            {"$ref": "#/$defs/tools"},
            {"$ref": "#/$defs/list"},
            rpc,
        ],
        "$defs": {
            "tools": tools,
            "list": list,
            "schema": {"anyOf": [{"type": "boolean"}, keyword]},
            "date": string_pattern(DATE_PATTERN),
            "datetime": string_pattern(DATETIME_PATTERN),
        },
    })
}

/// The JSON policy form.
pub fn policy() -> Value {
    let scopes = json!({"type": "array", "items": {"type": "string", "pattern": SCOPE_PATTERN}});
    let limits = json!({"type": "object", "propertyNames": {"$ref": "#/$defs/identifier"},
                        "additionalProperties": {"type": ["string", "number", "boolean", "null"]}});
    let lists = json!({"type": "object", "propertyNames": {"$ref": "#/$defs/identifier"},
                       "additionalProperties": {"type": "array",
                                                "items": {"type": ["string", "number", "boolean", "null"]}}});
    let total = closed(pol::TOTAL_KEYS, &["max"], |k| match k {
        "max" => json!({"type": "number"}),
        _ => json!({"anyOf": [{"$ref": "#/$defs/identifier"}, {"type": "null"}]}),
    });
    let rule = closed(pol::RULE_KEYS, &[], |k| match k {
        "scopes" => scopes.clone(),
        "max" => with_description(limits.clone(), "`<=` ceilings: argument name → limit"),
        "min" => with_description(limits.clone(), "`>=` ceilings: argument name → limit"),
        "in" => with_description(
            lists.clone(),
            "allowlists: argument name → the values it may take",
        ),
        "not_in" => with_description(
            lists.clone(),
            "denylists: argument name → the values it must not take",
        ),
        "matches" => with_description(
            json!({"type": "object", "propertyNames": {"$ref": "#/$defs/identifier"},
                   "additionalProperties": {"type": "string"}}),
            "argument name → a regular expression (Rust `regex` syntax) the whole value must match",
        ),
        "trusted" => with_description(
            json!({"type": "array", "items": {"$ref": "#/$defs/identifier"}}),
            "arguments whose value must carry no untrusted data",
        ),
        "total" => with_description(
            json!({"type": "object", "propertyNames": {"$ref": "#/$defs/identifier"},
                   "additionalProperties": total.clone()}),
            "argument name → the most its values may add up to over every call of the tool",
        ),
        "calls" => with_description(count(), "the most calls of the tool over a run"),
        "approval" => json!({"enum": ["human", null]}),
        "effect" => with_description(
            json!({"enum": ["read", "write"]}),
            "the tool's effect, where the catalogue does not state it",
        ),
        "idempotent" => with_description(
            json!({"type": "boolean"}),
            "whether the tool is idempotent, where the catalogue does not state it",
        ),
        _ => json!({"type": "boolean"}),
    });
    let mut root = closed(pol::POLICY_KEYS, &[], |k| match k {
        "name" => json!({"$ref": "#/$defs/identifier"}),
        "actor" => closed(pol::ACTOR_KEYS, pol::ACTOR_KEYS, |_| scopes.clone()),
        "tools" => json!({"type": "object", "additionalProperties": rule.clone(),
                          "description": "tool name → rule; a tool not named is denied"}),
        _ => count(),
    });
    if let Some(o) = root.as_object_mut() {
        o.insert("$schema".into(), json!(DRAFT));
        o.insert("title".into(), json!("planc JSON policy"));
        o.insert(
            "$defs".into(),
            json!({"identifier": string_pattern(IDENT_PATTERN)}),
        );
    }
    root
}

/// `schema` with a `description`.
pub(crate) fn with_description(mut schema: Value, text: &str) -> Value {
    // No keyword beside a `$ref` (strict dialects refuse it): the
    // reference goes into a one-member `anyOf` that carries the text.
    if schema.get("$ref").is_some() {
        return json!({"anyOf": [schema], "description": text});
    }
    if let Some(o) = schema.as_object_mut() {
        o.insert("description".into(), json!(text));
    }
    schema
}

/// The `--format json` report, from the types the renderer serialises.
pub fn diagnostics() -> Value {
    let schema = schemars::schema_for!(planc_lang::render::JsonReport<'static>);
    let mut v = schema.to_value();
    if let Some(o) = v.as_object_mut() {
        o.insert("title".into(), json!("planc --format json report"));
    }
    v
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;

    /// The key sets of every object in `schema` that lists its properties
    /// (closed ones, and the tool list's, which the reader leaves open).
    fn key_sets(schema: &Value, out: &mut Vec<BTreeSet<String>>) {
        match schema {
            Value::Object(o) => {
                if let Some(Value::Object(props)) = o.get("properties") {
                    out.push(props.keys().cloned().collect());
                }
                for v in o.values() {
                    key_sets(v, out);
                }
            }
            Value::Array(items) => items.iter().for_each(|v| key_sets(v, out)),
            _ => {}
        }
    }

    /// Every key list a reader checks objects against is the key set of an
    /// object of its schema (`result_count`'s two forms together); only
    /// the completion list of every probe key is no one object's.
    #[test]
    fn the_schemas_keys_are_the_readers() {
        let mut sets = Vec::new();
        for s in [plan(), catalog(), policy()] {
            key_sets(&s, &mut sets);
        }
        let lists = [
            crate::syntax::json_plan::SHAPES,
            crate::syntax::json_catalog::SHAPES,
            crate::syntax::json_policy::SHAPES,
        ];
        for list in lists.iter().flat_map(|l| l.iter()) {
            if *list == plan::PROBE_ANY_KEYS {
                continue;
            }
            let want: BTreeSet<String> = list.iter().map(|k| (*k).to_string()).collect();
            let found = sets.contains(&want)
                || sets.iter().any(|a| {
                    sets.iter()
                        .any(|b| a.union(b).cloned().collect::<BTreeSet<_>>() == want)
                });
            assert!(found, "no object of the schemas has the keys {list:?}");
        }
    }
}
