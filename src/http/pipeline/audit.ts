import type { Context } from "hono";
import { hasScope } from "../../domain/scopes.ts";
import type { AuditWriter } from "../../services/audit/audit-writer.ts";
import type { AuthenticatedKey } from "../../services/context.ts";
import type { AppEnv } from "../env.ts";
import { errorBody } from "../errors.ts";
import { jsonWithId } from "../request-id.ts";

/** Audit `route` of an authenticated request that matched no route. */
export const UNMATCHED_ROUTE = "(unmatched)";

/**
 * The last step of an authenticated agent request: once its response is built (by the route,
 * any pipeline step's refusal, or the not-found answer), hands one audit row (which also stamps
 * the key's last-used times) to the writer, and only then lets the response go. With
 * `immediateAuditWriter` the row is committed first (one round trip; tests observe it
 * deterministically); the server uses a BatchedAuditWriter, which buffers it. Should the writer
 * refuse, the answer becomes a 500 instead of a response served unaudited.
 */
export function audited(
  writer: AuditWriter,
  c: Context<AppEnv>,
  key: AuthenticatedKey,
  res: Response,
  started: Date,
): Response | Promise<Response> {
  const ctx = c.get("ctx");
  let writing: Promise<void> | undefined | void;
  try {
    writing = writer.write({
      keyId: key.id,
      orgId: ctx?.org.id ?? null,
      method: c.req.method,
      route: c.get("routeTemplate") ?? UNMATCHED_ROUTE,
      status: res.status,
      // The key's scopes in the target organisation, once resolved (READ_SENSITIVE may not apply
      // there); else its own.
      sensitive: hasScope(ctx?.scopes ?? key.scopes, "READ_SENSITIVE"),
      reason: key.stoppedBecause ?? null,
      requestId: c.get("requestId"),
      at: ctx?.now ?? started,
    });
  } catch (err) {
    return auditFailed(c, key, err);
  }
  // Buffered (the server's writer): nothing to wait for.
  if (!writing) return res;
  return writing.then(
    () => res,
    (err: unknown) => auditFailed(c, key, err),
  );
}

function auditFailed(c: Context<AppEnv>, key: AuthenticatedKey, err: unknown): Response {
  c.get("logger").error({ err, keyPrefix: key.prefix }, "audit write failed");
  const requestId = c.get("requestId");
  return jsonWithId(c, errorBody("internal_error", "Unexpected error.", { requestId }), 500);
}
