import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { type Db, openPostgres } from "../../src/db/client.ts";
import { readAuthEpoch } from "../../src/db/queries/api-keys.ts";
import { apiKeys, organisations } from "../../src/db/schema/index.ts";
import { keyChecksum } from "../../src/domain/keys.ts";
import { recordAgentRequests } from "../../src/services/audit/audit-writer.ts";
import { authenticateKey } from "../../src/services/keys/authenticate-key.ts";
import { revokeApiKey } from "../../src/services/keys/revoke-api-key.ts";
import { rotateApiKey } from "../../src/services/keys/rotate-api-key.ts";
import { VerifiedKeyCache } from "../../src/services/keys/verified-key-cache.ts";
import { createTestKey, get, TEST_NOW, testApp } from "../helpers/api.ts";
import { createTestOrg } from "../helpers/factories.ts";
import { testDriver } from "../helpers/test-db.ts";

const BANK = "/api/agent/bank-accounts";

/** An app with a started cache that polls only when the test says so. */
async function cachedApp() {
  const t = await testApp();
  const cache = new VerifiedKeyCache(t.db, { pollMs: 3_600_000 });
  await cache.start();
  const cached = await testApp({ keyCache: cache });
  const org = await createTestOrg(t.db);
  const created = await createTestKey(t.db, {
    kind: "ORG",
    orgId: org.id,
    label: "cached",
    scopes: ["READ_BANK"],
  });
  return { ...cached, cache, org, created };
}

/** Revokes a key by SQL, as another process would, leaving this process's cache unaware. */
async function revokeElsewhere(db: Db, prefix: string) {
  await db.update(apiKeys).set({ revokedAt: TEST_NOW }).where(eq(apiKeys.prefix, prefix));
}

