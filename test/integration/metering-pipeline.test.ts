import { z } from "@hono/zod-openapi";
import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { billingAccounts, billingEvents, organisations } from "../../src/db/schema/index.ts";
import { limitsWith } from "../../src/domain/metering/plans.ts";
import { createApi } from "../../src/http/api.ts";
import { onError } from "../../src/http/errors.ts";
import { registerOrgRoute } from "../../src/http/routes/agent/agent-route.ts";
import { mountAgentApi } from "../../src/http/routes/agent/dispatch.ts";
import type { StatusResponse } from "../../src/http/routes/agent/status/index.ts";
import { createLogger } from "../../src/logger.ts";
import { setBilling, setSeat } from "../../src/services/billing/set-billing.ts";
import type { CreditStore } from "../../src/services/metering/credit-store.ts";
import { Metering } from "../../src/services/metering/metering.ts";
import { createOrganisation } from "../../src/services/orgs/create-organisation.ts";
import { createPartner, linkPartner } from "../../src/services/partners/partners.ts";
import { createUser } from "../../src/services/users/create-user.ts";
import { createTestKey, get, getJson, rowsOf, TEST_NOW } from "../helpers/api.ts";
import { createTestOrg } from "../helpers/factories.ts";
import { insertUses, meteredApp, orgWithKey } from "../helpers/metering.ts";
import { getTestDatabase, testDriver } from "../helpers/test-db.ts";

const BANK = "/api/agent/bank-accounts";
const STATUS = "/api/agent/status";
const HOUR = 3_600_000;
const nested = (orgId: string, flat: string) =>
  flat.replace("/api/agent/", `/api/agent/orgs/${orgId}/`);

async function status(app: Parameters<typeof getJson>[0], key: string, path = STATUS) {
  const r = await getJson<StatusResponse>(app, path, key);
  expect(r.status, r.text).toBe(200);
  return r.body;
}

/** A test API whose one route fails (500) or validates a path id, through the real pipeline. */
async function widgetApi(metering: Metering) {
  const { db } = await getTestDatabase();
  const clock = { now: () => TEST_NOW };
  const api = createApi();
  registerOrgRoute(
    api,
    mountAgentApi(api, { db, clock, logger: createLogger("silent"), metering }),
    {
      path: "/api/agent/widgets/{id}",
      operationId: "getWidget",
      tags: ["widgets"],
      summary: "A widget",
      description: "Test route.",
      scope: "READ_BANK",
      params: z.object({ id: z.string().min(3) }),
      response: { schema: z.object({ id: z.string() }), description: "The widget." },
      handler: async (_ctx, { params }) => {
        if (params.id === "boom") throw new Error("handler failure");
        return { id: params.id };
      },
    },
  );
  api.onError(onError);
  return api;
}

