import { createRoute, type RouteConfig, z } from "@hono/zod-openapi";
import { documentedWithAlerts } from "../../../contracts/agent/alerts.ts";
import type { Db } from "../../../db/client.ts";
import type { Scope } from "../../../domain/scopes.ts";
import type { AuthenticatedKey, ServiceContext } from "../../../services/context.ts";
import type { ErrorCode } from "../../../services/errors.ts";
import type { ListPaging } from "../../../services/lists/paging.ts";
import type { MeterAdmission } from "../../../services/metering/metering.ts";
import type { Api } from "../../api.ts";
import { errorResponses, invalidParameter } from "../../errors.ts";
import type { AgentRoute } from "../../pipeline/agent-call.ts";
import type { PathParams, RouteTable } from "../../pipeline/route-table.ts";

/** What route registration needs: the database, and the table the pipeline serves from. */
export interface PipelineDeps {
  db: Db;
  /** The agent API's routes, run by `runAgentCall` (pipeline/agent-call.ts). */
  routes: RouteTable<AgentRoute>;
}

/** What a handler may read of the call besides its input: the metering admission. */
export interface HandlerCall {
  /** Undefined when metering admitted without figures (no-op metering in tests). */
  admission: MeterAdmission | undefined;
}

/** What the list routes need besides: their cursor key and sizes, made once for the app. */
export interface ListRouteDeps extends PipelineDeps {
  /** `listPaging(cursorSecretOf(config))` (CURSOR_SECRET; see config.ts). */
  paging: ListPaging;
}

export const AGENT_PREFIX = "/api/agent";
export const OPENAPI_PATH = `${AGENT_PREFIX}/openapi.json`;

/** The path parameter of every nested route. */
export const OrgIdParamSchema = z.object({
  orgId: z.string().openapi({
    param: { name: "orgId", in: "path" },
    description:
      "An organisation within the key's reach (see GET /api/agent/orgs). Any other value, " +
      "including an unknown or malformed id, answers 403 `forbidden`.",
    example: "org_5kq2m8x3c9d1v7b4n6ht",
  }),
});

/** `/api/agent/contacts/{id}` -> `/api/agent/orgs/{orgId}/contacts/{id}`. */
export function nestedPath(flatPath: string): string {
  return flatPath.replace(`${AGENT_PREFIX}/`, `${AGENT_PREFIX}/orgs/{orgId}/`);
}

/** The sentence every operation description starts with, and the `x-required-scope` value. */
function scopeSentence(scope: Scope | null): string {
  return scope
    ? `Required scope: \`${scope}\`; a key without it gets 403 \`insufficient_scope\`.`
    : "Required scope: none (any valid key).";
}

type ZodObjectSchema = z.ZodObject<z.ZodRawShape>;

const header = (description: string, type: "string" | "integer" = "string") => ({
  description,
  schema: { type },
});

/** Headers of every successful agent response (docs/metering.md). */
const SUCCESS_HEADERS = {
  "X-Service-Subscription": header(
    "Subscription status: trialing, active, past_due, canceled or trial_ended. Absent when the " +
      "organisation has no billing account.",
  ),
  "X-Service-Plan": header(
    "Subscription plan name (legacy): Free, Pocket, Wallet, Vault, Reserve.",
  ),
  "X-Service-Trial-Days-Remaining": header(
    "Whole days left in the trial, rounded up (1 = last day); only while trialing.",
    "integer",
  ),
  "X-Service-Reset-Minutes": header(
    "Minutes until the next query credit frees; 0 when one is available. Mirrors " +
      "usage.nextCreditInMinutes of /api/agent/status; absent when the key has no billable seat.",
    "integer",
  ),
  "X-Service-Quota-Remaining": header(
    "Legacy per-organisation daily bucket: calls left this UTC day (prefer usage.remaining).",
    "integer",
  ),
  "X-Service-Quota-Reset": header("Legacy daily bucket: next 00:00 UTC, ISO 8601."),
  "RateLimit-Policy": header(
    'IETF RateLimit-Policy: `"burst";q=<limit>;w=60` (60 unless the deployment sets ' +
      "BURST_LIMIT_PER_MINUTE; `burstLimit` of /api/agent/status) and, when the key has a " +
      'billable seat, `"credits";q=<allowance>;w=18000`.',
  ),
  RateLimit: header(
    'IETF RateLimit: `"burst";r=<left>;t=<s>, "credits";r=<left>;t=<s>`, where t is the seconds ' +
      "until r next grows (0 when nothing is waiting to free).",
  ),
  ETag: header(
    'Weak entity tag of this response (`W/"<22 characters>"`): a hash of the body and of the ' +
      "key's view (route, scopes). Send it back as `If-None-Match` to get a 304 without a body " +
      "and without using a query credit while nothing the key would read has changed.",
  ),
  "Cache-Control": header(
    "`private, no-cache`: a client's own cache may keep the response, and revalidates it " +
      "(If-None-Match) before reuse; shared caches must not keep it.",
  ),
  "Content-Encoding": header(
    "`br` or `gzip` when the request's Accept-Encoding allows it and the body is at least " +
      "1,024 bytes; absent otherwise.",
  ),
};

