import { defineCommand } from "../command.ts";

/**
 * Operator command: writes an organisation's daily brief for a UTC day (default: today's UTC
 * date), as the 06:00 UTC run does. An existing row for that day is kept and shown unless
 * `--replace` is given; a day after today is refused. The LLM tier applies as in the scheduler (premium plans, endpoint set).
 */
export const briefCommand = defineCommand({
  name: "brief",
  summary: "write an organisation's daily brief now, as the 06:00 UTC run does",
  flags: {
    org: { value: "ID", description: "the organisation" },
    date: {
      value: "YYYY-MM-DD",
      description: "the UTC day of the brief (default today; not later)",
    },
    replace: { description: "rewrite the day's brief if it already exists (else it is kept)" },
  },
  usage: ["brief --org ID [--date YYYY-MM-DD] [--replace]   (write the daily brief now)"],
  examples: [
    "brief --org org_tpxprxz2g0095ksv8z2r",
    "brief --org org_tpxprxz2g0095ksv8z2r --date 2026-03-02 --replace",
  ],
  async run(args, ctx) {
    const { runBriefCommand } = await import("./brief-run.ts");
    await runBriefCommand(args, ctx);
  },
});