describe(`metering in the request pipeline (${testDriver})`, () => {
  describe("headers and /status", () => {
    it("puts the status figures in the headers of every successful response", async () => {
      const t = await meteredApp();
      const { org, key } = await orgWithKey(t.db); // 14-day Wallet trial
      for (let i = 0; i < 3; i++) expect((await get(t.app, BANK, key.key)).status).toBe(200);
      const bank = await get(t.app, BANK, key.key);
      expect(bank.status).toBe(200);
      await t.flushAudit(); // the batched writer stamps lastUsedAt
      const s = await getJson<StatusResponse>(t.app, STATUS, key.key);
      expect(s.status, s.text).toBe(200);
      const body = s.body;
      expect(body.subscription).toEqual({
        status: "trialing",
        plan: "Wallet",
        trialEndsAt: new Date(TEST_NOW.getTime() + 14 * 24 * HOUR).toISOString(),
        trialDaysRemaining: 14,
        autoTopUp: false,
      });
      expect(body.usage).toEqual({
        limit: 250,
        used: 4,
        remaining: 246,
        topUpCredits: 0,
        nextCreditInMinutes: 0,
        fullResetInMinutes: 300,
        windowResetAt: new Date(TEST_NOW.getTime() + 5 * HOUR).toISOString(),
      });
      expect(body.quota).toEqual({
        limit: 1200,
        used: 4,
        remaining: 1196,
        resetAt: "2026-03-03T00:00:00.000Z",
      });
      expect(body.environment).toBe("dev");
      expect(body.key).toEqual({
        prefix: key.prefix,
        label: "metered",
        family: "cr_live",
        kind: "ORG",
        scopes: ["READ_BANK"],
        createdAt: TEST_NOW.toISOString(),
        lastUsedAt: TEST_NOW.toISOString(),
      });
      for (const res of [bank, s.res]) {
        expect(res.headers.get("x-service-subscription")).toBe(body.subscription.status);
        expect(res.headers.get("x-service-plan")).toBe(body.subscription.plan);
        expect(res.headers.get("x-service-trial-days-remaining")).toBe(
          String(body.subscription.trialDaysRemaining),
        );
        expect(res.headers.get("x-service-reset-minutes")).toBe(
          String(body.usage?.nextCreditInMinutes),
        );
        expect(res.headers.get("x-service-quota-remaining")).toBe(String(body.quota.remaining));
        expect(res.headers.get("x-service-quota-reset")).toBe(body.quota.resetAt);
      }
      expect(bank.headers.get("ratelimit-policy")).toBe(
        '"burst";q=60;w=60, "credits";q=250;w=18000',
      );
      // 4th bank call: 56 burst slots left; the first credit frees in 5 hours.
      expect(bank.headers.get("ratelimit")).toBe('"burst";r=56;t=60, "credits";r=246;t=18000');
      // /status used no credit, and its own burst bucket.
      expect(s.res.headers.get("ratelimit")).toBe('"burst";r=59;t=60, "credits";r=246;t=18000');
      // The nested form reads the same figures.
      expect(await status(t.app, key.key, nested(org.id, STATUS))).toEqual({
        ...body,
        key: { ...body.key, lastUsedAt: TEST_NOW.toISOString() },
      });
    });

    it("answers HEAD as GET without a body, and meters and audits it the same", async () => {
      const t = await meteredApp();
      const { key } = await orgWithKey(t.db);
      const head = await t.app.request(BANK, {
        method: "HEAD",
        headers: { authorization: `Bearer ${key.key}` },
      });
      expect(head.status).toBe(200);
      expect(await head.text()).toBe("");
      expect(head.headers.get("ratelimit")).toBe('"burst";r=59;t=60, "credits";r=249;t=18000');
      const s = await status(t.app, key.key);
      expect(s.usage?.used).toBe(1);
      await t.flushAudit();
      const audited = rowsOf<{ method: string; route: string }>(
        await t.db.execute(sql`select method, route from audit_events where key_id = ${key.id}`),
      );
      expect(audited).toContainEqual({ method: "HEAD", route: BANK });
    });

    it("leaves the trial header out unless trialing, and the alerts out when healthy", async () => {
      const t = await meteredApp();
      const { org, key } = await orgWithKey(t.db, { plan: "Vault" });
      await t.db.execute(
        sql`INSERT INTO ledger_connections (id, org_id, provider, status) VALUES (${`con_${org.id}`}, ${org.id}, 'export_folder', 'active')`,
      );
      const r = await getJson(t.app, BANK, key.key);
      expect(r.status).toBe(200);
      expect(r.res.headers.get("x-service-subscription")).toBe("active");
      expect(r.res.headers.get("x-service-plan")).toBe("Vault");
      expect(r.res.headers.has("x-service-trial-days-remaining")).toBe(false);
      expect(r.body).toEqual({ accounts: [], redactedItemCount: 0 });
      const s = await status(t.app, key.key);
      expect(s.subscription).toMatchObject({
        status: "active",
        trialEndsAt: null,
        trialDaysRemaining: null,
      });
      expect(s).not.toHaveProperty("billingAlert");
      expect(s).not.toHaveProperty("ledgerAlert");
    });

    it("sends no metering headers on errors, and Retry-After with RateLimit on every 429", async () => {
      const t = await meteredApp();
      const { key } = await orgWithKey(t.db, { plan: "Free" });
      for (let i = 0; i < 10; i++) expect((await get(t.app, BANK, key.key)).status).toBe(200);
      t.clock.advance(60 * 1000); // credits stay used; burst has room again
      const r = await getJson(t.app, BANK, key.key);
      expect(r.status).toBe(429);
      expect(r.body).toEqual({
        error: "credits_exhausted",
        message: expect.stringContaining("10 query credits"),
        retryAfterSeconds: 5 * 3600 - 60,
        nextCreditInMinutes: 299,
      });
      expect(r.res.headers.get("retry-after")).toBe(String(5 * 3600 - 60));
      expect(r.res.headers.get("ratelimit")).toBe('"burst";r=59;t=60, "credits";r=0;t=17940');
      expect(r.res.headers.get("ratelimit-policy")).toBe(
        '"burst";q=60;w=60, "credits";q=10;w=18000',
      );
      expect(r.res.headers.has("x-service-plan")).toBe(false);
    });
  });

  describe("what a refused or failed request costs", () => {
    it("charges nothing for 403 and 400 answered before metering", async () => {
      const t = await meteredApp();
      const a = await createTestOrg(t.db, { plan: "Wallet" });
      const outside = await createTestOrg(t.db);
      // The owner of `a` also owns `b` (with a seat on each account), so a USER key reaches both.
      const [owner] = rowsOf<{ email: string }>(
        await t.db.execute(sql`SELECT email FROM users WHERE id = ${a.ownerUserId}`),
      );
      const b = await createOrganisation(
        t.db,
        { name: `B ${a.id}`, plan: "Wallet", ownerEmail: owner?.email },
        TEST_NOW,
      );
      expect(b.ownerUserId).toBe(a.ownerUserId);
      const k = await createTestKey(t.db, {
        kind: "USER",
        userId: a.ownerUserId,
        label: "u",
        scopes: ["READ_FORECAST"],
      });
      const bankKey = await createTestKey(t.db, {
        kind: "USER",
        userId: a.ownerUserId,
        label: "u2",
        scopes: ["READ_BANK"],
      });
      for (let i = 0; i < 70; i++) {
        expect((await get(t.app, nested(a.id, BANK), k.key)).status).toBe(403); // scope
        expect((await get(t.app, BANK, bankKey.key)).status).toBe(400); // org_required
        expect((await get(t.app, nested(outside.id, BANK), bankKey.key)).status).toBe(403);
      }
      // The burst bucket of bankKey on /bank-accounts is untouched: 60 pass, then 429.
      for (let i = 0; i < 60; i++) {
        expect((await get(t.app, nested(a.id, BANK), bankKey.key)).status).toBe(200);
      }
      expect((await get(t.app, nested(b.id, BANK), bankKey.key)).status).toBe(429);
      const s = await status(t.app, bankKey.key, nested(a.id, STATUS));
      expect(s.usage?.used).toBe(60);
      expect(s.quota.used).toBe(60);
    });

    it("gives back the burst slot and the credit of a 400 answered after metering", async () => {
      const { db } = await getTestDatabase();
      const metering = new Metering({ db, logger: createLogger("silent") });
      const api = await widgetApi(metering);
      const { key } = await orgWithKey(db, { plan: "Vault" });
      for (let i = 0; i < 70; i++) {
        const r = await getJson(api, "/api/agent/widgets/x", key.key);
        expect([r.status, r.body.error]).toEqual([400, "invalid_parameter"]);
      }
      for (let i = 0; i < 60; i++) {
        expect((await get(api, "/api/agent/widgets/abc", key.key)).status).toBe(200);
      }
      expect((await get(api, "/api/agent/widgets/abc", key.key)).status).toBe(429);
      // Another instance sees every use at once: each is committed before its call answers.
      const t = await meteredApp();
      expect((await status(t.app, key.key)).usage?.used).toBe(60);
    });

    it("gives back the credit of a 5xx, but not its burst slot", async () => {
      const { db } = await getTestDatabase();
      const metering = new Metering({ db, logger: createLogger("silent") });
      const api = await widgetApi(metering);
      const { key } = await orgWithKey(db, { plan: "Free" });
      for (let i = 0; i < 15; i++) {
        const r = await getJson(api, "/api/agent/widgets/boom", key.key);
        expect([r.status, r.body.error]).toEqual([500, "internal_error"]);
      }
      const t = await meteredApp();
      const s = await status(t.app, key.key);
      expect(s.usage).toMatchObject({ used: 0, remaining: 10 });
      expect(s.quota.used).toBe(0);
      // 15 burst slots are gone: 45 more calls pass the burst cap (10 of them with credits).
      let ok = 0;
      let exhausted = 0;
      for (let i = 0; i < 46; i++) {
        const r = await getJson(api, "/api/agent/widgets/abc", key.key);
        if (r.status === 200) ok++;
        else if (r.body.error === "credits_exhausted") exhausted++;
        else expect([i, r.body.error]).toEqual([45, "rate_limited"]);
      }
      expect([ok, exhausted]).toEqual([10, 35]);
    });

    it("charges no credit for a 429, burst or credits", async () => {
      const t = await meteredApp();
      const { key } = await orgWithKey(t.db, { plan: "Wallet" });
      for (let i = 0; i < 60; i++) expect((await get(t.app, BANK, key.key)).status).toBe(200);
      for (let i = 0; i < 10; i++) {
        const r = await getJson(t.app, BANK, key.key);
        expect([r.status, r.body.error]).toEqual([429, "rate_limited"]);
        expect(r.body.retryAfterSeconds).toBe(60);
        expect(r.res.headers.get("retry-after")).toBe("60");
        expect(r.res.headers.get("ratelimit")).toBe('"burst";r=0;t=60');
      }
      expect((await status(t.app, key.key)).usage?.used).toBe(60);

      const free = await orgWithKey(t.db, { plan: "Free" });
      for (let i = 0; i < 10; i++) expect((await get(t.app, BANK, free.key.key)).status).toBe(200);
      for (let i = 0; i < 5; i++) expect((await get(t.app, BANK, free.key.key)).status).toBe(429);
      const s = await status(t.app, free.key.key);
      expect([s.usage?.used, s.quota.used]).toEqual([10, 10]);
    });
  });

  describe("who pays", () => {
    it("refuses credit-charged calls of a key whose user has no seat; /status answers with usage null", async () => {
      const t = await meteredApp();
      const org = await createTestOrg(t.db, { plan: "Pocket" });
      const member = await createUser(
        t.db,
        { email: `member-${org.id}@example.com`, orgId: org.id },
        TEST_NOW,
      );
      const k = await createTestKey(t.db, {
        kind: "USER",
        userId: member.id,
        label: "m",
        scopes: ["READ_BANK"],
      });
      const r = await getJson(t.app, BANK, k.key);
      expect([r.status, r.body.error]).toEqual([403, "no_billable_seat"]);
      const s = await getJson<StatusResponse>(t.app, STATUS, k.key);
      expect(s.status).toBe(200);
      expect(s.body.usage).toBeNull();
      expect(s.body.subscription).toMatchObject({ status: "active", plan: "Pocket" });
      expect(s.res.headers.has("x-service-reset-minutes")).toBe(false);
      expect(s.res.headers.get("ratelimit-policy")).toBe('"burst";q=60;w=60');
      // With a seat the same key is charged to it.
      await setSeat(t.db, { orgId: org.id, userId: member.id, plan: "Pocket" }, TEST_NOW);
      expect((await get(t.app, BANK, k.key)).status).toBe(200);
      expect((await status(t.app, k.key)).usage).toMatchObject({ limit: 50, used: 1 });
    });

    it("charges a partner key to the partner user's seat on the client's billing account", async () => {
      const t = await meteredApp();
      const client = await createTestOrg(t.db, { plan: "Vault" });
      const partner = await createPartner(t.db, { name: `Practice ${client.id}` }, TEST_NOW);
      await linkPartner(t.db, partner.id, client.id, TEST_NOW);
      const k = await createTestKey(t.db, { kind: "PARTNER", partnerId: partner.id, label: "p" });
      expect((await getJson(t.app, BANK, k.key)).body.error).toBe("no_billable_seat");
      await setSeat(
        t.db,
        { orgId: client.id, userId: partner.ownerUserId, plan: "Reserve" },
        TEST_NOW,
      );
      expect((await get(t.app, BANK, k.key)).status).toBe(200);
      const s = await status(t.app, k.key);
      expect(s.usage).toMatchObject({ limit: 5000, used: 1 });
      // The organisation owner's own window is separate.
      const own = await createTestKey(t.db, {
        kind: "ORG",
        orgId: client.id,
        label: "o",
        scopes: ["READ_BANK"],
      });
      expect((await status(t.app, own.key)).usage).toMatchObject({ limit: 1000, used: 0 });
    });

    it("treats an organisation without a billing account as having no billable seat", async () => {
      const t = await meteredApp();
      const { org, key } = await orgWithKey(t.db, { plan: "Wallet" });
      await t.db
        .update(organisations)
        .set({ billingAccountId: null })
        .where(eq(organisations.id, org.id));
      const r = await getJson(t.app, BANK, key.key);
      expect([r.status, r.body.error]).toEqual([403, "no_billable_seat"]);
      expect(r.body.message).toContain("no billing account");
      const s = await getJson<StatusResponse>(t.app, STATUS, key.key);
      expect(s.status).toBe(200);
      expect(s.body.subscription).toEqual({
        status: null,
        plan: null,
        trialEndsAt: null,
        trialDaysRemaining: null,
        autoTopUp: false,
      });
      expect(s.body.usage).toBeNull();
      expect(s.body.quota).toMatchObject({ limit: 0, used: 0, remaining: 0 });
      expect(s.res.headers.has("x-service-subscription")).toBe(false);
      expect(s.res.headers.get("x-service-quota-remaining")).toBe("0");
    });

    it("charges /orgs to the key's only organisation, and not at all for a key reaching several", async () => {
      const t = await meteredApp();
      const { org, key } = await orgWithKey(t.db, { plan: "Pocket" });
      const r = await getJson(t.app, "/api/agent/orgs", key.key);
      expect(r.status).toBe(200);
      expect(r.res.headers.get("x-service-plan")).toBe("Pocket");
      expect((await status(t.app, key.key)).usage?.used).toBe(1);

      const email = `multi-${org.id}@example.com`;
      const a = await createTestOrg(t.db, { plan: "Pocket" });
      const user = await createUser(t.db, { email, orgId: a.id }, TEST_NOW);
      await createUser(t.db, { email, orgId: org.id }, TEST_NOW);
      const multi = await createTestKey(t.db, {
        kind: "USER",
        userId: user.id,
        label: "m",
        scopes: ["READ_BANK"],
      });
      const m = await getJson<{ orgs: unknown[] }>(t.app, "/api/agent/orgs", multi.key);
      expect(m.status).toBe(200);
      expect(m.body.orgs).toHaveLength(2);
      expect(m.res.headers.has("x-service-plan")).toBe(false);
      expect(m.res.headers.get("ratelimit")).toBe('"burst";r=59;t=60');
    });
  });

  describe("automatic top-up", () => {
    it("buys a pack when the window is full on an active paid plan, and spends it first-in", async () => {
      const t = await meteredApp();
      const { org, key } = await orgWithKey(t.db, { plan: "Pocket" });
      await setBilling(t.db, { orgId: org.id, autoTopUp: true }, TEST_NOW);
      await insertUses(t.db, {
        userId: org.ownerUserId,
        billingAccountId: org.billingAccountId,
        orgId: org.id,
        keyId: key.id,
        times: Array.from({ length: 50 }, () => new Date(TEST_NOW.getTime() - HOUR)),
      });
      const r = await get(t.app, BANK, key.key);
      expect(r.status).toBe(200);
      expect(r.headers.get("x-service-reset-minutes")).toBe("0");
      const s = await status(t.app, key.key);
      expect(s.usage).toEqual({
        limit: 50,
        used: 50,
        remaining: 24,
        topUpCredits: 24,
        nextCreditInMinutes: 0,
        fullResetInMinutes: 240,
        windowResetAt: new Date(TEST_NOW.getTime() + 4 * HOUR).toISOString(),
      });
      const events = await t.db
        .select()
        .from(billingEvents)
        .where(eq(billingEvents.billingAccountId, org.billingAccountId));
      expect(events.filter((e) => e.kind === "top_up")).toEqual([
        expect.objectContaining({ credits: 25, userId: org.ownerUserId, orgId: org.id }),
      ]);
      // The pack's 24 credits go before another is bought.
      for (let i = 0; i < 24; i++) expect((await get(t.app, BANK, key.key)).status).toBe(200);
      expect((await status(t.app, key.key)).usage).toMatchObject({ remaining: 0, topUpCredits: 0 });
      t.clock.advance(60_000);
      expect((await get(t.app, BANK, key.key)).status).toBe(200);
      const after = await t.db
        .select()
        .from(billingEvents)
        .where(eq(billingEvents.billingAccountId, org.billingAccountId));
      expect(after.filter((e) => e.kind === "top_up")).toHaveLength(2);
    });

    it("buys nothing while trialing or on Free", async () => {
      const t = await meteredApp();
      for (const plan of [undefined, "Free"] as const) {
        const { org, key } = await orgWithKey(t.db, { plan });
        if (plan === "Free") {
          // setBilling refuses top-up on Free; an account may still hold it from before that.
          await t.db
            .update(billingAccounts)
            .set({ autoTopUp: true })
            .where(eq(billingAccounts.id, org.billingAccountId));
        } else {
          await setBilling(t.db, { orgId: org.id, autoTopUp: true }, TEST_NOW);
        }
        const limit = plan === "Free" ? 10 : 250;
        await insertUses(t.db, {
          userId: org.ownerUserId,
          billingAccountId: org.billingAccountId,
          orgId: org.id,
          keyId: key.id,
          times: Array.from({ length: limit }, () => new Date(TEST_NOW.getTime() - HOUR)),
        });
        const r = await getJson(t.app, BANK, key.key);
        expect([r.status, r.body.error]).toEqual([429, "credits_exhausted"]);
      }
    });
  });

  describe("the credit store", () => {
    it("answers 503 when the store fails, serving nothing unmetered", async () => {
      let down = true;
      const { db } = await getTestDatabase();
      const real = (await import("../../src/services/metering/credit-store.ts")).pgCreditStore(db);
      const flaky: CreditStore = {
        admit: (i) => (down ? Promise.reject(new Error("connection refused")) : real.admit(i)),
        refund: (id) => real.refund(id),
        inspect: (i) => (down ? Promise.reject(new Error("connection refused")) : real.inspect(i)),
        read: (i) => real.read(i),
      };
      const t = await meteredApp({ store: flaky });
      const { key } = await orgWithKey(t.db, { plan: "Wallet" });
      const r = await getJson(t.app, BANK, key.key);
      expect([r.status, r.body.error, r.res.headers.get("retry-after")]).toEqual([
        503,
        "service_unavailable",
        "5",
      ]);
      expect(r.text).not.toContain("accounts");
      down = false;
      expect((await get(t.app, BANK, key.key)).status).toBe(200);
    });

    it("answers 503 when the store is too slow, and gives back a late admission", async () => {
      const { db } = await getTestDatabase();
      const real = (await import("../../src/services/metering/credit-store.ts")).pgCreditStore(db);
      let lateAdmit: Promise<unknown> = Promise.resolve();
      const slow: CreditStore = {
        ...real,
        admit: (i) => {
          const p = new Promise((resolve) => setTimeout(resolve, 300)).then(() => real.admit(i));
          lateAdmit = p;
          return p;
        },
        refund: (id) => real.refund(id),
      };
      const t = await meteredApp({ store: slow, storeTimeoutMs: 50 });
      const { key } = await orgWithKey(t.db, { plan: "Wallet" });
      const r = await getJson(t.app, BANK, key.key);
      expect([r.status, r.body.error]).toEqual([503, "service_unavailable"]);
      await lateAdmit;
      await new Promise((resolve) => setTimeout(resolve, 100)); // the refund follows
      const check = await meteredApp();
      expect((await status(check.app, key.key)).usage?.used).toBe(0);
    });
  });

  it("applies its limits per instance, never per key", async () => {
    const t = await meteredApp({ limits: limitsWith({ burstLimit: 3 }) });
    const { key } = await orgWithKey(t.db, { plan: "Wallet" });
    const codes = [];
    for (let i = 0; i < 4; i++) codes.push((await get(t.app, BANK, key.key)).status);
    expect(codes).toEqual([200, 200, 200, 429]);
  });
});

