import { Redis } from "ioredis";
import type { Logger } from "../../logger.ts";
import {
  type BurstDecision,
  type BurstLimiter,
  type BurstToken,
  burstMember,
  InProcessBurstLimiter,
} from "./burst-limiter.ts";

/**
 * The whole sliding-window admission as one script, so it is atomic in Redis whichever instance
 * calls it: drop members older than the window, count, add this request if under the limit.
 * Returns { allowed (1/0), count after, oldest member's score }.
 */
const TAKE_SCRIPT = `
local key = KEYS[1]
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
local count = redis.call('ZCARD', key)
local allowed = 0
if count < limit then
  redis.call('ZADD', key, now, ARGV[4])
  redis.call('PEXPIRE', key, window)
  count = count + 1
  allowed = 1
end
local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
local oldestScore = -1
if oldest[2] then oldestScore = tonumber(oldest[2]) end
return { allowed, count, oldestScore }
`;

type TakeReply = [number, number, number];
type ScriptedRedis = Redis & {
  burstTake(
    key: string,
    now: number,
    window: number,
    limit: number,
    member: string,
  ): Promise<TakeReply>;
};

export interface RedisBurstLimiterOptions {
  url: string;
  limit: number;
  windowMs: number;
  logger: Logger;
  /** Prepended to every Redis key (several deployments or test runs can share one server). */
  keyPrefix?: string;
  /**
   * A Redis call still unanswered after this falls back for the request (default 1 s).
   * Disconnections are detected at once, without waiting for it. Before giving up the limiter
   * lets the event loop read the socket once more: a busy loop (embedded PGlite runs on the
   * same thread) can leave a prompt reply unread past the timer, and a reply that did arrive
   * must be used, since the script ran.
   */
  commandTimeoutMs?: number;
  /** After a failure, Redis is not tried again for this long unless it reconnects first. */
  retryAfterFailureMs?: number;
}

/**
 * The burst cap shared by every instance through Redis (`REDIS_URL`). If Redis cannot be reached
 * (down, or slower than `commandTimeoutMs`), requests are limited by the in-process limiter
 * instead, with one warning per outage; the client keeps reconnecting in the background, and the
 * first successful call logs the recovery. During an outage each instance counts alone.
 */
export class RedisBurstLimiter implements BurstLimiter {
  readonly redis: ScriptedRedis;
  readonly fallback: InProcessBurstLimiter;
  private readonly prefix: string;
  private readonly logger: Logger;
  private readonly retryAfterFailureMs: number;
  private degraded = false;
  private skipUntil = 0;

  constructor(private readonly opts: RedisBurstLimiterOptions) {
    this.prefix = opts.keyPrefix ?? "cashrunway:";
    this.logger = opts.logger;
    this.retryAfterFailureMs = opts.retryAfterFailureMs ?? 1_000;
    this.fallback = new InProcessBurstLimiter(opts.limit, opts.windowMs);
    const redis = new Redis(opts.url, {
      // Fail at once while disconnected (the fallback answers) rather than queueing requests.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      // A backstop only, so a hung server cannot pile up commands; `take` gives up far earlier.
      commandTimeout: 10_000,
      connectTimeout: 2_000,
      // Keep reconnecting, at most a second apart, so recovery follows Redis within a second.
      retryStrategy: (times) => Math.min(times * 100, 1_000),
      lazyConnect: true,
    });
    redis.defineCommand("burstTake", { numberOfKeys: 1, lua: TAKE_SCRIPT });
    // Errors surface through failed commands; an unhandled 'error' event would crash the process.
    redis.on("error", () => {});
    redis.on("ready", () => {
      this.skipUntil = 0;
    });
    this.redis = redis as ScriptedRedis;
  }

  /** Connects (or gives up after `timeoutMs`, falling back until Redis appears). */
  async connect(timeoutMs = 2_000): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const connected = await Promise.race([
      this.redis.connect().then(
        () => true,
        () => false,
      ),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), timeoutMs);
      }),
    ]);
    clearTimeout(timer);
    if (!connected) this.markDown(new Error("could not connect to Redis"));
    return connected;
  }

  /** Which store answers now. */
  get store(): "redis" | "memory" {
    return this.degraded ? "memory" : "redis";
  }

  async take(bucket: string, now: Date): Promise<BurstDecision> {
    const at = now.getTime();
    if (this.redis.status === "ready" && Date.now() >= this.skipUntil) {
      const member = burstMember(at);
      try {
        const [allowed, count, oldest] = await this.withinDeadline(
          this.redis.burstTake(this.key(bucket), at, this.opts.windowMs, this.opts.limit, member),
        );
        this.markUp();
        const ok = Number(allowed) === 1;
        return {
          allowed: ok,
          limit: this.opts.limit,
          windowMs: this.opts.windowMs,
          remaining: Math.max(0, this.opts.limit - Number(count)),
          resetMs: Number(oldest) < 0 ? 0 : Math.max(0, Number(oldest) + this.opts.windowMs - at),
          token: ok ? { bucket, at, member, store: "redis" } : null,
        };
      } catch (err) {
        this.markDown(err);
      }
    } else if (!this.degraded) {
      this.markDown(new Error(`Redis connection is ${this.redis.status}`));
    }
    return this.fallback.takeNow(bucket, now);
  }

  async release(token: BurstToken): Promise<void> {
    if (token.store === "memory") return this.fallback.release(token);
    try {
      await this.redis.zrem(this.key(token.bucket), token.member);
    } catch (err) {
      // The slot then simply ages out with the window.
      this.logger.warn({ err }, "burst limiter: could not release a slot in Redis");
    }
  }

  async close(): Promise<void> {
    this.redis.disconnect();
    await this.fallback.close();
  }

  /**
   * The reply, or a rejection once the deadline has passed with no reply even after the event
   * loop had one more chance to read the socket (setImmediate runs after the poll phase).
   */
  private async withinDeadline<T>(command: Promise<T>): Promise<T> {
    let settled = false;
    const tracked = command.finally(() => {
      settled = true;
    });
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<"late">((resolve) => {
      timer = setTimeout(() => resolve("late"), this.opts.commandTimeoutMs ?? 1_000);
    });
    try {
      const first = await Promise.race([tracked.then(() => "done" as const), deadline]);
      if (first === "late") {
        await new Promise<void>((resolve) => setImmediate(resolve));
        if (!settled) {
          tracked.catch(() => {}); // the late reply or error is dropped
          throw new Error("Redis did not answer in time");
        }
      }
      return await tracked;
    } finally {
      clearTimeout(timer);
    }
  }

  private key(bucket: string): string {
    return `${this.prefix}burst:${bucket}`;
  }

  private markDown(err: unknown): void {
    this.skipUntil = Date.now() + this.retryAfterFailureMs;
    if (this.degraded) return;
    this.degraded = true;
    this.logger.warn(
      { err: err instanceof Error ? err.message : String(err) },
      "burst limiter: Redis unavailable, falling back to the in-process limiter (per instance)",
    );
  }

  private markUp(): void {
    if (!this.degraded) return;
    this.degraded = false;
    this.logger.info("burst limiter: Redis is back; limits are shared again");
  }
}
