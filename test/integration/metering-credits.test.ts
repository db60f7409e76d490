import { afterAll, describe, expect, it } from "vitest";
import { openPostgres } from "../../src/db/client.ts";
import type { Plan } from "../../src/db/schema/index.ts";
import type { StatusResponse } from "../../src/http/routes/agent/status/index.ts";
import { get, getJson, TEST_NOW } from "../helpers/api.ts";
import { insertUses, meteredApp, orgWithKey, TcpProxy } from "../helpers/metering.ts";
import { testDriver } from "../helpers/test-db.ts";

const BANK = "/api/agent/bank-accounts";
const STATUS = "/api/agent/status";
const HOUR = 3_600_000;
const WINDOW = 5 * HOUR;
const at = (ms: number) => new Date(TEST_NOW.getTime() + ms);
const iso = (ms: number) => at(ms).toISOString();

const PLANS: [Plan, number, number][] = [
  ["Free", 10, 48],
  ["Pocket", 50, 240],
  ["Wallet", 250, 1200],
  ["Vault", 1000, 4800],
  ["Reserve", 5000, 24000],
];

const closers: { close(): Promise<void> }[] = [];
afterAll(async () => {
  for (const c of closers.reverse()) await c.close();
});

describe(`query credit window (${testDriver})`, () => {
  for (const [plan, limit, quota] of PLANS) {
    it(`counts a rolling 5-hour window to the millisecond on ${plan} (${limit} credits)`, async () => {
      const t = await meteredApp();
      const { org, key } = await orgWithKey(t.db, { plan });
      const ids = {
        userId: org.ownerUserId,
        billingAccountId: org.billingAccountId,
        orgId: org.id,
        keyId: key.id,
      };
      await insertUses(t.db, { ...ids, times: [at(-WINDOW)] }); // no longer counts
      await insertUses(t.db, { ...ids, times: [at(-WINDOW + 1)] }); // still counts
      await insertUses(t.db, {
        ...ids,
        times: Array.from({ length: limit - 2 }, () => at(-2 * HOUR)),
      });
      const status = async () => {
        const r = await getJson<StatusResponse>(t.app, STATUS, key.key);
        expect(r.status, r.text).toBe(200);
        return r.body;
      };

      // One credit left: it is available now; the window empties when the -2 h uses age out.
      expect((await status()).usage).toEqual({
        limit,
        used: limit - 1,
        remaining: 1,
        topUpCredits: 0,
        nextCreditInMinutes: 0,
        fullResetInMinutes: 180,
        windowResetAt: iso(3 * HOUR),
      });

      const last = await get(t.app, BANK, key.key);
      expect(last.status).toBe(200);
      expect(last.headers.get("x-service-reset-minutes")).toBe("1");
      const full = await status();
      expect(full.usage).toEqual({
        limit,
        used: limit,
        remaining: 0,
        topUpCredits: 0,
        nextCreditInMinutes: 1, // the use at now - 5 h + 1 ms frees in 1 ms
        fullResetInMinutes: 300,
        windowResetAt: iso(WINDOW),
      });
      expect(full.quota).toEqual({
        limit: quota,
        used: 1,
        remaining: quota - 1,
        resetAt: "2026-03-03T00:00:00.000Z",
      });
      expect(full.billingAlert).toMatchObject({ severity: "critical", kind: "credits_exhausted" });

      const refused = await getJson(t.app, BANK, key.key);
      expect(refused.status).toBe(429);
      expect(refused.body).toMatchObject({
        error: "credits_exhausted",
        retryAfterSeconds: 1,
        nextCreditInMinutes: 1,
      });

      t.clock.advance(1);
      expect((await status()).usage).toEqual({
        limit,
        used: limit - 1,
        remaining: 1,
        topUpCredits: 0,
        nextCreditInMinutes: 0,
        fullResetInMinutes: 300,
        windowResetAt: iso(WINDOW),
      });
      expect((await get(t.app, BANK, key.key)).status).toBe(200);

      // Two hours later the -2 h uses free all at once; only the two recent calls remain.
      t.clock.set(at(3 * HOUR));
      expect((await status()).usage).toEqual({
        limit,
        used: 2,
        remaining: limit - 2,
        topUpCredits: 0,
        nextCreditInMinutes: 0,
        fullResetInMinutes: 121,
        windowResetAt: iso(WINDOW + 1),
      });
    });
  }

  it("reports a downgrade's overflow: the next credit frees when enough uses have aged", async () => {
    const t = await meteredApp();
    const { org, key } = await orgWithKey(t.db, { plan: "Free" });
    const ids = {
      userId: org.ownerUserId,
      billingAccountId: org.billingAccountId,
      orgId: org.id,
      keyId: key.id,
    };
    // 12 uses (as if on a larger plan before): 10 is the Free limit, so 3 must age out first.
    await insertUses(t.db, {
      ...ids,
      times: Array.from({ length: 12 }, (_, i) => at(-4 * HOUR + i * 60_000)),
    });
    const r = await getJson<StatusResponse>(t.app, STATUS, key.key);
    expect(r.body.usage).toMatchObject({ used: 12, remaining: 0, nextCreditInMinutes: 62 });
    const refused = await getJson(t.app, BANK, key.key);
    expect(refused.body).toMatchObject({ error: "credits_exhausted", retryAfterSeconds: 62 * 60 });
  });

  it.runIf(testDriver === "postgres")(
    "answers 503 while PostgreSQL cannot be reached and resumes within 5 seconds of its return",
    async () => {
      const url = new URL(process.env.DATABASE_URL ?? "");
      const proxy = new TcpProxy(url.hostname, Number(url.port || 5432));
      await proxy.start();
      closers.push({ close: () => proxy.stop() });
      const proxied = new URL(url);
      proxied.host = `127.0.0.1:${proxy.port}`;
      const store = openPostgres(proxied.toString());
      closers.push(store);
      const t = await meteredApp({ meteringDb: store.db });
      const { key } = await orgWithKey(t.db, { plan: "Wallet" });
      expect((await get(t.app, BANK, key.key)).status).toBe(200);

      await proxy.stop();
      for (const path of [BANK, STATUS]) {
        const r = await getJson(t.app, path, key.key);
        expect([r.status, r.body.error, r.res.headers.get("retry-after")]).toEqual([
          503,
          "service_unavailable",
          "5",
        ]);
        expect(r.body).not.toHaveProperty("accounts");
      }

      await proxy.start();
      const back = Date.now();
      let status = 0;
      while (Date.now() - back < 5_000) {
        status = (await get(t.app, BANK, key.key)).status;
        if (status === 200) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(status).toBe(200);
      expect(Date.now() - back).toBeLessThan(5_000);
      // The calls refused with 503 used nothing; the first and the last were charged.
      const s = await getJson<StatusResponse>(t.app, STATUS, key.key);
      expect(s.body.usage?.used).toBe(2);
    },
  );
});
