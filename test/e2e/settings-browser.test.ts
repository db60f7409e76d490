import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serve } from "@hono/node-server";
import { eq } from "drizzle-orm";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiKeys } from "../../src/db/schema/index.ts";
import { setSeat } from "../../src/services/billing/set-billing.ts";
import { createApiKey } from "../../src/services/keys/create-api-key.ts";
import { createPartner } from "../../src/services/partners/partners.ts";
import { CHROMIUM, chromiumAvailable } from "../browser/chromium.ts";
import { TEST_NOW, type TestApp, testApp } from "../helpers/api.ts";
import { testDriver } from "../helpers/test-db.ts";
import { fixtureUser, type LedgerFixture, webOrg } from "./web-fixtures.ts";

// Skipped locally without Chromium; in CI a missing Chromium fails the suite (chromium.ts).
const hasChromium = chromiumAvailable("settings-browser");

const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/**
 * The little of the DOM the in-page callbacks touch. The project compiles without the DOM lib
 * (it is a server), so the callbacks cast `globalThis` to this; the casts vanish at run time.
 */
interface PageGlobals {
  document: { querySelector(selector: string): { value: string; remove(): void } | null };
  navigator: { clipboard: { readText(): Promise<string> } };
}

const KEY = /^cr_live_([0-9a-hjkmnp-tv-z]{10})_[0-9a-hjkmnp-tv-z]{38}$/;

