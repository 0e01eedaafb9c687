//! Conversion between the text and JSON forms (`planc fmt --to`): not written yet.
