import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import type { Db } from "../../src/db/client.ts";
import {
  bankAccounts,
  bankTransactions,
  cashItems,
  forecastScenarios,
  forecastSnapshots,
  ledgerAccounts,
  payments,
} from "../../src/db/schema/index.ts";
import { newId } from "../../src/domain/ids.ts";
import { canonical, money, sum } from "../../src/domain/money.ts";
import {
  type CashPositionResponse,
  CashPositionResponseSchema,
} from "../../src/http/routes/agent/cash-position/index.ts";
import {
  type ForecastResponseBody,
  ForecastResponseSchema,
} from "../../src/http/routes/agent/forecast/index.ts";
import { setCashOverride } from "../../src/services/cash-position/set-cash-override.ts";
import { recomputeForecasts } from "../../src/services/forecast/recompute-forecasts.ts";
import { createCustomScenario, listScenarios } from "../../src/services/forecast/scenarios.ts";
import { createTestKey, getJson, TEST_NOW, testApp } from "../helpers/api.ts";
import { createTestOrg } from "../helpers/factories.ts";
import { testDriver } from "../helpers/test-db.ts";

// TEST_NOW is 2026-03-02T03:04:05Z: Monday 2 March 2026, 14:04 in Sydney.
const TODAY = "2026-03-02";

async function account(
  db: Db,
  orgId: string,
  a: { code: string; name: string; type?: string; sensitive?: boolean },
) {
  const id = newId("acc");
  const externalId = `ext-${a.code}-${id}`;
  await db.insert(ledgerAccounts).values({
    id,
    orgId,
    externalId,
    code: a.code,
    name: a.name,
    type: a.type ?? "REVENUE",
    isSensitive: a.sensitive ?? false,
  });
  return { id, externalId };
}

async function bank(
  db: Db,
  orgId: string,
  a: {
    code: string;
    name: string;
    balance: string;
    currency?: string;
    source?: "STATEMENT" | "RECONCILED";
    sensitive?: boolean;
    active?: boolean;
    syncedAt?: Date;
  },
) {
  const ledger = await account(db, orgId, {
    code: a.code,
    name: a.name,
    type: "BANK",
    sensitive: a.sensitive,
  });
  const id = newId("bank");
  await db.insert(bankAccounts).values({
    id,
    orgId,
    ledgerAccountId: ledger.id,
    externalId: ledger.externalId,
    name: a.name,
    currency: a.currency ?? "AUD",
    reconciledBalance: a.balance,
    statementBalance: a.balance,
    balanceSource: a.source ?? "RECONCILED",
    balanceSyncedAt: a.syncedAt ?? TEST_NOW,
    isActive: a.active ?? true,
  });
  return { id, externalId: ledger.externalId, ledgerId: ledger.id };
}

/**
 * A cash item. Ledger documents are issued in October 2025: older than the run-rate window (91
 * days) and on a single day, so the forecast holds exactly the items a test lists.
 */
async function item(
  db: Db,
  orgId: string,
  i: {
    source: "LEDGER_INVOICE" | "LEDGER_BILL" | "MANUAL";
    amount: string;
    expected: string;
    status?: "AUTHORISED" | "DRAFT" | "PAID";
    category?: string;
    contact?: string;
  },
) {
  const id = newId("ci");
  const ledger = i.source !== "MANUAL";
  await db.insert(cashItems).values({
    id,
    orgId,
    source: i.source,
    externalId: ledger ? newId("ci") : null,
    status: i.status === "PAID" ? "ACTUAL" : "FORECAST",
    ledgerStatus: ledger ? (i.status ?? "AUTHORISED") : null,
    currency: "AUD",
    amount: i.amount,
    amountDue: ledger ? i.amount : null,
    issueDate: ledger ? "2025-10-01" : null,
    dueDate: ledger ? i.expected : null,
    expectedDate: i.expected,
    category: i.category ?? null,
    contactExternalId: i.contact ?? null,
    lastSyncedAt: TEST_NOW,
  });
  return id;
}

