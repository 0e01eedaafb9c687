//! The WebAssembly half of the `planc` npm package.
//!
//! A thin shell over the library, as the command line and the Python
//! package are: texts go in, JSON texts come out, and the JavaScript half
//! (`js/index.js`) parses them, builds the objects of its API and drives
//! the executor's [`Machine`](planc::exec::Machine) with JavaScript
//! functions as the tools.
//!
//! Numbers: what the library writes keeps every digit (`4180.00`, a
//! 30-digit integer). JavaScript's `number` is a double, so the JSON given
//! to JavaScript (`*Js` methods) writes a number whose value a double does
//! not hold exactly as a string of its digits instead (see [`js_json`]);
//! the exact texts are there too (`irJson`, `record`).

use std::collections::BTreeSet;
use std::rc::Rc;
use std::sync::Arc;

use planc::check::Models;
use planc::diagnostics::render;
use planc::driver::{self, Job};
use planc::exec::{Data, Dispatch, Machine as Core, Output, ToolError};
use planc::plan_schema::Dialect;
use planc::progress::ProgressRecord;
use planc::{Checked as CoreChecked, Compiler as CoreCompiler, SourceKind};
use wasm_bindgen::prelude::*;

mod numbers;

pub use numbers::{exact_in_f64, has_inexact_number, js_json};

fn error(message: impl Into<String>) -> JsError {
    JsError::new(&message.into())
}

#[wasm_bindgen]
extern "C" {
    /// `Reflect.set`: a field on the thrown `Error`.
    #[wasm_bindgen(js_namespace = Reflect, js_name = set)]
    fn reflect_set(target: &JsValue, key: &str, value: &JsValue) -> bool;
}

/// A refusal of the machine as a thrown `Error`: a replan over the budget
/// (E0305) is named `ReplanBudgetExceeded` and carries `code`, `used`,
/// `budget`, `recordFingerprint` (`null` for a record without one) and
/// `planFingerprint`; the rest carry their message alone.
fn machine_error(e: planc::exec::MachineError) -> JsValue {
    let thrown: JsValue = error(e.to_string()).into();
    if let planc::exec::MachineError::ReplanBudget {
        used,
        budget,
        record_fingerprint,
        plan_fingerprint,
    } = &e
    {
        let code = e
            .code()
            .map_or(JsValue::NULL, |c| JsValue::from_str(c.as_str()));
        let fields = [
            ("name", JsValue::from_str("ReplanBudgetExceeded")),
            ("code", code),
            // Replan counts: far below 2^53, exact as a double.
            ("used", JsValue::from_f64(*used as f64)),
            ("budget", JsValue::from_f64(*budget as f64)),
            (
                "recordFingerprint",
                record_fingerprint
                    .as_deref()
                    .map_or(JsValue::NULL, JsValue::from_str),
            ),
            ("planFingerprint", JsValue::from_str(plan_fingerprint)),
        ];
        for (key, value) in &fields {
            reflect_set(&thrown, key, value);
        }
    }
    thrown
}

fn to_json(value: &impl serde::Serialize) -> Result<String, JsError> {
    serde_json::to_string(value).map_err(|e| error(e.to_string()))
}

fn read_ir(text: &str) -> Result<planc::ir::PlanIr, JsError> {
    planc::ir::from_json(text).map_err(error)
}

/// A record through the library's one reader (E0601–E0605: a step
/// recorded twice, an unknown status, a missing field), and with a record
/// key only when its seal verifies (`progress::read::read_trusted`).
fn read_record_keyed(text: &str, key: Option<&[u8]>) -> Result<ProgressRecord, JsError> {
    planc::progress::read::read_trusted(text, key).map_err(error)
}

fn read_record(text: &str) -> Result<ProgressRecord, JsError> {
    read_record_keyed(text, None)
}

/// The record's JSON text sealed with `key` (its `hmac` set), as
/// `planc run --record-key` writes it (`docs/replanning.md`, "Sealed
/// records").
#[wasm_bindgen(js_name = sealRecord)]
pub fn seal_record(text: &str, key: &[u8]) -> Result<String, JsError> {
    planc::progress::read::seal_text(text, key).map_err(error)
}

