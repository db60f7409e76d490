import {
  type AgentBackend,
  type AgentCall,
  type AgentTool,
  buildAgentTools,
  createAgentMcpServer,
  type OpenApiDocument,
  type Reach,
} from "@cashrunway/mcp";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { Db } from "../db/client.ts";
import type { AuthenticatedKey } from "../services/context.ts";
import { listReachableOrgs } from "../services/orgs/list-reachable-orgs.ts";
import type { AgentOperation, AgentOperationResult } from "./agent-operation.ts";

/** Where the Streamable HTTP endpoint is served. */
export const MCP_PATH = "/mcp";

/** What the /mcp endpoint needs from the application. */
export interface McpEndpointDeps {
  db: Db;
  /** The key of a request's `Authorization: Bearer` header (the agent API's authentication). */
  authenticate(request: Request): Promise<AuthenticatedKey | null>;
  /**
   * Runs one agent operation for the request's key through the agent request pipeline
   * (authentication, organisation reach, scope, metering and credits, validation, handler,
   * audit row), exactly as the same GET would run.
   */
  runAgentOperation(operation: AgentOperation): Promise<AgentOperationResult>;
  /** The agent API's OpenAPI document, generated from the route schemas. */
  document(): Promise<OpenApiDocument>;
}

/**
 * `POST /mcp`: the Model Context Protocol over Streamable HTTP, stateless (no session: each POST
 * carries its JSON-RPC message and is answered with JSON), authenticated by the agent API's
 * bearer keys. The tools are @cashrunway/mcp's, with schemas from the document the service
 * serves; a tool call is one agent operation of the caller's key (`runAgentOperation`), so it is
 * scoped, metered (one credit), gated for sensitive data and audited as the GET it maps to.
 *
 * A request without a valid key is refused with 401 before any MCP message is read. Only POST is
 * routed here: `GET` (a server-initiated stream) and `DELETE` (ending a session) have nothing to
 * serve without sessions, and the application answers them 405.
 */
export function createMcpHandler(deps: McpEndpointDeps): (request: Request) => Promise<Response> {
  let tools: Promise<AgentTool[]> | undefined;
  return async (request) => {
    const key = await deps.authenticate(request);
    if (!key) {
      return new Response('{"error":"unauthorized"}', {
        status: 401,
        headers: {
          "Content-Type": "application/json",
          "WWW-Authenticate": 'Bearer realm="mcp"',
        },
      });
    }
    tools ??= deps.document().then(buildAgentTools);
    const authorization = request.headers.get("authorization") ?? "";
    const server = createAgentMcpServer({
      tools: await tools,
      backend: new PipelineBackend(deps, key, authorization),
    });
    // Stateless: a server and transport per request, as the SDK prescribes, so that the ids of
    // concurrent clients' messages can never collide.
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    try {
      return await transport.handleRequest(request);
    } finally {
      await server.close();
    }
  };
}

/** Tool calls of one authenticated key, run through the agent request pipeline. */
class PipelineBackend implements AgentBackend {
  constructor(
    private readonly deps: McpEndpointDeps,
    private readonly key: AuthenticatedKey,
    private readonly authorization: string,
  ) {}

  /** The key's scopes; its organisations when it reaches several (re-read on every list). */
  async reach(): Promise<Reach> {
    if (this.key.kind === "ORG") return { scopes: this.key.scopes, multiOrg: false };
    const { orgs } = await listReachableOrgs(this.deps.db, this.key);
    return orgs.length > 1
      ? {
          scopes: this.key.scopes,
          multiOrg: true,
          orgs: orgs.map(({ id, name }) => ({ id, name })),
        }
      : { scopes: this.key.scopes, multiOrg: false };
  }

  async call(call: AgentCall): Promise<AgentOperationResult> {
    let orgId = call.orgId;
    // The daily brief has only the nested form: a key reaching one organisation names its own.
    if (!orgId && call.tool.spec.path.includes("{orgId}")) {
      orgId = this.key.ownOrg?.id ?? this.key.orgId ?? (await this.onlyOrg());
    }
    return this.deps.runAgentOperation({
      authorization: this.authorization,
      key: this.key,
      path: call.tool.spec.path,
      pathParams: call.pathParams,
      query: call.query,
      orgId,
    });
  }

  private async onlyOrg(): Promise<string | undefined> {
    const { orgs } = await listReachableOrgs(this.deps.db, this.key);
    return orgs.length === 1 ? orgs[0]?.id : undefined;
  }
}
