import { PLANS } from "../../db/schema/index.ts";
import { createOrganisation } from "../../services/orgs/create-organisation.ts";
import { UsageError } from "../args.ts";
import type { Command } from "../command.ts";

export const orgCommand: Command = {
  name: "org",
  usage: [
    "org create --name N [--currency C] [--timezone TZ] [--plan Free|Pocket|Wallet|Vault|Reserve] [--owner-email E]",
  ],
  async run(args, ctx) {
    const sub = args.positional(0, "subcommand (create)");
    if (sub !== "create")
      throw new UsageError(`unknown subcommand "org ${sub}" (expected: org create)`);
    args.allowOnly("name", "currency", "timezone", "plan", "owner-email");
    const plan = args.string("plan");
    const planName =
      plan === undefined ? undefined : PLANS.find((p) => p.toLowerCase() === plan.toLowerCase());
    if (plan !== undefined && !planName)
      throw new UsageError(`--plan must be one of ${PLANS.join(", ")}, got "${plan}"`);
    const database = await ctx.openDatabase();
    try {
      const org = await createOrganisation(
        database.db,
        {
          name: args.requireString("name"),
          baseCurrency: args.string("currency")?.toUpperCase(),
          timezone: args.string("timezone"),
          plan: planName,
          ownerEmail: args.string("owner-email"),
        },
        ctx.clock.now(),
      );
      ctx.print(
        {
          id: org.id,
          ownerUserId: org.ownerUserId,
          billingAccountId: org.billingAccountId,
          plan: org.plan,
          subscriptionStatus: org.subscriptionStatus,
        },
        [
          `Created organisation ${org.id}`,
          `  owner user: ${org.ownerUserId}`,
          `  billing:    ${org.plan} (${org.subscriptionStatus})`,
        ],
      );
    } finally {
      await database.close();
    }
  },
};
