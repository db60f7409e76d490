import { rm } from "node:fs/promises";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigSchema } from "../../src/config.ts";
import { type RunningFakeLedger, startFakeLedger } from "../../src/connector/xero/fake/server.ts";
import { resetTenantGates } from "../../src/connector/xero/policy.ts";
import type { Db } from "../../src/db/client.ts";
import { systemClock } from "../../src/domain/clock.ts";
import { claimedRunner, claimRun, finishRun } from "../../src/jobs/job-runs.ts";
import { JOB_RUNS_RETENTION_DAYS, pruneJobRuns, runDailyPrune } from "../../src/jobs/prune.ts";
import { createScheduler } from "../../src/jobs/scheduler.ts";
import { createLogger } from "../../src/logger.ts";
import { ledgerConnectionView } from "../../src/services/ledger/connect.ts";
import { queueLedgerSync } from "../../src/services/ledger/sync-queue.ts";
import { rowsOf } from "../../src/services/summaries/summary-cache.ts";
import { createTestOrg } from "../helpers/factories.ts";
import { getTestDatabase } from "../helpers/test-db.ts";
import { connectThroughFake, demoFolder, depsFor } from "./ledger-helpers.ts";

let db: Db;
let fake: RunningFakeLedger;
let folder: string;
/** The organisation connected to the fake's one tenant by the first test. */
let connectedOrg: { id: string };

beforeAll(async () => {
  db = (await getTestDatabase()).db;
  folder = await demoFolder(20, "schedule");
  resetTenantGates();
  fake = await startFakeLedger();
  await fake.store.loadTenantFromFolder(folder);
}, 60_000);

afterAll(async () => {
  await fake?.close();
  await rm(folder, { recursive: true, force: true });
});

describe("the ledger sync schedule", () => {
  it("two instances ticking at once: one sync per organisation and slot", async () => {
    const org = await createTestOrg(db);
    connectedOrg = org;
    await connectThroughFake(depsFor(db, fake), org.id);
    const config = ConfigSchema.parse({ ...fake.env, LEDGER_SYNC_MINUTES: "30" });
    const make = (instanceId: string) =>
      createScheduler({
        db,
        clock: systemClock,
        logger: createLogger("silent"),
        config,
        instanceId,
        orgIds: [org.id],
      });
    const [a, b] = await Promise.all([make("a").tick(), make("b").tick()]);
    const syncs = [...(a.ledgerSyncs ?? []), ...(b.ledgerSyncs ?? [])];
    expect(syncs).toEqual([expect.objectContaining({ orgId: org.id, ok: true, mode: "full" })]);
    expect(fake.stats.byPath.get("GET /api.xro/2.0/Organisation")).toBe(1);
    expect((await ledgerConnectionView({ db }, org.id)).state).toBe("healthy");
    // The same slot again: already done.
    const again = await make("c").tick();
    expect(again.ledgerSyncs).toBeUndefined();
  }, 120_000);

  it("a webhook's queued sync survives a restart: the next instance's tick runs it, exactly once", async () => {
    const org = connectedOrg; // the fake's one tenant, connected by the first test
    const config = ConfigSchema.parse({ ...fake.env, LEDGER_SYNC_MINUTES: "30" });
    const make = (instanceId: string) =>
      createScheduler({
        db,
        clock: systemClock,
        logger: createLogger("silent"),
        config,
        instanceId,
        orgIds: [org.id],
      });
    await make("first").tick(); // this slot's scheduled sync is done
    // The webhook route commits this before answering 200; then its process "crashes".
    await queueLedgerSync(db, org.id, new Date());
    await queueLedgerSync(db, org.id, new Date()); // a second delivery: still one queued sync
    // New instances on the same database, ticking at once.
    const [a, b] = await Promise.all([
      make("after-restart-a").tick(),
      make("after-restart-b").tick(),
    ]);
    const syncs = [...(a.ledgerSyncs ?? []), ...(b.ledgerSyncs ?? [])];
    expect(syncs).toEqual([expect.objectContaining({ orgId: org.id, ok: true, queued: true })]);
    const runs = rowsOf<{ status: string }>(
      await db.execute(
        sql`SELECT status FROM job_runs WHERE job = 'ledger-webhook' AND run_key = ${org.id}`,
      ),
    );
    expect(runs).toEqual([{ status: "succeeded" }]);
    // Nothing queued any more: the next tick runs nothing.
    expect((await make("later").tick()).ledgerSyncs).toBeUndefined();
  }, 120_000);

  const pruner = (instance: string, now: Date) =>
    claimedRunner({ db, instance, clock: { now: () => now }, logger: { error: () => {} } });

  it("prunes finished job runs past their retention, once a day across instances", async () => {
    const org = await createTestOrg(db);
    const now = new Date();
    const old = new Date(now.getTime() - (JOB_RUNS_RETENTION_DAYS + 1) * 86_400_000);
    const recent = new Date(now.getTime() - 86_400_000);
    const claimed = async (runKey: string, at: Date, outcome?: "succeeded" | "failed") => {
      const claim = await claimRun(db, {
        job: "test-prune",
        runKey,
        orgId: org.id,
        instance: "t",
        now: at,
      });
      if (!claim) throw new Error("not claimed");
      if (outcome) await finishRun(db, { claim, instance: "t", now: at, outcome });
    };
    await claimed(`${org.id}:old-ok`, old, "succeeded");
    await claimed(`${org.id}:old-failed`, old, "failed");
    await claimed(`${org.id}:old-running`, old);
    await claimed(`${org.id}:recent`, recent, "succeeded");
    expect(await pruneJobRuns(db, now)).toBeGreaterThanOrEqual(2);
    const left = rowsOf<{ run_key: string }>(
      await db.execute(
        sql`SELECT run_key FROM job_runs WHERE job = 'test-prune' AND org_id = ${org.id} ORDER BY run_key`,
      ),
    );
    expect(left.map((r) => r.run_key)).toEqual([`${org.id}:old-running`, `${org.id}:recent`]);
    // A day long past (it prunes nothing of other tests): one of two instances runs it.
    const day = new Date("2020-01-01T03:00:00.000Z");
    const [a, b] = await Promise.all([
      runDailyPrune({ db, now: day, claimed: pruner("a", day) }),
      runDailyPrune({ db, now: day, claimed: pruner("b", day) }),
    ]);
    expect([a, b].filter((r) => r !== undefined)).toHaveLength(1);
  });
});
