import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { ConfigSchema } from "../../src/config.ts";
import type { Db } from "../../src/db/client.ts";
import { type Database, openPostgres } from "../../src/db/client.ts";
import { fixedClock } from "../../src/domain/clock.ts";
import type { ForecastResponseBody } from "../../src/http/routes/agent/forecast/index.ts";
import { createScheduler } from "../../src/jobs/scheduler.ts";
import { createLogger } from "../../src/logger.ts";
import { getJson, rowsOf } from "../helpers/api.ts";
import { getTestDatabase, testDriver } from "../helpers/test-db.ts";
import { type DocSpec, type ExportSpec, insightsWorld } from "./insights-helpers.ts";

/*
 * The scheduler's daily forecast pass: stored snapshots roll forward with the organisation's
 * calendar (Australia/Sydney here, UTC+11 in March) without a new import, once per local day
 * whatever the number of instances, and one organisation's failure leaves the others alone.
 */

// Tuesday 10 March 2026, 12:00 in Sydney: the import computes the first snapshots.
const NOW = new Date("2026-03-10T01:00:00.000Z");

const SPEC: ExportSpec = {
  contacts: [
    { n: 1, name: "Harbour Cafe", customer: true },
    { n: 2, name: "Harbourside Property", supplier: true },
  ],
  docs: [
    {
      n: 1,
      contact: 1,
      date: "2026-01-10",
      status: "PAID",
      lines: [{ account: "sales", amount: "5000", tax: "0" }],
      payments: [{ n: 1, date: "2026-01-10", amount: "5000" }],
    },
    {
      n: 2,
      contact: 1,
      date: "2026-03-01",
      due: "2026-03-25",
      status: "AUTHORISED",
      lines: [{ account: "sales", amount: "12000", tax: "0" }],
    },
    {
      n: 3,
      type: "ACCPAY",
      contact: 2,
      date: "2026-03-05",
      due: "2026-04-15",
      status: "AUTHORISED",
      lines: [{ account: "rent", amount: "3000" }],
    } satisfies DocSpec,
  ],
};

const scheduler = (db: Db, at: Date, orgIds: string[], instanceId?: string) =>
  createScheduler({
    db,
    clock: fixedClock(at),
    logger: createLogger("silent"),
    config: ConfigSchema.parse({}),
    orgIds,
    ...(instanceId ? { instanceId } : {}),
  });

/** The organisation's snapshots, newest first: BASE's as-of date and how many exist in all. */
async function snapshots(db: Db, orgId: string) {
  const base = rowsOf<{ asOfDate: string; computedAt: Date | string }>(
    await db.execute(sql`
      SELECT s.as_of_date::text AS "asOfDate", s.computed_at AS "computedAt"
      FROM forecast_snapshots s JOIN forecast_scenarios sc ON sc.id = s.scenario_id
      WHERE s.org_id = ${orgId} AND sc.kind = 'BASE'
      ORDER BY s.computed_at DESC`),
  );
  const all = rowsOf<{ n: number }>(
    await db.execute(
      sql`SELECT count(*)::int AS n FROM forecast_snapshots WHERE org_id = ${orgId}`,
    ),
  );
  return { latestAsOf: base[0]?.asOfDate, base: base.length, all: all[0]?.n ?? 0 };
}

async function forecastRuns(db: Db, orgId: string) {
  return rowsOf<{ runKey: string; status: string; attempts: number; error: string | null }>(
    await db.execute(sql`
      SELECT run_key AS "runKey", status, attempts, error FROM job_runs
      WHERE org_id = ${orgId} AND job = 'forecast' ORDER BY run_key`),
  );
}

