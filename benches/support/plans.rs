//! The benchmark plans, shared by the benches: the Northwind downgrade
//! repeated with fresh names (six steps per customer: reads, writes, data
//! edges, `after`, a guard, an interpolation), in the text and the JSON
//! form, checked against the Northwind catalogue and policy of
//! `examples/northwind`; the plan compiles without errors.

use std::fmt::Write as _;

pub const TOOLS: &str = include_str!("../../examples/northwind/tools.plan");
pub const POLICY: &str = include_str!("../../examples/northwind/policy.plan");
pub const SIZES: &[usize] = &[10, 100, 1_000, 10_000, 100_000];

/// A plan of `n` steps in the text form.
pub fn text_plan(n: usize) -> String {
    let mut s = String::with_capacity(n * 260);
    s.push_str("plan generated \"downgrade many customers\" {\n    replans 2\n");
    for i in 0..n {
        let g = i / 6;
        let _ = match i % 6 {
            0 => write!(
                s,
                "    step resolve_{g} = customer.resolve(email: \"user{g}@example.com\", include_children: true) {{\n        post len($.results) == 1\n        bind account_{g} = $.results[0].id\n        on_unmet replan\n    }}\n"
            ),
            1 => write!(
                s,
                "    step sub_{g} = billing.get_subscription(account_id: account_{g}, as_of: 2026-03-04) {{\n        post $.commitment in [\"none\", \"monthly\"]\n        bind subid_{g} = $.id\n        bind end_{g} = $.current_period_end\n    }}\n"
            ),
            2 => write!(
                s,
                "    step change_{g} = billing.change_plan(subscription_id: subid_{g}, plan: \"starter\", effective: end_{g}) {{\n        post $.status == \"scheduled\"\n        on_unmet halt\n    }}\n"
            ),
            3 => write!(
                s,
                "    step prorate_{g} = billing.compute_proration(subscription_id: subid_{g}, new_plan: \"starter\", effective: end_{g}) {{\n        post $.credit_eur >= 0\n        bind credit_{g} = $.credit_eur\n        retry 2\n    }}\n"
            ),
            4 => write!(
                s,
                "    step note_{g} = billing.issue_credit(account_id: account_{g}, amount_eur: credit_{g}, reason: \"downgrade effective ${{end_{g}}}\") {{\n        post exists($.credit_id)\n        on_unmet escalate\n    }}\n"
            ),
            _ => write!(
                s,
                "    step confirm_{g} = email.send(to: \"user{g}@example.com\", template: \"plan_change_confirm\", facts: {{ plan: \"starter\", effective: end_{g} }}) {{\n        post exists($.message_id)\n        after change_{g}\n    }}\n"
            ),
        };
    }
    s.push_str("}\n");
    s
}

/// The same plan in the JSON form.
pub fn json_plan(n: usize) -> String {
    let mut s = String::with_capacity(n * 300);
    s.push_str("{\"name\": \"generated\", \"goal\": \"downgrade many customers\", \"budget\": {\"replans\": 2},\n \"steps\": [\n");
    for i in 0..n {
        if i > 0 {
            s.push_str(",\n");
        }
        let g = i / 6;
        let _ = match i % 6 {
            0 => write!(
                s,
                "  {{\"n\": {i}, \"name\": \"resolve_{g}\", \"tool\": \"customer.resolve\", \"args\": {{\"email\": \"user{g}@example.com\", \"include_children\": true}}, \"post\": {{\"probe\": \"result_count\", \"path\": \"$.results\", \"equals\": 1}}, \"binds\": {{\"account_{g}\": \"$.results[0].id\"}}, \"on_unmet\": \"replan\"}}"
            ),
            1 => write!(
                s,
                "  {{\"n\": {i}, \"name\": \"sub_{g}\", \"tool\": \"billing.get_subscription\", \"args\": {{\"account_id\": \"${{account_{g}}}\", \"as_of\": \"2026-03-04\"}}, \"post\": {{\"probe\": \"field_in\", \"path\": \"$.commitment\", \"values\": [\"none\", \"monthly\"]}}, \"binds\": {{\"subid_{g}\": \"$.id\", \"end_{g}\": \"$.current_period_end\"}}}}"
            ),
            2 => write!(
                s,
                "  {{\"n\": {i}, \"name\": \"change_{g}\", \"tool\": \"billing.change_plan\", \"args\": {{\"subscription_id\": \"${{subid_{g}}}\", \"plan\": \"starter\", \"effective\": \"${{end_{g}}}\"}}, \"post\": {{\"probe\": \"field_equals\", \"path\": \"$.status\", \"value\": \"scheduled\"}}, \"on_unmet\": \"halt\"}}"
            ),
            3 => write!(
                s,
                "  {{\"n\": {i}, \"name\": \"prorate_{g}\", \"tool\": \"billing.compute_proration\", \"args\": {{\"subscription_id\": \"${{subid_{g}}}\", \"new_plan\": \"starter\", \"effective\": \"${{end_{g}}}\"}}, \"post\": {{\"probe\": \"field_compare\", \"path\": \"$.credit_eur\", \"op\": \">=\", \"value\": 0}}, \"binds\": {{\"credit_{g}\": \"$.credit_eur\"}}, \"retry\": 2}}"
            ),
            4 => write!(
                s,
                "  {{\"n\": {i}, \"name\": \"note_{g}\", \"tool\": \"billing.issue_credit\", \"args\": {{\"account_id\": \"${{account_{g}}}\", \"amount_eur\": \"${{credit_{g}}}\", \"reason\": \"downgrade effective ${{end_{g}}}\"}}, \"post\": {{\"probe\": \"field_exists\", \"path\": \"$.credit_id\"}}, \"on_unmet\": \"escalate\"}}"
            ),
            _ => write!(
                s,
                "  {{\"n\": {i}, \"name\": \"confirm_{g}\", \"tool\": \"email.send\", \"args\": {{\"to\": \"user{g}@example.com\", \"template\": \"plan_change_confirm\", \"facts\": {{\"plan\": \"starter\", \"effective\": \"${{end_{g}}}\"}}}}, \"post\": {{\"probe\": \"field_exists\", \"path\": \"$.message_id\"}}, \"after\": [\"change_{g}\"]}}"
            ),
        };
    }
    s.push_str("\n]}\n");
    s
}
