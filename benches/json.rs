//! The JSON front end against serde_json on the same bytes: our value parse
//! (spans, exact numbers), our full plan read (value parse, pointer table,
//! syntax tree), and `serde_json::from_str::<serde_json::Value>`, at 10,
//! 1,000 and 100,000 steps. Run with
//! `cargo bench --bench json -- --warm-up-time 1 --measurement-time 3`.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use planc::FileId;
use planc::syntax::{json, read_json_plan};

/// A plan of `n` steps in the shape planners write: every step has
/// arguments (one a reference, one a record), a probe, binds and clauses.
fn plan(n: usize) -> String {
    let mut s = String::from(
        "{\"goal\": \"a generated plan\", \"budget\": {\"replans\": 2}, \"steps\": [\n",
    );
    for i in 0..n {
        if i > 0 {
            s.push_str(",\n");
        }
        let prev = if i == 0 {
            "\"seed\"".to_string()
        } else {
            format!("\"${{id_{}}}\"", i - 1)
        };
        s.push_str(&format!(
            "  {{\"n\": {i}, \"tool\": \"billing.get_subscription\", \
             \"args\": {{\"account_id\": {prev}, \"as_of\": \"2026-03-04\", \"amount_eur\": 125.50, \
             \"facts\": {{\"plan\": \"starter\", \"note\": \"renews on ${{period_end}}\"}}}}, \
             \"post\": {{\"probe\": \"field_in\", \"path\": \"$.commitment\", \"values\": [\"none\", \"monthly\"]}}, \
             \"binds\": {{\"id_{i}\": \"$.results[0].id\", \"end_{i}\": \"$.current_period_end\"}}, \
             \"on_unmet\": \"replan\", \"retry\": 1}}"
        ));
    }
    s.push_str("\n]}\n");
    s
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("json");
    for n in [10usize, 1_000, 100_000] {
        let text = plan(n);
        group.throughput(Throughput::Bytes(text.len() as u64));
        if n >= 100_000 {
            group.sample_size(10);
        } else {
            group.sample_size(50);
        }
        group.bench_with_input(BenchmarkId::new("serde_json_value", n), &text, |b, t| {
            b.iter(|| {
                serde_json::from_str::<serde_json::Value>(black_box(t)).map(|v| v.is_object())
            })
        });
        group.bench_with_input(BenchmarkId::new("planc_value", n), &text, |b, t| {
            b.iter(|| json::parse(FileId(0), black_box(t)).map(|v| v.span))
        });
        group.bench_with_input(BenchmarkId::new("planc_plan_read", n), &text, |b, t| {
            b.iter(|| {
                let (module, diags) = read_json_plan(FileId(0), black_box(t));
                assert!(diags.is_empty());
                module.items.len()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