/** A browser profile of its own (fresh user-data-dir), removed on close. */
async function launch(): Promise<{ context: BrowserContext; close: () => Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), "cr-chromium-"));
  const context = await chromium.launchPersistentContext(dir, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

describe.skipIf(!hasChromium)(`settings screen in headless Chromium (${testDriver})`, () => {
  let t: TestApp;
  let base = "";
  let stopServer: () => Promise<void> = async () => {};
  const browsers: { close: () => Promise<void> }[] = [];
  let page: Page;
  let ledger: LedgerFixture;
  let orgName = "";
  let orgId = "";
  let owner = { email: "", password: "" };
  let outsider = { email: "", password: "" };
  /** The key of the scenario as it evolves: created, rotated, revoked. */
  let secret = "";
  let prefix = "";
  let oldSecret = "";

  /** Calls made with the current `secret`, and the route of the latest: what its audit must show. */
  let callsWithSecret = 0;
  let lastRoute = "";
  const api = (path: string, key: string) => {
    if (key === secret) {
      callsWithSecret += 1;
      lastRoute = path;
    }
    return fetch(`${base}${path}`, { headers: { Authorization: `Bearer ${key}` } });
  };

  async function signIn(p: Page, who: { email: string; password: string }) {
    await p.goto(`${base}/settings/login`);
    await p.fill("#email", who.email);
    await p.fill("#password", who.password);
    await Promise.all([p.waitForURL(`${base}/`), p.click("button[type=submit]")]);
  }

  beforeAll(async () => {
    t = await testApp({ now: TEST_NOW });
    const a = await webOrg(
      t.db,
      TEST_NOW,
      `Browser Alpha ${Math.random().toString(36).slice(2, 6)}`,
    );
    ledger = a.ledger;
    orgName = a.org.name;
    orgId = a.org.id;
    owner = a.owner;
    const b = await webOrg(
      t.db,
      TEST_NOW,
      `Browser Beta ${Math.random().toString(36).slice(2, 6)}`,
    );
    outsider = await fixtureUser(t.db, TEST_NOW, {
      orgId: b.org.id,
      role: "member",
      label: "outsider",
    });

    const server = serve({ fetch: t.app.fetch, port: 0, hostname: "127.0.0.1" });
    await new Promise<void>((resolve, reject) => {
      server.once("listening", resolve);
      server.once("error", reject);
    });
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    stopServer = () => new Promise<void>((resolve) => server.close(() => resolve()));

    const browser = await launch();
    browsers.push(browser);
    page = await browser.context.newPage();
    // Fail a step well inside the test timeout, with Playwright's message naming what it awaited.
    page.setDefaultTimeout(10_000);
  }, 60_000);

  afterAll(async () => {
    for (const b of browsers) await b.close();
    await stopServer();
  });

  it("signs in with email and password", async () => {
    await signIn(page, owner);
    await page.locator("h1", { hasText: orgName }).waitFor();
    await expect(page.locator("#cash-today").textContent()).resolves.toContain("173,000.50");
    await expect(page.locator("#forecast").textContent()).resolves.toContain(
      "No forecast computed yet.",
    );
    const cookie = (await page.context().cookies()).find((c) => c.name === "cr_session");
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Lax", secure: false });
  });

  it("creates a key and shows its secret once", async () => {
    await page.goto(`${base}/settings/keys`);
    expect(await page.isChecked("#include-sensitive")).toBe(false);
    await page.fill("#label", "Claude — finance assistant");
    for (const scope of ["READ_BANK", "READ_INVOICES", "READ_CONTACTS"]) {
      await page.check(`input[name=scopes][value=${scope}]`);
    }
    await page.click("#create-key button[type=submit]");
    await page.locator("h1", { hasText: "Key created" }).waitFor();
    secret = ((await page.locator("#new-key").textContent()) ?? "").trim();
    const m = KEY.exec(secret);
    expect(m, secret).not.toBeNull();
    prefix = m?.[1] ?? "";
    // The copy button is there (script enabled) and copies the key.
    const copy = page.locator("button[data-copy=new-key]");
    await expect(copy.isVisible()).resolves.toBe(true);
    await page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: base });
    await copy.click();
    await expect(
      page.evaluate(() => (globalThis as unknown as PageGlobals).navigator.clipboard.readText()),
    ).resolves.toBe(secret);

    await page.goto(`${base}/settings/keys`);
    const html = await page.content();
    expect(html).toContain(prefix);
    expect(html).not.toContain(secret);
    expect(html).not.toContain(secret.slice(-38));
    const row = page.locator(`#org-keys tr[data-prefix="${prefix}"]`);
    await expect(row.textContent()).resolves.toContain("Claude — finance assistant");
    await expect(row.textContent()).resolves.toContain("READ_INVOICES");
    expect(await row.locator(".chip.sensitive").count()).toBe(0);
  });

  it("calls the API with the new key", async () => {
    const res = await api("/api/agent/bank-accounts", secret);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { accounts: { name: string }[]; redactedItemCount: number };
    expect(body.accounts.map((a) => a.name).sort()).toEqual([
      "Operating Account",
      "Wages Clearing",
    ]);
    expect(body.redactedItemCount).toBe(0);
  });

  it("rotates the key: the old secret answers 401 and the new one 200", async () => {
    await page.goto(`${base}/settings/keys`);
    await page.click(`#org-keys tr[data-prefix="${prefix}"] a:has-text("Rotate")`);
    await page.locator("h1", { hasText: "Rotate this key?" }).waitFor();
    await page.click("#confirm");
    await page.locator("h1", { hasText: "Key rotated" }).waitFor();
    oldSecret = secret;
    secret = ((await page.locator("#new-key").textContent()) ?? "").trim();
    callsWithSecret = 0;
    const m = KEY.exec(secret);
    expect(m).not.toBeNull();
    const oldPrefix = prefix;
    prefix = m?.[1] ?? "";
    expect(prefix).not.toBe(oldPrefix);
    expect((await api("/api/agent/bank-accounts", oldSecret)).status).toBe(401);
    expect((await api("/api/agent/bank-accounts", secret)).status).toBe(200);
    await page.goto(`${base}/settings/keys`);
    const revokedRow = page.locator(`#revoked-keys tr[data-prefix="${oldPrefix}"]`);
    await expect(revokedRow.textContent()).resolves.toContain(prefix); // replaced by
  });

  it("hides a flagged account, and a flagged contact's invoices, from the very next API response", async () => {
    /** Clicks a row's toggle and waits until the page, reloaded after the POST, shows the flag. */
    const toggle = async (row: string, flagged: boolean, first = false) => {
      const done = (url: URL) =>
        url.searchParams.get("notice") === (flagged ? "flagged" : "cleared");
      if (first) {
        // The session's first change asks for confirmation; nothing changes until confirmed.
        await page.click(`${row} button`);
        await page.locator("#confirm-sensitive").waitFor();
        await Promise.all([
          page.waitForURL(done),
          page.click("#confirm-sensitive button[type=submit]"),
        ]);
      } else {
        await Promise.all([page.waitForURL(done), page.click(`${row} button`)]);
      }
      expect(await page.locator(`${row} .chip.${flagged ? "sensitive" : "off"}`).count()).toBe(1);
    };
    const wagesRow = `#account-flags tr[data-id="${ledger.wages.accountId}"]`;
    const secretRow = `#contact-flags tr[data-id="${ledger.secret.id}"]`;
    await page.goto(`${base}/settings/sensitive`);
    await toggle(wagesRow, true, true);
    const flagged = (await (await api("/api/agent/bank-accounts", secret)).json()) as {
      accounts: { name: string }[];
      redactedItemCount: number;
    };
    expect(flagged.accounts.map((a) => a.name)).toEqual(["Operating Account"]);
    expect(flagged.redactedItemCount).toBe(1);

    // The invoices endpoint belongs to another issue: assert on it only once it is registered.
    const invoicesRoute = t.app.routes.some((r) => r.path === "/api/agent/invoices");
    if (!invoicesRoute) {
      console.warn(
        "[settings-browser] GET /api/agent/invoices is not registered yet: invoice redaction not checked",
      );
    }
    const invoiceNumbers = async () => {
      const res = await api("/api/agent/invoices", secret);
      expect(res.status).toBe(200);
      const body = (await res.json()) as {
        invoices: { invoiceNumber: string }[];
        redactedItemCount: number;
      };
      return {
        numbers: body.invoices.map((i) => i.invoiceNumber).sort(),
        redacted: body.redactedItemCount,
      };
    };
    if (invoicesRoute) {
      expect(await invoiceNumbers()).toEqual({ numbers: ["INV-1001", "INV-1002"], redacted: 0 });
    }
    await toggle(secretRow, true);
    if (invoicesRoute) {
      expect(await invoiceNumbers()).toEqual({ numbers: ["INV-1001"], redacted: 1 });
    }

    // Clearing the flag brings the account back at once.
    await toggle(wagesRow, false);
    const cleared = (await (await api("/api/agent/bank-accounts", secret)).json()) as {
      redactedItemCount: number;
    };
    expect(cleared.redactedItemCount).toBe(0);
  });

  it("shows the key's requests in its audit trail, newest first", async () => {
    await t.flushAudit(); // the batched writer commits what it holds
    await page.goto(`${base}/settings/keys/${prefix}/audit`);
    const rows = page.locator("#audit-events tbody tr");
    // Every call made with the rotated key, the latest first.
    expect(callsWithSecret).toBeGreaterThanOrEqual(3);
    expect(await rows.count()).toBe(callsWithSecret);
    await expect(rows.first().textContent()).resolves.toContain(`GET ${lastRoute}`);
    await expect(rows.first().textContent()).resolves.toContain("200");
  });

  it("revokes the key after a confirmation, and lists it among the revoked keys", async () => {
    await page.goto(`${base}/settings/keys`);
    await page.click(`#org-keys tr[data-prefix="${prefix}"] a:has-text("Revoke")`);
    await page.locator("h1", { hasText: "Revoke this key?" }).waitFor();
    await page.click("#confirm");
    await page.waitForURL(`${base}/settings/keys?revoked=${prefix}`);
    await expect(page.locator(".notice.ok").textContent()).resolves.toContain(
      `Key ${prefix} revoked.`,
    );
    const row = page.locator(`#revoked-keys tr[data-prefix="${prefix}"]`);
    await expect(row.textContent()).resolves.toContain("Claude — finance assistant");
    await expect(row.textContent()).resolves.toContain(`cr_live_${prefix}_`);
    expect(await page.locator(`#org-keys tr[data-prefix="${prefix}"]`).count()).toBe(0);
    expect((await api("/api/agent/bank-accounts", secret)).status).toBe(401);
  });

  it("refuses a form posted without its CSRF token", async () => {
    await page.goto(`${base}/settings/keys`);
    await page.fill("#label", "no token");
    await page.check("input[name=scopes][value=READ_BANK]");
    await page.evaluate(() =>
      (globalThis as unknown as PageGlobals).document
        .querySelector("#create-key input[name=_csrf]")
        ?.remove(),
    );
    const [response] = await Promise.all([
      page.waitForResponse(
        (r) => r.url() === `${base}/settings/keys` && r.request().method() === "POST",
      ),
      page.click("#create-key button[type=submit]"),
    ]);
    expect(response.status()).toBe(403);
    await expect(page.locator(".notice.error").textContent()).resolves.toContain(
      "could not be verified",
    );
    const made = await t.db.select().from(apiKeys).where(eq(apiKeys.label, "no token"));
    expect(made).toHaveLength(0);
  });

  it("does not let a member of another organisation see or act on these keys", async () => {
    const target = await createApiKey(
      t.db,
      { kind: "ORG", orgId, label: "Alpha reporting", scopes: ["READ_BANK"] },
      TEST_NOW,
    );
    const other = await launch();
    browsers.push(other);
    const p = await other.context.newPage();
    p.setDefaultTimeout(10_000);
    await signIn(p, outsider);
    await p.goto(`${base}/settings/keys`);
    const html = await p.content();
    for (const hidden of [target.prefix, prefix, "Alpha reporting", "Claude — finance assistant"]) {
      expect(html).not.toContain(hidden);
    }
    for (const path of ["audit", "rotate", "revoke"]) {
      const res = await p.goto(`${base}/settings/keys/${target.prefix}/${path}`);
      expect(res?.status(), path).toBe(404);
    }
    // POSTs with the outsider's own valid token, from a page of the same site.
    await p.goto(`${base}/settings/keys`);
    const statuses = await p.evaluate(async (k) => {
      const token =
        (globalThis as unknown as PageGlobals).document.querySelector("input[name=_csrf]")?.value ??
        "";
      const out: number[] = [];
      for (const action of ["rotate", "revoke"]) {
        const res = await fetch(`/settings/keys/${k}/${action}`, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({ _csrf: token }),
          redirect: "manual",
        });
        out.push(res.status);
      }
      return out;
    }, target.prefix);
    expect(statuses).toEqual([404, 404]);
    expect((await api("/api/agent/bank-accounts", target.key)).status).toBe(200);
  });

  it("shows the owner a member's personal key and revokes it for this organisation after a confirmation", async () => {
    const member = await fixtureUser(t.db, TEST_NOW, { orgId, role: "member", label: "member" });
    await setSeat(t.db, { orgId, userId: member.userId, plan: "Pocket" }, TEST_NOW); // metered
    const personal = await createApiKey(
      t.db,
      { kind: "USER", userId: member.userId, label: "Member's laptop", scopes: ["READ_BANK"] },
      TEST_NOW,
    );
    expect((await api(`/api/agent/orgs/${orgId}/bank-accounts`, personal.key)).status).toBe(200);
    await page.goto(`${base}/settings/keys`);
    const row = page.locator(`#member-keys tr[data-prefix="${personal.prefix}"]`);
    await expect(row.textContent()).resolves.toContain(member.email);
    await row.locator('a:has-text("Revoke here")').click();
    await page.locator("h1", { hasText: "Revoke this key for" }).waitFor();
    await page.click("#confirm");
    await page.waitForURL(`${base}/settings/keys?revokedHere=${personal.prefix}`);
    await expect(page.locator(".notice.ok").textContent()).resolves.toContain(
      "it no longer reaches it",
    );
    expect(await page.locator(`#member-keys tr[data-prefix="${personal.prefix}"]`).count()).toBe(0);
    const revoked = page.locator(`#revoked-keys tr[data-prefix="${personal.prefix}"]`);
    await expect(revoked.textContent()).resolves.toContain("only");
    expect((await api(`/api/agent/orgs/${orgId}/bank-accounts`, personal.key)).status).toBe(403);
  });

  it("forbids READ_SENSITIVE on personal keys with the owner's setting: a personal key asking for it is refused", async () => {
    await page.goto(`${base}/settings/keys`);
    await Promise.all([
      page.waitForURL(`${base}/settings/keys?sensitive=restricted`),
      page.click("#toggle-sensitive-restriction"),
    ]);
    await expect(page.locator("#sensitive-setting").textContent()).resolves.toContain("Forbidden");
    await page.check("input[name=kind][value=USER]");
    await page.fill("#label", "personal with wages");
    await page.check("input[name=scopes][value=READ_BANK]");
    await page.check("#include-sensitive");
    const [response] = await Promise.all([
      page.waitForResponse(
        (r) => r.url() === `${base}/settings/keys` && r.request().method() === "POST",
      ),
      page.click("#create-key button[type=submit]"),
    ]);
    expect(response.status()).toBe(403);
    await expect(page.locator(".notice.error").textContent()).resolves.toContain(
      "allows READ_SENSITIVE only on organisation keys",
    );
    expect(
      await t.db.select().from(apiKeys).where(eq(apiKeys.label, "personal with wages")),
    ).toEqual([]);
    await Promise.all([
      page.waitForURL(`${base}/settings/keys?sensitive=allowed`),
      page.click("#toggle-sensitive-restriction"),
    ]);
    await expect(page.locator("#sensitive-setting").textContent()).resolves.toContain("Allowed");
  });

  it("links a partner by its id and unlinks it from the partners page, moving its key's reach", async () => {
    const partner = await createPartner(t.db, { name: "Browser Advisors" }, TEST_NOW);
    const partnerKey = await createApiKey(
      t.db,
      { kind: "PARTNER", partnerId: partner.id, label: "Advisers' agent" },
      TEST_NOW,
    );
    // The partner's owner holds a seat here, so only the link decides the key's reach.
    await setSeat(t.db, { orgId, userId: partner.ownerUserId, plan: "Pocket" }, TEST_NOW);
    const reach = async () => {
      await t.deps.keyCache?.poll(); // the key cache learns of the link as a second instance would
      return (await api(`/api/agent/orgs/${orgId}/bank-accounts`, partnerKey.key)).status;
    };
    expect(await reach()).toBe(403); // outside its reach
    await page.goto(`${base}/settings/partners`);
    await page.fill("#partner-id", partner.id);
    await Promise.all([
      page.waitForURL(`${base}/settings/partners?notice=linked`),
      page.click("#link-partner button[type=submit]"),
    ]);
    const row = page.locator(`#linked-partners tr[data-partner="${partner.id}"]`);
    await expect(row.textContent()).resolves.toContain("Browser Advisors");
    expect(await reach()).toBe(200);
    await Promise.all([
      page.waitForURL(`${base}/settings/partners?notice=unlinked`),
      row.locator("button").click(),
    ]);
    expect(await page.locator(`#linked-partners tr[data-partner="${partner.id}"]`).count()).toBe(0);
    expect(await reach()).toBe(403); // outside its reach
  });
});
