//! The front ends: text (logos lexer, chumsky parser) and JSON, both
//! producing the syntax tree of [`ast`].

pub mod incremental;
pub mod json;
pub mod json_catalog;
pub mod json_plan;
pub mod json_policy;
pub mod json_reader;
pub mod lenient;
pub mod lexer;
pub mod lexicon;
pub mod literal;
pub mod parser;
pub mod path;
mod room;
pub mod stepwise;
#[cfg(test)]
pub(crate) mod test_texts;

pub use crate::ast;

use crate::diagnostics::{self, Code, Diagnostic};
use crate::limits;
use crate::source::{FileId, Span};
pub(crate) use room::room_for;

/// Parses a `.plan` text. Never fails: what cannot be read becomes an error
/// node of the tree and a diagnostic (E0001 syntax, E0002 literal, E0003
/// limit). The diagnostics are sorted by position. Input longer than
/// [`limits::MAX_INPUT_BYTES`] is not read at all: one E0003 and an empty
/// module. A text without a problem is read step by step
/// ([`stepwise`]), one with a problem whole.
pub fn parse_text(file: FileId, text: &str) -> (ast::Module, Vec<Diagnostic>) {
    parse_text_with(file, text, parser::Strategy::FastThenRich)
}

/// The tree of a `.plan` text with each step cut down to its skeleton
/// ([`ast::Step::skeleton`]: its name, tool, binds and span), read step by
/// step ([`stepwise`]) so that no step's whole tree outlives its batch;
/// each step is read whole again, when it is checked, from its span
/// ([`incremental::read_steps_at`]). `None` when the text is not one a
/// step-by-step reading takes (anything to report, too large): parse it
/// with [`parse_text`]. For a check that wants the diagnostics only
/// (`docs/performance.md`, "Where the memory goes").
pub fn parse_text_skeletal(file: FileId, text: &str) -> Option<ast::Module> {
    if text.len() > limits::MAX_INPUT_BYTES {
        return None;
    }
    stepwise::parse_keeping(file, text, true)
}

/// [`parse_text`] with a chosen parsing strategy (for benchmarks and tests).
pub fn parse_text_with(
    file: FileId,
    text: &str,
    strategy: parser::Strategy,
) -> (ast::Module, Vec<Diagnostic>) {
    if text.len() > limits::MAX_INPUT_BYTES {
        let d = Diagnostic::new(
            Code::E0003,
            Span::new(file, 0, 0),
            format!(
                "input is too large: {} bytes, the limit is {} bytes",
                text.len(),
                limits::MAX_INPUT_BYTES
            ),
        )
        .with_label("the file starts here");
        return (ast::Module::default(), vec![d]);
    }
    if strategy == parser::Strategy::FastThenRich
        && let Some(module) = stepwise::parse(file, text)
    {
        return (module, Vec::new());
    }
    let lexed = lexer::lex(file, text);
    let parsed = parser::parse(file, &lexed.tokens, &lexed.quiet, text.len(), strategy);
    let mut diags = lexed.diagnostics;
    diags.extend(parsed.diagnostics);
    name_steps(&parsed.module, &mut diags);
    diagnostics::sort(&mut diags);
    (parsed.module, diags)
}

/// Sets the step of each diagnostic that lies inside a step. An error at a
/// step's first token is not the step's own: the step was read from there,
/// so the error is about what came before.
fn name_steps(module: &ast::Module, diags: &mut [Diagnostic]) {
    let mut steps: Vec<(Span, &str)> = module
        .plans()
        .flat_map(|p| p.steps.iter().map(|s| (s.span, s.name.node.as_str())))
        .collect();
    if steps.is_empty() {
        return;
    }
    steps.sort_by_key(|(s, _)| s.start);
    for d in diags.iter_mut() {
        let upto = steps.partition_point(|(s, _)| s.start < d.span.start);
        if let Some((span, name)) = upto.checked_sub(1).and_then(|i| steps.get(i))
            && span.contains(d.span)
        {
            d.step = Some((*name).into());
        }
    }
}

// ---------------------------------------------------------------- JSON front end
// Each entry point parses a JSON document, reads one shape into the syntax
// tree, and returns the tree and the diagnostics. None fails. The RFC 6901
// pointers of the diagnostics are spelt by `SourceFile::pointer_at`, from
// the text, only when a renderer asks for one.

/// A plan in the JSON form of `docs/json.md`, as a module with one plan.
/// Its steps are read one at a time as the parser reaches them, so the
/// value tree of the whole plan is never in memory.
pub fn read_json_plan(file: crate::FileId, text: &str) -> JsonRead {
    read_plan_or(file, text, |_| false, json_plan::read_plan)
}

