import type { DbOrTx } from "../../db/client.ts";
import type { Plan, SubscriptionStatus } from "../../db/schema/index.ts";
import {
  type BillingAlert,
  billingAlertFor,
  type LedgerAlert,
  ledgerAlertFor,
  trialDaysRemaining,
} from "../../domain/metering/alerts.ts";
import {
  type CreditUsage,
  type CreditWindowState,
  creditUsage,
  msUntilCreditFrees,
  msUntilNextCredit,
} from "../../domain/metering/credit-window.ts";
import { DEFAULT_LIMITS, type MeteringLimits } from "../../domain/metering/plans.ts";
import { type DailyQuota, dailyQuota } from "../../domain/metering/quota.ts";
import {
  ceilSeconds,
  type RateLimitPolicyState,
  rateLimitField,
  rateLimitPolicyField,
} from "../../domain/metering/rate-limit-headers.ts";
import type { Logger } from "../../logger.ts";
import type { BillingContext } from "../billing/billing-context.ts";
import type { AuthenticatedKey, OrgRef } from "../context.ts";
import { ServiceError } from "../errors.ts";
import { resolveTargetOrg } from "../keys/resolve-target-org.ts";
import { withRetryTime } from "../ledger/retry-state.ts";
import type { BurstLimitFigures } from "../status/get-status.ts";
import {
  type BurstDecision,
  type BurstLimiter,
  type BurstToken,
  InProcessBurstLimiter,
} from "./burst-limiter.ts";
import {
  type CreditAdmitInput,
  type CreditAdmitResult,
  type CreditStore,
  pgCreditStore,
} from "./credit-store.ts";
import type { GiveUp } from "./keyed-batcher.ts";

