import type { Db } from "../../db/client.ts";
import type { Clock } from "../../domain/clock.ts";
import { hasScope, type Scope } from "../../domain/scopes.ts";
import type { RequestLogger } from "../../logger.ts";
import type { AuditWriter } from "../../services/audit/audit-writer.ts";
import type { AuthenticatedKey, ServiceContext } from "../../services/context.ts";
import { InsufficientScopeError, ServiceError } from "../../services/errors.ts";
import { serializeReusing } from "../../services/json-reuse.ts";
import { authenticateKey } from "../../services/keys/authenticate-key.ts";
import { resolveKeyTarget } from "../../services/keys/resolve-target-org.ts";
import type { VerifiedKeyCache } from "../../services/keys/verified-key-cache.ts";
import type {
  MeterAdmission,
  MeterFigures,
  MeterRequest,
} from "../../services/metering/metering.ts";
import { type Answer, errorAnswer } from "../errors.ts";
import { notServedAnswer } from "../method-not-allowed.ts";
import { entityTag, ifNoneMatchHits, viewOf } from "./etag.ts";
import type { MeteringHook } from "./metering.ts";
import type { PathParams, RouteTable } from "./route-table.ts";

/** Every agent route is GET, and HEAD is GET without the body. */
const AGENT_METHODS = ["GET", "HEAD"] as const;

/** Audit `route` of an authenticated request that matched no route. */
const UNMATCHED_ROUTE = "(unmatched)";

/** The query string as a schema sees it: one value per name, or a list for a repeated name. */
export type QueryValues = Record<string, string | string[]>;

/**
 * One agent request, whatever carried it: an HTTP GET (dispatch.ts) or an MCP tool call
 * (src/mcp). Only what the pipeline reads; nothing of the transport.
 */
export interface AgentCall {
  method: string;
  /** The decoded path, e.g. `/api/agent/orgs/org_1/contacts/c_2`. */
  path: string;
  query: QueryValues;
  /** The `Authorization` header as given (absent: none). */
  authorization: string | undefined;
  /**
   * The key, when the transport already authenticated `authorization` for this request (an MCP
   * request carrying several tool calls): step 1 then uses it instead of verifying it again.
   */
  key?: AuthenticatedKey;
  requestId: string;
  logger: RequestLogger;
  /**
   * Set by a transport with validators (HTTP): a successful answer then carries an `ETag` (and
   * its serialised body), and one whose tag `ifNoneMatch` matches becomes a body-less 304, which
   * metering's settlement does not charge (etag.ts). Unset (MCP): neither.
   */
  conditional?: { ifNoneMatch: string | undefined };
}

/** What the pipeline answers: the transport serialises `body` and adds its own headers. */
export interface AgentAnswer extends Answer {
  /** The authenticated key, for the log line (absent: authentication failed). */
  key?: AuthenticatedKey;
  /** The matched route template, for the log line. */
  routeTemplate?: string;
  /** The body as serialised for the tag (conditional calls), so the transport does not redo it. */
  serialized?: string | Uint8Array;
}

/** What a route's own work receives once the pipeline admitted the call. */
export interface RouteInput {
  key: AuthenticatedKey;
  /** The service context in the target organisation; null on routes without one. */
  ctx: ServiceContext | null;
  params: PathParams;
  query: QueryValues;
  /** What metering admitted the call with (undefined without figures, e.g. no-op metering). */
  admission: MeterAdmission | undefined;
}

/** An agent route as the pipeline runs it. */
export interface AgentRoute {
  /** The flat path template, e.g. `/api/agent/contacts/{id}`: audit, logs and the burst cap. */
  template: string;
  /**
   * Where the target organisation comes from: the `{orgId}` path segment (`nested`), the key's
   * only organisation (`flat`), or nowhere (`none`: `/api/agent/orgs`).
   */
  target: "nested" | "flat" | "none";
  /** The scope the route requires; null = any valid key. */
  scope: Scope | null;
  /** False for routes exempt from query credits (`/api/agent/status`). */
  chargesCredit: boolean;
  /** Validation (400 by throwing), then the handler: the response body. */
  run(input: RouteInput): Promise<unknown>;
}

/** What the pipeline's steps need. */
export interface AgentPipeline {
  db: Db;
  clock: Clock;
  metering: MeteringHook;
  auditWriter: AuditWriter;
  keyCache?: VerifiedKeyCache | undefined;
  routes: RouteTable<AgentRoute>;
}

/** What the steps learn about a call as it goes, for the audit row. */
interface CallState {
  key: AuthenticatedKey;
  now: Date;
  routeTemplate?: string;
  ctx?: ServiceContext;
}