/**
 * The 304 of a conditional GET (docs/api.md, "Conditional requests"): the metering headers, the
 * tag and Cache-Control, no body.
 */
const NOT_MODIFIED = {
  description:
    "Not Modified: the request's `If-None-Match` names this response's current `ETag` (or is " +
    "`*`). No body; uses no query credit (the burst cap still counts it); audited like any call.",
  headers: SUCCESS_HEADERS,
};

/** Error responses with the metering headers on 429 and 503. */
function pipelineErrorResponses(codes: ErrorCode[]) {
  const responses = errorResponses(...codes);
  const retryAfter = header("Seconds to wait before retrying.", "integer");
  const r429 = responses[429];
  if (r429) {
    responses[429] = {
      ...r429,
      headers: {
        "Retry-After": retryAfter,
        "RateLimit-Policy": SUCCESS_HEADERS["RateLimit-Policy"],
        RateLimit: SUCCESS_HEADERS.RateLimit,
      },
    } as typeof r429;
  }
  const r503 = responses[503];
  if (r503) responses[503] = { ...r503, headers: { "Retry-After": retryAfter } } as typeof r503;
  return responses;
}

/** The metering sentence of an operation description. */
function meteringSentence(chargesCredit: boolean): string {
  return chargesCredit
    ? "Metering: burst cap of 60 requests per sliding minute per key per endpoint, then one " +
        "query credit from the rolling 5-hour window of (key creator, billing account of the " +
        "organisation); a 5xx, or a 304 to `If-None-Match`, gives the credit back."
    : "Metering: burst cap of 60 requests per sliding minute per key per endpoint; uses no " +
        "query credit.";
}

/** An endpoint that reads one organisation's data. */
export interface OrgRouteSpec<
  S extends z.ZodType,
  Q extends ZodObjectSchema | undefined,
  P extends ZodObjectSchema | undefined,
> {
  /** The flat path, e.g. `/api/agent/contacts/{id}`; it is also the audit route template. */
  path: `${typeof AGENT_PREFIX}/${string}`;
  operationId: string;
  tags: string[];
  summary: string;
  description: string;
  /** The scope the route requires; null = any valid key. */
  scope: Scope | null;
  query?: Q;
  /** Path parameters of the flat form (the nested form adds `orgId`). */
  params?: P;
  response: { schema: S; description: string };
  /** Error codes the handler itself can answer with, beyond the pipeline's. */
  errors?: ErrorCode[];
  /** Serve only `/api/agent/orgs/{orgId}/…` (the daily brief). */
  nestedOnly?: boolean;
  /** Exempt from query credits (`/api/agent/status`). */
  chargesCredit?: boolean;
  handler: (
    ctx: ServiceContext,
    input: {
      query: Q extends ZodObjectSchema ? z.output<Q> : Record<string, never>;
      params: P extends ZodObjectSchema ? z.output<P> : Record<string, never>;
      /** The `{orgId}` path segment of the nested form (already checked to be `ctx.org`). */
      pathOrgId?: string;
    },
    call: HandlerCall,
  ) => Promise<z.input<S>>;
}

/**
 * Registers an organisation-scoped endpoint twice, flat (`/api/agent/x`) and nested
 * (`/api/agent/orgs/{orgId}/x`), with one handler and one response schema: its OpenAPI operation
 * for each form, and its route in `deps.routes`, whose `run` is validation then the handler (the
 * pipeline's other steps are the same for every route: pipeline/agent-call.ts).
 */
export function registerOrgRoute<
  S extends z.ZodType,
  Q extends ZodObjectSchema | undefined = undefined,
  P extends ZodObjectSchema | undefined = undefined,
