//! The JSON Schemas of the JSON forms (`schema/*.schema.json`) and
//! `planc schema`'s specialised plan schemas:
//!
//! - the committed generic schemas are the ones the code generates
//!   (regenerate with `PLANC_WRITE_SCHEMA=1 cargo test --test plan_schema`);
//! - every example plan and every accepted JSON test plan validates against
//!   the generic schema and against its project's specialised schema;
//! - every schema of the `openai` dialect keeps OpenAI's strict
//!   structured-output rules (written down below);
//! - soundness: instances generated from a specialised schema never get the
//!   codes `docs/json.md` says the schema rules out, from `planc check`
//!   with the same catalogue and policy.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

#[path = "support/committed.rs"]
mod committed;

use planc::driver::{self, Job};
use planc::plan_schema::{self, Dialect, forms};
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::TestRunner;
use serde_json::{Value, json};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

// ------------------------------------------------------------ committed files

#[test]
fn committed_schemas_match_the_readers() {
    let files = [
        ("schema/plan.schema.json", forms::plan()),
        ("schema/catalog.schema.json", forms::catalog()),
        ("schema/policy.schema.json", forms::policy()),
        ("schema/diagnostics.schema.json", forms::diagnostics()),
    ];
    let mut stale = Vec::new();
    for (name, schema) in files {
        jsonschema::validator_for(&schema).unwrap_or_else(|e| panic!("{name}: {e}"));
        let generated = serde_json::to_string_pretty(&schema).unwrap() + "\n";
        if let Err(e) = committed::compare(name, &generated, "plan_schema") {
            stale.push(e);
        }
    }
    assert!(stale.is_empty(), "{}", stale.join("\n"));
}

// ------------------------------------------------------------ projects

/// A project: its folder, and the catalogue and policy files its
/// `planc.toml` names.
struct Project {
    dir: PathBuf,
    catalog: Vec<PathBuf>,
    policy: Option<PathBuf>,
    actor: Option<Vec<String>>,
}

fn project(dir: &Path) -> Project {
    let config = planc::project::discover(dir).unwrap().unwrap();
    Project {
        dir: dir.to_path_buf(),
        catalog: config.catalog,
        policy: config.policy,
        actor: config.actor,
    }
}

/// The projects whose catalogues the soundness test covers.
fn projects() -> Vec<Project> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root().join("examples"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("planc.toml").exists())
        .collect();
    dirs.push(root().join("tests/schema/shapes"));
    dirs.push(root().join("tests/ui/check"));
    // Issue 11's shapes: nullable defaults, tuples, list and record
    // defaults, unions and literal unions (JSON Schema and text), a tool
    // that cannot be mapped beside ones that can, a ceiling over a union.
    dirs.push(root().join("tests/ui/catalogs"));
    dirs.push(root().join("tests/ui/catalogs/mixed"));
    dirs.push(root().join("tests/ui/catalogs/text"));
    // Effects and idempotence stated by the policy: `retry` is offered
    // for the tools the policy calls idempotent, and only for them.
    dirs.push(root().join("tests/ui/effects"));
    dirs.sort();
    dirs.iter().map(|d| project(d)).collect()
}

impl Project {
    /// A job over the project's catalogue and policy, with `plan` (JSON
    /// text) as the plan when given.
    fn job(&self, plan: Option<&str>) -> Job {
        let mut job = Job::default();
        if let Some(text) = plan {
            let id = job.sources.add("plan.json", text.to_string());
            job.plans.push(id);
        }
        for path in &self.catalog {
            let text = std::fs::read_to_string(path).unwrap();
            let id = job.sources.add(path.display().to_string(), text);
            job.catalog.push(id);
        }
        if let Some(path) = &self.policy {
            let text = std::fs::read_to_string(path).unwrap();
            let id = job.sources.add(path.display().to_string(), text);
            job.policy.push(id);
        }
        job.actor = self.actor.clone();
        job
    }

    fn schema(&self, dialect: Dialect) -> Value {
        let mut job = self.job(None);
        let outcome = driver::run(&mut job);
        assert!(
            !outcome.has_errors(),
            "{}: {:?}",
            self.dir.display(),
            outcome.diagnostics
        );
        let c = &outcome.checked;
        plan_schema::plan_schema(&c.catalog, c.policy.as_ref(), &c.actor, dialect).unwrap()
    }
}

