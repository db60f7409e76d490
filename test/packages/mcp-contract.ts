import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOrganisation } from "../../src/services/orgs/create-organisation.ts";
import { createTestKey, getJson } from "../helpers/api.ts";
import { orgWithKey } from "../helpers/metering.ts";
import { testDriver } from "../helpers/test-db.ts";
import {
  ALL_SCOPES,
  auditCount,
  type DemoWorld,
  demoWorld,
  type Served,
  serve,
  WORLD_NOW,
} from "./world.ts";

/** An MCP client session under test, with every byte the server sent it. */
export interface McpSession {
  client: Client;
  /** The raw bytes received from the server so far (stdout, or HTTP response bodies). */
  received(): Buffer;
  close(): Promise<void>;
}

/** Each tool's required scope, as the spec's endpoint table gives them (null: any valid key). */
export const TOOL_SCOPES: Record<string, string | null> = {
  revenue_summary: "READ_SUMMARY",
  expenses_summary: "READ_SUMMARY",
  contacts_summary: "READ_SUMMARY",
  daily_summary: "READ_SUMMARY",
  cash_position_get: "READ_FORECAST",
  forecast_get: "READ_FORECAST",
  bank_accounts_list: "READ_BANK",
  invoices_list: "READ_INVOICES",
  bills_list: "READ_INVOICES",
  contacts_list: "READ_CONTACTS",
  contacts_get: "READ_CONTACTS",
  credit_notes_list: "READ_INVOICES",
  credit_notes_get: "READ_INVOICES",
  purchase_orders_list: "READ_PURCHASE_ORDERS",
  purchase_orders_get: "READ_PURCHASE_ORDERS",
  account_balances_get: "READ_ACCOUNTS",
  cohorts_summary: "READ_SUMMARY",
  cohorts_retention: "READ_SUMMARY",
  daily_brief_get: null,
  orgs_list: null,
  status_get: null,
};

/** The tool names a key with `scopes` must be offered, in the catalogue's order. */
export function expectedTools(scopes: readonly string[]): string[] {
  return Object.entries(TOOL_SCOPES)
    .filter(([, scope]) => scope === null || scopes.includes(scope))
    .map(([name]) => name);
}

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);

/** Fails with the errors when `value` does not match the tool's output schema. */
export function expectMatchesOutputSchema(tool: Tool, value: unknown): void {
  expect(tool.outputSchema, `${tool.name} has an outputSchema`).toBeDefined();
  const validate = ajv.compile(tool.outputSchema as object);
  const ok = validate(value);
  expect(ok, `${tool.name}: ${JSON.stringify(validate.errors?.slice(0, 3))}`).toBe(true);
}

/** The text of a tool result's first content block. */
export function textOf(result: CallToolResult): string {
  const first = result.content[0];
  return first && first.type === "text" ? first.text : "";
}

/** The JSON details line of a tool error (its second line). */
export function errorDetails(result: CallToolResult): Record<string, unknown> {
  expect(result.isError, textOf(result)).toBe(true);
  return JSON.parse(textOf(result).split("\n")[1] ?? "{}") as Record<string, unknown>;
}

/**
 * Arguments that make every tool answer 200 on the demo organisation: the drills take an id
 * from their list's first row (so the lists are called first).
 */
export async function callEveryTool(
  client: Client,
  tools: Tool[],
  extra: Record<string, unknown> = {},
): Promise<Map<string, CallToolResult>> {
  const results = new Map<string, CallToolResult>();
  const firstId = (tool: string, member: string) => {
    const body = results.get(tool)?.structuredContent as Record<string, { id: string }[]>;
    const id = body?.[member]?.[0]?.id;
    expect(id, `${tool} returned a row to drill into`).toBeDefined();
    return id;
  };
  const drills: Record<string, () => Record<string, unknown>> = {
    contacts_get: () => ({ id: firstId("contacts_list", "contacts") }),
    credit_notes_get: () => ({ id: firstId("credit_notes_list", "creditNotes") }),
    purchase_orders_get: () => ({ id: firstId("purchase_orders_list", "purchaseOrders") }),
  };
  const ordered = [
    ...tools.filter((t) => !(t.name in drills)),
    ...tools.filter((t) => t.name in drills),
  ];
  for (const tool of ordered) {
    const args = { ...extra, ...(drills[tool.name]?.() ?? {}) };
    results.set(
      tool.name,
      (await client.callTool({ name: tool.name, arguments: args })) as CallToolResult,
    );
  }
  return results;
}

