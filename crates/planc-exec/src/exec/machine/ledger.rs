//! The ledger of complete calls (`docs/ir.md`, `authz.aggregates` and
//! `authz.calls_max`): before a dispatch, the totals and the call count of
//! the step's tool over its complete calls — those of the record the run
//! resumed from and those of this run — with this call added. Fail closed:
//! a value that is not a number makes the total unknown, which refuses.

use rust_decimal::Decimal;

use crate::exec::data::Data;
use crate::exec::eval::Artifacts;
use crate::ir::StepIr;

/// Why the ledger refuses a call: what the rule allows, what the call
/// would make it, and a sentence.
pub(super) struct Over {
    pub expected: Data,
    pub observed: Data,
    pub reason: String,
}

/// Checks `step`'s aggregates and call bound, for a call with `args`,
/// against `complete`: the arguments of every complete call of the same
/// tool.
pub(super) fn check(step: &StepIr, args: &Artifacts, complete: &[&Artifacts]) -> Result<(), Over> {
    if let Some(max) = step.authz.calls_max {
        let n = (complete.len() as u64).saturating_add(1);
        if n > max {
            return Err(Over {
                expected: Data::object([("calls_max", Data::from(max))]),
                observed: Data::from(n),
                reason: format!(
                    "this would be call {n} of `{}`, over `calls <= {max}`",
                    step.tool
                ),
            });
        }
    }
    let null = Data::Null;
    for a in &step.authz.aggregates {
        let expected = Data::of(a);
        let max = Data::from_literal(&a.max).exact_decimal();
        let key = |call: &Artifacts| {
            a.per
                .as_ref()
                .map(|p| call.get(p.as_str()).unwrap_or(&null).ledger_key())
        };
        let ours = key(args);
        let amount = |call: &Artifacts| match call.get(a.arg.as_str()) {
            None | Some(Data::Null) => Some(Decimal::ZERO),
            Some(v) => v.exact_decimal(),
        };
        let mut total = amount(args);
        for call in complete.iter().filter(|c| key(c) == ours) {
            total = total.and_then(|t| amount(call).and_then(|v| t.checked_add(v)));
        }
        match (total, max) {
            (Some(t), Some(m)) if t <= m => {}
            (Some(t), _) => {
                return Err(Over {
                    expected,
                    observed: Data::number(&t.to_string()),
                    reason: format!(
                        "the calls of `{}` would add `{}` up to {t}, over its total {}",
                        step.tool, a.arg, a.max
                    ),
                });
            }
            (None, _) => {
                return Err(Over {
                    expected,
                    observed: args.get(a.arg.as_str()).cloned().unwrap_or(Data::Null),
                    reason: format!(
                        "the total of `{}` over the calls of `{}` cannot be added up",
                        a.arg, step.tool
                    ),
                });
            }
        }
    }
    Ok(())
}