fn validator(schema: &Value) -> jsonschema::Validator {
    jsonschema::validator_for(schema).unwrap()
}

fn errors(v: &jsonschema::Validator, instance: &Value) -> Vec<String> {
    v.iter_errors(instance)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect()
}

// ------------------------------------------------------------ accepted plans

/// Every example plan and every accepted JSON test plan validates against
/// the generic schema and against its project's specialised schema.
#[test]
fn accepted_plans_validate() {
    let generic = validator(&forms::plan());
    let mut plans: Vec<PathBuf> = Vec::new();
    for dir in ["examples", "tests/ui/json/plan/ok"] {
        let mut stack = vec![root().join(dir)];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    stack.push(p);
                } else if p.extension().is_some_and(|x| x == "json")
                    && (dir != "examples" || p.to_string_lossy().ends_with(".plan.json"))
                {
                    // The examples' plans are `*.plan.json`; beside them lie
                    // progress records and tool fixtures.
                    plans.push(p);
                }
            }
        }
    }
    plans.sort();
    assert!(plans.len() >= 6, "{plans:?}");
    for path in &plans {
        let text = std::fs::read_to_string(path).unwrap();
        let plan: Value = serde_json::from_str(&text).unwrap();
        // A run's progress record beside its plans is not a plan.
        if plan.get("progress_version").is_some() {
            continue;
        }
        let e = errors(&generic, &plan);
        assert!(e.is_empty(), "{}: {e:?}", path.display());
        let p = project(path.parent().unwrap());
        // The plan compiles with no errors against its project.
        let mut job = p.job(Some(&text));
        let outcome = driver::run(&mut job);
        assert!(!outcome.has_errors(), "{}", path.display());
        for dialect in [Dialect::JsonSchema, Dialect::Anthropic] {
            let special = validator(&p.schema(dialect));
            let e = errors(&special, &plan);
            assert!(e.is_empty(), "{} ({dialect:?}): {e:?}", path.display());
        }
    }
}

/// The generic schema refuses what the reader refuses (a few shapes).
#[test]
fn the_generic_schema_refuses_what_the_reader_refuses() {
    let v = validator(&forms::plan());
    let bad = [
        json!({"goal": "x"}),
        json!({"steps": [{"tool": "t", "tol": 1}]}),
        json!({"steps": [{"tool": "t", "post": {"probe": "field_equals", "path": "$.a"}}]}),
        json!({"steps": [{"tool": "t", "post": {"probe": "result_count", "equals": 1, "op": "=="}}]}),
        json!({"steps": [{"tool": "t", "binds": {"x": "results"}}]}),
        json!({"steps": [{"tool": "t", "on_unmet": "retry"}]}),
        json!({"steps": [], "budget": {"replans": -1}}),
    ];
    for b in bad {
        assert!(!v.is_valid(&b), "{b}");
        let mut job = Job::default();
        let id = job.sources.add("p.json", b.to_string());
        job.plans.push(id);
        let outcome = driver::run(&mut job);
        assert!(
            outcome
                .diagnostics
                .iter()
                .any(|d| matches!(d.code.as_str(), "E0004" | "E0002")),
            "{b}: the reader accepts it"
        );
    }
    let good = json!({"steps": [{"tool": "t", "binds": [{"name": "x", "path": "$.a[0]"}]}],
                      "budget": {"replans": null, "max_steps": 3}, "name": null});
    assert!(v.is_valid(&good));
}

// ------------------------------------------------------------ OpenAI's rules

/// The keywords OpenAI's strict structured outputs accept (its
/// "supported schemas": types, `enum`, `const`, `anyOf`, definitions;
/// `pattern` and `format` on strings; numeric bounds and `multipleOf`;
/// `minItems`/`maxItems`), and the formats it knows.
const OPENAI_KEYWORDS: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "const",
    "anyOf",
    "description",
    "title",
    "pattern",
    "format",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
    "$ref",
    "$defs",
];
const OPENAI_FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];
/// Its limits: object nesting, properties in all, enum values in all.
const OPENAI_MAX_NESTING: usize = 10;
const OPENAI_MAX_PROPERTIES: usize = 5000;
const OPENAI_MAX_ENUM_VALUES: usize = 1000;

#[derive(Default)]
struct Tally {
    properties: usize,
    enum_values: usize,
    violations: Vec<String>,
}

