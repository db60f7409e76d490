import { PLANS } from "../../db/schema/index.ts";
import { setSensitiveKeyRestriction } from "../../services/keys/govern-keys.ts";
import { createOrganisation } from "../../services/orgs/create-organisation.ts";
import type { ParsedArgs } from "../args.ts";
import { UsageError } from "../args.ts";
import type { CliContext } from "../command.ts";

export async function runOrg(args: ParsedArgs, ctx: CliContext): Promise<void> {
  const sub = args.positional(0, "subcommand (create, set)");
  if (sub === "set") {
    args.allowOnly("org", "restrict-sensitive");
    const orgId = args.requireString("org");
    const value = args.requireString("restrict-sensitive");
    if (value !== "on" && value !== "off") {
      throw new UsageError(`--restrict-sensitive must be on or off, got "${value}"`);
    }
    const database = await ctx.openDatabase();
    try {
      const r = await setSensitiveKeyRestriction(database.db, {
        orgId,
        restrictSensitiveToOrgKeys: value === "on",
      });
      ctx.print(
        r,
        r.restrictSensitiveToOrgKeys
          ? `${orgId}: READ_SENSITIVE only through organisation keys; personal and partner keys read it without READ_SENSITIVE from their next request`
          : `${orgId}: personal keys of owners and admins, and partner keys, may use READ_SENSITIVE`,
      );
    } finally {
      await database.close();
    }
    return;
  }
  if (sub !== "create")
    throw new UsageError(`unknown subcommand "org ${sub}" (expected: create, set)`);
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
}
