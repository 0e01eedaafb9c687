//! `planc graph` and `planc review`, run as a user runs them: the graphs of
//! the examples (snapshots), the review page's promises that need no
//! browser (self-contained, escaped, deterministic, written atomically),
//! and the failures. The page in a real browser: `tests/browser/`.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const EXAMPLES: [(&str, &str); 3] = [
    ("northwind", "examples/northwind/downgrade.plan"),
    ("config_dag", "examples/config_dag/provision.plan"),
    ("pallet_credit", "examples/pallet_credit/credit.plan"),
];

const HOSTILE: &str = "tests/browser/hostile/hostile.plan";

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_planc"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("NO_COLOR")
        .args(args)
        .output()
        .unwrap()
}

fn ok(args: &[&str]) -> String {
    let o = run(args);
    assert_eq!(
        o.status.code(),
        Some(0),
        "planc {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        o.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).unwrap()
}

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn graphs_of_the_examples() {
    for (name, plan) in EXAMPLES {
        let dot = ok(&["graph", plan]);
        insta::assert_snapshot!(format!("{name}.dot"), dot);
        let mermaid = ok(&["graph", "--format", "mermaid", plan]);
        insta::assert_snapshot!(format!("{name}.mermaid"), mermaid);
        // The JSON form of the plan draws the same graph.
        let json = format!("{plan}.json");
        assert_eq!(ok(&["graph", &json]), dot, "{json}");
        assert_eq!(
            ok(&["graph", "--format", "mermaid", &json]),
            mermaid,
            "{json}"
        );
    }
}

#[test]
fn graphs_keep_hostile_text_inside_their_strings() {
    let dot = ok(&["graph", HOSTILE]);
    // The goal is one DOT string: its quotes are escaped.
    let label = dot
        .lines()
        .find(|l| l.trim_start().starts_with("label="))
        .unwrap();
    assert_eq!(
        label,
        r#"  label="</script><img src=x onerror=\"window.__pwned='goal'\"><script>window.__pwned='goal-script'</script>";"#
    );
    let mermaid = ok(&["graph", "--format", "mermaid", HOSTILE]);
    // The title and every label are entity codes.
    let title = mermaid.lines().nth(1).unwrap();
    assert_eq!(
        title,
        "title: \"#60;/script#62;#60;img src=x onerror=#34;window.__pwned='goal'#34;#62;\
         #60;script#62;window.__pwned='goal-script'#60;/script#62;\""
    );
    for line in mermaid.lines().skip(3) {
        let mut label = line.split('"').nth(1).unwrap_or_default().to_string();
        for tag in ["<b>", "</b>", "<br/>", "<i>", "</i>"] {
            label = label.replace(tag, "");
        }
        assert!(!label.contains(['<', '>']), "{line}");
    }
}

/// The tags a review page may use. Every `<` of the page opens one of
/// them: the planner's text is escaped, so none of its `<` is left.
const TAGS: &[&str] = &[
    "!DOCTYPE", "html", "head", "meta", "title", "style", "body", "header", "main", "section",
    "footer", "h1", "h2", "h3", "p", "code", "pre", "a", "dl", "dt", "dd", "div", "ul", "ol", "li",
    "span", "b", "table", "thead", "tbody", "tr", "th", "td", "article", "svg", "defs", "marker",
    "path", "g", "rect", "text", "wbr",
];

/// Every tag is one of [`TAGS`], no attribute runs code or loads anything,
/// links stay on the page, and a content security policy forbids loading.
fn assert_self_contained(page: &str, what: &str) {
    let style_end = page.find("</style>").unwrap();
    let mut rest = &page[style_end + "</style>".len()..];
    let head = &page[..page.find("<style>").unwrap()];
    let mut tags = Vec::new();
    for part in head.split('<').skip(1) {
        tags.push(part.split('>').next().unwrap().to_string());
    }
    while let Some(at) = rest.find('<') {
        rest = &rest[at + 1..];
        let end = rest
            .find('>')
            .unwrap_or_else(|| panic!("{what}: an unclosed tag"));
        tags.push(rest[..end].to_string());
        rest = &rest[end..];
    }
    for tag in &tags {
        let body = tag.trim_start_matches('/');
        let name = body.split([' ', '/']).next().unwrap();
        assert!(TAGS.contains(&name), "{what}: tag `<{tag}>`");
        let lower = body.to_ascii_lowercase();
        for attr in lower.split_whitespace().skip(1) {
            assert!(!attr.starts_with("on"), "{what}: handler in `<{tag}>`");
            assert!(!attr.starts_with("src="), "{what}: `<{tag}>`");
            if let Some(href) = attr.strip_prefix("href=") {
                assert!(
                    href.starts_with("\"#"),
                    "{what}: link off the page in `<{tag}>`"
                );
            }
        }
        assert!(
            !lower.contains("url(") || lower.contains("url(#"),
            "{what}: `<{tag}>`"
        );
    }
    let style = &page[page.find("<style>").unwrap()..style_end];
    assert!(
        !style.contains("@import") && !style.contains("url("),
        "{what}: the style loads"
    );
    assert!(page.contains(
        "Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\""
    ));
}

#[test]
fn review_pages_are_self_contained_and_complete() {
    for (name, plan) in EXAMPLES {
        let page = ok(&["review", plan]);
        assert!(page.starts_with("<!DOCTYPE html>\n"), "{name}");
        assert_self_contained(&page, name);
        let ir: serde_json::Value =
            serde_json::from_slice(&run(&["compile", plan]).stdout).unwrap();
        for step in ir["steps"].as_array().unwrap() {
            let card = format!("data-step=\"{}\"", step["name"].as_str().unwrap());
            assert_eq!(page.matches(&card).count(), 1, "{name}: {card}");
        }
        let goal = ir["goal"].as_str().unwrap();
        assert!(
            page.contains(&format!("<h1 id=\"goal\">{goal}</h1>")),
            "{name}"
        );
        // Deterministic: the same plan gives the same bytes.
        assert_eq!(ok(&["review", plan]), page, "{name}");
    }
}

#[test]
fn review_page_escapes_what_the_planner_wrote() {
    let page = ok(&["review", HOSTILE]);
    assert_self_contained(&page, "hostile");
    assert!(page.contains(
        "<h1 id=\"goal\">&lt;/script&gt;&lt;img src=x onerror=&quot;window.__pwned=&#39;goal&#39;&quot;&gt;"
    ));
    for raw in [
        "<img",
        "<svg onload",
        "</pre><svg",
        "<style>*",
        "<script>window",
    ] {
        assert!(!page.contains(raw), "`{raw}` reached the page unescaped");
    }
    // The only `<style` is the page's own.
    assert_eq!(page.matches("<style").count(), 1);
}

#[test]
fn review_writes_the_page_atomically() {
    let dir = scratch("review_out");
    let out = dir.join("review.html");
    std::fs::write(&out, "old").unwrap();
    let o = run(&["review", EXAMPLES[0].1, "-o", out.to_str().unwrap()]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(o.stdout.is_empty());
    let page = std::fs::read_to_string(&out).unwrap();
    assert_eq!(page, ok(&["review", EXAMPLES[0].1]));
    let names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["review.html"], "a temporary file was left behind");
    // Into a folder that does not exist: a failed command, nothing written.
    let o = run(&[
        "review",
        EXAMPLES[0].1,
        "-o",
        dir.join("no/such.html").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("cannot write"));
}

#[test]
fn a_plan_with_errors_has_no_graph_and_a_page_that_refuses_it() {
    let dir = scratch("view_errors");
    let plan = dir.join("broken.plan");
    std::fs::write(
        &plan,
        "tool x.y(n: int) -> { ok: bool } read\n\
         policy p { actor [a:b] x.y requires [a:b] }\n\
         plan p \"g\" {\n    step a = x.y(n: \"one\") { post $.ok == true }\n}\n",
    )
    .unwrap();
    let o = run(&["graph", plan.to_str().unwrap(), "--color", "never"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(o.stdout.is_empty());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("Error") && err.contains("1 error"), "{err}");
    // The page says at the top that the plan cannot run, lists the error,
    // and offers nothing to approve.
    let out = dir.join("page.html");
    let o = run(&[
        "review",
        plan.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--color",
        "never",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("1 error"), "{err}");
    let page = std::fs::read_to_string(&out).unwrap();
    assert_self_contained(&page, "refused");
    let top = &page[page.find("<body>").unwrap()..page.find("</header>").unwrap()];
    assert!(top.contains("This plan cannot run"), "{top}");
    assert!(
        top.contains("<b>Nothing to approve:</b> 1 error and 0 warnings"),
        "{top}"
    );
    assert!(
        page.contains("<code class=\"code\">E0201</code>") || page.contains("finding-error"),
        "{page}"
    );
    assert!(!page.contains("id=\"approve\""));
    assert!(!page.contains("planc run"));
}

#[test]
fn a_file_of_two_plans_is_refused() {
    let dir = scratch("view_two_plans");
    let plan = dir.join("two.plan");
    std::fs::write(
        &plan,
        "tool x.y(n: int) -> { ok: bool } read\n\
         policy p { actor [a:b] x.y requires [a:b] }\n\
         plan p \"g\" { step a = x.y(n: 1) { post $.ok == true } }\n\
         plan q \"h\" { step b = x.y(n: 2) { post $.ok == true } }\n",
    )
    .unwrap();
    let o = run(&["graph", plan.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("holds 2 plans (`p`, `q`)"), "{err}");
}

/// The configuration example's record where fetching the schema failed:
/// `provision_db` and `generate_report` read its data.
const FAILED_RECORD: &str = "tests/browser/progress/schema_fetch_failed.json";
const CONFIG: &str = "examples/config_dag/provision.plan";
const REPLAN: &str = "examples/config_dag/replan.plan";
const RECORD: &str = "examples/config_dag/progress.json";

#[test]
fn graphs_with_a_progress_record_show_statuses_and_the_invalidated_subgraph() {
    let dot = ok(&["graph", CONFIG, "--progress", FAILED_RECORD]);
    insta::assert_snapshot!("config_dag.progress.dot", dot);
    let mermaid = ok(&[
        "graph",
        "--format",
        "mermaid",
        CONFIG,
        "--progress",
        FAILED_RECORD,
    ]);
    insta::assert_snapshot!("config_dag.progress.mermaid", mermaid);
    // Without a record, no status and no subgraph.
    let plain = ok(&["graph", CONFIG]);
    for word in ["complete", "pending", "invalidated", "#b42318"] {
        assert!(!plain.contains(word), "{word}");
    }
}

#[test]
fn review_with_a_record_says_where_the_run_stands() {
    let page = ok(&["review", CONFIG, "--progress", FAILED_RECORD]);
    assert_self_contained(&page, "config_dag --progress");
    assert!(page.contains(
        "<dd id=\"fact-progress\"><a href=\"#progress\">2 complete, 1 failed, 2 pending</a>; 0 of 1 replans used</dd>"
    ));
    assert!(page.contains("data-step=\"fetch_schema\" data-status=\"failed\">"));
    assert!(page.contains(
        "<article class=\"card write approval guard status-pending invalidated\" id=\"step-3\" data-step=\"provision_db\" data-status=\"pending\">"
    ));
    // The subgraph: the failed step and the two reading its data, not the
    // configuration before it.
    let subgraph = &page[page
        .find("<ul class=\"items\" id=\"invalidated\">")
        .unwrap()..];
    let subgraph = &subgraph[..subgraph.find("</ul>").unwrap()];
    assert_eq!(subgraph.matches("<li").count(), 3, "{subgraph}");
    assert!(
        subgraph
            .contains("<code>provision_db</code></a>: reads data from <code>fetch_schema</code>")
    );
    assert!(
        subgraph.contains(
            "<code>generate_report</code></a>: reads data from <code>fetch_schema</code>"
        )
    );
    assert!(!subgraph.contains("parse_config"));
    // The graph draws it: a heavy data edge, outlined nodes.
    assert_eq!(
        page.matches("edge edge-data edge-invalidated").count(),
        4,
        "two per drawing"
    );
    assert_eq!(ok(&["review", CONFIG, "--progress", FAILED_RECORD]), page);
}

#[test]
fn review_against_the_earlier_plan_shows_the_delta() {
    let page = ok(&["review", REPLAN, "--against", CONFIG, "--progress", RECORD]);
    assert_self_contained(&page, "replan --against");
    assert!(page.contains(
        "<dd id=\"fact-delta\"><a href=\"#delta\">1 added, 0 removed, 1 changed</a>; 4 unchanged</dd>"
    ));
    assert!(page.contains("<ul class=\"items\" id=\"delta-added\">\n<li class=\"item\"><p><a href=\"#step-3\"><code>migrate_schema</code></a>"));
    assert!(page.contains(
        "<tr><td><code>args.<wbr>schema_version</code></td><td><code>schema_version</code></td><td><code>migrated_version</code></td></tr>"
    ));
    assert!(page.contains("reused, not run again"));
    assert!(page.contains("<span class=\"state\">pending · added</span>"));
    // The record stopped at `provision_db`'s precondition: this plan
    // rewrites it, so it is not shown as invalid.
    assert!(
        page.contains("<span class=\"state\">rewritten · changed</span>"),
        "{page}"
    );
    assert!(page.contains("was invalid in the plan it replaces, rewritten here"));
    // The same plan against itself: nothing changed.
    let same = ok(&["review", CONFIG, "--against", CONFIG]);
    assert!(same.contains("The two plans have the same steps, alike in every field."));
    assert!(!same.contains("id=\"delta-added\""));
    // A removed step that had completed is said to stay done.
    let back = ok(&["review", CONFIG, "--against", REPLAN, "--progress", RECORD]);
    assert!(back.contains("<ul class=\"items\" id=\"delta-removed\">\n<li class=\"item\"><p><code>migrate_schema</code> <code>schema.<wbr>migrate</code></p></li>"));
}

#[test]
fn a_bad_record_or_earlier_plan_is_refused() {
    let dir = scratch("view_bad_inputs");
    let record = dir.join("progress.json");
    std::fs::write(&record, "{\"progress_version\": \"1.0\", \"plan\": \"p\"}").unwrap();
    let broken = dir.join("broken.plan");
    std::fs::write(
        &broken,
        "plan provision_and_report \"g\" {\n    step a = fs.fetch(path: 1)\n}\n",
    )
    .unwrap();
    let out = dir.join("page.html");
    let out = out.to_str().unwrap();
    // A malformed record stops the compile as it stops `planc compile`:
    // no graph, and a page that refuses the plan, naming the record's
    // error.
    let o = run(&[
        "graph",
        CONFIG,
        "--progress",
        record.to_str().unwrap(),
        "--color",
        "never",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(o.stdout.is_empty());
    let o = run(&[
        "review",
        CONFIG,
        "-o",
        out,
        "--progress",
        record.to_str().unwrap(),
        "--color",
        "never",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let page = std::fs::read_to_string(out).unwrap();
    assert!(
        page.contains("This plan cannot run") && page.contains("E0601"),
        "{page}"
    );
    std::fs::remove_file(out).unwrap();
    // A broken earlier plan: no page.
    let o = run(&[
        "review",
        CONFIG,
        "-o",
        out,
        "--against",
        broken.to_str().unwrap(),
        "--color",
        "never",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("Error") && err.contains("1 error"), "{err}");
    assert!(!Path::new(out).exists());
    let o = run(&["graph", CONFIG, "--progress", "no/such.json"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn a_record_or_earlier_plan_of_another_plan_is_refused() {
    let dir = scratch("view_other_plan");
    let record = dir.join("other.json");
    std::fs::write(
        &record,
        r#"{"progress_version": "1.0", "plan": "refund", "replans_used": 0, "steps": [{"name": "lookup", "tool": "t.get", "status": "pending"}]}"#,
    )
    .unwrap();
    let out = dir.join("page.html");
    for args in [
        vec!["graph", CONFIG, "--progress", record.to_str().unwrap()],
        vec![
            "review",
            CONFIG,
            "-o",
            out.to_str().unwrap(),
            "--progress",
            record.to_str().unwrap(),
        ],
        vec![
            "review",
            CONFIG,
            "-o",
            out.to_str().unwrap(),
            "--against",
            "examples/northwind/downgrade.plan",
        ],
    ] {
        let o = run(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains("shares no step with plan `provision_and_report`"),
            "{args:?}: {err}"
        );
    }
    assert!(!out.exists());
}

#[test]
fn the_page_of_a_replan_shows_what_compile_runs() {
    // The record's `provision_db` stopped at its precondition (pending,
    // with a failure): the run's truth is that it is invalid, and the
    // invalidated subgraph starts there.
    let page = ok(&["review", CONFIG, "--progress", RECORD]);
    assert!(
        page.contains("data-step=\"provision_db\" data-status=\"invalid\">"),
        "{page}"
    );
    assert!(!page.contains("id=\"invalidated-none\""));
    assert!(
        page.contains("expected <code>schema_tables contains &quot;users&quot;</code>"),
        "{page}"
    );
    assert!(
        !page.contains("{&quot;probe&quot;"),
        "failures in plan syntax, not JSON"
    );
    // The replan's IR reads the recorded size (120, within 200): no guard
    // is left for the run, and the page lists none.
    let replan = ok(&["review", REPLAN, "--against", CONFIG, "--progress", RECORD]);
    let ir = String::from_utf8(run(&["compile", REPLAN, "--progress", RECORD]).stdout).unwrap();
    assert!(ir.contains("\"reuse\":true"), "{ir}");
    assert_eq!(
        ir.contains("\"guards\":[{"),
        replan.contains("id=\"guards\"")
    );
    assert!(
        replan.contains("<p id=\"glance-runs\"><b>3 steps will run</b>; 3 are reused"),
        "{replan}"
    );
    // The change list comes first, above the approval.
    let changes = replan.find("id=\"glance-changes\"").unwrap();
    assert!(changes < replan.find("id=\"approve\"").unwrap());
    assert!(replan.contains(
        "<span class=\"mark\" aria-label=\"added\">+</span> <code>migrate_schema</code>"
    ));
    assert!(replan.contains(
        "<span class=\"mark\" aria-label=\"changed\">~</span> <code>provision_db</code>"
    ));
    // The command runs what was reviewed: the fingerprint of the very IR
    // `planc compile --progress` writes.
    let fingerprint = serde_json::from_str::<serde_json::Value>(&ir).unwrap()["fingerprint"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(replan.contains(&format!(
        "<pre class=\"command\" id=\"run-command\">planc run examples/config_dag/replan.plan --progress examples/config_dag/progress.json --approve provision_db --fingerprint {fingerprint}</pre>"
    )), "{replan}");
    assert!(replan.contains(&format!("<code id=\"fingerprint\">{fingerprint}</code>")));
    // A replan that repeats a completed non-idempotent write is refused on
    // the page as by `planc compile`.
    let dir = scratch("view_replan_errors");
    let plan = dir.join("twice.plan");
    std::fs::write(
        &plan,
        "tool pay.credit(amount: decimal) -> { id: string } write\n\
         policy p { actor [a:b] pay.credit requires [a:b] }\n\
         plan credit \"g\" {\n    step again = pay.credit(amount: 10.00) { post exists($.id) }\n}\n",
    )
    .unwrap();
    let rec = dir.join("progress.json");
    std::fs::write(
        &rec,
        r#"{"progress_version": "1.0", "plan": "credit", "replans_used": 0, "steps": [{"name": "first", "tool": "pay.credit", "status": "complete", "effect": "write", "idempotent": false, "attempts": 1, "args": {"amount": 10.00}, "binds": {}}]}"#,
    )
    .unwrap();
    let out = dir.join("page.html");
    let o = run(&[
        "review",
        plan.to_str().unwrap(),
        "--progress",
        rec.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--color",
        "never",
    ]);
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let page = std::fs::read_to_string(&out).unwrap();
    assert!(
        page.contains("This plan cannot run") && page.contains("E0307"),
        "{page}"
    );
}

#[test]
fn arguments_are_shown_as_written_and_the_header_lists_each_write() {
    let page = ok(&["review", CONFIG]);
    // `region, size_gb, schema_version` as the plan writes them, not
    // sorted.
    assert!(page.contains(
        "<span class=\"ln arg\">    region: settings.region,</span>\n<span class=\"ln arg\">    size_gb: settings.db_size_gb,</span>\n<span class=\"ln arg\">    schema_version: schema_version,</span>"
    ), "{page}");
    let glance = &page[page.find("id=\"glance\"").unwrap()..page.find("</header>").unwrap()];
    assert!(
        glance.contains("<code class=\"tool\">db.provision</code>"),
        "{glance}"
    );
    assert!(
        glance.contains("limits <code>size_gb &lt;= 200</code>; <b>needs your approval</b>"),
        "{glance}"
    );
    assert!(glance.contains("<span id=\"count-errors\">0 errors</span>"));
    // No compiler words on the page.
    for word in ["the IR", "IR carries", "executor", "lowering"] {
        let body = &page[page.find("<body>").unwrap()..page.find("<footer>").unwrap()];
        assert!(!body.contains(word), "{word}");
    }
}

#[test]
fn step_cards_show_preconditions() {
    let dir = scratch("view_pre");
    let plan = dir.join("pre.plan");
    std::fs::write(
        &plan,
        "tool s.get(name: string) -> { tables: [string], size: int } read\n\
         tool s.use(size: int) -> { ok: bool } read\n\
         policy p { actor [a:b] s.get requires [a:b] s.use requires [a:b] }\n\
         plan p \"g\" {\n\
         \x20   step get = s.get(name: \"x\") { bind tables = $.tables  bind size = $.size }\n\
         \x20   step use = s.use(size: size) {\n\
         \x20       pre tables contains \"users\"\n\
         \x20       pre size <= 500\n\
         \x20       post $.ok == true\n\
         \x20   }\n\
         }\n",
    )
    .unwrap();
    let page = ok(&["review", plan.to_str().unwrap()]);
    assert!(
        page.contains(
            "<div class=\"pre-row\"><dt>Pre</dt><dd><ul class=\"plain\"><li><code>tables contains &quot;users&quot;</code></li><li><code>size &lt;= 500</code></li></ul></dd></div>"
        ),
        "{page}"
    );
    assert_eq!(page.matches("<dt>Pre</dt>").count(), 1);
}

#[test]
fn hidden_characters_are_shown_escaped_on_the_page_and_in_every_report() {
    let dir = scratch("view_hidden");
    let plan = dir.join("trojan.plan");
    std::fs::write(
        &plan,
        "tool b.credit(account_id: string) -> { id: string } write\n\
         policy p { actor [a:b] b.credit requires [a:b] }\n\
         plan p \"credit \u{200B}acc_4711\" {\n    step credit = b.credit(account_id: \"acc_4711\u{202E}\u{2066}9999\u{2069}\") { post exists($.id) }\n}\n",
    )
    .unwrap();
    let page = ok(&["review", plan.to_str().unwrap()]);
    assert!(
        page.contains("acc_4711\\u{202E}\\u{2066}9999\\u{2069}"),
        "{page}"
    );
    assert!(page.contains("credit \\u{200B}acc_4711"));
    for c in ['\u{202E}', '\u{2066}', '\u{2069}', '\u{200B}'] {
        assert!(!page.contains(c), "{c:?} reaches the page");
    }
    for format in ["human", "short", "json"] {
        let o = run(&[
            "check",
            plan.to_str().unwrap(),
            "--format",
            format,
            "--color",
            "never",
        ]);
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(text.contains("W0408"), "{format}: {text}");
        if format != "json" {
            // JSON carries the file's positions and escapes by its own
            // rules; the terminal formats show the escape.
            for c in ['\u{202E}', '\u{2066}', '\u{2069}', '\u{200B}'] {
                assert!(
                    !text.contains(c),
                    "{format}: {c:?} reaches the terminal: {text}"
                );
            }
        }
    }
    // The report names the file's column, not the excerpt's.
    let o = run(&[
        "check",
        plan.to_str().unwrap(),
        "--format",
        "human",
        "--color",
        "never",
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("trojan.plan:4:49 ]"), "{err}");
    // U+2069 is the 55th character of its line, though the excerpt shows
    // two escapes before it.
    assert!(err.contains("trojan.plan:4:55 ]"), "{err}");
}

#[test]
fn review_refuses_to_write_html_to_a_terminal() {
    // `script` gives the command a terminal for standard output.
    let planc = env!("CARGO_BIN_EXE_planc");
    let Ok(o) = Command::new("script")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "-qec",
            &format!("{planc} review {CONFIG}; echo status=$?"),
            "/dev/null",
        ])
        .output()
    else {
        eprintln!("no `script` here: the terminal case is not run");
        return;
    };
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("write it to a file with `-o review.html`"),
        "{text}"
    );
    assert!(text.contains("status=2"), "{text}");
    assert!(!text.contains("<!DOCTYPE"), "{text}");
}

#[test]
fn check_of_a_valid_record_says_so_and_diff_colours_on_request() {
    let o = run(&["check", RECORD, "--color", "never"]);
    assert_eq!(o.status.code(), Some(0));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("`examples/config_dag/progress.json`: a valid progress record of plan `provision_and_report`: 5 steps (3 complete, 2 pending), 0 replans used"),
        "{err}"
    );
    let coloured =
        String::from_utf8(run(&["diff", CONFIG, REPLAN, "--color", "always"]).stdout).unwrap();
    assert!(
        coloured.contains("\x1b[32m+ migrate_schema\x1b[0m"),
        "{coloured:?}"
    );
    assert!(
        coloured.contains("\x1b[33m~ provision_db\x1b[0m"),
        "{coloured:?}"
    );
    let plain =
        String::from_utf8(run(&["diff", CONFIG, REPLAN, "--color", "never"]).stdout).unwrap();
    assert!(!plain.contains('\x1b') && plain.contains("+ migrate_schema"));
}
