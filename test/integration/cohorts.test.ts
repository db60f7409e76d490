import { describe, expect, it } from "vitest";
import {
  CohortRetentionResponseSchema,
  CohortSummaryResponseSchema,
} from "../../src/contracts/agent/cohorts.ts";
import type {
  CohortRetentionResponse,
  CohortSummaryResponse,
} from "../../src/http/routes/agent/cohorts/index.ts";
import { getJson } from "../helpers/api.ts";
import { testDriver } from "../helpers/test-db.ts";
import { type DocSpec, type ExportSpec, insightsWorld, qs } from "./insights-helpers.ts";

/*
 * 2026-02-28T14:30Z is already 1 March in Sydney: the organisation's current month is March, so
 * March cohorts exist and March columns have started; in UTC it would still be February.
 */
const NOW = new Date("2026-02-28T14:30:00.000Z");

let n = 0;
const inv = (
  contact: number,
  date: string,
  status: "PAID" | "AUTHORISED",
  amount: string,
): DocSpec => {
  n += 1;
  return {
    n,
    contact,
    date,
    status,
    lines: [{ account: "sales", amount, tax: "0" }],
    ...(status === "PAID" ? { payments: [{ n, date, amount }] } : {}),
  };
};

const SPEC: ExportSpec = {
  contacts: [1, 2, 3, 4, 5, 6].map((i) => ({ n: i, name: `Customer ${i}`, customer: true })),
  docs: [
    // C1: acquired 2025-12, transacts in M0, M1 (AUTHORISED counts) and M3.
    inv(1, "2025-12-05", "PAID", "100"),
    inv(1, "2026-01-10", "AUTHORISED", "200"),
    inv(1, "2026-03-01", "PAID", "300"),
    // C2: acquired 2025-12, nothing since.
    inv(2, "2025-12-20", "PAID", "50"),
    // C3: acquired 2026-02 with two orders.
    inv(3, "2026-02-14", "PAID", "40"),
    inv(3, "2026-02-20", "PAID", "60"),
    // C4: never paid: no cohort.
    inv(4, "2026-01-05", "AUTHORISED", "999"),
    // C5: acquired in 2023, outside the 24 months.
    inv(5, "2023-01-10", "PAID", "70"),
    inv(5, "2026-01-15", "PAID", "70"),
    // C6: acquired on 1 March (Sydney).
    inv(6, "2026-03-01", "PAID", "80"),
  ],
};

