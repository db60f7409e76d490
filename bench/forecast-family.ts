/**
 * Forecast accuracy over the family of demo businesses (`npm run bench:forecast`): each business
 * is generated (src/demo/business.ts), imported into an in-memory database and backtested with
 * the served engine (src/domain/forecasting/backtest.ts); the error table is printed per
 * business, against both naive baselines, then one summary line per business.
 *
 * Which businesses, seed, clock and origins: the FAMILY_* environment (bench/family.ts); the demo
 * itself (the roaster on seed "demo") comes last, as the issue's targets are for the family and
 * the demo. FAMILY_JSON (a file) receives every result, with the baselines' errors per origin
 * (`baselineResiduals`, which bench/forecast-corrections.ts replays).
 */
import { writeFileSync } from "node:fs";
import { openPglite } from "../src/db/client.ts";
import { runBacktest } from "../src/domain/forecasting/backtest.ts";
import {
  backtestTable,
  coverageRow,
  familySummary,
} from "../src/domain/forecasting/backtest-report.ts";
import { loadBacktestData } from "../src/services/forecast/backtest.ts";
import { FAMILY_NOW, FAMILY_ORIGINS, familyRuns, seedFamilyRun } from "./family.ts";

const runs = familyRuns();

const database = await openPglite();
const results: Record<string, unknown> = {};
const summaries: string[] = [];
const coverage: { line: string; inside: number }[] = [];
try {
  for (const run of runs) {
    const { label, business, seed } = run;
    const t0 = performance.now();
    const seeded = await seedFamilyRun(database.db, run);
    const t1 = performance.now();
    const data = await loadBacktestData(database.db, seeded.orgId, FAMILY_NOW);
    const r = runBacktest(data, {
      origins: FAMILY_ORIGINS,
      keepBaselineResiduals: Boolean(process.env.FAMILY_JSON),
    });
    const t2 = performance.now();
    results[label] = r;
    console.log(
      `\n${label} (${business}, seed ${seed}, ${seeded.summary.counts.invoices} invoices, ${seeded.summary.counts.bills} bills, ${seeded.summary.counts.purchaseOrders} purchase orders; seeded in ${((t1 - t0) / 1000).toFixed(1)} s, backtest ${((t2 - t1) / 1000).toFixed(1)} s)`,
    );
    for (const line of backtestTable(r)) console.log(line);
    summaries.push(familySummary(label, r));
    coverage.push(coverageRow(label, r));
  }
  console.log(
    "\nBASE's MAE against the better naive baseline (target ≤ −30%), |bias| ÷ MAE (target < 0.33):",
  );
  for (const s of summaries) console.log(s);
  console.log(
    "\n80% interval coverage per horizon (weeks ahead 1–13; * outside the target 70–90%):",
  );
  for (const c of coverage) console.log(c.line);
  console.log(
    `cells inside 70–90%: ${coverage.reduce((s, c) => s + c.inside, 0)} of ${coverage.length * 13}`,
  );
  if (process.env.FAMILY_JSON) writeFileSync(process.env.FAMILY_JSON, JSON.stringify(results));
} finally {
  await database.close();
}
