import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { generateDemoLedger } from "../../demo/generate.ts";
import { LedgerFormatError } from "../errors.ts";
import { type AccessTokenProvider, XeroClient } from "./client.ts";
import { type RunningFakeLedger, startFakeLedger } from "./fake/server.ts";
import { fakeConsent } from "./fake/test-support.ts";
import {
  DEFAULT_LEDGER_POLICY,
  type LedgerPolicyOptions,
  LedgerReconnectRequiredError,
  LedgerRetryLaterError,
  resetTenantGates,
} from "./policy.ts";
import { createXeroSource } from "./xero-source.ts";

/*
 * The typed client and its policy against the contract fake over HTTP. Windows are shortened
 * (1 s instead of a minute) on both sides so that the limits are exercised in test time.
 */

let folder: string;
let fake: RunningFakeLedger;
let tenantId: string;

const WINDOW = { windowMs: 1000, perWindow: 10 };
const fast: LedgerPolicyOptions = {
  ...DEFAULT_LEDGER_POLICY,
  ...WINDOW,
  timeoutMs: 2000,
  backoffInitialMs: 20,
  backoffMaxMs: 100,
  breakerHalfOpenMs: 300,
  breakerThreshold: 3,
};

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), "cr-client-"));
  await generateDemoLedger({
    seed: "client",
    now: new Date("2026-06-30T00:00:00Z"),
    invoices: 40,
    folder,
  });
}, 60_000);

afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

async function freshFake(limits = WINDOW): Promise<void> {
  resetTenantGates();
  fake = await startFakeLedger({ limits });
  tenantId = (await fake.store.loadTenantFromFolder(folder)).tenantId;
}

afterEach(async () => {
  await fake?.close();
});

/** A token provider over the fake's consent; counts forced refreshes. */
async function tokens(): Promise<AccessTokenProvider & { forced: number; consent: boolean }> {
  let current = (await fakeConsent(fake)).access_token;
  const provider = {
    forced: 0,
    /** Whether a forced refresh gets a new token (false: consent is gone, the old one stays). */
    consent: true,
    async accessToken(opts?: { force?: boolean }) {
      if (opts?.force) {
        provider.forced += 1;
        if (!provider.consent) return current;
        current = (await fakeConsent(fake)).access_token;
      }
      return current;
    },
  };
  return provider;
}

async function client(policy: LedgerPolicyOptions = fast) {
  return new XeroClient({
    apiUrl: fake.url,
    tenantId,
    tokens: await tokens(),
    policyOptions: policy,
  });
}

describe("the ledger policy against the fake", () => {
  it("a 429 storm: every call succeeds, never more than 5 in flight or 10 a window", async () => {
    await freshFake();
    const c = await client();
    fake.faults.rateLimitStorm = 15;
    const results = await Promise.all(
      Array.from({ length: 30 }, () =>
        c.api.GET("/Organisation", { params: { header: c.headers() }, parseAs: "text" }),
      ),
    );
    expect(results.every((r) => r.response.status === 200)).toBe(true);
    expect(fake.stats.rateLimited).toBeGreaterThanOrEqual(15);
    expect(fake.stats.maxConcurrent).toBeLessThanOrEqual(5);
    expect(fake.stats.maxPerWindow).toBeLessThanOrEqual(10);
    expect(c.policy.calls).toBe(fake.stats.calls);
  }, 30_000);

  it("without a storm the limiter alone keeps 5 in flight and 10 a window (the fake refuses nothing)", async () => {
    await freshFake();
    const c = await client();
    fake.faults.slowMs = 30;
    await Promise.all(
      Array.from({ length: 25 }, () => c.api.GET("/Accounts", { params: { header: c.headers() } })),
    );
    expect(fake.stats.refusals).toEqual({ concurrent: 0, minute: 0, day: 0 });
    expect(fake.stats.maxConcurrent).toBe(5);
    expect(fake.stats.maxPerWindow).toBeLessThanOrEqual(10);
  }, 30_000);

  it("the breaker opens after repeated 5xx, stops calling, and closes after recovery", async () => {
    await freshFake();
    const c = await client({ ...fast, maxAttempts: 2 });
    fake.faults.serverErrors = 1000;
    const failure = await c.api
      .GET("/Organisation", { params: { header: c.headers() } })
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(LedgerRetryLaterError);
    await c.api.GET("/Organisation", { params: { header: c.headers() } }).catch(() => undefined);
    expect(c.policy.isOpen()).toBe(true);
    const callsWhileOpen = fake.stats.calls;
    const refused = await c.api
      .GET("/Organisation", { params: { header: c.headers() } })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(LedgerRetryLaterError);
    expect((refused as LedgerRetryLaterError).reason).toBe("unavailable");
    expect(fake.stats.calls).toBe(callsWhileOpen); // open: the ledger is not called
    fake.faults.serverErrors = 0;
    await new Promise((r) => setTimeout(r, 350));
    const ok = await c.api.GET("/Organisation", { params: { header: c.headers() } });
    expect(ok.response.status).toBe(200);
    expect(c.policy.isOpen()).toBe(false);
  }, 30_000);

  it("retries a transient 5xx with backoff", async () => {
    await freshFake();
    const c = await client();
    fake.faults.serverErrors = 2;
    const ok = await c.api.GET("/Organisation", { params: { header: c.headers() } });
    expect(ok.response.status).toBe(200);
    expect(fake.stats.calls).toBe(3);
  });

  it("a spent daily budget stops calls until the next day", async () => {
    await freshFake({ ...WINDOW, perDay: 3 } as typeof WINDOW);
    const c = await client();
    for (let i = 0; i < 3; i++)
      await c.api.GET("/Organisation", { params: { header: c.headers() } });
    expect(c.gate.remainingToday()).toBe(0);
    const refused = await c.api
      .GET("/Organisation", { params: { header: c.headers() } })
      .catch((e: unknown) => e);
    expect((refused as LedgerRetryLaterError).reason).toBe("budget");
    expect(fake.stats.calls).toBe(3); // refused here, not sent
  });

  it("a refused access token is refreshed once; refused again means reconnect", async () => {
    await freshFake();
    const provider = await tokens();
    const c = new XeroClient({ apiUrl: fake.url, tenantId, tokens: provider, policyOptions: fast });
    fake.identity.expireAccessTokens();
    const ok = await c.api.GET("/Organisation", { params: { header: c.headers() } });
    expect(ok.response.status).toBe(200);
    expect(provider.forced).toBe(1);
    fake.identity.revokeAll();
    provider.consent = false;
    const refused = await c.api
      .GET("/Organisation", { params: { header: c.headers() } })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(LedgerReconnectRequiredError);
  });

  it("sends Accept: application/json and comma-joined arrays", async () => {
    await freshFake();
    const c = await client();
    // The fake answers XML, as Xero does, to a call without Accept: application/json.
    const xml = await fake.app.request("/api.xro/2.0/Organisation", {
      headers: {
        authorization: `Bearer ${await (await tokens()).accessToken()}`,
        "xero-tenant-id": tenantId,
      },
    });
    expect(xml.headers.get("content-type")).toMatch(/xml/);
    const res = await c.api.GET("/Invoices", {
      params: { header: c.headers(), query: { Statuses: ["PAID", "VOIDED"], page: 1 } },
    });
    const statuses = new Set((res.data?.Invoices ?? []).map((i) => i.Status));
    expect([...statuses].every((s) => s === "PAID" || s === "VOIDED")).toBe(true);
    expect(statuses.size).toBeGreaterThan(0);
  });
});

