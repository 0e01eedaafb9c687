//! `planc._planc`: the native half of the Python package.
//!
//! A thin shell over the library, as the command line is: values cross the
//! boundary as JSON text (read and written by the library's own serde
//! types, so numbers keep their exact digits), and the pure-Python half
//! (`planc/__init__.py`) turns them into dicts and reads files. Every call
//! that does real work releases the GIL.

use std::collections::BTreeSet;
use std::sync::{Arc, OnceLock};

use planc::diagnostics::render;
use planc::exec::{Data, Dispatch, Machine as Core, Output, ToolError};
use planc::plan_schema::Dialect;
use planc::progress::ProgressRecord;
use planc::{Compiler as CoreCompiler, SourceKind, Unlowered};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;

mod temporal_support;

/// Every allocation the extension's Rust code makes goes through mimalloc
/// rather than the C library's `malloc`: a check builds and drops a few
/// hundred small blocks (about 30 per step of a plan), and glibc's `malloc`
/// and `free` took a fifth of a 10-step check's instructions
/// (`docs/performance.md`, "From Python"). Python's own objects are
/// untouched: what crosses the boundary is copied into them.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn value_error(message: impl Into<String>) -> PyErr {
    PyValueError::new_err(message.into())
}

pyo3::create_exception!(
    _planc,
    ReplanBudgetExceeded,
    PyValueError,
    "A replan over the run's replan budget (E0305): nothing runs, a person \
     decides. `code` is \"E0305\"; `used` and `budget` count replans; \
     `record_fingerprint` is the plan the record names (None for a record \
     without one) and `plan_fingerprint` this plan's (docs/executors.md)."
);

/// A refusal of the machine: a replan over the budget as
/// [`ReplanBudgetExceeded`] with its fields, the rest as `ValueError`.
fn machine_error(py: Python<'_>, e: planc::exec::MachineError) -> PyErr {
    let planc::exec::MachineError::ReplanBudget {
        used,
        budget,
        record_fingerprint,
        plan_fingerprint,
    } = &e
    else {
        return value_error(e.to_string());
    };
    let err = ReplanBudgetExceeded::new_err(e.to_string());
    let value = err.value(py);
    let fields = || -> PyResult<()> {
        value.setattr("code", e.code().map(|c| c.as_str()))?;
        value.setattr("used", *used)?;
        value.setattr("budget", *budget)?;
        value.setattr("record_fingerprint", record_fingerprint.as_deref())?;
        value.setattr("plan_fingerprint", plan_fingerprint.as_str())
    };
    match fields() {
        Ok(()) => err,
        Err(failed) => failed,
    }
}

fn to_json(value: &impl serde::Serialize) -> PyResult<String> {
    serde_json::to_string(value).map_err(|e| PyRuntimeError::new_err(e.to_string()))
}

/// As `planc run` writes the record: pretty, for people who open the file.
fn to_json_pretty(value: &impl serde::Serialize) -> PyResult<String> {
    serde_json::to_string_pretty(value).map_err(|e| PyRuntimeError::new_err(e.to_string()))
}

fn read_ir(text: &str) -> PyResult<planc::ir::PlanIr> {
    planc::ir::from_json(text).map_err(value_error)
}

/// A record through the library's one reader; with a record key, only
/// when its seal verifies (`progress::read::read_trusted`).
fn read_record_keyed(text: &str, key: Option<&[u8]>) -> PyResult<ProgressRecord> {
    planc::progress::read::read_trusted(text, key).map_err(value_error)
}

fn read_record(text: &str) -> PyResult<ProgressRecord> {
    read_record_keyed(text, None)
}

/// The record's JSON text sealed with `key`: its `hmac` set
/// (`progress::read::seal`), written as `planc run` writes it.
#[pyfunction]
fn seal_record(text: &str, key: &[u8]) -> PyResult<String> {
    planc::progress::read::seal_text(text, key).map_err(value_error)
}

/// A catalogue and a policy, read and checked once.
#[pyclass(frozen, module = "planc._planc")]
struct Compiler {
    inner: CoreCompiler,
}

