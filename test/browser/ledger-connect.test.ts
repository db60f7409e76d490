import { rm } from "node:fs/promises";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type App, createApp } from "../../src/app.ts";
import { ConfigSchema } from "../../src/config.ts";
import { type RunningFakeLedger, startFakeLedger } from "../../src/connector/xero/fake/server.ts";
import { resetTenantGates } from "../../src/connector/xero/policy.ts";
import { ALL_BUT_SENSITIVE } from "../../src/domain/scopes.ts";
import { createApiKey } from "../../src/services/keys/create-api-key.ts";
import { setUserPassword } from "../../src/services/web-auth/set-password.ts";
import { testApp } from "../helpers/api.ts";
import { createTestOrg } from "../helpers/factories.ts";
import { testDriver } from "../helpers/test-db.ts";
import { demoFolder } from "../integration/ledger-helpers.ts";
import { chromiumAvailable, launchChromium, serveLocally } from "./chromium.ts";

const hasChromium = chromiumAvailable("ledger-connect");
const PASSWORD = "ledger connect passphrase 1";

/**
 * The main path into the product, in headless Chromium: Settings → Ledger → Connect Xero, the
 * contract fake's consent page, the tenant picker (the grant reaches two organisations), the
 * first sync with its progress, and then the agent API answering with the fake's documents.
 */
describe.skipIf(!hasChromium)(`connect Xero in headless Chromium (${testDriver})`, () => {
  let fake: RunningFakeLedger;
  let folder = "";
  let base = "";
  let app: App | undefined;
  let stop: () => Promise<void> = async () => {};
  let close: () => Promise<void> = async () => {};
  let page: Page;
  let key = "";
  let email = "";
  let northId = "";

  beforeAll(async () => {
    folder = await demoFolder(30, "chromium");
    resetTenantGates();
    fake = await startFakeLedger();
    northId = (await fake.store.loadTenantFromFolder(folder, { tenantName: "Chromium North" }))
      .tenantId;
    await fake.store.loadTenantFromFolder(await demoFolder(5, "south"), {
      tenantName: "Chromium South",
    });
    const t = await testApp();
    const now = new Date();
    const org = await createTestOrg(t.db, { now });
    ({ key } = await createApiKey(
      t.db,
      { kind: "ORG", orgId: org.id, label: "agent", scopes: ALL_BUT_SENSITIVE },
      now,
    ));
    const user = await t.db.query.users.findFirst({
      where: (u, { eq }) => eq(u.id, org.ownerUserId),
    });
    email = user?.email ?? "";
    await setUserPassword(t.db, { target: { userId: org.ownerUserId }, password: PASSWORD, now });
    // The callback address is the served app's, known once it listens.
    ({ base, stop } = await serveLocally((req) => {
      if (!app) throw new Error("app not ready");
      return app.fetch(req);
    }));
    app = createApp({
      ...t.deps,
      config: ConfigSchema.parse({ ...fake.env, LEDGER_REDIRECT_URI: `${base}/ledger/callback` }),
      clock: { now: () => new Date() },
    });
    const browser = await launchChromium();
    close = browser.close;
    page = await browser.context.newPage();
    page.setDefaultTimeout(20_000);
  }, 180_000);

  afterAll(async () => {
    await close();
    await stop();
    await fake?.close();
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  it("connects, picks the tenant, syncs, and the agent API answers with the fake's invoices", async () => {
    const status = async () =>
      (await (
        await fetch(`${base}/api/agent/status`, { headers: { Authorization: `Bearer ${key}` } })
      ).json()) as { lastSuccessfulSync: string | null };
    expect((await status()).lastSuccessfulSync).toBeNull();
    await page.goto(`${base}/settings/login`);
    await page.fill("#email", email);
    await page.fill("#password", PASSWORD);
    await Promise.all([page.waitForURL(`${base}/`), page.click("button[type=submit]")]);

    await page.goto(`${base}/settings/ledger`);
    expect(await page.locator("#ledger-state").getAttribute("data-state")).toBe("none");
    // The button leads (through a refresh, not a form redirect) to the ledger's consent page.
    await Promise.all([
      page.waitForURL((u) => u.href.startsWith(fake.env.LEDGER_AUTHORIZE_URL ?? "-")),
      page.click("#ledger-connect"),
    ]);
    await Promise.all([page.waitForURL(`${base}/settings/ledger`), page.click("#allow")]);
    const names = await page.locator("#ledger-tenants label").allTextContents();
    expect(names.map((n) => n.trim()).sort()).toEqual(["Chromium North", "Chromium South"]);
    await page.check(`#ledger-tenants input[value="${northId}"]`);
    await page.click("#ledger-pick");
    // The page refreshes itself while the first sync runs, then shows the healthy state.
    await page.waitForSelector('#ledger-state[data-state="healthy"]');
    await page.waitForSelector("#ledger-progress", { state: "detached", timeout: 60_000 });
    expect(await page.locator("#ledger-state").textContent()).toContain("Chromium North");
    expect(await page.locator("#ledger-last-run").textContent()).toContain("succeeded");

    const res = await fetch(`${base}/api/agent/invoices?autoPaginate=true`, {
      headers: { Authorization: `Bearer ${key}` },
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      invoices: { externalId?: string; amount: string; ledgerStatus: string }[];
      totalCount: number;
    };
    const served = body.invoices
      .map((i) => [i.externalId, i.ledgerStatus, Number(i.amount).toFixed(2)])
      .sort();
    const inFake = [...fake.store.tenant(northId).collections.Invoices.values()]
      .map((r) => r.body)
      .filter((b) => b.Type === "ACCREC")
      .map((b) => [String(b.InvoiceID), String(b.Status), Number(b.Total).toFixed(2)])
      .sort();
    expect(inFake.length).toBeGreaterThan(0);
    expect(served).toEqual(inFake);
    const synced = (await status()).lastSuccessfulSync;
    expect(synced).not.toBeNull();
    expect(Date.now() - Date.parse(synced ?? "")).toBeLessThan(120_000);
  }, 120_000);
});
