//! `planc fmt`: the text form laid out one way, and conversion between the
//! text and JSON forms.
//!
//! - [`layout`] re-lays a `.plan` file: indentation, spacing, line breaks
//!   between declarations, steps, clauses and policy items. It changes only
//!   whitespace, keeps every comment, and checks that it did: the tokens and
//!   comments of its output are those of its input, or it refuses.
//! - [`convert`] writes a syntax tree in the other form (`--to json|plan`).

pub mod convert;
pub mod layout;
