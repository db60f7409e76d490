import { rm } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigSchema } from "../../src/config.ts";
import { type RunningFakeLedger, startFakeLedger } from "../../src/connector/xero/fake/server.ts";
import { resetTenantGates } from "../../src/connector/xero/policy.ts";
import type { Db } from "../../src/db/client.ts";
import { systemClock } from "../../src/domain/clock.ts";
import { createScheduler } from "../../src/jobs/scheduler.ts";
import { createLogger } from "../../src/logger.ts";
import { ledgerConnectionView } from "../../src/services/ledger/connect.ts";
import { createTestOrg } from "../helpers/factories.ts";
import { getTestDatabase } from "../helpers/test-db.ts";
import { connectThroughFake, demoFolder, depsFor } from "./ledger-helpers.ts";

let db: Db;
let fake: RunningFakeLedger;
let folder: string;

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
});
