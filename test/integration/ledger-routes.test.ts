import { createHmac } from "node:crypto";
import { rm } from "node:fs/promises";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/app.ts";
import { ConfigSchema } from "../../src/config.ts";
import { type RunningFakeLedger, startFakeLedger } from "../../src/connector/xero/fake/server.ts";
import { resetTenantGates } from "../../src/connector/xero/policy.ts";
import { ledgerConnectionView, startAuthorization } from "../../src/services/ledger/connect.ts";
import { createLedgerDeps } from "../../src/services/ledger/deps.ts";
import { requestSync } from "../../src/web/routes/ledger.tsx";
import { testApp } from "../helpers/api.ts";
import { createTestOrg } from "../helpers/factories.ts";
import { demoFolder, TEST_POLICY } from "./ledger-helpers.ts";

const WEBHOOK_KEY = "webhook-key-for-tests";
let fake: RunningFakeLedger;
let folder: string;
let app: ReturnType<typeof createApp>;
let config: ReturnType<typeof ConfigSchema.parse>;
let db: Awaited<ReturnType<typeof testApp>>["db"];

beforeAll(async () => {
  folder = await demoFolder(20, "routes");
  resetTenantGates();
  fake = await startFakeLedger();
  await fake.store.loadTenantFromFolder(folder, { tenantName: "Routes Co" });
  const base = await testApp();
  db = base.db;
  config = ConfigSchema.parse({ ...fake.env, LEDGER_WEBHOOK_KEY: WEBHOOK_KEY });
  app = createApp({ ...base.deps, config, clock: { now: () => new Date() } });
}, 60_000);

afterAll(async () => {
  await fake?.close();
  await rm(folder, { recursive: true, force: true });
});

const sign = (body: string, key = WEBHOOK_KEY) =>
  createHmac("sha256", key).update(body).digest("base64");

describe("POST /webhooks/ledger", () => {
  it("answers 200 to a correctly signed intent-to-receive and 401 to a bad signature", async () => {
    const body = JSON.stringify({
      events: [],
      firstEventSequence: 0,
      lastEventSequence: 0,
      entropy: "x",
    });
    const good = await app.request("/webhooks/ledger", {
      method: "POST",
      headers: { "x-xero-signature": sign(body), "content-type": "application/json" },
      body,
    });
    expect(good.status).toBe(200);
    const bad = await app.request("/webhooks/ledger", {
      method: "POST",
      headers: {
        "x-xero-signature": sign(body, "another-key"),
        "content-type": "application/json",
      },
      body,
    });
    expect(bad.status).toBe(401);
    const none = await app.request("/webhooks/ledger", { method: "POST", body });
    expect(none.status).toBe(401);
    const tampered = await app.request("/webhooks/ledger", {
      method: "POST",
      headers: { "x-xero-signature": sign(body) },
      body: `${body} `,
    });
    expect(tampered.status).toBe(401);
  });
});

describe("GET /ledger/callback", () => {
  it("completes a headless connect, links the tenant and starts the first sync", async () => {
    const org = await createTestOrg(db);
    const deps = createLedgerDeps({
      db,
      settings: config,
      publicBaseUrl: "http://127.0.0.1:3000",
      policy: TEST_POLICY,
    });
    const { authorizationUrl } = await startAuthorization(deps, {
      orgId: org.id,
      userId: null,
      sessionDigest: "cli",
    });
    const consent = await (await fetch(authorizationUrl)).text();
    const href = /id="allow" href="([^"]+)"/.exec(consent)?.[1]?.replaceAll("&#38;", "&") ?? "";
    const back = new URL(href);
    expect(back.pathname).toBe("/ledger/callback");
    const res = await app.request(`${back.pathname}${back.search}`);
    const text = await res.text();
    expect(res.status).toBe(200);
    expect(text).toContain("Linked to Routes Co");
    expect(text).not.toContain(back.searchParams.get("code") ?? "-");
    const sync = await requestSync(deps, org.id);
    expect(sync.outcome).toBe("succeeded");
    expect((await ledgerConnectionView(deps, org.id)).state).toBe("healthy");
    // The same state again: single use.
    expect((await app.request(`${back.pathname}${back.search}`)).status).toBe(400);
  }, 60_000);
});

describe("tokens stay secret", () => {
  it("never appear in logs, responses or the database in clear, across connect, syncs and failures", async () => {
    // A fake of its own: the other tests' tenant is linked to their organisation already.
    const own = await startFakeLedger();
    await own.store.loadTenantFromFolder(folder, { tenantName: "Secret Co" });
    const settings = ConfigSchema.parse({ ...own.env });
    const traced = await testApp({ captureLogs: true });
    const tracedApp = createApp({
      ...traced.deps,
      config: settings,
      clock: { now: () => new Date() },
    });
    const org = await createTestOrg(db);
    const deps = createLedgerDeps({
      db,
      settings,
      publicBaseUrl: "http://127.0.0.1:3000",
      policy: TEST_POLICY,
    });
    const { authorizationUrl } = await startAuthorization(deps, {
      orgId: org.id,
      userId: null,
      sessionDigest: "cli",
    });
    const consent = await (await fetch(authorizationUrl)).text();
    const href = /id="allow" href="([^"]+)"/.exec(consent)?.[1]?.replaceAll("&#38;", "&") ?? "";
    const back = new URL(href);
    const bodies: string[] = [];
    const callback = await tracedApp.request(`${back.pathname}${back.search}`);
    bodies.push(await callback.text());
    expect(callback.status).toBe(200);
    expect((await requestSync(deps, org.id)).outcome).toBe("succeeded");
    // A refresh (expired access token), then a failure (consent revoked) that is logged.
    own.identity.expireAccessTokens();
    expect((await requestSync(deps, org.id)).outcome).toBe("succeeded");
    own.identity.revokeAll();
    const failed = await requestSync(deps, org.id);
    expect(failed.outcome).toBe("failed");
    bodies.push(JSON.stringify(failed));
    const stored = JSON.stringify(
      await db.execute(sql`
        SELECT (SELECT json_agg(c) FROM ledger_credentials c WHERE c.org_id = ${org.id}) AS credentials,
               (SELECT json_agg(r) FROM sync_runs r WHERE r.org_id = ${org.id}) AS runs,
               (SELECT json_agg(l) FROM ledger_connections l WHERE l.org_id = ${org.id}) AS connections,
               (SELECT json_agg(a) FROM ledger_authorizations a WHERE a.org_id = ${org.id}) AS authorizations`),
    );
    const tokens = own.identity.issuedTokens();
    expect(tokens.length).toBeGreaterThanOrEqual(4);
    const everywhere = [traced.logs.join("\n"), bodies.join("\n"), stored].join("\n");
    expect(traced.logs.length).toBeGreaterThan(0);
    for (const t of tokens) expect(everywhere).not.toContain(t);
    await own.close();
  }, 60_000);
});
