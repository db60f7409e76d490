import { Writable } from "node:stream";
import { afterAll, describe, expect, it } from "vitest";
import { type Database, openPostgres } from "../../src/db/client.ts";
import { DEFAULT_LIMITS } from "../../src/domain/metering/plans.ts";
import { createLogger } from "../../src/logger.ts";
import { RedisBurstLimiter } from "../../src/services/metering/redis-burst-limiter.ts";
import { closeTestApps, getJson, TEST_NOW } from "../helpers/api.ts";
import {
  insertUses,
  type MeteredTestApp,
  meteredApp,
  orgWithKey,
  simultaneously,
  TEST_REDIS_URL,
  tally,
  uniquePrefix,
} from "../helpers/metering.ts";
import { getTestDatabase, testDriver } from "../helpers/test-db.ts";

const BANK = "/api/agent/bank-accounts";
const REPEAT = 20;
/** 20 rounds of 100 requests: minutes on embedded PGlite when the machine is busy. */
const SLOW = 300_000;
const HOUR = 3_600_000;

const opened: { close(): Promise<void> }[] = [];
afterAll(async () => {
  await closeTestApps(); // the second instance's audit writer flushes through its pool first
  for (const o of opened.reverse()) await o.close();
});

/** A second database client (its own pool) on the same PostgreSQL: a second instance. */
function secondPool(): Database {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error("two instances need DATABASE_URL");
  const database = openPostgres(url);
  opened.push(database);
  return database;
}

/** Every Redis limiter made: none may have fallen back to in-process counting. */
const redisLimiters: RedisBurstLimiter[] = [];

/** What the Redis limiters logged (a fallback would explain a miscount). */
const redisLog: string[] = [];
const redisLogger = createLogger(
  "info",
  new Writable({
    write(chunk, _encoding, done) {
      redisLog.push(String(chunk));
      done();
    },
  }),
);

async function redisLimiter(prefix: string) {
  const limiter = new RedisBurstLimiter({
    url: TEST_REDIS_URL,
    limit: DEFAULT_LIMITS.burstLimit,
    windowMs: DEFAULT_LIMITS.burstWindowMs,
    logger: redisLogger,
    keyPrefix: prefix,
  });
  expect(await limiter.connect(), `Redis at ${TEST_REDIS_URL}`).toBe(true);
  opened.push(limiter);
  redisLimiters.push(limiter);
  return limiter;
}

/** The instance setups each case runs with. */
type Setup = { name: string; apps: () => Promise<MeteredTestApp[]> };

const oneInProcess: Setup = {
  name: "one instance, in-process",
  apps: async () => [await meteredApp()],
};

const twoWithRedis: Setup = {
  name: "two instances sharing PostgreSQL and Redis",
  apps: async () => {
    const prefix = uniquePrefix();
    const first = await meteredApp({ burst: await redisLimiter(prefix) });
    const second = await meteredApp({
      database: testDriver === "postgres" ? secondPool() : await getTestDatabase(),
      burst: await redisLimiter(prefix),
    });
    return [first, second];
  },
};

const oneWithRedis: Setup = {
  name: "one instance with Redis",
  apps: async () => [await meteredApp({ burst: await redisLimiter(uniquePrefix()) })],
};

describe(`metering under concurrency (${testDriver})`, () => {
  // PGlite is one in-process database: "two instances" means two pools on real PostgreSQL.
  const setups =
    testDriver === "postgres"
      ? [oneInProcess, oneWithRedis, twoWithRedis]
      : [oneInProcess, oneWithRedis];

  for (const setup of setups) {
    it(
      `admits exactly 60 of 100 simultaneous calls per key and endpoint (${setup.name}, ×${REPEAT})`,
      async () => {
        const apps = await setup.apps();
        const { db } = await getTestDatabase();
        for (let round = 0; round < REPEAT; round++) {
          const { key } = await orgWithKey(db, { plan: "Reserve" });
          const results = await simultaneously(100, async (i) => {
            const app = apps[i % apps.length] as MeteredTestApp;
            const r = await getJson(app.app, BANK, key.key);
            return r.status === 200 ? "200" : `${r.status} ${r.body.error}`;
          });
          expect(Object.fromEntries(tally(results)), `round ${round} ${redisLog.join("")}`).toEqual(
            {
              "200": 60,
              "429 rate_limited": 40,
            },
          );
        }
        // The Redis cases really counted in Redis, never in the fallback.
        expect(redisLimiters.map((l) => l.store)).not.toContain("memory");
      },
      SLOW,
    );
  }

  const creditSetups =
    testDriver === "postgres"
      ? [
          oneInProcess,
          {
            name: "two instances sharing PostgreSQL",
            apps: async () => [await meteredApp(), await meteredApp({ database: secondPool() })],
          },
        ]
      : [oneInProcess];

  for (const setup of creditSetups) {
    for (const left of [0, 1, 3, 10]) {
      it(
        `admits exactly ${left} of 50 simultaneous calls with ${left} credits left (${setup.name}, ×${REPEAT})`,
        async () => {
          const apps = await setup.apps();
          const { db } = await getTestDatabase();
          for (let round = 0; round < REPEAT; round++) {
            const { org, key } = await orgWithKey(db, { plan: "Free" });
            await insertUses(db, {
              userId: org.ownerUserId,
              billingAccountId: org.billingAccountId,
              orgId: org.id,
              keyId: key.id,
              times: Array.from({ length: 10 - left }, () => new Date(TEST_NOW.getTime() - HOUR)),
            });
            const results = await simultaneously(50, async (i) => {
              const app = apps[i % apps.length] as MeteredTestApp;
              const r = await getJson(app.app, BANK, key.key);
              return r.status === 200 ? "200" : `${r.status} ${r.body.error}`;
            });
            const expected: Record<string, number> = {};
            if (left > 0) expected["200"] = left;
            expected["429 credits_exhausted"] = 50 - left;
            expect(Object.fromEntries(tally(results)), `round ${round}`).toEqual(expected);
            const s = await getJson<{ usage: { used: number; remaining: number } }>(
              (apps[0] as MeteredTestApp).app,
              "/api/agent/status",
              key.key,
            );
            expect(s.body.usage).toMatchObject({ used: 10, remaining: 0 });
          }
        },
        SLOW,
      );
    }
  }
});
