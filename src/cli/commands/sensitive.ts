import { requireOrganisation } from "../../services/orgs/require-organisation.ts";
import { setSensitive } from "../../services/sensitivity/set-sensitive.ts";
import { UsageError } from "../args.ts";
import { defineCommand } from "../command.ts";

export const sensitiveCommand = defineCommand({
  name: "sensitive",
  summary: "flag an account or contact sensitive (hidden from keys without READ_SENSITIVE)",
  flags: {
    org: { value: "ID", description: "the organisation" },
    account: { value: "CODE_OR_ID", description: "the account, by ledger code or id" },
    contact: { value: "ID", description: "the contact" },
  },
  usage: ["sensitive --org ID (--account CODE_OR_ID | --contact ID) on|off"],
  examples: [
    "sensitive --org org_tpxprxz2g0095ksv8z2r --account 477 on",
    "sensitive --org org_tpxprxz2g0095ksv8z2r --contact ctc_9d2k7q4m8x3v6b1n5c0f off",
  ],
  positionals: ["on", "off"],
  async run(args, ctx) {
    args.allowOnly("org", "account", "contact");
    const state = args.positional(0, "on or off");
    if (state !== "on" && state !== "off")
      throw new UsageError(`expected on or off, got "${state}"`);
    if (args.positionals.length > 1)
      throw new UsageError(`unexpected argument "${args.positionals[1]}"`);
    const account = args.string("account");
    const contact = args.string("contact");
    if ((account === undefined) === (contact === undefined))
      throw new UsageError("give exactly one of --account or --contact");
    const orgId = args.requireString("org");
    const database = await ctx.openDatabase();
    try {
      await requireOrganisation(database.db, orgId);
      const r = await setSensitive(database.db, {
        orgId,
        target: account !== undefined ? { account } : { contact: contact ?? "" },
        sensitive: state === "on",
      });
      ctx.print(
        r,
        `${r.kind} ${r.name} (${r.externalId}) is ${r.isSensitive ? "now sensitive" : "no longer sensitive"}`,
      );
    } finally {
      await database.close();
    }
  },
});
