import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import type { Db } from "../../src/db/client.ts";
import {
  bankAccounts,
  bankTransactions,
  forecastHistory,
  ledgerAccounts,
  syncRuns,
} from "../../src/db/schema/index.ts";
import { newId } from "../../src/domain/ids.ts";
import {
  type ForecastResponseBody,
  ForecastResponseSchema,
} from "../../src/http/routes/agent/forecast/index.ts";
import {
  getForecastVariance,
  HISTORY_DAYS,
  type HistoryWeek,
  recordForecastHistory,
} from "../../src/services/forecast/history.ts";
import { recomputeForecasts } from "../../src/services/forecast/recompute-forecasts.ts";
import { systemContext } from "../../src/services/system-context.ts";
import { createTestKey, getJson, TEST_NOW, testApp } from "../helpers/api.ts";
import { createTestOrg } from "../helpers/factories.ts";
import { testDriver } from "../helpers/test-db.ts";

// TEST_NOW is Monday 2 March 2026, 14:04 in Sydney.
const FEB_16 = new Date("2026-02-16T03:00:00.000Z");
const FEB_23 = new Date("2026-02-23T03:00:00.000Z");

/** An organisation with one reconciled bank account of 1000 today and two bank lines last week. */
async function setUp(db: Db) {
  const org = await createTestOrg(db, { timezone: "Australia/Sydney", now: FEB_16 });
  const ledgerId = newId("acc");
  const externalId = `ext-090-${ledgerId}`;
  await db.insert(ledgerAccounts).values({
    id: ledgerId,
    orgId: org.id,
    externalId,
    code: "090",
    name: "Cheque",
    type: "BANK",
  });
  await db.insert(bankAccounts).values({
    id: newId("bank"),
    orgId: org.id,
    ledgerAccountId: ledgerId,
    externalId,
    name: "Cheque",
    currency: "AUD",
    reconciledBalance: "1000",
    statementBalance: "1000",
    balanceSource: "RECONCILED",
    balanceSyncedAt: TEST_NOW,
    isActive: true,
  });
  for (const [type, date, total] of [
    ["SPEND", "2026-02-24", "100"],
    ["RECEIVE", "2026-02-25", "300"],
  ] as const) {
    await db.insert(bankTransactions).values({
      id: newId("btx"),
      orgId: org.id,
      externalId: `ext-${newId("btx")}`,
      type,
      status: "AUTHORISED",
      bankAccountExternalId: externalId,
      date,
      currency: "AUD",
      total,
      isReconciled: true,
      lastSyncedAt: TEST_NOW,
    } as typeof bankTransactions.$inferInsert);
  }
  return org;
}

async function kept(db: Db, orgId: string) {
  const list = await db
    .select()
    .from(forecastHistory)
    .where(eq(forecastHistory.orgId, orgId))
    .orderBy(forecastHistory.asOfDate);
  return list.map((r) => ({ ...r, weeks: r.weeks as HistoryWeek[] }));
}

