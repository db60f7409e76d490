import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import type { Db } from "../../src/db/client.ts";
import { apiKeys, auditEvents } from "../../src/db/schema/index.ts";
import {
  BatchedAuditWriter,
  latestStamps,
  recordAgentRequests,
} from "../../src/services/audit/audit-writer.ts";
import { createTestKey } from "../helpers/api.ts";
import { createTestOrg } from "../helpers/factories.ts";
import { getTestDatabase, testDriver } from "../helpers/test-db.ts";

async function keyFor(db: Db, sensitive: boolean) {
  const org = await createTestOrg(db);
  const key = await createTestKey(db, {
    kind: "ORG",
    orgId: org.id,
    label: "audit",
    scopes: ["READ_BANK"],
    sensitive,
  });
  return { org, key };
}

const row = (keyId: string, orgId: string, at: string, sensitive = false) => ({
  keyId,
  orgId,
  method: "GET",
  route: "/api/agent/bank-accounts",
  status: 200,
  sensitive,
  requestId: `r-${at}`,
  at: new Date(at),
});

describe(`batched audit writer (${testDriver})`, () => {
  it("buffers rows, then commits them with each key's latest use in one batch", async () => {
    const { db } = await getTestDatabase();
    const { org, key } = await keyFor(db, true);
    const writer = new BatchedAuditWriter(db, { intervalMs: 60_000 });
    // Out of order on purpose: the stamp must be the latest instant, not the last written.
    await writer.write(row(key.id, org.id, "2026-03-02T10:00:02.000Z", true));
    await writer.write(row(key.id, org.id, "2026-03-02T10:00:03.000Z", true));
    await writer.write(row(key.id, org.id, "2026-03-02T10:00:01.000Z", true));
    expect(await db.select().from(auditEvents).where(eq(auditEvents.keyId, key.id))).toHaveLength(
      0,
    );

    await writer.flush();
    const rows = await db.select().from(auditEvents).where(eq(auditEvents.keyId, key.id));
    expect(rows.map((r) => r.requestId).sort()).toEqual([
      "r-2026-03-02T10:00:01.000Z",
      "r-2026-03-02T10:00:02.000Z",
      "r-2026-03-02T10:00:03.000Z",
    ]);
    const [stamped] = await db.select().from(apiKeys).where(eq(apiKeys.id, key.id));
    expect(stamped?.lastUsedAt?.toISOString()).toBe("2026-03-02T10:00:03.000Z");
    expect(stamped?.lastSensitiveAccessAt?.toISOString()).toBe("2026-03-02T10:00:03.000Z");
    await writer.close();
  });

  it("stamps each key of a batch with its own latest use, never moving a stamp back", async () => {
    const { db } = await getTestDatabase();
    const a = await keyFor(db, true);
    const b = await keyFor(db, false);
    // b was already used later than anything in this batch: its stamp must stay.
    await db
      .update(apiKeys)
      .set({ lastUsedAt: new Date("2026-03-02T12:00:00.000Z") })
      .where(eq(apiKeys.id, b.key.id));
    const writer = new BatchedAuditWriter(db, { intervalMs: 60_000 });
    await writer.write(row(a.key.id, a.org.id, "2026-03-02T10:00:05.000Z", true));
    await writer.write(row(b.key.id, b.org.id, "2026-03-02T10:00:09.000Z"));
    await writer.write(row(a.key.id, a.org.id, "2026-03-02T10:00:07.000Z", true));
    await writer.write(row(b.key.id, b.org.id, "2026-03-02T10:00:08.000Z"));
    await writer.flush();
    const [stampedA] = await db.select().from(apiKeys).where(eq(apiKeys.id, a.key.id));
    const [stampedB] = await db.select().from(apiKeys).where(eq(apiKeys.id, b.key.id));
    expect(stampedA?.lastUsedAt?.toISOString()).toBe("2026-03-02T10:00:07.000Z");
    expect(stampedA?.lastSensitiveAccessAt?.toISOString()).toBe("2026-03-02T10:00:07.000Z");
    expect(stampedB?.lastUsedAt?.toISOString()).toBe("2026-03-02T12:00:00.000Z");
    expect(stampedB?.lastSensitiveAccessAt).toBeNull();
    expect(await db.select().from(auditEvents).where(eq(auditEvents.keyId, b.key.id))).toHaveLength(
      2,
    );
    await writer.close();
  });

  it("commits on its own timer, and on close", async () => {
    const { db } = await getTestDatabase();
    const { org, key } = await keyFor(db, false);
    const writer = new BatchedAuditWriter(db, { intervalMs: 10 });
    await writer.write(row(key.id, org.id, "2026-03-02T11:00:00.000Z"));
    await expect
      .poll(
        async () =>
          (await db.select().from(auditEvents).where(eq(auditEvents.keyId, key.id))).length,
        {
          timeout: 10_000,
        },
      )
      .toBe(1);
    const [stamped] = await db.select().from(apiKeys).where(eq(apiKeys.id, key.id));
    expect(stamped?.lastUsedAt?.toISOString()).toBe("2026-03-02T11:00:00.000Z");
    expect(stamped?.lastSensitiveAccessAt).toBeNull(); // the key does not hold READ_SENSITIVE

    const slow = new BatchedAuditWriter(db, { intervalMs: 60_000 });
    await slow.write(row(key.id, org.id, "2026-03-02T11:00:01.000Z"));
    await slow.close();
    expect(await db.select().from(auditEvents).where(eq(auditEvents.keyId, key.id))).toHaveLength(
      2,
    );
  });

  it("keeps rows through a failing write and commits them once the database answers", async () => {
    const { db } = await getTestDatabase();
    const { org, key } = await keyFor(db, false);
    let failing = true;
    const flaky = new Proxy(db, {
      get(target, prop, receiver) {
        if (prop === "execute" && failing)
          return async () => Promise.reject(new Error("connection refused"));
        return Reflect.get(target, prop, receiver);
      },
    }) as Db;
    const writer = new BatchedAuditWriter(flaky, { intervalMs: 60_000, maxBuffered: 3 });
    await writer.write(row(key.id, org.id, "2026-03-02T12:00:00.000Z"));
    await expect(writer.flush()).rejects.toThrow(/connection refused/);
    await writer.write(row(key.id, org.id, "2026-03-02T12:00:01.000Z"));
    // The buffer is full: the next write must commit synchronously, and fails while the store is down.
    await expect(writer.write(row(key.id, org.id, "2026-03-02T12:00:02.000Z"))).rejects.toThrow(
      /connection refused/,
    );
    failing = false;
    await writer.flush();
    // The refused request's row is dropped (it answered 500); the other two are kept.
    const rows = await db.select().from(auditEvents).where(eq(auditEvents.keyId, key.id));
    expect(rows.map((r) => r.requestId).sort()).toEqual([
      "r-2026-03-02T12:00:00.000Z",
      "r-2026-03-02T12:00:01.000Z",
    ]);
    await writer.close();
  });

  it("stamps keys in id order, whatever order the batch saw them in", () => {
    const rows = ["k3", "k1", "k2", "k1"].map((keyId, i) =>
      row(keyId, "org", `2026-03-02T10:00:0${i}.000Z`, keyId === "k2"),
    );
    expect(latestStamps(rows)).toEqual({
      keys: ["k1", "k2", "k3"],
      ats: ["2026-03-02T10:00:03.000Z", "2026-03-02T10:00:02.000Z", "2026-03-02T10:00:00.000Z"],
      sensitiveAts: [null, "2026-03-02T10:00:02.000Z", null],
    });
  });

  it("writes a batch of more than one statement all or nothing", async () => {
    const { db } = await getTestDatabase();
    const { org, key } = await keyFor(db, false);
    const rows = Array.from({ length: 1200 }, (_, i) =>
      row(key.id, org.id, new Date(Date.UTC(2026, 2, 2, 10, 0, 0, i)).toISOString()),
    );
    // The last chunk fails (a status that is not an integer): nothing of the batch stays.
    const bad = [...rows.slice(0, 1199), { ...(rows[1199] as (typeof rows)[number]), status: 1.5 }];
    await expect(recordAgentRequests(db, bad)).rejects.toThrow();
    expect(await db.select().from(auditEvents).where(eq(auditEvents.keyId, key.id))).toHaveLength(
      0,
    );
    await recordAgentRequests(db, rows);
    expect(await db.select().from(auditEvents).where(eq(auditEvents.keyId, key.id))).toHaveLength(
      1200,
    );
    const [stamped] = await db.select().from(apiKeys).where(eq(apiKeys.id, key.id));
    expect(stamped?.lastUsedAt?.toISOString()).toBe("2026-03-02T10:00:01.199Z");
  });

  // Two sessions at once: PGlite has one. Found in review: batches that saw the same keys in
  // opposite orders locked api_keys rows in those orders and deadlocked (40P01).
  it.runIf(testDriver === "postgres")(
    "does not deadlock two instances stamping the same keys",
    async () => {
      const { db } = await getTestDatabase();
      const org = await createTestOrg(db);
      const ids: string[] = [];
      for (let i = 0; i < 10; i++) {
        const k = await createTestKey(db, {
          kind: "ORG",
          orgId: org.id,
          label: `k${i}`,
          scopes: ["READ_BANK"],
        });
        ids.push(k.id);
      }
      // A production-sized api_keys table: the plan then walks the batch's keys in its order.
      await db.execute(sql`
        INSERT INTO api_keys (id, family, kind, prefix, secret_digest, label, scopes, reach, org_id,
                              created_by_user_id)
        SELECT 'pad-' || g, family, kind, 'pad-' || g, secret_digest, label, scopes, reach, org_id,
               created_by_user_id
          FROM api_keys, generate_series(1, 20000) g WHERE id = ${ids[0]}`);
      await db.execute(sql`ANALYZE api_keys`);
      const errors: string[] = [];
      const loop = async (order: string[]) => {
        const end = Date.now() + 2000;
        while (Date.now() < end) {
          const at = new Date();
          const rows = order.map((keyId, i) => ({
            ...row(keyId, org.id, at.toISOString()),
            requestId: `r${i}`,
          }));
          try {
            await recordAgentRequests(db, rows);
          } catch (e) {
            const err = e as { cause?: { code?: string }; code?: string };
            errors.push(String(err.cause?.code ?? err.code ?? e));
          }
        }
      };
      try {
        await Promise.all([loop(ids), loop([...ids].reverse())]);
      } finally {
        await db.execute(sql`DELETE FROM api_keys WHERE id LIKE 'pad-%'`);
      }
      expect(errors).toEqual([]);
    },
    20_000,
  );
});
