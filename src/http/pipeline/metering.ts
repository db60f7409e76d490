import { burstLimitOf, type Config } from "../../config.ts";
import type { DbOrTx } from "../../db/client.ts";
import { DEFAULT_LIMITS, limitsWith, type MeteringLimits } from "../../domain/metering/plans.ts";
import type { Logger } from "../../logger.ts";
import {
  type MeterAdmission,
  Metering,
  type MeteringOptions,
  type MeterRequest,
} from "../../services/metering/metering.ts";
import { RedisBurstLimiter } from "../../services/metering/redis-burst-limiter.ts";

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

/**
 * The limits of this deployment: the spec's (DEFAULT_LIMITS, the very object) unless
 * BURST_LIMIT_PER_MINUTE sets another burst cap.
 */
export function meteringLimitsOf(config: Pick<Config, "BURST_LIMIT_PER_MINUTE">): MeteringLimits {
  if (config.BURST_LIMIT_PER_MINUTE === undefined) return DEFAULT_LIMITS;
  return limitsWith({ burstLimit: burstLimitOf(config) });
}

/** The real metering (burst cap, query credits, quota, alerts): the server's default. */
export function createMetering(opts: MeteringOptions): Metering {
  return new Metering(opts);
}

/**
 * The server's metering for `config`: the limits of meteringLimitsOf, and with REDIS_URL a burst
 * cap shared by every instance through Redis (connected before it returns), else in-process.
 */
export async function deploymentMetering(
  config: Pick<Config, "BURST_LIMIT_PER_MINUTE" | "REDIS_URL">,
  deps: { db: DbOrTx; logger: Logger; redisKeyPrefix?: string },
): Promise<Metering> {
  const limits = meteringLimitsOf(config);
  let burst: RedisBurstLimiter | undefined;
  if (config.REDIS_URL) {
    burst = new RedisBurstLimiter({
      url: config.REDIS_URL,
      limit: limits.burstLimit,
      windowMs: limits.burstWindowMs,
      logger: deps.logger,
      ...(deps.redisKeyPrefix ? { keyPrefix: deps.redisKeyPrefix } : {}),
    });
    await burst.connect();
  }
  return createMetering({ db: deps.db, logger: deps.logger, burst, limits });
}