/// Checks one schema of the `openai` dialect against the rules above.
fn openai_rules(schema: &Value) -> Vec<String> {
    let mut t = Tally::default();
    if schema.get("type") != Some(&json!("object")) || schema.get("anyOf").is_some() {
        t.violations
            .push("the root must be an object schema, not `anyOf`".into());
    }
    walk(schema, "", 0, &mut t);
    if t.properties > OPENAI_MAX_PROPERTIES {
        t.violations
            .push(format!("{} properties in all", t.properties));
    }
    if t.enum_values > OPENAI_MAX_ENUM_VALUES {
        t.violations
            .push(format!("{} enum values in all", t.enum_values));
    }
    t.violations
}

fn walk(s: &Value, at: &str, depth: usize, t: &mut Tally) {
    let Some(o) = s.as_object() else {
        t.violations
            .push(format!("{at}: a schema must be an object"));
        return;
    };
    for k in o.keys() {
        if !OPENAI_KEYWORDS.contains(&k.as_str()) {
            t.violations.push(format!("{at}: keyword `{k}`"));
        }
    }
    if let Some(f) = o.get("format").and_then(Value::as_str)
        && !OPENAI_FORMATS.contains(&f)
    {
        t.violations.push(format!("{at}: format `{f}`"));
    }
    if let Some(e) = o.get("enum").and_then(Value::as_array) {
        t.enum_values += e.len();
    }
    let is_object = o.get("type") == Some(&json!("object")) || o.contains_key("properties");
    let mut depth = depth;
    if is_object {
        depth += 1;
        if depth > OPENAI_MAX_NESTING {
            t.violations
                .push(format!("{at}: nested {depth} objects deep"));
        }
        if o.get("additionalProperties") != Some(&json!(false)) {
            t.violations
                .push(format!("{at}: `additionalProperties` must be false"));
        }
        let props: BTreeSet<&str> = o
            .get("properties")
            .and_then(Value::as_object)
            .map(|p| p.keys().map(String::as_str).collect())
            .unwrap_or_default();
        t.properties += props.len();
        let required: BTreeSet<&str> = o
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        if props != required {
            t.violations
                .push(format!("{at}: every property must be required"));
        }
    }
    if let Some(p) = o.get("properties").and_then(Value::as_object) {
        for (k, v) in p {
            walk(v, &format!("{at}/properties/{k}"), depth, t);
        }
    }
    if let Some(i) = o.get("items") {
        walk(i, &format!("{at}/items"), depth, t);
    }
    if let Some(a) = o.get("anyOf").and_then(Value::as_array) {
        for (i, v) in a.iter().enumerate() {
            walk(v, &format!("{at}/anyOf/{i}"), depth, t);
        }
    }
    if let Some(d) = o.get("$defs").and_then(Value::as_object) {
        for (k, v) in d {
            walk(v, &format!("{at}/$defs/{k}"), depth, t);
        }
    }
}

#[test]
fn openai_schemas_keep_the_strict_rules() {
    for p in projects() {
        let s = p.schema(Dialect::OpenAi);
        let v = openai_rules(&s);
        assert!(v.is_empty(), "{}: {v:#?}", p.dir.display());
        let wrapped = plan_schema::submit_plan_tool(s.clone(), Dialect::OpenAi);
        assert_eq!(wrapped["function"]["strict"], json!(true));
        assert_eq!(wrapped["function"]["parameters"], s);
        let a = plan_schema::submit_plan_tool(p.schema(Dialect::Anthropic), Dialect::Anthropic);
        assert_eq!(a["name"], json!("submit_plan"));
        assert_eq!(a["input_schema"]["type"], json!("object"));
    }
    // The rules bite.
    let open = json!({"type": "object", "properties": {"a": {"type": "string", "minLength": 1}}});
    assert_eq!(openai_rules(&open).len(), 3, "{:?}", openai_rules(&open));
}

// ------------------------------------------------------------ soundness

/// Instances of a schema, drawn from a deterministic stream of choices.
struct Gen {
    runner: TestRunner,
    state: u64,
    /// The root schema's `$defs`, which `#/$defs/NAME` names.
    defs: Value,
}

impl Gen {
    fn new(seed: u64) -> Gen {
        Gen {
            runner: TestRunner::deterministic(),
            state: seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0xD1B5_4A32_D192_ED03,
            defs: json!({}),
        }
    }