/**
 * Runs one agent request through the pipeline, each step in order:
 *
 *   authenticate (401) -> match the route (404 / 405) -> resolve the organisation (400 / 403)
 *   -> required scope (403) -> meter (429 / 403 / 503) -> validate (400) -> handler -> entity
 *   tag (304 when `If-None-Match` matches; conditional calls only) -> settle metering with the
 *   final status -> one audit row.
 *
 * A step refuses by throwing a ServiceError, which becomes the answer; everything after a
 * refusal is skipped but the settlement (when metering admitted the call) and the audit row
 * (when the key was valid). One exception: a `credits_exhausted` refusal of a call carrying
 * `If-None-Match` waits for the tag, and stands only when the answer would not be a 304 (a 304
 * costs no credit). Authentication covers every path, registered or not, so routes
 * cannot be enumerated without a key.
 */
export async function runAgentCall(p: AgentPipeline, call: AgentCall): Promise<AgentAnswer> {
  let key: AuthenticatedKey | null;
  try {
    key = call.key ?? (await authenticate(p, call));
  } catch (err) {
    return errorAnswer(err, call.requestId, call.logger);
  }
  if (!key) return unauthorizedAnswer();
  const state: CallState = { key, now: p.clock.now() };
  let answer: AgentAnswer;
  // A stopped key (a partner key whose creator no longer owns the partner) answers exactly as a
  // revoked one; unlike one, it is audited, with the reason.
  if (key.stoppedBecause) answer = unauthorizedAnswer();
  else {
    try {
      answer = await serve(p, call, state);
    } catch (err) {
      answer = errorAnswer(err, call.requestId, call.logger);
    }
  }
  answer = await audit(p, call, state, answer);
  return { ...answer, key, ...(state.routeTemplate ? { routeTemplate: state.routeTemplate } : {}) };
}

/** Step 1: the bearer key, verified (from the key cache when it holds it). */
function authenticate(p: AgentPipeline, call: AgentCall): Promise<AuthenticatedKey | null> {
  return authenticateKey(p.db, bearerToken(call.authorization), p.keyCache);
}

/** Steps 2 to 8: from the route to the settled answer. */
async function serve(p: AgentPipeline, call: AgentCall, state: CallState): Promise<AgentAnswer> {
  const found = p.routes.match(call.path);
  if (!found || !(AGENT_METHODS as readonly string[]).includes(call.method)) {
    return notServedAnswer(call.method, found ? AGENT_METHODS : []);
  }
  const route = found.entry;
  state.routeTemplate = route.template;
  const ctx = await resolveOrganisation(p, route, state, found.params);
  requireScope(route, ctx?.scopes ?? state.key.scopes);
  const req: MeterRequest = {
    key: state.key,
    org: ctx?.org ?? null,
    routeTemplate: route.template,
    chargesCredit: route.chargesCredit,
    requestId: call.requestId,
    now: state.now,
  };
  const conditional = call.conditional;
  let admission: MeterAdmission | undefined;
  // A revalidation out of credits is not refused yet: a 304 costs none, so its handler runs
  // without a credit and the refusal stands only if the tag no longer matches.
  let refusal: ServiceError | undefined;
  try {
    admission = (await p.metering.admit(req)) ?? undefined;
  } catch (err) {
    if (!isCreditsExhausted(err) || conditional?.ifNoneMatch === undefined) throw err;
    refusal = err;
  }
  let answer: AgentAnswer;
  try {
    const body = await route.run({
      key: state.key,
      ctx,
      params: found.params,
      query: call.query,
      admission,
    });
    const figures = admission?.figures;
    answer = {
      status: 200,
      body: withAlerts(body, figures),
      headers: admission?.headers ?? {},
    };
    if (conditional) {
      const view = viewOf(route.template, ctx?.scopes ?? state.key.scopes);
      // The billing alert's wording changes with every credit used; its state travels in the
      // X-Service-* and RateLimit headers of every answer, a 304 too, so the tag leaves it out.
      const tagBody = figures?.billingAlert
        ? withAlerts(body, { ...figures, billingAlert: null })
        : answer.body;
      answer = tagged(answer, tagBody, view, conditional.ifNoneMatch);
    }
  } catch (err) {
    answer = errorAnswer(err, call.requestId, call.logger);
  }
  if (refusal) {
    if (answer.status !== 304) return errorAnswer(refusal, call.requestId, call.logger);
    const { "Retry-After": _, ...headers } = refusal.headers;
    return { ...answer, headers: { ...headers, ETag: answer.headers?.ETag ?? "" } };
  }
  // A 304, 400, 401, 403 or 5xx gives back what it should not pay for (Metering.settle).
  await p.metering.settle(req, answer.status, admission);
  return answer;
}

