//! The text front end at library level: recovery, hostile input, and the
//! syntax fixtures under `tests/ui/syntax`.

use planc::syntax::{ast, parse_text};
use planc::{Code, Diagnostic, FileId};

fn parse(text: &str) -> (ast::Module, Vec<Diagnostic>) {
    parse_text(FileId(0), text)
}

#[test]
fn dump() {
    let path = std::env::var("PLANC_DUMP").unwrap_or_default();
    if path.is_empty() {
        return;
    }
    let text = std::fs::read_to_string(&path).unwrap();
    let (m, d) = parse(&text);
    println!("{m:#?}");
    for d in &d {
        println!(
            "{} {:?} {} | {} | step={:?}",
            d.code, d.span, d.message, d.label, d.step
        );
    }
    let _ = Code::E0001;
}