fn kind_of(kind: &str) -> Result<SourceKind, JsError> {
    match kind {
        "json" => Ok(SourceKind::Json),
        "plan" => Ok(SourceKind::Text),
        other => Err(error(format!("kind `{other}`: use \"json\" or \"plan\""))),
    }
}

/// The library's version and the IR's.
#[wasm_bindgen(js_name = versions)]
pub fn versions() -> Vec<String> {
    vec![
        env!("CARGO_PKG_VERSION").to_string(),
        planc::ir::IR_VERSION.to_string(),
    ]
}

/// A catalogue and a policy, read and checked once. Without either, a
/// plan text declares its own tools and policy (one self-contained file),
/// as `planc check FILE` reads it with no configuration.
#[wasm_bindgen]
pub struct Compiler {
    inner: Rc<CoreCompiler>,
    configured: bool,
}

#[wasm_bindgen]
impl Compiler {
    /// `names[i]` is the name of `texts[i]`; the last pair is the policy
    /// when `has_policy`. A name ending in `.json` is read as JSON.
    /// `actor`: the actor's scopes, or `undefined` for the policy's line.
    #[wasm_bindgen(constructor)]
    pub fn new(
        names: Vec<String>,
        texts: Vec<String>,
        has_policy: bool,
        actor: Option<Vec<String>>,
    ) -> Result<Compiler, JsError> {
        if names.len() != texts.len() || (has_policy && names.is_empty()) {
            return Err(error("a name for every text"));
        }
        let mut pairs: Vec<(&str, &str)> = names
            .iter()
            .zip(&texts)
            .map(|(n, t)| (n.as_str(), t.as_str()))
            .collect();
        let policy = if has_policy { pairs.pop() } else { None };
        let configured = !pairs.is_empty() || policy.is_some();
        let inner = CoreCompiler::new(&pairs, policy, actor);
        Ok(Compiler {
            inner: Rc::new(inner),
            configured,
        })
    }

    /// The catalogue's and policy's diagnostics: the `--format json`
    /// document.
    #[wasm_bindgen(js_name = diagnosticsJson)]
    pub fn diagnostics_json(&self) -> String {
        render::json(self.inner.sources(), self.inner.diagnostics())
    }

    /// Checks one plan text; `kind` is `"json"` or `"plan"`. With
    /// `progress` (a record's JSON text), as a replan against what ran;
    /// with `record_key`, a record that reads is used only when its seal
    /// verifies (as `planc check --record-key`), else an error and nothing
    /// is checked.
    pub fn check(
        &self,
        name: &str,
        text: &str,
        kind: &str,
        progress: Option<String>,
        record_key: Option<Vec<u8>>,
    ) -> Result<Checked, JsError> {
        if let Some(record) = progress.as_deref() {
            planc::progress::read::verify_text(record, record_key.as_deref()).map_err(error)?;
        }
        let kind = kind_of(kind)?;
        if !self.configured {
            return Ok(self_contained(name, text, kind, progress.as_deref()));
        }
        let record = progress.as_deref().map(|text| ("progress.json", text));
        let checked = self.inner.check_replan(name, text, kind, record);
        Ok(Checked {
            inner: checked,
            models: Arc::clone(self.inner.models()),
        })
    }

    /// What is wrong with an IR (its JSON text) that was not compiled in
    /// this process, against this compiler's catalogue, policy and actor
    /// (`planc run --ir`'s verification, `docs/executors.md`): empty when
    /// it may run.
    pub fn verify(&self, ir: &str) -> Result<Vec<String>, JsError> {
        let ir = planc::ir::from_json(ir).map_err(error)?;
        Ok(planc::exec::verify(&ir, self.inner.models()))
    }

    /// The planner's schema (`planc schema`): `json-schema`, `openai` or
    /// `anthropic`; `tool` wraps it as the `submit_plan` tool definition.
    pub fn schema(&self, dialect: &str, tool: bool) -> Result<String, JsError> {
        let dialect = match dialect {
            "json-schema" => Dialect::JsonSchema,
            "openai" => Dialect::OpenAi,
            "anthropic" => Dialect::Anthropic,
            other => {
                return Err(error(format!(
                    "dialect `{other}`: use \"json-schema\", \"openai\" or \"anthropic\""
                )));
            }
        };
        let schema = self.inner.schema(dialect, tool).map_err(error)?;
        to_json(&schema)
    }
}