#[pymethods]
impl Compiler {
    /// `catalog`: `(name, text)` pairs; `policy`: one or `None`. A name
    /// ending in `.json` is read as JSON.
    #[new]
    #[pyo3(signature = (catalog, policy=None, actor=None))]
    fn new(
        py: Python<'_>,
        catalog: Vec<(String, String)>,
        policy: Option<(String, String)>,
        actor: Option<Vec<String>>,
    ) -> Compiler {
        let inner = py.detach(|| {
            let catalog: Vec<(&str, &str)> = catalog
                .iter()
                .map(|(n, t)| (n.as_str(), t.as_str()))
                .collect();
            let policy = policy.as_ref().map(|(n, t)| (n.as_str(), t.as_str()));
            CoreCompiler::new(&catalog, policy, actor)
        });
        Compiler { inner }
    }

    /// The catalogue's and policy's diagnostics, as `--format json` gives
    /// them (the whole document).
    fn diagnostics_json(&self, py: Python<'_>) -> String {
        py.detach(|| render::json(self.inner.sources(), self.inner.diagnostics()))
    }

    /// What the catalogue and policy make of each tool, as JSON
    /// (`Compiler::tool_facts`).
    fn tool_facts_json(&self) -> PyResult<String> {
        to_json(&self.inner.tool_facts())
    }

    /// Checks one plan text; `kind` is `"json"` or `"plan"`. With
    /// `progress` (a record's JSON text), the plan is checked as a replan
    /// against what already ran.
    /// With `lenient`, a JSON plan inside a model's reply (a Markdown code
    /// fence, text around the object) is read with W0509 saying what was
    /// ignored, as `planc check --lenient`.
    ///
    /// `text` is taken as a `String`: under the stable ABI of Python 3.9
    /// PyO3 can only copy a `str` out, and the copy is moved into the
    /// check's source map rather than copied again. The IR is built when
    /// first asked for (`ok`, `ir_json`), the diagnostics' document when
    /// it is read (`diagnostics_json`), their numbers without it (`counts`).
    ///
    /// With `record_key`, a record that reads is used only when its seal
    /// verifies (`progress::read::verify`, as `planc check --record-key`):
    /// otherwise `ValueError`, and nothing is checked against it. A record
    /// that does not read is the check's own diagnostics (E0601–E0605).
    #[pyo3(signature = (name, text, kind, progress=None, lenient=false, record_key=None))]
    #[allow(clippy::too_many_arguments)]
    fn check(
        &self,
        py: Python<'_>,
        name: &str,
        text: String,
        kind: &str,
        progress: Option<&str>,
        lenient: bool,
        record_key: Option<&[u8]>,
    ) -> PyResult<Checked> {
        if let Some(record) = progress {
            planc::progress::read::verify_text(record, record_key).map_err(value_error)?;
        }
        let kind = match kind {
            "json" => SourceKind::Json,
            "plan" => SourceKind::Text,
            other => {
                return Err(value_error(format!(
                    "kind `{other}`: use \"json\" or \"plan\""
                )));
            }
        };
        let record = progress.map(|text| ("progress.json", text));
        let mut checked = py.detach(|| {
            match lenient
                .then(|| planc::syntax::lenient::unwrap(&text))
                .flatten()
            {
                Some(u) => {
                    let note = |file| planc::syntax::lenient::note(file, &text, &u);
                    let mut checked =
                        self.inner
                            .check_unlowered(name, u.text.as_str(), SourceKind::Json, record);
                    checked.diagnostics.push(note(checked.file));
                    checked
                }
                None => self.inner.check_unlowered(name, text, kind, record),
            }
        });
        // A catalogue or policy with errors fails every check: each result
        // carries them, so that `ok=False` never comes without its reason
        // (their warnings stay in `Compiler.diagnostics` alone).
        let config = self.inner.diagnostics().iter().filter(|d| d.is_error());
        checked.diagnostics.splice(0..0, config.cloned());
        Ok(Checked {
            inner: checked,
            ir: OnceLock::new(),
        })
    }

