/**
 * `npm run bench`: measures agent endpoints against a large generated organisation.
 *
 * For each endpoint and each driver it runs, one after another in one process and interleaved
 * over several rounds, three servers with autocannon in a worker thread:
 *   ceiling  — a static response of the same bytes (what no route can beat);
 *   baseline — a bare route running the same service verb (same SQL and serialization) without
 *              the pipeline (no key lookup, org resolution, scope check, metering or audit);
 *   real     — the real endpoint through the whole pipeline.
 * It prints requests/s, p50 and p99 (medians over rounds), and real/baseline and real/ceiling:
 * as ratios of those medians, and round by round (each round's real over the same round's
 * baseline; median, min and max over rounds), which the machine's drift between rounds moves less.
 *
 * Environment: BENCH_DRIVERS (postgres,pglite), BENCH_INVOICES (100000), BENCH_SECONDS (5),
 * BENCH_ROUNDS (3), BENCH_CONNECTIONS (10), BENCH_DATABASE_URL, BENCH_ONLY (endpoint names),
 * BENCH_REDIS_URL (the burst cap in Redis instead of in process).
 *
 * Then, for each endpoint, unmetered and real again at a fixed rate (half the unmetered
 * throughput): the latency metering adds when the server is not saturated.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { eq, sql } from "drizzle-orm";
import { Hono } from "hono";
import { createApp } from "../src/app.ts";
import { loadConfig } from "../src/config.ts";
import type { Database } from "../src/db/client.ts";
import {
  creditUses,
  creditWindows,
  dailyQuotaUsage,
  organisations,
} from "../src/db/schema/index.ts";
import { offsetClock } from "../src/domain/clock.ts";
import { limitsWith } from "../src/domain/metering/plans.ts";
import { ALL_BUT_SENSITIVE } from "../src/domain/scopes.ts";
import { createMetering, noopMetering } from "../src/http/pipeline/metering.ts";
import { createLogger } from "../src/logger.ts";
import { BatchedAuditWriter } from "../src/services/audit/audit-writer.ts";
import { setBilling } from "../src/services/billing/set-billing.ts";
import type { ServiceContext } from "../src/services/context.ts";
import { serializeReusing } from "../src/services/json-reuse.ts";
import { authenticateKey } from "../src/services/keys/authenticate-key.ts";
import { createApiKey } from "../src/services/keys/create-api-key.ts";
import { resolveTargetOrg } from "../src/services/keys/resolve-target-org.ts";
import { VerifiedKeyCache } from "../src/services/keys/verified-key-cache.ts";
import { RedisBurstLimiter } from "../src/services/metering/redis-burst-limiter.ts";
import { BENCH_INVOICES, BENCH_NOW, ensureBenchOrg, openBenchDatabase } from "./database.ts";
import { ENDPOINTS } from "./endpoints.ts";
import {
  formatCpu,
  type LoadResult,
  listen,
  load,
  median,
  pairedRatios,
  percentile,
  staticServer,
  summariseLoads,
} from "./load.ts";

const env = process.env;
const DRIVERS = (env.BENCH_DRIVERS ?? "postgres,pglite").split(",").map((s) => s.trim());
const SECONDS = Number(env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(env.BENCH_CONNECTIONS ?? 10);
const ONLY = env.BENCH_ONLY?.split(",");

/**
 * Forgets the bench organisation's query-credit uses, windows and daily bucket, and
 * vacuums those tables: each run starts its clock at the same instant, so the rows a run deletes
 * lie where the next run's uses go, and a database without autovacuum (the development and CI
 * machines have it off) kept them all as dead index entries that every window lookup of later
 * runs stepped over (seen: 4 million of them, 1–2 ms per `metering_admit_batch`; docs/benchmarks.md, "Stop 10").
 */
async function resetMetering(database: Database, orgId: string): Promise<void> {
  const [org] = await database.db
    .select({ account: organisations.billingAccountId })
    .from(organisations)
    .where(eq(organisations.id, orgId));
  if (!org?.account) return;
  const account = org.account;
  await database.db.transaction(async (tx) => {
    await tx.delete(creditUses).where(eq(creditUses.billingAccountId, account));
    await tx.delete(creditWindows).where(eq(creditWindows.billingAccountId, account));
    await tx.delete(dailyQuotaUsage).where(eq(dailyQuotaUsage.orgId, orgId));
  });
  await database.db.execute(sql`vacuum (analyze) credit_uses, credit_windows, daily_quota_usage`);
}

