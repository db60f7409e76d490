import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SlidingWindowLog } from "./sliding-window.ts";

describe("sliding window log", () => {
  it("admits `limit` per window and frees each slot exactly one window after its admission", () => {
    const log = new SlidingWindowLog(3, 1000);
    expect([0, 10, 20, 30].map((t) => log.take(t).allowed)).toEqual([true, true, true, false]);
    expect(log.take(999)).toEqual({ allowed: false, remaining: 0, resetMs: 1 });
    expect(log.take(1000)).toEqual({ allowed: true, remaining: 0, resetMs: 10 });
    expect(log.take(1009).allowed).toBe(false);
    expect(log.take(1010).allowed).toBe(true);
  });

  it("keeps out-of-order instants exact and gives a released slot back", () => {
    const log = new SlidingWindowLog(2, 1000);
    expect(log.take(500).allowed).toBe(true);
    expect(log.take(100).allowed).toBe(true);
    expect(log.count(1100)).toBe(1); // 100 left at 1100, 500 still counts
    log.release(500);
    expect(log.count(1100)).toBe(0);
    expect(log.idle(1100)).toBe(true);
  });

  it("never admits more than `limit` in any window (against a brute-force count)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5 }),
        fc.array(fc.integer({ min: 0, max: 300 }), { maxLength: 80 }),
        (limit, steps) => {
          const log = new SlidingWindowLog(limit, 100);
          const admitted: number[] = [];
          let now = 0;
          for (const step of steps) {
            now += step % 40;
            const inWindow = admitted.filter((t) => t > now - 100).length;
            const d = log.take(now);
            expect(d.allowed).toBe(inWindow < limit);
            if (d.allowed) admitted.push(now);
          }
        },
      ),
    );
  });
});
