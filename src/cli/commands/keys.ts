import { SCOPES } from "../../domain/scopes.ts";
import { defineCommand } from "../command.ts";

/** `keys create|list|rotate|revoke`: API key management (the settings screen's CLI twin). */
export const keysCommand = defineCommand({
  name: "keys",
  summary: "API keys for agents: create (the secret is shown once), list, rotate, revoke",
  flags: {
    org: {
      value: "ID",
      description:
        "create: the organisation the key reads (an organisation key); list: every key reaching it; revoke: for it only",
    },
    user: {
      value: "ID",
      description: "create: a user key, reaching every organisation the user belongs to",
    },
    partner: {
      value: "ID",
      description: "create: a partner key, reaching the partner's linked organisations",
    },
    label: { value: "L", description: "a name for the key, shown in lists and audit trails" },
    scopes: {
      value: "A,B",
      description: `comma-separated scopes (${SCOPES.filter((s) => s !== "READ_SENSITIVE").join(", ")}); partner keys have every scope`,
      choices: SCOPES.filter((s) => s !== "READ_SENSITIVE"),
    },
    sensitive: {
      description: "also grant READ_SENSITIVE: rows and names flagged sensitive become visible",
    },
    pinned: {
      value: "ORG,ORG",
      description: "partner keys: reach only these linked organisations instead of all of them",
    },
    owner: {
      value: "USER_ID",
      description:
        "partner keys: the owner of the partner who creates it (default: its only owner); the key works while they own it",
    },
  },
  subcommands: [
    {
      name: "create",
      summary: "a key for an organisation, a user or a partner; prints the secret once",
      usage: [
        "keys create --org ID --label L --scopes A,B [--sensitive]",
        "keys create --user ID --label L --scopes A,B [--sensitive]",
        "keys create --partner ID --label L [--pinned ORG,ORG] [--owner USER_ID]",
      ],
      flags: ["org", "user", "partner", "label", "scopes", "sensitive", "pinned", "owner"],
      examples: [
        'keys create --org org_tpxprxz2g0095ksv8z2r --label "Month-end agent" --scopes READ_BANK,READ_FORECAST',
        'keys create --partner prt_4k8m2q9x7v5b3n6c1d0f --label "Bookkeeper" --pinned org_tpxprxz2g0095ksv8z2r,org_7f3p2r5th5hb36m07w5v',
      ],
    },
    {
      name: "list",
      summary: "every key with its status, scopes and last use (--org: every key reaching it)",
      usage: ["keys list [--org ID]"],
      flags: ["org"],
      examples: ["keys list --org org_tpxprxz2g0095ksv8z2r --json"],
    },
    {
      name: "rotate",
      summary: "a new secret for a cr_live_ key; the old one stops working at once",
      usage: [
        "keys rotate PREFIX          (cr_live_ keys; crun_ keys: create the new one, then revoke)",
      ],
      flags: [],
      examples: ["keys rotate 7hq2m9x4ta"],
    },
    {
      name: "revoke",
      summary:
        "stops a key for good (every instance refuses it within its poll), or for one organisation",
      usage: ["keys revoke PREFIX [--org ID]"],
      flags: ["org"],
      examples: ["keys revoke 7hq2m9x4ta", "keys revoke 7hq2m9x4ta --org org_tpxprxz2g0095ksv8z2r"],
    },
  ],
  async run(args, ctx) {
    const { runKeys } = await import("./keys-run.ts");
    await runKeys(args, ctx);
  },
});
