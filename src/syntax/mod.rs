//! The front ends: text (logos lexer, chumsky parser) and JSON, both
//! producing the syntax tree of [`ast`].

pub mod ast;
pub mod json;