    /// The planner's schema (`planc schema`): `dialect` is `json-schema`,
    /// `openai` or `anthropic`; `tool` wraps it as a tool definition.
    #[pyo3(signature = (dialect="json-schema", tool=false))]
    fn schema(&self, py: Python<'_>, dialect: &str, tool: bool) -> PyResult<String> {
        let dialect = match dialect {
            "json-schema" => Dialect::JsonSchema,
            "openai" => Dialect::OpenAi,
            "anthropic" => Dialect::Anthropic,
            other => {
                return Err(value_error(format!(
                    "dialect `{other}`: use \"json-schema\", \"openai\" or \"anthropic\""
                )));
            }
        };
        let schema = py
            .detach(|| self.inner.schema(dialect, tool))
            .map_err(value_error)?;
        to_json(&schema)
    }
}

/// What checking one plan gave.
#[pyclass(frozen, module = "planc._planc")]
struct Checked {
    inner: Unlowered,
    /// The IR, lowered the first time it is asked for.
    ir: OnceLock<Option<Vec<planc::ir::PlanIr>>>,
}

impl Checked {
    fn ir(&self, py: Python<'_>) -> &Option<Vec<planc::ir::PlanIr>> {
        self.ir.get_or_init(|| py.detach(|| self.inner.ir()))
    }
}

#[pymethods]
impl Checked {
    /// The plan's diagnostics as the `--format json` document.
    fn diagnostics_json(&self, py: Python<'_>) -> String {
        py.detach(|| render::json(&self.inner.sources, &self.inner.diagnostics))
    }

    /// The numbers of errors and warnings, as the document counts them.
    fn counts(&self) -> (usize, usize) {
        planc::diagnostics::counts(&self.inner.diagnostics)
    }

    /// Whether nothing (the plan, the catalogue, the policy) has an error.
    fn ok(&self, py: Python<'_>) -> bool {
        self.ir(py).is_some()
    }

    /// The IR of the plan, when it compiled; several plans in one text
    /// are an error here, as for `planc compile`.
    fn ir_json(&self, py: Python<'_>) -> PyResult<Option<String>> {
        let Some(irs) = self.ir(py) else {
            return Ok(None);
        };
        match irs.as_slice() {
            // Compact: the text is only read back by `json.loads`.
            [ir] => py.detach(|| to_json(ir)).map(Some),
            [] => Err(value_error("the text declares no plan")),
            _ => Err(value_error(format!(
                "the text declares {} plans; check one at a time",
                irs.len()
            ))),
        }
    }

    /// The diagnostics rendered as `human` (no colour), `short` or `json`.
    fn render(&self, py: Python<'_>, format: &str) -> PyResult<String> {
        let (sources, diags) = (&self.inner.sources, &self.inner.diagnostics);
        match format {
            "human" => Ok(py.detach(|| {
                let mut s = render::human(sources, diags, false);
                if !diags.is_empty() {
                    s.push_str(&render::summary(diags));
                    s.push('\n');
                }
                s
            })),
            "short" => Ok(py.detach(|| render::short(sources, diags))),
            "json" => Ok(py.detach(|| render::json(sources, diags))),
            other => Err(value_error(format!(
                "format `{other}`: use \"human\", \"short\" or \"json\""
            ))),
        }
    }
}

/// `planc diff`: the delta between two IRs, with the record when given.
#[pyfunction]
#[pyo3(signature = (old, new, progress=None))]
fn diff(py: Python<'_>, old: &str, new: &str, progress: Option<&str>) -> PyResult<String> {
    let old = read_ir(old)?;
    let new = read_ir(new)?;
    let record = progress.map(read_record).transpose()?;
    let d = py.detach(|| planc::progress::diff(&old, &new, record.as_ref()));
    planc::ir::to_json(&d).map_err(PyRuntimeError::new_err)
}

/// `planc invalidate`: what an event invalidates.
#[pyfunction]
fn invalidate(py: Python<'_>, ir: &str, progress: &str, event: &str) -> PyResult<String> {
    let ir = read_ir(ir)?;
    let record = read_record(progress)?;
    let event = planc::progress::Event::parse(event).map_err(value_error)?;
    let inv = py
        .detach(|| planc::progress::invalidate(&ir, &record, &event))
        .map_err(|e| value_error(e.to_string()))?;
    planc::ir::to_json(&inv).map_err(PyRuntimeError::new_err)
}

