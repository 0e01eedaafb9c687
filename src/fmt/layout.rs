//! The text form's layout.
