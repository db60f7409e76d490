/**
 * The closed list of error codes the API answers with, each with its one HTTP status.
 * Services throw ServiceError; `http/errors.ts` turns it into `{ error: code, ... }`.
 */
export const ERROR_STATUS = {
  invalid_parameter: 400,
  invalid_cursor: 400,
  org_required: 400,
  unauthorized: 401,
  insufficient_scope: 403,
  forbidden: 403,
  no_billable_seat: 403,
  not_found: 404,
  no_brief_yet: 404,
  method_not_allowed: 405,
  rate_limited: 429,
  credits_exhausted: 429,
  internal_error: 500,
  service_unavailable: 503,
} as const;
export type ErrorCode = keyof typeof ERROR_STATUS;

export class ServiceError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Extra fields beside `error` in the body, e.g. `{ requiredScope }`. */
    readonly details: Record<string, unknown> = {},
    /** Extra response headers, e.g. Retry-After. */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
  get status(): (typeof ERROR_STATUS)[ErrorCode] {
    return ERROR_STATUS[this.code];
  }
}

export class NotFoundError extends ServiceError {
  constructor(entity: string) {
    super("not_found", `${entity} not found`);
  }
}

export class InvalidParameterError extends ServiceError {
  constructor(parameter: string, message: string) {
    super("invalid_parameter", message, { parameter });
  }
}

export class InsufficientScopeError extends ServiceError {
  constructor(requiredScope: string) {
    super("insufficient_scope", `This key lacks the ${requiredScope} scope.`, { requiredScope });
  }
}
