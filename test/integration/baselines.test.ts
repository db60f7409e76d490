import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import type { CliContext } from "../../src/cli/command.ts";
import { parseCommandLine } from "../../src/cli/command.ts";
import { baselinesCommand } from "../../src/cli/commands/baselines.ts";
import { ConfigSchema } from "../../src/config.ts";
import { fixedClock } from "../../src/domain/clock.ts";
import { addDays } from "../../src/domain/summaries/calendar.ts";
import type { ContactsSummaryResponse } from "../../src/http/routes/agent/contacts-summary/index.ts";
import type { DailySummaryResponse } from "../../src/http/routes/agent/daily-summary/index.ts";
import { computeBaselines } from "../../src/services/baselines/compute-baselines.ts";
import { getContactBaselines } from "../../src/services/baselines/get-contact-baselines.ts";
import { getJson, rowsOf } from "../helpers/api.ts";
import { getTestDatabase, testDriver } from "../helpers/test-db.ts";
import { CON, type DocSpec, type ExportSpec, insightsWorld } from "./insights-helpers.ts";

const NOW = new Date("2026-03-10T01:00:00.000Z"); // 2026-03-10 in Sydney

let n = 0;
/** A sales invoice of `amount` + 10% tax, due `terms` days later, paid `delay` days after that. */
const sale = (
  contact: number,
  date: string,
  amount: string,
  o: { terms?: number; delay?: number; open?: boolean } = {},
): DocSpec => {
  n += 1;
  const due = addDays(date, o.terms ?? 14);
  const gross = (Number(amount) * 1.1).toFixed(2);
  return {
    n,
    contact,
    date,
    due,
    status: o.open ? "AUTHORISED" : "PAID",
    lines: [{ account: "sales", amount, tax: (Number(amount) * 0.1).toFixed(2) }],
    ...(o.open ? {} : { payments: [{ n, date: addDays(due, o.delay ?? 0), amount: gross }] }),
  };
};

const monthly = [
  "2025-04-01",
  "2025-05-01",
  "2025-06-01",
  "2025-07-01",
  "2025-08-01",
  "2025-09-01",
  "2025-10-01",
  "2025-11-01",
  "2025-12-01",
  "2026-01-01",
  "2026-02-01",
];

const SPEC: ExportSpec = {
  contacts: [
    { n: 1, name: "Monthly Cafe", customer: true },
    { n: 2, name: "Quarterly Club", customer: true },
    { n: 3, name: "New Shop", customer: true },
    { n: 4, name: "Bean Supply", supplier: true },
  ],
  docs: [
    // 11 paid monthly invoices, 0/1/2 days late in turn (median 1), and March's still open.
    ...monthly.map((d, i) => sale(1, d, "100", { delay: i % 3 })),
    sale(1, "2026-03-01", "100", { open: true }),
    // Quarterly until February 2025, paid on time: churned since.
    ...["2024-05-15", "2024-08-15", "2024-11-15", "2025-02-15"].map((d) =>
      sale(2, d, "1000", { terms: 7 }),
    ),
    // One recent order.
    sale(3, "2026-02-01", "500"),
    // Cost of goods: 160 ex-tax, against 1600 of revenue over the 12 full months: margin 0.9.
    {
      n: 900,
      type: "ACCPAY",
      contact: 4,
      date: "2025-10-10",
      status: "PAID",
      lines: [{ account: "cogs", amount: "160", tax: "16" }],
      payments: [{ n: 900, date: "2025-10-20", amount: "176" }],
    },
  ],
};

