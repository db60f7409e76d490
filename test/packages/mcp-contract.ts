import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { expect } from "vitest";

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
