//! The sizes of the checked model's most numerous types: a plan of
//! 100,000 steps holds one `CheckedArg` per argument and one `TypedValue`
//! per value, so a few bytes here are megabytes there (docs/performance.md,
//! "Where the memory goes"). A change that grows one fails here, on
//! purpose: grow the bound only with the reason in the commit.

use std::mem::size_of;

use super::model::{
    Binding, CheckedArg, CheckedStep, Dependency, InterpPiece, RefValue, TypedValue, ValueKind,
};
use planc_lang::catalog::{Ty, Value};

#[test]
fn the_model_stays_small() {
    let sizes = [
        ("Ty", size_of::<Ty>(), 24),
        ("Value", size_of::<Value>(), 24),
        ("ValueKind", size_of::<ValueKind>(), 32),
        ("TypedValue", size_of::<TypedValue>(), 72),
        ("InterpPiece", size_of::<InterpPiece>(), 104),
        ("RefValue", size_of::<RefValue>(), 80),
        ("Dependency", size_of::<Dependency>(), 24),
        ("CheckedArg", size_of::<CheckedArg>(), 152),
        ("Binding", size_of::<Binding>(), 128),
        ("CheckedStep", size_of::<CheckedStep>(), 376),
    ];
    let over: Vec<String> = sizes
        .iter()
        .filter(|(_, got, bound)| got > bound)
        .map(|(name, got, bound)| format!("{name}: {got} bytes, bound {bound}"))
        .collect();
    for (name, got, _) in &sizes {
        eprintln!("{name}: {got}");
    }
    assert!(over.is_empty(), "{over:?}");
}
