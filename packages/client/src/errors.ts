/**
 * The `error` codes the agent API answers with (its OpenAPI description lists them). The API may
 * add codes; `ApiError.code` is typed so that an unknown one is still a string.
 */
export type KnownErrorCode =
  | "unauthorized"
  | "org_required"
  | "invalid_parameter"
  | "invalid_cursor"
  | "forbidden"
  | "insufficient_scope"
  | "no_billable_seat"
  | "not_found"
  | "no_brief_yet"
  | "method_not_allowed"
  | "rate_limited"
  | "credits_exhausted"
  | "internal_error"
  | "service_unavailable";

/** The JSON body of every error answer: `{ error: <code>, ... }`. */
export interface ErrorBody {
  error: string;
  message?: string;
  requestId?: string;
  requiredScope?: string;
  parameter?: string;
  retryAfterSeconds?: number;
  [extra: string]: unknown;
}

/** Base class of everything this client throws. */
export class CashRunwayError extends Error {
  override name = "CashRunwayError";
}

/** The API answered with an error status: its code, request id and body. */
export class ApiError extends CashRunwayError {
  override name = "ApiError";
  /** HTTP status (400, 401, 403, 404, 429, 500, 503, ...). */
  readonly status: number;
  /** The API's `error` code, e.g. `insufficient_scope`, `credits_exhausted`. */
  readonly code: KnownErrorCode | (string & {});
  /** The request's id (`X-Request-Id`): quote it when reporting a problem. */
  readonly requestId: string | undefined;
  /** On 429 and 503: seconds until a retry can succeed (body, else `Retry-After`). */
  readonly retryAfterSeconds: number | undefined;
  /** On 403 `insufficient_scope`: the scope the key lacks. */
  readonly requiredScope: string | undefined;
  /** On 400 `invalid_parameter`: the parameter at fault. */
  readonly parameter: string | undefined;
  /** The whole error body. */
  readonly body: ErrorBody;

  constructor(status: number, body: ErrorBody, headers: Headers) {
    super(`${status} ${body.error}${body.message ? `: ${body.message}` : ""}`);
    this.status = status;
    this.code = body.error;
    this.body = body;
    this.requestId = headers.get("x-request-id") ?? body.requestId;
    this.retryAfterSeconds =
      typeof body.retryAfterSeconds === "number"
        ? body.retryAfterSeconds
        : retryAfterSeconds(headers);
    this.requiredScope = body.requiredScope;
    this.parameter = body.parameter;
  }
}

/** The server could not be reached, or its answer was not the API's (not JSON, cut short). */
export class ConnectionError extends CashRunwayError {
  override name = "ConnectionError";
  readonly url: string;
  constructor(message: string, url: string, options?: { cause?: unknown }) {
    super(message, options);
    this.url = url;
  }
}

/**
 * `Retry-After` in whole seconds: delta-seconds, or an HTTP date turned into a delay (rounded
 * up, never negative). Undefined when absent or unreadable.
 */
export function retryAfterSeconds(headers: Headers, now: number = Date.now()): number | undefined {
  const value = headers.get("retry-after")?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value);
  const at = Date.parse(value);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, Math.ceil((at - now) / 1000));
}

/** Makes an error body of whatever an error answer carried (the API's JSON, or anything). */
export function errorBodyOf(status: number, text: string): ErrorBody {
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed && typeof parsed === "object" && typeof (parsed as ErrorBody).error === "string") {
      return parsed as ErrorBody;
    }
  } catch {
    // Not JSON: a proxy's page or a cut connection; described below.
  }
  return { error: `http_${status}`, message: text.slice(0, 200) || undefined };
}