describe("the Xero source", () => {
  it("reads every collection through paging, exactly as the fake holds it", async () => {
    await freshFake({ windowMs: 60_000, perWindow: 60 });
    const c = await client(DEFAULT_LEDGER_POLICY);
    const source = createXeroSource(c, { asOf: "2026-06-30", pageSize: 7 });
    const tenant = fake.store.tenant(tenantId);
    let invoices = 0;
    let pages = 0;
    for await (const page of source.invoices()) {
      invoices += page.length;
      pages += 1;
      expect(page.every((i) => typeof i.Total === "string")).toBe(true);
    }
    expect(invoices).toBe(tenant.collections.Invoices.size);
    expect(pages).toBe(Math.ceil(invoices / 7));
    let contacts = 0;
    for await (const page of source.contacts()) contacts += page.length;
    expect(contacts).toBe(tenant.collections.Contacts.size);
    expect((await source.organisation()).OrganisationID).toBe(tenantId);
    expect(await source.bankSummary()).not.toBeNull();
    expect(source.stats.records.invoices).toBe(invoices);
    expect(fake.stats.byPath.get("GET /api.xro/2.0/Invoices")).toBe(pages);
  });

  it("If-Modified-Since: reads only what changed after the watermark", async () => {
    await freshFake({ windowMs: 60_000, perWindow: 60 });
    const c = await client(DEFAULT_LEDGER_POLICY);
    const any = [...fake.store.tenant(tenantId).collections.Invoices.keys()][0] ?? "";
    const watermark = new Date(Date.now() - 1000);
    fake.store.edit(tenantId, "Invoices", any, { Reference: "changed" });
    const source = createXeroSource(c, { asOf: "2026-06-30", since: { invoices: watermark } });
    const read: string[] = [];
    for await (const page of source.invoices()) read.push(...page.map((i) => i.InvoiceID));
    expect(read).toEqual([any]);
  });

  it("a malformed record fails the read naming the call, the record and the field", async () => {
    await freshFake({ windowMs: 60_000, perWindow: 60 });
    const c = await client(DEFAULT_LEDGER_POLICY);
    const id = [...fake.store.tenant(tenantId).collections.Invoices.keys()][3] ?? "";
    fake.faults.malformed = { collection: "Invoices", id, field: "Total", value: "abc" };
    const source = createXeroSource(c, { asOf: "2026-06-30" });
    const error = await (async () => {
      for await (const _ of source.invoices()) {
        // read on
      }
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LedgerFormatError);
    expect((error as Error).message).toMatch(
      new RegExp(`^GET /Invoices page 1: Invoices\\[\\d+\\] \\(InvoiceID ${id}\\): Total: `),
    );
  });
});