describe(`scheduler: the daily forecast (${testDriver})`, () => {
  it("rolls the snapshot forward once per local day and week, with two instances ticking", async () => {
    const w = await insightsWorld(SPEC, { now: NOW });
    const served = async () => {
      const r = await getJson<ForecastResponseBody>(w.t.app, "/api/agent/forecast", w.plain);
      expect(r.status, r.text).toBe(200);
      return r.body;
    };
    expect(await snapshots(w.t.db, w.orgId)).toEqual({ latestAsOf: "2026-03-10", base: 1, all: 3 });
    expect((await served()).weeks[0]?.weekStart).toBe("2026-03-09");

    // Later the same local day: the import's snapshot is current, nothing is claimed.
    const sameDay = await scheduler(w.t.db, new Date("2026-03-10T12:00:00.000Z"), [w.orgId]).tick();
    expect(sameDay.forecasts).toEqual([]);
    expect(await forecastRuns(w.t.db, w.orgId)).toEqual([]);

    // 00:30 on Wednesday in Sydney, still Tuesday in UTC: a new local day. Two instances, each
    // with its own connections on PostgreSQL (as two processes), tick together twice.
    const pools: Database[] = process.env.DATABASE_URL
      ? [openPostgres(process.env.DATABASE_URL, 4), openPostgres(process.env.DATABASE_URL, 4)]
      : [await getTestDatabase(), await getTestDatabase()];
    try {
      const wednesday = new Date("2026-03-10T13:30:00.000Z");
      const a = scheduler((pools[0] as Database).db, wednesday, [w.orgId], "instance-a");
      const b = scheduler((pools[1] as Database).db, wednesday, [w.orgId], "instance-b");
      const reports = await Promise.all([a.tick(), b.tick(), a.tick(), b.tick()]);
      expect(reports.flatMap((r) => r.forecasts)).toEqual([
        { orgId: w.orgId, ok: true, recomputed: true },
      ]);
      // Every scenario once more (BASE, BEST, WORST), as of the new local day.
      expect(await snapshots(w.t.db, w.orgId)).toEqual({
        latestAsOf: "2026-03-11",
        base: 2,
        all: 6,
      });
      expect(await forecastRuns(w.t.db, w.orgId)).toEqual([
        { runKey: `${w.orgId}:2026-03-11`, status: "succeeded", attempts: 1, error: null },
      ]);
      // Another instance later that day finds it done.
      const later = scheduler(
        (pools[1] as Database).db,
        new Date("2026-03-11T05:00:00.000Z"),
        [w.orgId],
        "instance-c",
      );
      expect((await later.tick()).forecasts).toEqual([]);
      expect((await snapshots(w.t.db, w.orgId)).all).toBe(6);
    } finally {
      if (process.env.DATABASE_URL) await Promise.all(pools.map((p) => p.close()));
    }
    // Week 1 still starts on Monday 9 March, now holding Wednesday.
    expect((await served()).weeks[0]).toMatchObject({
      weekStart: "2026-03-09",
      weekEnd: "2026-03-15",
    });

    // 00:30 on Monday 16 March in Sydney (Sunday in UTC): a new local week.
    const monday = new Date("2026-03-15T13:30:00.000Z");
    expect((await scheduler(w.t.db, monday, [w.orgId]).tick()).forecasts).toEqual([
      { orgId: w.orgId, ok: true, recomputed: true },
    ]);
    const body = await served();
    expect(body.computedAt).toBe(monday.toISOString());
    expect(body.weeks[0]).toMatchObject({ weekStart: "2026-03-16", weekEnd: "2026-03-22" });
    expect(body.weeks[12]?.weekEnd).toBe("2026-06-14");
    expect(await snapshots(w.t.db, w.orgId)).toMatchObject({ latestAsOf: "2026-03-16", all: 9 });
  });

  it("records one organisation's failure, recomputes the others, and retries after the backoff", async () => {
    const x = await insightsWorld(SPEC, { now: NOW });
    const y = await insightsWorld(SPEC, { now: NOW });
    // Organisations are served in the database's id order: the failing one goes first.
    const [firstId] = rowsOf<{ id: string }>(
      await x.t.db.execute(sql`
        SELECT id FROM organisations WHERE id IN (${x.orgId}, ${y.orgId}) ORDER BY id LIMIT 1`),
    );
    const [bad, good] = firstId?.id === x.orgId ? [x, y] : [y, x];
    // An operator's override far beyond what the engine counts exactly: its recompute throws.
    await bad.t.db.execute(sql`
      INSERT INTO cash_overrides (org_id, amount, set_at)
      VALUES (${bad.orgId}, '1000000000000000000', ${NOW.toISOString()})`);
    const orgIds = [bad.orgId, good.orgId];
    const at = new Date("2026-03-11T01:00:00.000Z");
    const first = await scheduler(bad.t.db, at, orgIds).tick();
    expect(first.forecasts).toEqual([
      { orgId: bad.orgId, ok: false, error: expect.stringMatching(/exact range/) },
      { orgId: good.orgId, ok: true, recomputed: true },
    ]);
    expect((await snapshots(good.t.db, good.orgId)).latestAsOf).toBe("2026-03-11");
    expect((await snapshots(bad.t.db, bad.orgId)).latestAsOf).toBe("2026-03-10");
    expect(await forecastRuns(bad.t.db, bad.orgId)).toEqual([
      {
        runKey: `${bad.orgId}:2026-03-11`,
        status: "failed",
        attempts: 1,
        error: expect.stringMatching(/exact range/),
      },
    ]);

    // The operator clears the override. Within the backoff (2^1 minutes) nothing runs again.
    await bad.t.db.execute(sql`DELETE FROM cash_overrides WHERE org_id = ${bad.orgId}`);
    const soon = await scheduler(bad.t.db, new Date(at.getTime() + 60_000), orgIds).tick();
    expect(soon.forecasts).toEqual([]);
    const retry = await scheduler(bad.t.db, new Date(at.getTime() + 3 * 60_000), orgIds).tick();
    expect(retry.forecasts).toEqual([{ orgId: bad.orgId, ok: true, recomputed: true }]);
    expect((await snapshots(bad.t.db, bad.orgId)).latestAsOf).toBe("2026-03-11");
    expect(await forecastRuns(bad.t.db, bad.orgId)).toEqual([
      { runKey: `${bad.orgId}:2026-03-11`, status: "succeeded", attempts: 2, error: null },
    ]);
  });
});
