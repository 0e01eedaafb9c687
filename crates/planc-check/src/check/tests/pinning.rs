//! Picks from a list pinned by the step's probes, on the Northwind plan: the
//! plan clean when pinned, W0401 when `[0]` may pick any of several results,
//! and which `post` probes (together, or `count`) pin it.

use super::*;

#[test]
fn northwind_pinned_is_clean() {
    let (_, out) = run(vec![
        resolve_step(vec![
            post_len("$.results", CmpOp::Eq, "1"),
            bind("account_id", "$.results[0].id"),
        ]),
        subscription_step(),
        change_step(),
    ]);
    assert_eq!(codes(&out), vec![Code::N0301], "{:#?}", out.diagnostics);
    let p = &out.plans[0];
    assert_eq!(p.approvals, vec![2]);
    assert_eq!(p.scopes, vec!["billing:read", "billing:write", "crm:read"]);
    let change = &p.steps[2];
    assert_eq!(
        change
            .depends_on
            .iter()
            .map(|d| (d.step, d.reason))
            .collect::<Vec<_>>(),
        vec![(1, DepReason::Data)]
    );
    assert!(
        matches!(&change.args[0].value.kind, ValueKind::Ref(r) if r.binding == "sub_id" && r.step == 1)
    );
    assert_eq!(p.schedule, Some(vec![vec![0], vec![1], vec![2]]));
    // The default of `include_children` is filled in... only when not given.
    assert_eq!(p.steps[0].args.len(), 2);
}

#[test]
fn northwind_unpinned_pick_warns() {
    let (m, out) = run(vec![
        resolve_step(vec![bind("account_id", "$.results[0].id")]),
        subscription_step(),
        change_step(),
    ]);
    assert_eq!(codes(&out), vec![Code::W0401, Code::N0301]);
    // The warning points at the `[0]`.
    let Item::Plan(p) = &m.items[m.items.len() - 1] else {
        unreachable!()
    };
    let Clause::Bind { path, .. } = &p.steps[0].clauses[0] else {
        unreachable!()
    };
    assert_eq!(out.diagnostics[0].span, path.segments[1].span);
    assert_eq!(out.diagnostics[0].step.as_deref(), Some("resolve"));
}

#[test]
fn len_at_least_one_does_not_pin() {
    let (_, out) = run(vec![
        resolve_step(vec![
            post_len("$.results", CmpOp::Ge, "1"),
            bind("account_id", "$.results[0].id"),
        ]),
        subscription_step(),
        change_step(),
    ]);
    assert_eq!(codes(&out), vec![Code::W0401, Code::N0301]);
    // But two posts that together pin it do.
    let (_, out) = run(vec![
        resolve_step(vec![
            post_len("$.results", CmpOp::Ge, "1"),
            post_len("$.results", CmpOp::Lt, "2"),
            bind("account_id", "$.results[0].id"),
        ]),
        subscription_step(),
        change_step(),
    ]);
    assert_eq!(codes(&out), vec![Code::N0301]);
}

#[test]
fn count_default_resolves_the_one_list() {
    let mut st = resolve_step(vec![bind("account_id", "$.results[0].id")]);
    st.clauses.insert(
        0,
        Clause::Post(Probe {
            kind: ProbeKind::CountDefault {
                op: Spanned::new(CmpOp::Eq, sp()),
                value: Spanned::new(Literal::Int("1".into()), sp()),
            },
            span: sp(),
        }),
    );
    let (_, out) = run(vec![st, subscription_step(), change_step()]);
    assert_eq!(codes(&out), vec![Code::N0301], "{:#?}", out.diagnostics);
    assert_eq!(
        out.plans[0].steps[0].posts[0].kind,
        model::ProbeKind::Len {
            path: vec![PathSeg::Field("results".into())],
            op: CmpOp::Eq,
            value: 1
        }
    );
}
