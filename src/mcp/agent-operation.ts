import { randomUUID } from "node:crypto";
import type { AgentAnswer } from "@cashrunway/mcp";
import { type AgentPipeline, type QueryValues, runAgentCall } from "../http/pipeline/agent-call.ts";
import { type Logger, lazyChild } from "../logger.ts";
import type { AuthenticatedKey } from "../services/context.ts";

/** One agent API operation, as an MCP tool call asks for it. */
export interface AgentOperation {
  /** The caller's `Authorization` header, unchanged: the operation is the caller's. */
  authorization: string;
  /** That header's key, as the MCP endpoint authenticated it for this request. */
  key?: AuthenticatedKey;
  /** The endpoint's flat path template (`/api/agent/contacts/{id}`), or the nested-only brief's. */
  path: string;
  /** Path parameters besides `orgId`. */
  pathParams: Record<string, string>;
  /** Query parameters, as the API reads them. */
  query: Record<string, string | string[]>;
  /** The organisation named by the call (its nested form), if any. */
  orgId: string | undefined;
}

export type AgentOperationResult = AgentAnswer;

const AGENT_PREFIX = "/api/agent/";

/**
 * The agent API path an operation is: the nested form when it names an organisation, its path
 * parameters encoded as in a URL. Undefined when the path still needs an `orgId`.
 */
export function operationPath(operation: AgentOperation): string | undefined {
  let path = operation.path;
  if (operation.orgId !== undefined && !path.includes("{orgId}") && path !== "/api/agent/orgs") {
    path = `${AGENT_PREFIX}orgs/{orgId}/${path.slice(AGENT_PREFIX.length)}`;
  }
  const params: Record<string, string | undefined> = {
    ...operation.pathParams,
    orgId: operation.orgId,
  };
  let missing = false;
  path = path.replace(/\{([A-Za-z_]+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) missing = true;
    return encodeURIComponent(value ?? "");
  });
  return missing ? undefined : path;
}

/**
 * Runs operations through the agent pipeline itself (`runAgentCall`): each is the GET it maps
 * to, as an agent call (authenticate, organisation, scope, metering and credits, validation,
 * handler, audit row), without an HTTP round trip through the application. Each call gets its
 * own request id, as a GET without `X-Request-Id` would.
 */
export function pipelineRunner(
  pipeline: AgentPipeline,
  logger: Logger,
): (operation: AgentOperation) => Promise<AgentOperationResult> {
  return async (operation) => {
    const path = operationPath(operation);
    if (!path) {
      return {
        ok: false,
        error: {
          status: 400,
          code: "org_required",
          message: "this key reaches several organisations: pass orgId",
        },
      };
    }
    const requestId = randomUUID();
    const answer = await runAgentCall(pipeline, {
      method: "GET",
      path,
      query: queryValues(operation.query),
      authorization: operation.authorization,
      ...(operation.key ? { key: operation.key } : {}),
      requestId,
      logger: lazyChild(logger, { requestId }),
    });
    // The body as the GET's client would parse it: plain JSON data.
    const body = JSON.parse(JSON.stringify(answer.body)) as Record<string, unknown>;
    if (answer.status >= 200 && answer.status < 300) return { ok: true, body };
    const retryAfter = answer.headers["Retry-After"];
    return {
      ok: false,
      error: {
        status: answer.status,
        code: typeof body.error === "string" ? body.error : `http_${answer.status}`,
        message: typeof body.message === "string" ? body.message : undefined,
        requestId,
        retryAfterSeconds:
          typeof body.retryAfterSeconds === "number"
            ? body.retryAfterSeconds
            : retryAfter !== undefined && /^\d+$/.test(retryAfter)
              ? Number(retryAfter)
              : undefined,
        requiredScope: typeof body.requiredScope === "string" ? body.requiredScope : undefined,
        parameter: typeof body.parameter === "string" ? body.parameter : undefined,
      },
    };
  };
}

/** Query values as a URL would carry them: a one-item list is a single value, none is absent. */
function queryValues(query: AgentOperation["query"]): QueryValues {
  const out: QueryValues = {};
  for (const [name, value] of Object.entries(query)) {
    if (!Array.isArray(value)) out[name] = value;
    else if (value.length === 1) out[name] = value[0] as string;
    else if (value.length > 1) out[name] = value;
  }
  return out;
}
