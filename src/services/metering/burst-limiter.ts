import { randomBytes } from "node:crypto";
import { SlidingWindowLog } from "../../domain/metering/sliding-window.ts";

/** What a refused request hands back to free the slot it took (see `BurstLimiter.release`). */
export interface BurstToken {
  bucket: string;
  /** The admission instant (ms). */
  at: number;
  /** The Redis sorted-set member, unique per admission (in process: the instant). */
  member: string;
  /** Which store holds the slot: a release goes to the same one. */
  store: "memory" | "redis";
}

export interface BurstDecision {
  allowed: boolean;
  limit: number;
  windowMs: number;
  /** Requests still admissible now. */
  remaining: number;
  /** Milliseconds until `remaining` next grows; the Retry-After of a refusal. */
  resetMs: number;
  /** Set when allowed. */
  token: BurstToken | null;
}

/** The burst cap: `limit` requests per sliding window per bucket (key and route template). */
export interface BurstLimiter {
  take(bucket: string, now: Date): Promise<BurstDecision>;
  /** Frees a slot taken by `take` (the request was refused later with 400/401/403). */
  release(token: BurstToken): Promise<void>;
  close(): Promise<void>;
}

/** A unique member for a sorted set, so equal instants never collapse into one entry. */
export function burstMember(at: number): string {
  return `${at}:${randomBytes(6).toString("hex")}`;
}

/**
 * The in-process limiter: exact within one process (JavaScript runs one `take` at a time), so
 * it is the default for a single instance and the fallback when Redis is away. Idle buckets are
 * dropped every few thousand calls so memory follows the active keys.
 */
export class InProcessBurstLimiter implements BurstLimiter {
  private readonly buckets = new Map<string, SlidingWindowLog>();
  private calls = 0;

  constructor(
    readonly limit: number,
    readonly windowMs: number,
  ) {}

  /** Synchronous core, shared with the Redis limiter's fallback path. */
  takeNow(bucket: string, now: Date): BurstDecision {
    const at = now.getTime();
    if (++this.calls % 4096 === 0) this.sweep(at);
    let log = this.buckets.get(bucket);
    if (!log) {
      log = new SlidingWindowLog(this.limit, this.windowMs);
      this.buckets.set(bucket, log);
    }
    const d = log.take(at);
    return {
      allowed: d.allowed,
      limit: this.limit,
      windowMs: this.windowMs,
      remaining: d.remaining,
      resetMs: d.resetMs,
      // The in-process log releases by instant; only Redis needs a unique member.
      token: d.allowed ? { bucket, at, member: String(at), store: "memory" } : null,
    };
  }

  async take(bucket: string, now: Date): Promise<BurstDecision> {
    return this.takeNow(bucket, now);
  }

  async release(token: BurstToken): Promise<void> {
    this.buckets.get(token.bucket)?.release(token.at);
  }

  async close(): Promise<void> {
    this.buckets.clear();
  }

  /** Buckets currently held (for tests of the sweep). */
  get size(): number {
    return this.buckets.size;
  }

  private sweep(now: number): void {
    for (const [bucket, log] of this.buckets) if (log.idle(now)) this.buckets.delete(bucket);
  }
}
