import {
  BrokenCircuitError,
  type BulkheadPolicy,
  bulkhead,
  type CircuitBreakerPolicy,
  CircuitState,
  ConsecutiveBreaker,
  circuitBreaker,
  DelegateBackoff,
  handleWhen,
  type RetryPolicy,
  retry,
  TaskCancelledError,
  TimeoutStrategy,
  timeout,
} from "cockatiel";

/*
 * The one policy every ledger call goes through (mapping.md §0 "Rate limits", §4.2):
 * - per tenant (process-wide, shared by every connection to it): a bulkhead of 5 calls in flight,
 *   a sliding window of 60 call starts a minute, a pause until `Retry-After` after a 429, and the
 *   daily budget (5,000, or what `X-DayLimit-Remaining` says is left);
 * - per connection: a circuit breaker that opens after consecutive server faults (5xx, timeouts,
 *   network errors), and retries with jittered exponential backoff for server faults and 429s
 *   (429s wait `Retry-After`, not the backoff);
 * - per attempt: a timeout.
 * Built on cockatiel's bulkhead, retry, circuit breaker and timeout; the rate window and the
 * Retry-After pause are the two waits cockatiel has no policy for.
 */

export interface LedgerPolicyOptions {
  /** Calls in flight per tenant (Xero: 5). */
  maxConcurrent: number;
  /** Call starts per window per tenant (Xero: 60 a minute). */
  perWindow: number;
  windowMs: number;
  /** Calls per UTC day per tenant (Xero: 5,000; 1,000 on the Starter tier). */
  dailyBudget: number;
  /** Attempts per call, the first included. */
  maxAttempts: number;
  /** One attempt's time limit. */
  timeoutMs: number;
  /** Consecutive server faults that open a connection's breaker. */
  breakerThreshold: number;
  /** How long an open breaker waits before letting one trial call through. */
  breakerHalfOpenMs: number;
  /** First retry delay of the exponential backoff (with decorrelated jitter). */
  backoffInitialMs: number;
  backoffMaxMs: number;
}

export const DEFAULT_LEDGER_POLICY: LedgerPolicyOptions = {
  maxConcurrent: 5,
  perWindow: 60,
  windowMs: 60_000,
  dailyBudget: 5_000,
  maxAttempts: 8,
  timeoutMs: 30_000,
  breakerThreshold: 5,
  breakerHalfOpenMs: 60_000,
  backoffInitialMs: 500,
  backoffMaxMs: 30_000,
};

/** A ledger answer other than 2xx. Never carries a token or a request body. */
export class LedgerHttpError extends Error {
  constructor(
    readonly status: number,
    readonly path: string,
    readonly retryAfterMs?: number,
    readonly rateLimitProblem?: string,
  ) {
    super(`the ledger answered ${status} to ${path}`);
    this.name = "LedgerHttpError";
  }
}

/**
 * The ledger cannot be called now; `retryAt` says when it is worth trying again. Raised when the
 * breaker is open (`reason: "unavailable"`), the daily budget is spent (`"budget"`), or the
 * retries were exhausted on faults or 429s (`"unavailable"`, `"rate_limited"`).
 */
export class LedgerRetryLaterError extends Error {
  constructor(
    readonly reason: "unavailable" | "budget" | "rate_limited",
    readonly retryAt: Date,
    options?: { cause?: unknown },
  ) {
    super(
      reason === "budget"
        ? `the ledger's daily call budget is spent; next try at ${retryAt.toISOString()}`
        : reason === "rate_limited"
          ? `the ledger kept refusing calls (429); next try at ${retryAt.toISOString()}`
          : `the ledger is unavailable; next try at ${retryAt.toISOString()}`,
      options,
    );
    this.name = "LedgerRetryLaterError";
  }
}

/** Consent is gone (refresh refused with invalid_grant, or 401/403 after a fresh token). */
export class LedgerReconnectRequiredError extends Error {
  constructor(message = "the ledger refused our authorization; reconnect to grant access again") {
    super(message);
    this.name = "LedgerReconnectRequiredError";
  }
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, Math.max(0, ms)));

function isServerFault(e: unknown): boolean {
  if (e instanceof LedgerHttpError) return e.status >= 500;
  if (e instanceof TaskCancelledError) return true; // our timeout
  return e instanceof TypeError; // fetch's network failure ("fetch failed")
}

function isRetryable(e: unknown): boolean {
  if (e instanceof LedgerHttpError && e.status === 429) return e.rateLimitProblem !== "day";
  return isServerFault(e);
}

function nextUtcMidnight(now: number): Date {
  const d = new Date(now);
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1));
}

/** A shared limiter's answer: a ticket to call now, a wait, or the day's budget is spent. */
export type SharedTake = { ticket: string } | { waitMs: number } | { budgetSpent: true };

