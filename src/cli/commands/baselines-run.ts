import { sql } from "drizzle-orm";
import { computeBaselines } from "../../services/baselines/compute-baselines.ts";
import type { ParsedArgs } from "../args.ts";
import { UsageError } from "../args.ts";
import type { CliContext } from "../command.ts";

export async function runBaselines(args: ParsedArgs, ctx: CliContext): Promise<void> {
  args.allowOnly("org", "all");
  if (args.positionals.length > 0)
    throw new UsageError(`unexpected argument "${args.positionals[0]}"`);
  const all = args.bool("all");
  const org = args.string("org");
  if (all === (org !== undefined)) throw new UsageError("give exactly one of --org or --all");
  const database = await ctx.openDatabase();
  try {
    const ids = org
      ? [org]
      : (
          (await database.db.execute(sql`
              SELECT DISTINCT org_id AS id FROM ledger_connections
              WHERE last_successful_sync_at IS NOT NULL ORDER BY 1`)) as unknown as {
            rows: { id: string }[];
          }
        ).rows.map((r) => r.id);
    const results = [];
    const lines: string[] = [];
    for (const id of ids) {
      const started = performance.now();
      const r = await computeBaselines(database.db, { orgId: id, now: ctx.clock.now() });
      const totalMs = Math.round(performance.now() - started);
      results.push({ ...r, totalMs });
      lines.push(
        `${id}: ${r.contacts} contacts (${r.customers} customers, ${r.engagedCustomers} engaged), ` +
          `lifetime ${r.expectedLifetimeYears} y, margin ${r.grossMargin ?? "n/a"}, ${r.notes} notes; ` +
          `baselines ${r.durationMs} ms, summaries ${r.warmMs} ms, total ${totalMs} ms`,
      );
    }
    ctx.print({ results }, lines.length ? lines : ["no organisation with an import"]);
  } finally {
    await database.close();
  }
}
