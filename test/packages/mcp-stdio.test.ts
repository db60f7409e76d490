import type { ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOrganisation } from "../../src/services/orgs/create-organisation.ts";
import { createTestKey, getJson } from "../helpers/api.ts";
import { orgWithKey } from "../helpers/metering.ts";
import { testDriver } from "../helpers/test-db.ts";
import {
  callEveryTool,
  errorDetails,
  expectedTools,
  expectMatchesOutputSchema,
  type McpSession,
  textOf,
} from "./mcp-contract.ts";
import {
  ALL_SCOPES,
  auditCount,
  type DemoWorld,
  demoWorld,
  type Served,
  serve,
  WORLD_NOW,
} from "./world.ts";

const REPO = fileURLToPath(new URL("../..", import.meta.url));

/**
 * The SDK's own client driving `cashrunway-mcp` (packages/mcp, run from its sources) over stdio,
 * against the real application served on a loopback port with real metering.
 */
async function stdioSession(served: Served, token: string): Promise<McpSession> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ["--conditions=@cashrunway/source", "--import", "tsx", "packages/mcp/src/main.ts"],
    cwd: REPO,
    env: {
      PATH: process.env.PATH ?? "",
      CASHRUNWAY_TOKEN: token,
      CASHRUNWAY_URL: served.url,
    },
    stderr: "pipe",
  });
  const client = new Client({ name: "stdio-test", version: "1.0.0" });
  await client.connect(transport);
  // The transport parses stdout itself; a second listener sees the same raw chunks.
  const child = (transport as unknown as { _process: ChildProcess })._process;
  const chunks: Buffer[] = [];
  child.stdout?.on("data", (chunk: Buffer) => chunks.push(chunk));
  return {
    client,
    received: () => Buffer.concat(chunks),
    close: () => client.close(),
  };
}