/** A request that passed authentication, organisation and scope, as metering sees it. */
export interface MeterRequest {
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

/** The `subscription` object of /status. */
export interface SubscriptionFigures {
  /** Null when the organisation has no billing account. */
  status: SubscriptionStatus | null;
  plan: Plan | null;
  /** ISO 8601 while trialing, else null. */
  trialEndsAt: string | null;
  /** Whole days left (rounded up) while trialing, else null. */
  trialDaysRemaining: number | null;
  autoTopUp: boolean;
}

/** What /status reports and the `X-Service-*` headers mirror, for one organisation and key. */
export interface MeterFigures {
  orgId: string;
  subscription: SubscriptionFigures;
  quota: DailyQuota;
  /** Null when the key's user has no billable seat (or the organisation no billing account). */
  usage: CreditUsage | null;
  billingAlert: BillingAlert | null;
  ledgerAlert: LedgerAlert | null;
}

/** An admitted request: what to add to its successful response, and how to undo its charge. */
export interface MeterAdmission {
  /** Null when no organisation is billed (`/api/agent/orgs` for a key reaching several). */
  figures: MeterFigures | null;
  /** Headers for a successful (2xx) response. */
  headers: Record<string, string>;
  /** The burst cap the request was admitted under (its limiter's own figures; /status). */
  burstLimit: BurstLimitFigures;
  burstToken: BurstToken | null;
  creditUseId: string | null;
}

export interface MeteringOptions {
  /** Where credits are stored and billing state is read (normally the app's database). */
  db: DbOrTx;
  logger: Logger;
  /** Default: an in-process limiter with `limits.burstLimit` per `limits.burstWindowMs`. */
  burst?: BurstLimiter;
  /** Default: DEFAULT_LIMITS (the spec's). */
  limits?: MeteringLimits;
  /** Default: `pgCreditStore(db)` (group admission). */
  store?: CreditStore;
  /** A store call slower than this answers 503 (and is refunded if it admits later). */
  storeTimeoutMs?: number;
}

/** Seconds a 503 asks the client to wait. */
export const UNAVAILABLE_RETRY_SECONDS = 5;

class StoreTimeoutError extends Error {}

/** The burst cap counts per key per endpoint (route template). */
const burstBucket = (req: MeterRequest) => `${req.key.id}:${req.routeTemplate}`;

function burstPolicy(d: BurstDecision): RateLimitPolicyState {
  return {
    name: "burst",
    quota: d.limit,
    windowSeconds: Math.round(d.windowMs / 1000),
    remaining: d.remaining,
    resetSeconds: ceilSeconds(d.resetMs),
  };
}

function creditPolicy(state: CreditWindowState, usage: CreditUsage, now: Date, windowMs: number) {
  return {
    name: "credits",
    quota: usage.limit,
    windowSeconds: Math.round(windowMs / 1000),
    remaining: usage.remaining,
    resetSeconds: ceilSeconds(msUntilCreditFrees(state, now, windowMs)),
  } satisfies RateLimitPolicyState;
}

function rateLimitHeaders(policies: RateLimitPolicyState[]): Record<string, string> {
  return {
    "RateLimit-Policy": rateLimitPolicyField(policies),
    RateLimit: rateLimitField(policies),
  };
}

/** The subscription figures of a billing account at `now`. */
export function subscriptionFigures(
  account: BillingContext["account"],
  now: Date,
): SubscriptionFigures {
  if (!account) {
    return {
      status: null,
      plan: null,
      trialEndsAt: null,
      trialDaysRemaining: null,
      autoTopUp: false,
    };
  }
  const trialing = account.status === "trialing" && account.trialEndsAt !== null;
  return {
    status: account.status,
    plan: account.plan,
    trialEndsAt: trialing && account.trialEndsAt ? account.trialEndsAt.toISOString() : null,
    trialDaysRemaining:
      trialing && account.trialEndsAt ? trialDaysRemaining(account.trialEndsAt, now) : null,
    autoTopUp: account.autoTopUp,
  };
}

/** The figures of one request from its billing context, credit window and daily bucket. */
export function meterFigures(input: {
  orgId: string;
  context: BillingContext;
  state: CreditWindowState | null;
  quotaUsed: number;
  now: Date;
  limits: MeteringLimits;
}): MeterFigures {
  const { context, now, limits } = input;
  const subscription = subscriptionFigures(context.account, now);
  const usage = input.state ? creditUsage(input.state, now, limits.creditWindowMs) : null;
  const quotaLimit = context.account ? limits.dailyQuota[context.account.plan] : 0;
  return {
    orgId: input.orgId,
    subscription,
    quota: dailyQuota(quotaLimit, input.quotaUsed, now),
    usage,
    billingAlert:
      subscription.status === null
        ? null
        : billingAlertFor({
            status: subscription.status,
            trialDaysRemaining: subscription.trialDaysRemaining,
            credits: usage,
          }),
    ledgerAlert: ledgerAlertFor(context.ledger, context.lastSuccessfulSync, now),
  };
}

/** The `X-Service-*` headers of a successful response (spec: Response headers). */
export function serviceHeaders(figures: MeterFigures): Record<string, string> {
  const h: Record<string, string> = {};
  const s = figures.subscription;
  if (s.status) h["X-Service-Subscription"] = s.status;
  if (s.plan) h["X-Service-Plan"] = s.plan;
  if (s.status === "trialing" && s.trialDaysRemaining !== null) {
    h["X-Service-Trial-Days-Remaining"] = String(s.trialDaysRemaining);
  }
  if (figures.usage) h["X-Service-Reset-Minutes"] = String(figures.usage.nextCreditInMinutes);
  h["X-Service-Quota-Remaining"] = String(figures.quota.remaining);
  h["X-Service-Quota-Reset"] = figures.quota.resetAt;
  return h;
}

/**
 * Burst cap and query credits (docs/metering.md). `admit` runs after authentication,
 * organisation and scope: burst cap first, then one query credit (unless the route is exempt).
 * A refusal throws a ServiceError: 429 `rate_limited` or `credits_exhausted` (with Retry-After
 * and the RateLimit fields), 403 `no_billable_seat`, or 503 `service_unavailable` when credits
 * cannot be checked: nothing is served unmetered. `settle` gives back what a request that did
 * not succeed should not pay for.
 */
export class Metering {
  readonly limits: MeteringLimits;
  readonly burst: BurstLimiter;
  readonly store: CreditStore;
  private readonly db: DbOrTx;
  private readonly logger: Logger;
  private readonly storeTimeoutMs: number;

