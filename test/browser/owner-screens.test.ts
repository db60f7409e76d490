import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { organisations, seats } from "../../src/db/schema/index.ts";
import { money } from "../../src/domain/money.ts";
import { runBrief } from "../../src/services/brief/run-brief.ts";
import { seedDemo } from "../../src/services/demo/seed-demo.ts";
import { setDemoOwnerPassword } from "../../src/services/web-auth/set-password.ts";
import { TEST_NOW, type TestApp, testApp } from "../helpers/api.ts";
import { keepReplayedForecasts } from "../helpers/forecast-history.ts";
import { testDriver } from "../helpers/test-db.ts";
import { chromiumAvailable, launchChromium, serveLocally } from "./chromium.ts";

const hasChromium = chromiumAvailable("owner-screens");

/** The pages an owner opens, each checked for sideways scrolling at 390 px. */
const PAGES = [
  "/",
  "/settings/keys",
  "/settings/sensitive",
  "/settings/partners",
  "/settings/billing",
  "/settings/scenarios",
  "/settings/categories",
];

/**
 * The owner's screens on the demo organisation in headless Chromium, each figure checked
 * against the agent API's answer for the same organisation.
 */
describe.skipIf(!hasChromium)(`owner's screens in headless Chromium (${testDriver})`, () => {
  let t: TestApp;
  let base = "";
  let stop: () => Promise<void> = async () => {};
  let close: () => Promise<void> = async () => {};
  let page: Page;
  let key = "";
  let work = "";
  let owner = { email: "", password: "" };
  let orgId = "";

  const api = async <T>(path: string): Promise<T> => {
    const res = await fetch(`${base}/api/agent${path}`, {
      headers: { Authorization: `Bearer ${key}` },
    });
    expect(res.status, path).toBe(200);
    return (await res.json()) as T;
  };

  beforeAll(async () => {
    t = await testApp({ now: TEST_NOW });
    work = mkdtempSync(join(tmpdir(), "cr-owner-"));
    const demo = await seedDemo(t.db, {
      seed: "demo",
      now: TEST_NOW,
      folder: join(work, "ledger"),
      name: `Demo ${Math.random().toString(36).slice(2, 6)}`,
    });
    await runBrief(t.db, { orgId: demo.orgId, asOfDate: "2026-03-02", now: TEST_NOW });
    orgId = demo.orgId;
    key = demo.key;
    const pw = await setDemoOwnerPassword(t.db, demo.ownerUserId, TEST_NOW);
    owner = { email: pw.email, password: pw.password };
    ({ base, stop } = await serveLocally(t.app.fetch));
    const browser = await launchChromium();
    close = browser.close;
    page = await browser.context.newPage();
    page.setDefaultTimeout(15_000);
    await page.goto(`${base}/settings/login`);
    await page.fill("#email", owner.email);
    await page.fill("#password", owner.password);
    await Promise.all([page.waitForURL(`${base}/`), page.click("button[type=submit]")]);
  }, 180_000);

  afterAll(async () => {
    await close();
    await stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it("shows the runway the BASE forecast gives and draws the API's closing cash per week", async () => {
    const forecast = await api<{ weeks: { weekStart: string; closing: string }[] }>("/forecast");
    await page.goto(`${base}/`);
    const below = forecast.weeks.findIndex((w) => money(w.closing).isNegative());
    const shown = await page
      .locator("#runway [data-runway-weeks]")
      .getAttribute("data-runway-weeks");
    expect(shown).toBe(below < 0 ? "beyond" : String(below));
    const points = await page
      .locator("#forecast circle[data-closing]")
      .evaluateAll((els) =>
        els.map((e) => [e.getAttribute("data-week-start"), e.getAttribute("data-closing")]),
      );
    expect(points).toEqual(forecast.weeks.map((w) => [w.weekStart, money(w.closing).toString()]));
    // The axis is fitted to the figures: its lowest label is not zero when cash stays high.
    const labels = await page.locator("#forecast svg text.date").allTextContents();
    expect(labels).toHaveLength(13);
    expect(labels[0]).toMatch(/^\d{1,2} [A-Z][a-z]{2}$/);
  });

  it("draws the track record: the forecast made N weeks ahead against actual cash, as the API gives it", async () => {
    // Two kept forecasts of the week of 23 Feb, as the engine would have served them: made that
    // Monday (1 week ahead) and on 2 Feb (4 weeks ahead).
    await keepReplayedForecasts(t.db, orgId, TEST_NOW, ["2026-02-02", "2026-02-23"]);
    type Variance = {
      variance: {
        weeks: {
          weekStart: string;
          actual: { closing: string };
          forecasts: { horizon: number; closing: string }[];
        }[];
      };
    };
    const { variance } = await api<Variance>("/forecast?variance=true");
    for (const horizon of [1, 4]) {
      await page.goto(`${base}/?horizon=${horizon}#track-record`);
      const drawn = await page
        .locator("#variance-chart circle[data-week]")
        .evaluateAll((els) =>
          els.map((e) => [
            e.getAttribute("data-week"),
            e.getAttribute("data-forecast"),
            e.getAttribute("data-actual"),
          ]),
        );
      const expected = [...variance.weeks]
        .reverse()
        .flatMap((w) =>
          w.forecasts
            .filter((f) => f.horizon === horizon)
            .map((f) => [w.weekStart, f.closing, w.actual.closing]),
        );
      expect(drawn, `horizon ${horizon}`).toEqual(expected);
      expect(drawn.length, `horizon ${horizon}`).toBeGreaterThan(0);
      await expect(page.locator("#variance-summary").textContent()).resolves.toMatch(
        /Over \d+ weeks?: off by/,
      );
    }
    // The last week by account: the API's category rows (same accounts, same differences).
    type ByCategory = {
      variance: {
        weeks: {
          weekStart: string;
          forecasts: {
            horizon: number;
            categories?: { accountId: string | null; name: string; netError: string }[];
          }[];
        }[];
      };
    };
    const byCategory = await api<ByCategory>("/forecast?varianceCategories=true");
    const [last] = byCategory.variance.weeks;
    for (const horizon of [1, 4]) {
      await page.goto(`${base}/?horizon=${horizon}#track-record`);
      const rows = await page
        .locator("#variance-categories tbody tr")
        .evaluateAll((els) =>
          els.map((e) => [e.getAttribute("data-account"), e.getAttribute("data-net-error")]),
        );
      const expected = (last?.forecasts.find((f) => f.horizon === horizon)?.categories ?? []).map(
        (c) => [c.accountId ?? "", c.netError],
      );
      expect(rows, `horizon ${horizon}`).toEqual(expected);
      expect(rows.length, `horizon ${horizon}`).toBeGreaterThan(1);
      await expect(page.locator("#variance-categories").getAttribute("data-week")).resolves.toBe(
        last?.weekStart,
      );
    }
    // People signed in see real names: no row is masked on the dashboard.
    await expect(page.locator("#variance-categories").textContent()).resolves.not.toContain(
      "Sensitive account",
    );
  });

  it("ages the open receivables to the sum of the open invoices the API lists", async () => {
    const list = await api<{
      invoices: { amount: string; currency: string }[];
      totalCount: number;
    }>("/invoices?status=AUTHORISED&autoPaginate=true&totals=true");
    const byCurrency = new Map<string, string>();
    for (const inv of list.invoices) {
      byCurrency.set(
        inv.currency,
        money(byCurrency.get(inv.currency) ?? "0")
          .plus(inv.amount)
          .toString(),
      );
    }
    await page.goto(`${base}/`);
    const tables = await page.locator("#receivables table.ageing").evaluateAll((els) =>
      els.map((t) => ({
        currency: t.getAttribute("data-currency") ?? "",
        cells: [...t.querySelectorAll("td[data-bucket]")].map(
          (c) => c.getAttribute("data-amount") ?? "0",
        ),
        total: t.querySelector("td[data-total]")?.getAttribute("data-total") ?? "",
      })),
    );
    expect(tables.map((x) => x.currency).sort()).toEqual([...byCurrency.keys()].sort());
    for (const table of tables) {
      const sum = table.cells.reduce((s, c) => s.plus(c), money(0));
      expect(sum.toString(), table.currency).toBe(
        money(byCurrency.get(table.currency) ?? "0").toString(),
      );
      expect(table.total).toBe(sum.toString());
    }
    expect(await page.locator("#debtors tbody tr").count()).toBeGreaterThan(0);
  });

  it("renders the daily brief without Markdown markers, its references linked", async () => {
    await page.goto(`${base}/`);
    const text = (await page.locator("#brief").textContent()) ?? "";
    expect(text.length).toBeGreaterThan(50);
    expect(text).not.toMatch(/\*|`|__|^#/m);
    const refs = await page
      .locator("#brief a[data-ref-kind]")
      .evaluateAll((els) => els.map((a) => a.getAttribute("href") ?? ""));
    expect(refs.length).toBeGreaterThan(0);
    for (const href of refs.filter((h) => h.startsWith("#"))) {
      expect(await page.locator(href).count(), href).toBe(1);
    }
  });

  it("creates, edits and deletes a scenario, and /forecast?scenarioId= follows each step", async () => {
    await page.goto(`${base}/settings/scenarios`);
    // A value the scenario commands refuse is refused here too, with the reason.
    await page.fill("#new-name", "Slow payers");
    await page.fill("#new-paymentLagDays", "400");
    await page.click("#create-scenario button[type=submit]");
    await expect(page.locator(".notice.error").textContent()).resolves.toContain(
      "paymentLagDays must be a whole number of days within ±365",
    );
    await page.fill("#new-name", "Slow payers");
    await page.fill("#new-paymentLagDays", "30");
    await page.click("#create-scenario button[type=submit]");
    await expect(page.locator(".notice.ok").textContent()).resolves.toContain("Scenario created");
    const section = page.locator("section.scenario", { hasText: "Slow payers" });
    const id = (await section.getAttribute("data-scenario-id")) ?? "";
    expect(id).toMatch(/^scn_/);
    const created = await api<{
      scenarioName: string;
      weeks: { closing: string }[];
    }>(`/forecast?scenarioId=${id}`);
    expect(created.scenarioName).toBe("Slow payers");
    const drawn = await section
      .locator("svg.versus circle[data-closing]")
      .evaluateAll((els) => els.map((e) => e.getAttribute("data-closing")));
    expect(drawn).toEqual(created.weeks.map((w) => money(w.closing).toString()));

    await section.locator("summary", { hasText: "Edit or delete" }).click();
    await page.fill(`#edit-${id}-name`, "Very slow payers");
    await page.fill(`#edit-${id}-paymentLagDays`, "60");
    await section.locator(`form[action$='${id}'] button[type=submit]`).click();
    await expect(page.locator(".notice.ok").textContent()).resolves.toContain("Scenario saved");
    const edited = await api<{ scenarioName: string }>(`/forecast?scenarioId=${id}`);
    expect(edited.scenarioName).toBe("Very slow payers");

    const again = page.locator(`#scenario-${id}`);
    await again.locator("summary", { hasText: "Edit or delete" }).click();
    await again.locator("input[name=confirm]").check();
    await again.locator("button.danger").click();
    await expect(page.locator(".notice.ok").textContent()).resolves.toContain("Scenario deleted");
    const gone = await fetch(`${base}/api/agent/forecast?scenarioId=${id}`, {
      headers: { Authorization: `Bearer ${key}` },
    });
    expect(gone.status).toBe(404);
  });

  it("moves the revenue summary's gross profit when an account leaves revenue", async () => {
    type Summary = { grossProfit: { revenue: string; costOfGoods: string } };
    const before = await api<Summary>("/revenue/summary");
    expect(money(before.grossProfit.revenue).greaterThan(0)).toBe(true);
    await page.goto(`${base}/settings/categories?q=Sales`);
    const row = page.locator("#categories tbody tr", { hasText: /^Sales/ }).first();
    await expect(row.locator("select[name=position]").inputValue()).resolves.toBe("default");
    await row.locator("select[name=included]").selectOption("no");
    await row.locator("button[type=submit]").click();
    await expect(page.locator(".notice.ok").textContent()).resolves.toMatch(
      /Saved Sales: excluded from burn, Revenue/,
    );
    const after = await api<Summary>("/revenue/summary");
    expect(money(after.grossProfit.revenue).lessThan(before.grossProfit.revenue)).toBe(true);
    // Back to the ledger's default: the figure returns exactly.
    const again = page.locator("#categories tbody tr", { hasText: /^Sales/ }).first();
    await again.locator("select[name=included]").selectOption("default");
    await again.locator("button[type=submit]").click();
    await page.locator(".notice.ok").waitFor();
    expect((await api<Summary>("/revenue/summary")).grossProfit.revenue).toBe(
      before.grossProfit.revenue,
    );
  });

  it("shows the ledger connection, the usage meter, and Free-plan members the Upgrade screen", async () => {
    await page.goto(`${base}/`);
    const ledger = (await page.locator("#ledger-connection").textContent()) ?? "";
    expect(ledger).toMatch(/last successful sync \d{4}-\d{2}-\d{2}/);
    expect(ledger).toContain("succeeded");

    await page.goto(`${base}/settings/billing`);
    const meter = page.locator("#seats meter").first();
    await expect(meter.getAttribute("max")).resolves.toBe("250");
    await expect(page.locator("#trial-days").textContent()).resolves.toMatch(/\d+ days left/);

    const [org] = await t.db
      .select({ billing: organisations.billingAccountId })
      .from(organisations)
      .where(eq(organisations.id, orgId));
    const account = org?.billing ?? "";
    await t.db.update(seats).set({ plan: "Free" }).where(eq(seats.billingAccountId, account));
    try {
      for (const path of ["/", "/settings/scenarios"]) {
        await page.goto(`${base}${path}`);
        await expect(page.locator("#upgrade").textContent()).resolves.toContain("Free");
        expect(await page.locator("#forecast").count()).toBe(0);
      }
      // Settings stay open on Free.
      await page.goto(`${base}/settings/keys`);
      expect(await page.locator("#upgrade").count()).toBe(0);
    } finally {
      await t.db.update(seats).set({ plan: "Wallet" }).where(eq(seats.billingAccountId, account));
    }
  });

  it("pages the sensitive-data page's lists, and asks before the session's first flag change", async () => {
    await page.goto(`${base}/settings/sensitive`);
    expect(await page.locator("#account-flags tbody tr").count()).toBeLessThanOrEqual(25);
    await expect(page.locator("#account-pager").textContent()).resolves.toMatch(/page 1 of \d+/);
    const height = await page.evaluate(
      () =>
        (globalThis as unknown as { document: { documentElement: { scrollHeight: number } } })
          .document.documentElement.scrollHeight,
    );
    console.info(`[owner-screens] /settings/sensitive is ${height} px tall at 1280 px`);
    expect(height).toBeLessThan(4900);
    await page.fill("#account-search input[name=aq]", "Sales");
    await Promise.all([
      page.waitForURL((u) => u.searchParams.get("aq") === "Sales"),
      page.click("#account-search button[type=submit]"),
    ]);
    const row = page.locator("#account-flags tbody tr", { hasText: "Sales" }).first();
    const id = (await row.getAttribute("data-id")) ?? "";
    await row.locator("button").click();
    await page.locator("#confirm-sensitive").waitFor();
    await page.locator("#confirm-sensitive a", { hasText: "Cancel" }).click();
    await page.waitForURL((u) => u.pathname === "/settings/sensitive");
    await expect(
      page.locator(`#account-flags tr[data-id="${id}"] .chip.off`).count(),
    ).resolves.toBe(1);
  });

  it("fits a 390 px phone on every page, without sideways scrolling", async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      for (const path of PAGES) {
        await page.goto(`${base}${path}`);
        const { scroll, width } = await page.evaluate(() => {
          const g = globalThis as unknown as {
            document: { documentElement: { scrollWidth: number } };
            innerWidth: number;
          };
          return { scroll: g.document.documentElement.scrollWidth, width: g.innerWidth };
        });
        expect(scroll, path).toBeLessThanOrEqual(width);
      }
    } finally {
      await page.setViewportSize({ width: 1280, height: 860 });
    }
  });
});