/// A document given as a plan, read as [`read_json_plan`] reads one,
/// unless `other_shape` says its root is another shape: then `other`
/// reads it from its whole tree (parsed again when its `steps` were
/// streamed, which only a document with `steps` that is no plan has).
pub fn read_plan_or(
    file: FileId,
    text: &str,
    other_shape: impl Fn(&json::Json<'_>) -> bool,
    other: impl FnOnce(&str, &json::Json<'_>) -> (ast::Module, Vec<Diagnostic>),
) -> JsonRead {
    let (steps, root) = match stream_steps(file, text, false) {
        Ok(read) => read,
        Err(d) => return unparsed(file, text, *d),
    };
    let (module, mut diags) = if !other_shape(&root) {
        steps.finish(&root)
    } else if steps.streamed {
        drop(root);
        return read_with(file, text, other);
    } else {
        other(text, &root)
    };
    diagnostics::sort(&mut diags);
    (module, diags)
}

/// A tool catalogue: an MCP `tools/list` result (or the JSON-RPC response
/// holding one), or OpenAI function tools, as a module of tools.
pub fn read_json_catalog(file: crate::FileId, text: &str) -> JsonRead {
    read_with(file, text, json_catalog::read_catalog)
}

/// A policy, `{"actor": {"scopes": […]}, "tools": {…}, "max_steps": N}`,
/// as a module with one policy.
pub fn read_json_policy(file: crate::FileId, text: &str) -> JsonRead {
    read_with(file, text, json_policy::read_policy)
}

/// A JSON plan read as [`read_json_plan`] reads it, each step cut down to
/// its skeleton as soon as it is read ([`ast::Step::skeleton`]), and read
/// whole again from its span when it is checked
/// ([`json_plan::read_step_again`]); `None` when reading it reports
/// anything (read it with [`read_json_plan`]). For a check that wants the
/// diagnostics only (`docs/performance.md`, "Where the memory goes").
pub fn read_json_plan_skeletal(file: FileId, text: &str) -> Option<ast::Module> {
    let (steps, root) = stream_steps(file, text, true).ok()?;
    let (module, diags) = steps.finish(&root);
    diags.is_empty().then_some(module)
}

/// Parses a JSON document, its `steps` read one at a time as the parser
/// reaches them (each cut to its skeleton when `skeletal`): the steps
/// read, to finish the plan with, and the root.
fn stream_steps(
    file: FileId,
    text: &str,
    skeletal: bool,
) -> Result<(json_plan::Steps<'_>, json::Json<'_>), Box<Diagnostic>> {
    let mut steps = json_plan::Steps::new(text);
    steps.skeletal = skeletal;
    let mut read = |item: json::Json<'_>| steps.read(&item);
    let mut stream = json::Stream {
        key: "steps",
        each: &mut read,
        streamed: false,
    };
    let root = json::parse_streaming(file, text, &mut stream)?;
    let streamed = stream.streamed;
    steps.streamed = streamed;
    Ok((steps, root))
}

/// A plan, a catalogue or a policy, told apart by their keys (see
/// [`detect`]); E0004 when the document is none of them.
pub fn read_json_document(file: crate::FileId, text: &str) -> JsonRead {
    read_with(file, text, read_any)
}

/// What the JSON front end's entry points return: the tree and the
/// diagnostics.
pub type JsonRead = (ast::Module, Vec<Diagnostic>);

/// Parses `text` and reads the document with `read`, its diagnostics sorted
/// by position; a document that does not parse is one `ast::Item::Error` and its
/// diagnostic.
pub fn read_with(
    file: FileId,
    text: &str,
    read: impl FnOnce(&str, &json::Json<'_>) -> (ast::Module, Vec<Diagnostic>),
) -> JsonRead {
    match json::parse(file, text) {
        Ok(root) => {
            let (module, mut diags) = read(text, &root);
            diagnostics::sort(&mut diags);
            (module, diags)
        }
        Err(d) => unparsed(file, text, *d),
    }
}

/// A document that does not parse: one `ast::Item::Error` and its
/// diagnostic.
fn unparsed(file: FileId, text: &str, d: Diagnostic) -> JsonRead {
    let span = Span::new(file, 0, text.len());
    let module = ast::Module {
        items: vec![ast::Item::Error(span)],
    };
    (module, vec![d])
}

/// Which of the three JSON documents a value is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    Plan,
    Catalog,
    Policy,
    /// A progress record (`progress_version`), read by `crate::progress`.
    Progress,
}

/// Tells the documents apart by their keys: a plan has `steps`; a catalogue
/// is an array, or has `tools` as an array, or `result.tools`; a policy has
/// `tools` as an object, or `actor`.
pub fn detect(root: &json::Json<'_>) -> Option<Shape> {
    if root.as_array().is_some() {
        return Some(Shape::Catalog);
    }
    root.as_object()?;
    if root.get("progress_version").is_some() {
        return Some(Shape::Progress);
    }
    if root.get("steps").is_some() {
        return Some(Shape::Plan);
    }
    match root.get("tools") {
        Some(t) if t.as_array().is_some() => return Some(Shape::Catalog),
        Some(t) if t.as_object().is_some() => return Some(Shape::Policy),
        _ => {}
    }
    if root.get("result").and_then(|r| r.get("tools")).is_some() {
        return Some(Shape::Catalog);
    }
    root.get("actor").is_some().then_some(Shape::Policy)
}

/// Reads a document of whichever shape [`detect`] finds; E0004 for none.
pub fn read_any(text: &str, root: &json::Json<'_>) -> (ast::Module, Vec<Diagnostic>) {
    match detect(root) {
        Some(Shape::Plan) => json_plan::read_plan(text, root),
        Some(Shape::Catalog) => json_catalog::read_catalog(text, root),
        Some(Shape::Policy) => json_policy::read_policy(text, root),
        Some(Shape::Progress) | None => {
            let at = Span {
                end: root.span.start.saturating_add(1).min(root.span.end),
                ..root.span
            };
            let d = Diagnostic::new(Code::E0004, at, "not a plan, a tool catalogue or a policy")
                .with_label(format!("this is {}", root.kind_name()))
                .with_help(
                    "a plan has `steps`; a catalogue is an array of tools, or has `tools` as an \
                     array or `result.tools`; a policy has `actor`, or `tools` as an object",
                );
            let module = ast::Module {
                items: vec![ast::Item::Error(root.span)],
            };
            (module, vec![d])
        }
    }
}
