import type { AgentAnswer } from "@cashrunway/mcp";

/** One agent API operation, as an MCP tool call asks for it. */
export interface AgentOperation {
  /** The caller's `Authorization` header, unchanged: the operation is the caller's. */
  authorization: string;
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
 * The agent API request an operation is: the nested form when it names an organisation, its
 * parameters encoded as the API decodes them. Undefined when the path still needs an `orgId`.
 */
export function operationUrl(operation: AgentOperation, origin: string): URL | undefined {
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
  if (missing) return undefined;
  const url = new URL(path, origin);
  for (const [name, value] of Object.entries(operation.query)) {
    for (const item of Array.isArray(value) ? value : [value]) url.searchParams.append(name, item);
  }
  return url;
}

/**
 * Runs operations through the agent API's own request handling, in-process: each becomes the GET
 * it maps to and is answered by `fetch` (the application's), so it passes through every step of
 * the agent request pipeline (dispatch.ts: authenticate, path, organisation, scope, metering,
 * validation, handler, audit) without a line of that pipeline repeated here. When the pipeline
 * offers its steps as a function callable outside an HTTP route (issue 23), this is the one
 * place to call it instead.
 */
export function dispatchingRunner(
  fetch: (request: Request) => Response | Promise<Response>,
): (operation: AgentOperation) => Promise<AgentOperationResult> {
  return async (operation) => {
    const url = operationUrl(operation, "http://mcp.internal");
    if (!url) {
      return {
        ok: false,
        error: {
          status: 400,
          code: "org_required",
          message: "this key reaches several organisations: pass orgId",
        },
      };
    }
    const response = await fetch(
      new Request(url, {
        headers: { authorization: operation.authorization, accept: "application/json" },
      }),
    );
    const body = (await response.json()) as Record<string, unknown>;
    if (response.ok) return { ok: true, body };
    const retryAfter = response.headers.get("retry-after");
    return {
      ok: false,
      error: {
        status: response.status,
        code: typeof body.error === "string" ? body.error : `http_${response.status}`,
        message: typeof body.message === "string" ? body.message : undefined,
        requestId: response.headers.get("x-request-id") ?? undefined,
        retryAfterSeconds:
          typeof body.retryAfterSeconds === "number"
            ? body.retryAfterSeconds
            : retryAfter !== null && /^\d+$/.test(retryAfter)
              ? Number(retryAfter)
              : undefined,
        requiredScope: typeof body.requiredScope === "string" ? body.requiredScope : undefined,
        parameter: typeof body.parameter === "string" ? body.parameter : undefined,
      },
    };
  };
}
