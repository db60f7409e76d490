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
    const { runSensitive } = await import("./sensitive-run.ts");
    await runSensitive(args, ctx);
  },
});
