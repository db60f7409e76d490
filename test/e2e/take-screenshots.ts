/**
 * Regenerates docs/screenshots/*.png: seeds the demo organisation into an in-memory database,
 * serves the real app on 127.0.0.1, and photographs each page in headless Chromium.
 *
 *   npx tsx --conditions=@cashrunway/source test/e2e/take-screenshots.ts [outDir]
 *
 * Not a test (vitest does not pick it up): run it by hand after changing the screen.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { serve } from "@hono/node-server";
import { chromium, type Page } from "playwright-core";
import { createApp } from "../../src/app.ts";
import { ConfigSchema } from "../../src/config.ts";
import { openPglite } from "../../src/db/client.ts";
import { DEMO_TIMEZONE } from "../../src/demo/generate.ts";
import { systemClock } from "../../src/domain/clock.ts";
import { backtestOrigins } from "../../src/domain/forecasting/backtest.ts";
import { localDate } from "../../src/domain/timezones.ts";
import { createLogger } from "../../src/logger.ts";
import { runBrief } from "../../src/services/brief/run-brief.ts";
import { seedDemo } from "../../src/services/demo/seed-demo.ts";
import { recomputeForecasts } from "../../src/services/forecast/recompute-forecasts.ts";
import { createCustomScenario } from "../../src/services/forecast/scenarios.ts";
import { createApiKey } from "../../src/services/keys/create-api-key.ts";
import { rotateApiKey } from "../../src/services/keys/rotate-api-key.ts";
import { createOrganisation } from "../../src/services/orgs/create-organisation.ts";
import {
  addPartnerOwner,
  createPartner,
  linkPartner,
  removePartnerOwner,
} from "../../src/services/partners/partners.ts";
import { createUser } from "../../src/services/users/create-user.ts";
import { setDemoOwnerPassword } from "../../src/services/web-auth/set-password.ts";
import { keepReplayedForecasts } from "../helpers/forecast-history.ts";

const out = resolve(process.argv[2] ?? "docs/screenshots");
mkdirSync(out, { recursive: true });
const work = mkdtempSync(join(tmpdir(), "cr-shots-"));

const database = await openPglite();
const now = systemClock.now();
const demo = await seedDemo(database.db, { seed: "demo", now, folder: join(work, "ledger") });
const owner = await setDemoOwnerPassword(database.db, demo.ownerUserId, now);
// Today's brief and a custom scenario, so the dashboard and the scenarios page have both to show.
await runBrief(database.db, { orgId: demo.orgId, asOfDate: now.toISOString().slice(0, 10), now });
await createCustomScenario(database.db, {
  orgId: demo.orgId,
  name: "Slow payers",
  assumptions: { paymentLagDays: 30 },
  now,
});
await recomputeForecasts(database.db, { orgId: demo.orgId, now });
// A track record to show: the forecasts the engine would have served on the last 16 Mondays
// (the backtest's replay; the service keeps them from the first day on, never back-fills).
await keepReplayedForecasts(
  database.db,
  demo.orgId,
  now,
  backtestOrigins(localDate(now, DEMO_TIMEZONE), 16),
);

// Some history to show: a sensitive key, a personal key, a rotated key, a partner.
const sensitive = await createApiKey(
  database.db,
  {
    kind: "ORG",
    orgId: demo.orgId,
    label: "Board pack (with wages)",
    scopes: ["READ_SUMMARY"],
    sensitive: true,
  },
  now,
);
await createApiKey(
  database.db,
  {
    kind: "USER",
    userId: demo.ownerUserId,
    label: "My laptop — Claude Desktop",
    scopes: ["READ_BANK", "READ_FORECAST"],
  },
  now,
);
const old = await createApiKey(
  database.db,
  {
    kind: "ORG",
    orgId: demo.orgId,
    label: "MCP server",
    scopes: ["READ_INVOICES", "READ_CONTACTS"],
  },
  now,
);
await rotateApiKey(database.db, old.prefix, now);
const partner = await createPartner(
  database.db,
  { name: "Ledger & Co Advisors", ownerEmail: owner.email },
  now,
);
const client2 = await createOrganisation(database.db, { name: "Harbour Cafe Pty Ltd" }, now);
await linkPartner(database.db, partner.id, demo.orgId, now);
await linkPartner(database.db, partner.id, client2.id, now);
// A second owner of the partner, whose key keeps working, and a former one, whose key stopped.
const colleague = await createUser(database.db, { email: "sam@ledgerco.example" }, now);
const former = await createUser(database.db, { email: "alex@ledgerco.example" }, now);
for (const email of ["sam@ledgerco.example", "alex@ledgerco.example"]) {
  await addPartnerOwner(database.db, { partnerId: partner.id, email }, now);
}
await createApiKey(
  database.db,
  {
    kind: "PARTNER",
    partnerId: partner.id,
    label: "Practice agent",
    createdByUserId: colleague.id,
  },
  now,
);
await createApiKey(
  database.db,
  {
    kind: "PARTNER",
    partnerId: partner.id,
    label: "Demo only",
    pinnedOrgIds: [demo.orgId],
    createdByUserId: demo.ownerUserId,
  },
  now,
);
await createApiKey(
  database.db,
  { kind: "PARTNER", partnerId: partner.id, label: "Alex's script", createdByUserId: former.id },
  now,
);
await removePartnerOwner(database.db, { partnerId: partner.id, userId: former.id });
// A member of the demo organisation with a personal key: its owner sees it.
const member = await createUser(
  database.db,
  { email: "jo@demo.example", orgId: demo.orgId, role: "member" },
  now,
);
const memberKey = await createApiKey(
  database.db,
  { kind: "USER", userId: member.id, label: "Jo's spreadsheet", scopes: ["READ_INVOICES"] },
  now,
);

const app = createApp({
  config: ConfigSchema.parse({}),
  database,
  clock: systemClock,
  logger: createLogger("silent"),
});
const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" });
await new Promise<void>((done) => server.once("listening", done));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

for (const key of [demo.key, demo.key, sensitive.key]) {
  await fetch(`${base}/api/agent/bank-accounts`, { headers: { Authorization: `Bearer ${key}` } });
}
await fetch(`${base}/api/agent/orgs`, { headers: { Authorization: `Bearer ${demo.key}` } });

const profile = join(work, "profile");
const context = await chromium.launchPersistentContext(profile, {
  executablePath: "/usr/bin/chromium",
  headless: true,
  viewport: { width: 1280, height: 860 },
  args: [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
  ],
});
const page = await context.newPage();
const shot = async (p: Page, name: string, fullPage = true) => {
  await p.screenshot({ path: join(out, `${name}.png`), fullPage });
  console.log(`wrote ${join(out, `${name}.png`)}`);
};

await page.goto(`${base}/settings/login`);
await page.fill("#email", owner.email);
await shot(page, "sign-in");
await page.fill("#password", owner.password);
await Promise.all([page.waitForURL(`${base}/`), page.click("button[type=submit]")]);
await shot(page, "dashboard");
// The dashboard's track record panel on its own (forecast history against what happened).
await page.locator("#track-record").screenshot({ path: join(out, "track-record.png") });
console.log(`wrote ${join(out, "track-record.png")}`);
await page.goto(`${base}/settings/keys`);
await shot(page, "api-keys");
await page.fill("#label", "Claude — finance assistant");
for (const s of ["READ_BANK", "READ_FORECAST", "READ_SUMMARY"])
  await page.check(`input[name=scopes][value=${s}]`);
await page.click("#create-key button[type=submit]");
await shot(page, "api-key-created");
await page.goto(`${base}/settings/keys/${demo.prefix}/revoke`);
await shot(page, "api-key-revoke-confirm");
await page.goto(`${base}/settings/keys/${memberKey.prefix}/revoke-here`);
await shot(page, "api-key-revoke-here-confirm");
await page.goto(`${base}/settings/keys/${demo.prefix}/audit`);
await shot(page, "audit");
await page.goto(`${base}/settings/sensitive`);
// The full list runs to thousands of pixels: the first screenful shows both controls.
await shot(page, "sensitive-data", false);
// The session's first flag change asks first; the shot is the question (nothing changed).
await page.locator("#account-flags tbody tr").first().locator("button").click();
await page.locator("#confirm-sensitive").waitFor();
await shot(page, "sensitive-confirm");
await page.goto(`${base}/settings/partners`);
await shot(page, "partners");
await page.goto(`${base}/settings/billing`);
await shot(page, "billing");
await page.goto(`${base}/settings/scenarios`);
await shot(page, "scenarios");
await page.goto(`${base}/settings/categories`);
await shot(page, "categories");
// The dashboard on a 390 px phone: no sideways scrolling.
await page.setViewportSize({ width: 390, height: 844 });
await page.goto(`${base}/`);
await shot(page, "dashboard-phone");

await context.close();
await new Promise<void>((done) => server.close(() => done()));
await database.close();
rmSync(work, { recursive: true, force: true });
