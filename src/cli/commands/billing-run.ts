import {
  PLANS,
  type Plan,
  SUBSCRIPTION_STATUSES,
  type SubscriptionStatus,
} from "../../db/schema/index.ts";
import {
  type BillingView,
  listBillingEvents,
  setBilling,
  setSeat,
  showBilling,
} from "../../services/billing/set-billing.ts";
import type { ParsedArgs } from "../args.ts";
import { UsageError } from "../args.ts";
import type { CliContext } from "../command.ts";

const planOf = (value: string): Plan => {
  const plan = PLANS.find((p) => p.toLowerCase() === value.toLowerCase());
  if (!plan) throw new UsageError(`--plan must be one of ${PLANS.join(", ")}, got "${value}"`);
  return plan;
};

const lines = (v: BillingView) => [
  `Billing account ${v.billingAccountId} (organisation ${v.orgId})`,
  `  plan:       ${v.plan}`,
  `  status:     ${v.status}${v.trialEndsAt ? ` (trial ends ${v.trialEndsAt})` : ""}`,
  `  auto top-up: ${v.autoTopUp ? "on" : "off"}${v.autoTopUpBlocker ? ` (unavailable: ${v.autoTopUpBlocker})` : ""}`,
  ...v.seats.map((s) => `  seat:       ${s.userId} on ${s.plan}`),
];

export async function runBilling(args: ParsedArgs, ctx: CliContext): Promise<void> {
  const sub = args.positional(0, "subcommand (set, seat or show)");
  if (args.positionals.length > 1)
    throw new UsageError(`unexpected argument "${args.positionals[1]}"`);
  if (sub === "set") {
    args.allowOnly("org", "plan", "status", "trial-ends", "auto-topup");
    const orgId = args.requireString("org");
    const plan = args.string("plan");
    const status = args.string("status");
    if (status !== undefined && !(SUBSCRIPTION_STATUSES as readonly string[]).includes(status)) {
      throw new UsageError(
        `--status must be one of ${SUBSCRIPTION_STATUSES.join(", ")}, got "${status}"`,
      );
    }
    const autoTopUp = args.string("auto-topup");
    if (autoTopUp !== undefined && autoTopUp !== "on" && autoTopUp !== "off") {
      throw new UsageError(`--auto-topup must be on or off, got "${autoTopUp}"`);
    }
    const trialEnds = args.string("trial-ends");
    if (
      plan === undefined &&
      status === undefined &&
      autoTopUp === undefined &&
      trialEnds === undefined
    ) {
      throw new UsageError("nothing to set: give --plan, --status, --trial-ends or --auto-topup");
    }
    const database = await ctx.openDatabase();
    try {
      const view = await setBilling(
        database.db,
        {
          orgId,
          plan: plan === undefined ? undefined : planOf(plan),
          status: status as SubscriptionStatus | undefined,
          trialEnds,
          autoTopUp: autoTopUp === undefined ? undefined : autoTopUp === "on",
        },
        ctx.clock.now(),
      );
      ctx.print({ ...view }, [
        ...lines(view),
        ...(view.autoTopUpTurnedOff
          ? [`  auto top-up turned off: ${view.autoTopUpTurnedOff}`]
          : []),
      ]);
    } finally {
      await database.close();
    }
    return;
  }
  if (sub === "seat") {
    args.allowOnly("org", "user", "plan");
    const orgId = args.requireString("org");
    const userId = args.requireString("user");
    const plan = args.requireString("plan");
    const database = await ctx.openDatabase();
    try {
      const view = await setSeat(
        database.db,
        { orgId, userId, plan: plan.toLowerCase() === "none" ? null : planOf(plan) },
        ctx.clock.now(),
      );
      ctx.print({ ...view }, lines(view));
    } finally {
      await database.close();
    }
    return;
  }
  if (sub === "show") {
    args.allowOnly("org");
    const orgId = args.requireString("org");
    const database = await ctx.openDatabase();
    try {
      const view = await showBilling(database.db, orgId);
      const events = await listBillingEvents(database.db, orgId);
      ctx.print({ ...view, events }, [
        ...lines(view),
        ...events.map(
          (e) =>
            `  event:      ${e.at} ${e.kind}${e.credits ? ` ${e.credits} credits` : ""}${e.details ? ` ${JSON.stringify(e.details)}` : ""}`,
        ),
      ]);
    } finally {
      await database.close();
    }
    return;
  }
  throw new UsageError(`unknown subcommand "billing ${sub}" (expected: set, seat, show)`);
}
