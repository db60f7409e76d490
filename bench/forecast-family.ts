/**
 * Forecast accuracy over the family of demo businesses (`npm run bench:forecast`): each business
 * is generated (src/demo/business.ts), imported into an in-memory database and backtested with
 * the served engine (src/domain/forecasting/backtest.ts); the error table is printed per
 * business, against both naive baselines, then one summary line per business.
 *
 * FAMILY_SEED (default "family"), FAMILY_NOW (default 2026-11-22T01:00:00Z, a Sunday noon in
 * Sydney), FAMILY_BUSINESSES (comma-separated; default every one), FAMILY_ORIGINS (default 39),
 * FAMILY_JSON (a file to write every result to). After the family, the demo itself (the roaster
 * on seed "demo", what `cashrunway demo` makes) is backtested as one more row, "demo"; the
 * issue's targets are for the family and the demo. FAMILY_DEMO=0 leaves it out.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openPglite } from "../src/db/client.ts";
import { BUSINESSES, type Business, isBusiness } from "../src/demo/business.ts";
import { DEFAULT_ORIGINS, runBacktest } from "../src/domain/forecasting/backtest.ts";
import {
  backtestTable,
  coverageRow,
  familySummary,
} from "../src/domain/forecasting/backtest-report.ts";
import { seedDemo } from "../src/services/demo/seed-demo.ts";
import { loadBacktestData } from "../src/services/forecast/backtest.ts";

const SEED = process.env.FAMILY_SEED ?? "family";
const NOW = new Date(process.env.FAMILY_NOW ?? "2026-11-22T01:00:00Z");
const ORIGINS = Number(process.env.FAMILY_ORIGINS ?? DEFAULT_ORIGINS);
const kinds = (process.env.FAMILY_BUSINESSES ?? BUSINESSES.join(","))
  .split(",")
  .map((s) => s.trim())
  .filter(isBusiness);
/** Each row: a label, the business generated and its seed. */
const runs: { label: string; business: Business; seed: string }[] = kinds.map((business) => ({
  label: business,
  business,
  seed: SEED,
}));
if (process.env.FAMILY_DEMO !== "0")
  runs.push({ label: "demo", business: "roaster", seed: "demo" });

const database = await openPglite();
const results: Record<string, unknown> = {};
const summaries: string[] = [];
const coverage: { line: string; inside: number }[] = [];
try {
  for (const { label, business, seed } of runs) {
    const t0 = performance.now();
    const seeded = await seedDemo(database.db, {
      seed,
      now: NOW,
      business,
      name: `Family ${label}`,
      folder: mkdtempSync(join(tmpdir(), `family-${label}-`)),
    });
    const t1 = performance.now();
    const data = await loadBacktestData(database.db, seeded.orgId, NOW);
    const r = runBacktest(data, { origins: ORIGINS });
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