/// The executor's state machine (`planc::exec::Machine`). It does no IO:
/// the Python driver makes the calls and writes the record and the trace.
#[pyclass(module = "planc._planc")]
struct Machine {
    inner: Core,
}

/// Recorded tool responses (`fixture:FILE`), read and matched by the
/// library's backend, as `planc run` reads them: arguments compared as
/// exact JSON values, numbers by value (`planc.fixture.Recorded`).
#[pyclass(frozen, module = "planc._planc")]
struct Fixture {
    inner: planc::exec::fixture::Fixture,
}

#[pymethods]
impl Fixture {
    /// Reads a fixture file's text; every problem, with its line, column
    /// and pointer, in one `ValueError`.
    #[new]
    fn new(text: &str) -> PyResult<Fixture> {
        planc::exec::fixture::Fixture::parse(text)
            .map(|inner| Fixture { inner })
            .map_err(|errors| {
                let lines: Vec<String> = errors.iter().map(ToString::to_string).collect();
                value_error(format!("the fixture is malformed:\n{}", lines.join("\n")))
            })
    }

    /// The tools the file has entries for, sorted.
    fn tools(&self) -> Vec<String> {
        self.inner.tools()
    }

    /// The answer to a call of `tool` with the arguments' JSON text:
    /// `(True, result_json, "", False)`, or `(False, code, message,
    /// retryable)` for a recorded error or `fixture_exhausted`.
    fn answer(&self, tool: &str, args: &str) -> PyResult<(bool, String, String, bool)> {
        let args = Data::parse_text(args).map_err(value_error)?;
        Ok(match self.inner.answer(tool, &args) {
            Ok(result) => (true, result.to_json_string(), String::new(), false),
            Err(e) => (false, e.code, e.message, e.retryable),
        })
    }
}

/// A call due, as JSON text, written by the library's value writer:
/// numbers keep their digits (a `serde_json::Value` would round a decimal
/// to the nearest `f64`).
fn dispatch_json(d: &Dispatch) -> String {
    Data::object([
        ("step", Data::String(d.step.clone())),
        ("index", Data::number(&d.index.to_string())),
        ("tool", Data::String(d.tool.clone())),
        ("args", Data::Object(d.args.clone())),
        ("attempt", Data::number(&d.attempt.to_string())),
        (
            "idempotency_key",
            d.idempotency_key.clone().map_or(Data::Null, Data::String),
        ),
    ])
    .to_json_string()
}

#[pymethods]
impl Machine {
    #[new]
    #[pyo3(signature = (ir, approved, progress=None, record_key=None))]
    fn new(
        py: Python<'_>,
        ir: &str,
        approved: Vec<String>,
        progress: Option<&str>,
        record_key: Option<&[u8]>,
    ) -> PyResult<Machine> {
        let ir = read_ir(ir)?;
        let steps = ir.steps_by_name();
        for name in &approved {
            if !steps.contains_key(name.as_str()) {
                return Err(value_error(format!(
                    "approve `{name}`: the plan has no step `{name}`"
                )));
            }
        }
        let record = progress
            .map(|text| read_record_keyed(text, record_key))
            .transpose()?;
        let approved: BTreeSet<String> = approved.into_iter().collect();
        // The record does not fit the plan: the caller's input is wrong,
        // or the plan is a replan over the budget.
        let inner = Core::new(Arc::new(ir), &approved, record.as_ref())
            .map_err(|e| machine_error(py, e))?;
        Ok(Machine { inner })
    }

    /// A person's decision that a write the earlier record left with an
    /// unknown outcome did not commit: it is dispatched again, with the
    /// same idempotency key. Before the first `next`.
    fn redispatch(&mut self, step: &str) -> PyResult<()> {
        self.inner.redispatch(step).map_err(value_error)
    }

    /// The steps that need approval.
    fn approvals(&self) -> Vec<String> {
        self.inner
            .ir()
            .approvals
            .iter()
            .map(|s| s.to_string())
            .collect()
    }

