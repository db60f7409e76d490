import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { isDatabaseUnreachable } from "../db/unreachable.ts";
import type { RequestLogger } from "../logger.ts";
import { ERROR_STATUS, type ErrorCode, ServiceError } from "../services/errors.ts";
import { UNAVAILABLE_RETRY_SECONDS } from "../services/metering/metering.ts";
import type { AppEnv } from "./env.ts";
import { jsonWithId } from "./request-id.ts";

export const ErrorResponseSchema = z
  .object({
    error: z.string().openapi({ description: "A snake_case error code.", example: "unauthorized" }),
    message: z.string().optional().openapi({ description: "Human-readable detail." }),
    requestId: z.string().optional(),
    requiredScope: z.string().optional(),
    parameter: z.string().optional(),
    retryAfterSeconds: z.number().int().optional(),
  })
  .passthrough()
  .openapi("ErrorResponse", { description: "Every error: `{ error: <code>, ... }`." });

const DESCRIPTIONS: Record<ErrorCode, string> = {
  invalid_parameter: "A query or path parameter is invalid.",
  invalid_cursor:
    "`cursor` is not a nextCursor of this list: malformed, changed, issued for another " +
    "organisation or list, or for other filters (repeat the filters unchanged while paging).",
  org_required: "This key reaches several organisations: use /api/agent/orgs/{orgId}/… routes.",
  unauthorized:
    "Missing, malformed, unknown or revoked key, or a partner key whose creator no longer owns " +
    "the partner (causes are not distinguished).",
  insufficient_scope: "The key lacks the scope this endpoint requires (named in requiredScope).",
  forbidden:
    "The organisation is outside this key's reach (including one whose owner revoked the key " +
    "for it).",
  no_billable_seat:
    "The key's user holds no seat on the organisation's billing account (or the organisation " +
    "has none), so it has no query credits there; /api/agent/status still answers.",
  not_found: "No such resource in this organisation.",
  no_brief_yet: "No daily brief has been generated yet.",
  method_not_allowed:
    "The path exists but not for this method (every agent route is GET or HEAD); `Allow` " +
    "lists the methods it takes.",
  rate_limited:
    "Burst cap hit: 60 requests per sliding minute per key per endpoint. `Retry-After` and " +
    "`retryAfterSeconds` say when the next request is admitted.",
  credits_exhausted:
    "Query credits for the rolling 5-hour window are used up and automatic top-up is off. " +
    "`Retry-After`, `retryAfterSeconds` and `nextCreditInMinutes` say when a credit frees.",
  internal_error: "Unexpected error.",
  service_unavailable:
    "A dependency is unavailable (e.g. query credits cannot be checked, so nothing is served " +
    "unmetered); retry shortly.",
};

/** OpenAPI response objects for the given codes, grouped by status. */
export function errorResponses(...codes: ErrorCode[]) {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const status = ERROR_STATUS[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const out: Record<
    number,
    { description: string; content: { "application/json": { schema: typeof ErrorResponseSchema } } }
  > = {};
  for (const [status, list] of byStatus) {
    out[status] = {
      description: list.map((c) => `\`${c}\`: ${DESCRIPTIONS[c]}`).join(" "),
      content: { "application/json": { schema: ErrorResponseSchema } },
    };
  }
  return out;
}

/** The one place errors become responses. */
export function errorBody(code: ErrorCode, message: string, extra: Record<string, unknown> = {}) {
  return { error: code, message, ...extra };
}

/** A response before its transport serialises it: status, JSON body and headers. */
export interface Answer {
  status: number;
  /** JSON data, serialised by the transport. */
  body: unknown;
  headers: Record<string, string>;
}

/**
 * The answer for anything thrown while serving a request: a ServiceError's own code, status and
 * headers; the database out of reach (`isDatabaseUnreachable`) a 503 `service_unavailable` with
 * `Retry-After`, like every other refusal during an outage; anything else a 500
 * `internal_error` carrying the request id. Both are logged (with `logger`), never shown.
 */
export function errorAnswer(err: unknown, requestId: string, logger?: RequestLogger): Answer {
  if (err instanceof ServiceError) {
    return {
      status: err.status,
      body: errorBody(err.code, err.message, err.details),
      headers: err.headers,
    };
  }
  if (isDatabaseUnreachable(err)) {
    logger?.error({ err, requestId }, "database unreachable");
    return {
      status: 503,
      body: errorBody(
        "service_unavailable",
        "The service's database cannot be reached right now. Retry shortly.",
        { retryAfterSeconds: UNAVAILABLE_RETRY_SECONDS, requestId },
      ),
      headers: { "Retry-After": String(UNAVAILABLE_RETRY_SECONDS) },
    };
  }
  logger?.error({ err, requestId }, "unhandled error");
  return {
    status: 500,
    body: errorBody("internal_error", "Unexpected error.", { requestId }),
    headers: {},
  };
}

/**
 * 400 `invalid_parameter` for a failed Zod validation of a query or path: the first issue's
 * message, prefixed by and naming the parameter it concerns. Never Zod's raw error object.
 */
export function invalidParameter(error: z.ZodError): ServiceError {
  const issue = error.issues[0];
  const parameter = issue ? issue.path.join(".") : undefined;
  const message = issue
    ? `${parameter ? `${parameter}: ` : ""}${issue.message}`
    : "Invalid request.";
  return new ServiceError("invalid_parameter", message, parameter ? { parameter } : {});
}

export function onError(err: unknown, c: Context<AppEnv>) {
  const requestId = c.get("requestId");
  const answer = errorAnswer(err, requestId, c.get("logger"));
  return jsonWithId(c, answer.body, answer.status, answer.headers);
}
