//! The input limits of `crates/planc-lang/src/limits.rs`, swept at their boundaries: every
//! nesting construct of both front ends at `limits::MAX_DEPTH` (accepted,
//! and compiled through every stage) and one level past it (E0003 at the
//! bracket that crosses the limit); the input-size limit; the string
//! limit.
//!
//! Each compile runs on a thread with a 2 MiB stack in the debug build, so a
//! recursive pass that is too greedy at the deepest accepted input fails
//! here rather than on a user's machine.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use planc::diagnostics::render;
use planc::driver::{self, Job};
use planc::limits::{MAX_DEPTH, MAX_INPUT_BYTES, MAX_STRING_BYTES};
use planc::{Code, Diagnostic};

const TOOLS: &str = "tool t.op(a: any) -> { x: any, n: int } read idempotent\n";
const POLICY: &str = "policy p {\n    actor [s:r]\n    t.op requires [s:r]\n}\n";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    Plan,
    Catalog,
    Policy,
}

/// Runs `f` on a thread with a 2 MiB stack.
fn small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap()
}

/// Compiles `text` as a file named `name` in `role`, with the default
/// catalogue and policy filling the other roles; renders every format and
/// lowers when there are no errors. Returns the diagnostics of that file.
fn compile(name: &'static str, role: Role, text: String) -> Vec<Diagnostic> {
    compile_with(name, role, text, true)
}

/// [`compile`], rendering only when `render` (rendering a 64 MiB file in a
/// debug build takes a minute, and says nothing about its limits).
fn compile_with(name: &'static str, role: Role, text: String, rendered: bool) -> Vec<Diagnostic> {
    small_stack(move || {
        let mut job = Job::default();
        let id = job.sources.add(name, text);
        match role {
            Role::Plan => job.plans.push(id),
            Role::Catalog => job.catalog.push(id),
            Role::Policy => job.policy.push(id),
        }
        if role != Role::Catalog {
            let t = job.sources.add("tools.plan", TOOLS);
            job.catalog.push(t);
        }
        if role != Role::Policy {
            let p = job.sources.add("policy.plan", POLICY);
            job.policy.push(p);
        }
        let outcome = driver::run(&mut job);
        if rendered {
            let _ = render::human(&job.sources, &outcome.diagnostics, false);
            let _ = render::short(&job.sources, &outcome.diagnostics);
            let _ = render::json(&job.sources, &outcome.diagnostics);
            let _ = render::sarif(&job.sources, &outcome.diagnostics, &Default::default());
        }
        if !outcome.has_errors() {
            let irs = driver::lower(&job, &outcome).unwrap();
            for ir in &irs {
                planc::ir::to_json(ir).unwrap();
            }
        }
        outcome
            .diagnostics
            .into_iter()
            .filter(|d| d.span.file == id)
            .collect()
    })
}

/// One nesting construct: `prefix`, then `open` n times, `inner`, `close` n
/// times, then `suffix`.
struct Nest {
    what: &'static str,
    file: &'static str,
    role: Role,
    prefix: &'static str,
    open: &'static str,
    inner: &'static str,
    close: &'static str,
    suffix: &'static str,
    /// Whether the file compiles without any error at the deepest nesting
    /// allowed (else only E0003 is ruled out there: the construct takes no
    /// nested value, which is another error).
    clean: bool,
}

