/**
 * An exact sliding-window log: at most `limit` admissions in any window of `windowMs`. An
 * admission at `t` counts while `t > now - windowMs`, so it frees at exactly `t + windowMs`.
 */

/** The outcome of one `take`. */
export interface SlidingDecision {
  allowed: boolean;
  /** Admissions still possible now (after this one, when allowed). */
  remaining: number;
  /** Milliseconds until `remaining` next grows (the oldest admission leaves); 0 if none. */
  resetMs: number;
}

/**
 * One bucket's log: timestamps (ms) kept sorted, expired from the front. Sorted insertion keeps it
 * exact when calls arrive with slightly out-of-order instants (concurrent requests), and a head
 * index makes expiry O(1) amortised even for large limits.
 */
export class SlidingWindowLog {
  private times: number[] = [];
  private head = 0;

  constructor(
    readonly limit: number,
    readonly windowMs: number,
  ) {}

  /** Admissions counted at `now`. */
  count(now: number): number {
    this.expire(now);
    return this.times.length - this.head;
  }

  /** Admits and records one call at `now` if fewer than `limit` are counted. */
  take(now: number): SlidingDecision {
    const counted = this.count(now);
    if (counted >= this.limit) {
      return { allowed: false, remaining: 0, resetMs: this.resetMs(now) };
    }
    this.insert(now);
    return { allowed: true, remaining: this.limit - counted - 1, resetMs: this.resetMs(now) };
  }

  /** Forgets one admission made at `at` (a refused request gives its slot back). */
  release(at: number): void {
    for (let i = this.times.length - 1; i >= this.head; i--) {
      if (this.times[i] === at) {
        this.times.splice(i, 1);
        return;
      }
    }
  }

  /** True when nothing is counted at `now`: the bucket can be dropped. */
  idle(now: number): boolean {
    return this.count(now) === 0;
  }

  private resetMs(now: number): number {
    const oldest = this.times[this.head];
    return oldest === undefined ? 0 : Math.max(0, oldest + this.windowMs - now);
  }

  private expire(now: number): void {
    const cutoff = now - this.windowMs;
    while (this.head < this.times.length && (this.times[this.head] ?? 0) <= cutoff) this.head++;
    // Compact once the expired prefix is at least half the array: each compaction copies no more
    // than it drops, so expiry stays O(1) amortised however large the limit.
    if (this.head > 0 && (this.head === this.times.length || this.head * 2 > this.times.length)) {
      this.times = this.times.slice(this.head);
      this.head = 0;
    }
  }

  private insert(at: number): void {
    let i = this.times.length;
    while (i > this.head && (this.times[i - 1] ?? 0) > at) i--;
    if (i === this.times.length) this.times.push(at);
    else this.times.splice(i, 0, at);
  }
}
