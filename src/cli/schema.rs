//! `planc schema`: the plan schema specialised to a catalogue and policy.

use std::io::Write;
use std::process::ExitCode;

use planc::driver;

use super::Failure;
use super::args::{Options, SchemaDialect, Wrap};
use super::load::{Replans, load};
use super::report::report;

/// `planc schema`: loads the catalogue and policy as `check` does (from
/// the flags, else the `planc.toml` found from the current folder), and
/// prints the specialised schema. Problems in the catalogue or policy are
/// reported and no schema is printed (status 1).
pub fn schema(
    options: &Options,
    dialect: SchemaDialect,
    wrap: Option<Wrap>,
) -> Result<ExitCode, Failure> {
    use planc::plan_schema::{self, Dialect};
    let mut job = load(&[], &options.inputs, Replans::No)?;
    if job.catalog.is_empty() {
        return Err(Failure(
            "no catalogue: pass `--catalog FILE` or name one in `planc.toml`".into(),
        ));
    }
    let outcome = driver::run(&mut job);
    if outcome.has_errors() {
        report(&job, &outcome.diagnostics, options, false)?;
        return Ok(ExitCode::from(1));
    }
    let dialect = match dialect {
        SchemaDialect::JsonSchema => Dialect::JsonSchema,
        SchemaDialect::Openai => Dialect::OpenAi,
        SchemaDialect::Anthropic => Dialect::Anthropic,
    };
    let checked = &outcome.checked;
    let schema = plan_schema::plan_schema(
        &checked.catalog,
        checked.policy.as_ref(),
        &checked.actor,
        dialect,
    )
    .map_err(Failure)?;
    let out = match wrap {
        Some(Wrap::Tool) => plan_schema::submit_plan_tool(schema, dialect),
        None => schema,
    };
    let mut text = serde_json::to_string_pretty(&out)
        .map_err(|e| Failure(format!("cannot write the schema: {e}")))?;
    text.push('\n');
    std::io::stdout()
        .write_all(text.as_bytes())
        .map_err(|e| Failure(format!("cannot write the schema: {e}")))?;
    Ok(ExitCode::SUCCESS)
}
