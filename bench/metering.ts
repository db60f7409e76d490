/**
 * What the burst cap and query credits add to a request, in process (issue 4's target: under
 * 3 ms at p99 on PostgreSQL, with and without Redis).
 *
 *   npx tsx bench/metering.ts
 *
 * For each driver (BENCH_DRIVERS, default `postgres,pglite`) and burst limiter (in-process, and
 * Redis when REDIS_URL or 127.0.0.1:6379 answers), it times `Metering.admit` + `settle` exactly
 * as the pipeline calls them, on an organisation on Reserve with automatic top-up (every call
 * takes the admission path; once the window is full, the top-up path):
 *   sequential — one call at a time (BENCH_METER_CALLS, default 3,000; the first 500 dropped);
 *   concurrent — BENCH_CONNECTIONS (10) callers in a loop for BENCH_SECONDS (5), which is how
 *                group admission batches them (src/services/metering/keyed-batcher.ts).
 * With the production credit store (group admission). It prints p50, p99 and max in milliseconds and calls/s for the concurrent case.
 */
import { randomUUID } from "node:crypto";
import type { Database } from "../src/db/client.ts";
import { DEFAULT_LIMITS, limitsWith } from "../src/domain/metering/plans.ts";
import { ALL_BUT_SENSITIVE } from "../src/domain/scopes.ts";
import { createLogger } from "../src/logger.ts";
import { setBilling } from "../src/services/billing/set-billing.ts";
import { authenticateKey } from "../src/services/keys/authenticate-key.ts";
import { createApiKey } from "../src/services/keys/create-api-key.ts";
import { resolveTargetOrg } from "../src/services/keys/resolve-target-org.ts";
import { Metering, type MeterRequest } from "../src/services/metering/metering.ts";
import { RedisBurstLimiter } from "../src/services/metering/redis-burst-limiter.ts";
import { createOrganisation } from "../src/services/orgs/create-organisation.ts";
import { openBenchDatabase } from "./database.ts";
import { median, percentile } from "./load.ts";

const env = process.env;
const DRIVERS = (env.BENCH_DRIVERS ?? "postgres,pglite").split(",").map((s) => s.trim());
const CALLS = Number(env.BENCH_METER_CALLS ?? 3_000);
const SECONDS = Number(env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(env.BENCH_CONNECTIONS ?? 10);
const REDIS_URL = env.REDIS_URL ?? "redis://127.0.0.1:6379";

async function redisAnswers(): Promise<boolean> {
  const limiter = new RedisBurstLimiter({
    url: REDIS_URL,
    limit: 1,
    windowMs: 1000,
    logger: createLogger("silent"),
  });
  try {
    return await limiter.connect();
  } catch {
    return false;
  } finally {
    await limiter.close();
  }
}

const stats = (ms: number[]) => ({
  p50: median(ms),
  p99: percentile(ms, 99),
  // Not Math.max(...ms): a quiet machine makes more calls than a spread can pass as arguments.
  max: ms.reduce((a, b) => Math.max(a, b), 0),
});
const fmt = (n: number) => n.toFixed(3).padStart(7);

async function run(database: Database, limiterName: string, metering: Metering, store: string) {
  const now = new Date();
  const org = await createOrganisation(
    database.db,
    { name: `Metering bench ${randomUUID().slice(0, 8)}`, plan: "Reserve" },
    now,
  );
  await setBilling(
    database.db,
    { orgId: org.id, plan: "Reserve", status: "active", autoTopUp: true },
    now,
  );
  const created = await createApiKey(
    database.db,
    { kind: "ORG", orgId: org.id, label: "metering bench", scopes: [...ALL_BUT_SENSITIVE] },
    now,
  );
  const key = await authenticateKey(database.db, created.key);
  if (!key) throw new Error("bench key does not authenticate");
  const target = await resolveTargetOrg(database.db, key, undefined);
  const request = (): MeterRequest => ({
    key,
    org: target,
    routeTemplate: "/api/agent/bank-accounts",
    chargesCredit: true,
    requestId: randomUUID(),
    now: new Date(),
  });
  const once = async () => {
    const req = request();
    const t = performance.now();
    const admission = await metering.admit(req);
    await metering.settle(req, 200, admission);
    return performance.now() - t;
  };

  const sequential: number[] = [];
  for (let i = 0; i < CALLS; i++) sequential.push(await once());
  const seq = stats(sequential.slice(500));

  const concurrent: number[] = [];
  const until = performance.now() + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (performance.now() < until) concurrent.push(await once());
    }),
  );
  const con = stats(concurrent);
  console.log(
    `${database.kind.padEnd(8)} ${limiterName.padEnd(10)} ${store.padEnd(12)} sequential p50 ${fmt(seq.p50)} p99 ${fmt(seq.p99)} max ${fmt(seq.max)} ms | ` +
      `${CONNECTIONS} concurrent p50 ${fmt(con.p50)} p99 ${fmt(con.p99)} max ${fmt(con.max)} ms, ` +
      `${(concurrent.length / SECONDS).toFixed(0)} calls/s`,
  );
  return { driver: database.kind, limiter: limiterName, store, sequential: seq, concurrent: con };
}

const logger = createLogger("silent");
// The cap is raised so that a benchmark's thousands of calls a minute keep taking the whole path.
const limits = limitsWith({ burstLimit: 1_000_000_000 });
const withRedis = await redisAnswers();
console.log(
  `metering: admit + settle, in process (load average ${(await import("node:os")).loadavg()[0]?.toFixed(2)})`,
);
for (const driver of DRIVERS) {
  const database = await openBenchDatabase(driver);
  try {
    {
      const metering = new Metering({ db: database.db, logger, limits });
      await run(database, "in-process", metering, "group");
      await metering.close();
    }
    if (withRedis && driver === "postgres") {
      const burst = new RedisBurstLimiter({
        url: REDIS_URL,
        limit: limits.burstLimit,
        windowMs: DEFAULT_LIMITS.burstWindowMs,
        logger,
      });
      if (!(await burst.connect())) throw new Error("Redis stopped answering");
      const metering = new Metering({ db: database.db, logger, limits, burst });
      await run(database, "redis", metering, "group");
      await metering.close();
    }
  } finally {
    await database.close();
  }
}
if (!withRedis) console.log("(Redis did not answer: the Redis rows were skipped)");
process.exit(0);