interface Row {
  driver: string;
  endpoint: string;
  ceiling: Summary;
  baseline: Summary;
  /** The real pipeline with the no-op metering hook. */
  unmetered: Summary;
  real: Summary;
  /**
   * Unmetered and real again, at a fixed rate of half the unmetered throughput: what metering
   * adds to a request's latency when the server is not saturated (issue 4's target).
   */
  atRate: { rate: number; unmetered: Summary; real: Summary };
  /**
   * real/baseline and unmetered/baseline round by round (the two measured in the same round,
   * seconds apart): median, min and max over rounds. The machine's speed drifts between rounds
   * (shared hosts: the same target's requests/s moved by up to 30% between rounds of one run),
   * and a ratio of two medians taken from different rounds carries that drift; a ratio within a
   * round mostly does not.
   */
  paired: Record<"real" | "unmetered", { median: number; min: number; max: number }>;
}

interface Summary extends LoadResult {
  /** Requests/s of the slowest and fastest round. */
  rpsMin: number;
  rpsMax: number;
}

function summarise(results: LoadResult[]): Summary {
  return {
    ...summariseLoads(results),
    rpsMin: Math.min(...results.map((r) => r.requestsPerSecond)),
    rpsMax: Math.max(...results.map((r) => r.requestsPerSecond)),
  };
}