    /// An instance of the root schema `s`, its `$defs` kept for the parts.
    fn root(&mut self, s: &Value) -> Value {
        self.defs = s.get("$defs").cloned().unwrap_or(json!({}));
        self.value(s, 0)
    }

    /// splitmix64
    fn next(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }

    fn chance(&mut self, in_ten: u64) -> bool {
        self.next() % 10 < in_ten
    }

    fn regex(&mut self, pattern: &str) -> String {
        let p = pattern.strip_prefix('^').unwrap_or(pattern);
        let p = p.strip_suffix('$').unwrap_or(p);
        let strategy = proptest::string::string_regex(p).unwrap();
        // Advance the runner's stream by our own choice, so that two calls
        // with the same pattern give different strings.
        for _ in 0..self.below(3) {
            let _ = strategy.new_tree(&mut self.runner);
        }
        strategy.new_tree(&mut self.runner).unwrap().current()
    }

    fn value(&mut self, s: &Value, depth: usize) -> Value {
        // A part is validated with the root's `$defs` beside it, so that
        // its `$ref`s resolve.
        let mut whole = s.clone();
        if let Some(o) = whole.as_object_mut()
            && !o.contains_key("$defs")
        {
            o.insert("$defs".into(), self.defs.clone());
        }
        for _ in 0..200 {
            let v = self.attempt(s, depth);
            if jsonschema::is_valid(&whole, &v) {
                return v;
            }
        }
        panic!("no instance of {s} in 200 attempts");
    }

