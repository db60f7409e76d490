import { PGLiteSocketServer } from "@electric-sql/pglite-socket";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/app.ts";
import { ConfigSchema } from "../../src/config.ts";
import { type Database, openPglite, openPostgres } from "../../src/db/client.ts";
import { fixedClock } from "../../src/domain/clock.ts";
import { createLogger } from "../../src/logger.ts";
import { get, getJson, TEST_NOW } from "../helpers/api.ts";
import { meteredApp, orgWithKey, TcpProxy } from "../helpers/metering.ts";
import { testDriver } from "../helpers/test-db.ts";

/** The value of one sample line of a Prometheus text exposition (0 when absent). */
function sample(text: string, name: string, labels: Record<string, string>): number {
  const want = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split("\n")) {
    if (!line.startsWith(`${name}{`)) continue;
    const inside = line.slice(name.length + 1, line.indexOf("}"));
    const parts = inside.split(",");
    if (want.every((w) => parts.includes(w))) return Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  return 0;
}

describe(`/readyz (${testDriver})`, () => {
  // A PostgreSQL server the test can take down: PostgreSQL itself behind a proxy, or an
  // in-memory PGlite served over TCP behind the same proxy.
  let proxy: TcpProxy;
  let database: Database;
  let backend: { close(): Promise<void> } | undefined;

  beforeAll(async () => {
    let dbName = "postgres";
    if (process.env.DATABASE_URL) {
      const url = new URL(process.env.DATABASE_URL);
      proxy = new TcpProxy(url.hostname, Number(url.port || 5432));
      dbName = url.pathname.slice(1);
    } else {
      const pglite = await openPglite();
      const server = new PGLiteSocketServer({ db: pglite.pglite, port: 0, host: "127.0.0.1" });
      await server.start();
      const port = Number(server.getServerConn().split(":").at(-1));
      backend = {
        async close() {
          await server.stop();
          await pglite.close();
        },
      };
      proxy = new TcpProxy("127.0.0.1", port);
    }
    await proxy.start();
    database = openPostgres(`postgres://postgres@127.0.0.1:${proxy.port}/${dbName}`, 2);
  });
  afterAll(async () => {
    await database?.close().catch(() => {});
    await proxy?.stop();
    await backend?.close();
  });

  it("answers 503 naming the database while PostgreSQL refuses connections, and 200 once it is back; /healthz stays 200", async () => {
    const app = createApp({
      config: ConfigSchema.parse({}),
      database,
      clock: fixedClock(TEST_NOW),
      logger: createLogger("silent"),
    });
    const up = await getJson(app, "/readyz");
    expect(up.status, up.text).toBe(200);
    expect(up.body).toMatchObject({
      status: "ready",
      checks: { database: { ok: true }, migrations: { ok: true } },
    });

    await proxy.stop();
    const down = await getJson(app, "/readyz");
    expect(down.status).toBe(503);
    expect(down.body).toMatchObject({
      status: "unavailable",
      failing: ["database", "migrations"],
      checks: {
        database: { ok: false, error: expect.stringMatching(/ECONNREFUSED|terminated|closed/) },
      },
    });
    expect((await get(app, "/healthz")).status).toBe(200);

    await proxy.start();
    const back = await getJson(app, "/readyz");
    expect(back.status, back.text).toBe(200);
  }, 60_000);
});

describe(`/metrics (${testDriver})`, () => {
  it("counts a 200 and a 429 on their route template and status, and the metering's admission and refusal by reason", async () => {
    const t = await meteredApp({
      limits: {
        ...(await import("../../src/domain/metering/plans.ts")).DEFAULT_LIMITS,
        burstLimit: 1,
      },
    });
    const { key } = await orgWithKey(t.db);
    const ok = await get(t.app, "/api/agent/bank-accounts", key.key);
    expect(ok.status).toBe(200);
    const refused = await get(t.app, "/api/agent/bank-accounts", key.key);
    expect(refused.status).toBe(429);
    expect((await get(t.app, "/settings/login")).status).toBe(200);
    await t.flushAudit();

    const res = await get(t.app, "/metrics");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain/);
    const text = await res.text();
    const route = "/api/agent/bank-accounts";
    const requests = "cashrunway_http_requests_total";
    expect(sample(text, requests, { method: "GET", route, status: "200" })).toBe(1);
    expect(sample(text, requests, { method: "GET", route, status: "429" })).toBe(1);
    expect(sample(text, requests, { route: "/settings/login", status: "200" })).toBe(1);
    expect(
      sample(text, "cashrunway_http_request_duration_seconds_count", { route, status: "429" }),
    ).toBe(1);
    const decisions = "cashrunway_metering_decisions_total";
    expect(sample(text, decisions, { decision: "admitted", reason: "credit" })).toBe(1);
    expect(sample(text, decisions, { decision: "refused", reason: "rate_limited" })).toBe(1);
    expect(text).toMatch(/^cashrunway_audit_rows_pending 0$/m);
    expect(text).toMatch(/^cashrunway_ledger_sync_runs\{outcome="\w+"\} \d+$/m);
    if (testDriver === "postgres") {
      expect(text).toMatch(/^cashrunway_db_pool_connections\{state="total"\} \d+$/m);
    }
    // A path is never a label: an unknown one is `unmatched`.
    await get(t.app, "/no/such/path/123");
    expect(
      sample(await (await get(t.app, "/metrics")).text(), requests, {
        route: "unmatched",
        status: "404",
      }),
    ).toBe(1);
  });

  it("needs the bearer METRICS_TOKEN when one is set", async () => {
    const t = await meteredApp();
    const app = createApp({
      ...t.deps,
      config: ConfigSchema.parse({ METRICS_TOKEN: "metrics-token-0123456789" }),
    });
    expect((await get(app, "/metrics")).status).toBe(401);
    expect((await get(app, "/metrics", "metrics-token-012345678X")).status).toBe(401);
    const res = await get(app, "/metrics", "metrics-token-0123456789");
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("# TYPE cashrunway_http_requests_total counter");
  });
});