describe(`GET /api/agent/cash-position (${testDriver})`, () => {
  it("sums reconciled base-currency accounts, lists every active one, and renames sensitive ones", async () => {
    const t = await testApp();
    const org = await createTestOrg(t.db, { timezone: "Australia/Sydney", imported: true });
    const cheque = await bank(t.db, org.id, { code: "090", name: "Cheque", balance: "1000.50" });
    const loan = await bank(t.db, org.id, {
      code: "092",
      name: "Director loan",
      balance: "250",
      sensitive: true,
    });
    const usd = await bank(t.db, org.id, {
      code: "093",
      name: "USD account",
      balance: "9999",
      currency: "USD",
    });
    const stmt = await bank(t.db, org.id, {
      code: "094",
      name: "Statement only",
      balance: "777",
      source: "STATEMENT",
    });
    await bank(t.db, org.id, { code: "095", name: "Closed", balance: "5", active: false });
    const plain = await createTestKey(t.db, {
      kind: "ORG",
      orgId: org.id,
      label: "p",
      scopes: ["READ_FORECAST"],
    });
    const full = await createTestKey(t.db, {
      kind: "ORG",
      orgId: org.id,
      label: "s",
      scopes: ["READ_FORECAST"],
      sensitive: true,
    });

    const r = await getJson<CashPositionResponse>(t.app, "/api/agent/cash-position", plain.key);
    expect(r.status, r.text).toBe(200);
    expect(CashPositionResponseSchema.parse(r.body)).toEqual(r.body);
    const row = (
      id: string,
      name: string,
      balance: string,
      currency: string,
      source: string,
      included: boolean,
    ) => ({
      id,
      name,
      currency,
      reconciledBalance: balance,
      statementBalance: balance,
      balanceSource: source,
      included,
    });
    expect(r.body).toEqual({
      asOfDate: TODAY,
      startingCash: "1250.5",
      source: "ledger_reconciled",
      ledgerReconciledTotal: "1250.5",
      effectiveStartingCash: "1250.5",
      currency: "AUD",
      accounts: [
        row(cheque.id, "Cheque", "1000.5", "AUD", "RECONCILED", true),
        row(loan.id, "Sensitive account", "250", "AUD", "RECONCILED", true),
        row(stmt.id, "Statement only", "777", "AUD", "STATEMENT", false),
        row(usd.id, "USD account", "9999", "USD", "RECONCILED", false),
      ],
      redactedItemCount: 1,
    });
    expect(r.text).not.toContain("Director");
    const s = await getJson<CashPositionResponse>(t.app, "/api/agent/cash-position", full.key);
    expect(s.body.accounts.map((a) => a.name)).toEqual([
      "Cheque",
      "Director loan",
      "Statement only",
      "USD account",
    ]);
    expect(s.body.redactedItemCount).toBe(0);
    expect({ ...s.body, accounts: [] }).toEqual({ ...r.body, accounts: [], redactedItemCount: 0 });
  });

  it("adds unreconciled lines dated after the balance date up to today; an override replaces everything", async () => {
    const t = await testApp();
    const org = await createTestOrg(t.db, { timezone: "Australia/Sydney" });
    // Balance read on 26 Feb (Sydney); today is 2 March.
    const cheque = await bank(t.db, org.id, {
      code: "090",
      name: "Cheque",
      balance: "1000",
      syncedAt: new Date("2026-02-26T02:00:00Z"),
    });
    const line = (over: Partial<typeof bankTransactions.$inferInsert>) => ({
      id: newId("btx"),
      orgId: org.id,
      externalId: newId("btx"),
      type: "RECEIVE",
      status: "AUTHORISED",
      bankAccountExternalId: cheque.externalId,
      date: "2026-02-27",
      currency: "AUD",
      total: "100",
      isReconciled: false,
      ...over,
    });
    await t.db.insert(bankTransactions).values([
      line({}), // counts: +100
      line({ type: "SPEND", total: "30", date: "2026-03-02" }), // counts: −30 (today)
      line({ date: "2026-02-26" }), // on the balance date: already in the balance
      line({ date: "2026-03-03" }), // tomorrow: not yet
      line({ isReconciled: true }), // reconciled: not ours to adjust
      line({ status: "VOIDED" }),
    ]);
    const pay = (over: Partial<typeof payments.$inferInsert>) => ({
      id: newId("pay"),
      orgId: org.id,
      externalId: newId("pay"),
      status: "AUTHORISED",
      paymentType: "ACCPAYPAYMENT",
      bankAccountExternalId: cheque.externalId,
      date: "2026-02-28",
      amount: "45",
      bankAmount: "45",
      isReconciled: false,
      ...over,
    });
    await t.db
      .insert(payments)
      .values([
        pay({}),
        pay({ paymentType: "ACCRECPAYMENT", amount: "80", bankAmount: "80", status: "DELETED" }),
      ]);
    const k = await createTestKey(t.db, {
      kind: "ORG",
      orgId: org.id,
      label: "k",
      scopes: ["READ_FORECAST"],
    });
    const r = await getJson<CashPositionResponse>(t.app, "/api/agent/cash-position", k.key);
    expect(r.body).toMatchObject({
      ledgerReconciledTotal: "1000",
      effectiveStartingCash: "1025", // 1000 + 100 − 30 − 45
      startingCash: "1025",
      source: "ledger_reconciled",
    });

    await setCashOverride(t.db, { orgId: org.id, amount: "5000.10", now: TEST_NOW });
    const o = await getJson<CashPositionResponse>(t.app, "/api/agent/cash-position", k.key);
    expect(o.body).toMatchObject({
      ledgerReconciledTotal: "1000",
      effectiveStartingCash: "5000.1",
      startingCash: "5000.1",
      source: "manual",
    });
    await setCashOverride(t.db, { orgId: org.id, amount: null, now: TEST_NOW });
    const c = await getJson<CashPositionResponse>(t.app, "/api/agent/cash-position", k.key);
    expect(c.body).toMatchObject({ effectiveStartingCash: "1025", source: "ledger_reconciled" });
  });

  it("answers an organisation without bank accounts with zeros, and 403 without READ_FORECAST", async () => {
    const t = await testApp();
    const org = await createTestOrg(t.db, { timezone: "Australia/Sydney" });
    const k = await createTestKey(t.db, {
      kind: "ORG",
      orgId: org.id,
      label: "k",
      scopes: ["READ_FORECAST"],
    });
    const r = await getJson<CashPositionResponse>(t.app, "/api/agent/cash-position", k.key);
    expect(r.body).toMatchObject({
      ledgerReconciledTotal: "0",
      effectiveStartingCash: "0",
      accounts: [],
      redactedItemCount: 0,
    });
    const bankOnly = await createTestKey(t.db, {
      kind: "ORG",
      orgId: org.id,
      label: "b",
      scopes: ["READ_BANK"],
    });
    const denied = await getJson(t.app, "/api/agent/cash-position", bankOnly.key);
    expect([denied.status, denied.body.error]).toEqual([403, "insufficient_scope"]);
  });
});