/// `planc check FILE` with no catalogue or policy configured: the file
/// may declare tools, a policy and plans together, or be a catalogue, a
/// policy or a progress record by itself (its shape says which).
fn self_contained(name: &str, text: &str, kind: SourceKind, progress: Option<&str>) -> Checked {
    let mut job = Job::default();
    let file = job.sources.add_with_kind(name, text, kind);
    job.plans.push(file);
    job.progress = progress.map(|t| {
        job.sources
            .add_with_kind("progress.json", t, SourceKind::Json)
    });
    let outcome = driver::run(&mut job);
    let ir = driver::lower(&job, &outcome).ok();
    let models = Arc::clone(&outcome.checked.models);
    Checked {
        inner: CoreChecked {
            sources: job.sources,
            file,
            diagnostics: outcome.diagnostics,
            ir,
        },
        models,
    }
}

/// What checking one plan gave.
#[wasm_bindgen]
pub struct Checked {
    inner: CoreChecked,
    /// The catalogue, policy and actor it was checked against (the review
    /// page names the policy and the actor).
    models: Arc<Models>,
}

impl Checked {
    fn one_ir(&self) -> Result<Option<&planc::ir::PlanIr>, JsError> {
        let Some(irs) = &self.inner.ir else {
            return Ok(None);
        };
        match irs.as_slice() {
            [ir] => Ok(Some(ir)),
            // A catalogue or a policy checked by itself: nothing to run.
            [] => Ok(None),
            _ => Err(error(format!(
                "the text declares {} plans; check one at a time",
                irs.len()
            ))),
        }
    }
}

#[wasm_bindgen]
impl Checked {
    /// The plan's diagnostics: the `--format json` document.
    #[wasm_bindgen(js_name = diagnosticsJson)]
    pub fn diagnostics_json(&self) -> String {
        render::json(&self.inner.sources, &self.inner.diagnostics)
    }

    /// Whether nothing (the plan, the catalogue, the policy) has an error.
    pub fn ok(&self) -> bool {
        self.inner.ir.is_some()
    }

    /// The IR's JSON text as `planc compile -o FILE` writes it (one line,
    /// every digit), when the plan compiled.
    #[wasm_bindgen(js_name = irJson)]
    pub fn ir_json(&self) -> Result<Option<String>, JsError> {
        match self.one_ir()? {
            Some(ir) => planc::ir::to_json_compact(ir).map(Some).map_err(error),
            None => Ok(None),
        }
    }

    /// [`Self::ir_json`] for JavaScript's `JSON.parse` (see [`js_json`]).
    #[wasm_bindgen(js_name = irJs)]
    pub fn ir_js(&self) -> Result<Option<String>, JsError> {
        Ok(self.ir_json()?.map(js_json))
    }

    /// The diagnostics rendered as `human` (no colour), `short` or `json`.
    pub fn render(&self, format: &str) -> Result<String, JsError> {
        let (sources, diags) = (&self.inner.sources, &self.inner.diagnostics);
        match format {
            "human" => {
                let mut s = render::human(sources, diags, false);
                if !diags.is_empty() {
                    s.push_str(&render::summary(diags));
                    s.push('\n');
                }
                Ok(s)
            }
            "short" => Ok(render::short(sources, diags)),
            "json" => Ok(render::json(sources, diags)),
            other => Err(error(format!(
                "format `{other}`: use \"human\", \"short\" or \"json\""
            ))),
        }
    }

    /// `planc review`'s page of the plan (one self-contained HTML file),
    /// when it compiled.
    pub fn review(&self) -> Result<Option<String>, JsError> {
        let Some(ir) = self.one_ir()? else {
            return Ok(None);
        };
        let models = &self.models;
        let findings =
            planc::view::Finding::collect(ir, &self.inner.diagnostics, &self.inner.sources);
        let generator = format!("planc {}", env!("CARGO_PKG_VERSION"));
        Ok(Some(planc::view::review::page(
            &planc::view::review::Review {
                ir,
                policy: models.policy.as_ref().map(|p| p.name.as_str()),
                actor: &models.actor,
                doc: "",
                findings: &findings,
                generator: &generator,
                progress: None,
                against: None,
                // The IR's order: the package keeps no syntax tree.
                arg_order: &[],
                command: run_command(ir),
            },
        )))
    }

