//! Lexing and parsing of generated plans of 10, 1,000 and 100,000 steps,
//! beside `serde_json` reading a JSON document of the same size: the
//! front end should cost the same order as reading JSON.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use planc::FileId;
use planc::syntax::parser::Strategy;
use planc::syntax::{lexer, parse_text_with};
use std::hint::black_box;

/// A plan of `n` steps in the style of the Northwind example.
fn plan(n: usize) -> String {
    let mut s = String::from("plan generated \"a generated plan\" {\n    replans 2\n");
    for i in 0..n {
        s.push_str(&format!(
            "    step s{i} = billing.issue_credit(account_id: acct{i}, amount_eur: 12.50, reason: \"refund for ${{order{i}.id}}\", tags: [\"a\", \"b\"], on: 2026-03-04) {{\n        post $.status == \"ok\"\n        post len($.items) == 1\n        bind credit{i} = $.items[0].id\n        on_unmet replan\n    }}\n"
        ));
    }
    s.push_str("}\n");
    s
}

/// A JSON document of about `len` bytes, shaped like the JSON plan form.
fn json(len: usize) -> String {
    let mut s = String::from("{\"goal\": \"a generated plan\", \"steps\": [\n");
    let mut i = 0;
    while s.len() < len {
        if i > 0 {
            s.push_str(",\n");
        }
        s.push_str(&format!(
            "{{\"n\": {i}, \"tool\": \"billing.issue_credit\", \"args\": {{\"account_id\": \"${{acct{i}}}\", \"amount_eur\": 12.50, \"reason\": \"refund for ${{order{i}.id}}\", \"tags\": [\"a\", \"b\"], \"on\": \"2026-03-04\"}}, \"post\": [{{\"probe\": \"field_equals\", \"path\": \"$.status\", \"value\": \"ok\"}}, {{\"probe\": \"result_count\", \"path\": \"$.items\", \"equals\": 1}}], \"binds\": {{\"credit{i}\": \"$.items[0].id\"}}, \"on_unmet\": \"replan\"}}"
        ));
        i += 1;
    }
    s.push_str("]}\n");
    s
}

fn bench(c: &mut Criterion) {
    for steps in [10usize, 1_000, 100_000] {
        let text = plan(steps);
        let doc = json(text.len());
        let mut group = c.benchmark_group(format!("parse/{steps}_steps"));
        if steps >= 100_000 {
            group.sample_size(10);
        }
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_function(BenchmarkId::new("lex", text.len()), |b| {
            b.iter(|| lexer::lex(FileId(0), black_box(&text)).tokens.len())
        });
        group.bench_function(BenchmarkId::new("lex+parse (fast path)", text.len()), |b| {
            b.iter(|| parse_text_with(FileId(0), black_box(&text), Strategy::FastThenRich))
        });
        group.bench_function(BenchmarkId::new("lex+parse (rich only)", text.len()), |b| {
            b.iter(|| parse_text_with(FileId(0), black_box(&text), Strategy::RichOnly))
        });
        group.throughput(Throughput::Bytes(doc.len() as u64));
        group.bench_function(BenchmarkId::new("serde_json::Value", doc.len()), |b| {
            b.iter(|| {
                serde_json::from_str::<serde_json::Value>(black_box(&doc)).map(|v| v.is_object())
            })
        });
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
