import { describe, expect, it } from "vitest";
import { DailySummaryResponseSchema } from "../../src/contracts/agent/daily-summary.ts";
import { forecastHeadline } from "../../src/domain/summaries/forecast-headline.ts";
import type { DailySummaryResponse } from "../../src/http/routes/agent/daily-summary/index.ts";
import { computeStartingCash } from "../../src/services/cash-position/starting-cash.ts";
import { getForecast } from "../../src/services/forecast/get-forecast.ts";
import { systemContext } from "../../src/services/system-context.ts";
import { getJson } from "../helpers/api.ts";
import { testDriver } from "../helpers/test-db.ts";
import { type ExportSpec, insightsWorld } from "./insights-helpers.ts";

/* 2026-03-09T14:00Z is 10 March in Sydney: the 7 days are 4–10 March there (3–9 in UTC). */
const NOW = new Date("2026-03-09T14:00:00.000Z");

const SPEC: ExportSpec = {
  contacts: [
    { n: 1, name: "Harbour Cafe", customer: true },
    { n: 2, name: "Secret Client", customer: true },
    { n: 4, name: "Bean Supply", supplier: true },
    { n: 5, name: "Staff", supplier: false },
    { n: 6, name: "Landlord", supplier: true },
  ],
  docs: [
    // Money in: 1100 (4 March), 550 (a sensitive customer, 6 March), and one on 3 March (out of range).
    {
      n: 1,
      contact: 1,
      date: "2026-02-20",
      due: "2026-03-05",
      status: "PAID",
      lines: [{ account: "sales", amount: "1000", tax: "100" }],
      payments: [{ n: 1, date: "2026-03-10", amount: "1100" }],
    },
    {
      n: 2,
      contact: 2,
      date: "2026-02-20",
      due: "2026-03-05",
      status: "PAID",
      lines: [{ account: "sales", amount: "500", tax: "50" }],
      payments: [{ n: 2, date: "2026-03-06", amount: "550" }],
    },
    {
      n: 3,
      contact: 1,
      date: "2026-02-10",
      due: "2026-03-01",
      status: "PAID",
      lines: [{ account: "sales", amount: "9000" }],
      payments: [{ n: 3, date: "2026-03-03", amount: "9000" }],
    },
    // Money out: a bill payment of 220 on 7 March.
    {
      n: 4,
      type: "ACCPAY",
      contact: 4,
      date: "2026-02-25",
      status: "PAID",
      lines: [{ account: "cogs", amount: "200", tax: "20" }],
      payments: [{ n: 4, date: "2026-03-07", amount: "220" }],
    },
    // Receivables by age on 10 March.
    {
      n: 10,
      contact: 1,
      date: "2026-03-06",
      due: "2026-03-20",
      status: "AUTHORISED",
      lines: [{ account: "sales", amount: "1000", tax: "100" }],
    },
    {
      n: 11,
      contact: 1,
      date: "2026-02-15",
      due: "2026-03-01",
      status: "AUTHORISED",
      lines: [{ account: "sales", amount: "200", tax: "20" }],
    },
    {
      n: 12,
      contact: 2,
      date: "2026-01-05",
      due: "2026-01-20",
      status: "AUTHORISED",
      lines: [{ account: "sales", amount: "300", tax: "30" }],
    },
    {
      n: 13,
      contact: 1,
      date: "2025-12-05",
      due: "2025-12-20",
      status: "AUTHORISED",
      lines: [{ account: "sales", amount: "400", tax: "40" }],
    },
    {
      n: 14,
      contact: 1,
      date: "2025-09-15",
      due: "2025-10-01",
      status: "AUTHORISED",
      lines: [{ account: "sales", amount: "500", tax: "50" }],
    },
    {
      n: 15,
      contact: 1,
      date: "2026-02-14",
      due: "2026-02-28",
      status: "AUTHORISED",
      lines: [{ account: "sales", amount: "800", tax: "80" }],
      payments: [{ n: 15, date: "2026-02-20", amount: "200" }],
    },
  ],
  txns: [
    // Wages coded to a sensitive account, rent from a sensitive bank account, a receipt without
    // a contact; a transfer and a voided line do not count.
    { n: 1, type: "SPEND", date: "2026-03-08", total: "3000", contact: 5, account: "wages" },
    {
      n: 2,
      type: "SPEND",
      date: "2026-03-09",
      total: "400",
      contact: 6,
      account: "rent",
      bank: "savings",
    },
    { n: 3, type: "RECEIVE", date: "2026-03-09", total: "100", account: "sales" },
    { n: 4, type: "SPEND-TRANSFER", date: "2026-03-08", total: "5000", account: "rent" },
    {
      n: 5,
      type: "SPEND",
      date: "2026-03-08",
      total: "777",
      contact: 6,
      account: "rent",
      status: "VOIDED",
    },
  ],
};

