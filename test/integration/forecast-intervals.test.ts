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
 * (52 origins: 40 weeks judged at 1 week ahead down to 22 at 13). The issue's target, 70–90% at
 * every horizon, is held exactly on the steady roaster and the growing, late-paid agency (the
 * method before covered 92–95% of the roaster's weeks at 1–4 weeks ahead and 92% of the
 * agency's at 1). Each business costs a seed and a backtest (about 10 s on PGlite); the other
 * businesses' figures, misses included, are in docs/forecast.md, "Prediction intervals".
 */
describe(`prediction intervals on seeded family businesses (${testDriver})`, () => {
  for (const business of ["roaster", "agency"] satisfies Business[])
    it(`covers 70–90% of the ${business}'s weeks at every horizon 1–13`, async () => {
      const { db } = await getTestDatabase();
      const seeded = await seedDemo(db, {
        seed: "family",
        now: NOW,
        business,
        name: `Interval ${business}`,
        folder: mkdtempSync(join(tmpdir(), `intervals-${business}-`)),
      });
      const r = runBacktest(await loadBacktestData(db, seeded.orgId, NOW), { origins: 52 });
      for (const h of HORIZONS) {
        const judged = r.intervalChecks[h] as number;
        expect(judged, `weeks judged at ${h}`).toBeGreaterThanOrEqual(20);
        const inside = Math.round((r.intervalCoverage[h] as number) * judged);
        expect(inside, `weeks inside at ${h} of ${judged}`).toBeGreaterThanOrEqual(
          Math.ceil(0.7 * judged - 1e-9),
        );
        expect(inside, `weeks inside at ${h} of ${judged}`).toBeLessThanOrEqual(
          Math.floor(0.9 * judged + 1e-9),
        );
      }
    }, 120_000);
});
