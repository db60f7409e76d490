import type { LRUCache } from "lru-cache";
import { boundedCache } from "../../cache.ts";
import type { DbOrTx } from "../../db/client.ts";
import { readAuthEpoch } from "../../db/queries/api-keys.ts";
import type { KeyFamily } from "../../domain/keys.ts";
import type { Logger } from "../../logger.ts";
import type { AuthenticatedKey } from "../context.ts";

/** Entries are trusted only while the last successful poll is at most this many intervals old. */
const STALE_POLLS = 4;

/** What the cache keeps of a verified, unrevoked key: never the secret, only its digest. */
export interface CachedKey {
  key: AuthenticatedKey;
  family: KeyFamily;
  /** SHA-256 of the secret: its bytes (the stored hex, decoded once). */
  secretDigest: Buffer;
}

export interface VerifiedKeyCacheOptions {
  /** How often the auth epoch is read (default 250 ms): the bound on a revocation's delay. */
  pollMs?: number;
  /** An entry is read again from the database after this long regardless (default 60 s). */
  ttlMs?: number;
  /** Least recently used entries are dropped beyond this many (default: src/cache.ts). */
  maxEntries?: number;
  logger?: Logger;
  /** Milliseconds now (tests). */
  nowMs?: () => number;
}

/**
 * Verified API keys in process memory, so the request pipeline authenticates a known key without
 * a database round trip on every request (figures: docs/benchmarks.md, "Optimisations in the
 * code").
 *
 * Invalidation: triggers bump an `auth_epoch` row in the same transaction as any change to a
 * key (revocation, rotation, deletion) or to an organisation field read with its keys
 * (drizzle/0011_auth_epoch_triggers.sql), whoever makes it. Every instance polls the epoch every `pollMs` and
 * drops everything when it moves, so a revocation stops a key on every instance within `pollMs`
 * of its commit; `clear()` makes it immediate in the process that revoked. Until the first poll
 * succeeds, after a failed poll, and whenever the last successful poll is older than
 * `STALE_POLLS` intervals (a poll stuck behind a saturated pool or a lost connection), the cache
 * answers nothing and every request reads the database, so a revocation is never outlived by
 * more than a few poll intervals.
 *
 * Only active keys are cached: unknown prefixes, wrong secrets on an uncached key and revoked
 * keys always reach the database. A wrong secret for a cached prefix is refused from memory
 * (compared in constant time against the stored digest).
 */
export class VerifiedKeyCache {
  private readonly entries: LRUCache<string, { value: CachedKey; expiresAtMs: number }>;
  /** The epoch the entries belong to; null while unknown (cache off). */
  private epoch: number | null = null;
  /** Bumped by every clear, so a read that began before it cannot store what it read. */
  private generation = 0;
  /** When the last poll succeeded (ms). */
  private polledAtMs = 0;
  private timer: NodeJS.Timeout | undefined;
  private polling: Promise<void> | undefined;
  private readonly pollMs: number;
  private readonly ttlMs: number;
  private readonly nowMs: () => number;

  constructor(
    private readonly db: DbOrTx,
    private readonly opts: VerifiedKeyCacheOptions = {},
  ) {
    this.pollMs = opts.pollMs ?? 250;
    this.ttlMs = opts.ttlMs ?? 60_000;
    this.entries = boundedCache("verifiedKeys", opts.maxEntries);
    this.nowMs = opts.nowMs ?? Date.now;
  }

  /** Reads the epoch once, then keeps polling it until `stop()`. */
  async start(): Promise<void> {
    await this.poll();
    this.timer = setInterval(() => void this.poll(), this.pollMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.clear();
    this.epoch = null;
  }

  /** One read of the epoch (the timer calls it; tests may too). Never throws. */
  poll(): Promise<void> {
    this.polling ??= this.readEpoch().finally(() => {
      this.polling = undefined;
    });
    return this.polling;
  }

  private async readEpoch(): Promise<void> {
    try {
      const epoch = await readAuthEpoch(this.db);
      if (epoch !== this.epoch) {
        this.clear();
        this.epoch = epoch;
      }
      this.polledAtMs = this.nowMs();
    } catch (err) {
      if (this.epoch !== null) this.opts.logger?.warn({ err }, "key cache: epoch unreadable");
      this.clear();
      this.epoch = null;
    }
  }

  /** Drops every entry now (e.g. right after this process revoked or rotated a key). */
  clear(): void {
    this.entries.clear();
    this.generation++;
  }

  /** The cached key for a prefix, if the cache is on and the entry is fresh. */
  get(prefix: string): CachedKey | undefined {
    if (this.epoch === null) return undefined;
    if (this.nowMs() - this.polledAtMs > STALE_POLLS * this.pollMs) return undefined;
    const entry = this.entries.get(prefix);
    if (!entry) return undefined;
    if (entry.expiresAtMs <= this.nowMs()) {
      this.entries.delete(prefix);
      return undefined;
    }
    return entry.value;
  }

  /** Call before reading a key from the database; pass the result to `set`. */
  readToken(): number {
    return this.generation;
  }

  /** Keeps a key read from the database, unless the cache was cleared since the read began. */
  set(prefix: string, value: CachedKey, token: number): void {
    if (this.epoch === null || token !== this.generation) return;
    this.entries.set(prefix, { value, expiresAtMs: this.nowMs() + this.ttlMs });
  }

  get size(): number {
    return this.entries.size;
  }
}
