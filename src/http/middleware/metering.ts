import type { MiddlewareHandler } from "hono";
import type { Clock } from "../../domain/clock.ts";
import type { AuthenticatedKey, OrgRef } from "../../services/context.ts";
import type { AppEnv } from "../env.ts";

/** What the metering slot learns about a request that passed authentication, reach and scope. */
export interface MeteringContext {
  key: AuthenticatedKey;
  /** The target organisation; null on routes without one (`/api/agent/orgs`). */
  org: OrgRef | null;
  /** Flat route template: the burst cap counts per key per endpoint. */
  routeTemplate: string;
  /** False for routes exempt from query credits (`/api/agent/status`). */
  chargesCredit: boolean;
  requestId: string;
  now: Date;
}

/**
 * The metering slot of the agent pipeline (burst cap and query credits arrive in a later issue).
 * `admit` runs after scope checking and before the handler; it refuses a request by throwing a
 * ServiceError (`rate_limited`, `credits_exhausted`), which becomes a 429 like any other error.
 * `settle` runs after the handler with the final status, e.g. to refund a failed call.
 */
export interface MeteringHook {
  admit(ctx: MeteringContext): Promise<void>;
  settle(ctx: MeteringContext, status: number): Promise<void>;
}

/** Admits everything and records nothing: the default until metering lands. */
export const noopMetering: MeteringHook = {
  admit: async () => {},
  settle: async () => {},
};

/** The pipeline step that calls the hook around the handler. */
export function meter(
  hook: MeteringHook,
  clock: Clock,
  opts: { chargesCredit: boolean },
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const key = c.get("key");
    if (!key) return next();
    const ctx = c.get("ctx");
    const meteringCtx: MeteringContext = {
      key,
      org: ctx?.org ?? null,
      routeTemplate: c.get("routeTemplate") ?? c.req.path,
      chargesCredit: opts.chargesCredit,
      requestId: c.get("requestId"),
      now: ctx?.now ?? clock.now(),
    };
    await hook.admit(meteringCtx);
    await next();
    await hook.settle(meteringCtx, c.res.status);
  };
}
