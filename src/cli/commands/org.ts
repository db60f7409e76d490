import { PLANS } from "../../db/schema/index.ts";
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
    const { runOrg } = await import("./org-run.ts");
    await runOrg(args, ctx);
  },
});