    /// `planc graph`'s `dot` or `mermaid` text, when the plan compiled.
    pub fn graph(&self, format: &str) -> Result<Option<String>, JsError> {
        let Some(ir) = self.one_ir()? else {
            return Ok(None);
        };
        let g = planc::view::graph::Graph::of(ir);
        match format {
            "dot" => Ok(Some(planc::view::graph::dot(&g))),
            "mermaid" => Ok(Some(planc::view::graph::mermaid(&g))),
            other => Err(error(format!(
                "format `{other}`: use \"dot\" or \"mermaid\""
            ))),
        }
    }
}

/// The command that runs what the page shows: the IR saved as
/// `plan.ir.json`, its approvals bound to its fingerprint
/// (`docs/executors.md`).
fn run_command(ir: &planc::ir::PlanIr) -> String {
    let mut words = vec!["planc run --ir plan.ir.json".to_string()];
    if !ir.approvals.is_empty() {
        let names: Vec<&str> = ir.approvals.iter().map(|a| a.as_str()).collect();
        words.push(format!("--approve {}", names.join(",")));
    }
    words.push(format!("--fingerprint {}", ir.fingerprint));
    words.join(" ")
}

/// `planc diff`: the delta between two IRs (JSON texts), with the record
/// when given.
pub fn diff_json(old: &str, new: &str, progress: Option<String>) -> Result<String, JsError> {
    let old = read_ir(old)?;
    let new = read_ir(new)?;
    let record = progress.as_deref().map(read_record).transpose()?;
    let d = planc::progress::diff(&old, &new, record.as_ref());
    planc::ir::to_json(&d).map_err(error)
}

/// [`diff_json`] for JavaScript.
#[wasm_bindgen(js_name = diff)]
pub fn diff(old: &str, new: &str, progress: Option<String>) -> Result<String, JsError> {
    Ok(js_json(diff_json(old, new, progress)?))
}

/// `planc invalidate`: what an event invalidates.
#[wasm_bindgen]
pub fn invalidate(ir: &str, progress: &str, event: &str) -> Result<String, JsError> {
    let ir = read_ir(ir)?;
    let record = read_record(progress)?;
    let event = planc::progress::Event::parse(event).map_err(error)?;
    let inv =
        planc::progress::invalidate(&ir, &record, &event).map_err(|e| error(e.to_string()))?;
    Ok(js_json(planc::ir::to_json(&inv).map_err(error)?))
}

/// The JSON text of `text` with every number a double cannot hold as a
/// string (for values the JavaScript half parsed itself, e.g. a record).
#[wasm_bindgen(js_name = forJs)]
pub fn for_js(text: String) -> Result<String, JsError> {
    if !has_inexact_number(&text) {
        return Ok(text);
    }
    Data::parse_text(&text)
        .map(|d| numbers::write_js(&d))
        .map_err(error)
}

/// Whether `text` is a JSON number (RFC 8259).
#[wasm_bindgen(js_name = isJsonNumber)]
pub fn is_json_number(text: &str) -> bool {
    planc::exec::data::JsonNumber::new(text).is_some()
}

/// The executor's state machine (`planc::exec::Machine`). No IO: the
/// JavaScript driver calls the tools and keeps the record and the trace.
#[wasm_bindgen]
pub struct Machine {
    inner: Core,
}

fn dispatch_json(d: &Dispatch) -> String {
    let args = Data::Object(d.args.clone());
    // For a tool marked `exact`: the numbers of its arguments with their
    // digits.
    let exact = numbers::exact_numbers(&args);
    let call = Data::object([
        ("step", Data::String(d.step.clone())),
        ("index", Data::number(&d.index.to_string())),
        ("tool", Data::String(d.tool.clone())),
        ("args", args),
        ("attempt", Data::number(&d.attempt.to_string())),
        ("exact", exact),
    ]);
    numbers::write_js(&call)
}