/// The deepest bracket nesting of a text (`(`, `[`, `{` outside string
/// literals), and the offset of the first bracket past `MAX_DEPTH`: an
/// oracle for the sweeps, independent of both front ends.
fn depth_scan(text: &str) -> (usize, Option<usize>) {
    let (mut depth, mut max, mut crossing) = (0usize, 0usize, None);
    let (mut in_string, mut escaped) = (false, false);
    for (i, c) in text.char_indices() {
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '(' | '[' | '{' => {
                depth += 1;
                max = max.max(depth);
                if depth == MAX_DEPTH + 1 && crossing.is_none() {
                    crossing = Some(i);
                }
            }
            ')' | ']' | '}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    (max, crossing)
}

impl Nest {
    fn text(&self, n: usize) -> String {
        let mut s = String::from(self.prefix);
        s.push_str(&self.open.repeat(n));
        s.push_str(self.inner);
        s.push_str(&self.close.repeat(n));
        s.push_str(self.suffix);
        s
    }

    fn sweep(&self) {
        // The most repetitions that stay within the limit; they must reach
        // it exactly, or the case does not test the boundary.
        let at = (0..=MAX_DEPTH)
            .take_while(|&n| depth_scan(&self.text(n)).0 <= MAX_DEPTH)
            .last()
            .unwrap();
        assert_eq!(
            depth_scan(&self.text(at)).0,
            MAX_DEPTH,
            "{}: the construct cannot reach the limit exactly",
            self.what
        );
        let text = self.text(at);
        let diags = compile(self.file, self.role, text.clone());
        if self.clean {
            assert!(
                !diags.iter().any(Diagnostic::is_error),
                "{}: at the limit, errors: {diags:#?}",
                self.what
            );
        } else {
            assert!(
                !diags.iter().any(|d| d.code == Code::E0003),
                "{}: E0003 at the limit: {diags:#?}",
                self.what
            );
            assert!(
                diags.iter().any(Diagnostic::is_error),
                "{}: expected the construct to reject a nested value",
                self.what
            );
        }

        let text = self.text(at + 1);
        let crossing = depth_scan(&text).1.unwrap();
        let diags = compile(self.file, self.role, text.clone());
        let too_deep: Vec<&Diagnostic> = diags.iter().filter(|d| d.code == Code::E0003).collect();
        assert_eq!(
            too_deep.len(),
            1,
            "{}: one past the limit, expected one E0003: {diags:#?}",
            self.what
        );
        assert_eq!(
            too_deep[0].span.start as usize,
            crossing,
            "{}: E0003 is not at the crossing bracket `{}`",
            self.what,
            &text[crossing..crossing + 1]
        );
    }
}

#[test]
fn text_nesting_is_capped_at_max_depth() {
    let cases = [
        Nest {
            what: "argument lists",
            file: "p.plan",
            role: Role::Plan,
            prefix: "plan p {\n    step s = t.op(a: ",
            open: "[",
            inner: "1",
            close: "]",
            suffix: ")\n}\n",
            clean: true,
        },
        Nest {
            what: "argument records",
            file: "p.plan",
            role: Role::Plan,
            prefix: "plan p {\n    step r = t.op(a: 1) { bind b = $.n }\n    step s = t.op(a: ",
            open: "{ k: ",
            inner: "\"v ${b}\"",
            close: " }",
            suffix: ")\n}\n",
            clean: true,
        },
        Nest {
            what: "argument lists and records, mixed",
            file: "p.plan",
            role: Role::Plan,
            prefix: "plan p {\n    step s = t.op(a: ",
            open: "[{ k: ",
            inner: "2026-03-04",
            close: " }]",
            suffix: ")\n}\n",
            clean: true,
        },
        Nest {
            what: "parameter list types",
            file: "tools.plan",
            role: Role::Catalog,
            prefix: "tool t.op(a: ",
            open: "[",
            inner: "string?",
            close: "]",
            suffix: ") -> { x: any } read\n",
            clean: true,
        },
        Nest {
            what: "parameter record types",
            file: "tools.plan",
            role: Role::Catalog,
            prefix: "tool t.op(a: ",
            open: "{ k: ",
            inner: "\"a\" | \"b\"",
            close: " }",
            suffix: ") -> { x: any } read\n",
            clean: true,
        },
        Nest {
            what: "result record types",
            file: "tools.plan",
            role: Role::Catalog,
            prefix: "tool t.op(a: any) -> ",
            open: "{ k: ",
            inner: "{ id: string }",
            close: " }",
            suffix: " read\n",
            clean: true,
        },
        Nest {
            what: "result list types",
            file: "tools.plan",
            role: Role::Catalog,
            prefix: "tool t.op(a: any) -> ",
            open: "[",
            inner: "int",
            close: "]",
            suffix: " read\n",
            clean: true,
        },
        Nest {
            what: "policy scope lists",
            file: "policy.plan",
            role: Role::Policy,
            prefix: "policy p {\n    actor [s:r]\n    t.op requires ",
            open: "[",
            inner: "s:r",
            close: "]",
            suffix: "\n}\n",
            clean: false,
        },
        Nest {
            what: "probe value lists",
            file: "p.plan",
            role: Role::Plan,
            prefix: "plan p {\n    step s = t.op(a: 1) {\n        post $.x in [",
            open: "[",
            inner: "1",
            close: "]",
            suffix: "]\n    }\n}\n",
            clean: false,
        },
    ];
    for case in &cases {
        case.sweep();
    }
}

#[test]
fn json_nesting_is_capped_at_max_depth() {
    let cases = [
        Nest {
            what: "JSON plan: arrays in arguments, around a reference",
            file: "p.json",
            role: Role::Plan,
            prefix: "{\"steps\": [{\"n\": 0, \"tool\": \"t.op\", \"args\": {\"a\": 1}, \"binds\": {\"b\": \"$.n\"}},\n{\"n\": 1, \"tool\": \"t.op\", \"args\": {\"a\": ",
            open: "[",
            inner: "\"${b}\"",
            close: "]",
            suffix: "}}]}",
            clean: true,
        },
        Nest {
            what: "JSON plan: arrays in arguments, referencing nothing",
            file: "p.json",
            role: Role::Plan,
            prefix: "{\"steps\": [{\"n\": 0, \"tool\": \"t.op\", \"args\": {\"a\": ",
            open: "[",
            inner: "12.5",
            close: "]",
            suffix: "}}]}",
            clean: true,
        },
        Nest {
            what: "JSON plan: objects in arguments",
            file: "p.json",
            role: Role::Plan,
            prefix: "{\"steps\": [{\"n\": 0, \"tool\": \"t.op\", \"args\": {\"a\": ",
            open: "{\"k\": ",
            inner: "\"x\"",
            close: "}",
            suffix: "}}]}",
            clean: true,
        },
        Nest {
            what: "JSON plan: arrays in probe values",
            file: "p.json",
            role: Role::Plan,
            prefix: "{\"steps\": [{\"n\": 0, \"tool\": \"t.op\", \"args\": {\"a\": 1}, \"post\": {\"probe\": \"field_in\", \"path\": \"$.x\", \"values\": [",
            open: "[",
            inner: "1",
            close: "]",
            suffix: "]}}]}",
            clean: false,
        },
        Nest {
            what: "JSON catalogue: array item schemas",
            file: "tools.json",
            role: Role::Catalog,
            prefix: "{\"tools\": [{\"name\": \"t.op\", \"inputSchema\": {\"type\": \"object\", \"properties\": {\"a\": ",
            open: "{\"type\": \"array\", \"items\": ",
            inner: "{\"type\": \"string\", \"format\": \"date\"}",
            close: "}",
            suffix: "}}, \"annotations\": {\"readOnlyHint\": true}}]}",
            clean: true,
        },
        Nest {
            what: "JSON catalogue: object property schemas",
            file: "tools.json",
            role: Role::Catalog,
            prefix: "{\"tools\": [{\"name\": \"t.op\", \"inputSchema\": {\"type\": \"object\", \"properties\": {}}, \"outputSchema\": ",
            open: "{\"type\": \"object\", \"required\": [\"k\"], \"properties\": {\"k\": ",
            inner: "{\"type\": \"integer\"}",
            close: "}}",
            suffix: "}]}",
            clean: true,
        },
        Nest {
            what: "JSON catalogue: arrays in an enum",
            file: "tools.json",
            role: Role::Catalog,
            prefix: "{\"tools\": [{\"name\": \"t.op\", \"inputSchema\": {\"type\": \"object\", \"properties\": {\"a\": {\"enum\": ",
            open: "[",
            inner: "\"x\"",
            close: "]",
            suffix: "}}}}]}",
            // An array in an enum is read loosely (W0502), not refused.
            clean: true,
        },
        Nest {
            what: "JSON policy: arrays in scopes",
            file: "policy.json",
            role: Role::Policy,
            prefix: "{\"actor\": {\"scopes\": [\"s:r\"]}, \"tools\": {\"t.op\": {\"scopes\": ",
            open: "[",
            inner: "\"s:r\"",
            close: "]",
            suffix: "}}}",
            clean: false,
        },
        Nest {
            what: "JSON policy: objects in ceilings",
            file: "policy.json",
            role: Role::Policy,
            prefix: "{\"actor\": {\"scopes\": [\"s:r\"]}, \"tools\": {\"t.op\": {\"scopes\": [\"s:r\"], \"max\": ",
            open: "{\"a\": ",
            inner: "5",
            close: "}",
            suffix: "}}}",
            clean: false,
        },
    ];
    for case in &cases {
        case.sweep();
    }
}

#[test]
fn input_size_is_capped() {
    // Just over the limit: one E0003, and nothing read.
    for (name, role) in [("big.plan", Role::Plan), ("big.json", Role::Plan)] {
        let mut text = " ".repeat(MAX_INPUT_BYTES);
        text.push('x');
        let diags = compile_with(name, role, text, false);
        assert_eq!(diags.len(), 1, "{name}: {diags:#?}");
        assert_eq!(diags[0].code, Code::E0003, "{name}");
    }
    // At the limit: read (and an empty document or plan is its own error
    // in JSON, none in text).
    let mut text = " ".repeat(MAX_INPUT_BYTES - 2);
    text.insert_str(0, "//");
    let diags = compile_with("big.plan", Role::Plan, text, false);
    assert!(diags.is_empty(), "{diags:#?}");
    let mut text = " ".repeat(MAX_INPUT_BYTES - 2);
    text.insert_str(0, "{}");
    let diags = compile_with("big.json", Role::Plan, text, false);
    assert!(diags.iter().all(|d| d.code != Code::E0003), "{diags:#?}");
}

#[test]
fn string_length_is_capped() {
    // The text form counts the literal as written, quotes included.
    let body = |n: usize| "a".repeat(n);
    let plan = |lit: &str| format!("plan p {{\n    step s = t.op(a: {lit})\n}}\n");
    let at = format!("\"{}\"", body(MAX_STRING_BYTES - 2));
    let diags = compile("p.plan", Role::Plan, plan(&at));
    assert!(diags.iter().all(|d| !d.is_error()), "{diags:#?}");
    let over = format!("\"{}\"", body(MAX_STRING_BYTES - 1));
    let text = plan(&over);
    let start = text.find('"').unwrap();
    let diags = compile("p.plan", Role::Plan, text);
    assert_eq!(diags.len(), 1, "{diags:#?}");
    assert_eq!(diags[0].code, Code::E0003);
    assert_eq!(diags[0].span.start as usize, start);

    // The JSON form counts the string's bytes between its quotes, escapes
    // as written.
    let plan = |s: &str| {
        format!("{{\"steps\": [{{\"n\": 0, \"tool\": \"t.op\", \"args\": {{\"a\": \"{s}\"}}}}]}}")
    };
    let diags = compile("p.json", Role::Plan, plan(&body(MAX_STRING_BYTES)));
    assert!(diags.iter().all(|d| !d.is_error()), "{diags:#?}");
    let mut escaped = body(MAX_STRING_BYTES - 1);
    escaped.push_str("\\n");
    let text = plan(&escaped);
    let start = text.find("\"a\": ").unwrap() + 5;
    let diags = compile("p.json", Role::Plan, text);
    assert_eq!(diags.len(), 1, "{diags:#?}");
    assert_eq!(diags[0].code, Code::E0003);
    assert_eq!(diags[0].span.start as usize, start);
}

/// A catalogue whose definitions each refer eight times to the next, the
/// last eight times to one that does not exist: 8^5 unresolved references
/// once expanded. Each is reported once (eight, at the last definition's
/// eight `$ref`s), and the expansion is bounded as schemas are; it once
/// gave 32,768 diagnostics and took seconds (found by the `json_document`
/// fuzz target).
#[test]
fn unresolved_references_in_an_exploding_schema_are_reported_once() {
    let level = |n: usize| {
        let refs: Vec<String> = (0..8)
            .map(|p| format!("\"p{p}\": {{\"$ref\": \"#/$defs/L{}\"}}", n + 1))
            .collect();
        format!(
            "\"L{n}\": {{\"type\": \"object\", \"properties\": {{{}}}}}",
            refs.join(", ")
        )
    };
    let defs: Vec<String> = (0..5).map(level).collect();
    let text = format!(
        "{{\"tools\": [{{\"name\": \"laughs\", \"inputSchema\": {{\"$defs\": {{{}}}, \"type\": \"object\", \"properties\": {{\"x\": {{\"$ref\": \"#/$defs/L0\"}}}}, \"required\": [\"x\"]}}, \"annotations\": {{\"readOnlyHint\": true}}}}]}}",
        defs.join(", ")
    );
    let diags = compile("tools.json", Role::Catalog, text);
    // A catalogue's schema problems are warnings on the tool (W0501),
    // and the expansion's cut is E0003.
    let unresolved = diags
        .iter()
        .filter(|d| d.code == Code::W0501 && d.message.contains("does not resolve"))
        .count();
    assert_eq!(unresolved, 8, "{diags:#?}");
    assert!(diags.len() <= 10, "{} diagnostics", diags.len());
}
