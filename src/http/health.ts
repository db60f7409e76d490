import type { Config } from "../config.ts";
import type { Database } from "../db/client.ts";
import { migrationState, pingDatabase } from "../db/queries/readiness.ts";
import type { Api } from "./api.ts";

/** How long one readiness check may take before it counts as failed. */
const CHECK_TIMEOUT_MS = 2_000;

/** One part's answer in /readyz. */
interface Check {
  ok: boolean;
  ms: number;
  error?: string;
  [detail: string]: unknown;
}

function withTimeout<T>(work: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, fail) => {
    timer = setTimeout(
      () => fail(new Error(`${what} did not answer within ${CHECK_TIMEOUT_MS} ms`)),
      CHECK_TIMEOUT_MS,
    );
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

async function check(
  what: string,
  run: () => Promise<Record<string, unknown> | undefined>,
): Promise<Check> {
  const started = performance.now();
  const ms = () => Math.round((performance.now() - started) * 10) / 10;
  try {
    const details = await withTimeout(run(), what);
    return { ok: true, ms: ms(), ...details };
  } catch (err) {
    // The driver's own reason (ECONNREFUSED, a timeout), not drizzle's wrapper, whose message
    // repeats the statement and its parameters; drivers put no connection string in messages.
    let e = err as Error & { code?: string; cause?: unknown };
    while (e.cause instanceof Error) e = e.cause as typeof e;
    const reason = e.message || e.code || String(e);
    return {
      ok: false,
      ms: ms(),
      error: e.code && !reason.includes(e.code) ? `${e.code}: ${reason}` : reason,
    };
  }
}

/** A Redis connection for /readyz's ping, opened on first use (ioredis loads only then). */
function redisPinger(url: string) {
  let client: Promise<{ ping(): Promise<unknown> }> | undefined;
  return async () => {
    client ??= import("ioredis").then(
      ({ Redis }) =>
        new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 1, enableOfflineQueue: false }),
    );
    const redis = await client;
    await redis.ping();
  };
}

/**
 * `GET /healthz`: the process is up and serving (no dependency is looked at, so an orchestrator
 * does not restart it for a database outage). `GET /readyz`: ready for traffic: the database
 * answers, its migrations are those this build ships, and Redis answers when REDIS_URL is set;
 * 200 `{ status: "ready", checks }`, else 503 `{ status: "unavailable", failing: [...], checks }`.
 * Both are public and cost no credit; neither reveals more than the names of the parts.
 */
export function registerHealth(app: Api, deps: { config: Config; database: Database }): void {
  const pingRedis = deps.config.REDIS_URL ? redisPinger(deps.config.REDIS_URL) : undefined;
  app.get("/healthz", (c) => c.json({ ok: true }));
  app.get("/readyz", async (c) => {
    const db = deps.database.db;
    const checks: Record<string, Check> = {};
    const [database, redis] = await Promise.all([
      check("the database", async () => {
        await pingDatabase(db);
        return { driver: deps.database.kind };
      }),
      pingRedis
        ? check("Redis", async () => {
            await pingRedis();
            return undefined;
          })
        : undefined,
    ]);
    checks.database = database;
    // Migrations are read only from a database that answers (else they fail for the same reason).
    checks.migrations = database.ok
      ? await check("the migrations query", async () => {
          const state = await migrationState(db);
          if (!state.current) throw new Error(`not applied up to ${state.newest}`);
          return { newest: state.newest };
        })
      : { ok: false, ms: 0, error: "the database does not answer" };
    if (redis) checks.redis = redis;
    const failing = Object.entries(checks)
      .filter(([, v]) => !v.ok)
      .map(([k]) => k);
    c.header("Cache-Control", "no-store");
    if (failing.length > 0) return c.json({ status: "unavailable", failing, checks }, 503);
    return c.json({ status: "ready", checks }, 200);
  });
}