describe(`forecast history and variance (${testDriver})`, () => {
  it("keeps one BASE forecast per local day and sets each past week against what happened", async () => {
    const t = await testApp();
    const org = await setUp(t.db);
    await recomputeForecasts(t.db, { orgId: org.id, now: FEB_16 });
    await recomputeForecasts(t.db, { orgId: org.id, now: FEB_23 });
    // A second recompute the same day replaces the day's row.
    await recomputeForecasts(t.db, { orgId: org.id, now: new Date(FEB_23.getTime() + 3600_000) });
    await recomputeForecasts(t.db, { orgId: org.id, now: TEST_NOW });
    const rows = await kept(t.db, org.id);
    expect(rows.map((r) => r.asOfDate)).toEqual(["2026-02-16", "2026-02-23", "2026-03-02"]);
    expect(rows[1]?.computedAt.toISOString()).toBe("2026-02-23T04:00:00.000Z");
    expect(rows[0]?.weeks).toHaveLength(13);

    const ctx = await systemContext(t.db, org.id, TEST_NOW);
    const v = await getForecastVariance({ ctx });
    expect(v.asOfDate).toBe("2026-03-02");
    expect(v.keptSince).toBe("2026-02-16");
    expect(v.weeks.map((w) => w.weekStart)).toEqual(["2026-02-23", "2026-02-16"]);
    const [last, before] = v.weeks;
    // Cash today is 1000; last week 100 went out on the 24th and 300 came in on the 25th.
    expect(last?.actual).toEqual({
      opening: "800",
      inflow: "300",
      outflow: "100",
      closing: "1000",
    });
    expect(before?.actual).toEqual({ opening: "800", inflow: "0", outflow: "0", closing: "800" });
    expect(last?.forecasts.map((f) => [f.horizon, f.madeOn])).toEqual([
      [1, "2026-02-23"],
      [2, "2026-02-16"],
    ]);
    expect(before?.forecasts.map((f) => [f.horizon, f.madeOn])).toEqual([[1, "2026-02-16"]]);
    const feb16 = rows[0]?.weeks;
    const h2 = last?.forecasts[1];
    expect(h2?.closing).toBe(feb16?.[1]?.closing);
    expect(Number(h2?.closingError)).toBeCloseTo(Number(feb16?.[1]?.closing) - 1000, 2);
    expect(Number(h2?.inflowError)).toBeCloseTo(Number(feb16?.[1]?.inflow) - 300, 2);
    const h1Before = before?.forecasts[0];
    expect(Number(h1Before?.closingError)).toBeCloseTo(Number(feb16?.[0]?.closing) - 800, 2);
    expect(v.byHorizon.map((h) => [h.horizon, h.weeks])).toEqual([
      [1, 2],
      [2, 1],
    ]);

    // Another organisation sees none of it.
    const other = await createTestOrg(t.db, { timezone: "Australia/Sydney" });
    const otherCtx = await systemContext(t.db, other.id, TEST_NOW);
    const none = await getForecastVariance({ ctx: otherCtx });
    expect(none).toMatchObject({ keptSince: null, weeks: [], byHorizon: [] });
  });

  it("keeps a variance per day until an import or a recompute moves its version", async () => {
    const t = await testApp();
    const org = await setUp(t.db);
    let minutes = 0;
    const imported = async () => {
      const at = new Date(TEST_NOW.getTime() - 3600_000 + 60_000 * ++minutes);
      await t.db.insert(syncRuns).values({
        id: newId("syn"),
        orgId: org.id,
        source: "test",
        startedAt: at,
        finishedAt: at,
        outcome: "succeeded",
      });
    };
    await recomputeForecasts(t.db, { orgId: org.id, now: FEB_16 });
    const ctx = await systemContext(t.db, org.id, TEST_NOW);
    // Never imported: computed on every call.
    const live = await getForecastVariance({ ctx });
    expect(await getForecastVariance({ ctx })).not.toBe(live);
    await imported();
    const first = await getForecastVariance({ ctx });
    expect(await getForecastVariance({ ctx })).toBe(first);
    // Another weeks count is its own entry.
    expect((await getForecastVariance({ ctx, weeks: 2 })).weeks.length).toBeLessThanOrEqual(2);
    // A recompute moves it.
    await recomputeForecasts(t.db, { orgId: org.id, now: FEB_23 });
    const afterRecompute = await getForecastVariance({ ctx });
    expect(afterRecompute).not.toBe(first);
    expect(afterRecompute.weeks.map((w) => w.weekStart)).toEqual(["2026-02-23", "2026-02-16"]);
    expect(await getForecastVariance({ ctx })).toBe(afterRecompute);
    // So does an import.
    await imported();
    expect(await getForecastVariance({ ctx })).not.toBe(afterRecompute);
  });

  it("prunes rows older than the retention window at each write", async () => {
    const t = await testApp();
    const org = await createTestOrg(t.db, { timezone: "Australia/Sydney" });
    const row = (asOfDate: string) => ({
      orgId: org.id,
      asOfDate,
      scenarioId: "scn_x",
      computedAt: TEST_NOW,
      startingCash: "0",
      weeks: [],
    });
    await recordForecastHistory(t.db, row("2025-01-01"));
    await recordForecastHistory(t.db, row("2025-02-25"));
    await recordForecastHistory(t.db, row("2026-03-02"));
    const rows = await kept(t.db, org.id);
    // 2026-03-02 − 371 days = 2025-02-24: the row of that day would be kept, older ones not.
    expect(HISTORY_DAYS).toBe(371);
    expect(rows.map((r) => r.asOfDate)).toEqual(["2025-02-25", "2026-03-02"]);
    const still = await t.db
      .select()
      .from(forecastHistory)
      .where(and(eq(forecastHistory.orgId, org.id), eq(forecastHistory.asOfDate, "2025-01-01")));
    expect(still).toEqual([]);
  });

  it("GET /forecast?variance=true adds the track record; without it the response is unchanged", async () => {
    const t = await testApp();
    const org = await setUp(t.db);
    await recomputeForecasts(t.db, { orgId: org.id, now: FEB_23 });
    await recomputeForecasts(t.db, { orgId: org.id, now: TEST_NOW });
    const key = await createTestKey(t.db, {
      kind: "ORG",
      orgId: org.id,
      label: "f",
      scopes: ["READ_FORECAST"],
    });
    const plain = await getJson<ForecastResponseBody>(t.app, "/api/agent/forecast", key.key);
    expect(plain.status, plain.text).toBe(200);
    expect(plain.body).not.toHaveProperty("variance");
    const r = await getJson<ForecastResponseBody>(
      t.app,
      "/api/agent/forecast?variance=true",
      key.key,
    );
    expect(r.status, r.text).toBe(200);
    expect(ForecastResponseSchema.parse(r.body)).toEqual(r.body);
    expect(r.body.variance?.weeks.map((w) => w.weekStart)).toEqual(["2026-02-23"]);
    expect(r.body.variance?.weeks[0]?.actual.closing).toBe("1000");
    const bad = await getJson(t.app, "/api/agent/forecast?variance=maybe", key.key);
    expect(bad.status).toBe(400);
  });
});