#[wasm_bindgen]
impl Machine {
    /// `ir`: the IR's JSON text; `approved`: the approved steps;
    /// `progress`: an earlier record's JSON text, read by the library's
    /// one reader and, with `record_key`, used only when its seal
    /// verifies.
    #[wasm_bindgen(constructor)]
    pub fn new(
        ir: &str,
        approved: Vec<String>,
        progress: Option<String>,
        record_key: Option<Vec<u8>>,
    ) -> Result<Machine, JsValue> {
        let ir = read_ir(ir)?;
        let steps = ir.steps_by_name();
        for name in &approved {
            if !steps.contains_key(name.as_str()) {
                return Err(
                    error(format!("approve `{name}`: the plan has no step `{name}`")).into(),
                );
            }
        }
        let record = progress
            .as_deref()
            .map(|text| read_record_keyed(text, record_key.as_deref()))
            .transpose()?;
        let approved: BTreeSet<String> = approved.into_iter().collect();
        let inner = Core::new(Arc::new(ir), &approved, record.as_ref()).map_err(machine_error)?;
        Ok(Machine { inner })
    }

    /// The steps that need approval.
    pub fn approvals(&self) -> Vec<String> {
        self.inner
            .ir()
            .approvals
            .iter()
            .map(|s| s.to_string())
            .collect()
    }

    /// The calls due now, each a JSON object `{step, index, tool, args,
    /// attempt, exact}` (numbers for JavaScript; `exact` lists the numbers
    /// of `args` a tool marked `exact` receives with their digits).
    pub fn next(&mut self, together: bool) -> Result<Vec<String>, JsError> {
        let calls = self.inner.next(together).map_err(error)?;
        Ok(calls.iter().map(dispatch_json).collect())
    }

    /// A call's result (JSON text, numbers as the tool wrote them); a
    /// retry when one is due.
    #[wasm_bindgen(js_name = completeOk)]
    pub fn complete_ok(&mut self, step: &str, result: &str) -> Result<Option<String>, JsError> {
        let data = Data::parse_text(result)
            .map_err(|e| error(format!("the result of step `{step}` is not JSON: {e}")))?;
        self.complete(step, Ok(data))
    }

    /// A call's failure; a retry when one is due.
    #[wasm_bindgen(js_name = completeError)]
    pub fn complete_error(
        &mut self,
        step: &str,
        code: String,
        message: String,
        retryable: bool,
    ) -> Result<Option<String>, JsError> {
        self.complete(
            step,
            Err(ToolError {
                code,
                message,
                retryable,
            }),
        )
    }

    /// The records and events since the last call, in order, each
    /// `"progress"` or `"trace"` followed by its exact JSON text.
    pub fn drain(&mut self) -> Result<Vec<String>, JsError> {
        let mut out = Vec::new();
        for item in self.inner.drain() {
            match item {
                Output::Progress(record) => {
                    out.push("progress".to_string());
                    out.push(to_json(&record)?);
                }
                Output::Trace(event) => {
                    out.push("trace".to_string());
                    out.push(event.to_json_string());
                }
            }
        }
        Ok(out)
    }

    /// `[exit status, reason, step]` once the run is over, as JSON; else
    /// `undefined`.
    pub fn finished(&self) -> Option<String> {
        self.inner
            .finished()
            .map(|s| serde_json::json!([s.exit_status(), s.reason(), s.step()]).to_string())
    }

    /// The progress record now (its exact JSON text).
    pub fn record(&self) -> Result<String, JsError> {
        to_json(&self.inner.record())
    }

    /// Steps complete in the earlier record and not dispatched again.
    pub fn reused(&self) -> Vec<String> {
        self.inner.reused().to_vec()
    }

    /// Steps dispatched whose result has not been given.
    #[wasm_bindgen(js_name = inFlight)]
    pub fn in_flight(&self) -> Vec<String> {
        self.inner
            .in_flight()
            .into_iter()
            .map(str::to_string)
            .collect()
    }
}

impl Machine {
    fn complete(
        &mut self,
        step: &str,
        result: Result<Data, ToolError>,
    ) -> Result<Option<String>, JsError> {
        let retry = self.inner.complete(step, result).map_err(error)?;
        Ok(retry.as_ref().map(dispatch_json))
    }
}
