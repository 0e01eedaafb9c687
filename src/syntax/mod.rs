//! The front ends: text (logos lexer, chumsky parser) and JSON, both
//! producing the syntax tree of [`ast`].

pub mod ast;
pub mod json;
pub mod json_catalog;
pub mod json_plan;
pub mod json_policy;

// ---------------------------------------------------------------- JSON front end
// Each entry point parses a JSON document, reads one shape into the syntax
// tree, and returns the tree, the diagnostics and the RFC 6901 pointer table
// to record with `SourceFile::set_pointers`. None fails.

/// A plan in the JSON form of DESIGN.md §3, as a module with one plan.
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