async function benchDriver(driver: string): Promise<{
  rows: Row[];
  keyVerify: Record<"uncached" | "cached", Record<"p50" | "p99" | "max", number>>;
  seededSeconds?: number;
}> {
  const database = await openBenchDatabase(driver);
  try {
    const { orgId, seededSeconds } = await ensureBenchOrg(database);
    const clock = offsetClock(BENCH_NOW);
    const created = await createApiKey(
      database.db,
      {
        kind: "ORG",
        orgId,
        label: `bench ${new Date().toISOString()}`,
        scopes: [...ALL_BUT_SENSITIVE],
      },
      clock.now(),
    );
    const headers = { authorization: `Bearer ${created.key}` };
    const key = await authenticateKey(database.db, created.key);
    if (!key) throw new Error("bench key does not authenticate");
    const org = await resolveTargetOrg(database.db, key, undefined);

    // Key verification cost, in process: the authenticate step alone, reading the key from the
    // database each time (no cache) and as the server does (verified-key cache, after the first).
    const verifyTimings = async (cache?: VerifiedKeyCache) => {
      const timings: number[] = [];
      for (let i = 0; i < 3000; i++) {
        const t = performance.now();
        await authenticateKey(database.db, created.key, cache);
        timings.push(performance.now() - t);
      }
      const kept = timings.slice(500);
      return { p50: median(kept), p99: percentile(kept, 99), max: Math.max(...kept) };
    };
    const uncached = await verifyTimings();
    // Started after the uncached loop: on PGlite that loop never yields to timers (each query
    // settles through promises only), so a cache started before it would find its last poll
    // seconds old and answer nothing (as it should with a stale poll).
    const verifyCache = new VerifiedKeyCache(database.db);
    await verifyCache.start();
    const keyVerify = { uncached, cached: await verifyTimings(verifyCache) };
    verifyCache.stop();

    const config = loadConfig({ ...process.env, DATABASE_URL: undefined, LOG_LEVEL: "silent" });
    const auditWriter = new BatchedAuditWriter(database.db);
    // The real pipeline meters every call. A benchmark makes far more than 60 calls a minute on
    // one key, so it runs the production metering with the burst cap raised and the organisation
    // on Reserve with automatic top-up: every call still takes the admission path (and, once the
    // window is full, the top-up path), nothing is exempted.
    const logger = createLogger("silent");
    await setBilling(
      database.db,
      { orgId, plan: "Reserve", status: "active", autoTopUp: true },
      clock.now(),
    );
    // Every run starts from an empty credit window at BENCH_NOW: the bench clock starts there each
    // time, so without this a run would meet the uses of earlier runs (whatever state they left)
    // instead of the same plan-then-top-up sequence. Bench database only.
    await resetMetering(database, orgId);
    const limits = limitsWith({ burstLimit: 1_000_000_000 });
    // BENCH_REDIS_URL: the burst cap in Redis, as the server runs with REDIS_URL.
    const burst = env.BENCH_REDIS_URL
      ? new RedisBurstLimiter({
          url: env.BENCH_REDIS_URL,
          limit: limits.burstLimit,
          windowMs: limits.burstWindowMs,
          logger,
        })
      : undefined;
    if (burst && !(await burst.connect())) throw new Error("BENCH_REDIS_URL does not answer");
    const metering = createMetering({ db: database.db, logger, limits, burst });
    // As the server runs (src/main.ts): verified keys cached in memory, polled for revocations.
    const keyCache = new VerifiedKeyCache(database.db, { logger });
    await keyCache.start();
    const app = createApp({ config, database, clock, logger, auditWriter, metering, keyCache });
    // The same pipeline without metering: what the metering step itself costs (issue 4's target).
    const unmeteredApp = createApp({
      config,
      database,
      clock,
      logger,
      auditWriter,
      metering: noopMetering,
      keyCache,
    });
    const rows: Row[] = [];
    for (const endpoint of ENDPOINTS) {
      if (ONLY && !ONLY.includes(endpoint.name)) continue;
      const ctxFor = (): ServiceContext => ({
        db: database.db,
        now: clock.now(),
        org,
        actor: { type: "apiKey", key },
        scopes: key.scopes,
      });
      const bare = new Hono();
      // Serialised as the routes serialise (jsonWithId): the same bytes, the same reuse of kept
      // JSON text (a stored forecast's weeks).
      bare.get(endpoint.path.split("?")[0] ?? endpoint.path, async (c) =>
        c.body(serializeReusing(await endpoint.baseline(ctxFor())), 200, {
          "Content-Type": "application/json",
        }),
      );
      const realResponse = await app.request(endpoint.path, { headers });
      if (realResponse.status !== 200)
        throw new Error(
          `${endpoint.name}: real endpoint answered ${realResponse.status}: ${await realResponse.text()}`,
        );
      const body = await realResponse.text();
      const ceiling = await staticServer(body);
      const baseline = await listen(bare.fetch);
      const real = await listen(app.fetch);
      const unmetered = await listen(unmeteredApp.fetch);
      const targets = {
        ceiling: ceiling.url,
        baseline: baseline.url,
        unmetered: unmetered.url,
        real: real.url,
      };
      const samples: Record<keyof typeof targets, LoadResult[]> = {
        ceiling: [],
        baseline: [],
        unmetered: [],
        real: [],
      };
      for (const [, url] of Object.entries(targets)) {
        await load(url + endpoint.path, { connections: CONNECTIONS, seconds: 1, headers }); // warm-up
      }
      const order = Object.entries(targets) as [keyof typeof targets, string][];
      for (let round = 0; round < ROUNDS; round++) {
        // Each round starts one target later, so every target takes every position in turn:
        // none always runs right after another (in one process, a target inherits the garbage
        // and the warm or cold caches its predecessor leaves).
        const rotated = [
          ...order.slice(round % order.length),
          ...order.slice(0, round % order.length),
        ];
        for (const [name, url] of rotated) {
          samples[name].push(
            await load(url + endpoint.path, {
              connections: CONNECTIONS,
              seconds: SECONDS,
              headers,
            }),
          );
        }
      }
      // Open loop at half the unmetered throughput: closed-loop p99 at saturation is mostly
      // queueing behind other requests, which grows with any cost; this is the latency added.
      const rate = Math.max(
        1,
        Math.round(median(samples.unmetered.map((s) => s.requestsPerSecond)) / 2),
      );
      const atRate: Record<"unmetered" | "real", LoadResult[]> = { unmetered: [], real: [] };
      for (let round = 0; round < ROUNDS; round++) {
        const pair =
          round % 2 === 0 ? (["unmetered", "real"] as const) : (["real", "unmetered"] as const);
        for (const name of pair) {
          atRate[name].push(
            await load(targets[name] + endpoint.path, {
              connections: CONNECTIONS,
              seconds: SECONDS,
              headers,
              rate,
            }),
          );
        }
      }
      ceiling.server.close();
      await baseline.close();
      await real.close();
      await unmetered.close();
      await auditWriter.flush();
      rows.push({
        driver,
        endpoint: endpoint.name,
        ceiling: summarise(samples.ceiling),
        baseline: summarise(samples.baseline),
        unmetered: summarise(samples.unmetered),
        real: summarise(samples.real),
        atRate: {
          rate,
          unmetered: summarise(atRate.unmetered),
          real: summarise(atRate.real),
        },
        paired: {
          real: pairedRatios(samples.real, samples.baseline),
          unmetered: pairedRatios(samples.unmetered, samples.baseline),
        },
      });
      printRow(rows[rows.length - 1] as Row);
    }
    keyCache.stop();
    await metering.close();
    return { rows, keyVerify, seededSeconds };
  } finally {
    await database.close();
  }
}