/**
 * The tenant's limits as every instance sees them (services/ledger/shared-limits.ts: rows in
 * PostgreSQL). The process's gate asks it after its own checks pass and tells it when the call
 * is answered.
 */
export interface SharedCallLimiter {
  take(input: {
    tenantId: string;
    now: number;
    maxConcurrent: number;
    perWindow: number;
    windowMs: number;
    dailyBudget: number;
  }): Promise<SharedTake>;
  done(ticket: string, at: number): Promise<void>;
}

/** The per-tenant part: concurrency, the minute window, 429 pauses and the daily budget. */
export class TenantGate {
  private readonly bulkhead: BulkheadPolicy;
  /** Calls in the current window: `at` is +∞ while in flight, then the answer's time. */
  private readonly slots: { at: number }[] = [];
  private pausedUntil = 0;
  private day = "";
  private usedToday = 0;
  /** The last `X-DayLimit-Remaining` seen today. */
  private dayRemaining: number | undefined;

  constructor(
    private readonly opts: LedgerPolicyOptions,
    private readonly now: () => number = Date.now,
    private readonly tenantId = "",
    private readonly shared?: SharedCallLimiter,
  ) {
    this.bulkhead = bulkhead(opts.maxConcurrent, Number.POSITIVE_INFINITY);
  }

  /** Runs `fn` once a slot is free and the window and budget allow a call. */
  run<T>(fn: () => Promise<T>): Promise<T> {
    return this.bulkhead.execute(async () => {
      const { slot, ticket } = await this.acquire();
      try {
        return await fn();
      } finally {
        // A call holds its place in the window from its start until a window after its answer:
        // the ledger saw it arrive somewhere in between, so however long the request took on
        // the way, the ledger never counts one call too many in its own window.
        slot.at = this.now();
        // A lost update leaves the row in flight until it is stale (2 minutes): slower, not wrong.
        if (ticket) await this.shared?.done(ticket, slot.at).catch(() => {});
      }
    });
  }

  private async acquire(): Promise<{ slot: { at: number }; ticket?: string }> {
    for (;;) {
      const t = this.now();
      this.rollDay(t);
      const left = this.dayRemaining ?? this.opts.dailyBudget - this.usedToday;
      if (left <= 0) throw new LedgerRetryLaterError("budget", nextUtcMidnight(t));
      if (this.pausedUntil > t) {
        await sleep(this.pausedUntil - t);
        continue;
      }
      let oldest = Number.POSITIVE_INFINITY;
      for (let i = this.slots.length - 1; i >= 0; i--) {
        const at = this.slots[i]?.at ?? 0;
        if (at <= t - this.opts.windowMs) this.slots.splice(i, 1);
        else oldest = Math.min(oldest, at);
      }
      if (this.slots.length >= this.opts.perWindow) {
        // Every slot may still be in flight (at = +∞): look again shortly.
        await sleep(Number.isFinite(oldest) ? oldest + this.opts.windowMs - t : 50);
        continue;
      }
      let ticket: string | undefined;
      if (this.shared) {
        const taken = await this.shared.take({
          tenantId: this.tenantId,
          now: t,
          maxConcurrent: this.opts.maxConcurrent,
          perWindow: this.opts.perWindow,
          windowMs: this.opts.windowMs,
          dailyBudget: this.opts.dailyBudget,
        });
        if ("budgetSpent" in taken) throw new LedgerRetryLaterError("budget", nextUtcMidnight(t));
        if ("waitMs" in taken) {
          await sleep(taken.waitMs);
          continue;
        }
        ticket = taken.ticket;
      }
      const slot = { at: Number.POSITIVE_INFINITY };
      this.slots.push(slot);
      this.usedToday += 1;
      if (this.dayRemaining !== undefined) this.dayRemaining -= 1;
      return { slot, ticket };
    }
  }

  /** Reads the limit headers of an answer (any status). */
  observe(headers: Headers): void {
    const day = Number.parseInt(headers.get("x-daylimit-remaining") ?? "", 10);
    if (Number.isFinite(day)) this.dayRemaining = day;
  }

  /** A 429: every call to this tenant waits until `retryAfterMs` from now. */
  pause(retryAfterMs: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, this.now() + retryAfterMs);
  }

  /** The daily budget left, as far as this process knows. */
  remainingToday(): number {
    this.rollDay(this.now());
    return this.dayRemaining ?? this.opts.dailyBudget - this.usedToday;
  }

  private rollDay(t: number): void {
    const day = new Date(t).toISOString().slice(0, 10);
    if (day !== this.day) {
      this.day = day;
      this.usedToday = 0;
      this.dayRemaining = undefined;
    }
  }
}

const gates = new Map<string, TenantGate>();

