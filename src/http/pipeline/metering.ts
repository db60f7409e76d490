import type { Context } from "hono";
import {
  type MeterAdmission,
  Metering,
  type MeteringOptions,
  type MeterRequest,
} from "../../services/metering/metering.ts";
import type { AppEnv } from "../env.ts";
import { onError } from "../errors.ts";
import { jsonWithId } from "../request-id.ts";

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

/**
 * The metering step around a route's work (`produce`: validation and handler), and the response:
 * admission first, or, for a key in good standing (`speculative`), alongside the read-only work,
 * whose outcome then waits for the decision. A refusal is thrown (a ServiceError: 429, 403
 * `no_billable_seat`, 503) and replaces whatever the work produced, 400s included, as if it had
 * come first. Otherwise the response is the work's body with the admission's alerts and headers
 * (`X-Service-*`, `RateLimit`, `RateLimit-Policy`, given as the response is built: adding headers
 * to a response that already exists makes Hono rebuild it from its body stream), or the error
 * the work threw. `settle` then sees the final status (a 400, 401, 403 or 5xx gives back what it
 * should not pay for).
 *
 * The admission is kept on the request (`admittedFor(c)`): `/status` reads its figures.
 */
export async function metered(
  hook: MeteringHook,
  c: Context<AppEnv>,
  req: MeteringContext,
  produce: () => Promise<unknown>,
): Promise<Response> {
  const soon = hook.admitSoon ? hook.admitSoon(req) : hook.admit(req);
  let admission: MeterAdmission | undefined;
  // An admission still being decided while the work runs (speculative), else undefined.
  let admitting: Promise<MeterAdmission | undefined> | undefined;
  if (!(soon instanceof Promise)) {
    // Decided already (the hot path: no round trip, so nothing to run alongside).
    admission = soon;
    c.set("meteringAdmission", admission);
  } else {
    admitting = soon.then(orUndefined);
    c.set("meteringAdmission", admitting);
    if (hook.speculative?.(req)) {
      admitting.catch(() => {}); // observed below, once the work is done
    } else {
      admission = await admitting;
      admitting = undefined;
    }
  }
  let body: unknown;
  let failure: { error: unknown } | undefined;
  try {
    body = await produce();
  } catch (error) {
    failure = { error };
  }
  // A refusal is thrown here, whatever the work produced.
  if (admitting) admission = await admitting;
  const res = failure ? onError(failure.error, c) : admitted(c, body, admission);
  const settling = hook.settle(req, res.status, admission);
  if (settling) await settling;
  return res;
}

// biome-ignore lint/suspicious/noConfusingVoidType: see MeteringHook.admit.
const orUndefined = (a: MeterAdmission | undefined | void) => a ?? undefined;

/**
 * A successful response: the body with the admission's headers and alerts. Every organisation
 * route's body can carry `billingAlert` and `ledgerAlert` (spec rule 4), so handlers never deal
 * with them: a plain object body gets them as its last members, as `{ ...body, billingAlert }`
 * would, but appended to the body's JSON rather than by copying the body (the body itself is
 * never changed: verbs may return values they keep, such as a forecast's weeks).
 */
function admitted(c: Context<AppEnv>, body: unknown, admission: MeterAdmission | undefined) {
  const headers = admission?.headers;
  const figures = admission?.figures;
  if (!figures || (!figures.billingAlert && !figures.ledgerAlert)) {
    return jsonWithId(c, body, 200, headers);
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return jsonWithId(c, body, 200, headers);
  }
  const alerts: Record<string, unknown> = {};
  const spread =
    Object.hasOwn(body, "billingAlert") ||
    Object.hasOwn(body, "ledgerAlert") ||
    typeof (body as { toJSON?: unknown }).toJSON === "function";
  if (figures.billingAlert) alerts.billingAlert = figures.billingAlert;
  if (figures.ledgerAlert) alerts.ledgerAlert = figures.ledgerAlert;
  if (spread) {
    // A body naming them itself keeps their place, as the spread would; a body with toJSON
    // serialises as whatever that answers.
    return jsonWithId(c, { ...body, ...alerts }, 200, headers);
  }
  return jsonWithId(c, body, 200, headers, JSON.stringify(alerts).slice(1, -1));
}

/**
 * The request's admission, once decided (a refusal throws here): what `/status` awaits for the
 * figures its headers carry, since its handler may run before the admission is decided.
 */
export async function admittedFor(c: Context<AppEnv>): Promise<MeterAdmission | undefined> {
  return await c.get("meteringAdmission");
}