describe(`cohorts (${testDriver})`, () => {
  it("builds the retention matrix by first paid invoice, with nulls for months not started", async () => {
    const w = await insightsWorld(SPEC, { now: NOW });
    const r = await getJson<CohortRetentionResponse>(
      w.t.app,
      "/api/agent/cohorts/retention?periods=5",
      w.plain,
    );
    expect(r.status, r.text).toBe(200);
    expect(CohortRetentionResponseSchema.parse(r.body)).toEqual(r.body);
    expect(r.body).toEqual({
      asOfDate: "2026-03-01",
      currency: "AUD",
      metric: "retention",
      periodLabels: ["M0", "M1", "M2", "M3", "M4"],
      cohorts: [
        {
          cohort: "2025-12",
          customers: 2,
          revenue: "650",
          activeNow: 2,
          values: [1, 0.5, 0.5, 0.5, null],
        },
        {
          cohort: "2026-02",
          customers: 1,
          revenue: "100",
          activeNow: 1,
          values: [1, 0, null, null, null],
        },
        {
          cohort: "2026-03",
          customers: 1,
          revenue: "80",
          activeNow: 1,
          values: [1, null, null, null, null],
        },
      ],
      redactedItemCount: 0,
      notesForAgent: [],
    });
    const customers = await getJson<CohortRetentionResponse>(
      w.t.app,
      `/api/agent/cohorts/retention${qs({ metric: "customers", periods: 4 })}`,
      w.plain,
    );
    expect(customers.body.cohorts.map((c) => c.values)).toEqual([
      [2, 1, 0, 1],
      [1, 0, null, null],
      [1, null, null, null],
    ]);
    const revenue = await getJson<CohortRetentionResponse>(
      w.t.app,
      `/api/agent/cohorts/retention${qs({ metric: "revenue", periods: 4 })}`,
      w.plain,
    );
    expect(revenue.body.cohorts[0]?.values).toEqual(["150", "200", "0", "300"]);
  });

  it("reads the months in the organisation's timezone, not UTC", async () => {
    const w = await insightsWorld({ ...SPEC, timezone: "UTC" }, { now: NOW });
    const r = await getJson<CohortRetentionResponse>(
      w.t.app,
      "/api/agent/cohorts/retention?periods=4",
      w.plain,
    );
    expect(r.body.asOfDate).toBe("2026-02-28");
    expect(r.body.cohorts.map((c) => [c.cohort, c.values])).toEqual([
      ["2025-12", [1, 0.5, 0, null]],
      ["2026-02", [1, null, null, null]],
    ]);
  });

  it("clamps periods, and refuses weekly cohorts and unknown metrics", async () => {
    const w = await insightsWorld(SPEC, { now: NOW });
    const one = await getJson<CohortRetentionResponse>(
      w.t.app,
      "/api/agent/cohorts/retention?periods=0",
      w.plain,
    );
    expect(one.body.periodLabels).toEqual(["M0"]);
    const many = await getJson<CohortRetentionResponse>(
      w.t.app,
      "/api/agent/cohorts/retention?periods=99",
      w.plain,
    );
    expect(many.body.periodLabels).toHaveLength(24);
    expect(many.body.cohorts[0]?.values).toHaveLength(24);
    const dflt = await getJson<CohortRetentionResponse>(
      w.t.app,
      "/api/agent/cohorts/retention",
      w.plain,
    );
    expect(dflt.body.periodLabels).toHaveLength(12);
    // The document must not declare bounds the server clamps instead of refusing.
    const doc = await getJson<{
      paths: Record<string, { get: { parameters: { name: string; schema: object }[] } }>;
    }>(w.t.app, "/api/agent/openapi.json");
    const periods = doc.body.paths["/api/agent/cohorts/retention"]?.get.parameters.find(
      (p) => p.name === "periods",
    );
    expect(periods?.schema).toMatchObject({ type: "integer", default: 12 });
    expect(periods?.schema).not.toHaveProperty("minimum");
    expect(periods?.schema).not.toHaveProperty("maximum");
    for (const [query, parameter] of [
      ["granularity=week", "granularity"],
      ["granularity=day", "granularity"],
      ["metric=ltv", "metric"],
      ["periods=six", "periods"],
    ]) {
      const r = await getJson(w.t.app, `/api/agent/cohorts/retention?${query}`, w.plain);
      expect([r.status, r.body.error, r.body.parameter], r.text).toEqual([
        400,
        "invalid_parameter",
        parameter,
      ]);
    }
    const month = await getJson(w.t.app, "/api/agent/cohorts/retention?granularity=month", w.plain);
    expect(month.status).toBe(200);
  });

  it("summarises the KPIs of the last 6 months with null deltas when nothing precedes them", async () => {
    const w = await insightsWorld(SPEC, { now: NOW });
    const r = await getJson<CohortSummaryResponse>(w.t.app, "/api/agent/cohorts/summary", w.plain);
    expect(r.status, r.text).toBe(200);
    expect(CohortSummaryResponseSchema.parse(r.body)).toEqual(r.body);
    expect(r.body).toMatchObject({
      asOfDate: "2026-03-01",
      currency: "AUD",
      window: { from: "2025-12", to: "2026-03" },
      kpis: {
        newCustomers: { value: 4, delta: null, deltaKind: "rate" },
        repeatOrderRate: { value: 0.5, delta: null, deltaKind: "pct" },
        avgRevenuePerCustomer: { value: 207.5, delta: null, deltaKind: "rate" },
        retention90d: { value: 0.5, delta: null, deltaKind: "pct" },
      },
      topCohorts: [{ acquisitionMonth: "2025-12", cohortSize: 2, retention3: 0.5 }],
      redactedItemCount: 0,
    });
    expect(Array.isArray(r.body.notesForAgent)).toBe(true);
  });

  it("answers an organisation without invoices with empty cohorts", async () => {
    const w = await insightsWorld({ contacts: [], docs: [] }, { now: NOW });
    const r = await getJson<CohortSummaryResponse>(w.t.app, "/api/agent/cohorts/summary", w.plain);
    expect(r.body.window).toEqual({ from: "", to: "" });
    expect(r.body.topCohorts).toEqual([]);
    const m = await getJson<CohortRetentionResponse>(
      w.t.app,
      "/api/agent/cohorts/retention",
      w.plain,
    );
    expect(m.body.cohorts).toEqual([]);
  });
});
