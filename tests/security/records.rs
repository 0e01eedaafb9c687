//! Attacks through the progress record and the replan (`README.md`, "The
//! record and the replan"): a sealed record edited for a reader other than
//! `planc run`, a record swapped between its verification and the check, a
//! write repeated by spelling its call differently, a planner raising its
//! own replan budget or passing a changed plan off as a resume.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn planc(dir: &Path, args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_planc"))
        .current_dir(dir)
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stderr),
            String::from_utf8_lossy(&out.stdout)
        ),
    )
}

/// A folder of its own with the synthetic tools, a policy and `plan.plan`.
fn folder(tag: &str, policy_extra: &str, plan: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("planc-sec-rec-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let case = Path::new(env!("CARGO_MANIFEST_DIR")).join("conformance/approved_plan_runs");
    std::fs::copy(case.join("tools.plan"), dir.join("tools.plan")).unwrap();
    std::fs::write(
        dir.join("tools.plan"),
        std::fs::read_to_string(case.join("tools.plan")).unwrap()
            + "tool memo.post(to: string, amount_eur: decimal, memo: string?) -> { id: string } write\n",
    )
    .unwrap();
    let policy = std::fs::read_to_string(case.join("policy.plan"))
        .unwrap()
        .replace(
            "    kv.get requires",
            &format!(
                "{policy_extra}    memo.post requires [pay:write] where amount_eur <= 100\n    kv.get requires"
            ),
        );
    std::fs::write(dir.join("policy.plan"), policy).unwrap();
    std::fs::write(
        dir.join("planc.toml"),
        "catalog = [\"tools.plan\"]\npolicy = \"policy.plan\"\n",
    )
    .unwrap();
    std::fs::write(dir.join("plan.plan"), plan).unwrap();
    std::fs::write(
        dir.join("tools.json"),
        r#"[{"tool": "kv.get", "result": {"value": "v", "items": []}},
            {"tool": "kv.get", "result": {"value": "v", "items": []}},
            {"tool": "kv.get", "result": {"value": "v", "items": []}},
            {"tool": "kv.put", "result": {"version": 1}},
            {"tool": "memo.post", "result": {"id": "m1"}},
            {"tool": "memo.post", "result": {"id": "m2"}}]"#,
    )
    .unwrap();
    dir
}

const COPY: &str = r#"plan copy "read then write" {
    step read = kv.get(key: "k") { bind v = $.value }
    step put = kv.put(key: "copy", value: v) { }
}
"#;

/// `COPY` run to completion with `extra` flags (a record key is in the
/// file `key`): the text of the record it wrote, `p.json`.
fn copied(dir: &Path, extra: &[&str]) -> String {
    std::fs::write(dir.join("key"), "0123456789abcdef0123456789abcdef").unwrap();
    let mut args = vec![
        "run",
        "plan.plan",
        "--tools",
        "fixture:tools.json",
        "--approve",
        "put",
        "--progress",
        "p.json",
    ];
    args.extend_from_slice(extra);
    let (status, out) = planc(dir, &args);
    assert_eq!(status, 0, "{out}");
    std::fs::read_to_string(dir.join("p.json")).unwrap()
}

fn record(dir: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("p.json")).unwrap()).unwrap()
}