describe(`daily summary (${testDriver})`, () => {
  it("combines cash, the last 7 Sydney days, AR ageing, the forecast and a narrative", async () => {
    const w = await insightsWorld(SPEC, {
      now: NOW,
      sensitiveContacts: [2],
      sensitiveAccounts: ["wages", "savings"],
    });
    const r = await getJson<DailySummaryResponse>(w.t.app, "/api/agent/daily-summary", w.plain);
    expect(r.status, r.text).toBe(200);
    expect(DailySummaryResponseSchema.parse(r.body)).toEqual(r.body);
    const ctx = await systemContext(w.t.db, w.orgId, NOW);
    const cash = await computeStartingCash(w.t.db, ctx.org, NOW);
    const forecast = forecastHeadline(await getForecast({ ctx }));
    const d = (date: string) => `${date}T00:00:00.000Z`;
    expect(r.body).toMatchObject({
      orgName: "Insights Org",
      generatedAt: NOW.toISOString(),
      asOfDate: "2026-03-10",
      cashToday: {
        amount: cash.effectiveStartingCash,
        currency: "AUD",
        source: "ledger_reconciled",
      },
      bankAccounts: 2,
      last7d: {
        inflow: "1750",
        outflow: "3620",
        net: "-1870",
        topInflows: [
          { contactName: "Harbour Cafe", amount: "1100", date: d("2026-03-10") },
          { contactName: "Sensitive contact", amount: "550", date: d("2026-03-06") },
          { contactName: "No contact", amount: "100", date: d("2026-03-09") },
        ],
        topOutflows: [
          { contactName: "Sensitive contact", amount: "3000", date: d("2026-03-08") },
          { contactName: "Sensitive contact", amount: "400", date: d("2026-03-09") },
          { contactName: "Bean Supply", amount: "220", date: d("2026-03-07") },
        ],
      },
      ar: {
        current: "1100",
        days1to30: "900",
        days31to60: "330",
        days61to90: "440",
        days90plus: "550",
        total: "3320",
        overdueCount: 5,
      },
      forecast13w: {
        endingCash: forecast?.endingCash ?? null,
        minClosingCash: forecast?.minClosingCash ?? null,
        minClosingWeekStart: forecast?.minClosingWeekStart ?? null,
        breakEvenDate: forecast?.breakEvenDate ?? null,
      },
      redactedItemCount: 3,
    });
    expect(r.body.narrative).toMatch(
      /^Cash today is AUD [\d,.-]+ across 2 bank accounts\. The last 7 days were net negative: AUD 1,750\.00 in and AUD 3,620\.00 out \(net -AUD 1,870\.00\)\. Receivables stand at AUD 3,320\.00, of which AUD 2,220\.00 across 5 invoices is overdue\./,
    );
    expect(r.text).not.toMatch(/Secret Client|Staff|Landlord/);

    // With READ_SENSITIVE: the names, and the very same amounts.
    const s = await getJson<DailySummaryResponse>(w.t.app, "/api/agent/daily-summary", w.sensitive);
    expect(s.body.redactedItemCount).toBe(0);
    expect(s.body.last7d.topOutflows.map((e) => e.contactName)).toEqual([
      "Staff",
      "Landlord",
      "Bean Supply",
    ]);
    expect(s.body.last7d.topInflows[1]?.contactName).toBe("Secret Client");
    const amounts = (b: DailySummaryResponse) =>
      [b.last7d, b.ar].map((x) => JSON.stringify(x).replace(/"contactName":"[^"]*"/g, ""));
    expect(amounts(s.body)).toEqual(amounts(r.body));
  });

  it("reads the 7 days in UTC for an organisation in UTC", async () => {
    const w = await insightsWorld({ ...SPEC, timezone: "UTC" }, { now: NOW });
    const r = await getJson<DailySummaryResponse>(w.t.app, "/api/agent/daily-summary", w.plain);
    expect(r.body.asOfDate).toBe("2026-03-09");
    // 3 March is in, 10 March is not.
    expect(r.body.last7d.inflow).toBe("9650");
    expect(r.body.last7d.topInflows[0]).toMatchObject({
      contactName: "Harbour Cafe",
      amount: "9000",
    });
  });
});
