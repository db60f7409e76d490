import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../../src/db/client.ts";
import { forecastScenarios, forecastSnapshots } from "../../src/db/schema/index.ts";
import { forecastAtOrigin } from "../../src/domain/forecasting/backtest.ts";
import { toCents } from "../../src/domain/forecasting/cents.ts";
import { canonical, sum } from "../../src/domain/money.ts";
import type { AccountBalancesResponse } from "../../src/http/routes/agent/account-balances/index.ts";
import type { CashPositionResponse } from "../../src/http/routes/agent/cash-position/index.ts";
import type { ForecastResponseBody } from "../../src/http/routes/agent/forecast/index.ts";
import { seedDemo } from "../../src/services/demo/seed-demo.ts";
import {
  backtestOrganisation,
  latestBacktest,
  loadBacktestData,
} from "../../src/services/forecast/backtest.ts";
import { recomputeForecasts } from "../../src/services/forecast/recompute-forecasts.ts";
import { createTestKey, getJson, type TestApp, testApp } from "../helpers/api.ts";
import { testDriver } from "../helpers/test-db.ts";

// The demo as `cashrunway demo` makes it, pinned: Sunday 22 November 2026, noon in Sydney.
const NOW = new Date("2026-11-22T01:00:00Z");

describe(`the demo organisation's cash and forecast (${testDriver})`, () => {
  let t: TestApp;
  let db: Db;
  let orgId: string;
  let demoKey: string;
  let fullKey: string;
  let syncRunId: string;

  beforeAll(async () => {
    t = await testApp({ now: NOW });
    db = t.db;
    const seeded = await seedDemo(db, {
      seed: "demo",
      now: NOW,
      folder: mkdtempSync(join(tmpdir(), "forecast-demo-")),
    });
    orgId = seeded.orgId;
    demoKey = seeded.key;
    syncRunId = seeded.syncRunId;
    fullKey = (
      await createTestKey(
        db,
        {
          kind: "ORG",
          orgId,
          label: "all",
          scopes: ["READ_FORECAST", "READ_ACCOUNTS"],
          sensitive: true,
        },
        NOW,
      )
    ).key;
  }, 120_000);

  it("computes every standard scenario at the end of the import", async () => {
    const rows = await db
      .select({
        kind: forecastScenarios.kind,
        engineVersion: forecastSnapshots.engineVersion,
        syncRunId: forecastSnapshots.syncRunId,
        asOfDate: forecastSnapshots.asOfDate,
      })
      .from(forecastSnapshots)
      .innerJoin(forecastScenarios, eq(forecastScenarios.id, forecastSnapshots.scenarioId))
      .where(and(eq(forecastSnapshots.orgId, orgId)));
    expect(rows.map((r) => r.kind).sort()).toEqual(["BASE", "BEST", "WORST"]);
    for (const r of rows)
      expect(r).toMatchObject({ engineVersion: 2, syncRunId, asOfDate: "2026-11-22" });
  });

  it("serves the forecast with payroll renamed for the demo key, amounts as for a sensitive key", async () => {
    const demo = await getJson<ForecastResponseBody>(t.app, "/api/agent/forecast", demoKey);
    const full = await getJson<ForecastResponseBody>(t.app, "/api/agent/forecast", fullKey);
    expect(demo.status, demo.text).toBe(200);
    expect(demo.body.weeks[0]).toMatchObject({ weekStart: "2026-11-16", weekEnd: "2026-11-22" });
    // Fortnightly payroll lands in about every second week: one (week, account) pair each.
    expect(demo.body.redactedItemCount).toBeGreaterThanOrEqual(6);
    expect(demo.text).not.toContain("Wages and Salaries");
    expect(full.text).toContain("Wages and Salaries");
    expect(full.body.redactedItemCount).toBe(0);
    const amounts = (b: ForecastResponseBody) =>
      b.weeks.map((w) => [w.opening, w.inflow, w.outflow, w.closing, w.itemIds]);
    expect(amounts(demo.body)).toEqual(amounts(full.body));
    // Both kinds of inflow are there, and the split adds up.
    expect(demo.body.weeks.some((w) => w.forecastInflow !== "0")).toBe(true);
    for (const w of demo.body.weeks)
      expect(canonical(sum([w.guaranteedInflow ?? "0", w.forecastInflow ?? "0"]))).toBe(w.inflow);
  });

  it("agrees with itself: the forecast opens with the cash position, whose bank rows are the balance sheet's", async () => {
    const cash = await getJson<CashPositionResponse>(t.app, "/api/agent/cash-position", demoKey);
    const forecast = await getJson<ForecastResponseBody>(t.app, "/api/agent/forecast", demoKey);
    expect(cash.body).toMatchObject({
      asOfDate: "2026-11-22",
      source: "ledger_reconciled",
      currency: "AUD",
      redactedItemCount: 1,
    });
    expect(cash.body.effectiveStartingCash).toBe(cash.body.ledgerReconciledTotal);
    expect(forecast.body.startingCash).toBe(cash.body.effectiveStartingCash);
    const balances = await getJson<AccountBalancesResponse>(
      t.app,
      "/api/agent/account-balances",
      fullKey,
    );
    expect(balances.body.asAtDate).toBe("2026-11-22");
    const banks = balances.body.accounts
      .filter((a) => a.type === "BANK")
      .map((a) => a.balance)
      .sort();
    expect(banks).toEqual(cash.body.accounts.map((a) => a.reconciledBalance).sort());
  });

  it("backtests the served engine: at origin = today it is the live forecast, week for week", async () => {
    const data = await loadBacktestData(db, orgId, NOW);
    expect(data.today).toBe("2026-11-22");
    const replayed = forecastAtOrigin(data, data.today, toCents(data.currentCash));
    const [live] = await db
      .select({ payload: forecastSnapshots.payload })
      .from(forecastSnapshots)
      .innerJoin(forecastScenarios, eq(forecastScenarios.id, forecastSnapshots.scenarioId))
      .where(and(eq(forecastSnapshots.orgId, orgId), eq(forecastScenarios.kind, "BASE")));
    const served = live?.payload as { weeks: unknown[]; startingCash: string };
    expect(replayed.startingCash).toBe(served.startingCash);
    expect(replayed.weeks).toEqual(served.weeks);
    // Purchase orders and ledger expected dates are in both (the old backtest left them out).
    expect(replayed.lines.some((l) => l.source === "PURCHASE_ORDER")).toBe(true);
  }, 60_000);

  it("scores BASE and both naive baselines at every horizon, and stores the result", async () => {
    const r = await backtestOrganisation(db, { orgId, now: NOW, origins: 52 });
    expect(r.origins).toHaveLength(52);
    expect(r.scores.BASE.map((s) => s.horizon)).toEqual([
      1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13,
    ]);
    expect(r.scores.BASE[12]?.count).toBe(40);
    for (const h of [1, 4, 13]) {
      const base = Number(r.scores.BASE[h - 1]?.mae);
      expect(base, `horizon ${h}`).toBeLessThan(Number(r.scores.flat[h - 1]?.mae));
      // The target at 1 and 4 weeks: at least 30% below the better baseline (the demo
      // scores −40% and −61%). At 13 weeks the 40 scored weeks overlap (about three independent
      // quarters): BASE beats both baselines there but not yet by 30% (−15% against the
      // due-date baseline; docs/forecast.md, "Accuracy over the family").
      const better = Math.min(
        Number(r.scores.flat[h - 1]?.mae),
        Number(r.scores.due_dates[h - 1]?.mae),
      );
      expect(base, `horizon ${h}`).toBeLessThan(h === 13 ? better : 0.7 * better);
      expect(Math.abs(Number(r.scores.BASE[h - 1]?.bias)), `bias ${h}`).toBeLessThan(base / 2);
    }
    const stored = await latestBacktest(db, orgId);
    expect(stored?.asOfDate).toBe("2026-11-22");
    expect(stored?.result.scores.BASE[0]).toEqual(r.scores.BASE[0]);
    // The 80% interval, calibrated at each origin on the errors known then, is checked on the
    // later weeks: a band needs 6 errors at its horizon and at a second one (to fit the spread's
    // growth), so 1-week bands start at origin 7 (horizon 2's sixth error) and 13-week bands at
    // origin 18 (22 of 40 weeks judged).
    expect(r.intervalChecks[13]).toBe(22);
    expect(r.intervalChecks[1]).toBe((r.scores.BASE[0]?.count ?? 0) - 7);
  }, 120_000);

  it("bands every week once a backtest is stored, and says so before", async () => {
    const before = await getJson<ForecastResponseBody>(t.app, "/api/agent/forecast", fullKey);
    expect(before.body.closingInterval).toMatchObject({ status: "insufficient_history" });
    expect(before.body.weeks[0]?.closingLow).toBeUndefined();
    await recomputeForecasts(db, { orgId, now: new Date(NOW.getTime() + 60_000) });
    const after = await getJson<ForecastResponseBody>(t.app, "/api/agent/forecast", fullKey);
    expect(after.body.closingInterval).toMatchObject({
      level: 0.8,
      status: "calibrated",
      calibratedOn: "2026-11-22",
    });
    // Each band is centred on the forecast closing. Each horizon's level adapts to its own hits
    // and misses, so on a given day a 13-week band can be narrower than the 1-week one (the
    // demo's is today, after its 1-week band widened on recent misses: 2 of 665 origins over
    // three seeds' family backtests, 4 with the method before provisional feedback); the spread
    // it scales does grow with the horizon.
    for (const w of after.body.weeks) {
      const low = Number(w.closingLow);
      const high = Number(w.closingHigh);
      expect(low).toBeLessThan(high);
      expect(Number(w.closing) - low).toBeCloseTo(high - Number(w.closing), 2);
    }
  }, 60_000);
});