describe(`contact baselines (${testDriver})`, () => {
  it("computes the drill's analytic fields after an import", async () => {
    const w = await insightsWorld(SPEC, { now: NOW });
    const b = await getContactBaselines(w.t.db, w.orgId, [
      CON(1),
      CON(2),
      CON(3),
      CON(4),
      "unknown",
    ]);
    const common = { grossMarginPercent: 0.9, expectedLifetimeYears: 1 };
    expect(b.get(CON(1))).toEqual({
      ltv: "1089",
      drill: {
        ...common,
        projectedLtv: "1089",
        historicalLtv: "1089",
        paymentDelayMedianDays: "1",
        cadence: "MONTHLY",
        cadenceConfidence: 100,
        abcClass: "A",
      },
      churnClass: "Active",
      revenueAllTime: "1210",
      revenueTrailing12m: "1210",
      computedAt: NOW.toISOString(),
      grossMargin: "0.9",
    });
    expect(b.get(CON(2))).toMatchObject({
      ltv: "3960",
      drill: {
        ...common,
        projectedLtv: "0",
        historicalLtv: "3960",
        paymentDelayMedianDays: "0",
        cadence: "QUARTERLY",
        cadenceConfidence: 100,
        abcClass: "C",
      },
      churnClass: "Churned",
      revenueTrailing12m: "0",
    });
    expect(b.get(CON(3))).toMatchObject({
      ltv: "495",
      drill: {
        ...common,
        projectedLtv: "495",
        cadence: "NONE",
        cadenceConfidence: 0,
        abcClass: null,
      },
      churnClass: "Active",
    });
    // A supplier and an unknown contact: nothing customer-specific, the organisation's lifetime.
    for (const id of [CON(4), "unknown"]) {
      expect(b.get(id)?.drill).toEqual({
        grossMarginPercent: null,
        projectedLtv: null,
        historicalLtv: null,
        expectedLifetimeYears: 1,
        paymentDelayMedianDays: null,
        cadence: null,
        cadenceConfidence: null,
        abcClass: null,
      });
      expect(b.get(id)?.ltv).toBeNull();
    }
    const summary = await getJson<ContactsSummaryResponse>(
      w.t.app,
      "/api/agent/contacts/summary",
      w.plain,
    );
    expect(summary.body.abcDistribution).toEqual({ A: 1, B: 0, C: 1, unclassified: 1 });
    expect(summary.body.topByRevenue.map((c) => [c.name, c.amount, c.count])).toEqual([
      ["Quarterly Club", "3960", 4],
      ["Monthly Cafe", "1089", 11],
      ["New Shop", "495", 1],
    ]);
  });

  it("replaces an organisation's rows on every run and records the run", async () => {
    const w = await insightsWorld(SPEC, { now: NOW });
    const later = new Date(NOW.getTime() + 86_400_000);
    const r = await computeBaselines(w.t.db, { orgId: w.orgId, now: later });
    expect(r).toMatchObject({
      contacts: 4,
      customers: 3,
      engagedCustomers: 2,
      expectedLifetimeYears: 1,
      grossMargin: "0.9",
    });
    const rows = rowsOf<{ n: number; at: string }>(
      await w.t.db.execute(sql`
        SELECT count(*)::int AS n, min(computed_at)::text AS at FROM contact_baselines WHERE org_id = ${w.orgId}`),
    );
    expect(rows[0]?.n).toBe(4);
    expect(new Date(rows[0]?.at ?? "").toISOString()).toBe(later.toISOString());
    const org = rowsOf<{ asOf: string; lifetime: string }>(
      await w.t.db.execute(sql`
        SELECT as_of_date::text AS "asOf", expected_lifetime_years::text AS lifetime FROM org_baselines WHERE org_id = ${w.orgId}`),
    );
    expect(org).toEqual([{ asOf: "2026-03-11", lifetime: "1" }]);
  });

  it("serves stored notes with their insight id, and fallback notes without one when stale", async () => {
    // New Shop paid 550 of the 880 received over the last 90 days: a concentration warning.
    const w = await insightsWorld(SPEC, { now: NOW, sensitiveContacts: [3] });
    const fresh = await getJson<DailySummaryResponse>(
      w.t.app,
      "/api/agent/daily-summary",
      w.sensitive,
    );
    expect(fresh.status, fresh.text).toBe(200);
    const note = fresh.body.notesForAgent.find((x) => x.kind === "concentration");
    expect(note).toMatchObject({
      window: "this_quarter",
      severity: "warn",
      sourceInsightId: expect.stringMatching(/^ins_/),
    });
    expect(note?.text).toMatch(/^New Shop accounted for 63% of customer receipts/);
    const plain = await getJson<DailySummaryResponse>(w.t.app, "/api/agent/daily-summary", w.plain);
    const masked = plain.body.notesForAgent.find((x) => x.kind === "concentration");
    expect(masked?.text).toMatch(/^Sensitive contact accounted for 63%/);
    expect(plain.text).not.toContain("New Shop");

    // 40 hours later without a run: the same detectors run as the fallback, without ids.
    w.t.clock.advance(40 * 3600 * 1000);
    const stale = await getJson<DailySummaryResponse>(w.t.app, "/api/agent/daily-summary", w.plain);
    const fallback = stale.body.notesForAgent.find((x) => x.kind === "concentration");
    expect(fallback?.text).toMatch(/^Sensitive contact accounted for/);
    expect(fallback).not.toHaveProperty("sourceInsightId");
  });

  it("has a command that computes one organisation or all", async () => {
    const w = await insightsWorld(SPEC, { now: NOW });
    const database = await getTestDatabase();
    const printed: Record<string, unknown>[] = [];
    const ctx: CliContext = {
      config: ConfigSchema.parse({}),
      clock: fixedClock(new Date("2026-03-12T00:00:00.000Z")),
      json: true,
      openDatabase: async () => ({ ...database, close: async () => {} }),
      print: (data) => printed.push(data),
    };
    await baselinesCommand.run(parseCommandLine(baselinesCommand, ["--org", w.orgId]).args, ctx);
    expect(printed[0]).toMatchObject({
      results: [{ orgId: w.orgId, asOfDate: "2026-03-12", contacts: 4 }],
    });
    await expect(
      baselinesCommand.run(parseCommandLine(baselinesCommand, []).args, ctx),
    ).rejects.toThrow(/exactly one of --org or --all/);
  });
});