    fn attempt(&mut self, s: &Value, depth: usize) -> Value {
        let Some(o) = s.as_object() else {
            return json!(null);
        };
        if let Some(name) = o
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| r.strip_prefix("#/$defs/"))
        {
            let target = self.defs[name].clone();
            return self.value(&target, depth);
        }
        if let Some(c) = o.get("const") {
            return c.clone();
        }
        if let Some(e) = o.get("enum").and_then(Value::as_array) {
            let i = self.below(e.len());
            return e[i].clone();
        }
        if let Some(alts) = o.get("anyOf").and_then(Value::as_array) {
            let i = self.below(alts.len());
            return self.value(&alts[i], depth);
        }
        let ty = match o.get("type") {
            Some(Value::String(t)) => t.clone(),
            Some(Value::Array(ts)) => {
                let i = self.below(ts.len());
                ts[i].as_str().unwrap().to_string()
            }
            _ => ["string", "integer", "number", "boolean", "null"][self.below(5)].to_string(),
        };
        let num = |k: &str| o.get(k).and_then(Value::as_f64);
        match ty.as_str() {
            "null" => json!(null),
            "boolean" => json!(self.chance(5)),
            "integer" => {
                let lo = num("minimum").unwrap_or(-1000.0).max(-1000.0) as i64;
                let hi = num("maximum").unwrap_or(1000.0).min(1000.0) as i64;
                let lo = num("exclusiveMinimum").map_or(lo, |m| lo.max(m.floor() as i64 + 1));
                let hi = num("exclusiveMaximum").map_or(hi, |m| hi.min(m.ceil() as i64 - 1));
                let span = (hi - lo).max(0) as u64 + 1;
                // Bounds are likelier than not: that is where mistakes are.
                let n = match self.below(4) {
                    0 => lo,
                    1 => hi,
                    _ => lo + (self.next() % span) as i64,
                };
                // JSON Schema's `integer` admits `2.0`: so must planc.
                if self.chance(4) {
                    json!(n as f64)
                } else {
                    json!(n)
                }
            }
            "number" => {
                let lo = num("minimum")
                    .or(num("exclusiveMinimum"))
                    .unwrap_or(-1000.0)
                    .max(-1000.0);
                let hi = num("maximum")
                    .or(num("exclusiveMaximum"))
                    .unwrap_or(1000.0)
                    .min(1000.0);
                let cents_lo = (lo * 100.0).ceil() as i64;
                let cents_hi = (hi * 100.0).floor() as i64;
                let span = (cents_hi - cents_lo).max(0) as u64 + 1;
                let c = match self.below(4) {
                    0 => cents_lo,
                    1 => cents_hi,
                    _ => cents_lo + (self.next() % span) as i64,
                };
                if c % 100 == 0 && self.chance(5) {
                    json!(c / 100)
                } else {
                    serde_json::Number::from_f64(c as f64 / 100.0).map_or(json!(0), Value::Number)
                }
            }
            "string" => match o.get("format").and_then(Value::as_str) {
                Some("date") => json!(self.date()),
                Some("date-time") => {
                    let frac = if self.chance(3) { ".25" } else { "" };
                    let zone = ["Z", "+01:00", "-05:30"][self.below(3)];
                    json!(format!(
                        "{}T{:02}:{:02}:{:02}{frac}{zone}",
                        self.date(),
                        self.below(24),
                        self.below(60),
                        self.below(60)
                    ))
                }
                _ => match o.get("pattern").and_then(Value::as_str) {
                    Some(p) => json!(self.regex(p)),
                    None => json!(self.text()),
                },
            },
            "array" => {
                let n = if depth > 4 { 0 } else { self.below(3) };
                let items = o.get("items").cloned().unwrap_or(json!({}));
                Value::Array((0..n).map(|_| self.value(&items, depth + 1)).collect())
            }
            _ => self.object(o, depth),
        }
    }

    fn object(&mut self, o: &serde_json::Map<String, Value>, depth: usize) -> Value {
        let required: Vec<&str> = o
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let mut out = serde_json::Map::new();
        if let Some(props) = o.get("properties").and_then(Value::as_object) {
            for (k, v) in props {
                if required.contains(&k.as_str()) || (depth < 4 && self.chance(4)) {
                    out.insert(k.clone(), self.value(v, depth + 1));
                }
            }
        }
        if let (Some(names), Some(values)) = (o.get("propertyNames"), o.get("additionalProperties"))
            && values.is_object()
        {
            let names = match names["$ref"]
                .as_str()
                .and_then(|r| r.strip_prefix("#/$defs/"))
            {
                Some(name) => self.defs[name].clone(),
                None => names.clone(),
            };
            let pattern = names["pattern"].as_str().unwrap();
            for _ in 0..self.below(3) {
                let k = self.regex(pattern);
                out.insert(k, self.value(values, depth + 1));
            }
        }
        // `not: {required: [a, b]}`: not both.
        if let Some(both) = o
            .get("not")
            .and_then(|n| n.get("required"))
            .and_then(Value::as_array)
            && both.iter().all(|k| out.contains_key(k.as_str().unwrap()))
            && let Some(last) = both.last().and_then(Value::as_str)
        {
            out.remove(last);
        }
        Value::Object(out)
    }

    fn date(&mut self) -> String {
        let y = [1999, 2020, 2024, 2026, 2027, 2100][self.below(6)];
        let m = 1 + self.below(12);
        let d = 1 + self.below(28);
        format!("{y:04}-{m:02}-{d:02}")
    }

    fn text(&mut self) -> String {
        const WORDS: &[&str] = &[
            "a", "web", "test", "GBP", "é", " ", "$", "${", "$${x}", "x}", "\"", "\\",
        ];
        (0..self.below(4))
            .map(|_| WORDS[self.below(WORDS.len())])
            .collect()
    }
}

/// The codes a plan valid against its specialised schema never gets; E0201
/// and E0303 only count on a literal (not on a `${…}` reference).
const RULED_OUT: &[&str] = &[
    "E0004", "E0101", "E0102", "E0103", "E0204", "E0301", "E0302",
];

