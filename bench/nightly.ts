/**
 * One nightly scheduler run for the 100,000-invoice benchmark organisation (issue 6's target:
 * baselines and briefs in under 60 seconds; the daily forecast roll-forward is timed too).
 *
 *   npx tsx bench/nightly.ts
 *
 * Uses the organisation `npm run bench` seeds (run that first). Each run moves the clock to
 * 06:05 UTC of the next day without a brief, so every job is due: the forecast roll-forward, the
 * contact baselines with notes and summaries, and the rules brief. Prints the tick's wall time
 * and each job's outcome. BENCH_DRIVERS (postgres; `pglite` uses .bench/pglite).
 */
import { eq, sql } from "drizzle-orm";
import { loadConfig } from "../src/config.ts";
import { type Database, openEmbedded, openPostgres } from "../src/db/client.ts";
import { organisations } from "../src/db/schema/index.ts";
import { fixedClock } from "../src/domain/clock.ts";
import { createScheduler } from "../src/jobs/scheduler.ts";
import { createLogger } from "../src/logger.ts";
import { rowsOf } from "../src/services/summaries/summary-cache.ts";

const env = process.env;
const DRIVERS = (env.BENCH_DRIVERS ?? "postgres").split(",").map((s) => s.trim());
const INVOICES = Number(env.BENCH_INVOICES ?? 100_000);
const PG_URL = env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/cashrunway_bench";
const BENCH_NOW = new Date("2026-06-30T02:00:00Z");
const DAY = 86_400_000;

for (const driver of DRIVERS) {
  const database: Database =
    driver === "postgres" ? openPostgres(PG_URL, 10) : await openEmbedded(".bench/pglite");
  try {
    const [org] = await database.db
      .select({ id: organisations.id })
      .from(organisations)
      .where(eq(organisations.name, `Bench ${INVOICES}`));
    if (!org) throw new Error(`no Bench ${INVOICES} organisation: run npm run bench first`);
    // The next day (from the bench clock) without a brief yet.
    const [row] = rowsOf<{ latest: string | null }>(
      await database.db.execute(
        sql`SELECT max(as_of_date)::text AS latest FROM daily_briefs WHERE org_id = ${org.id}`,
      ),
    );
    const from = row?.latest ? new Date(`${row.latest}T00:00:00Z`) : BENCH_NOW;
    const day = new Date(Math.max(from.getTime(), BENCH_NOW.getTime()) + DAY);
    const now = new Date(`${day.toISOString().slice(0, 10)}T06:05:00Z`);
    const scheduler = createScheduler({
      db: database.db,
      clock: fixedClock(now),
      logger: createLogger("silent"),
      config: loadConfig({ ...process.env, DATABASE_URL: undefined, LOG_LEVEL: "silent" }),
      orgIds: [org.id],
    });
    const started = performance.now();
    const report = await scheduler.tick();
    const seconds = (performance.now() - started) / 1000;
    await scheduler.stop();
    const load = (await import("node:os")).loadavg()[0]?.toFixed(2);
    console.log(
      `${driver} nightly run at ${now.toISOString()}: ${seconds.toFixed(1)} s wall (load average ${load})`,
    );
    console.log(JSON.stringify(report));
  } finally {
    await database.close();
  }
}
process.exit(0);
