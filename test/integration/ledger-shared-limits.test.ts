import { rm } from "node:fs/promises";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type AccessTokenProvider, XeroClient } from "../../src/connector/xero/client.ts";
import { type RunningFakeLedger, startFakeLedger } from "../../src/connector/xero/fake/server.ts";
import { fakeConsent } from "../../src/connector/xero/fake/test-support.ts";
import {
  DEFAULT_LEDGER_POLICY,
  type LedgerPolicyOptions,
  LedgerRetryLaterError,
  type TenantGate,
} from "../../src/connector/xero/policy.ts";
import type { Db } from "../../src/db/client.ts";
import {
  postgresCallLimiter,
  pruneLedgerCallSlots,
} from "../../src/services/ledger/shared-limits.ts";
import { getTestDatabase } from "../helpers/test-db.ts";
import { demoFolder } from "./ledger-helpers.ts";

/*
 * Two app instances on one database: each has its own process state (tenant gates and
 * policies, as two processes would), and they share the tenant's limits only through
 * `ledger_call_slots`. The fake counts what arrives.
 */

let db: Db;
let fake: RunningFakeLedger;
let folder: string;

const LIMITS = { windowMs: 1000, perWindow: 10 };
const policy: LedgerPolicyOptions = {
  ...DEFAULT_LEDGER_POLICY,
  ...LIMITS,
  timeoutMs: 5000,
  backoffInitialMs: 20,
  backoffMaxMs: 100,
};

beforeAll(async () => {
  db = (await getTestDatabase()).db;
  folder = await demoFolder(20, "shared-limits");
}, 60_000);

afterEach(async () => {
  await fake?.close();
});

afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

/** A fresh fake with a tenant of its own (a new id, so earlier calls do not count). */
async function freshTenant(): Promise<string> {
  fake = await startFakeLedger({ limits: LIMITS });
  const tenant = await fake.store.loadTenantFromFolder(folder);
  return tenant.tenantId;
}

async function tokens(): Promise<AccessTokenProvider> {
  const token = (await fakeConsent(fake)).access_token;
  return { accessToken: async () => token };
}

/** One instance's client: its own gates and policy; shared limits in the database or none. */
async function instance(tenantId: string, options: { shared: boolean; dailyBudget?: number }) {
  return new XeroClient({
    apiUrl: fake.url,
    tenantId,
    tokens: await tokens(),
    policyOptions: { ...policy, dailyBudget: options.dailyBudget ?? policy.dailyBudget },
    gates: new Map<string, TenantGate>(),
    ...(options.shared ? { shared: postgresCallLimiter(db) } : {}),
  });
}

const call = (c: XeroClient) =>
  c.api.GET("/Organisation", { params: { header: c.headers() }, parseAs: "text" });

describe("ledger limits shared by instances on one database", () => {
  it("two instances together stay within 5 in flight and 10 a window (the fake refuses nothing)", async () => {
    const tenantId = await freshTenant();
    const a = await instance(tenantId, { shared: true });
    const b = await instance(tenantId, { shared: true });
    fake.faults.slowMs = 30;
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) => call(i % 2 === 0 ? a : b)),
    );
    expect(results.every((r) => r.response.status === 200)).toBe(true);
    expect(fake.stats.calls).toBe(30);
    expect(fake.stats.rateLimited).toBe(0);
    expect(fake.stats.maxConcurrent).toBeLessThanOrEqual(5);
    expect(fake.stats.maxPerWindow).toBeLessThanOrEqual(10);
  }, 60_000);

  it("without the shared limits the same two instances overrun the window (the test's control)", async () => {
    const tenantId = await freshTenant();
    const a = await instance(tenantId, { shared: false });
    const b = await instance(tenantId, { shared: false });
    await Promise.all(Array.from({ length: 20 }, (_, i) => call(i % 2 === 0 ? a : b)));
    expect(fake.stats.rateLimited).toBeGreaterThan(0);
  }, 60_000);

  it("the daily budget holds across instances: the second one stops where the first left off", async () => {
    const tenantId = await freshTenant();
    const a = await instance(tenantId, { shared: true, dailyBudget: 12 });
    const b = await instance(tenantId, { shared: true, dailyBudget: 12 });
    for (let i = 0; i < 8; i++) await call(a);
    let refused: unknown;
    let made = 0;
    for (let i = 0; i < 8 && !refused; i++) {
      try {
        await call(b);
        made += 1;
      } catch (e) {
        refused = e;
      }
    }
    expect(made).toBe(4);
    expect(refused).toBeInstanceOf(LedgerRetryLaterError);
    expect((refused as LedgerRetryLaterError).reason).toBe("budget");
    expect(fake.stats.calls).toBe(12);
  }, 60_000);

  it("pruning keeps two days of call rows", async () => {
    const tenantId = await freshTenant();
    const limiter = postgresCallLimiter(db);
    const old = Date.now() - 3 * 86_400_000;
    const taken = await limiter.take({
      tenantId,
      now: old,
      maxConcurrent: 5,
      perWindow: 10,
      windowMs: 1000,
      dailyBudget: 10,
    });
    expect("ticket" in taken).toBe(true);
    expect(await pruneLedgerCallSlots(db, new Date())).toBeGreaterThanOrEqual(1);
  });
});