/**
 * The behaviour every transport of the MCP server must show, driven by the SDK's own client over
 * `open`'s transport against the real application (real metering) on a loopback port.
 */
/** Spawning servers and clients on a loaded 2-CPU machine takes seconds per session. */
const HEAVY = 180_000;

export function describeMcpContract(
  label: string,
  open: (served: Served, token: string) => Promise<McpSession>,
): void {
  describe(`${label} (${testDriver})`, () => {
    let w: DemoWorld;
    let served: Served;
    beforeAll(async () => {
      w = await demoWorld();
      served = await serve(w.t.app);
    }, 240_000);
    afterAll(() => served?.close());

    it(
      "lists exactly the tools the key's scopes allow, summaries first, read-only",
      async () => {
        for (const scopes of [
          ALL_SCOPES,
          ["READ_SUMMARY"],
          ["READ_INVOICES", "READ_CONTACTS"],
          ["READ_BANK"],
        ] as const) {
          const s = await open(served, await w.key(scopes));
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
        expect(all.slice(0, 3)).toEqual([
          "revenue_summary",
          "expenses_summary",
          "contacts_summary",
        ]);
        expect(all).toHaveLength(21);
      },
      HEAVY,
    );

    it(
      "calls every tool against the demo organisation; structuredContent matches outputSchema",
      async () => {
        const s = await open(served, await w.key());
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
      },
      HEAVY,
    );

    it(
      "never shows a sensitive contact to a key without READ_SENSITIVE (raw bytes)",
      async () => {
        const plain = await open(served, await w.key());
        const sensitive = await open(served, await w.key(ALL_SCOPES, { sensitive: true }));
        try {
          for (const s of [plain, sensitive]) {
            const { tools } = await s.client.listTools();
            await callEveryTool(s.client, tools);
            await s.client.callTool({
              name: "contacts_get",
              arguments: { id: w.canary.externalId },
            });
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
      },
      HEAVY,
    );

    it(
      "a Free-plan key gets ten calls, HTTP and MCP alike, then credits_exhausted with retryAfterSeconds",
      async () => {
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
        const s = await open(served, key.key);
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
      },
      HEAVY,
    );

    it(
      "a multi-organisation key must pass orgId, and cannot reach outside its organisations",
      async () => {
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
        const s = await open(served, key.key);
        try {
          const { tools } = await s.client.listTools();
          expect(tools.map((t) => t.name)).toEqual(expectedTools(["READ_SUMMARY", "READ_BANK"]));
          for (const tool of tools) {
            expect(tool.inputSchema.required).toContain("orgId");
            const orgId = tool.inputSchema.properties?.orgId as
              | { description?: string }
              | undefined;
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
      },
      HEAVY,
    );

    it(
      "leaves one audit row per tool call",
      async () => {
        const key = await w.key(["READ_SUMMARY", "READ_CONTACTS"]);
        const s = await open(served, key);
        try {
          await s.client.listTools();
          const before = await auditCount(w, key);
          await s.client.callTool({ name: "contacts_summary", arguments: {} });
          await s.client.callTool({ name: "contacts_get", arguments: { id: "no-such-contact" } });
          await s.client.callTool({ name: "cohorts_summary", arguments: {} });
          expect(await auditCount(w, key)).toBe(before + 3);
        } finally {
          await s.close();
        }
      },
      HEAVY,
    );
  });
}
