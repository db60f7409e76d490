import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import {
  type BacktestData,
  backtestOrigins,
  dailyCash,
  forecastAtOrigin,
  runBacktest,
} from "../../src/domain/forecasting/backtest.ts";
import { seedDemo } from "../../src/services/demo/seed-demo.ts";
import { loadBacktestData } from "../../src/services/forecast/backtest.ts";
import { testApp } from "../helpers/api.ts";
import { testDriver } from "../helpers/test-db.ts";

// Issue 22: the same books on the same local date give the same forecast, run after run. The
// same generated ledger imported twice gets different service ids (random UUIDs) each time;
// nothing the forecast says may follow them.
const NOW = new Date("2026-11-22T01:00:00Z");
const ORIGINS = 39;

describe(`the same books imported twice forecast the same (${testDriver})`, () => {
  const data: BacktestData[] = [];

  beforeAll(async () => {
    const { db } = await testApp({ now: NOW });
    for (const copy of ["first", "second"]) {
      const seeded = await seedDemo(db, {
        seed: "family",
        now: NOW,
        business: "roaster",
        name: `Roaster ${copy}`,
        folder: mkdtempSync(join(tmpdir(), `forecast-reproducible-${copy}-`)),
      });
      data.push(await loadBacktestData(db, seeded.orgId, NOW));
    }
  }, 120_000);

  it("gives identical weeks at every backtest origin", () => {
    const [a, b] = data as [BacktestData, BacktestData];
    expect(b.today).toBe(a.today);
    const origins = backtestOrigins(a.today, ORIGINS);
    const first = origins[0] as string;
    const cashA = dailyCash(a, first, a.today);
    const cashB = dailyCash(b, first, b.today);
    const weeks = (d: BacktestData, cash: Map<string, number>, origin: string) =>
      forecastAtOrigin(d, origin, cash.get(origin) ?? 0).weeks.map((w) => ({
        weekStart: w.weekStart,
        inflow: w.inflow,
        outflow: w.outflow,
        closing: w.closing,
        sources: w.categories.sources,
      }));
    for (const origin of origins) {
      expect(cashB.get(origin), origin).toBe(cashA.get(origin));
      expect(weeks(b, cashB, origin), origin).toEqual(weeks(a, cashA, origin));
    }
  });

  it("scores identically in the backtest", () => {
    const [a, b] = data as [BacktestData, BacktestData];
    const scores = (d: BacktestData) => runBacktest(d, { origins: ORIGINS }).scores;
    expect(scores(b)).toEqual(scores(a));
  });
});
