//! The front ends: text (logos lexer, chumsky parser) and JSON, both
//! producing the syntax tree of [`ast`].

pub mod ast;
pub mod json;
pub mod json_catalog;
pub mod json_plan;
pub mod json_policy;
pub mod lexer;
pub mod literal;
pub mod parser;

use crate::diagnostics::{self, Code, Diagnostic};
use crate::limits;
use crate::source::{FileId, Span};

/// Parses a `.plan` text. Never fails: what cannot be read becomes an error
/// node of the tree and a diagnostic (E0001 syntax, E0002 literal, E0003
/// limit). The diagnostics are sorted by position. Input longer than
/// [`limits::MAX_INPUT_BYTES`] is not read at all: one E0003 and an empty
/// module.
pub fn parse_text(file: FileId, text: &str) -> (ast::Module, Vec<Diagnostic>) {
    parse_text_with(file, text, parser::Strategy::FastThenRich)
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
            d.step = Some((*name).to_string());
        }
    }
}

// ---------------------------------------------------------------- JSON front end
// Each entry point parses a JSON document, reads one shape into the syntax
// tree, and returns the tree, the diagnostics and the RFC 6901 pointer table
// to record with `SourceFile::set_pointers`. None fails.

/// A plan in the JSON form of `docs/json.md`, as a module with one plan.
pub fn read_json_plan(file: crate::FileId, text: &str) -> json::JsonRead {
    json::read_with(file, text, json_plan::read_plan)
}

/// A tool catalogue: an MCP `tools/list` result (or the JSON-RPC response
/// holding one), or OpenAI function tools, as a module of tools.
pub fn read_json_catalog(file: crate::FileId, text: &str) -> json::JsonRead {
    json::read_with(file, text, json_catalog::read_catalog)
}

/// A policy, `{"actor": {"scopes": […]}, "tools": {…}, "max_steps": N}`,
/// as a module with one policy.
pub fn read_json_policy(file: crate::FileId, text: &str) -> json::JsonRead {
    json::read_with(file, text, json_policy::read_policy)
}

/// A plan, a catalogue or a policy, told apart by their keys (see
/// [`json::detect`]); E0004 when the document is none of them.
pub fn read_json_document(file: crate::FileId, text: &str) -> json::JsonRead {
    json::read_with(file, text, json::read_any)
}
