import { afterAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/app.ts";
import { ConfigSchema } from "../../src/config.ts";
import { type Database, openPostgres } from "../../src/db/client.ts";
import { fixedClock } from "../../src/domain/clock.ts";
import type { StatusResponse } from "../../src/http/routes/agent/status/index.ts";
import { createLogger } from "../../src/logger.ts";
import { Metering } from "../../src/services/metering/metering.ts";
import { get, getJson, TEST_NOW } from "../helpers/api.ts";
import { meteredApp, orgWithKey, TcpProxy } from "../helpers/metering.ts";
import { getTestDatabase, testDriver } from "../helpers/test-db.ts";

const BANK = "/api/agent/bank-accounts";

const closers: { close(): Promise<void> | void }[] = [];
afterAll(async () => {
  for (const c of closers.reverse()) await c.close();
});

/** The application over `database`, with real metering on it, as the server runs. */
function appOver(database: Database) {
  const logger = createLogger("silent");
  const metering = new Metering({ db: database.db, logger, storeTimeoutMs: 1_000 });
  return createApp({
    config: ConfigSchema.parse({}),
    database,
    clock: fixedClock(TEST_NOW),
    logger,
    metering,
  });
}

/** Every agent answer while the database is away: 503 with Retry-After, nothing served. */
async function expectUnavailable(app: ReturnType<typeof createApp>, key: string, orgId: string) {
  for (const path of [
    BANK,
    "/api/agent/status",
    "/api/agent/orgs",
    `/api/agent/orgs/${orgId}/contacts/summary`,
    "/api/agent/no-such-route",
  ]) {
    const r = await getJson(app, path, key);
    expect([path, r.status, r.body.error, r.res.headers.get("retry-after")]).toEqual([
      path,
      503,
      "service_unavailable",
      "5",
    ]);
    expect(r.body.retryAfterSeconds).toBe(5);
  }
  const mcp = await app.request("/mcp", {
    method: "POST",
    headers: {
      authorization: `Bearer ${key}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
  });
  expect([mcp.status, mcp.headers.get("retry-after")]).toEqual([503, "5"]);
}

describe(`outage answers (${testDriver})`, () => {
  it("answers every call 503 service_unavailable with Retry-After when the database refuses connections", async () => {
    const { db } = await getTestDatabase();
    const { org, key } = await orgWithKey(db, { plan: "Wallet" });
    const dead = openPostgres("postgres://postgres@127.0.0.1:1/none", 2);
    closers.push(dead);
    await expectUnavailable(appOver(dead), key.key, org.id);
    // A malformed key needs no database: still the one 401.
    expect((await get(appOver(dead), BANK, "not-a-key")).status).toBe(401);
  });

  it.runIf(testDriver === "postgres")(
    "answers 503 with Retry-After from the moment PostgreSQL goes away mid-run",
    async () => {
      const url = new URL(process.env.DATABASE_URL ?? "");
      const proxy = new TcpProxy(url.hostname, Number(url.port || 5432));
      await proxy.start();
      closers.push({ close: () => proxy.stop() });
      const proxied = new URL(url);
      proxied.host = `127.0.0.1:${proxy.port}`;
      const database = openPostgres(proxied.toString(), 2);
      closers.push(database);
      const app = appOver(database);
      const { org, key } = await orgWithKey(database.db, { plan: "Wallet" });
      expect((await get(app, BANK, key.key)).status).toBe(200);
      await proxy.stop();
      await expectUnavailable(app, key.key, org.id);
    },
  );
});

describe(`/status reads its own writes (${testDriver})`, () => {
  it("right after a burst on another instance, equals the last response's headers", async () => {
    const a = await meteredApp();
    const b = await meteredApp();
    const { key } = await orgWithKey(a.db, { plan: "Wallet" });
    let last: Response | undefined;
    for (let i = 0; i < 20; i++) {
      last = await get(a.app, BANK, key.key);
      expect(last.status).toBe(200);
    }
    const r = await getJson<StatusResponse>(b.app, "/api/agent/status", key.key);
    expect(r.status).toBe(200);
    expect(String(r.body.quota.remaining)).toBe(last?.headers.get("x-service-quota-remaining"));
    expect(r.body.usage?.used).toBe(20);
    expect(last?.headers.get("ratelimit")).toContain(`"credits";r=${r.body.usage?.remaining};`);
  });
});
