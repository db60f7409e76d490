import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Business } from "../../src/demo/business.ts";
import { HORIZONS, runBacktest } from "../../src/domain/forecasting/backtest.ts";
import { seedDemo } from "../../src/services/demo/seed-demo.ts";
import { loadBacktestData } from "../../src/services/forecast/backtest.ts";
import { getTestDatabase, testDriver } from "../helpers/test-db.ts";

// The family's clock (bench/forecast-family.ts): Sunday 22 November 2026, noon in Sydney.
const NOW = new Date("2026-11-22T01:00:00Z");

/*
 * Interval coverage on seeded family businesses, as `npm run bench:forecast` computes it: each
 * week's actual closing cash against the 80% band built at its origin from the errors known then
 * (52 origins: 45 weeks judged at 1 week ahead down to 22 at 13). Four businesses: the steady
 * roaster, the lumpy project business and the two whose long-horizon error drifts one way (the
 * growing agency and the wholesaler: without provisional feedback their 12–13-week weeks were
 * covered 58–67%). One business's 22 judged weeks are too few to hold every horizon to 70–90% (a
 * calibrated band lands outside about a third of the time by chance, and every change to the
 * engine moves the cells), so the weeks are pooled over the four: every horizon 70–90% (88 weeks
 * judged at 13 weeks: one week is 1.1 points) and 75–85% on average; each business's average over
 * the 13 horizons 70–90%. Each business costs a seed and a backtest (5–15 s on PGlite). Every
 * business's figures, misses included (the roaster and the seasonal retailer over-covered at
 * 11–13 weeks), are in docs/forecast.md, "Prediction intervals".
 */
describe(`prediction intervals on seeded family businesses (${testDriver})`, () => {
  it("covers about 80% of the weeks at every horizon 1–13, pooled over four businesses", async () => {
    const { db } = await getTestDatabase();
    const inside = HORIZONS.map(() => 0);
    const judged = HORIZONS.map(() => 0);
    for (const business of ["roaster", "project", "agency", "wholesaler"] satisfies Business[]) {
      const seeded = await seedDemo(db, {
        seed: "family",
        now: NOW,
        business,
        name: `Interval ${business}`,
        folder: mkdtempSync(join(tmpdir(), `intervals-${business}-`)),
      });
      const r = runBacktest(await loadBacktestData(db, seeded.orgId, NOW), { origins: 52 });
      const coverages = HORIZONS.map((h, i) => {
        const n = r.intervalChecks[h] as number;
        expect(n, `${business}: weeks judged at ${h}`).toBeGreaterThanOrEqual(20);
        const c = r.intervalCoverage[h] as number;
        judged[i] = (judged[i] as number) + n;
        inside[i] = (inside[i] as number) + Math.round(c * n);
        return c;
      });
      const mean = coverages.reduce((a, b) => a + b, 0) / coverages.length;
      expect(mean, `${business}: mean over horizons`).toBeGreaterThanOrEqual(0.7);
      expect(mean, `${business}: mean over horizons`).toBeLessThanOrEqual(0.9);
    }
    const pooled = HORIZONS.map((_, i) => (inside[i] as number) / (judged[i] as number));
    for (const [i, c] of pooled.entries()) {
      expect(c, `pooled at ${i + 1} weeks`).toBeGreaterThanOrEqual(0.7);
      expect(c, `pooled at ${i + 1} weeks`).toBeLessThanOrEqual(0.9);
    }
    const mean = pooled.reduce((a, b) => a + b, 0) / pooled.length;
    expect(mean).toBeGreaterThanOrEqual(0.75);
    expect(mean).toBeLessThanOrEqual(0.85);
  }, 240_000);
});