>(api: Api, deps: PipelineDeps, spec: OrgRouteSpec<S, Q, P>): void {
  const forms = spec.nestedOnly ? [true] : [false, true];
  const chargesCredit = spec.chargesCredit !== false;
  for (const nested of forms) {
    const pipelineErrors: ErrorCode[] = [
      ...(spec.query || spec.params ? (["invalid_parameter"] as const) : []),
      ...(nested ? [] : (["org_required"] as const)),
      "unauthorized",
      "forbidden",
      ...(spec.scope ? (["insufficient_scope"] as const) : []),
      "rate_limited",
      ...(chargesCredit ? (["credits_exhausted", "no_billable_seat"] as const) : []),
      "internal_error",
      "service_unavailable",
    ];
    const codes = [...new Set<ErrorCode>([...pipelineErrors, ...(spec.errors ?? [])])];
    const formNote = nested
      ? spec.nestedOnly
        ? "The organisation is the `{orgId}` path segment; it must be within the key's reach."
        : `Same as \`GET ${spec.path}\`, for the organisation \`{orgId}\`, which must be within ` +
          "the key's reach (else 403 `forbidden`). Any key may use this form."
      : "Reads the key's organisation: an organisation key's own, or the only organisation a " +
        "USER or PARTNER key reaches. A key reaching several organisations gets 400 " +
        `\`org_required\` and must use \`GET ${nestedPath(spec.path)}\`.`;
    const params = nested
      ? spec.params
        ? OrgIdParamSchema.extend(spec.params.shape)
        : OrgIdParamSchema
      : spec.params;
    const path = nested ? nestedPath(spec.path) : spec.path;
    const route: RouteConfig = createRoute({
      method: "get",
      path,
      operationId: nested ? `${spec.operationId}ForOrg` : spec.operationId,
      tags: spec.tags,
      summary: nested ? `${spec.summary} (organisation in the path)` : spec.summary,
      description:
        `${scopeSentence(spec.scope)}\n\n${spec.description}\n\n${formNote}\n\n` +
        meteringSentence(chargesCredit),
      "x-required-scope": spec.scope,
      security: [{ bearerAuth: [] }],
      request: {
        ...(spec.query ? { query: spec.query } : {}),
        ...(params ? { params } : {}),
      },
      responses: {
        200: {
          description: spec.response.description,
          headers: SUCCESS_HEADERS,
          content: { "application/json": { schema: documentedWithAlerts(spec.response.schema) } },
        },
        304: NOT_MODIFIED,
        ...pipelineErrorResponses(codes),
      },
    });
    api.openAPIRegistry.registerPath(route);

    type Input = Parameters<typeof spec.handler>[1];
    deps.routes.add(path, {
      template: spec.path,
      target: nested ? "nested" : "flat",
      scope: spec.scope,
      chargesCredit,
      run: async ({ ctx, params: raw, query, admission }) => {
        if (!ctx) throw new Error(`${spec.path} ran without a target organisation`);
        const input = {
          query: spec.query ? await validated(spec.query, query) : {},
          params: spec.params ? await validated(spec.params, flatParams(raw)) : {},
          pathOrgId: raw.orgId,
        } as Input;
        return await spec.handler(ctx, input, { admission });
      },
    });
  }
}

/** Registers an endpoint without a target organisation (`GET /api/agent/orgs`). */
export function registerKeyRoute<S extends z.ZodType>(
  api: Api,
  deps: PipelineDeps,
  spec: {
    path: `${typeof AGENT_PREFIX}/${string}`;
    operationId: string;
    tags: string[];
    summary: string;
    description: string;
    response: { schema: S; description: string };
    chargesCredit?: boolean;
    handler: (key: AuthenticatedKey) => Promise<z.input<S>>;
  },
): void {
  const chargesCredit = spec.chargesCredit !== false;
  const route: RouteConfig = createRoute({
    method: "get",
    path: spec.path,
    operationId: spec.operationId,
    tags: spec.tags,
    summary: spec.summary,
    description: `${scopeSentence(null)}\n\n${spec.description}\n\n${meteringSentence(chargesCredit)}`,
    "x-required-scope": null,
    security: [{ bearerAuth: [] }],
    responses: {
      200: {
        description: spec.response.description,
        headers: SUCCESS_HEADERS,
        content: { "application/json": { schema: documentedWithAlerts(spec.response.schema) } },
      },
      304: NOT_MODIFIED,
      ...pipelineErrorResponses([
        "unauthorized",
        "rate_limited",
        ...(chargesCredit ? (["credits_exhausted", "no_billable_seat"] as const) : []),
        "internal_error",
        "service_unavailable",
      ]),
    },
  });
  api.openAPIRegistry.registerPath(route);
  deps.routes.add(spec.path, {
    template: spec.path,
    target: "none",
    scope: null,
    chargesCredit,
    run: ({ key }) => spec.handler(key),
  });
}

/** The path parameters a flat route's schema sees (the nested form's `orgId` left out). */
function flatParams(raw: PathParams): PathParams {
  const { orgId: _orgId, ...rest } = raw;
  return rest;
}

/** The schema's output for `value`, or 400 `invalid_parameter` naming the first problem. */
async function validated<T extends z.ZodType>(schema: T, value: unknown): Promise<z.output<T>> {
  const result = await schema.safeParseAsync(value);
  if (!result.success) throw invalidParameter(result.error);
  return result.data;
}