  constructor(opts: MeteringOptions) {
    this.db = opts.db;
    this.logger = opts.logger;
    this.limits = opts.limits ?? DEFAULT_LIMITS;
    this.burst =
      opts.burst ?? new InProcessBurstLimiter(this.limits.burstLimit, this.limits.burstWindowMs);
    this.store = opts.store ?? pgCreditStore(opts.db);
    this.storeTimeoutMs = opts.storeTimeoutMs ?? 2_000;
  }

  /** Burst cap first, then one query credit (or, for an exempt route, the window's figures). */
  async admit(req: MeterRequest): Promise<MeterAdmission> {
    const burst = await this.burst.take(burstBucket(req), req.now);
    const burstState = burstPolicy(burst);
    if (!burst.allowed) throw this.rateLimited(burst, burstState);
    const org = req.org ?? (req.chargesCredit ? await this.billedOrgWithoutTarget(req.key) : null);
    if (!org) return unbilled(burst, burstState);
    return await this.credit(req, org, burst, burstState);
  }

  /** One query credit (or, for an exempt route, the window's figures without one). */
  private async credit(
    req: MeterRequest,
    org: OrgRef,
    burst: BurstDecision,
    burstState: RateLimitPolicyState,
  ): Promise<MeterAdmission> {
    const userId = req.key.createdByUserId;
    const windowMs = this.limits.creditWindowMs;
    const allowance = this.limits.allowance;
    if (!req.chargesCredit) {
      const window = await this.guard(() =>
        this.store.inspect({ userId, orgId: org.id, now: req.now, windowMs, allowance }),
      );
      return this.admission(req, org.id, burst, burstState, window, null);
    }
    const input: CreditAdmitInput = {
      userId,
      orgId: org.id,
      now: req.now,
      windowMs,
      allowance,
      keyId: req.key.id,
      route: req.routeTemplate,
      requestId: req.requestId,
      packs: this.limits.topUpPack,
    };
    const admitted = await this.guard(
      (signal) => this.store.admit({ ...input, signal }),
      (late) => this.refundLate(late),
    );
    return this.charged(req, org.id, burst, burstState, admitted);
  }

  /** The store's answer to a charged call: the admission, or its refusal (thrown). */
  private async charged(
    req: MeterRequest,
    orgId: string,
    burst: BurstDecision,
    burstState: RateLimitPolicyState,
    admitted: CreditAdmitResult,
  ): Promise<MeterAdmission> {
    if (admitted.decision === "no_account" || admitted.decision === "no_seat") {
      throw noBillableSeat(admitted.decision === "no_account");
    }
    if (admitted.decision === "refuse") {
      // A refusal always comes with the window it was refused on.
      if (!admitted.state) throw new Error("credit refusal without a window");
      throw this.creditsExhausted(admitted.state, req.now, burstState);
    }
    return this.admission(req, orgId, burst, burstState, admitted, admitted.useId);
  }

