import { PLANS } from "../../db/schema/index.ts";
import { setSensitiveKeyRestriction } from "../../services/keys/govern-keys.ts";
import { createOrganisation } from "../../services/orgs/create-organisation.ts";
import { UsageError } from "../args.ts";
import { defineCommand } from "../command.ts";

export const orgCommand = defineCommand({
  name: "org",
  summary: "organisations",
  flags: {
    name: { value: "N", description: "the organisation's name" },
    currency: { value: "C", description: "its base currency, ISO 4217 (default AUD)" },
    timezone: { value: "TZ", description: "its IANA time zone (default Australia/Sydney)" },
    plan: {
      value: "P",
      description: `its plan (${PLANS.join(", ")}); without it, a 14-day Wallet trial`,
      choices: PLANS,
    },
    "owner-email": {
      value: "E",
      description:
        "the owner's email (an existing user becomes its owner; default: a new owner+ORG@cashrunway.local user)",
    },
    org: { value: "ID", description: "set: the organisation" },
    "restrict-sensitive": {
      value: "on|off",
      description:
        "set: on = READ_SENSITIVE only through organisation keys (personal and partner keys read without it); off = allowed",
      choices: ["on", "off"],
    },
  },
  subcommands: [
    {
      name: "create",
      summary: "a new organisation with its owner and billing account",
      usage: [
        "org create --name N [--currency C] [--timezone TZ] [--plan Free|Pocket|Wallet|Vault|Reserve] [--owner-email E]",
      ],
      flags: ["name", "currency", "timezone", "plan", "owner-email"],
      examples: ['org create --name "Acme Ltd" --currency EUR --timezone Europe/Paris'],
    },
    {
      name: "set",
      summary: "an organisation's key settings",
      usage: [
        "org set --org ID --restrict-sensitive on|off   (on: READ_SENSITIVE only through organisation keys)",
      ],
      flags: ["org", "restrict-sensitive"],
      examples: ["org set --org org_tpxprxz2g0095ksv8z2r --restrict-sensitive on"],
    },
  ],
  async run(args, ctx) {
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
  },
});
