import { isCalendarDate } from "../../domain/summaries/calendar.ts";
import { llmConfigFrom } from "../../services/brief/llm-generator.ts";
import { runBrief } from "../../services/brief/run-brief.ts";
import type { ParsedArgs } from "../args.ts";
import { UsageError } from "../args.ts";
import type { CliContext } from "../command.ts";

export async function runBriefCommand(args: ParsedArgs, ctx: CliContext): Promise<void> {
  args.allowOnly("org", "date", "replace");
  if (args.positionals.length > 0)
    throw new UsageError(`unexpected argument "${args.positionals[0]}"`);
  const orgId = args.requireString("org");
  const now = ctx.clock.now();
  const date = args.string("date") ?? now.toISOString().slice(0, 10);
  if (!isCalendarDate(date)) throw new UsageError(`--date must be YYYY-MM-DD, got "${date}"`);
  // The API serves the latest row as the current brief: a future day's would replace today's.
  const today = now.toISOString().slice(0, 10);
  if (date > today) throw new UsageError(`--date ${date} is after today (${today}, UTC)`);
  const database = await ctx.openDatabase();
  try {
    const warnings: string[] = [];
    const r = await runBrief(database.db, {
      orgId,
      asOfDate: date,
      now,
      llm: llmConfigFrom(ctx.config),
      replace: args.bool("replace"),
      onFallback: (reason) => warnings.push(reason),
    });
    const p = r.brief.payload;
    ctx.print({ ...r.brief, created: r.created, fallbackReason: r.fallbackReason }, [
      `${r.created ? "Wrote" : "Kept"} the ${r.brief.generatorTier} brief of ${orgId} for ${r.brief.asOfDate}` +
        (r.created ? "" : " (it already existed; --replace rewrites it)"),
      ...warnings.map((w) => `LLM tier not used: ${w}`),
      "",
      `Main driver:        ${p.mainDriver.headline}`,
      `Risk signal:        ${p.riskSignal.headline}`,
      `Recommended action: ${p.recommendedAction.headline}`,
    ]);
  } finally {
    await database.close();
  }
}
