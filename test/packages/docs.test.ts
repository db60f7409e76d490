import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebClient } from "../e2e/web-client.ts";
import { FIXTURE_PASSWORD, webOrg } from "../e2e/web-fixtures.ts";
import { TEST_NOW, type TestApp, testApp } from "../helpers/api.ts";
import { testDriver } from "../helpers/test-db.ts";
import { type Served, serve } from "./world.ts";

const CHROMIUM = "/usr/bin/chromium";

describe(`/docs, the API reference (${testDriver})`, () => {
  let t: TestApp;
  let served: Served | undefined;
  beforeAll(async () => {
    t = await testApp();
    if (existsSync(CHROMIUM)) served = await serve(t.app);
  });
  afterAll(() => served?.close());

  it("renders the agent API's own document with Scalar, loading nothing from another origin", async () => {
    const res = await t.app.request("http://runway.example/docs");
    expect(res.status).toBe(200);
    const html = await res.text();
    const csp = res.headers.get("content-security-policy") ?? "";
    const nonce = /'nonce-([^']+)'/.exec(csp)?.[1];
    expect(nonce).toBeDefined();
    expect(html).toContain(`<script src="/docs/assets/scalar-api-reference.js" nonce="${nonce}">`);
    expect(html).toContain('"url": "/docs/openapi.json"');
    expect(html).not.toMatch(/https?:\/\//);
    expect(csp).toMatch(/default-src 'self'/);
    expect(csp).toMatch(/connect-src 'self'/);

    const bundle = await t.app.request("/docs/assets/scalar-api-reference.js");
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get("content-type")).toMatch(/javascript/);
    expect((await bundle.text()).length).toBeGreaterThan(1_000_000);

    type Doc = {
      paths: unknown;
      components: unknown;
      servers: unknown;
      info: { description: string };
    };
    const served = (await (await t.app.request("/api/agent/openapi.json")).json()) as Doc;
    const shown = (await (
      await t.app.request("http://runway.example/docs/openapi.json")
    ).json()) as Doc;
    expect(shown.paths).toEqual(served.paths);
    expect(shown.components).toEqual(served.components);
    expect(shown.servers).toEqual([{ url: "http://runway.example", description: "This server" }]);
    const description = shown.info.description;
    for (const snippet of [
      "## Connect an agent",
      "**Claude Desktop**",
      '"args": [\n        "-y",\n        "@cashrunway/mcp"',
      '"CASHRUNWAY_URL": "http://runway.example"',
      "**Cursor**",
      '"url": "http://runway.example/mcp"',
      "StreamableHTTPClientTransport",
      "runway auth login",
    ]) {
      expect(description).toContain(snippet);
    }
    expect(description).toContain(served.info.description);
  });

  it("is linked from the settings screen's API-keys page", async () => {
    const { owner } = await webOrg(t.db, TEST_NOW);
    const client = new WebClient(t.app);
    expect((await client.signIn(owner.email, FIXTURE_PASSWORD)).status).toBe(303);
    const keys = await client.get("/settings/keys");
    expect(keys.status).toBe(200);
    expect(client.lastHtml).toMatch(/<a href="\/docs" id="api-reference-link">/);
  });

  describe.skipIf(!existsSync(CHROMIUM))("in headless Chromium", () => {
    it("shows every operation and requests nothing outside the origin", async () => {
      const dir = mkdtempSync(join(tmpdir(), "cr-docs-chromium-"));
      const context = await chromium.launchPersistentContext(dir, {
        executablePath: CHROMIUM,
        headless: true,
        args: [
          "--headless",
          "--no-sandbox",
          "--disable-gpu",
          "--no-first-run",
          "--disable-background-networking",
        ],
      });
      try {
        const requested: string[] = [];
        const page = await context.newPage();
        page.on("request", (r) => requested.push(r.url()));
        // A request the page's CSP blocks never reaches the network: Chromium reports it here.
        const refused: string[] = [];
        page.on("console", (m) => {
          if (/Content Security Policy|Refused to/i.test(m.text())) refused.push(m.text());
        });
        const origin = served?.url ?? "";
        await page.goto(`${origin}/docs`);
        await page.getByText("Connect an agent").first().waitFor({ timeout: 30_000 });
        await page
          .getByText("List the organisations this key can reach")
          .first()
          .waitFor({ timeout: 30_000 });
        expect(requested.length).toBeGreaterThan(1);
        expect(requested.filter((u) => !u.startsWith(origin) && !u.startsWith("data:"))).toEqual(
          [],
        );
        expect(refused).toEqual([]);
        if (process.env.DOCS_SCREENSHOT)
          await page.screenshot({ path: process.env.DOCS_SCREENSHOT });
      } finally {
        await context.close();
        rmSync(dir, { recursive: true, force: true });
      }
    }, 60_000);
  });
});
