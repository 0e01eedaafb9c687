//! One fact in one place: the text and JSON front ends read the same
//! language. Each rule of the lexicon (identifiers, scopes, `on_unmet`
//! words, calendar dates and times, string escapes) is fed, as a table of
//! inputs, through both forms, and both must give the same verdict (and,
//! when they accept, the same IR).

// Test helpers outside `#[test]` functions fail the test by panicking
// and indexing.
#![allow(clippy::panic, clippy::indexing_slicing)]

#[path = "support/formless.rs"]
mod formless;

use formless::formless;
use planc::compiler::{Checked, Compiler};
use planc::source::SourceKind;
use planc::syntax::lexicon;

const TOOLS: &str = r#"
tool t.get(s: string = "", d: date?, at: datetime?) -> {
    id: string,
    items: [{ v: int, w: string }],
} read idempotent
tool t.put(s: string) -> { ok: bool } write idempotent
"#;

const POLICY: &str =
    "policy p {\n    actor [a:b]\n    t.get requires [a:b]\n    t.put requires [a:b]\n}\n";

fn compiler() -> Compiler {
    let c = Compiler::new(
        &[("tools.plan", TOOLS)],
        Some(("policy.plan", POLICY)),
        None,
    );
    assert!(c.diagnostics().is_empty(), "{:?}", c.diagnostics());
    c
}

fn check_text(c: &Compiler, text: &str) -> Checked {
    c.check("plan.plan", text, SourceKind::Text)
}

fn check_json(c: &Compiler, json: &serde_json::Value) -> Checked {
    c.check("plan.json", &json.to_string(), SourceKind::Json)
}

/// The codes of the errors, for messages.
fn errors(c: &Checked) -> Vec<String> {
    c.diagnostics
        .iter()
        .filter(|d| d.severity == planc::Severity::Error)
        .map(|d| format!("{} {}", d.code.as_str(), d.message))
        .collect()
}

/// Both forms of one plan: the same verdict, and the same IR when both
/// accept (apart from the form each came from).
fn agree(case: &str, text: &str, json: &serde_json::Value) -> bool {
    let c = compiler();
    let (t, j) = (check_text(&c, text), check_json(&c, json));
    let (te, je) = (errors(&t), errors(&j));
    assert_eq!(
        te.is_empty(),
        je.is_empty(),
        "{case}: the text and JSON forms disagree\ntext: {te:?}\n{text}\njson: {je:?}\n{json}"
    );
    if let (Some(ti), Some(ji)) = (&t.ir, &j.ir) {
        let strip = |irs: &Vec<planc::ir::PlanIr>| {
            irs.iter()
                .cloned()
                .map(|ir| serde_json::to_value(formless(ir)).unwrap_or_default())
                .collect::<Vec<_>>()
        };
        assert_eq!(strip(ti), strip(ji), "{case}: the IRs differ");
    }
    te.is_empty()
}

/// A one-step plan calling `t.get` with `args` (text) / `jargs` (JSON).
fn one_step(text_args: &str, json_args: serde_json::Value) -> (String, serde_json::Value) {
    (
        format!(
            "plan p \"g\" {{\n    step a = t.get({text_args}) {{\n        post exists($.id)\n    }}\n}}\n"
        ),
        serde_json::json!({"name": "p", "goal": "g", "steps": [
            {"name": "a", "tool": "t.get", "args": json_args,
             "post": {"probe": "field_exists", "path": "$.id"}}]}),
    )
}

#[test]
fn identifiers_are_the_same_in_both_forms() {
    let table = [
        ("a", true),
        ("_a", true),
        ("a1_B", true),
        ("step", true),
        ("plan", true),
        ("where", true),
        ("true", false),
        ("null", false),
        ("1a", false),
        ("a-b", false),
        ("é", false),
        ("a b", false),
        ("", false),
    ];
    for (name, ok) in table {
        // A step and a binding named `name`, the binding used by a later step.
        let text = format!(
            "plan p \"g\" {{\n    step {name} = t.get() {{\n        post exists($.id)\n        bind {name} = $.id\n    }}\n    step b = t.put(s: {name}) {{\n        post exists($.ok)\n    }}\n}}\n"
        );
        let json = serde_json::json!({"name": "p", "goal": "g", "steps": [
            {"name": name, "tool": "t.get", "args": {},
             "post": {"probe": "field_exists", "path": "$.id"}, "binds": {name: "$.id"}},
            {"name": "b", "tool": "t.put", "args": {"s": format!("${{{name}}}")},
             "post": {"probe": "field_exists", "path": "$.ok"}}]});
        assert_eq!(
            agree(&format!("name `{name}`"), &text, &json),
            ok,
            "name `{name}`"
        );
        // A binding's name is an identifier that is not a value word.
        let bindable = lexicon::is_ident(name) && !lexicon::VALUE_WORDS.contains(&name);
        assert_eq!(bindable, ok, "is_ident(`{name}`)");
    }
}