const fmt = (n: number, d = 1) => n.toFixed(d);

function printRow(r: Row) {
  const line = (name: string, x: Summary) =>
    `  ${name.padEnd(9)} ${fmt(x.requestsPerSecond).padStart(9)} req/s (min ${fmt(x.rpsMin, 0)}, max ${fmt(x.rpsMax, 0)})   p50 ${fmt(x.p50).padStart(6)} ms   p99 ${fmt(x.p99).padStart(6)} ms   ${formatCpu(x)}${x.non2xx || x.errors ? `   non-2xx ${x.non2xx} errors ${x.errors}` : ""}`;
  console.log(
    `\n${r.driver} ${r.endpoint} (${CONNECTIONS} connections, ${ROUNDS}×${SECONDS}s, medians)`,
  );
  console.log(line("ceiling", r.ceiling));
  console.log(line("baseline", r.baseline));
  console.log(line("unmetered", r.unmetered));
  console.log(line("real", r.real));
  const ratio = (a: Summary, b: Summary) => fmt(a.requestsPerSecond / b.requestsPerSecond, 2);
  console.log(
    `  real/baseline ${ratio(r.real, r.baseline)}   real/ceiling ${ratio(r.real, r.ceiling)}   ` +
      `unmetered/baseline ${ratio(r.unmetered, r.baseline)}   real/unmetered ${ratio(r.real, r.unmetered)}`,
  );
  const paired = (x: { median: number; min: number; max: number }) =>
    `${fmt(x.median, 2)} (min ${fmt(x.min, 2)}, max ${fmt(x.max, 2)})`;
  console.log(
    `  round by round: real/baseline ${paired(r.paired.real)}   ` +
      `unmetered/baseline ${paired(r.paired.unmetered)}`,
  );
  const { rate, unmetered, real } = r.atRate;
  console.log(
    `  at ${rate} req/s: unmetered p50 ${fmt(unmetered.p50)} p99 ${fmt(unmetered.p99)} ms, ` +
      `real p50 ${fmt(real.p50)} p99 ${fmt(real.p99)} ms: metering adds ` +
      `${fmt(real.p99 - unmetered.p99)} ms at p99`,
  );
}

const all: unknown[] = [];
for (const driver of DRIVERS) {
  const started = performance.now();
  const result = await benchDriver(driver);
  console.log(
    `\n${driver}: key verification ` +
      (["uncached", "cached"] as const)
        .map((k) => {
          const v = result.keyVerify[k];
          return `${k} p50 ${fmt(v.p50, 3)} ms, p99 ${fmt(v.p99, 3)} ms, max ${fmt(v.max, 3)} ms`;
        })
        .join("; ") +
      (result.seededSeconds
        ? `; generated and imported ${BENCH_INVOICES} invoices in ${fmt(result.seededSeconds)} s`
        : "") +
      `; driver total ${fmt((performance.now() - started) / 1000)} s`,
  );
  all.push({ driver, ...result });
}
mkdirSync(".bench", { recursive: true });
const file = `.bench/results-${new Date().toISOString().replace(/[:.]/g, "-")}.json`;
writeFileSync(
  file,
  JSON.stringify(
    {
      invoices: BENCH_INVOICES,
      seconds: SECONDS,
      rounds: ROUNDS,
      connections: CONNECTIONS,
      results: all,
    },
    null,
    2,
  ),
);
console.log(`\nwrote ${file}`);
process.exit(0);
