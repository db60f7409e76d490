import type { Context } from "hono";
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
 * The metering slot of the agent pipeline (see `metered`). `admit` runs after scope checking and
 * before the handler; it refuses a request by throwing a ServiceError (`rate_limited`,
 * `credits_exhausted`, `no_billable_seat`, `service_unavailable`), which becomes its error
 * response like any other. What it returns (headers, figures, alerts) is kept on the request
 * (`admittedFor(c)`). `settle` runs after the handler with the final status, e.g. to refund a
 * failed call.
 */
export interface MeteringHook {
  // biome-ignore lint/suspicious/noConfusingVoidType: a hook that admits without figures is written `async () => {}`, which returns Promise<void>.
  admit(ctx: MeteringContext): Promise<MeterAdmission | undefined | void>;
  /**
   * The same decision as `admit`, returned as it is (not a promise) when it needs no round trip;
   * a refusal thrown. Absent: `admit` is used.
   */
  admitSoon?(ctx: MeteringContext): MeterAdmission | Promise<MeterAdmission>;
  /** Nothing (rather than a promise) when there is nothing to give back. */
  settle(ctx: MeteringContext, status: number, admission?: MeterAdmission): Promise<void> | void;
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

/** A route's outcome before metering has had its say: the body to send, or what went wrong. */
export type Produced = { body: unknown } | { error: unknown };

/**
 * The metering step around a route's work (`produce`: validation and handler): admission first,
 * or, for a key in good standing (`speculative`), alongside the read-only work, whose outcome then
 * waits for the decision. A refusal is thrown (a ServiceError: 429, 403 `no_billable_seat`, 503)
 * and replaces whatever the work produced, 400s included, as if it had come first. Otherwise
 * `respond` builds the response from the outcome and the admission (whose headers, `X-Service-*`,
 * `RateLimit` and `RateLimit-Policy`, go into a successful response as it is built: adding headers
 * to a response that already exists makes Hono rebuild it from its body stream). `settle` then
 * sees the final status (a 400, 401, 403 or 5xx gives back what it should not pay for).
 *
 * The admission being decided is kept on the request (`admittedFor(c)`): `/status` reads its
 * figures.
 */
export async function metered(
  hook: MeteringHook,
  c: Context<AppEnv>,
  req: MeteringContext,
  produce: () => Promise<unknown>,
  respond: (produced: Produced, admission: MeterAdmission | undefined) => Response,
): Promise<Response> {
  const soon = hook.admitSoon ? hook.admitSoon(req) : hook.admit(req);
  let produced: Produced;
  let admission: MeterAdmission | undefined;
  if (!(soon instanceof Promise)) {
    // Decided already (the hot path: no round trip, so nothing to run alongside).
    admission = soon;
    c.set("meteringAdmission", admission);
    produced = await outcomeOf(produce);
  } else {
    const admitting = soon.then(orUndefined);
    c.set("meteringAdmission", admitting);
    if (hook.speculative?.(req)) {
      admitting.catch(() => {}); // observed below, once the work is done
      produced = await outcomeOf(produce);
      admission = await admitting;
    } else {
      admission = await admitting;
      produced = await outcomeOf(produce);
    }
  }
  const res = respond(produced, admission);
  const settling = hook.settle(req, res.status, admission);
  if (settling) await settling;
  return res;
}

async function outcomeOf(produce: () => Promise<unknown>): Promise<Produced> {
  try {
    return { body: await produce() };
  } catch (error) {
    return { error };
  }
}

// biome-ignore lint/suspicious/noConfusingVoidType: see MeteringHook.admit.
const orUndefined = (a: MeterAdmission | undefined | void) => a ?? undefined;

/**
 * The request's admission, once decided (a refusal throws here): what `/status` awaits for the
 * figures its headers carry, since its handler may run before the admission is decided.
 */
export async function admittedFor(c: Context<AppEnv>): Promise<MeterAdmission | undefined> {
  return await c.get("meteringAdmission");
}

/** The headers a successful metered response carries: the admission's, if it had one. */
export function meteringHeaders(admission: MeterAdmission | undefined): Record<string, string> {
  return admission?.headers ?? {};
}