  /** An admitted request's figures and headers. */
  private async admission(
    req: MeterRequest,
    orgId: string,
    burst: BurstDecision,
    burstState: RateLimitPolicyState,
    window: { context: BillingContext; state: CreditWindowState | null; quotaUsed: number },
    creditUseId: string | null,
  ): Promise<MeterAdmission> {
    const { state, quotaUsed } = window;
    const context = await retryingContext(this.db, orgId, window.context);
    const figures = meterFigures({
      orgId,
      context,
      state,
      quotaUsed,
      now: req.now,
      limits: this.limits,
    });
    const policies = [burstState];
    if (state && figures.usage) {
      policies.push(creditPolicy(state, figures.usage, req.now, this.limits.creditWindowMs));
    }
    const headers = serviceHeaders(figures);
    headers["RateLimit-Policy"] = rateLimitPolicyField(policies);
    headers.RateLimit = rateLimitField(policies);
    return {
      figures,
      headers,
      burstLimit: burstLimitOf(burst),
      burstToken: burst.token,
      creditUseId,
    };
  }

  /**
   * After the handler, the one place the credit rule is applied: a request refused later in the
   * pipeline (400, 401, 403) gives back its burst slot and its credit; a 5xx, and a 304 (a
   * conditional GET whose tag still matches: nothing new was read), give back their credit but
   * keep the burst slot used, so a failing endpoint cannot be hammered and revalidation stays
   * under the burst cap. Failures here are logged, never surfaced.
   */
  async settle(_req: MeterRequest, status: number, admission?: MeterAdmission): Promise<void> {
    if (!admission) return;
    const refused = status === 400 || status === 401 || status === 403;
    if (refused && admission.burstToken) {
      await this.burst.release(admission.burstToken).catch((err: unknown) => {
        this.logger.warn({ err }, "metering: could not release a burst slot");
      });
    }
    if ((refused || status === 304 || status >= 500) && admission.creditUseId) {
      await this.store.refund(admission.creditUseId).catch((err: unknown) => {
        this.logger.error({ err }, "metering: could not refund a query credit");
      });
    }
  }

  async close(): Promise<void> {
    await this.burst.close();
  }

  /**
   * `/api/agent/orgs` has no target organisation; it is charged to the organisation the flat
   * routes would read (an organisation key's own, or the only one a USER or PARTNER key
   * reaches). A key reaching none or several has nothing to charge: it is discovering which
   * `{orgId}` to address, and only the burst cap applies.
   */
  private async billedOrgWithoutTarget(key: AuthenticatedKey): Promise<OrgRef | null> {
    try {
      return await this.guard(() => resolveTargetOrg(this.db, key, undefined));
    } catch (err) {
      if (err instanceof ServiceError && err.status < 500) return null;
      throw err;
    }
  }

  /** Runs a store call; unreachable or too slow becomes 503 `service_unavailable`. */
  private async guard<T>(
    op: (signal: GiveUp) => Promise<T>,
    onLate?: (value: T) => void,
  ): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    let timedOut = false;
    // Aborted when the call times out: a store call still waiting to be sent is then dropped.
    const abandon: { aborted: boolean; reason?: unknown } = { aborted: false };
    const call = op(abandon);
    try {
      return await Promise.race([
        call,
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => {
            timedOut = true;
            abandon.aborted = true;
            abandon.reason = new StoreTimeoutError("gave up waiting for the credit store");
            reject(new StoreTimeoutError(`credit store slower than ${this.storeTimeoutMs} ms`));
          }, this.storeTimeoutMs);
        }),
      ]);
    } catch (err) {
      if (err instanceof ServiceError) throw err;
      if (timedOut && onLate) call.then(onLate, () => {});
      this.logger.error({ err }, "metering: credit store unavailable");
      throw new ServiceError(
        "service_unavailable",
        "Query credits cannot be checked right now, so the request was not served. Retry shortly.",
        { retryAfterSeconds: UNAVAILABLE_RETRY_SECONDS },
        { "Retry-After": String(UNAVAILABLE_RETRY_SECONDS) },
      );
    } finally {
      clearTimeout(timer);
    }
  }

  /** An admission that completed after its request already answered 503 is given back. */
  private refundLate(late: CreditAdmitResult): void {
    if (!late.useId) return;
    this.store.refund(late.useId).catch((err: unknown) => {
      this.logger.error({ err }, "metering: could not refund a late admission");
    });
  }

  private rateLimited(d: BurstDecision, policy: RateLimitPolicyState): ServiceError {
    const retryAfterSeconds = Math.max(1, ceilSeconds(d.resetMs));
    return new ServiceError(
      "rate_limited",
      `Burst cap: at most ${d.limit} requests per ${Math.round(d.windowMs / 1000)} seconds per ` +
        `key per endpoint. Retry in ${retryAfterSeconds} s.`,
      { retryAfterSeconds },
      { "Retry-After": String(retryAfterSeconds), ...rateLimitHeaders([policy]) },
    );
  }

  private creditsExhausted(
    state: CreditWindowState,
    now: Date,
    burst: RateLimitPolicyState,
  ): ServiceError {
    const windowMs = this.limits.creditWindowMs;
    const usage = creditUsage(state, now, windowMs);
    const retryAfterSeconds = Math.max(1, ceilSeconds(msUntilNextCredit(state, now, windowMs)));
    return new ServiceError(
      "credits_exhausted",
      `All ${state.limit} query credits of the rolling 5-hour window are used; the next frees in ` +
        `${usage.nextCreditInMinutes} min. Upgrade the plan or turn on automatic top-up.`,
      { retryAfterSeconds, nextCreditInMinutes: usage.nextCreditInMinutes },
      {
        "Retry-After": String(retryAfterSeconds),
        ...rateLimitHeaders([burst, creditPolicy(state, usage, now, windowMs)]),
      },
    );
  }
}

