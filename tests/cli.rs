//! The command line, run as a user runs it: exit codes, formats, stdin,
//! `planc.toml` discovery, unreadable and hostile input.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn planc() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_planc"));
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    c.env_remove("NO_COLOR");
    c
}

fn run(args: &[&str]) -> Output {
    planc().args(args).output().unwrap()
}

fn run_stdin(args: &[&str], input: &[u8]) -> Output {
    run_stdin_in(Path::new(env!("CARGO_MANIFEST_DIR")), args, input)
}

/// Runs planc in `dir` with `input` on its standard input.
fn run_stdin_in(dir: &Path, args: &[&str], input: &[u8]) -> Output {
    let mut child = planc()
        .current_dir(dir)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    let writer = std::thread::spawn(move || {
        // The process may exit before reading everything; ignore a broken pipe.
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A scratch folder under the target directory, fresh for each test.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn json(o: &Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {}", stdout(o)))
}

/// A self-contained plan (tool, policy, plan) with one syntax error.
const BROKEN: &str = "tool x.y(n: int) -> { ok: bool } read\n\
    policy p { actor [a:b] x.y requires [a:b] }\n\
    plan p \"g\" {\n    step a = x.y(n: 1 2) { post $.ok == true }\n}\n";

#[test]
fn examples_check_clean() {
    for plan in [
        "examples/northwind/downgrade.plan",
        "examples/config_dag/provision.plan",
        "examples/pallet_credit/credit.plan",
    ] {
        let o = run(&["check", plan]);
        assert_eq!(o.status.code(), Some(0), "{plan}: {}", stderr(&o));
    }
}

/// A JSON report's diagnostics, each as code, file, place and message.
fn findings(v: &serde_json::Value) -> Vec<String> {
    v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            format!(
                "{} {}:{}:{} {}",
                d["code"], d["file"], d["line"], d["column"], d["message"]
            )
        })
        .collect()
}

#[test]
fn each_plan_is_checked_with_its_own_project() {
    // `planc check examples/*/*.plan`: every plan, catalogue and policy
    // file of the three examples at once, each with its own planc.toml,
    // says what checking each file alone says, in the order given.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<String> = Vec::new();
    for project in ["config_dag", "northwind", "pallet_credit"] {
        let mut names: Vec<String> = std::fs::read_dir(root.join("examples").join(project))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".plan"))
            .collect();
        names.sort();
        files.extend(names.iter().map(|n| format!("examples/{project}/{n}")));
    }
    assert!(files.len() >= 10, "{files:?}");
    let mut args = vec!["check", "--format", "json"];
    args.extend(files.iter().map(String::as_str));
    let all = run(&args);
    assert_eq!(all.status.code(), Some(0), "{}", stdout(&all));
    let v = json(&all);
    let mut alone: Vec<String> = Vec::new();
    for file in &files {
        let o = run(&["check", "--format", "json", file]);
        assert_eq!(o.status.code(), Some(0), "{file}: {}", stdout(&o));
        alone.extend(findings(&json(&o)));
    }
    let together = findings(&v);
    assert!(!together.is_empty());
    // Alone, each report lists its notes last; together, every error and
    // warning comes before the notes: the same diagnostics, and the files
    // in the order of the arguments within each kind.
    let notes_last = |mut list: Vec<String>| {
        list.sort_by_key(|d| d.starts_with("\"N"));
        list
    };
    assert_eq!(together, notes_last(alone));
    assert_eq!(
        v["configs"],
        serde_json::json!([
            "examples/config_dag/planc.toml",
            "examples/northwind/planc.toml",
            "examples/pallet_credit/planc.toml"
        ])
    );
    assert!(v.get("config").is_none(), "{v}");

    // Two projects whose catalogues differ: each plan is checked against
    // its own, the broken one's errors are the only ones, and the status
    // is the worst.
    let dir = scratch("two_projects");
    for (name, tool) in [("a", "a.get"), ("b", "b.get")] {
        let folder = dir.join(name);
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(
            folder.join("planc.toml"),
            "catalog = \"tools.plan\"\npolicy = \"policy.plan\"\n",
        )
        .unwrap();
        std::fs::write(
            folder.join("tools.plan"),
            format!("tool {tool}(id: string) -> {{ ok: bool }} read\n"),
        )
        .unwrap();
        std::fs::write(
            folder.join("policy.plan"),
            format!("policy p {{ actor [x:r] {tool} requires [x:r] }}\n"),
        )
        .unwrap();
        std::fs::write(
            folder.join("p.plan"),
            format!("plan p \"g\" {{\n    step s = {tool}(id: \"1\")\n}}\n"),
        )
        .unwrap();
    }
    let (a, b) = (dir.join("a/p.plan"), dir.join("b/p.plan"));
    let o = run(&["check", a.to_str().unwrap(), b.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("checked with the configurations of"),
        "{}",
        stderr(&o)
    );
    std::fs::write(
        dir.join("b/p.plan"),
        "plan p \"g\" {\n    step s = a.get(id: \"1\")\n}\n",
    )
    .unwrap();
    let o = run(&[
        "check",
        "--format",
        "json",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    let v = json(&o);
    let codes = codes_at(&v);
    assert!(!codes.is_empty());
    assert!(
        codes
            .iter()
            .all(|(code, file, _)| code == "E0101" && file.ends_with("b/p.plan")),
        "{codes:?}"
    );

    // A catalogue two projects share (their actors differ) that is not
    // UTF-8: one E0002 on it, and neither project is checked against what
    // could be read of it.
    std::fs::create_dir_all(dir.join("shared")).unwrap();
    std::fs::write(
        dir.join("shared/tools.plan"),
        b"\xff\ntool a.get(id: string) -> { ok: bool } read\n",
    )
    .unwrap();
    for (name, actor) in [("c", "x:r"), ("d", "x:w")] {
        let folder = dir.join(name);
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(
            folder.join("planc.toml"),
            format!(
                "catalog = \"../shared/tools.plan\"\npolicy = \"../a/policy.plan\"\nactor = [\"{actor}\"]\n"
            ),
        )
        .unwrap();
        std::fs::write(
            folder.join("p.plan"),
            "plan p \"g\" {\n    step s = a.get(id: \"1\")\n}\n",
        )
        .unwrap();
    }
    let (c, d) = (dir.join("c/p.plan"), dir.join("d/p.plan"));
    let o = run(&[
        "check",
        "--format",
        "json",
        c.to_str().unwrap(),
        d.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    let codes = codes_at(&json(&o));
    assert_eq!(codes.len(), 1, "{codes:?}");
    assert!(
        codes[0].0 == "E0002" && codes[0].1.ends_with("shared/tools.plan"),
        "{codes:?}"
    );
}

#[test]
fn syntax_error_exits_1_in_every_format() {
    let dir = scratch("syntax_error");
    let file = dir.join("broken.plan");
    std::fs::write(&file, BROKEN).unwrap();
    let file = file.to_str().unwrap();

    let human = run(&["check", "--color", "never", file]);
    assert_eq!(human.status.code(), Some(1));
    assert!(
        stderr(&human).contains("[E0001] Error"),
        "{}",
        stderr(&human)
    );
    assert!(
        stderr(&human).contains("1 error, 0 warnings"),
        "{}",
        stderr(&human)
    );

    let short = run(&["check", "--format", "short", file]);
    assert_eq!(short.status.code(), Some(1));
    let line = stderr(&short);
    assert!(line.contains("broken.plan:4:23: error[E0001]:"), "{line}");

    let j = run(&["check", "--format", "json", file]);
    assert_eq!(j.status.code(), Some(1));
    let v = json(&j);
    assert_eq!(v["errors"], 1);
    assert_eq!(v["diagnostics"][0]["code"], "E0001");
    assert_eq!(v["diagnostics"][0]["line"], 4);
    assert_eq!(v["diagnostics"][0]["step"], "a");
}

#[test]
fn stdin_is_read_with_dash() {
    let o = run_stdin(&["check", "--format", "json", "-"], BROKEN.as_bytes());
    assert_eq!(o.status.code(), Some(1));
    let v = json(&o);
    assert_eq!(v["diagnostics"][0]["file"], "<stdin>");
    let ok = run_stdin(&["check", "-"], b"// nothing here\n");
    assert_eq!(ok.status.code(), Some(0), "{}", stderr(&ok));
}

/// `check --lenient`: a model's reply with the plan in a Markdown code
/// fence, or between sentences, is checked with W0509 naming what was
/// ignored, every position in the reply's own lines; without the flag it
/// is not a plan; two fenced objects are not guessed at.
#[test]
fn lenient_reads_a_plan_inside_a_models_reply() {
    let dir = scratch("lenient");
    std::fs::write(
        dir.join("tools.plan"),
        "tool kv.get(key: string) -> { value: string } read idempotent\n\n\
         policy agent {\n    actor [kv:read]\n    kv.get requires [kv:read]\n}\n",
    )
    .unwrap();
    let tools = dir.join("tools.plan");
    let tools = tools.to_str().unwrap();
    let plan =
        r#"{"name": "lookup", "steps": [{"name": "get", "tool": "kv.get", "args": {"key": "k"}}]}"#;
    let lines = |v: &serde_json::Value| -> Vec<(String, u64)> {
        codes_at(v).into_iter().map(|(c, _, at)| (c, at)).collect()
    };
    let at = |text: &str, piece: &str| text.find(piece).unwrap() as u64;
    let args = |lenient: bool| {
        let mut a = vec![
            "check",
            "--catalog",
            tools,
            "--policy",
            tools,
            "--format",
            "json",
        ];
        if lenient {
            a.push("--lenient");
        }
        a.push("-");
        a
    };
    let fenced = format!("Here is the plan:\n```json\n{plan}\n```\nLet me know.\n");
    let o = run_stdin(&args(true), fenced.as_bytes());
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    let v = json(&o);
    // At the plan's first byte, in the reply as it was given.
    assert_eq!(lines(&v), vec![("W0509".to_string(), at(&fenced, "{"))]);
    assert_eq!(v["diagnostics"][0]["file"], "<stdin>");
    let message = v["diagnostics"][0]["message"].as_str().unwrap();
    assert!(message.contains("Markdown code fence"), "{message}");
    assert!(message.contains("`Here is the plan:`"), "{message}");
    assert!(message.contains("`Let me know.`"), "{message}");
    // Text around a bare object; an error in it is at its place in the reply.
    let bare = format!("Sure.\n{}\nDone.", plan.replace(r#""k""#, "5"));
    let v = json(&run_stdin(&args(true), bare.as_bytes()));
    let found = lines(&v);
    assert!(
        found.contains(&("W0509".to_string(), at(&bare, "{"))),
        "{found:?}"
    );
    assert!(
        found.contains(&("E0201".to_string(), at(&bare, "5}"))),
        "{found:?}"
    );
    // Without the flag, the reply is not a plan.
    let o = run_stdin(&args(false), fenced.as_bytes());
    assert_eq!(o.status.code(), Some(1));
    assert!(!lines(&json(&o)).iter().any(|(c, _)| c == "W0509"));
    // A plan alone gets no warning; two fenced objects are not guessed at.
    let o = run_stdin(&args(true), plan.as_bytes());
    assert_eq!(o.status.code(), Some(0));
    assert!(lines(&json(&o)).is_empty());
    let two = format!("```json\n{plan}\n```\nor\n```json\n{plan}\n```\n");
    let o = run_stdin(&args(true), two.as_bytes());
    assert_eq!(o.status.code(), Some(1));
    assert!(!lines(&json(&o)).iter().any(|(c, _)| c == "W0509"));
}

#[test]
fn command_failures_exit_2() {
    let missing = run(&["check", "no/such/file.plan"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(
        stderr(&missing).contains("cannot read `no/such/file.plan`: no such file"),
        "{}",
        stderr(&missing)
    );

    let bad_flag = run(&["check", "--frobnicate", "x.plan"]);
    assert_eq!(bad_flag.status.code(), Some(2));

    let no_files = run(&["check"]);
    assert_eq!(no_files.status.code(), Some(2));

    let bad_code = run(&["explain", "E9999"]);
    assert_eq!(bad_code.status.code(), Some(2));
}

/// The diagnostics' codes and offsets of a JSON report.
fn codes_at(v: &serde_json::Value) -> Vec<(String, String, u64)> {
    v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap().to_string(),
                d["file"].as_str().unwrap().to_string(),
                d["span"]["start"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn a_file_that_is_not_utf8_is_e0002_in_every_format() {
    let dir = scratch("utf8");
    let file = dir.join("bad.plan");
    std::fs::write(&file, b"plan p \"g\" {\n\xff\xfe}").unwrap();
    let file = file.to_str().unwrap();

    let human = run(&["check", "--color", "never", file]);
    assert_eq!(human.status.code(), Some(1), "{}", stderr(&human));
    let text = stderr(&human);
    assert!(text.contains("[E0002] Error"), "{text}");
    assert!(
        text.contains("is not valid UTF-8: invalid byte at offset 13"),
        "{text}"
    );
    assert!(text.contains("bad.plan:"), "{text}");

    let short = run(&["check", "--format", "short", file]);
    assert_eq!(short.status.code(), Some(1));
    let line = stderr(&short);
    assert!(line.contains("bad.plan:2:1: error[E0002]:"), "{line}");
    assert!(line.contains("offset 13"), "{line}");

    let j = run(&["check", "--format", "json", file]);
    assert_eq!(j.status.code(), Some(1));
    let v = json(&j);
    assert_eq!(v["errors"], 1);
    let d = &v["diagnostics"][0];
    assert_eq!(d["code"], "E0002");
    assert!(d["file"].as_str().unwrap().ends_with("bad.plan"), "{d}");
    assert_eq!(
        (d["line"].as_u64(), d["column"].as_u64()),
        (Some(2), Some(1))
    );
    assert_eq!(d["span"]["start"], 13);

    let sarif = run(&["check", "--format", "sarif", file]);
    assert_eq!(sarif.status.code(), Some(1));
    let v = json(&sarif);
    let result = &v["runs"][0]["results"][0];
    assert_eq!(result["ruleId"], "E0002");
    let region = &result["locations"][0]["physicalLocation"]["region"];
    assert_eq!(region["byteOffset"], 13);
}

#[test]
fn fmt_and_run_report_a_file_that_is_not_utf8() {
    let dir = scratch("utf8_fmt_run");
    let file = dir.join("bad.plan");
    let bytes = b"plan p \"g\" {\n\xff\xfe}";
    std::fs::write(&file, bytes).unwrap();
    let file = file.to_str().unwrap();
    // `fmt`, `fmt --check` and `fmt --to`: E0002 at the first bad byte,
    // exit 1, the file left as it was.
    for args in [
        vec!["fmt", file],
        vec!["fmt", "--check", file],
        vec!["fmt", "--to", "json", file],
    ] {
        let o = run(&[args.as_slice(), &["--color", "never"]].concat());
        assert_eq!(o.status.code(), Some(1), "{args:?}: {}", stderr(&o));
        let text = stderr(&o);
        assert!(text.contains("[E0002] Error"), "{args:?}: {text}");
        assert!(
            text.contains("invalid byte at offset 13"),
            "{args:?}: {text}"
        );
        assert!(text.contains("bad.plan:"), "{args:?}: {text}");
    }
    assert_eq!(std::fs::read(file).unwrap(), bytes);
    let o = run_stdin(&["fmt", "-"], bytes);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("E0002"), "{}", stderr(&o));
    assert!(stderr(&o).contains("<stdin>"), "{}", stderr(&o));

    // `run` of a plan or IR file that is not UTF-8: the diagnostic, nothing
    // runs (exit 2, as for a plan that does not compile).
    let o = run(&[
        "run",
        "--format",
        "short",
        file,
        "--tools",
        "fixture:none.json",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("bad.plan:2:1: error[E0002]:"),
        "{}",
        stderr(&o)
    );
    // A progress record that is not UTF-8: the same, before any tool runs.
    let record = dir.join("progress.json");
    std::fs::write(&record, b"{\"steps\": \xc3}").unwrap();
    let o = run(&[
        "run",
        "--format",
        "short",
        "examples/northwind/downgrade.plan",
        "--approve-all",
        "--progress",
        record.to_str().unwrap(),
        "--tools",
        "fixture:none.json",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("progress.json:1:11: error[E0002]:"),
        "{}",
        stderr(&o)
    );
    assert_eq!(std::fs::read(&record).unwrap(), b"{\"steps\": \xc3}");
}

#[test]
fn a_file_that_is_not_utf8_is_e0002_in_every_role() {
    let dir = scratch("utf8_roles");
    let ok_plan = "plan p \"g\" {\n}\n";
    std::fs::write(dir.join("ok.plan"), ok_plan).unwrap();
    std::fs::write(
        dir.join("tools.plan"),
        b"tool a.b() -> { x: string } read\xfe\n",
    )
    .unwrap();
    std::fs::write(dir.join("tools.json"), b"{\"tools\": [\xc3]}").unwrap();
    std::fs::write(dir.join("policy.plan"), b"policy p {\xff}").unwrap();
    std::fs::write(dir.join("record.json"), b"{\xff}").unwrap();
    let in_dir = |args: &[&str]| planc().current_dir(&dir).args(args).output().unwrap();
    for (args, file, offset) in [
        (&["--catalog", "tools.plan"][..], "tools.plan", 32),
        (&["--catalog", "tools.json"][..], "tools.json", 11),
        (&["--policy", "policy.plan"][..], "policy.plan", 10),
        (&["--progress", "record.json"][..], "record.json", 1),
    ] {
        let mut all = vec!["check", "--format", "json", "ok.plan"];
        all.extend_from_slice(args);
        let o = in_dir(&all);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {}", stderr(&o));
        let v = json(&o);
        assert_eq!(
            codes_at(&v),
            [("E0002".to_string(), file.to_string(), offset)],
            "{args:?}"
        );
    }
    // A catalogue named in planc.toml.
    let project = dir.join("project");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(
        project.join("planc.toml"),
        "catalog = [\"../tools.plan\"]\n",
    )
    .unwrap();
    std::fs::write(project.join("p.plan"), ok_plan).unwrap();
    let o = run(&[
        "check",
        "--format",
        "json",
        project.join("p.plan").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let found = codes_at(&json(&o));
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].0, "E0002");
    assert!(found[0].1.ends_with("tools.plan"), "{found:?}");
    // Standard input.
    let o = run_stdin(&["check", "--format", "json", "-"], b"plan p \"g\" {\xff}");
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(
        codes_at(&json(&o)),
        [("E0002".to_string(), "<stdin>".to_string(), 12)]
    );
}

#[test]
fn a_byte_order_mark_is_skipped_and_positions_stay_right() {
    let dir = scratch("bom");
    // A clean plan with a BOM checks clean.
    let clean = dir.join("clean.plan");
    let mut text = b"\xef\xbb\xbf".to_vec();
    text.extend_from_slice(BROKEN.replace("n: 1 2", "n: 1").as_bytes());
    std::fs::write(&clean, &text).unwrap();
    let o = run(&["check", clean.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // An error on the BOM's line points at the right column (the BOM is
    // one character, three bytes).
    let bad = dir.join("bad.plan");
    std::fs::write(&bad, b"\xef\xbb\xbftool x.y() -> { ok: bool } rread\n").unwrap();
    let o = run(&["check", "--format", "json", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let v = json(&o);
    let d = &v["diagnostics"][0];
    assert_eq!(d["line"], 1, "{d}");
    assert_eq!(d["column"], 28, "{d}");
    assert_eq!(d["span"]["start"], 30, "{d}");
    // JSON with a BOM reads too.
    let j = dir.join("tools.json");
    std::fs::write(&j, b"\xef\xbb\xbf{\"tools\": []}").unwrap();
    let o = run(&[
        "check",
        "--catalog",
        j.to_str().unwrap(),
        clean.to_str().unwrap(),
    ]);
    assert!(!stderr(&o).contains("E0001"), "{}", stderr(&o));
}

#[test]
fn broken_planc_toml_exits_2() {
    let dir = scratch("bad_toml");
    std::fs::write(dir.join("planc.toml"), "catalog = [\n").unwrap();
    std::fs::write(dir.join("p.plan"), "").unwrap();
    let o = run(&["check", dir.join("p.plan").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("planc.toml"), "{}", stderr(&o));
}

#[test]
fn planc_toml_is_found_above_the_plan_and_flags_override_it() {
    let dir = scratch("discovery");
    std::fs::create_dir_all(dir.join("plans")).unwrap();
    std::fs::write(
        dir.join("planc.toml"),
        "catalog = [\"missing-tools.plan\"]\n",
    )
    .unwrap();
    std::fs::write(dir.join("plans/p.plan"), "").unwrap();
    std::fs::write(dir.join("tools.plan"), "").unwrap();
    let plan = dir.join("plans/p.plan");
    // The catalogue named by planc.toml (one folder up) does not exist.
    let o = run(&["check", plan.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("missing-tools.plan"), "{}", stderr(&o));
    // --catalog replaces it.
    let o = run(&[
        "check",
        "--catalog",
        dir.join("tools.plan").to_str().unwrap(),
        plan.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

#[test]
fn hostile_inputs_get_a_diagnostic_not_a_crash() {
    let deep = format!(
        "plan p \"g\" {{ step a = t.x(v: {}) }}",
        "[".repeat(100_000)
    );
    let nul = "plan p \"g\" {\0\0\0}".to_string();
    let huge = format!("plan p \"{}\" {{}}", "x".repeat(30 * 1024 * 1024));
    for (name, input, code) in [
        ("deep", deep, "E0003"),
        ("nul", nul, "E0001"),
        ("huge", huge, "E0003"),
    ] {
        let o = run_stdin(&["check", "--format", "json", "-"], input.as_bytes());
        assert_eq!(o.status.code(), Some(1), "{name}: {}", stderr(&o));
        let v = json(&o);
        let codes: Vec<&str> = v["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["code"].as_str().unwrap())
            .collect();
        assert!(codes.contains(&code), "{name}: {codes:?}");
    }
}

#[test]
fn random_bytes_never_crash() {
    // A fixed pseudo-random sequence (xorshift), so a failure reproduces.
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut bytes = Vec::with_capacity(64 * 1024);
    for _ in 0..64 * 1024 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        bytes.push((x >> 24) as u8);
    }
    // As raw bytes: not UTF-8, E0002 and exit 1.
    let o = run_stdin(&["check", "--format", "short", "-"], &bytes);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("error[E0002]"), "{}", stderr(&o));
    // Made valid UTF-8: diagnostics, exit 1.
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let o = run_stdin(&["check", "--format", "short", "-"], text.as_bytes());
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
}

#[test]
fn a_planc_toml_value_of_the_wrong_form_names_the_key() {
    let dir = scratch("bad_toml_value");
    std::fs::write(
        dir.join("planc.toml"),
        "catalog = \"tools.plan\"\nactor = 3\n",
    )
    .unwrap();
    std::fs::write(dir.join("p.plan"), "").unwrap();
    let o = run(&["check", dir.join("p.plan").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains("planc.toml:2:9: `actor` takes a scope or a list of scopes"),
        "{err}"
    );
    assert!(err.trim_end().ends_with("found an integer `3`"), "{err}");
    assert!(!err.contains("untagged"), "{err}");
}

#[test]
fn a_plan_on_stdin_without_a_catalogue_says_how_to_give_one() {
    let dir = scratch("stdin_no_catalog");
    let o = run_stdin_in(
        &dir,
        &["check", "--format", "short", "-"],
        b"plan p \"g\" { step a = t.x() }\n",
    );
    assert_eq!(o.status.code(), Some(1));
    let o_json = run_stdin_in(
        &dir,
        &["check", "--format", "json", "-"],
        b"plan p \"g\" { step a = t.x() }\n",
    );
    let help = json(&o_json)["diagnostics"][0]["help"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(help.contains("`--catalog FILE`"), "{help}");
    assert!(help.contains("`planc.toml`"), "{help}");
    assert!(stderr(&o).contains("error[E0101]"), "{}", stderr(&o));
}

#[test]
fn notes_are_called_notes_with_colour_and_without() {
    for colour in ["always", "never"] {
        let o = run(&[
            "check",
            "--color",
            colour,
            "examples/northwind/downgrade.plan",
        ]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let err = stderr(&o);
        assert!(err.contains("[N0301] Note:"), "{colour}: {err}");
        assert!(!err.contains("Advice"), "{colour}: {err}");
        assert_eq!(err.contains('\u{1b}'), colour == "always", "{err}");
    }
}

#[test]
fn explain_without_a_code_lists_every_code() {
    let o = run(&["explain"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    for code in planc::Code::ALL {
        let line = format!(
            "{}  {:<7}  {}",
            code.as_str(),
            code.severity().as_str(),
            code.title()
        );
        assert!(out.lines().any(|l| l == line), "{line} missing from\n{out}");
    }
    assert!(
        out.contains("E0303  error    literal argument exceeds"),
        "{out}"
    );
}

#[test]
fn completions_and_man_pages_come_from_the_cli_definition() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let o = run(&["completions", shell]);
        assert_eq!(o.status.code(), Some(0), "{shell}: {}", stderr(&o));
        let out = stdout(&o);
        // Every subcommand and a flag of `check` are offered.
        for word in ["check", "compile", "explain", "fmt", "lsp", "deny-warnings"] {
            assert!(out.contains(word), "{shell} completions lack {word}");
        }
    }
    assert_eq!(run(&["completions", "tcsh"]).status.code(), Some(2));

    let o = run(&["man"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let page = stdout(&o);
    assert!(page.starts_with(".ie \\n(.g .ds Aq"), "{page}");
    assert!(page.contains(".TH planc 1"), "{page}");
    assert!(
        page.contains("Exit status: 0 when there is no error"),
        "{page}"
    );

    let dir = scratch("man");
    let o = run(&["man", "--dir", dir.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let mut pages: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    pages.sort();
    assert!(pages.contains(&"planc.1".to_string()), "{pages:?}");
    assert!(pages.contains(&"planc-check.1".to_string()), "{pages:?}");
    let check = std::fs::read_to_string(dir.join("planc-check.1")).unwrap();
    assert!(check.contains("deny\\-warnings"), "{check}");
}

#[test]
fn explain_prints_a_page() {
    let o = run(&["explain", "e0002"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(
        stdout(&o).starts_with("# E0002: invalid literal"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn compile_writes_ir_to_stdout_or_a_file() {
    let o = run(&["compile", "examples/northwind/downgrade.plan"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let ir = json(&o);
    assert_eq!(ir["ir_version"], planc::ir::IR_VERSION);
    assert_eq!(ir["steps"][4]["authz"]["guards"][0]["arg"], "amount_eur");
    // Notes go to stderr; the IR alone is on stdout.
    assert!(stderr(&o).contains("N0302"), "{}", stderr(&o));

    let dir = scratch("compile_out");
    let out = dir.join("ir.json");
    let o = run(&[
        "compile",
        "examples/northwind/downgrade.plan",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(o.stdout.is_empty());
    let written: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(written, ir);
}

/// `compile -o` writes the IR as the plan is checked (`ir::IrStream`):
/// the file holds what standard output gets, and a plan that fails its
/// check, or a file of two plans, leaves the old file as it was and
/// nothing else beside it (no temporary or scratch file).
#[test]
fn compile_into_a_file_writes_what_stdout_gets_or_keeps_the_old_file() {
    let dir = scratch("compile_stream");
    let northwind = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/northwind");
    for name in ["planc.toml", "tools.plan", "policy.plan", "downgrade.plan"] {
        std::fs::copy(northwind.join(name), dir.join(name)).unwrap();
    }
    let good = dir.join("downgrade.plan");
    let text = std::fs::read_to_string(&good).unwrap();
    let out = dir.join("ir.json");
    let o = run(&[
        "compile",
        good.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let piped = run(&["compile", good.to_str().unwrap()]);
    assert_eq!(std::fs::read(&out).unwrap(), piped.stdout);

    let listing = || {
        let mut names: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    };
    // Every step but the last is written before the last fails its check.
    let body = text.trim_end().strip_suffix('}').unwrap();
    let broken = dir.join("broken.plan");
    std::fs::write(
        &broken,
        format!("{body}\n  step last = no.such_tool()\n}}\n"),
    )
    .unwrap();
    let two = dir.join("two.plan");
    std::fs::write(
        &two,
        format!("{text}\n{}", text.replace("plan downgrade", "plan again")),
    )
    .unwrap();
    let before = listing();
    for (plan, says) in [(&broken, "E0101"), (&two, "holds 2 plans")] {
        let o = run(&[
            "compile",
            plan.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ]);
        assert_ne!(o.status.code(), Some(0), "{}", stderr(&o));
        assert!(stderr(&o).contains(says), "{}", stderr(&o));
        assert_eq!(
            std::fs::read(&out).unwrap(),
            piped.stdout,
            "{}",
            plan.display()
        );
        assert_eq!(listing(), before, "{}", plan.display());
    }
}

#[test]
fn compile_refuses_a_plan_with_errors_and_writes_no_ir() {
    let dir = scratch("compile_err");
    let file = dir.join("broken.plan");
    std::fs::write(&file, BROKEN).unwrap();
    let o = run(&["compile", "--format", "json", file.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(o.stdout.is_empty(), "no IR on stdout: {}", stdout(&o));
    // With `compile`, the JSON diagnostics go to stderr.
    let v: serde_json::Value = serde_json::from_slice(&o.stderr).unwrap();
    assert_eq!(v["diagnostics"][0]["code"], "E0001");
}

#[test]
fn json_plan_on_stdin_is_detected_and_gets_pointers() {
    let plan = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ui/json/plan/ok/ambiguous_pick.json"),
    )
    .unwrap();
    let northwind = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/northwind");
    let o = run_stdin_in(
        &northwind,
        &["check", "--format", "json", "-"],
        plan.as_bytes(),
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v = json(&o);
    let pick = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "W0401")
        .expect("W0401");
    assert_eq!(pick["pointer"], "/steps/0/binds/account_id");
    assert_eq!(pick["step"], "step_0");
    assert!(
        pick["help"]
            .as_str()
            .unwrap()
            .contains("len($.results) == 1")
    );
    assert_eq!(v["warnings"], 3);

    // The same, with warnings denied: exit 1.
    let o = run_stdin_in(
        &northwind,
        &["check", "--deny-warnings", "--format", "short", "-"],
        plan.as_bytes(),
    );
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn actor_flag_overrides_the_policy_actor() {
    let o = run(&[
        "check",
        "--format",
        "json",
        "--actor",
        "crm:read,billing:read",
        "examples/northwind/downgrade.plan",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let v = json(&o);
    let codes: Vec<&str> = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap())
        .filter(|c| c.starts_with('E'))
        .collect();
    // change_plan and issue_credit need billing:write; email.send comms:write.
    assert_eq!(codes, vec!["E0302", "E0302", "E0302"], "{v}");
}

#[test]
fn sarif_is_structurally_valid() {
    let o = run(&[
        "check",
        "--format",
        "sarif",
        "--actor",
        "crm:read",
        "examples/northwind/downgrade.plan",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let v = json(&o);
    assert_eq!(v["version"], "2.1.0");
    let run = &v["runs"][0];
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    let ids: Vec<&str> = rules.iter().map(|r| r["id"].as_str().unwrap()).collect();
    let mut sorted = ids.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(ids, sorted, "one rule per code, sorted");
    for r in run["results"].as_array().unwrap() {
        let idx = r["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules[idx]["id"], r["ruleId"]);
        assert!(["error", "warning", "note"].contains(&r["level"].as_str().unwrap()));
        let loc = &r["locations"][0]["physicalLocation"];
        let uri = loc["artifactLocation"]["uri"].as_str().unwrap();
        assert!(!uri.starts_with('/'), "repository-relative: {uri}");
        assert!(loc["region"]["startLine"].as_u64().unwrap() >= 1);
    }
}

#[test]
fn fmt_writes_checks_and_refuses() {
    let dir = scratch("fmt");
    let run = |args: &[&str], input: &str| {
        let o = run_stdin_in(&dir, args, input.as_bytes());
        (o.status.code().unwrap(), stdout(&o), stderr(&o))
    };
    let messy = "plan p{step a=t.x(n:1){retry 2}}\n";
    let tidy = "plan p {\n    step a = t.x(n: 1) {\n        retry 2\n    }\n}\n";
    std::fs::write(dir.join("a.plan"), messy).unwrap();
    std::fs::write(dir.join("b.plan"), tidy).unwrap();

    // --check lists what is not laid out and writes nothing.
    let (code, out, _) = run(&["fmt", "--check", "a.plan", "b.plan"], "");
    assert_eq!((code, out.as_str()), (1, "a.plan\n"));
    assert_eq!(std::fs::read_to_string(dir.join("a.plan")).unwrap(), messy);

    // Without it, files are written in place.
    let (code, out, err) = run(&["fmt", "a.plan", "b.plan"], "");
    assert_eq!((code, out.as_str(), err.as_str()), (0, "", ""));
    assert_eq!(std::fs::read_to_string(dir.join("a.plan")).unwrap(), tidy);
    assert_eq!(run(&["fmt", "--check", "a.plan", "b.plan"], "").0, 0);

    // Standard input to standard output.
    let (code, out, _) = run(&["fmt", "-"], messy);
    assert_eq!((code, out.as_str()), (0, tidy));

    // A file that does not parse is reported and left alone.
    std::fs::write(dir.join("broken.plan"), "plan p { step a = }\n").unwrap();
    let (code, out, err) = run(&["fmt", "--color", "never", "broken.plan"], "");
    assert_eq!((code, out.as_str()), (1, ""));
    assert!(err.contains("E0001"), "{err}");
    assert_eq!(
        std::fs::read_to_string(dir.join("broken.plan")).unwrap(),
        "plan p { step a = }\n"
    );

    // --diff prints the change as a unified diff and writes nothing.
    std::fs::write(dir.join("c.plan"), messy).unwrap();
    let (code, out, err) = run(&["fmt", "--diff", "c.plan", "b.plan"], "");
    assert_eq!((code, err.as_str()), (1, ""));
    assert!(
        out.starts_with("--- c.plan\n+++ c.plan\n@@ -1 +1,5 @@\n"),
        "{out}"
    );
    assert!(out.contains("-plan p{step a=t.x(n:1){retry 2}}\n"), "{out}");
    assert!(out.contains("+    step a = t.x(n: 1) {\n"), "{out}");
    assert!(
        !out.contains("b.plan"),
        "a laid out file has no diff: {out}"
    );
    assert_eq!(std::fs::read_to_string(dir.join("c.plan")).unwrap(), messy);
    let (code, out, _) = run(&["fmt", "--diff", "b.plan"], "");
    assert_eq!((code, out.as_str()), (0, ""));
    assert_eq!(run(&["fmt", "--diff", "--check", "b.plan"], "").0, 2);

    // JSON is not laid out.
    std::fs::write(dir.join("p.json"), "{}").unwrap();
    let (code, _, err) = run(&["fmt", "p.json"], "");
    assert_eq!(code, 2);
    assert!(err.contains("`p.json` is JSON"), "{err}");

    // --to converts one file, to standard output, either way; the text
    // comes out laid out.
    let (code, json, _) = run(&["fmt", "--to", "json", "a.plan"], "");
    assert_eq!(code, 0);
    assert!(json.starts_with("{\n  \"name\": \"p\","), "{json}");
    let (code, text, _) = run(&["fmt", "--to", "plan", "-"], &json);
    assert_eq!((code, text.as_str()), (0, tidy));
    // What the other form cannot express is an error of the input, at its
    // place.
    let (code, out, err) = run(
        &["fmt", "--to", "json", "-"],
        "plan p { step a = t.x(s: \"${x}\") }",
    );
    assert_eq!((code, out.as_str()), (1, ""));
    assert!(err.contains("[E0701] Error: the string"), "{err}");
    assert!(err.contains("<stdin>:1:26"), "{err}");
    // In the format asked for, as every diagnostic.
    let (code, _, err) = run(
        &["fmt", "--to", "json", "--format", "short", "-"],
        "plan p { step a = t.x(s: \"${x}\") }",
    );
    assert_eq!(code, 1);
    assert!(
        err.starts_with("<stdin>:1:26: error[E0701]: the string"),
        "{err}"
    );
    let (code, _, err) = run(
        &["fmt", "--to", "plan", "--format", "json", "-"],
        r#"{"name": "p", "steps": [{"n": 1, "name": "a", "tool": "t.x", "args": {"a-b": 1}}]}"#,
    );
    assert_eq!(code, 1);
    let doc: serde_json::Value = serde_json::from_str(&err).unwrap();
    assert_eq!(doc["diagnostics"][0]["code"], "E0702", "{err}");
    assert_eq!(
        doc["diagnostics"][0]["pointer"], "/steps/0/args/a-b",
        "{err}"
    );
    // One file at a time, and not with --check.
    assert_eq!(run(&["fmt", "--to", "json", "a.plan", "b.plan"], "").0, 2);
    assert_eq!(run(&["fmt", "--check", "--to", "json", "a.plan"], "").0, 2);
}

#[test]
fn invalidate_reports_the_repair_scope() {
    let o = run(&[
        "invalidate",
        "examples/config_dag/provision.plan",
        "--progress",
        "examples/config_dag/progress.json",
        "--event",
        "precondition:provision_db",
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["event"], "precondition:provision_db");
    assert_eq!(v["scope"], "local");
    let after: Vec<(&str, &str)> = v["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["name"].as_str().unwrap(), s["after"].as_str().unwrap()))
        .collect();
    assert_eq!(
        after,
        vec![
            ("fetch_config", "complete"),
            ("parse_config", "complete"),
            ("fetch_schema", "complete"),
            ("provision_db", "invalid"),
            ("generate_report", "pending"),
        ]
    );
    // Human form: a table on stdout, nothing on stderr (the plan's notes are
    // not about the event).
    let o = run(&[
        "invalidate",
        "examples/config_dag/provision.plan",
        "--progress",
        "examples/config_dag/progress.json",
        "--event",
        "goal",
    ]);
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).starts_with("event `goal`: repair scope full"));
    assert_eq!(stderr(&o), "");
}

#[test]
fn invalidate_refuses_a_bad_event_or_record() {
    let o = run(&[
        "invalidate",
        "examples/config_dag/provision.plan",
        "--progress",
        "examples/config_dag/progress.json",
        "--event",
        "exploded:provision_db",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("is not an event"));
    let bad = scratch("invalidate_bad_record").join("progress.json");
    std::fs::write(
        &bad,
        r#"{"progress_version": "1.0", "plan": "p", "steps": [{"name": "a"}]}"#,
    )
    .unwrap();
    let o = run(&[
        "invalidate",
        "examples/config_dag/provision.plan",
        "--progress",
        bad.to_str().unwrap(),
        "--event",
        "goal",
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("E0601"), "{}", stderr(&o));
    // A record that is not UTF-8 is E0002, exit 1.
    std::fs::write(&bad, b"{\"progress_version\": \"1.\xff\"}").unwrap();
    let o = run(&[
        "invalidate",
        "examples/config_dag/provision.plan",
        "--progress",
        bad.to_str().unwrap(),
        "--event",
        "goal",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("E0002"), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("invalid byte at offset 24"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn diff_matches_steps_by_name() {
    let o = run(&[
        "diff",
        "examples/config_dag/provision.plan",
        "examples/config_dag/replan.plan",
        "--progress",
        "examples/config_dag/progress.json",
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v = json(&o);
    assert_eq!(v["added"], serde_json::json!(["migrate_schema"]));
    assert_eq!(v["changed"][0]["step"], "provision_db");
    assert_eq!(
        v["reused"],
        serde_json::json!(["fetch_config", "parse_config", "fetch_schema"])
    );
    let o = run(&[
        "diff",
        "examples/config_dag/provision.plan",
        "examples/config_dag/provision.plan.json",
    ]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(stdout(&o), "0 added, 0 removed, 0 changed, 5 unchanged\n");
}

#[test]
fn schema_prints_a_plan_schema_for_the_project() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/northwind");
    let out = planc()
        .current_dir(&dir)
        .args(["schema", "--dialect", "openai", "--wrap", "tool"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let tool: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(tool["function"]["name"], "submit_plan");
    assert_eq!(tool["function"]["strict"], true);
    let text = stdout(&out);
    assert!(text.contains("\"const\": \"billing.issue_credit\""));
    assert!(text.contains("\"maximum\": 500"), "the credit ceiling");
    // An actor without scopes may call nothing: the command fails.
    let out = planc()
        .current_dir(&dir)
        .args(["schema", "--actor", ""])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("permits no tool"), "{}", stderr(&out));
    // A catalogue with errors (here, a document that is not a tool list)
    // is reported, and no schema is printed.
    let out = run(&[
        "schema",
        "--catalog",
        "tests/ui/json/err/not_a_document.json",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).is_empty());
    assert!(stderr(&out).contains("E0004"), "{}", stderr(&out));
}

/// `--progress` on `check` and `compile`: the replan of the configuration
/// example reuses its complete steps (exit 0, `"reuse": true` in the IR,
/// N0303 in every format); a replan that repeats a committed write exits 1;
/// a malformed record is reported with its own code, and an absent one is
/// the command's failure (exit 2).
#[test]
fn progress_checks_a_replan_against_what_ran() {
    let dir = "examples/config_dag";
    let out = run(&[
        "check",
        "--progress",
        &format!("{dir}/progress.json"),
        &format!("{dir}/replan.plan"),
        &format!("{dir}/replan.plan.json"),
        "--format",
        "json",
        "--deny-warnings",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let reused = doc["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "N0303")
        .count();
    assert_eq!(reused, 6, "three steps reused in each form");
    let out = run(&[
        "compile",
        &format!("{dir}/replan.plan"),
        "--progress",
        &format!("{dir}/progress.json"),
    ]);
    assert_eq!(out.status.code(), Some(0));
    let ir: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let reuse: Vec<bool> = ir["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["reuse"].as_bool().unwrap())
        .collect();
    assert_eq!(reuse, [true, true, true, false, false, false]);
    assert_eq!(ir["progress"]["replans_used"], 0);
    // Without the record, the same IR has neither key.
    let out = run(&["compile", &format!("{dir}/replan.plan")]);
    let plain = String::from_utf8_lossy(&out.stdout);
    assert!(!plain.contains("\"reuse\"") && !plain.contains("\"progress\""));

    let out = run(&[
        "check",
        "--progress",
        "tests/ui/replan/progress.json",
        "tests/ui/replan/err/write_repeated_renamed.plan",
        "--format",
        "short",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("error[E0307]"));

    let out = run(&[
        "check",
        "--progress",
        "tests/ui/progress/err/artifacts_on_failed_step.json",
        &format!("{dir}/replan.plan"),
        "--format",
        "short",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("error[E0604]"));

    let out = run(&[
        "check",
        "--progress",
        "no/such.json",
        &format!("{dir}/replan.plan"),
    ]);
    assert_eq!(out.status.code(), Some(2));
}

/// `planc run --dry-run`: the waves, each call with its arguments, guards
/// and approval; no backend is started and nothing is called.
#[test]
fn run_dry_run_says_what_would_be_dispatched_and_calls_nothing() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("conformance/pallet_credit_refused_by_its_guard");
    let o = planc()
        .current_dir(&dir)
        .args(["run", "plan.plan", "--dry-run"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("dry run, nothing is called"), "{out}");
    assert!(out.contains("not approved: `credit`"), "{out}");
    assert!(
        out.contains("wave 1\n  order  orders.get(order_id: 4921)  read"),
        "{out}"
    );
    assert!(out.contains("      guard amount_eur <= 500"), "{out}");
    assert!(out.contains("approval human: NOT approved"), "{out}");
    let o = planc()
        .current_dir(&dir)
        .args(["run", "plan.plan", "--dry-run", "--approve", "credit"])
        .output()
        .unwrap();
    let out = stdout(&o);
    assert!(out.contains("approval human: approved"), "{out}");
    assert!(!out.contains("not approved:"), "{out}");
}

/// `planc run` on a terminal: a line as each step starts and as it ends
/// (attempts, time, calls), coloured unless `NO_COLOR`; none to a pipe.
/// The terminal is `script`'s, when the system has it.
#[test]
fn run_on_a_terminal_says_each_step_as_it_starts_and_ends() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("conformance/retry_idempotent_read");
    let cmd = format!(
        "{} run plan.plan --tools fixture:tools.json",
        env!("CARGO_BIN_EXE_planc")
    );
    let Ok(o) = Command::new("script")
        .current_dir(&dir)
        .args(["-qec", &cmd, "/dev/null"])
        .env_remove("NO_COLOR")
        .env("TERM", "xterm")
        .output()
    else {
        eprintln!("skipped: no `script` to give planc a terminal");
        return;
    };
    if !o.status.success() && o.stdout.is_empty() {
        eprintln!("skipped: `script` could not open a terminal here");
        return;
    }
    let out = String::from_utf8_lossy(&o.stdout).replace('\r', "");
    assert!(
        out.contains("\u{1b}[36mstart\u{1b}[0m read  kv.get (attempt 3)"),
        "{out}"
    );
    assert!(
        out.contains("\u{1b}[32mdone \u{1b}[0m read  complete in "),
        "{out}"
    );
    assert!(out.contains(" ms, 3 calls"), "{out}");
    // To a pipe: the summary only.
    let o = planc()
        .current_dir(&dir)
        .args(["run", "plan.plan", "--tools", "fixture:tools.json"])
        .output()
        .unwrap();
    assert!(!stderr(&o).contains("start"), "{}", stderr(&o));
}