/// Finding 6, for every reader: with a record key (`--record-key` or
/// `[run] record_key`), `planc check --progress`, `compile`, `graph`,
/// `review`, `invalidate` and `diff` read a record only when its seal
/// verifies, as `planc run` does: an edited record, or one whose seal was
/// removed, is refused (exit 2) and nothing is said about it as if it were
/// true. Invariant: the record cannot lie, to any reader.
#[test]
fn every_reader_verifies_the_records_seal() {
    let dir = folder("seal", "", COPY);
    let sealed = copied(&dir, &["--record-key", "key"]);
    assert!(record(&dir)["hmac"].is_string());
    std::fs::write(dir.join("new.plan"), COPY.replace("\"k\"", "\"k2\"")).unwrap();
    let readers: &[&[&str]] = &[
        &["check", "new.plan", "--progress", "p.json"],
        &[
            "compile",
            "new.plan",
            "--progress",
            "p.json",
            "-o",
            "ir.json",
        ],
        &["graph", "plan.plan", "--progress", "p.json"],
        &[
            "review",
            "plan.plan",
            "--progress",
            "p.json",
            "-o",
            "r.html",
        ],
        &[
            "invalidate",
            "plan.plan",
            "--progress",
            "p.json",
            "--event",
            "failed:read",
        ],
        &["diff", "plan.plan", "new.plan", "--progress", "p.json"],
    ];
    let mut edited: Value = serde_json::from_str(&sealed).unwrap();
    edited["steps"][1] = serde_json::json!({"name": "put", "tool": "kv.put", "status": "pending"});
    let mut unsealed: Value = serde_json::from_str(&sealed).unwrap();
    unsealed.as_object_mut().unwrap().remove("hmac");
    for args in readers {
        // Intact, under the key: read.
        std::fs::write(dir.join("p.json"), &sealed).unwrap();
        let with_key = [*args, &["--record-key", "key"]].concat();
        let (status, out) = planc(&dir, &with_key);
        assert!(status == 0 || status == 1, "{args:?}: {out}");
        assert!(!out.contains("hmac"), "{args:?}: {out}");
        // Edited, by the flag and by `[run] record_key`: refused.
        std::fs::write(dir.join("p.json"), edited.to_string()).unwrap();
        let (status, out) = planc(&dir, &with_key);
        assert_eq!(status, 2, "{args:?}: {out}");
        assert!(out.contains("does not match"), "{args:?}: {out}");
        std::fs::write(
            dir.join("planc.toml"),
            "catalog = [\"tools.plan\"]\npolicy = \"policy.plan\"\n[run]\nrecord_key = \"key\"\n",
        )
        .unwrap();
        let (status, out) = planc(&dir, args);
        assert_eq!(status, 2, "{args:?}: {out}");
        assert!(out.contains("does not match"), "{args:?}: {out}");
        // Unsealed: refused.
        std::fs::write(dir.join("p.json"), unsealed.to_string()).unwrap();
        let (status, out) = planc(&dir, args);
        assert_eq!(status, 2, "{args:?}: {out}");
        assert!(out.contains("no `hmac`"), "{args:?}: {out}");
        std::fs::write(
            dir.join("planc.toml"),
            "catalog = [\"tools.plan\"]\npolicy = \"policy.plan\"\n",
        )
        .unwrap();
    }
    // A key too short to be one is refused, not used.
    std::fs::write(dir.join("short"), "abc").unwrap();
    let (status, out) = planc(
        &dir,
        &[
            "check",
            "new.plan",
            "--progress",
            "p.json",
            "--record-key",
            "short",
        ],
    );
    assert_eq!(status, 2, "{out}");
    assert!(out.contains("at least 16"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `planc run NEW --progress RECORD` verified the record, then the check
/// of NEW read the file again: a record swapped between the two reads was
/// checked (here, one where the completed write never ran, so a replan
/// renaming it passed). The record is read once; the check takes that text.
/// The swap is made with a FIFO that gives the sealed record to the first
/// reader and the forged one to any later reader. Invariant: what is
/// verified is what is checked.
#[cfg(target_os = "linux")]
#[test]
fn a_record_swapped_after_its_verification_is_not_what_is_checked() {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

    let dir = folder("swap", "", COPY);
    let genuine = copied(&dir, &[]);
    let mut forged: Value = serde_json::from_str(&genuine).unwrap();
    forged["steps"][1] = serde_json::json!({"name": "put", "tool": "kv.put", "status": "pending"});
    let forged = forged.to_string();
    std::fs::write(
        dir.join("new.plan"),
        COPY.replace("step put =", "step put_again ="),
    )
    .unwrap();
    // Without a swap, the renamed write is E0307 (the control).
    let args = [
        "run",
        "new.plan",
        "--dry-run",
        "--approve",
        "put_again",
        "--progress",
        "swap.json",
    ];
    std::fs::write(dir.join("swap.json"), &genuine).unwrap();
    let (status, out) = planc(&dir, &args);
    assert_eq!(status, 2, "{out}");
    assert!(out.contains("E0307"), "{out}");
    // The forged record alone lets it through: the swap matters.
    std::fs::write(dir.join("swap.json"), &forged).unwrap();
    let (status, out) = planc(&dir, &args);
    assert_eq!(status, 0, "{out}");
    std::fs::remove_file(dir.join("swap.json")).unwrap();
    assert!(
        Command::new("mkfifo")
            .arg(dir.join("swap.json"))
            .status()
            .unwrap()
            .success()
    );
    let done = Arc::new(AtomicBool::new(false));
    let later_reads = Arc::new(AtomicUsize::new(0));
    let writer = {
        let (fifo, done, later_reads) = (dir.join("swap.json"), done.clone(), later_reads.clone());
        std::thread::spawn(move || {
            // The first reader: the genuine record.
            let mut f = std::fs::OpenOptions::new().write(true).open(&fifo).unwrap();
            f.write_all(genuine.as_bytes()).unwrap();
            drop(f);
            // Any later reader: the forged one. Opened with O_NONBLOCK,
            // which fails while nobody reads: first until the reader of
            // the genuine record has closed it, then for as long as
            // nobody opens the file again.
            let open = || {
                std::fs::OpenOptions::new()
                    .write(true)
                    .custom_flags(0o4000)
                    .open(&fifo)
            };
            while !done.load(Ordering::SeqCst) && open().is_ok() {
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
            while !done.load(Ordering::SeqCst) {
                match open() {
                    Ok(mut f) => {
                        later_reads.fetch_add(1, Ordering::SeqCst);
                        let _ = f.write_all(forged.as_bytes());
                        drop(f);
                        while !done.load(Ordering::SeqCst) && open().is_ok() {
                            std::thread::sleep(std::time::Duration::from_millis(1));
                        }
                    }
                    Err(_) => std::thread::sleep(std::time::Duration::from_millis(1)),
                }
            }
        })
    };
    let (status, out) = planc(&dir, &args);
    done.store(true, Ordering::SeqCst);
    writer.join().unwrap();
    assert_eq!(status, 2, "{out}");
    assert!(out.contains("E0307"), "{out}");
    assert_eq!(
        later_reads.load(Ordering::SeqCst),
        0,
        "the record was read twice"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

const PAY: &str = r#"plan pay "pay once" {
    step pay = memo.post(to: "acct_1", amount_eur: 50.00) { }
}
"#;

/// Finding 8: E0307 compared calls as written, so a completed write was
/// repeated under another name by spelling its call differently: `memo:
/// null` for an omitted `memo`, `50.0` for `50.00`. Calls are compared
/// normalised (absent = `null`, exact decimals); a call that differs only
/// in free text is W0405, which `--deny-warnings` makes stop the run.
/// Invariant: no committed write twice.
#[test]
fn a_completed_write_spelt_differently_is_the_same_call() {
    let dir = folder("spelt", "", PAY);
    let run = |plan: &str, extra: &[&str]| {
        let mut args = vec![
            "run",
            plan,
            "--tools",
            "fixture:tools.json",
            "--progress",
            "p.json",
            "--trace",
            "trace.jsonl",
        ];
        args.extend_from_slice(extra);
        planc(&dir, &args)
    };
    let (status, out) = run("plan.plan", &[]);
    assert_eq!(status, 0, "{out}");
    let trace = || std::fs::read_to_string(dir.join("trace.jsonl")).unwrap();
    let dispatches = || trace().matches("\"dispatch\"").count();
    assert_eq!(dispatches(), 1);
    for again in [
        "step pay_again = memo.post(to: \"acct_1\", amount_eur: 50.0, memo: null) { }",
        "step pay_again = memo.post(amount_eur: 50, to: \"acct_1\") { }",
    ] {
        std::fs::write(
            dir.join("again.plan"),
            PAY.replace(
                "step pay = memo.post(to: \"acct_1\", amount_eur: 50.00) { }",
                again,
            ),
        )
        .unwrap();
        let (status, out) = run("again.plan", &[]);
        assert_eq!(status, 2, "{again}: {out}");
        assert!(out.contains("E0307"), "{again}: {out}");
        assert_eq!(dispatches(), 1, "{again}");
    }
    // Free text only: perhaps the same effect. Said, and refused under
    // `--deny-warnings`.
    std::fs::write(
        dir.join("again.plan"),
        PAY.replace(
            "step pay = memo.post(to: \"acct_1\", amount_eur: 50.00) { }",
            "step pay_again = memo.post(to: \"acct_1\", amount_eur: 50.00, memo: \"again\") { }",
        ),
    )
    .unwrap();
    let (status, out) = run("again.plan", &["--deny-warnings"]);
    assert_eq!(status, 2, "{out}");
    assert!(out.contains("W0405"), "{out}");
    assert_eq!(dispatches(), 1);
    let _ = std::fs::remove_dir_all(&dir);
}

const READ: &str = r#"plan fetch "read a value" {
    replans 5
    step read = kv.get(key: "k") { bind v = $.value }
}
"#;

/// Finding 9: the replan budget was the plan's own `replans N` (set by the
/// planner it is meant to stop): left out or raised, it bounded nothing.
/// The policy's `replans <= N` bounds every plan (the stricter wins), and
/// the run counts a plan whose fingerprint is not the record's as a
/// replan, even with the record's name and steps, and refuses one over
/// the budget in every driver (the machine holds it); the same plan
/// compiled against its own record is a resume. Invariant: the operator
/// bounds how often a plan is redone.
#[test]
fn the_operator_bounds_replans_and_a_changed_plan_is_one() {
    let dir = folder("budget", "    replans <= 1\n", READ);
    let run = |plan: &str| {
        planc(
            &dir,
            &[
                "run",
                plan,
                "--tools",
                "fixture:tools.json",
                "--progress",
                "p.json",
            ],
        )
    };
    let (status, out) = run("plan.plan");
    assert_eq!(status, 0, "{out}");
    assert_eq!(record(&dir)["replans_used"], 0);
    // Same name, same steps, another key: the run counts a replan.
    std::fs::write(dir.join("b.plan"), READ.replace("\"k\"", "\"k2\"")).unwrap();
    let (status, out) = run("b.plan");
    assert_eq!(status, 0, "{out}");
    assert_eq!(record(&dir)["replans_used"], 1);
    // The same plan run again against its own record, compiled against it
    // (`reuse`, `progress`): a resume, however often, by the record's plan
    // fingerprint.
    for _ in 0..2 {
        let (status, out) = run("b.plan");
        assert_eq!(status, 0, "{out}");
        assert_eq!(record(&dir)["replans_used"], 1, "{out}");
    }
    // Back to the first key: the record's name, steps and tools again, but
    // its complete step would be called again with another call: a
    // second replan, refused by the check.
    let (status, out) = run("plan.plan");
    assert_eq!(status, 2, "{out}");
    assert!(
        out.contains("E0305") && out.contains("completed with another call"),
        "{out}"
    );
    assert_eq!(record(&dir)["replans_used"], 1);
    // The same plan's IR, compiled without the record and run with it: no
    // check of the budget runs, and the machine, which has both plan
    // fingerprints, refuses it before any call (every driver asks it).
    let (status, out) = planc(&dir, &["compile", "plan.plan", "-o", "a.ir.json"]);
    assert_eq!(status, 0, "{out}");
    let (status, out) = planc(
        &dir,
        &[
            "run",
            "--ir",
            "a.ir.json",
            "--tools",
            "fixture:tools.json",
            "--progress",
            "p.json",
        ],
    );
    assert_eq!(status, 2, "{out}");
    assert!(
        out.contains("E0305") && out.contains("1 of its 1 replans"),
        "{out}"
    );
    // The refusal names both plans: the record's and this one's.
    let ir: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("a.ir.json")).unwrap()).unwrap();
    let recorded = record(&dir)["fingerprint"].as_str().unwrap().to_string();
    assert!(
        out.contains(&format!("the record is of plan {recorded}"))
            && out.contains(&format!(
                "this is plan {}",
                ir["fingerprint"].as_str().unwrap()
            )),
        "{out}"
    );
    assert_eq!(record(&dir)["replans_used"], 1);
    // A second replan: the plan allows itself 5, the operator 1.
    let second = READ.replace("}\n}", "}\n    step more = kv.get(key: \"k3\") { }\n}");
    std::fs::write(dir.join("c.plan"), &second).unwrap();
    let (status, out) = run("c.plan");
    assert_eq!(status, 2, "{out}");
    assert!(out.contains("E0305"), "{out}");
    // Leaving `replans` out does not lift the operator's bound either.
    std::fs::write(dir.join("d.plan"), second.replace("    replans 5\n", "")).unwrap();
    let (status, out) = run("d.plan");
    assert_eq!(status, 2, "{out}");
    assert!(out.contains("E0305"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}
