import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { HORIZONS, runBacktest } from "../../src/domain/forecasting/backtest.ts";
import { seedDemo } from "../../src/services/demo/seed-demo.ts";
import { loadBacktestData } from "../../src/services/forecast/backtest.ts";
import { getTestDatabase, testDriver } from "../helpers/test-db.ts";

// The family's clock (bench/forecast-family.ts): Sunday 22 November 2026, noon in Sydney.
const NOW = new Date("2026-11-22T01:00:00Z");

/*
 * Interval coverage on a seeded family business, as `npm run bench:forecast` computes it: each
 * week's actual closing cash against the 80% band built at its origin from the errors known then.
 * The growing, late-paid agency: the per-horizon ranks this method replaced covered 97–100% of its
 * weeks at 6–11 weeks ahead. With 22–40 weeks judged per horizon one week moves a figure by 2.5–4.5
 * points, so each horizon is held to 70–90% with one week of slack and the average over the 13
 * horizons to 70–90%; every business's figures, misses included, are in docs/forecast.md,
 * "Prediction intervals".
 */
describe(`prediction intervals on a seeded family business (${testDriver})`, () => {
  it("covers about 80% of the agency's weeks at every horizon 1–13", async () => {
    const { db } = await getTestDatabase();
    const seeded = await seedDemo(db, {
      seed: "family",
      now: NOW,
      business: "agency",
      name: "Interval agency",
      folder: mkdtempSync(join(tmpdir(), "intervals-agency-")),
    });
    const r = runBacktest(await loadBacktestData(db, seeded.orgId, NOW), { origins: 52 });
    const coverages = HORIZONS.map((h) => {
      expect(r.intervalChecks[h], `weeks judged at ${h}`).toBeGreaterThanOrEqual(20);
      const c = r.intervalCoverage[h] as number;
      const judged = r.intervalChecks[h] as number;
      const inside = Math.round(c * judged);
      expect(inside, `weeks inside at ${h} of ${judged}`).toBeGreaterThanOrEqual(
        Math.ceil(0.7 * judged) - 1,
      );
      expect(inside, `weeks inside at ${h} of ${judged}`).toBeLessThanOrEqual(
        Math.floor(0.9 * judged) + 1,
      );
      return c;
    });
    const mean = coverages.reduce((a, b) => a + b, 0) / coverages.length;
    expect(mean).toBeGreaterThanOrEqual(0.7);
    expect(mean).toBeLessThanOrEqual(0.9);
  }, 120_000);
});