function burstLimitOf(d: BurstDecision): BurstLimitFigures {
  return { limit: d.limit, windowSeconds: Math.round(d.windowMs / 1000) };
}

/** An admission without a billed organisation: the burst cap's headers only. */
function unbilled(burst: BurstDecision, burstState: RateLimitPolicyState): MeterAdmission {
  return {
    figures: null,
    headers: rateLimitHeaders([burstState]),
    burstLimit: burstLimitOf(burst),
    burstToken: burst.token,
    creditUseId: null,
  };
}

function noBillableSeat(noAccount: boolean): ServiceError {
  return new ServiceError(
    "no_billable_seat",
    noAccount
      ? "This organisation has no billing account, so no key has query credits for it. " +
          "GET /api/agent/status still answers."
      : "This key's user holds no seat on the billing account of this organisation, so it has " +
          "no query credits for it. The account owner can add a seat; GET /api/agent/status " +
          "still answers.",
  );
}

/**
 * The figures of (key, organisation) at `now` without admitting anything: what /status shows
 * when the pipeline ran without real metering (tests with `noopMetering`).
 */
export async function readMeterFigures(
  db: DbOrTx,
  input: {
    key: AuthenticatedKey;
    org: OrgRef;
    now: Date;
    limits?: MeteringLimits;
    store?: CreditStore;
  },
): Promise<MeterFigures> {
  const limits = input.limits ?? DEFAULT_LIMITS;
  const store = input.store ?? pgCreditStore(db);
  const { context, state, quotaUsed } = await store.inspect({
    userId: input.key.createdByUserId,
    orgId: input.org.id,
    now: input.now,
    windowMs: limits.creditWindowMs,
    allowance: limits.allowance,
  });
  return meterFigures({
    orgId: input.org.id,
    context: await retryingContext(db, input.org.id, context),
    state,
    quotaUsed,
    now: input.now,
    limits,
  });
}

/** The billing context with the ledger's retry time when it is retrying (the alert tells it). */
async function retryingContext(
  db: DbOrTx,
  orgId: string,
  context: BillingContext,
): Promise<BillingContext> {
  if (context.ledger?.status !== "service_issue") return context;
  // The retry time only adds words to the alert: a failed read leaves them out, never the answer.
  const ledger = await withRetryTime(db, orgId, context.ledger).catch(() => context.ledger);
  return { ...context, ledger };
}
