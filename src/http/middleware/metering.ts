import type { MiddlewareHandler } from "hono";
import type { Clock } from "../../domain/clock.ts";
import {
  type MeterAdmission,
  Metering,
  type MeteringOptions,
  type MeterRequest,
} from "../../services/metering/metering.ts";
import type { AppEnv } from "../env.ts";

/** What the metering slot learns about a request that passed authentication, reach and scope. */
export type MeteringContext = MeterRequest;

/**
 * The metering slot of the agent pipeline. `admit` runs after scope checking and before the
 * handler; it refuses a request by throwing a ServiceError (`rate_limited`, `credits_exhausted`,
 * `no_billable_seat`, `service_unavailable`), which becomes its error response like any other.
 * What it returns (headers, figures, alerts) is kept on the request (`c.get("metering")`).
 * `settle` runs after the handler with the final status, e.g. to refund a failed call.
 */
export interface MeteringHook {
  // biome-ignore lint/suspicious/noConfusingVoidType: a hook that admits without figures is written `async () => {}`, which returns Promise<void>.
  admit(ctx: MeteringContext): Promise<MeterAdmission | undefined | void>;
  settle(ctx: MeteringContext, status: number, admission?: MeterAdmission): Promise<void>;
}

/** Admits everything and records nothing: for tests that do not exercise metering. */
export const noopMetering: MeteringHook = {
  admit: async () => {},
  settle: async () => {},
};

/** The real metering (burst cap, query credits, quota, alerts): the server's default. */
export function createMetering(opts: MeteringOptions): Metering {
  return new Metering(opts);
}

/**
 * The pipeline step that calls the hook around the handler. The admission is kept on the request
 * (`c.get("metering")`); the route adds its headers (`X-Service-*`, `RateLimit`,
 * `RateLimit-Policy`) when it builds its successful response (`meteringHeaders`), since adding
 * headers to a response that already exists makes Hono rebuild it from its body stream.
 */
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
    const admission = (await hook.admit(meteringCtx)) ?? undefined;
    if (admission) c.set("metering", admission);
    await next();
    await hook.settle(meteringCtx, c.res.status, admission);
  };
}

/** The headers a successful metered response carries: the admission's, if it had one. */
export function meteringHeaders(admission: MeterAdmission | undefined): Record<string, string> {
  return admission?.headers ?? {};
}
