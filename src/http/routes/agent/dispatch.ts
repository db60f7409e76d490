import type { Context } from "hono";
import type { Db } from "../../../db/client.ts";
import type { Clock } from "../../../domain/clock.ts";
import type { Logger } from "../../../logger.ts";
import { type AuditWriter, immediateAuditWriter } from "../../../services/audit/audit-writer.ts";
import { serializeReusing } from "../../../services/json-reuse.ts";
import type { VerifiedKeyCache } from "../../../services/keys/verified-key-cache.ts";
import type { Api } from "../../api.ts";
import { COMPRESS_MIN_BYTES, compress, negotiateEncoding } from "../../compression.ts";
import type { AppEnv } from "../../env.ts";
import {
  type AgentAnswer,
  type AgentCall,
  type AgentPipeline,
  type AgentRoute,
  type QueryValues,
  runAgentCall,
} from "../../pipeline/agent-call.ts";
import type { MeteringHook } from "../../pipeline/metering.ts";
import { RouteTable } from "../../pipeline/route-table.ts";
import { beginRequest, logRequest } from "../../request-log.ts";
import { AGENT_PREFIX, type PipelineDeps } from "./agent-route.ts";

/**
 * Mounts the agent API on `api`: one handler for every path under the prefix, which hands the
 * request to the agent pipeline (`runAgentCall`, pipeline/agent-call.ts: authenticate, route,
 * organisation, scope, metering, validation, handler, audit) and turns its answer into the
 * response, with the request's id and log line (request-log.ts).
 *
 * Authentication covers every path under the prefix, registered routes or not (fail closed), so
 * routes cannot be enumerated without a key; `publicPaths` (the OpenAPI document, registered on
 * `api` after this, behind app.ts's request-log middleware) are left to their own handlers.
 *
 * Returns what route registration needs (`registerOrgRoute`, `registerKeyRoute`) and the
 * pipeline itself, which the MCP endpoint runs tool calls through.
 */
export function mountAgentApi(
  api: Api,
  deps: {
    db: Db;
    clock: Clock;
    logger: Logger;
    metering: MeteringHook;
    /** Default: commit each audit row before the response (see BatchedAuditWriter). */
    auditWriter?: AuditWriter | undefined;
    keyCache?: VerifiedKeyCache | undefined;
    publicPaths?: readonly string[];
  },
): PipelineDeps & { pipeline: AgentPipeline } {
  const pipeline: AgentPipeline = {
    db: deps.db,
    clock: deps.clock,
    metering: deps.metering,
    auditWriter: deps.auditWriter ?? immediateAuditWriter(deps.db),
    keyCache: deps.keyCache,
    routes: new RouteTable<AgentRoute>(),
  };
  const publicPaths = new Set(deps.publicPaths ?? []);
  api.all(`${AGENT_PREFIX}/*`, async (c, next) => {
    if (publicPaths.has(c.req.path)) return next();
    const started = beginRequest(c, deps.logger);
    const answer = await runAgentCall(pipeline, agentCallOf(c));
    if (answer.key) c.set("key", answer.key);
    if (answer.routeTemplate) c.set("routeTemplate", answer.routeTemplate);
    logRequest(c, deps.logger, started, answer.status);
    return await agentResponse(answer, c.get("requestId"), {
      head: c.req.method === "HEAD",
      acceptEncoding: c.req.header("accept-encoding"),
    });
  });
  return { db: deps.db, routes: pipeline.routes, pipeline };
}

/**
 * Every agent response: `Cache-Control: private, no-cache` (a cache may keep it for this client
 * only, and must revalidate it with its `ETag` before reuse) and `Vary` on the headers that
 * change it.
 */
const AGENT_CACHE_HEADERS = {
  "Cache-Control": "private, no-cache",
  Vary: "Authorization, Accept-Encoding",
} as const;

/**
 * The HTTP response of an answer: its JSON body (the serialisation the entity tag hashed, when
 * there is one), compressed with Brotli or gzip when the client accepts it and the body reaches
 * COMPRESS_MIN_BYTES; a 304 has no body. A HEAD answer (Hono runs the GET handler and drops the
 * body) is never compressed: it carries the identity body's Content-Length and no
 * Content-Encoding, rather than compressing bytes that are thrown away.
 */
async function agentResponse(
  answer: AgentAnswer,
  requestId: string,
  request: { head: boolean; acceptEncoding: string | undefined },
): Promise<Response> {
  const headers: Record<string, string> = {
    ...answer.headers,
    ...AGENT_CACHE_HEADERS,
    "X-Request-Id": requestId,
  };
  if (answer.status === 304) return new Response(null, { status: 304, headers });
  headers["Content-Type"] = "application/json";
  const serialized = answer.serialized ?? serializeReusing(answer.body);
  const bytes = typeof serialized === "string" ? Buffer.from(serialized, "utf8") : serialized;
  if (request.head) {
    headers["Content-Length"] = String(bytes.byteLength);
    return new Response(null, { status: answer.status, headers });
  }
  const coding =
    bytes.byteLength >= COMPRESS_MIN_BYTES ? negotiateEncoding(request.acceptEncoding) : null;
  if (!coding) return new Response(bytes, { status: answer.status, headers });
  headers["Content-Encoding"] = coding;
  return new Response(await compress(bytes, coding), { status: answer.status, headers });
}

/** The agent call an HTTP request is: conditional (ETag, 304) for GET and HEAD. */
function agentCallOf(c: Context<AppEnv>): AgentCall {
  return {
    method: c.req.method,
    path: c.req.path,
    query: queryValues(c),
    authorization: c.req.header("authorization"),
    requestId: c.get("requestId"),
    logger: c.get("logger"),
    conditional: { ifNoneMatch: c.req.header("if-none-match") },
  };
}

/**
 * The query string as Hono's validator hands it to a schema: one value per name, or an array
 * for a name given several times.
 */
function queryValues(c: Context<AppEnv>): QueryValues {
  // Object.fromEntries, as the validator does: `__proto__` stays an ordinary name.
  return Object.fromEntries(
    Object.entries(c.req.queries()).map(([name, list]) => [
      name,
      list.length === 1 ? (list[0] as string) : list,
    ]),
  );
}
