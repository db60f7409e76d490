import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { Scalar } from "@scalar/hono-api-reference";
import type { Hono } from "hono";
import type { AppEnv } from "../http/env.ts";

/** Where the reference lives, its document, and Scalar's bundle served from this server. */
export const DOCS_PATH = "/docs";
const DOCS_DOCUMENT_PATH = "/docs/openapi.json";
const SCALAR_BUNDLE_PATH = "/docs/assets/scalar-api-reference.js";

/**
 * `GET /docs`: the API reference, rendered by Scalar from the agent API's own OpenAPI document,
 * with "Connect an agent" (MCP for Claude Desktop, Cursor and Streamable HTTP clients, the typed
 * client, the CLI) at its top. Public, like the document.
 *
 * Nothing is loaded from another origin: Scalar's standalone bundle is served from the installed
 * `@scalar/api-reference` package, its web fonts are off, and the page's Content-Security-Policy
 * allows this origin only (scripts by nonce), so a later Scalar release that reached for a CDN
 * would be blocked rather than followed.
 */
export function registerApiReference(
  app: Hono<AppEnv>,
  opts: { agentDocument: () => Promise<Record<string, unknown>> },
): void {
  let bundle: Promise<string> | undefined;
  app.get(SCALAR_BUNDLE_PATH, async (c) => {
    // The package exports no path to its standalone bundle; it sits beside its entry point.
    const entry = createRequire(import.meta.url).resolve("@scalar/api-reference");
    bundle ??= readFile(join(dirname(entry), "browser", "standalone.js"), "utf8");
    c.header("Content-Type", "text/javascript; charset=utf-8");
    c.header("Cache-Control", "public, max-age=86400");
    c.header("X-Content-Type-Options", "nosniff");
    return c.body(await bundle);
  });

  app.get(DOCS_DOCUMENT_PATH, async (c) => {
    const origin = new URL(c.req.url).origin;
    const document = await opts.agentDocument();
    const info = (document.info ?? {}) as Record<string, unknown>;
    return c.json({
      ...document,
      servers: [{ url: origin, description: "This server" }],
      info: {
        ...info,
        description: `${connectSection(origin)}\n\n${String(info.description ?? "")}`,
      },
    });
  });

  app.get(DOCS_PATH, async (c, next) => {
    const nonce = randomBytes(16).toString("base64");
    const page = Scalar<AppEnv>({
      url: DOCS_DOCUMENT_PATH,
      cdn: SCALAR_BUNDLE_PATH,
      pageTitle: "Cash Runway agent API reference",
      withDefaultFonts: false,
      // Scalar's hosted extras (its AI chat, SDK generation, MCP hosting) call scalar.com.
      showDeveloperTools: "never",
      mcp: { disabled: true },
      agent: { disabled: true },
      nonce,
    });
    const res = (await page(c, next)) as Response;
    res.headers.set(
      "Content-Security-Policy",
      [
        "default-src 'self'",
        `script-src 'nonce-${nonce}'`,
        // Scalar sets styles at run time.
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data:",
        "font-src 'self' data:",
        "connect-src 'self'",
        "frame-ancestors 'none'",
        "base-uri 'none'",
      ].join("; "),
    );
    res.headers.set("X-Content-Type-Options", "nosniff");
    return res;
  });
}

/** The "Connect an agent" section: MCP configuration snippets for this server's origin. */
export function connectSection(origin: string): string {
  const token = "cr_live_…";
  const stdio = {
    mcpServers: {
      cashrunway: {
        command: "npx",
        args: ["-y", "@cashrunway/mcp"],
        env: { CASHRUNWAY_TOKEN: token, CASHRUNWAY_URL: origin },
      },
    },
  };
  const remote = {
    mcpServers: {
      cashrunway: { url: `${origin}/mcp`, headers: { Authorization: `Bearer ${token}` } },
    },
  };
  const json = (v: unknown) => JSON.stringify(v, null, 2);
  return [
    "## Connect an agent",
    "",
    "Create a key under **Settings → API keys** with the narrowest scopes that answer your " +
      "questions (`READ_SUMMARY` is the usual start). The MCP tools are this API's endpoints, one " +
      "each, listed for the key's scopes; a tool call is an API request in every respect (scope, " +
      "organisation, one query credit, audit).",
    "",
    "**Claude Desktop** (`claude_desktop_config.json`), the stdio server from npm:",
    "",
    "```json",
    json(stdio),
    "```",
    "",
    "**Cursor** (`~/.cursor/mcp.json`): the same `mcpServers` entry, or this server's Streamable " +
      "HTTP endpoint directly:",
    "",
    "```json",
    json(remote),
    "```",
    "",
    "**Any Streamable HTTP client** (MCP TypeScript SDK):",
    "",
    "```ts",
    'import { Client } from "@modelcontextprotocol/sdk/client/index.js";',
    'import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";',
    "",
    `const transport = new StreamableHTTPClientTransport(new URL("${origin}/mcp"), {`,
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the snippet's own template string
    "  requestInit: { headers: { Authorization: `Bearer ${process.env.CASHRUNWAY_TOKEN}` } },",
    "});",
    'const client = new Client({ name: "my-agent", version: "1.0.0" });',
    "await client.connect(transport);",
    'const { structuredContent } = await client.callTool({ name: "revenue_summary", arguments: {} });',
    "```",
    "",
    "**TypeScript** (`npm install @cashrunway/client`):",
    "",
    "```ts",
    'import { CashRunwayClient } from "@cashrunway/client";',
    "",
    `const runway = new CashRunwayClient({ token: process.env.CASHRUNWAY_TOKEN!, baseUrl: "${origin}" });`,
    'const summary = await runway.get("/api/agent/revenue/summary", { query: { topN: 5 } });',
    'for await (const invoice of runway.items("/api/agent/invoices", { query: { status: "AUTHORISED" } })) {',
    "  console.log(invoice.invoiceNumber, invoice.amount);",
    "}",
    "```",
    "",
    "**Command line** (`npm install -g @cashrunway/cli`):",
    "",
    "```sh",
    `runway auth login --token ${token} --url ${origin}`,
    "runway revenue summary --top-n 5",
    "runway invoices list --status AUTHORISED --json",
    "```",
  ].join("\n");
}
