// An agent loop in TypeScript's runtime: a planner writes a JSON plan,
// planc checks it against the catalogue and the policy before anything
// runs, the diagnostics go back to the planner until the plan is clean, and
// planc's own executor runs it with async JavaScript functions as tools.
//
// The planner is stubbed (no model): its first plan has the two mistakes a
// model makes (a misspelt tool, a credit above the policy's ceiling), and
// it repairs exactly what the diagnostics name. The tools are in-memory.
//
//   node examples/agent-loop.mjs        (after `sh build.sh`)

import { readFile } from "node:fs/promises";

import { Compiler, ToolError, exact, run } from "planc";

const northwind = new URL("../../../examples/northwind/", import.meta.url);
const text = (name) => readFile(new URL(name, northwind), "utf8");

// ------------------------------------------------------------ the planner

/** A stand-in for a model: a first draft, then repairs driven only by the
 * diagnostics' codes and JSON pointers. */
async function* planner(goal) {
  const plan = JSON.parse(await text("downgrade.plan.json"));
  plan.goal = goal;
  plan.steps[1].tool = "billing.get_subscripton"; // a typo: E0101
  plan.steps[4].args.amount_eur = 900; // above `amount_eur <= 500`: E0303
  let feedback = yield plan;
  while (feedback.length > 0) {
    for (const d of feedback) {
      const at = d.pointer?.split("/") ?? [];
      const step = plan.steps[Number(at[2])];
      if (d.code === "E0101" && d.fixes.length > 0) step.tool = d.fixes[0].replacement.replaceAll('"', "");
      else if (d.code === "E0303") step.args.amount_eur = "${credit}";
      else throw new Error(`the stub planner cannot repair ${d.code}: ${d.message}`);
    }
    feedback = yield plan;
  }
}

// ------------------------------------------------------------ the tools

const sent = [];
const tools = {
  "customer.resolve": async ({ email }) => ({
    results: [{ id: "acc_4711", name: "Northwind Traders Ltd", country: "GB", email }],
  }),
  "billing.get_subscription": async ({ account_id }) => {
    if (account_id !== "acc_4711") throw new ToolError("not_found", false, `no account ${account_id}`);
    return { id: "sub_88", commitment: "monthly", current_period_end: "2026-03-31", monthly_price_eur: exact("249.00") };
  },
  "billing.change_plan": async () => ({ status: "scheduled" }),
  "billing.compute_proration": async () => ({ credit_eur: exact("41.50") }),
  "billing.issue_credit": async ({ amount_eur }) => ({ credit_id: `cn_${amount_eur}` }),
  "email.send": async ({ to, facts }) => {
    sent.push({ to, facts });
    return { message_id: "msg_9" };
  },
};

// ------------------------------------------------------------ the loop

export async function agentLoop({ log = console.log, maxRounds = 4 } = {}) {
  const compiler = new Compiler({
    catalog: { name: "tools.plan", text: await text("tools.plan") },
    policy: { name: "policy.plan", text: await text("policy.plan") },
  });
  const rounds = [];
  const plans = planner("downgrade Northwind Traders to Starter at end of period");
  let step = await plans.next();
  for (let round = 1; !step.done; round++) {
    if (round > maxRounds) throw new Error("the planner did not converge");
    const checked = compiler.check(step.value);
    rounds.push(checked.diagnostics.map((d) => d.code));
    log(`round ${round}: ${checked.ok ? "clean" : checked.render("short").trim()}`);
    if (checked.ok) {
      const result = await run(checked, {
        tools,
        approve: "all", // billing.change_plan needs a person's approval
        onEvent: (e) => e.event === "complete" && log(`  ${e.step} complete`),
      });
      log(`run: ${result.reason} (exit ${result.exitCode})`);
      return { rounds, result, sent };
    }
    step = await plans.next(checked.diagnostics.filter((d) => d.severity === "error"));
  }
  throw new Error("the planner gave up");
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { result } = await agentLoop();
  process.exitCode = result.exitCode;
}