describe(`GET /api/agent/forecast (${testDriver})`, () => {
  async function world() {
    const t = await testApp();
    const org = await createTestOrg(t.db, { timezone: "Australia/Sydney" });
    await bank(t.db, org.id, { code: "090", name: "Cheque", balance: "10000" });
    const sales = await account(t.db, org.id, { code: "200", name: "Sales" });
    const wages = await account(t.db, org.id, {
      code: "477",
      name: "Wages",
      type: "EXPENSE",
      sensitive: true,
    });
    const inv1 = await item(t.db, org.id, {
      source: "LEDGER_INVOICE",
      amount: "1200",
      expected: "2026-03-04",
      category: "200",
    });
    const inv2 = await item(t.db, org.id, {
      source: "LEDGER_INVOICE",
      amount: "300",
      expected: "2026-02-10",
      category: "200",
    }); // overdue
    await item(t.db, org.id, {
      source: "LEDGER_INVOICE",
      amount: "999",
      expected: "2026-03-04",
      status: "DRAFT",
    });
    await item(t.db, org.id, {
      source: "LEDGER_INVOICE",
      amount: "999",
      expected: "2026-03-04",
      status: "PAID",
    });
    const bill = await item(t.db, org.id, {
      source: "LEDGER_BILL",
      amount: "800",
      expected: "2026-03-12",
      category: "477",
    });
    const bill2 = await item(t.db, org.id, {
      source: "LEDGER_BILL",
      amount: "100",
      expected: "2026-03-20",
      category: "477",
    });
    const manual = await item(t.db, org.id, {
      source: "MANUAL",
      amount: "-50",
      expected: "2026-03-03",
    });
    const result = await recomputeForecasts(t.db, { orgId: org.id, now: TEST_NOW });
    const plain = await createTestKey(t.db, {
      kind: "ORG",
      orgId: org.id,
      label: "p",
      scopes: ["READ_FORECAST"],
    });
    const full = await createTestKey(t.db, {
      kind: "ORG",
      orgId: org.id,
      label: "s",
      scopes: ["READ_FORECAST"],
      sensitive: true,
    });
    return { t, org, sales, wages, inv1, inv2, bill, bill2, manual, result, plain, full };
  }

  it("serves the stored BASE snapshot: weeks from Monday, overdue in week 1, the chain intact", async () => {
    const w = await world();
    const r = await getJson<ForecastResponseBody>(w.t.app, "/api/agent/forecast", w.full.key);
    expect(r.status, r.text).toBe(200);
    expect(ForecastResponseSchema.parse(r.body)).toEqual(r.body);
    const base = (await listScenarios(w.t.db, w.org.id)).find((s) => s.kind === "BASE");
    expect(r.body).toMatchObject({
      scenarioId: base?.id,
      scenarioName: "Base",
      scenarioKind: "BASE",
      computedAt: TEST_NOW.toISOString(),
      startingCash: "10000",
      endingCash: "10550",
      totalInflow: "1500",
      totalOutflow: "950",
      minClosingCash: "10550",
      minClosingCashWeekIndex: 2,
      redactedItemCount: 0,
    });
    expect(r.body.weeks).toHaveLength(13);
    expect(r.body.weeks[0]).toMatchObject({
      weekStart: "2026-03-02",
      weekEnd: "2026-03-08",
      opening: "10000",
      inflow: "1500",
      guaranteedInflow: "1500",
      forecastInflow: "0",
      outflow: "50",
      net: "1450",
      closing: "11450",
      itemIds: [w.inv1, w.inv2, w.manual].sort(),
      overdueItemIds: [w.inv2],
      probabilityWeighted: false,
    });
    expect(r.body.weeks[0]?.categories?.accounts).toEqual({
      [w.sales.id]: { name: "Sales", inflow: "1500", outflow: "0" },
    });
    expect(r.body.weeks[1]).toMatchObject({
      opening: "11450",
      outflow: "800",
      closing: "10650",
      itemIds: [w.bill],
    });
    expect(r.body.weeks[2]).toMatchObject({
      opening: "10650",
      outflow: "100",
      closing: "10550",
      itemIds: [w.bill2],
    });
    // The nested form answers the same.
    const nested = await getJson(w.t.app, `/api/agent/orgs/${w.org.id}/forecast`, w.full.key);
    expect(nested.text).toBe(r.text);
  });

  it("serves the same snapshot's weeks afresh when an account's sensitive flag changes", async () => {
    // The served weeks are kept per snapshot and redaction (get-forecast.ts): a flag changed
    // without a recompute must still show at once, both ways, and never to the wrong key.
    const w = await world();
    const read = (key: string) =>
      getJson<ForecastResponseBody>(w.t.app, "/api/agent/forecast", key);
    const before = await read(w.plain.key);
    expect(before.body.redactedItemCount).toBe(2);
    expect(before.text).not.toContain("Wages");

    const flag = (isSensitive: boolean) =>
      w.t.db.update(ledgerAccounts).set({ isSensitive }).where(eq(ledgerAccounts.id, w.wages.id));
    await flag(false);
    const cleared = await read(w.plain.key);
    expect(cleared.body.computedAt).toBe(before.body.computedAt);
    expect(cleared.body.redactedItemCount).toBe(0);
    expect(cleared.body.weeks[1]?.categories?.accounts[w.wages.id]?.name).toBe("Wages");

    await flag(true);
    const again = await read(w.plain.key);
    expect(again.text).toBe(before.text);
    const full = await read(w.full.key);
    expect(full.body.weeks[1]?.categories?.accounts[w.wages.id]?.name).toBe("Wages");
    expect(full.body.redactedItemCount).toBe(0);
  });

  it("renames sensitive accounts per (week, account) without READ_SENSITIVE, never the amounts", async () => {
    const w = await world();
    const hidden = await getJson<ForecastResponseBody>(w.t.app, "/api/agent/forecast", w.plain.key);
    const shown = await getJson<ForecastResponseBody>(w.t.app, "/api/agent/forecast", w.full.key);
    // Wages appear in weeks 2 and 3: two pairs.
    expect(hidden.body.redactedItemCount).toBe(2);
    expect(hidden.body.weeks[1]?.categories?.accounts[w.wages.id]).toEqual({
      name: "Sensitive account",
      inflow: "0",
      outflow: "800",
    });
    expect(shown.body.weeks[1]?.categories?.accounts[w.wages.id]?.name).toBe("Wages");
    expect(hidden.text).not.toContain("Wages");
    const strip = (b: ForecastResponseBody) =>
      JSON.stringify({
        ...b,
        redactedItemCount: 0,
        weeks: b.weeks.map((wk) => ({
          ...wk,
          categories: Object.values(wk.categories?.accounts ?? {}).map((a) => [
            a.inflow,
            a.outflow,
          ]),
        })),
      });
    expect(strip(hidden.body)).toBe(strip(shown.body));
  });

  it("serves other scenarios by scenarioId and 404s unknown, foreign and never-computed ones", async () => {
    const w = await world();
    const scenarios = await listScenarios(w.t.db, w.org.id);
    expect(scenarios.map((s) => s.kind)).toEqual(["BASE", "BEST", "WORST"]);
    const best = scenarios.find((s) => s.kind === "BEST");
    const r = await getJson<ForecastResponseBody>(
      w.t.app,
      `/api/agent/forecast?scenarioId=${best?.id}`,
      w.full.key,
    );
    expect(r.body).toMatchObject({
      scenarioId: best?.id,
      scenarioKind: "BEST",
      scenarioName: "Best case",
    });
    // BEST: the 4 March invoice comes 7 days early (still week 1); the totals are the same here.
    expect(r.body.totalInflow).toBe("1500");

    const unknown = await getJson(w.t.app, "/api/agent/forecast?scenarioId=scn_nope", w.full.key);
    expect([unknown.status, unknown.body.error]).toEqual([404, "not_found"]);
    // PostgreSQL text cannot hold NUL: refused before any query (was a 500).
    for (const nul of ["%00", "scn_%00x"]) {
      const r = await getJson(w.t.app, `/api/agent/forecast?scenarioId=${nul}`, w.full.key);
      expect([r.status, r.body.error, r.body.parameter]).toEqual([
        400,
        "invalid_parameter",
        "scenarioId",
      ]);
    }
    const other = await world();
    const otherBase = (await listScenarios(other.t.db, other.org.id))[0];
    const foreign = await getJson(
      w.t.app,
      `/api/agent/forecast?scenarioId=${otherBase?.id}`,
      w.full.key,
    );
    expect([foreign.status, foreign.body.error]).toEqual([404, "not_found"]);
    const custom = await createCustomScenario(w.t.db, {
      orgId: w.org.id,
      name: "Slow payers",
      assumptions: { paymentLagDays: 14 },
      now: TEST_NOW,
    });
    const notYet = await getJson(
      w.t.app,
      `/api/agent/forecast?scenarioId=${custom.id}`,
      w.full.key,
    );
    expect([notYet.status, notYet.body.error]).toEqual([404, "not_found"]);
    await recomputeForecasts(w.t.db, {
      orgId: w.org.id,
      now: new Date(TEST_NOW.getTime() + 60_000),
    });
    const computed = await getJson<ForecastResponseBody>(
      w.t.app,
      `/api/agent/forecast?scenarioId=${custom.id}`,
      w.full.key,
    );
    expect(computed.body).toMatchObject({ scenarioKind: "CUSTOM", scenarioName: "Slow payers" });
    // 14 days late: the 4 March invoice moves to week 3, the overdue one (10 Feb + 14) stays in week 1.
    expect(computed.body.weeks[2]?.itemIds).toContain(w.inv1);
  });

  it("404s before the first snapshot, then serves the latest one", async () => {
    const t = await testApp();
    const org = await createTestOrg(t.db, { timezone: "Australia/Sydney" });
    const k = await createTestKey(t.db, {
      kind: "ORG",
      orgId: org.id,
      label: "k",
      scopes: ["READ_FORECAST"],
    });
    const none = await getJson(t.app, "/api/agent/forecast", k.key);
    expect([none.status, none.body.error]).toEqual([404, "not_found"]);
    await recomputeForecasts(t.db, { orgId: org.id, now: TEST_NOW });
    await item(t.db, org.id, { source: "MANUAL", amount: "70", expected: "2026-03-05" });
    const later = new Date(TEST_NOW.getTime() + 3_600_000);
    await recomputeForecasts(t.db, { orgId: org.id, now: later });
    const r = await getJson<ForecastResponseBody>(t.app, "/api/agent/forecast", k.key);
    expect(r.body).toMatchObject({
      computedAt: later.toISOString(),
      totalInflow: "70",
      endingCash: "70",
    });
  });

  it("keeps the last five snapshots per scenario", async () => {
    const w = await world();
    for (let i = 1; i <= 6; i++) {
      await recomputeForecasts(w.t.db, {
        orgId: w.org.id,
        now: new Date(TEST_NOW.getTime() + i * 1000),
      });
    }
    const rows = await w.t.db
      .select({ s: forecastSnapshots.scenarioId })
      .from(forecastSnapshots)
      .where(eq(forecastSnapshots.orgId, w.org.id));
    expect(rows).toHaveLength(15);
  });

  it("serves an engineVersion 1 snapshot without the inflow split", async () => {
    const w = await world();
    const [base] = await w.t.db
      .select()
      .from(forecastScenarios)
      .where(eq(forecastScenarios.orgId, w.org.id));
    const week = (start: string, end: string) => ({
      weekStart: start,
      weekEnd: end,
      opening: "0",
      inflow: "10",
      outflow: "0",
      net: "10",
      closing: "10",
      itemIds: ["x"],
      categories: { accounts: { [w.wages.id]: { name: "Wages" } } },
    });
    await w.t.db.insert(forecastSnapshots).values({
      id: `fcs_${newId("ci").slice(3)}`,
      orgId: w.org.id,
      scenarioId: base?.id ?? "",
      engineVersion: 1,
      computedAt: new Date(TEST_NOW.getTime() + 86_400_000),
      asOfDate: "2026-03-03",
      startingCash: "0",
      payload: { startingCash: "0", endingCash: "10", weeks: [week("2026-03-02", "2026-03-08")] },
    });
    const r = await getJson<ForecastResponseBody>(
      w.t.app,
      `/api/agent/forecast?scenarioId=${base?.id}`,
      w.plain.key,
    );
    expect(r.status, r.text).toBe(200);
    expect(ForecastResponseSchema.parse(r.body)).toEqual(r.body);
    expect(r.body.weeks[0]).not.toHaveProperty("guaranteedInflow");
    expect(r.body.weeks[0]).not.toHaveProperty("forecastInflow");
    expect(r.body.weeks[0]?.categories?.accounts[w.wages.id]).toEqual({
      name: "Sensitive account",
    });
    expect(r.body).not.toHaveProperty("totalInflow");
    expect(r.body.redactedItemCount).toBe(1);
  });

  it("sums of weeks equal the totals on the stored snapshot", async () => {
    const w = await world();
    const r = await getJson<ForecastResponseBody>(w.t.app, "/api/agent/forecast", w.full.key);
    expect(canonical(sum(r.body.weeks.map((x) => x.inflow)))).toBe(r.body.totalInflow);
    expect(canonical(sum(r.body.weeks.map((x) => x.outflow)))).toBe(r.body.totalOutflow);
    expect(
      canonical(
        money(r.body.startingCash)
          .plus(r.body.totalInflow ?? "0")
          .minus(r.body.totalOutflow ?? "0"),
      ),
    ).toBe(r.body.endingCash);
  });
});