describe(`verified-key cache (${testDriver})`, () => {
  it("serves a known key from memory until the epoch moves, then reads the database again", async () => {
    const { app, db, cache, created } = await cachedApp();
    try {
      expect((await get(app, BANK, created.key)).status).toBe(200);
      expect(cache.size).toBe(1);

      await revokeElsewhere(db, created.prefix);
      // Still cached: this answer came from memory (the database says revoked).
      expect((await get(app, BANK, created.key)).status).toBe(200);

      await cache.poll(); // the revocation bumped the epoch in its transaction
      expect(cache.size).toBe(0);
      const refused = await get(app, BANK, created.key);
      expect(refused.status).toBe(401);
      expect(await refused.text()).toBe('{"error":"unauthorized"}');
      expect(cache.size).toBe(0); // a revoked key is never cached
    } finally {
      cache.stop();
    }
  });

  it("refuses a wrong secret for a cached prefix with the same 401", async () => {
    const { app, cache, created } = await cachedApp();
    try {
      expect((await get(app, BANK, created.key)).status).toBe(200);
      const parts = created.key.split("_");
      const secret = parts.at(-1) ?? "";
      const flipped = secret.startsWith("a") ? `b${secret.slice(1)}` : `a${secret.slice(1)}`;
      const wrong = [...parts.slice(0, -1), flipped].join("_");
      const res = await get(app, BANK, wrong);
      expect(res.status).toBe(401);
      expect(await res.text()).toBe('{"error":"unauthorized"}');
      expect((await get(app, BANK, created.key)).status).toBe(200);
    } finally {
      cache.stop();
    }
  });

  it("answers a cached prefix from memory, a wrong secret included, without reading the database", async () => {
    const { db, cache, created } = await cachedApp();
    try {
      expect(await authenticateKey(db, created.key, cache)).not.toBeNull(); // now cached
      // Another secret for the same prefix, with a valid checksum: only the digest refuses it.
      const body = "a".repeat(32);
      const wrong = `cr_live_${created.prefix}_${body}${keyChecksum("cr_live", created.prefix, body)}`;
      const untouchable = new Proxy(
        {},
        {
          get() {
            throw new Error("the database was read");
          },
        },
      ) as Db;
      expect(await authenticateKey(untouchable, wrong, cache)).toBeNull();
      expect((await authenticateKey(untouchable, created.key, cache))?.id).toBe(created.id);
      // Not in the cache: the slow path answers (here its checksum, since the prefix changed).
      const elsewhere = created.key.replace(created.prefix, "0000000000");
      expect(await authenticateKey(db, elsewhere, cache)).toBeNull();
    } finally {
      cache.stop();
    }
  });

  it("bumps the epoch on revocation, rotation and organisation changes, not on last-used stamps", async () => {
    const { db, org, created } = await cachedApp();
    const before = await readAuthEpoch(db);
    await recordAgentRequests(db, [
      {
        keyId: created.id,
        orgId: org.id,
        method: "GET",
        route: BANK,
        status: 200,
        sensitive: false,
        requestId: "r1",
        at: TEST_NOW,
      },
    ]);
    expect(await readAuthEpoch(db)).toBe(before);

    await db
      .update(organisations)
      .set({ name: "Renamed Pty Ltd" })
      .where(eq(organisations.id, org.id));
    const afterRename = await readAuthEpoch(db);
    expect(afterRename).toBeGreaterThan(before);

    const rotated = await rotateApiKey(db, created.prefix, TEST_NOW);
    const afterRotate = await readAuthEpoch(db);
    expect(afterRotate).toBeGreaterThan(afterRename);

    await revokeApiKey(db, rotated.prefix, TEST_NOW);
    expect(await readAuthEpoch(db)).toBeGreaterThan(afterRotate);
  });

  it("answers an organisation key's renamed organisation after the poll", async () => {
    const { app, db, cache, org, created } = await cachedApp();
    try {
      const orgs = async () =>
        (
          (await (await get(app, "/api/agent/orgs", created.key)).json()) as {
            orgs: { name: string }[];
          }
        ).orgs.map((o) => o.name);
      const original = await orgs();
      await db
        .update(organisations)
        .set({ name: "Renamed Later" })
        .where(eq(organisations.id, org.id));
      await cache.poll();
      expect(await orgs()).toEqual(["Renamed Later"]);
      expect(original).not.toEqual(["Renamed Later"]);
    } finally {
      cache.stop();
    }
  });

  it("keeps nothing when the epoch cannot be read, and nothing read before a clear", async () => {
    const { db, created } = await cachedApp();
    let fail = false;
    const flaky = new Proxy(db, {
      get(target, prop, receiver) {
        if (prop === "select" && fail) throw new Error("database unreachable");
        return Reflect.get(target, prop, receiver);
      },
    });
    const cache = new VerifiedKeyCache(flaky, { pollMs: 3_600_000 });
    await cache.start();
    const entry = {
      key: { id: created.id } as never,
      family: "cr_live" as const,
      secretDigest: Buffer.from("00", "hex"),
    };
    cache.set("p1", entry, cache.readToken());
    expect(cache.get("p1")).toBe(entry);

    fail = true;
    await cache.poll();
    expect(cache.get("p1")).toBeUndefined();
    cache.set("p1", entry, cache.readToken());
    expect(cache.get("p1")).toBeUndefined(); // off until a poll succeeds

    fail = false;
    await cache.poll();
    const token = cache.readToken();
    cache.clear(); // e.g. a revocation in this process while the read was in flight
    cache.set("p1", entry, token);
    expect(cache.get("p1")).toBeUndefined();
    cache.stop();
  });

  it("expires entries after the TTL and drops the oldest beyond the size bound", async () => {
    const { db } = await cachedApp();
    let now = 1_000;
    const cache = new VerifiedKeyCache(db, {
      pollMs: 3_600_000,
      ttlMs: 100,
      maxEntries: 2,
      nowMs: () => now,
    });
    await cache.start();
    const entry = {
      key: {} as never,
      family: "crun" as const,
      secretDigest: Buffer.from("00", "hex"),
    };
    cache.set("a", entry, cache.readToken());
    now += 99;
    expect(cache.get("a")).toBe(entry);
    now += 1;
    expect(cache.get("a")).toBeUndefined();

    cache.set("a", entry, cache.readToken());
    cache.set("b", entry, cache.readToken());
    cache.set("c", entry, cache.readToken());
    expect(cache.size).toBe(2);
    expect(cache.get("a")).toBeUndefined();
    expect(cache.get("c")).toBe(entry);
    cache.stop();
  });

  it("trusts nothing once its last successful poll is more than four intervals old", async () => {
    const { db } = await cachedApp();
    let now = 10_000;
    const cache = new VerifiedKeyCache(db, { pollMs: 100, nowMs: () => now });
    await cache.poll(); // a manual poll (no timer): the test moves the clock
    const entry = {
      key: {} as never,
      family: "crun" as const,
      secretDigest: Buffer.from("00", "hex"),
    };
    cache.set("a", entry, cache.readToken());
    now += 400;
    expect(cache.get("a")).toBe(entry);
    now += 1; // a poll stuck behind a saturated pool, or a lost connection
    expect(cache.get("a")).toBeUndefined();
    await cache.poll(); // the epoch did not move: the entry is good again
    expect(cache.get("a")).toBe(entry);
  });

  it.skipIf(testDriver !== "postgres")(
    "a long transaction renaming one organisation does not hold another organisation's revocation",
    async () => {
      const { db } = await cachedApp();
      const a = await createTestOrg(db);
      const b = await createTestOrg(db);
      const keyOfB = await createTestKey(db, {
        kind: "ORG",
        orgId: b.id,
        label: "b",
        scopes: ["READ_BANK"],
      });
      const other = openPostgres(process.env.DATABASE_URL ?? "", 1);
      try {
        await other.db.transaction(async (tx) => {
          // An import's first statement may rename its organisation, then run for minutes.
          await tx
            .update(organisations)
            .set({ name: "Renamed in a long import" })
            .where(eq(organisations.id, a.id));
          const revoked = await Promise.race([
            revokeApiKey(db, keyOfB.prefix, TEST_NOW).then(() => "revoked"),
            new Promise((r) => setTimeout(() => r("blocked"), 3_000)),
          ]);
          expect(revoked).toBe("revoked");
        });
      } finally {
        await other.close();
      }
    },
  );

  it("the epoch row exists after migration", async () => {
    const { db } = await testApp();
    const rows = await db.execute(sql`select count(*)::int as n from auth_epoch where id = 1`);
    expect((rows as unknown as { rows: { n: number }[] }).rows[0]?.n).toBe(1);
  });
});