describe(`cashrunway-mcp over stdio (${testDriver})`, () => {
  let w: DemoWorld;
  let served: Served;
  beforeAll(async () => {
    w = await demoWorld();
    served = await serve(w.t.app);
  }, 240_000);
  afterAll(() => served?.close());

  it("lists exactly the tools the key's scopes allow, summaries first, read-only", async () => {
    for (const scopes of [
      ALL_SCOPES,
      ["READ_SUMMARY"],
      ["READ_INVOICES", "READ_CONTACTS"],
      ["READ_BANK"],
    ] as const) {
      const s = await stdioSession(served, await w.key(scopes));
      try {
        const { tools } = await s.client.listTools();
        expect(tools.map((t) => t.name)).toEqual(expectedTools(scopes));
        for (const tool of tools) {
          expect(tool.annotations).toMatchObject({
            readOnlyHint: true,
            idempotentHint: true,
            openWorldHint: false,
          });
          expect(tool.inputSchema.properties ?? {}).not.toHaveProperty("orgId");
          expect(tool.outputSchema?.type).toBe("object");
        }
      } finally {
        await s.close();
      }
    }
    const all = expectedTools(ALL_SCOPES);
    expect(all.slice(0, 3)).toEqual(["revenue_summary", "expenses_summary", "contacts_summary"]);
    expect(all).toHaveLength(21);
  });

  it("calls every tool against the demo organisation; structuredContent matches outputSchema", async () => {
    const s = await stdioSession(served, await w.key());
    try {
      const { tools } = await s.client.listTools();
      const results = await callEveryTool(s.client, tools);
      expect([...results.keys()].sort()).toEqual(tools.map((t) => t.name).sort());
      for (const tool of tools) {
        const result = results.get(tool.name) as CallToolResult;
        expect(result.isError ?? false, `${tool.name}: ${textOf(result)}`).toBe(false);
        expectMatchesOutputSchema(tool, result.structuredContent);
        expect(textOf(result).length).toBeGreaterThan(10);
      }
      // The structured content is the endpoint's body.
      const direct = await getJson(
        w.t.app,
        "/api/agent/revenue/summary",
        await w.key(["READ_SUMMARY"]),
      );
      expect(results.get("revenue_summary")?.structuredContent).toEqual(direct.body);
      // A list page says how to go on.
      expect(textOf(results.get("invoices_list") as CallToolResult)).toMatch(
        /of \d+ invoices.*\n[\s\S]*cursor=/,
      );
    } finally {
      await s.close();
    }
  });

  it("never shows a sensitive contact to a key without READ_SENSITIVE (raw bytes)", async () => {
    const plain = await stdioSession(served, await w.key());
    const sensitive = await stdioSession(served, await w.key(ALL_SCOPES, { sensitive: true }));
    try {
      for (const s of [plain, sensitive]) {
        const { tools } = await s.client.listTools();
        await callEveryTool(s.client, tools);
        await s.client.callTool({ name: "contacts_get", arguments: { id: w.canary.externalId } });
        await s.client.callTool({
          name: "invoices_list",
          arguments: { contactId: w.canary.externalId, limit: 50 },
        });
      }
      const plainBytes = plain.received();
      expect(plainBytes.length).toBeGreaterThan(50_000);
      for (const canary of [w.canary.name, w.canary.externalId]) {
        expect(plainBytes.includes(Buffer.from(canary)), canary).toBe(false);
      }
      // The scan can fail: the same calls with READ_SENSITIVE show the contact.
      expect(sensitive.received().includes(Buffer.from(w.canary.name))).toBe(true);
      expect(sensitive.received().includes(Buffer.from(w.canary.externalId))).toBe(true);
    } finally {
      await plain.close();
      await sensitive.close();
    }
  });

  it("a Free-plan key gets ten calls, HTTP and MCP alike, then credits_exhausted with retryAfterSeconds", async () => {
    const { key } = await orgWithKey(w.db, {
      plan: "Free",
      scopes: ["READ_SUMMARY"],
      now: WORLD_NOW,
    });
    for (let i = 0; i < 4; i++) {
      const r = await fetch(`${served.url}/api/agent/contacts/summary`, {
        headers: { Authorization: `Bearer ${key.key}` },
      });
      expect(r.status).toBe(200);
    }
    const s = await stdioSession(served, key.key);
    try {
      expect((await s.client.listTools()).tools.length).toBeGreaterThan(0);
      for (let i = 0; i < 6; i++) {
        const r = (await s.client.callTool({
          name: "contacts_summary",
          arguments: {},
        })) as CallToolResult;
        expect(r.isError ?? false, textOf(r)).toBe(false);
      }
      const spent = (await s.client.callTool({
        name: "revenue_summary",
        arguments: {},
      })) as CallToolResult;
      const details = errorDetails(spent);
      expect(details).toMatchObject({ error: "credits_exhausted", status: 429 });
      expect(details.retryAfterSeconds).toEqual(expect.any(Number));
      expect(details.retryAfterSeconds as number).toBeGreaterThan(0);
      expect(textOf(spent)).toMatch(/What to do: .*do not retry before then/i);
      // status_get is free, and says so.
      const status = (await s.client.callTool({
        name: "status_get",
        arguments: {},
      })) as CallToolResult;
      expect(status.structuredContent).toMatchObject({ usage: { remaining: 0 } });
    } finally {
      await s.close();
    }
    const http = await fetch(`${served.url}/api/agent/contacts/summary`, {
      headers: { Authorization: `Bearer ${key.key}` },
    });
    expect(http.status).toBe(429);
    expect(await http.json()).toMatchObject({ error: "credits_exhausted" });
  });

  it("a multi-organisation key must pass orgId, and cannot reach outside its organisations", async () => {
    const ownerEmail = `multi-stdio-${w.orgId}@example.test`;
    const one = await createOrganisation(w.db, { name: "Stdio One", ownerEmail }, WORLD_NOW);
    const two = await createOrganisation(w.db, { name: "Stdio Two", ownerEmail }, WORLD_NOW);
    const stranger = await createOrganisation(w.db, { name: "Stranger" }, WORLD_NOW);
    const key = await createTestKey(
      w.db,
      {
        kind: "USER",
        userId: one.ownerUserId,
        label: "multi",
        scopes: ["READ_SUMMARY", "READ_BANK"],
      },
      WORLD_NOW,
    );
    const s = await stdioSession(served, key.key);
    try {
      const { tools } = await s.client.listTools();
      expect(tools.map((t) => t.name)).toEqual(expectedTools(["READ_SUMMARY", "READ_BANK"]));
      for (const tool of tools) {
        expect(tool.inputSchema.required).toContain("orgId");
        const orgId = tool.inputSchema.properties?.orgId as { description?: string } | undefined;
        expect(orgId?.description).toContain(two.id);
      }
      const without = (await s.client.callTool({
        name: "bank_accounts_list",
        arguments: {},
      })) as CallToolResult;
      expect(errorDetails(without)).toMatchObject({ error: "org_required", status: 400 });
      const outside = (await s.client.callTool({
        name: "bank_accounts_list",
        arguments: { orgId: stranger.id },
      })) as CallToolResult;
      expect(errorDetails(outside)).toMatchObject({ error: "forbidden", status: 403 });
      const inside = (await s.client.callTool({
        name: "bank_accounts_list",
        arguments: { orgId: two.id },
      })) as CallToolResult;
      expect(inside.isError ?? false, textOf(inside)).toBe(false);
      expect(inside.structuredContent).toMatchObject({ accounts: [] });
    } finally {
      await s.close();
    }
  });

  it("leaves one audit row per tool call", async () => {
    const key = await w.key(["READ_SUMMARY", "READ_CONTACTS"]);
    const s = await stdioSession(served, key);
    try {
      await s.client.listTools();
      const before = await auditCount(w.db, key);
      await s.client.callTool({ name: "contacts_summary", arguments: {} });
      await s.client.callTool({ name: "contacts_get", arguments: { id: "no-such-contact" } });
      await s.client.callTool({ name: "cohorts_summary", arguments: {} });
      expect(await auditCount(w.db, key)).toBe(before + 3);
    } finally {
      await s.close();
    }
  });
});
