import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { type CliContext, parseCommandLine } from "../../src/cli/command.ts";
import { forecastCommand } from "../../src/cli/commands/forecast.ts";
import { ConfigSchema } from "../../src/config.ts";
import type { Db } from "../../src/db/client.ts";
import {
  bankAccounts,
  bankTransactions,
  cashItems,
  forecastHistory,
  ledgerAccounts,
  payments,
  syncRuns,
} from "../../src/db/schema/index.ts";
import { fixedClock } from "../../src/domain/clock.ts";
import { addDays } from "../../src/domain/forecasting/dates.ts";
import { newId } from "../../src/domain/ids.ts";
import { money, sum } from "../../src/domain/money.ts";
import {
  type ForecastResponseBody,
  ForecastResponseSchema,
} from "../../src/http/routes/agent/forecast/index.ts";
import { seedDemo } from "../../src/services/demo/seed-demo.ts";
import {
  type ForecastVariance,
  getForecastVariance,
  HISTORY_DAYS,
  type HistoryWeek,
  recordForecastHistory,
} from "../../src/services/forecast/history.ts";
import {
  type ForecastPayload,
  recomputeForecasts,
} from "../../src/services/forecast/recompute-forecasts.ts";
import { systemContext } from "../../src/services/system-context.ts";
import { createTestKey, getJson, TEST_NOW, testApp } from "../helpers/api.ts";
import { createTestOrg } from "../helpers/factories.ts";
import { keepReplayedForecasts } from "../helpers/forecast-history.ts";
import { getTestDatabase, testDriver } from "../helpers/test-db.ts";

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

/**
 * A kept forecast of 13 weeks from `monday`: the first week as given (inflow, outflow and its
 * accounts' flows by id), the others empty; closing chained from `start`.
 */
function keptWeeks(
  monday: string,
  start: string,
  first: {
    inflow: string;
    outflow: string;
    accounts: Record<string, { name: string; inflow: string; outflow: string }>;
  },
): ForecastPayload["weeks"] {
  let opening = money(start);
  return Array.from({ length: 13 }, (_, i) => {
    const weekStart = addDays(monday, 7 * i);
    const w = i === 0 ? first : { inflow: "0", outflow: "0", accounts: {} };
    const net = money(w.inflow).minus(w.outflow);
    const closing = opening.plus(net);
    const week = {
      weekStart,
      weekEnd: addDays(weekStart, 6),
      opening: opening.toString(),
      inflow: w.inflow,
      guaranteedInflow: w.inflow,
      forecastInflow: "0",
      outflow: w.outflow,
      net: net.toString(),
      closing: closing.toString(),
      itemIds: [],
      overdueItemIds: [],
      probabilityWeighted: false,
      categories: { accounts: w.accounts, sources: {} },
    };
    opening = closing;
    return week;
  });
}

/** Every category row set of a variance sums to its totals, to the cent. */
function expectCategoriesSum(v: ForecastVariance): number {
  let checked = 0;
  const total = (xs: string[]) => sum(xs).toString();
  for (const w of v.weeks) {
    const actual = w.actual.categories ?? [];
    expect(total(actual.map((c) => c.inflow)), w.weekStart).toBe(money(w.actual.inflow).toString());
    expect(total(actual.map((c) => c.outflow)), w.weekStart).toBe(
      money(w.actual.outflow).toString(),
    );
    for (const f of w.forecasts) {
      const rows = f.categories;
      if (!rows) continue;
      const at = `${w.weekStart} h${f.horizon}`;
      expect(total(rows.map((c) => c.inflow)), at).toBe(money(f.inflow).toString());
      expect(total(rows.map((c) => c.outflow)), at).toBe(money(f.outflow).toString());
      expect(total(rows.map((c) => c.inflowError)), at).toBe(money(f.inflowError).toString());
      expect(total(rows.map((c) => c.outflowError)), at).toBe(money(f.outflowError).toString());
      // The net errors add up to the week's change of closing error.
      expect(total(rows.map((c) => c.netError)), at).toBe(
        money(f.inflowError).minus(f.outflowError).toString(),
      );
      for (const c of rows) {
        expect(money(c.netError).toString(), `${at} ${c.name}`).toBe(
          money(c.inflowError).minus(c.outflowError).toString(),
        );
      }
      checked += 1;
    }
  }
  return checked;
}

