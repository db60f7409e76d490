import type { Context, MiddlewareHandler } from "hono";
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
 * What it returns (headers, figures, alerts) is kept on the request (`admittedFor(c)`).
 * `settle` runs after the handler with the final status, e.g. to refund a failed call.
 */
export interface MeteringHook {
  // biome-ignore lint/suspicious/noConfusingVoidType: a hook that admits without figures is written `async () => {}`, which returns Promise<void>.
  admit(ctx: MeteringContext): Promise<MeterAdmission | undefined | void>;
  settle(ctx: MeteringContext, status: number, admission?: MeterAdmission): Promise<void>;
  /**
   * True when the request's handler may run while `admit` decides (the pipeline then holds the
   * response until it has). Absent: always admit first.
   */
  speculative?(ctx: MeteringContext): boolean;
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
 * The pipeline step that calls the hook around the handler: admission first, or, for a key in
 * good standing (`speculative`), alongside the read-only handler. The admission is kept on the
 * request (`admittedFor(c)`); the route adds its headers (`X-Service-*`, `RateLimit`,
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
    const admitting = hook.admit(meteringCtx).then((a) => {
      if (a) c.set("metering", a);
      return a ?? undefined;
    });
    c.set("meteringAdmission", admitting);
    let admission: MeterAdmission | undefined;
    if (hook.speculative?.(meteringCtx)) {
      // The API is read-only: the handler may run while the admission is decided, and its
      // response waits for it (see `admittedFor`). A refusal thrown here, after the handler,
      // replaces whatever the handler produced (400s included), as if it had come first.
      admitting.catch(() => {}); // observed on the next lines; not an unhandled rejection
      await next();
      admission = await admitting;
    } else {
      admission = await admitting;
      await next();
    }
    await hook.settle(meteringCtx, c.res.status, admission);
  };
}

/**
 * The request's admission, once decided: what a route awaits before it builds its response
 * (a refusal throws here, so a speculatively run handler never answers a refused request).
 */
export async function admittedFor(c: Context<AppEnv>): Promise<MeterAdmission | undefined> {
  return (await c.get("meteringAdmission")) ?? c.get("metering");
}

/** The headers a successful metered response carries: the admission's, if it had one. */
export function meteringHeaders(admission: MeterAdmission | undefined): Record<string, string> {
  return admission?.headers ?? {};
}