#[test]
fn scopes_are_the_same_in_both_forms() {
    let table = [
        ("admin", true),
        ("crm:read", true),
        ("crm:*", true),
        ("a:b.c-d+e", true),
        ("a:b:c", true),
        ("a:", false),
        ("1a:b", false),
        ("a:b c", false),
        ("a:b/c", false),
    ];
    let plan = "plan p \"g\" {\n    step a = t.get() {\n        post exists($.id)\n    }\n}\n";
    for (scope, ok) in table {
        let text = format!("policy p {{\n    actor [{scope}]\n    t.get requires [{scope}]\n}}\n");
        let json = serde_json::json!({"name": "p", "actor": {"scopes": [scope]},
            "tools": {"t.get": {"scopes": [scope]}}})
        .to_string();
        let verdict = |policy: (&str, &str)| {
            let c = Compiler::new(&[("tools.plan", TOOLS)], Some(policy), None);
            let checked = c.check("plan.plan", plan, SourceKind::Text);
            let mut all: Vec<String> = errors(&checked);
            all.extend(
                c.diagnostics()
                    .iter()
                    .filter(|d| d.severity == planc::Severity::Error)
                    .map(|d| format!("{} {}", d.code.as_str(), d.message)),
            );
            all
        };
        let (t, j) = (
            verdict(("policy.plan", &text)),
            verdict(("policy.json", &json)),
        );
        assert_eq!(
            t.is_empty(),
            j.is_empty(),
            "scope `{scope}`: text {t:?}, json {j:?}"
        );
        assert_eq!(t.is_empty(), ok, "scope `{scope}`: {t:?}");
        assert_eq!(lexicon::is_scope(scope), ok, "is_scope(`{scope}`)");
    }
}

#[test]
fn keyword_lists_are_the_json_forms_words() {
    use planc::syntax::ast::OnUnmet;
    for w in lexicon::ON_UNMET {
        assert_eq!(OnUnmet::from_name(w).map(OnUnmet::as_str), Some(w));
        let (text, mut json) = one_step("", serde_json::json!({}));
        let text = text.replace(
            "post exists($.id)",
            &format!("post exists($.id)\n        on_unmet {w}"),
        );
        json["steps"][0]["on_unmet"] = serde_json::json!(w);
        assert!(agree(&format!("on_unmet {w}"), &text, &json));
    }
}

#[test]
fn calendar_rules_are_the_same_in_both_forms() {
    let dates = [
        ("2026-03-04", true),
        ("2024-02-29", true),
        ("2000-02-29", true),
        ("2026-02-29", false),
        ("2100-02-29", false),
        ("2026-04-31", false),
        ("2026-13-01", false),
        ("2026-00-10", false),
        ("2026-01-00", false),
    ];
    for (d, ok) in dates {
        let (text, json) = one_step(&format!("d: {d}"), serde_json::json!({"d": d}));
        assert_eq!(
            agree(&format!("date `{d}`"), &text, &json),
            ok,
            "date `{d}`"
        );
    }
    let datetimes = [
        ("2026-03-04T10:00:00Z", true),
        ("2026-03-04t10:00:00z", true),
        ("2026-03-04T10:00:00.250+01:00", true),
        ("2026-03-04T10:00:00.123456789000Z", true),
        ("2026-03-04T10:00:00.1234567891Z", false),
        ("2016-12-31T23:59:60Z", true),
        ("2026-06-30T23:59:60Z", true),
        ("2016-12-31T18:59:60-05:00", true),
        ("2017-01-01T00:59:60+01:00", true),
        ("2026-06-30T23:58:60Z", false),
        ("2026-06-30T22:59:60Z", false),
        ("2026-06-30T23:59:60+01:00", false),
        ("2026-06-30T23:59:61Z", false),
        ("2026-03-04T24:00:00Z", false),
        ("2026-03-04T10:60:00Z", false),
        ("2026-03-04T10:00:00+24:00", false),
        ("2026-03-04T10:00:00+01:60", false),
        ("2026-02-29T10:00:00Z", false),
    ];
    for (at, ok) in datetimes {
        let (text, json) = one_step(&format!("at: {at}"), serde_json::json!({"at": at}));
        assert_eq!(
            agree(&format!("datetime `{at}`"), &text, &json),
            ok,
            "datetime `{at}`"
        );
    }
}

#[test]
fn string_escapes_are_the_same_in_both_forms() {
    use planc::syntax::json_plan::escape_interp;
    use planc::syntax::literal::escape_text;
    let table = [
        "plain",
        "",
        "a \"quoted\" word",
        "back\\slash",
        "line\nbreak",
        "tab\tand\rreturn",
        "nul\0byte",
        "${x} is not a reference",
        "$${x}",
        "$",
        "{}",
        "é 😀",
        "\u{7f}\u{1}\u{1b}",
        "\u{2028}\u{2029}",
    ];
    for s in table {
        let mut spelt = String::new();
        escape_text(s, &mut spelt);
        let (text, json) = one_step(
            &format!("s: \"{spelt}\""),
            serde_json::json!({"s": escape_interp(s)}),
        );
        assert!(
            agree(&format!("string {s:?}"), &text, &json),
            "string {s:?}"
        );
        let c = compiler();
        let ir = check_text(&c, &text).ir.unwrap_or_default();
        let arg =
            serde_json::to_value(&ir).unwrap_or_default()[0]["steps"][0]["args"]["s"]["value"]
                .clone();
        assert_eq!(arg, serde_json::json!(s), "string {s:?} as {spelt}");
    }
}
