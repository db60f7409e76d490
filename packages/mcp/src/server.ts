import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListToolsRequestSchema,
  McpError,
} from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import type { Body } from "./catalogue.ts";
import { type AgentError, errorText } from "./errors.ts";
import { getPrompt, listPrompts } from "./prompts.ts";
import type { AgentTool, McpTool, OrgChoice } from "./tools.ts";

/** This package's version, reported as the server's. */
export const MCP_VERSION = "0.1.0";

/** What the key can do: its scopes, and whether it reaches several organisations. */
export interface Reach {
  scopes: readonly string[];
  /** True when the key reaches several organisations: every tool then takes `orgId`. */
  multiOrg: boolean;
  /** The organisations, when known (offered in the `orgId` description). */
  orgs?: readonly OrgChoice[];
}

/** One call of an agent endpoint, as a tool makes it. */
export interface AgentCall {
  tool: AgentTool;
  /** Path parameters besides `orgId` (`{ id }`). */
  pathParams: Record<string, string>;
  /** Query parameters, as the API reads them (strings, or a list for a repeated one). */
  query: Record<string, string | string[]>;
  /** The organisation named by the call, if any. */
  orgId: string | undefined;
}

export type AgentAnswer = { ok: true; body: Body } | { ok: false; error: AgentError };

/**
 * Where tool calls go: the HTTP API through @cashrunway/client (the stdio server), or the
 * service's own agent request pipeline (its /mcp endpoint).
 */
export interface AgentBackend {
  /** The key's scopes and reach; called for every `tools/list` and `prompts/list`. */
  reach(): Promise<Reach>;
  call(call: AgentCall): Promise<AgentAnswer>;
}

/**
 * One JSON Schema validator for every server: the SDK would compile a new Ajv instance (with its
 * formats) for each `Server`, and the Streamable HTTP endpoint makes a server per request. It is
 * used only to check elicitation answers, which these servers never ask for.
 */
const sharedValidator = new AjvJsonSchemaValidator();

export const SERVER_INSTRUCTIONS =
  "Cash Runway: read-only cash data of a business (bank balances, cash position, the 13-week " +
  "cash forecast, receivables, payables, contacts, summaries). Prefer the summary tools " +
  "(revenue_summary, expenses_summary, contacts_summary, daily_summary) over paging through " +
  "records: they answer most questions in one call. Amounts are exact decimal strings in the " +
  "organisation's currency: quote them, do not re-add pages. Every tool but status_get uses one " +
  "query credit from a rolling 5-hour allowance, so call what you need once.";

/**
 * An MCP server (the SDK's low-level `Server`: the tools' JSON Schemas come from the OpenAPI
 * document, not from Zod, and the tool list depends on the key) whose tools are the agent API's
 * endpoints. The list shows the tools the key's scopes allow, summaries first, with an `orgId`
 * input when the key reaches several organisations. A call runs through `backend`; an error
 * answer becomes a tool error (`isError`) saying what to do.
 */
export function createAgentMcpServer(opts: {
  tools: readonly AgentTool[];
  backend: AgentBackend;
  name?: string;
}): Server {
  const { tools, backend } = opts;
  const byName = new Map(tools.map((t) => [t.spec.name, t]));
  const server = new Server(
    { name: opts.name ?? "cashrunway", title: "Cash Runway", version: MCP_VERSION },
    {
      capabilities: { tools: { listChanged: true }, prompts: {} },
      instructions: SERVER_INSTRUCTIONS,
      jsonSchemaValidator: sharedValidator,
    },
  );

  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: visibleTools(tools, await backend.reach()),
  }));

  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const tool = byName.get(request.params.name);
    if (!tool) {
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    }
    const args = request.params.arguments ?? {};
    const call = callOf(tool, args);
    if ("error" in call) return toolError(call.error);
    const answer = await backend.call(call);
    if (!answer.ok) {
      // A key that came to reach several organisations since the list was made: say so, and
      // tell the client to fetch the list again (it now carries orgId).
      if (answer.error.code === "org_required") void server.sendToolListChanged().catch(() => {});
      return toolError(answer.error);
    }
    return {
      content: [{ type: "text", text: tool.spec.render(answer.body) }],
      structuredContent: answer.body,
    };
  });

  server.setRequestHandler(ListPromptsRequestSchema, async () => ({
    prompts: listPrompts(await backend.reach()),
  }));
  server.setRequestHandler(GetPromptRequestSchema, async (request) =>
    getPrompt(request.params.name, request.params.arguments ?? {}),
  );
  return server;
}

/** The tools a key may use, in catalogue order (summaries first). */
export function visibleTools(tools: readonly AgentTool[], reach: Reach): McpTool[] {
  return tools
    .filter((t) => t.scope === null || reach.scopes.includes(t.scope))
    .map((t) => (reach.multiOrg ? t.multi(reach.orgs) : t.single));
}

function toolError(error: AgentError): CallToolResult {
  return { isError: true, content: [{ type: "text", text: errorText(error) }] };
}

/**
 * The call a tool's arguments make: path parameters, query parameters as the API reads them,
 * the organisation, and the list's page size when none is given. Unknown or malformed arguments
 * are refused here, as the API would refuse them, without using a credit.
 */
function callOf(tool: AgentTool, args: Record<string, unknown>): AgentCall | { error: AgentError } {
  const pathParams: Record<string, string> = {};
  const query: Record<string, string | string[]> = {};
  let orgId: string | undefined;
  for (const [name, value] of Object.entries(args)) {
    if (value === undefined || value === null) continue;
    if (name === "orgId") {
      if (typeof value !== "string" || value === "")
        return invalid("orgId", "must be an organisation id");
      orgId = value;
    } else if (tool.pathParams.includes(name)) {
      if (typeof value !== "string" || value === "")
        return invalid(name, "must be a non-empty string");
      pathParams[name] = value;
    } else if (tool.queryParams.includes(name)) {
      const text = queryValue(value);
      if (text === undefined)
        return invalid(name, "must be a string, number, boolean or list of strings");
      query[name] = text;
    } else {
      return invalid(name, `is not an argument of ${tool.spec.name}`);
    }
  }
  for (const name of tool.pathParams) {
    if (!(name in pathParams)) return invalid(name, "is required");
  }
  if (tool.spec.list && query.limit === undefined)
    query.limit = String(tool.spec.list.defaultLimit);
  return { tool, pathParams, query, orgId };
}

function queryValue(value: unknown): string | string[] | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (Array.isArray(value) && value.every((v) => typeof v === "string")) return value as string[];
  return undefined;
}

function invalid(parameter: string, message: string): { error: AgentError } {
  return {
    error: {
      status: 400,
      code: "invalid_parameter",
      parameter,
      message: `${parameter} ${message}`,
    },
  };
}
