import { PLANS, SUBSCRIPTION_STATUSES } from "../../db/schema/index.ts";
import { defineCommand } from "../command.ts";

/** Operator commands on an organisation's billing account, for demos and tests. */
export const billingCommand = defineCommand({
  name: "billing",
  summary: "an organisation's billing account: plan, subscription status, seats (demos, tests)",
  flags: {
    org: { value: "ID", description: "the organisation whose billing account it is" },
    plan: {
      value: "P",
      description: `set: the plan (${PLANS.join(", ")}); seat: the seat's plan, or none to remove it`,
      choices: [...PLANS, "none"],
    },
    status: {
      value: "S",
      description: `set: the subscription status (${SUBSCRIPTION_STATUSES.join(", ")})`,
      choices: SUBSCRIPTION_STATUSES,
    },
    "trial-ends": { value: "YYYY-MM-DD", description: "set: the day the trial ends" },
    "auto-topup": {
      value: "on|off",
      description: "set: buy credits automatically when they run out",
      choices: ["on", "off"],
    },
    user: { value: "ID", description: "seat: the user who holds the seat" },
  },
  subcommands: [
    {
      name: "set",
      summary: "change the plan, status, trial end or automatic top-up",
      usage: [
        "billing set --org ID [--plan P] [--status trialing|active|past_due|canceled|trial_ended] [--trial-ends YYYY-MM-DD] [--auto-topup on|off]",
      ],
      flags: ["org", "plan", "status", "trial-ends", "auto-topup"],
      examples: ["billing set --org org_tpxprxz2g0095ksv8z2r --plan Vault --status active"],
    },
    {
      name: "seat",
      summary: "give a user a seat on a plan, or remove it (none)",
      usage: ["billing seat --org ID --user ID --plan Free|Pocket|Wallet|Vault|Reserve|none"],
      flags: ["org", "user", "plan"],
      examples: [
        "billing seat --org org_tpxprxz2g0095ksv8z2r --user usr_7f3p2r5th5hb36m07w5v --plan Pocket",
      ],
    },
    {
      name: "show",
      summary: "the billing account, its seats and its events",
      usage: ["billing show --org ID"],
      flags: ["org"],
      examples: ["billing show --org org_tpxprxz2g0095ksv8z2r"],
    },
  ],
  async run(args, ctx) {
    const { runBilling } = await import("./billing-run.ts");
    await runBilling(args, ctx);
  },
});
