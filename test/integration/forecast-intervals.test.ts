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
 * (52 origins: 45 weeks judged at 1 week ahead down to 22 at 13). The lumpy project business and
 * the two whose long-horizon error drifts one way (the growing agency and the wholesaler: the
 * adaptation without provisional feedback covered their 12–13-week weeks 58–67%). At 22 weeks
 * judged one week is 4.5 points and a calibrated band lands outside 70–90% about a third of the
 * time by chance, so each horizon is held to 70–90% with one week of slack, and the mean over the
 * 13 horizons to 75–85%. Each business costs a seed and a backtest (5–15 s on PGlite). Every
 * business's figures, misses included (the roaster and the seasonal retailer over-covered at
 * 11–13 weeks), are in docs/forecast.md, "Prediction intervals".
 */
describe(`prediction intervals on seeded family businesses (${testDriver})`, () => {
  for (const business of ["project", "agency", "wholesaler"] satisfies Business[])
    it(`covers about 80% of the ${business}'s weeks at every horizon 1–13`, async () => {
      const { db } = await getTestDatabase();
      const seeded = await seedDemo(db, {
        seed: "family",
        now: NOW,
        business,
        name: `Interval ${business}`,
        folder: mkdtempSync(join(tmpdir(), `intervals-${business}-`)),
      });
      const r = runBacktest(await loadBacktestData(db, seeded.orgId, NOW), { origins: 52 });
      const coverages = HORIZONS.map((h) => {
        const judged = r.intervalChecks[h] as number;
        expect(judged, `weeks judged at ${h}`).toBeGreaterThanOrEqual(20);
        const c = r.intervalCoverage[h] as number;
        const inside = Math.round(c * judged);
        expect(inside, `weeks inside at ${h} of ${judged}`).toBeGreaterThanOrEqual(
          Math.ceil(0.7 * judged - 1e-9) - 1,
        );
        expect(inside, `weeks inside at ${h} of ${judged}`).toBeLessThanOrEqual(
          Math.floor(0.9 * judged + 1e-9) + 1,
        );
        return c;
      });
      const mean = coverages.reduce((a, b) => a + b, 0) / coverages.length;
      expect(mean).toBeGreaterThanOrEqual(0.75);
      expect(mean).toBeLessThanOrEqual(0.85);
    }, 120_000);
});
