import {
  type MeterAdmission,
  Metering,
  type MeteringOptions,
  type MeterRequest,
} from "../../services/metering/metering.ts";

/** What the metering step learns about a call that passed authentication, reach and scope. */
export type MeteringContext = MeterRequest;

/**
 * The metering step of the agent pipeline (agent-call.ts). `admit` runs after the scope check
 * and before validation and the handler; it refuses a call by throwing a ServiceError
 * (`rate_limited`, `credits_exhausted`, `no_billable_seat`, `service_unavailable`), which becomes
 * its answer like any other refusal. What it returns (headers, figures, alerts) goes onto a
 * successful answer. `settle` runs after the handler with the final status, e.g. to refund a
 * failed call.
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