#[test]
fn generated_plans_never_get_the_codes_the_schema_rules_out() {
    let per_project: u64 = std::env::var("PLANC_SOUNDNESS_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(40);
    let mut checked = 0;
    for p in projects() {
        for dialect in [Dialect::JsonSchema, Dialect::OpenAi, Dialect::Anthropic] {
            let schema = p.schema(dialect);
            let whole = validator(&schema);
            for seed in 0..per_project {
                let mut g = Gen::new(seed);
                let plan = g.root(&schema);
                let e = errors(&whole, &plan);
                assert!(e.is_empty(), "the generator wrote an invalid plan: {e:?}");
                let text = serde_json::to_string_pretty(&plan).unwrap();
                let mut job = p.job(Some(&text));
                let outcome = driver::run(&mut job);
                for d in &outcome.diagnostics {
                    let code = d.code.as_str();
                    let file = job.sources.get(d.span.file).unwrap();
                    let spelt = file
                        .text
                        .get(d.span.start as usize..d.span.end as usize)
                        .unwrap_or("");
                    let on_reference = spelt.starts_with("\"${") || spelt.starts_with("${");
                    let bad = RULED_OUT.contains(&code)
                        || (matches!(code, "E0201" | "E0303") && !on_reference);
                    assert!(
                        !bad,
                        "{} ({dialect:?}, seed {seed}): {code} {} at `{spelt}` in\n{text}",
                        p.dir.display(),
                        d.message
                    );
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 0);
}

// ------------------------------------------------------------ patterns

/// The patterns the schemas use say what the readers accept.
#[test]
fn patterns_agree_with_the_readers() {
    use planc::syntax::json_plan::{BINDING_PATH_PATTERN, PATH_PATTERN, REFERENCE_PATTERN};
    use planc::syntax::lexicon::{IDENT_PATTERN, is_ident};
    let ident = validator(&json!({"pattern": IDENT_PATTERN}));
    let reference = validator(&json!({"pattern": REFERENCE_PATTERN}));
    let path = validator(&json!({"pattern": PATH_PATTERN}));
    let binding_path = validator(&json!({"pattern": BINDING_PATH_PATTERN}));
    let scope = validator(&json!({"pattern": planc::syntax::lexicon::SCOPE_PATTERN}));
    let mut runner = TestRunner::deterministic();
    // Dates and datetimes: every one the reader takes has the shape.
    use planc::catalog::value::{DATE_PATTERN, DATETIME_PATTERN};
    use planc::catalog::{Date, Datetime};
    let date = validator(&json!({"pattern": DATE_PATTERN}));
    let datetime = validator(&json!({"pattern": DATETIME_PATTERN}));
    let dates = proptest::string::string_regex("[0-9]{4}-[0-3][0-9]-[0-3][0-9]").unwrap();
    let times = proptest::string::string_regex(
        "[0-9]{4}-[01][0-9]-[0-3][0-9][Tt][0-2][0-9]:[0-6][0-9]:[0-6][0-9](\\.[0-9]{1,10})?([Zz]|[+-][0-2][0-9]:[0-6][0-9])",
    )
    .unwrap();
    let (mut real_dates, mut real_times) = (0, 0);
    for _ in 0..3000 {
        let d = dates.new_tree(&mut runner).unwrap().current();
        if Date::parse(&d).is_some() {
            real_dates += 1;
            assert!(date.is_valid(&json!(d)), "{d}");
        }
        let t = times.new_tree(&mut runner).unwrap().current();
        if Datetime::parse(&t).is_some() {
            real_times += 1;
            assert!(datetime.is_valid(&json!(t)), "{t}");
        }
    }
    assert!(
        real_dates > 100 && real_times > 10,
        "{real_dates} {real_times}"
    );
    let words = proptest::string::string_regex("[A-Za-z0-9_$.{}\\[\\]:*é -]{0,12}").unwrap();
    for _ in 0..1500 {
        let s = words.new_tree(&mut runner).unwrap().current();
        let v = json!(s);
        assert_eq!(ident.is_valid(&v), is_ident(&s), "{s:?}");
        // A reference: one whole `${…}` the plan reader reads as such.
        let whole = format!("${{{s}}}");
        let reads_as_ref = s.split('.').all(is_ident);
        assert_eq!(reference.is_valid(&json!(whole)), reads_as_ref, "{whole:?}");
        let p = format!("${s}");
        let reads_as_path = {
            let mut job = Job::default();
            let doc = json!({"steps": [{"tool": "t", "binds": {"x": p}}]});
            let id = job.sources.add("p.json", doc.to_string());
            job.plans.push(id);
            let out = driver::run(&mut job);
            !out.diagnostics.iter().any(|d| d.code.as_str() == "E0002")
        };
        assert_eq!(path.is_valid(&json!(p)), reads_as_path, "{p:?}");
        // A `pre` path: a binding and its fields, as the reader takes it.
        let reads_as_binding_path = {
            let mut job = Job::default();
            let doc =
                json!({"steps": [{"tool": "t", "pre": {"probe": "field_exists", "path": s}}]});
            let id = job.sources.add("p.json", doc.to_string());
            job.plans.push(id);
            let out = driver::run(&mut job);
            !out.diagnostics.iter().any(|d| d.code.as_str() == "E0002")
        };
        assert_eq!(binding_path.is_valid(&v), reads_as_binding_path, "{s:?}");
        let reads_as_scope = {
            let mut job = Job::default();
            let doc = json!({"actor": {"scopes": [s]}});
            let id = job.sources.add("policy.json", doc.to_string());
            job.policy.push(id);
            let out = driver::run(&mut job);
            !out.diagnostics.iter().any(|d| d.code.as_str() == "E0004")
        };
        assert_eq!(scope.is_valid(&v), reads_as_scope, "{s:?}");
    }
}

// ------------------------------------------------------------ other forms

/// The JSON catalogues and policies the tests accept validate against the
/// catalogue and policy schemas; two the reader refuses for their keys do
/// not.
#[test]
fn catalogues_and_policies_validate() {
    let catalog = validator(&forms::catalog());
    let policy = validator(&forms::policy());
    let read = |p: &str| -> Value {
        serde_json::from_str(&std::fs::read_to_string(root().join(p)).unwrap()).unwrap()
    };
    for p in [
        "tests/ui/json/ok/mcp_tools.json",
        "tests/ui/json/ok/openai_tools.json",
        "tests/schema/shapes/tools.json",
        // A real server's list, with keys planc does not use (`execution`).
        "tests/mcp/filesystem-tools.json",
        // Schemas as pydantic 2 and zod-to-json-schema write them.
        "tests/ui/catalogs/pydantic/tools.json",
        "tests/ui/catalogs/zod/tools.json",
        "benches/agentdojo/catalogs/workspace.json",
    ] {
        let e = errors(&catalog, &read(p));
        assert!(e.is_empty(), "{p}: {e:?}");
    }
    let e = errors(&policy, &read("tests/ui/json/ok/policy.json"));
    assert!(e.is_empty(), "{e:?}");
    // A keyword the reader cannot map (`not`), and a `$ref` that is not
    // local.
    let not = json!({"tools": [{"name": "t", "inputSchema": {"type": "object",
        "properties": {"a": {"not": {"type": "string"}}}}}]});
    assert!(!catalog.is_valid(&not));
    let remote = json!({"tools": [{"name": "t", "inputSchema": {"type": "object",
        "properties": {"a": {"$ref": "https://example.com/a.json"}}}}]});
    assert!(!catalog.is_valid(&remote));
    assert!(!policy.is_valid(&read("tests/ui/json/err/policy_unknown_key.json")));
}

/// Reports of every kind of problem validate against the report's schema.
#[test]
fn reports_validate() {
    let schema = validator(&forms::diagnostics());
    let mut plans = Vec::new();
    for dir in ["tests/ui/json/plan/err", "tests/ui/json/plan/ok"] {
        for e in std::fs::read_dir(root().join(dir)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "json") {
                plans.push(p);
            }
        }
    }
    plans.sort();
    let p = project(&root().join("tests/ui/json/plan"));
    let mut seen = 0;
    for path in &plans {
        let text = std::fs::read_to_string(path).unwrap();
        let mut job = p.job(Some(&text));
        let outcome = driver::run(&mut job);
        seen += outcome.diagnostics.len();
        let report: Value = serde_json::from_str(&planc::diagnostics::render::json(
            &job.sources,
            &outcome.diagnostics,
        ))
        .unwrap();
        let e = errors(&schema, &report);
        assert!(e.is_empty(), "{}: {e:?}", path.display());
    }
    assert!(seen > 10, "{seen} diagnostics");
}

/// The strict dialect's shapes are the reader's: `binds` as an array binds
/// (a later step's reference resolves), `null` for an absent budget, every
/// optional key present.
#[test]
fn a_plan_in_the_strict_shape_compiles() {
    let p = project(&root().join("examples/northwind"));
    let plan = json!({
        "name": "lookup", "goal": "find the subscription", "budget": null,
        "steps": [
            {"name": "resolve", "tool": "customer.resolve",
             "args": {"email": "a@b.c", "include_children": false},
             "pre": [],
             "post": [{"probe": "result_count", "path": "$.results", "op": "==", "value": 1}],
             "binds": [{"name": "account_id", "path": "$.results[0].id"}],
             "on_unmet": "replan", "after": [], "retry": 1},
            {"name": "subscription", "tool": "billing.get_subscription",
             "args": {"account_id": "${account_id}", "as_of": "2026-03-04"},
             "pre": [{"probe": "field_exists", "path": "account_id"}],
             "post": [{"probe": "field_exists", "path": "$.id"}],
             "binds": [], "on_unmet": "halt", "after": ["resolve"], "retry": 0}
        ]
    });
    let v = validator(&p.schema(Dialect::OpenAi));
    let e = errors(&v, &plan);
    assert!(e.is_empty(), "{e:?}");
    let mut job = p.job(Some(&plan.to_string()));
    let outcome = driver::run(&mut job);
    assert!(outcome.diagnostics.is_empty(), "{:?}", outcome.diagnostics);
}

/// `retry` is offered where the tool is idempotent by the catalogue or by
/// the policy, and nowhere else: the specialised schema of
/// `tests/ui/effects/` (OpenAI tools without hints, a policy that states
/// idempotence for two of them) validates a retried step of each
/// idempotent tool and refuses one of the third.
#[test]
fn retry_follows_the_idempotence_the_policy_states() {
    let p = project(&root().join("tests/ui/effects"));
    let v = validator(&p.schema(Dialect::JsonSchema));
    let step = |tool: &str, args: Value| {
        json!({"goal": "g", "steps": [{"n": 0, "tool": tool, "args": args, "retry": 2,
                                       "post": {"probe": "field_exists", "path": "$"}}]})
    };
    for (tool, args) in [
        ("orders_lookup", json!({"order_id": "o"})),
        ("orders_refund", json!({"order_id": "o", "request_id": "r"})),
    ] {
        let e = errors(&v, &step(tool, args));
        assert!(e.is_empty(), "{tool}: {e:?}");
    }
    assert!(!v.is_valid(&step("orders_note", json!({"order_id": "o", "text": "t"}))));
}

/// An allowlist narrows an argument's literals to an `enum` (over each
/// element of a list argument, its items'), a pattern to `pattern`; the
/// schema then refuses what the checker would refuse (E0311, E0312), and
/// every plan it admits is one the checker accepts.
#[test]
fn rules_narrow_the_literals_of_their_arguments() {
    let tools = "tool mail.send(to: [string], cc: [string]?, url: string, tag: string) -> { id: string } write\n";
    let policy = "policy p {\n    actor [m:s]\n    mail.send requires [m:s] where to in [\"a@x.com\", \"b@x.com\"], cc in [\"a@x.com\"], url matches \"https://x[.]com/[a-z]+\", tag matches \"(?i)ok\"\n}\n";
    let c = planc::Compiler::new(
        &[("tools.plan", tools)],
        Some(("policy.plan", policy)),
        None,
    );
    assert!(c.diagnostics().is_empty(), "{:?}", c.diagnostics());
    for dialect in [Dialect::JsonSchema, Dialect::OpenAi] {
        let v = validator(&c.schema(dialect, false).unwrap());
        let plan = |to: Value, cc: Value, url: &str| {
            json!({"name": "p", "goal": "g", "steps": [{"name": "s", "tool": "mail.send",
                "args": {"to": to, "cc": cc, "url": url, "tag": "OK"}}]})
        };
        let good = plan(
            json!(["a@x.com", "b@x.com"]),
            json!(["a@x.com"]),
            "https://x.com/a",
        );
        let checked = c.check("plan.json", &good.to_string(), planc::SourceKind::Json);
        assert!(checked.ir.is_some(), "{:?}", checked.diagnostics);
        if dialect == Dialect::JsonSchema {
            assert!(errors(&v, &good).is_empty(), "{:?}", errors(&v, &good));
        }
        for bad in [
            plan(
                json!(["a@x.com", "evil@y.io"]),
                json!(["a@x.com"]),
                "https://x.com/a",
            ),
            plan(json!(["a@x.com"]), json!(["b@x.com"]), "https://x.com/a"),
            plan(json!(["a@x.com"]), json!(null), "https://x.com/a"),
            plan(
                json!(["a@x.com"]),
                json!(["a@x.com"]),
                "https://x.com.evil.io/a",
            ),
        ] {
            assert!(!v.is_valid(&bad), "{dialect:?} admits {bad}");
            let checked = c.check("plan.json", &bad.to_string(), planc::SourceKind::Json);
            assert!(checked.ir.is_none(), "{bad}");
        }
    }
}