function isCreditsExhausted(err: unknown): err is ServiceError {
  return err instanceof ServiceError && err.code === "credits_exhausted";
}

/**
 * Step 8 of a conditional call: the successful answer with its `ETag` (a hash of `tagBody`,
 * the body without its billing alert, and of the key's view), or, when `ifNoneMatch` matches
 * it, a 304 with the same headers and no body (etag.ts: a 304 never hides a change of data).
 */
function tagged(
  answer: AgentAnswer,
  tagBody: unknown,
  view: string,
  ifNoneMatch: string | undefined,
): AgentAnswer {
  const serialized = serializeReusing(answer.body);
  const tag = entityTag(tagBody === answer.body ? serialized : serializeReusing(tagBody), view);
  const headers = { ...answer.headers, ETag: tag };
  if (ifNoneMatchHits(ifNoneMatch, tag)) return { status: 304, body: null, headers };
  return { ...answer, headers, serialized };
}

/**
 * Step 3: the organisation the call reads and the key's scopes there (READ_SENSITIVE may not
 * apply in every organisation); null on a route without one.
 */
async function resolveOrganisation(
  p: AgentPipeline,
  route: AgentRoute,
  state: CallState,
  params: PathParams,
): Promise<ServiceContext | null> {
  if (route.target === "none") return null;
  const pathOrgId = route.target === "nested" ? (params.orgId ?? "") : undefined;
  const { org, scopes } = await resolveKeyTarget(p.db, state.key, pathOrgId);
  const ctx: ServiceContext = {
    db: p.db,
    now: state.now,
    org,
    actor: { type: "apiKey", key: state.key },
    scopes,
  };
  state.ctx = ctx;
  return ctx;
}

/** Step 4: 403 `insufficient_scope` naming the scope the route requires. */
function requireScope(route: AgentRoute, scopes: readonly Scope[]): void {
  if (route.scope && !hasScope(scopes, route.scope)) {
    throw new InsufficientScopeError(route.scope);
  }
}

/**
 * A successful body with the admission's alerts: every organisation route's body can carry
 * `billingAlert` and `ledgerAlert` (spec rule 4), so handlers never deal with them. Added as the
 * body's last members (a body naming them itself keeps their place), on a copy: handlers may
 * return values they keep, such as a forecast's weeks.
 */
function withAlerts(body: unknown, figures: MeterFigures | null | undefined): unknown {
  if (!figures || (!figures.billingAlert && !figures.ledgerAlert)) return body;
  if (typeof body !== "object" || body === null || Array.isArray(body)) return body;
  return {
    ...body,
    ...(figures.billingAlert ? { billingAlert: figures.billingAlert } : {}),
    ...(figures.ledgerAlert ? { ledgerAlert: figures.ledgerAlert } : {}),
  };
}

/**
 * Last step: one audit row per authenticated call, whatever its answer (which also stamps the
 * key's last-used times). With `immediateAuditWriter` the row is committed before the answer;
 * the server's BatchedAuditWriter buffers it. Should the writer refuse, the answer becomes a
 * 500 rather than a response served unaudited.
 */
async function audit(
  p: AgentPipeline,
  call: AgentCall,
  state: CallState,
  answer: AgentAnswer,
): Promise<AgentAnswer> {
  const { key, ctx } = state;
  try {
    await p.auditWriter.write({
      keyId: key.id,
      orgId: ctx?.org.id ?? null,
      method: call.method,
      route: state.routeTemplate ?? UNMATCHED_ROUTE,
      status: answer.status,
      // The key's scopes in the target organisation, once resolved; else its own.
      sensitive: hasScope(ctx?.scopes ?? key.scopes, "READ_SENSITIVE"),
      reason: key.stoppedBecause ?? null,
      requestId: call.requestId,
      at: state.now,
    });
    return answer;
  } catch (err) {
    call.logger.error({ err, keyPrefix: key.prefix }, "audit write failed");
    return errorAnswer(new Error("audit write failed", { cause: err }), call.requestId);
  }
}

const BEARER = /^Bearer[ ]+([^\s]+)[ ]*$/i;

/** The token of an `Authorization: Bearer <token>` header, or "" for anything else. */
export function bearerToken(header: string | undefined): string {
  if (!header || header.length > 512) return "";
  return BEARER.exec(header)?.[1] ?? "";
}

/**
 * The one 401. Every cause (no header, another scheme, a malformed or mistyped key, an unknown
 * prefix, a wrong secret, a revoked or stopped key) answers exactly this body and these headers,
 * so an answer never tells whether a prefix exists.
 */
function unauthorizedAnswer(): AgentAnswer {
  return {
    status: 401,
    body: { error: "unauthorized" },
    headers: { "WWW-Authenticate": 'Bearer realm="agent-api"' },
  };
}
