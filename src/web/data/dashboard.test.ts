import { describe, expect, it } from "vitest";
import { createTestOrg } from "../../../test/helpers/factories.ts";
import { getTestDatabase, testDriver } from "../../../test/helpers/test-db.ts";
import { runBrief } from "../../services/brief/run-brief.ts";
import { recomputeForecasts } from "../../services/forecast/recompute-forecasts.ts";
import { importLedgerFolder } from "../../services/sync/import-ledger.ts";
import { defaultDashboardSources } from "./dashboard.ts";

const NOW = new Date("2026-03-02T03:04:05.000Z");

describe(`dashboard sources (${testDriver})`, () => {
  it("answer null before anything is computed, then read the stored forecast and brief", async () => {
    const { db } = await getTestDatabase();
    const org = await createTestOrg(db, { now: NOW });
    expect(await defaultDashboardSources.latestForecast(db, org.id, NOW)).toBeNull();
    expect(await defaultDashboardSources.latestDailyBrief(db, org.id)).toBeNull();

    await importLedgerFolder(db, { orgId: org.id, folder: "test/fixtures/ledger-small", now: NOW });
    await recomputeForecasts(db, { orgId: org.id, now: NOW });
    const forecast = await defaultDashboardSources.latestForecast(db, org.id, NOW);
    expect(forecast?.weeks).toHaveLength(13);
    expect(forecast?.weeks[0]?.opening).toBe(forecast?.startingCash);

    await runBrief(db, { orgId: org.id, asOfDate: "2026-03-02", now: NOW });
    const brief = await defaultDashboardSources.latestDailyBrief(db, org.id);
    expect(brief).toMatchObject({
      asOfDate: "2026-03-02",
      generatorTier: "rules",
      mainDriver: { headline: expect.any(String) },
      riskSignal: { headline: expect.any(String) },
      recommendedAction: { headline: expect.any(String) },
    });
  });
});