describe(`forecast variance by category (${testDriver})`, () => {
  /**
   * The week of 23 Feb: an invoice coded to Sales (200) paid 300, rent (469, sensitive) paid 150
   * by a bank line, and a 40 transfer with no account. The forecast kept on 23 Feb said Sales
   * 300 in, Rent 100 out, and 50 in without an account.
   */
  async function handBuilt(db: Db) {
    const org = await setUp(db);
    const account = async (code: string, name: string, type: string, sensitive = false) => {
      const id = newId("acc");
      await db.insert(ledgerAccounts).values({
        id,
        orgId: org.id,
        externalId: `ext-${code}-${id}`,
        code,
        name,
        type,
        isSensitive: sensitive,
      });
      return id;
    };
    const sales = await account("200", "Sales", "REVENUE");
    const rent = await account("469", "Rent", "EXPENSE", true);
    // setUp's two lines of that week have no account: remove them, this week is built here.
    await db.delete(bankTransactions).where(eq(bankTransactions.orgId, org.id));
    const [bank] = await db.select().from(bankAccounts).where(eq(bankAccounts.orgId, org.id));
    const bankExt = bank?.externalId ?? "";
    await db.insert(cashItems).values({
      id: newId("ci"),
      orgId: org.id,
      source: "LEDGER_INVOICE",
      externalId: "inv-ext-1",
      invoiceNumber: "INV-1",
      status: "ACTUAL",
      ledgerStatus: "PAID",
      currency: "AUD",
      amount: "300",
      amountDue: "0",
      issueDate: "2026-02-01",
      dueDate: "2026-02-25",
      expectedDate: "2026-02-25",
      actualDate: "2026-02-25",
      category: "200",
      lastSyncedAt: TEST_NOW,
    } as typeof cashItems.$inferInsert);
    await db.insert(payments).values({
      id: newId("pay"),
      orgId: org.id,
      externalId: "pay-ext-1",
      paymentType: "ACCRECPAYMENT",
      status: "AUTHORISED",
      invoiceExternalId: "inv-ext-1",
      bankAccountExternalId: bankExt,
      date: "2026-02-25",
      amount: "300",
      isReconciled: true,
    });
    for (const [type, date, total, accountCode] of [
      ["SPEND", "2026-02-24", "150", "469"],
      ["SPEND-TRANSFER", "2026-02-26", "40", null],
    ] as const) {
      await db.insert(bankTransactions).values({
        id: newId("btx"),
        orgId: org.id,
        externalId: `ext-${newId("btx")}`,
        type,
        status: "AUTHORISED",
        bankAccountExternalId: bankExt,
        date,
        currency: "AUD",
        total,
        accountCode,
        isReconciled: true,
        lastSyncedAt: TEST_NOW,
      } as typeof bankTransactions.$inferInsert);
    }
    await recordForecastHistory(db, {
      orgId: org.id,
      asOfDate: "2026-02-23",
      scenarioId: "scn_kept",
      computedAt: FEB_23,
      startingCash: "890",
      weeks: keptWeeks("2026-02-23", "890", {
        inflow: "350",
        outflow: "100",
        accounts: {
          [sales]: { name: "Sales", inflow: "300", outflow: "0" },
          [rent]: { name: "Rent", inflow: "0", outflow: "100" },
        },
      }),
    });
    return { org, sales, rent };
  }

  it("sets each account's forecast against the money that moved through it, summing to the week", async () => {
    const t = await testApp();
    const { org, sales, rent } = await handBuilt(t.db);
    const ctx = await systemContext(t.db, org.id, TEST_NOW);
    const v = await getForecastVariance({ ctx, categories: true });
    const [week] = v.weeks;
    expect(week?.weekStart).toBe("2026-02-23");
    // 1000 today; 300 in, 150 and 40 out during the week.
    expect(week?.actual).toMatchObject({
      opening: "890",
      inflow: "300",
      outflow: "190",
      closing: "1000",
    });
    expect(week?.actual.categories).toEqual([
      { accountId: sales, name: "Sales", inflow: "300", outflow: "0" },
      { accountId: rent, name: "Rent", inflow: "0", outflow: "150" },
      { accountId: null, name: "No account", inflow: "0", outflow: "40" },
    ]);
    const [h1] = week?.forecasts ?? [];
    expect(h1).toMatchObject({
      horizon: 1,
      madeOn: "2026-02-23",
      inflow: "350",
      outflow: "100",
      inflowError: "50",
      outflowError: "-90",
    });
    // Rent was 50 dearer than forecast; 50 came in nowhere and the 40 transfer was not foreseen.
    expect(h1?.categories).toEqual([
      {
        accountId: null,
        name: "No account",
        inflow: "50",
        outflow: "0",
        inflowError: "50",
        outflowError: "-40",
        netError: "90",
      },
      {
        accountId: rent,
        name: "Rent",
        inflow: "0",
        outflow: "100",
        inflowError: "0",
        outflowError: "-50",
        netError: "50",
      },
      {
        accountId: sales,
        name: "Sales",
        inflow: "300",
        outflow: "0",
        inflowError: "0",
        outflowError: "0",
        netError: "0",
      },
    ]);
    expect(expectCategoriesSum(v)).toBe(1);
    expect(v.redactedCategoryCount).toBe(0);
    // Without categories nothing of them is there.
    const plain = await getForecastVariance({ ctx });
    expect(plain.weeks[0]?.actual).not.toHaveProperty("categories");
    expect(plain.weeks[0]?.forecasts[0]).not.toHaveProperty("categories");
    expect(plain).not.toHaveProperty("redactedCategoryCount");
    expect(plain.weeks[0]?.forecasts[0]?.closingError).toBe(h1?.closingError);
  });

  it("masks sensitive accounts' names for a key without READ_SENSITIVE, never the amounts", async () => {
    const t = await testApp();
    const { org, rent } = await handBuilt(t.db);
    // Today's snapshot, for /forecast to answer (its own history row is today's: not scored).
    await recomputeForecasts(t.db, { orgId: org.id, now: TEST_NOW });
    const key = async (sensitive: boolean) =>
      (
        await createTestKey(t.db, {
          kind: "ORG",
          orgId: org.id,
          label: sensitive ? "s" : "p",
          scopes: ["READ_FORECAST"],
          sensitive,
        })
      ).key;
    const read = async (k: string) => {
      const r = await getJson<ForecastResponseBody>(
        t.app,
        "/api/agent/forecast?varianceCategories=true",
        k,
      );
      expect(r.status, r.text).toBe(200);
      expect(ForecastResponseSchema.parse(r.body)).toEqual(r.body);
      const v = r.body.variance;
      if (!v) throw new Error("no variance");
      return v;
    };
    const plain = await read(await key(false));
    const full = await read(await key(true));
    const rentRows = (v: ForecastVariance) => [
      ...(v.weeks[0]?.actual.categories ?? []).filter((c) => c.accountId === rent),
      ...(v.weeks[0]?.forecasts[0]?.categories ?? []).filter((c) => c.accountId === rent),
    ];
    expect(rentRows(plain).map((c) => c.name)).toEqual(["Sensitive account", "Sensitive account"]);
    expect(rentRows(full).map((c) => c.name)).toEqual(["Rent", "Rent"]);
    expect(plain.redactedCategoryCount).toBe(2);
    expect(full.redactedCategoryCount).toBe(0);
    expect(JSON.stringify(plain)).not.toContain("Rent");
    // Only the names differ: every amount, id and total is the same.
    const names = (v: ForecastVariance) =>
      JSON.parse(JSON.stringify(v).replaceAll('"Rent"', '"Sensitive account"'), (k, x) =>
        k === "redactedCategoryCount" ? undefined : x,
      );
    expect(names(plain)).toEqual(names(full));
    // Flagging the account off shows it to the same key on the next request.
    await t.db
      .update(ledgerAccounts)
      .set({ isSensitive: false })
      .where(eq(ledgerAccounts.id, rent));
    const after = await read(await key(false));
    expect(rentRows(after).map((c) => c.name)).toEqual(["Rent", "Rent"]);
    // varianceCategories is a boolean like variance.
    const bad = await getJson(
      t.app,
      "/api/agent/forecast?varianceCategories=maybe",
      await key(false),
    );
    expect(bad.status).toBe(400);
  });

  it("forecast variance --categories prints each account's forecast against actual, masked by default", async () => {
    const t = await testApp();
    const { org } = await handBuilt(t.db);
    const run = async (argv: string[]) => {
      const database = await getTestDatabase();
      const printed: string[] = [];
      const ctx: CliContext = {
        config: ConfigSchema.parse({}),
        clock: fixedClock(TEST_NOW),
        json: false,
        openDatabase: async () => ({ ...database, close: async () => {} }),
        print: (_data, text) => printed.push(Array.isArray(text) ? text.join("\n") : String(text)),
      };
      await forecastCommand.run(parseCommandLine(forecastCommand, argv).args, ctx);
      return printed.join("\n");
    };
    const masked = await run(["variance", "--org", org.id, "--categories"]);
    const rowOf = (text: string, name: string) =>
      text
        .split("\n")
        .find((l) => l.startsWith(name))
        ?.split(/ {2,}/)
        .map((x) => x.trim());
    expect(masked).toContain(
      "Week 2026-02-23 by account, forecast made 1 week(s) ahead on 2026-02-23",
    );
    // forecast in, actual in, forecast out, actual out, difference.
    expect(rowOf(masked, "Sensitive account")).toEqual([
      "Sensitive account",
      "0",
      "0",
      "100",
      "150",
      "50",
    ]);
    expect(rowOf(masked, "No account")).toEqual(["No account", "50", "0", "0", "40", "90"]);
    expect(rowOf(masked, "total")).toEqual(["total", "350", "300", "100", "190", "140"]);
    expect(masked).not.toContain("Rent");
    expect(masked).toContain("2 row(s) of sensitive accounts not named");
    const named = await run(["variance", "--org", org.id, "--categories", "--include-sensitive"]);
    expect(rowOf(named, "Rent")).toEqual(["Rent", "0", "0", "100", "150", "50"]);
    // Only the forecast made 1 week ahead was kept of that week.
    expect(await run(["variance", "--org", org.id, "--categories", "--horizon", "2"])).toContain(
      "no forecast made 2 week(s) ahead was kept with its accounts",
    );
    await expect(run(["variance", "--org", org.id, "--horizon", "2"])).rejects.toThrow(
      /--horizon is for --categories/,
    );
  });

  it("on the demo business, every week's category rows sum to its forecast and actual totals", async () => {
    const t = await testApp({ now: TEST_NOW });
    const demo = await seedDemo(t.db, {
      seed: "demo",
      now: TEST_NOW,
      folder: mkdtempSync(join(tmpdir(), "variance-demo-")),
    });
    // Forecasts the engine would have served on the last six Mondays and a Thursday.
    const origins = ["2026-01-19", "2026-01-26", "2026-02-02", "2026-02-09", "2026-02-12"];
    await keepReplayedForecasts(t.db, demo.orgId, TEST_NOW, [
      ...origins,
      "2026-02-16",
      "2026-02-23",
    ]);
    const ctx = await systemContext(t.db, demo.orgId, TEST_NOW);
    const v = await getForecastVariance({ ctx, categories: true });
    expect(v.weeks.length).toBeGreaterThanOrEqual(6);
    // Forecasts of weeks 1 to 6 ahead, each with its accounts.
    expect(expectCategoriesSum(v)).toBe(6 + 5 + 4 + 3 + 2 + 1);
    const last = v.weeks[0];
    // Real money on real accounts on both sides, not everything in the no-account row.
    expect(last?.actual.categories?.filter((c) => c.accountId !== null).length).toBeGreaterThan(2);
    expect(
      last?.forecasts[0]?.categories?.filter((c) => c.accountId !== null && c.inflow !== "0"),
    ).not.toEqual([]);
    // The demo's wages account is sensitive: named for the operator, masked for the demo key.
    const r = await getJson<ForecastResponseBody>(
      t.app,
      "/api/agent/forecast?varianceCategories=true",
      demo.key,
    );
    expect(r.status, r.text).toBe(200);
    expect(r.body.variance?.redactedCategoryCount).toBeGreaterThan(0);
    const rowsOf = (x: ForecastVariance | undefined) =>
      (x?.weeks ?? []).flatMap((w) => [
        ...(w.actual.categories ?? []),
        ...w.forecasts.flatMap((f) => f.categories ?? []),
      ]);
    const masked = rowsOf(r.body.variance).filter((c) => c.name === "Sensitive account");
    expect(masked.length).toBe(r.body.variance?.redactedCategoryCount);
    const maskedIds = new Set(masked.map((c) => c.accountId));
    const named = rowsOf(v).filter((c) => maskedIds.has(c.accountId));
    expect(named.length).toBe(masked.length);
    for (const c of named) expect(c.name).not.toBe("Sensitive account");
    // varianceHorizon keeps one forecast per week: last week's forecast of each week.
    const h1 = await getJson<ForecastResponseBody>(
      t.app,
      "/api/agent/forecast?varianceCategories=true&varianceHorizon=1",
      demo.key,
    );
    expect(h1.status, h1.text).toBe(200);
    expect(h1.body.variance?.weeks.map((w) => w.forecasts.map((f) => f.horizon))).toEqual(
      r.body.variance?.weeks.map(() => [1]),
    );
    expect(h1.body.variance?.weeks[0]?.forecasts[0]).toEqual(
      r.body.variance?.weeks[0]?.forecasts[0],
    );
    expect(h1.body.variance?.byHorizon).toEqual(r.body.variance?.byHorizon);
    const h6 = await getJson<ForecastResponseBody>(
      t.app,
      "/api/agent/forecast?variance=true&varianceHorizon=6",
      demo.key,
    );
    expect(h6.body.variance?.weeks.map((w) => w.weekStart)).toEqual([
      r.body.variance?.weeks.find((w) => w.forecasts.some((f) => f.horizon === 6))?.weekStart,
    ]);
  }, 120_000);

  it("keeps the forecast's accounts with each day's row; the engine's weeks sum by category", async () => {
    const t = await testApp();
    const org = await setUp(t.db);
    await recomputeForecasts(t.db, { orgId: org.id, now: FEB_16 });
    await recomputeForecasts(t.db, { orgId: org.id, now: FEB_23 });
    const rows = await kept(t.db, org.id);
    for (const r of rows) for (const w of r.weeks) expect(w.accounts).toBeDefined();
    const ctx = await systemContext(t.db, org.id, TEST_NOW);
    const v = await getForecastVariance({ ctx, categories: true });
    expect(expectCategoriesSum(v)).toBe(3);
  });
});
