import { defineCommand } from "../command.ts";

/**
 * Operator command: computes baselines, insights and the summary cache now, for one
 * organisation or for every organisation with an import (`--all`), as the nightly run does.
 */
export const baselinesCommand = defineCommand({
  name: "baselines",
  summary: "compute contact baselines, insights and summaries now, as the nightly run does",
  flags: {
    org: { value: "ID", description: "one organisation" },
    all: { description: "every organisation with an import" },
  },
  usage: ["baselines (--org ID | --all)   (compute contact baselines and insights now)"],
  examples: ["baselines --org org_tpxprxz2g0095ksv8z2r", "baselines --all --json"],
  async run(args, ctx) {
    const { runBaselines } = await import("./baselines-run.ts");
    await runBaselines(args, ctx);
  },
});
