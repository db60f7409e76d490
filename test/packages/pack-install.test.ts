import { execFile } from "node:child_process";
import { mkdtemp, readdir, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testDriver } from "../helpers/test-db.ts";
import { ALL_SCOPES, type DemoWorld, demoWorld, type Served, serve } from "./world.ts";

const run = promisify(execFile);
const REPO = fileURLToPath(new URL("../..", import.meta.url));
const PACKAGES = ["@cashrunway/client", "@cashrunway/mcp", "@cashrunway/cli"];

/**
 * Each package as a user gets it: `npm pack` (which builds it), then installed from the tarballs
 * alone into an empty folder, away from this repository, and run against a live server. Their
 * dependencies come from npm's cache (filled by `npm ci`), so no registry is needed when warm.
 */
describe(`the packages install from their npm pack tarballs and run (${testDriver})`, () => {
  let w: DemoWorld;
  let served: Served;
  let folder: string;
  let token: string;
  const bin = (name: string) => join(folder, "node_modules", ".bin", name);

  beforeAll(async () => {
    w = await demoWorld();
    served = await serve(w.t.app);
    token = await w.key(ALL_SCOPES);
    const packed = await mkdtemp(join(tmpdir(), "cr-packed-"));
    await run(
      "npm",
      ["pack", "--pack-destination", packed, ...PACKAGES.flatMap((p) => ["-w", p])],
      { cwd: REPO, maxBuffer: 16 * 1024 * 1024 },
    );
    const tarballs = (await readdir(packed)).filter((f) => f.endsWith(".tgz"));
    expect(tarballs.sort()).toEqual([
      "cashrunway-cli-0.1.0.tgz",
      "cashrunway-client-0.1.0.tgz",
      "cashrunway-mcp-0.1.0.tgz",
    ]);
    folder = await mkdtemp(join(tmpdir(), "cr-empty-"));
    await writeFile(join(folder, "package.json"), '{ "name": "empty", "private": true }\n');
    await run(
      "npm",
      [
        "install",
        "--prefer-offline",
        "--no-audit",
        "--no-fund",
        "--ignore-scripts",
        ...tarballs.map((t) => join(packed, t)),
      ],
      { cwd: folder, maxBuffer: 16 * 1024 * 1024 },
    );
  }, 600_000);
  afterAll(() => served?.close());

  it("ship only their built code (no server code, no sources)", async () => {
    for (const name of PACKAGES) {
      const root = join(folder, "node_modules", name);
      const files = await readdir(root);
      expect(
        files.every((f) =>
          ["bin", "dist", "package.json", "README.md", "openapi.json"].includes(f),
        ),
        `${name}: ${files}`,
      ).toBe(true);
      const manifest = JSON.parse(await readFile(join(root, "package.json"), "utf8"));
      expect(Object.keys(manifest.dependencies ?? {})).not.toContain("cashrunway");
    }
  }, 180_000);

  it("@cashrunway/client reads the API", async () => {
    const script = [
      'import { CashRunwayClient } from "@cashrunway/client";',
      `const c = new CashRunwayClient({ token: process.env.T, baseUrl: process.env.U });`,
      'const s = await c.get("/api/agent/status");',
      'let n = 0; for await (const i of c.items("/api/agent/invoices", { query: { limit: 100 } })) n++;',
      "console.log(JSON.stringify({ scopes: s.key.scopes, invoices: n }));",
    ].join("\n");
    await writeFile(join(folder, "client.mjs"), script);
    const { stdout } = await run(process.execPath, ["client.mjs"], {
      cwd: folder,
      env: { PATH: process.env.PATH ?? "", T: token, U: served.url },
    });
    const out = JSON.parse(stdout);
    expect(out.scopes).toEqual(ALL_SCOPES);
    expect(out.invoices).toBeGreaterThan(300);
  }, 180_000);

  it("cashrunway-mcp serves the tools over stdio", async () => {
    const transport = new StdioClientTransport({
      command: bin("cashrunway-mcp"),
      cwd: folder,
      env: { PATH: process.env.PATH ?? "", CASHRUNWAY_TOKEN: token, CASHRUNWAY_URL: served.url },
      stderr: "pipe",
    });
    const client = new Client({ name: "pack-test", version: "1.0.0" });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.slice(0, 3).map((t) => t.name)).toEqual([
        "revenue_summary",
        "expenses_summary",
        "contacts_summary",
      ]);
      const r = (await client.callTool({
        name: "revenue_summary",
        arguments: {},
      })) as CallToolResult;
      expect(r.isError ?? false).toBe(false);
      expect(r.structuredContent).toMatchObject({ currency: "AUD" });
    } finally {
      await client.close();
    }
  }, 180_000);

  it("runway logs in and reads", async () => {
    const env = {
      PATH: process.env.PATH ?? "",
      CASHRUNWAY_CONFIG: join(folder, "runway.json"),
    };
    await run(bin("runway"), ["auth", "login", "--token", token, "--url", served.url], {
      cwd: folder,
      env,
    });
    const { stdout } = await run(bin("runway"), ["cash", "position", "--json"], {
      cwd: folder,
      env,
    });
    expect(JSON.parse(stdout)).toMatchObject({ currency: "AUD" });
    const refused = await run(bin("runway"), ["status", "--token", "cr_live_nope"], {
      cwd: folder,
      env,
    }).catch((e: { code: number }) => e);
    expect((refused as { code: number }).code).toBe(3);
  }, 180_000);
});