/**
 * The process's gate for a tenant: every connection and sync in this process that calls the
 * same tenant shares its 5 slots and 60 a minute (and, with a shared limiter, those of every
 * instance on the database). `registry` stands for another process in tests.
 */
export function tenantGate(
  tenantId: string,
  opts: LedgerPolicyOptions,
  options: {
    now?: () => number;
    shared?: SharedCallLimiter;
    registry?: Map<string, TenantGate>;
  } = {},
): TenantGate {
  const registry = options.registry ?? gates;
  let gate = registry.get(tenantId);
  if (!gate) {
    gate = new TenantGate(opts, options.now, tenantId, options.shared);
    registry.set(tenantId, gate);
  }
  return gate;
}

/** Forgets every tenant gate (tests that start a fresh fake with the same tenant ids). */
export function resetTenantGates(): void {
  gates.clear();
}

/** The per-connection part: breaker, retries, timeouts; calls go through the tenant's gate. */
export class LedgerPolicy {
  readonly breaker: CircuitBreakerPolicy;
  private readonly retry: RetryPolicy;
  /** Calls sent to the ledger (attempts, 429s included): what a sync run records. */
  calls = 0;

  constructor(
    private readonly opts: LedgerPolicyOptions = DEFAULT_LEDGER_POLICY,
    private readonly now: () => number = Date.now,
  ) {
    this.breaker = circuitBreaker(handleWhen(isServerFault), {
      halfOpenAfter: opts.breakerHalfOpenMs,
      breaker: new ConsecutiveBreaker(opts.breakerThreshold),
    });
    let lastDelay = opts.backoffInitialMs;
    this.retry = retry(handleWhen(isRetryable), {
      maxAttempts: opts.maxAttempts - 1,
      backoff: new DelegateBackoff((ctx) => {
        const error = "error" in ctx.result ? ctx.result.error : undefined;
        if (error instanceof LedgerHttpError && error.status === 429) {
          return error.retryAfterMs ?? 1000;
        }
        // Decorrelated jitter: uniform between the first delay and three times the last one.
        const base = opts.backoffInitialMs;
        lastDelay = Math.min(opts.backoffMaxMs, base + Math.random() * (lastDelay * 3 - base));
        return lastDelay;
      }),
    });
  }

  /** The breaker is open (or half-open and waiting for its trial call). */
  isOpen(): boolean {
    return this.breaker.state === CircuitState.Open || this.breaker.state === CircuitState.Isolated;
  }

  /**
   * Sends one logical call: `attempt` builds and sends a request (with the signal for the
   * timeout) and is called again for each retry. Returns the 2xx response; throws
   * LedgerHttpError for other final answers, LedgerRetryLaterError when the ledger cannot be
   * called now.
   */
  async send(
    gate: TenantGate,
    path: string,
    attempt: (signal: AbortSignal) => Promise<Response>,
  ): Promise<Response> {
    const perAttempt = timeout(this.opts.timeoutMs, TimeoutStrategy.Aggressive);
    try {
      return await this.retry.execute(() =>
        this.breaker.execute(() =>
          gate.run(() =>
            perAttempt.execute(async ({ signal }) => {
              this.calls += 1;
              const res = await attempt(signal);
              gate.observe(res.headers);
              // The body is read within the attempt: the timeout covers it, and cockatiel aborts
              // the attempt's signal once the attempt returns.
              if (res.ok) {
                const body = await res.arrayBuffer();
                return new Response(body, { status: res.status, headers: res.headers });
              }
              await res.body?.cancel();
              const retryAfterMs = retryAfter(res.headers.get("retry-after"), this.now());
              const problem = res.headers.get("x-rate-limit-problem") ?? undefined;
              if (res.status === 429) gate.pause(retryAfterMs ?? 1000);
              throw new LedgerHttpError(res.status, path, retryAfterMs, problem);
            }),
          ),
        ),
      );
    } catch (e) {
      const t = this.now();
      if (e instanceof BrokenCircuitError) {
        throw new LedgerRetryLaterError("unavailable", new Date(t + this.opts.breakerHalfOpenMs), {
          cause: e,
        });
      }
      if (e instanceof LedgerHttpError && e.status === 429) {
        if (e.rateLimitProblem === "day") {
          throw new LedgerRetryLaterError("budget", new Date(t + (e.retryAfterMs ?? 3_600_000)), {
            cause: e,
          });
        }
        throw new LedgerRetryLaterError("rate_limited", new Date(t + (e.retryAfterMs ?? 60_000)), {
          cause: e,
        });
      }
      if (isServerFault(e)) {
        throw new LedgerRetryLaterError("unavailable", new Date(t + this.opts.backoffMaxMs), {
          cause: e,
        });
      }
      throw e;
    }
  }
}

/** `Retry-After` in ms: seconds or an HTTP date. */
function retryAfter(value: string | null, now: number): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
