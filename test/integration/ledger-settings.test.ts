import { rm } from "node:fs/promises";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/app.ts";
import { ConfigSchema } from "../../src/config.ts";
import { type RunningFakeLedger, startFakeLedger } from "../../src/connector/xero/fake/server.ts";
import { resetTenantGates } from "../../src/connector/xero/policy.ts";
import { ledgerAuthorizations } from "../../src/db/schema/index.ts";
import { WebClient } from "../e2e/web-client.ts";
import { FIXTURE_PASSWORD, fixtureUser, webOrg } from "../e2e/web-fixtures.ts";
import { TEST_NOW, testApp } from "../helpers/api.ts";
import { testDriver } from "../helpers/test-db.ts";
import { demoFolder } from "./ledger-helpers.ts";

/*
 * Settings → Ledger: who may press Connect, Sync now and Disconnect, and the flow through the
 * fake ledger's consent page and the callback with the web session that started it.
 */

let fake: RunningFakeLedger;
let folder: string;
let app: ReturnType<typeof createApp>;
let db: Awaited<ReturnType<typeof testApp>>["db"];

beforeAll(async () => {
  folder = await demoFolder(15, "settings");
  resetTenantGates();
  fake = await startFakeLedger();
  await fake.store.loadTenantFromFolder(folder, { tenantName: "Settings North" });
  await fake.store.loadTenantFromFolder(folder, { tenantName: "Settings South" });
  const base = await testApp();
  db = base.db;
  app = createApp({
    ...base.deps,
    config: ConfigSchema.parse({ ...fake.env }),
    clock: { now: () => new Date() },
  });
}, 60_000);

afterAll(async () => {
  await fake?.close();
  await rm(folder, { recursive: true, force: true });
});

async function orgWithOwnerAndMember() {
  const a = await webOrg(db, TEST_NOW, `Ledger ${Math.random().toString(36).slice(2, 6)}`);
  const owner = new WebClient(app);
  expect((await owner.signIn(a.owner.email, FIXTURE_PASSWORD)).status).toBe(303);
  const m = await fixtureUser(db, TEST_NOW, { orgId: a.org.id, role: "member" });
  const member = new WebClient(app);
  expect((await member.signIn(m.email, FIXTURE_PASSWORD)).status).toBe(303);
  return { a, owner, member };
}

/** The fake's consent page, "Allow access": the callback path and query it sends back. */
async function allow(authorizationUrl: string): Promise<string> {
  const consent = await (await fetch(authorizationUrl)).text();
  const href = /id="allow" href="([^"]+)"/.exec(consent)?.[1]?.replaceAll("&#38;", "&") ?? "";
  const back = new URL(href);
  return `${back.pathname}${back.search}`;
}

async function waitForIdle(client: WebClient) {
  for (let i = 0; i < 200; i += 1) {
    const res = await client.get("/settings/ledger");
    if (!res.headers.get("refresh")) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("the sync did not finish");
}

describe(`settings: the ledger connection (${testDriver})`, () => {
  it("shows a member the state but no buttons, and refuses a member's every action with 403", async () => {
    const { a, member } = await orgWithOwnerAndMember();
    const page = await member.get("/settings/ledger");
    expect(page.status).toBe(200);
    expect(member.lastHtml).toContain("Ledger connection");
    expect(member.lastHtml).toContain('data-state="none"');
    expect(member.lastHtml).not.toContain('id="ledger-connect"');
    expect(member.lastHtml).not.toContain('id="ledger-disconnect"');
    // A valid token and organisation: only the role stands in the way.
    const form = { _csrf: member.csrf(), _org: a.org.id };
    for (const path of ["connect", "sync", "disconnect", "tenant"]) {
      const res = await member.post(`/settings/ledger/${path}`, {
        ...form,
        choice: "x",
        tenantId: "y",
      });
      expect(res.status, path).toBe(403);
    }
    const started = await db
      .select()
      .from(ledgerAuthorizations)
      .where(eq(ledgerAuthorizations.orgId, a.org.id));
    expect(started).toEqual([]);
  });

  it("refuses a connect without the session's CSRF token", async () => {
    const { a, owner } = await orgWithOwnerAndMember();
    await owner.get("/settings/ledger");
    const res = await owner.post("/settings/ledger/connect", {
      _csrf: "not-the-token",
      _org: owner.org(),
    });
    expect(res.status).toBe(403);
    const none = await owner.post("/settings/ledger/connect", { _org: a.org.id });
    expect(none.status).toBe(403);
    const started = await db
      .select()
      .from(ledgerAuthorizations)
      .where(eq(ledgerAuthorizations.orgId, a.org.id));
    expect(started).toEqual([]);
  });

  it("lets the owner connect, pick a tenant, sync now and disconnect; the state is bound to the session", async () => {
    const { owner, member } = await orgWithOwnerAndMember();
    await owner.get("/settings/ledger");
    expect(owner.lastHtml).toContain('id="ledger-connect"');
    const start = await owner.post("/settings/ledger/connect", owner.orgForm());
    expect(start.status).toBe(200);
    const refresh = start.headers.get("refresh") ?? "";
    const authorizationUrl = refresh.replace(/^0; url=/, "");
    expect(authorizationUrl.startsWith(fake.env.LEDGER_AUTHORIZE_URL ?? "-")).toBe(true);
    const callback = await allow(authorizationUrl);
    // Another session cannot finish this authorization.
    expect((await member.get(callback)).status).toBe(400);
    const back = await owner.get(callback);
    expect(back.status).toBe(303);
    expect(back.headers.get("location")).toBe("/settings/ledger");
    await owner.get("/settings/ledger");
    expect(owner.lastHtml).toContain("Settings North");
    expect(owner.lastHtml).toContain("Settings South");
    const tenantId = /name="tenantId" value="([^"]+)"/.exec(owner.lastHtml)?.[1] ?? "";
    const choice = /name="choice" value="([^"]+)"/.exec(owner.lastHtml)?.[1] ?? "";
    // The member, even with the choice's id, sees no picker and cannot pick.
    await member.get("/settings/ledger");
    expect(member.lastHtml).not.toContain("ledger-tenants");
    const picked = await owner.post("/settings/ledger/tenant", {
      ...owner.orgForm(),
      choice,
      tenantId,
    });
    expect(picked.status).toBe(303);
    await waitForIdle(owner);
    expect(owner.lastHtml).toMatch(/Xero organisation: Settings (North|South)/);
    expect(owner.lastHtml).toContain("Last run");
    expect(owner.lastHtml).toContain("succeeded");
    expect(owner.lastHtml).toContain('data-state="healthy"');
    const sync = await owner.post("/settings/ledger/sync", owner.orgForm());
    expect(sync.status).toBe(303);
    await waitForIdle(owner);
    const out = await owner.post("/settings/ledger/disconnect", owner.orgForm());
    expect(out.status).toBe(303);
    await owner.get("/settings/ledger");
    expect(owner.lastHtml).toContain('data-state="none"');
    expect(owner.lastHtml).toContain('id="ledger-connect"');
  }, 60_000);
});