type SchemaObject = {
  $ref?: string;
  properties?: Record<string, unknown>;
  allOf?: SchemaObject[];
};

type OpenApiDoc = {
  paths: Record<
    string,
    {
      get: {
        description: string;
        responses: Record<
          string,
          {
            description: string;
            headers?: Record<string, unknown>;
            content?: { "application/json": { schema: SchemaObject } };
          }
        >;
      };
    }
  >;
  components: { schemas: Record<string, SchemaObject> };
};

/** Every property a schema declares, through `$ref` and `allOf`. */
function propertiesOf(doc: OpenApiDoc, schema: SchemaObject | undefined): string[] {
  if (!schema) return [];
  if (schema.$ref) {
    return propertiesOf(
      doc,
      doc.components.schemas[schema.$ref.replace("#/components/schemas/", "")],
    );
  }
  return [
    ...Object.keys(schema.properties ?? {}),
    ...(schema.allOf ?? []).flatMap((s) => propertiesOf(doc, s)),
  ];
}

describe("metering in the OpenAPI document", () => {
  it("declares alerts, headers and metering errors on every agent operation", async () => {
    const t = await meteredApp();
    const { body: doc } = await getJson<OpenApiDoc>(t.app, "/api/agent/openapi.json");
    const paths = Object.keys(doc.paths).filter((p) => p !== "/api/agent/openapi.json");
    expect(paths).toEqual(expect.arrayContaining([STATUS, nested("{orgId}", STATUS), BANK]));
    for (const path of paths) {
      const op = doc.paths[path]?.get;
      const ok = op?.responses["200"];
      expect(propertiesOf(doc, ok?.content?.["application/json"].schema), path).toEqual(
        expect.arrayContaining(["billingAlert", "ledgerAlert"]),
      );
      expect(Object.keys(ok?.headers ?? {}), path).toEqual(
        expect.arrayContaining(["X-Service-Subscription", "X-Service-Quota-Reset", "RateLimit"]),
      );
      expect(Object.keys(op?.responses["429"]?.headers ?? {}), path).toContain("Retry-After");
      expect(op?.responses["503"]?.description, path).toContain("service_unavailable");
      const charges = !path.endsWith("/status");
      expect(op?.responses["429"]?.description.includes("credits_exhausted"), path).toBe(charges);
      expect(op?.description, path).toContain(
        charges ? "query credit from" : "uses no query credit",
      );
    }
  });
});