    /// The calls due now, as JSON objects `{step, tool, args, attempt}`.
    fn next(&mut self, together: bool) -> PyResult<Vec<String>> {
        let calls = self
            .inner
            .next(together)
            .map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
        Ok(calls.iter().map(dispatch_json).collect())
    }

    /// A call's result (JSON text).
    fn complete_ok(&mut self, step: &str, result: &str) -> PyResult<Option<String>> {
        let data = Data::parse_text(result)
            .map_err(|e| value_error(format!("the result of step `{step}` is not JSON: {e}")))?;
        self.complete(step, Ok(data))
    }

    /// A call's failure.
    fn complete_error(
        &mut self,
        step: &str,
        code: String,
        message: String,
        retryable: bool,
    ) -> PyResult<Option<String>> {
        self.complete(
            step,
            Err(ToolError {
                code,
                message,
                retryable,
            }),
        )
    }

    /// The records and events since the last call: `["progress", JSON]` or
    /// `["trace", JSON]`, in order.
    fn drain(&mut self) -> PyResult<Vec<(&'static str, String)>> {
        self.inner
            .drain()
            .into_iter()
            .map(|out| match out {
                Output::Progress(record) => Ok(("progress", to_json_pretty(&record)?)),
                Output::Trace(event) => Ok(("trace", event.to_json_string())),
            })
            .collect()
    }

    /// `(exit status, reason, step)` once the run is over, else `None`.
    fn finished(&self) -> Option<(u8, &'static str, Option<String>)> {
        self.inner
            .finished()
            .map(|s| (s.exit_status(), s.reason(), s.step().map(str::to_string)))
    }

    /// The progress record now (JSON).
    fn record(&self) -> PyResult<String> {
        to_json(&self.inner.record())
    }

    /// Steps complete in the earlier record and not dispatched again.
    fn reused(&self) -> Vec<String> {
        self.inner.reused().to_vec()
    }

    /// Steps dispatched whose result has not been given.
    fn in_flight(&self) -> Vec<String> {
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
    ) -> PyResult<Option<String>> {
        let retry = self
            .inner
            .complete(step, result)
            .map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
        Ok(retry.as_ref().map(dispatch_json))
    }
}

/// What is wrong with an IR against the compiler's catalogue, policy and
/// actor (`planc::exec::verify`: the fingerprint recomputed, the
/// invariants checked); empty when it may run. The catalogue's or policy's
/// own errors are a `ValueError`.
#[pyfunction]
fn verify(py: Python<'_>, compiler: &Compiler, ir: &str) -> PyResult<Vec<String>> {
    let ir = read_ir(ir)?;
    if compiler.inner.diagnostics().iter().any(|d| d.is_error()) {
        return Err(value_error(
            "the catalogue or the policy has errors: no IR is verified against them",
        ));
    }
    Ok(py.detach(|| planc::exec::verify(&ir, compiler.inner.models())))
}

#[pymodule]
#[pyo3(name = "_planc")]
fn planc_module(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Compiler>()?;
    m.add_class::<Checked>()?;
    m.add_class::<Machine>()?;
    m.add_class::<Fixture>()?;
    m.add(
        "ReplanBudgetExceeded",
        m.py().get_type::<ReplanBudgetExceeded>(),
    )?;
    m.add_function(wrap_pyfunction!(diff, m)?)?;
    m.add_function(wrap_pyfunction!(invalidate, m)?)?;
    m.add_function(wrap_pyfunction!(verify, m)?)?;
    m.add_function(wrap_pyfunction!(seal_record, m)?)?;
    temporal_support::register(m)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("IR_VERSION", planc::ir::IR_VERSION)?;
    m.add("MACHINE_VERSION", planc::exec::MACHINE_VERSION)?;
    // How the extension was built: a debug build (`maturin develop`
    // without `--release`) is several times slower, which benchmarks say
    // rather than compare (`benches/goals.py`).
    m.add(
        "BUILD_PROFILE",
        if cfg!(debug_assertions) {
            "debug"
        } else {
            "release"
        },
    )?;
    Ok(())
}
