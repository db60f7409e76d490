import { Writable } from "node:stream";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { createLogger } from "../../src/logger.ts";
import { InProcessBurstLimiter } from "../../src/services/metering/burst-limiter.ts";
import { RedisBurstLimiter } from "../../src/services/metering/redis-burst-limiter.ts";
import { get, TEST_NOW } from "../helpers/api.ts";
import {
  meteredApp,
  orgWithKey,
  simultaneously,
  TcpProxy,
  TEST_REDIS_URL,
  tally,
  uniquePrefix,
} from "../helpers/metering.ts";
import { testDriver } from "../helpers/test-db.ts";

const closers: { close(): Promise<void> }[] = [];
afterAll(async () => {
  for (const c of closers.reverse()) await c.close();
});

function capture() {
  const lines: { level: number; msg: string }[] = [];
  const sink = new Writable({
    write(chunk, _e, done) {
      for (const l of String(chunk).split("\n").filter(Boolean)) lines.push(JSON.parse(l));
      done();
    },
  });
  return { lines, logger: createLogger("info", sink) };
}

async function limiter(
  opts: { url?: string; prefix?: string; logger?: ReturnType<typeof createLogger> } = {},
) {
  const l = new RedisBurstLimiter({
    url: opts.url ?? TEST_REDIS_URL,
    limit: 60,
    windowMs: 60_000,
    logger: opts.logger ?? createLogger("silent"),
    keyPrefix: opts.prefix ?? uniquePrefix(),
    retryAfterFailureMs: 100,
  });
  closers.push(l);
  return l;
}

async function until(check: () => Promise<boolean>, ms: number): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < ms) {
    if (await check()) return Date.now() - started;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`condition not met within ${ms} ms`);
}

describe(`burst limiter (${testDriver})`, () => {
  it("in process: exact under concurrency, sliding, releasable, and forgets idle buckets", async () => {
    const l = new InProcessBurstLimiter(60, 60_000);
    const t0 = TEST_NOW.getTime();
    const results = await simultaneously(100, () => l.take("k:/a", new Date(t0)));
    expect(results.filter((r) => r.allowed)).toHaveLength(60);
    expect(results.find((r) => !r.allowed)).toMatchObject({ remaining: 0, resetMs: 60_000 });
    // Another endpoint or key has its own budget.
    expect((await l.take("k:/b", new Date(t0))).allowed).toBe(true);
    // A release gives one slot back.
    const token = results[0]?.token;
    if (!token) throw new Error("no token");
    await l.release(token);
    expect((await l.take("k:/a", new Date(t0 + 1))).allowed).toBe(true);
    expect((await l.take("k:/a", new Date(t0 + 2))).allowed).toBe(false);
    // Sliding: at t0 + 60 s the 59 calls of t0 have left; the one of t0 + 1 ms still counts.
    expect((await l.take("k:/a", new Date(t0 + 59_999))).allowed).toBe(false);
    const after = await l.take("k:/a", new Date(t0 + 60_000));
    expect(after).toMatchObject({ allowed: true, remaining: 58, resetMs: 1 });
    // Thousands of later calls on other buckets sweep the idle ones.
    for (let i = 0; i < 5000; i++) await l.take(`other:${i % 3}`, new Date(t0 + 10 * 60_000));
    expect(l.size).toBe(3);
  });

  it("through Redis: exact across two limiters sharing a prefix", async () => {
    const prefix = uniquePrefix();
    const a = await limiter({ prefix });
    const b = await limiter({ prefix });
    expect(await a.connect()).toBe(true);
    expect(await b.connect()).toBe(true);
    const now = new Date(TEST_NOW.getTime());
    const results = await simultaneously(100, (i) => (i % 2 ? a : b).take("key_1:/x", now));
    expect(results.filter((r) => r.allowed)).toHaveLength(60);
    expect(results.every((r) => r.token === null || r.token.store === "redis")).toBe(true);
    const refused = results.find((r) => !r.allowed);
    expect(refused).toMatchObject({ remaining: 0, resetMs: 60_000 });
    // Released in Redis, so the other instance sees the slot.
    const token = results.find((r) => r.allowed)?.token;
    if (!token) throw new Error("no token");
    await a.release(token);
    expect((await b.take("key_1:/x", now)).allowed).toBe(true);
    expect((await a.take("key_1:/x", now)).allowed).toBe(false);
    // The window slides in Redis as in process.
    expect((await b.take("key_1:/x", new Date(now.getTime() + 60_000))).allowed).toBe(true);
  });

  it("falls back to in-process limits with one warning while Redis is away, and recovers", async () => {
    const target = new URL(TEST_REDIS_URL);
    const proxy = new TcpProxy(target.hostname, Number(target.port || 6379));
    await proxy.start();
    closers.push({ close: () => proxy.stop() });
    const { lines, logger } = capture();
    const prefix = uniquePrefix();
    // The same logical database as `direct` (REDIS_URL may name one).
    const l = await limiter({
      url: `redis://127.0.0.1:${proxy.port}${target.pathname}`,
      prefix,
      logger,
    });
    expect(await l.connect()).toBe(true);
    const direct = new Redis(TEST_REDIS_URL);
    closers.push({ close: async () => direct.disconnect() });
    const now = new Date(TEST_NOW.getTime());

    expect((await l.take("k:/r", now)).token?.store).toBe("redis");
    expect(await direct.zcard(`${prefix}burst:k:/r`)).toBe(1);

    await proxy.stop();
    // Every call is still limited, now per instance: 60 in all, then refusals.
    const during = [];
    for (let i = 0; i < 70; i++) during.push(await l.take("k:/r", now));
    expect(during.filter((d) => d.allowed)).toHaveLength(60);
    expect(during.every((d) => d.token === null || d.token.store === "memory")).toBe(true);
    expect(l.store).toBe("memory");
    const warnings = lines.filter((x) => x.level === 40);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.msg).toMatch(/falling back to the in-process limiter/);

    await proxy.start(); // same port
    const took = await until(
      async () => (await l.take("k:/s", now)).token?.store === "redis",
      5000,
    );
    expect(took).toBeLessThan(5000);
    expect(l.store).toBe("redis");
    expect(lines.some((x) => x.level === 30 && /Redis is back/.test(x.msg))).toBe(true);
    expect(await direct.zcard(`${prefix}burst:k:/s`)).toBeGreaterThan(0);
  });

  it("keeps serving through an app while Redis is away", async () => {
    const target = new URL(TEST_REDIS_URL);
    const proxy = new TcpProxy(target.hostname, Number(target.port || 6379));
    await proxy.start();
    closers.push({ close: () => proxy.stop() });
    const l = await limiter({ url: `redis://127.0.0.1:${proxy.port}` });
    expect(await l.connect()).toBe(true);
    const t = await meteredApp({ burst: l });
    const { key } = await orgWithKey(t.db, { plan: "Vault" });
    await proxy.stop();
    const codes = [];
    for (let i = 0; i < 61; i++)
      codes.push((await get(t.app, "/api/agent/bank-accounts", key.key)).status);
    expect(Object.fromEntries(tally(codes))).toEqual({ 200: 60, 429: 1 });
  });
});
