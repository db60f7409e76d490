import type { Context } from "hono";
import type { Db } from "../../../db/client.ts";
import type { Clock } from "../../../domain/clock.ts";
import type { Logger } from "../../../logger.ts";
import { type AuditWriter, immediateAuditWriter } from "../../../services/audit/audit-writer.ts";
import { authenticateKeySoon } from "../../../services/keys/authenticate-key.ts";
import type { VerifiedKeyCache } from "../../../services/keys/verified-key-cache.ts";
import type { Api } from "../../api.ts";
import type { AppEnv } from "../../env.ts";
import { onError } from "../../errors.ts";
import { notServed } from "../../method-not-allowed.ts";
import { audited } from "../../pipeline/audit.ts";
import { bearerToken, unauthorized } from "../../pipeline/authenticate.ts";
import type { MeteringHook } from "../../pipeline/metering.ts";
import { beginRequest, logRequest } from "../../request-log.ts";
import { AGENT_PREFIX, type AgentRoute, type PipelineDeps } from "./agent-route.ts";
import { RouteTable } from "./route-table.ts";

/** Every agent route is GET, and HEAD is GET without the body (Hono answers it so). */
const AGENT_METHODS = ["GET", "HEAD"] as const;

/**
 * Mounts the agent API on `api`: one handler for every path under the prefix, which runs the
 * pipeline of an agent request in one place:
 *
 *   authenticate (401) -> match the path (404 / 405) -> the route's `serve`: target organisation
 *   (400 / 403) -> required scope (403) -> metering (429 / 403 / 503) -> validation (400) ->
 *   handler -> response; then one audit row per authenticated request, whatever its answer.
 *
 * Authentication covers every path under the prefix, registered routes or not (fail closed), so
 * routes cannot be enumerated without a key; `publicPaths` (the OpenAPI document, registered on
 * `api` after this, behind app.ts's request-log middleware) are left to their own handlers. The
 * handler gives each request its id and log line itself (request-log.ts), so an agent request
 * runs no other handler of the application.
 *
 * Why one handler rather than a chain of Hono middleware per route: each layer of Hono's chain
 * is an async call and a `next` closure per request, and the agent API's routes (static
 * `/contacts/summary` beside `/contacts/{id}`) kept Hono's faster router from being used for the
 * whole application. The steps are the same, in the same order (docs/benchmarks.md, "Stop 10").
 *
 * Returns what route registration needs (`registerOrgRoute`, `registerKeyRoute`).
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
): PipelineDeps {
  const routes = new RouteTable<AgentRoute>();
  const writer = deps.auditWriter ?? immediateAuditWriter(deps.db);
  const publicPaths = new Set(deps.publicPaths ?? []);
  api.all(`${AGENT_PREFIX}/*`, async (c, next) => {
    const path = c.req.path;
    if (publicPaths.has(path)) return next();
    const started = beginRequest(c, deps.logger);
    let res: Response;
    try {
      res = await answer(c, path);
    } catch (err) {
      // Authentication failed to answer (its database unreachable): logged, still one log line.
      res = onError(err, c);
    }
    logRequest(c, deps.logger, started, res.status);
    return res;
  });

  /** Everything of an agent request between its id and its log line. */
  async function answer(c: Context<AppEnv>, path: string): Promise<Response> {
    // A malformed key or one in the verified-key cache is answered without a promise.
    const soon = authenticateKeySoon(
      deps.db,
      bearerToken(c.req.header("authorization")),
      deps.keyCache,
    );
    const key = soon instanceof Promise ? await soon : soon;
    if (!key) return unauthorized(c);
    c.set("key", key);
    const at = deps.clock.now();
    // A stopped key (a partner key whose creator no longer owns the partner) answers exactly as
    // a revoked one; unlike one, it is audited, with the reason.
    if (key.stoppedBecause) return audited(writer, c, key, unauthorized(c), at);
    let res: Response;
    try {
      const found = routes.match(path);
      if (!found || !(AGENT_METHODS as readonly string[]).includes(c.req.method)) {
        res = notServed(c, found ? AGENT_METHODS : []);
      } else {
        c.set("routeTemplate", found.entry.template);
        res = await found.entry.serve(c, key, found.params);
      }
    } catch (err) {
      res = onError(err, c);
    }
    return audited(writer, c, key, res, at);
  }
  return { db: deps.db, clock: deps.clock, metering: deps.metering, routes };
}
