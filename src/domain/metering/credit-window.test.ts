import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type CreditUse,
  creditUsage,
  decideCredit,
  msUntilNextCredit,
  windowStateFromUses,
} from "./credit-window.ts";

const NOW = new Date("2026-03-02T03:04:05.000Z");
const W = 5 * 3_600_000;
const at = (ms: number) => new Date(NOW.getTime() + ms);
const plan = (ms: number): CreditUse => ({ at: at(ms), source: "plan" });

describe("credit window", () => {
  it("stops counting a use exactly one window old, and counts one a millisecond younger", () => {
    const s = windowStateFromUses([plan(-W), plan(-W + 1)], {
      limit: 10,
      topUpCredits: 0,
      now: NOW,
      windowMs: W,
    });
    expect(s).toEqual({
      limit: 10,
      used: 1,
      topUpCredits: 0,
      freesUseAt: at(-W + 1),
      newestUseAt: at(-W + 1),
    });
    expect(creditUsage(s, NOW, W)).toEqual({
      limit: 10,
      used: 1,
      remaining: 9,
      topUpCredits: 0,
      nextCreditInMinutes: 0,
      fullResetInMinutes: 1,
      windowResetAt: at(1).toISOString(),
    });
  });

  it("reports an empty window as fully reset now", () => {
    const s = windowStateFromUses([], { limit: 50, topUpCredits: 0, now: NOW, windowMs: W });
    expect(creditUsage(s, NOW, W)).toEqual({
      limit: 50,
      used: 0,
      remaining: 50,
      topUpCredits: 0,
      nextCreditInMinutes: 0,
      fullResetInMinutes: 0,
      windowResetAt: NOW.toISOString(),
    });
  });

  it("rounds waits up to whole minutes", () => {
    const uses = [plan(-W + 60_001), plan(-60_000)];
    const s = windowStateFromUses(uses, { limit: 2, topUpCredits: 0, now: NOW, windowMs: W });
    const u = creditUsage(s, NOW, W);
    expect([u.remaining, u.nextCreditInMinutes, u.fullResetInMinutes]).toEqual([0, 2, 299]);
    expect(msUntilNextCredit(s, NOW, W)).toBe(60_001);
  });

  it("needs several uses to age out after a downgrade, and offers top-up credits at once", () => {
    const uses = [plan(-4 * 3_600_000), plan(-3 * 3_600_000), plan(-2 * 3_600_000)];
    const s = windowStateFromUses(uses, { limit: 1, topUpCredits: 0, now: NOW, windowMs: W });
    expect(s.freesUseAt).toEqual(at(-2 * 3_600_000)); // the third oldest
    expect(creditUsage(s, NOW, W).nextCreditInMinutes).toBe(180);
    const withTopUp = { ...s, topUpCredits: 4 };
    expect(creditUsage(withTopUp, NOW, W)).toMatchObject({ remaining: 4, nextCreditInMinutes: 0 });
  });

  it("ignores top-up uses in the window count", () => {
    const s = windowStateFromUses([plan(-1), { at: at(-1), source: "top_up" }], {
      limit: 1,
      topUpCredits: 0,
      now: NOW,
      windowMs: W,
    });
    expect(s.used).toBe(1);
  });

  it("decides plan credit, then top-up credit, then a pack, then refusal", () => {
    expect(decideCredit({ limit: 2, used: 1, topUpCredits: 5 }, 10)).toBe("plan");
    expect(decideCredit({ limit: 2, used: 2, topUpCredits: 5 }, 10)).toBe("top_up");
    expect(decideCredit({ limit: 2, used: 3, topUpCredits: 0 }, 10)).toBe("buy_pack");
    expect(decideCredit({ limit: 2, used: 2, topUpCredits: 0 }, null)).toBe("refuse");
    expect(decideCredit({ limit: 2, used: 2, topUpCredits: 0 }, 0)).toBe("refuse");
  });

  it("frees a credit exactly when the wait it announced has passed", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: -W, max: 0 }), { minLength: 1, maxLength: 30 }),
        fc.integer({ min: 1, max: 30 }),
        (offsets, limit) => {
          const uses = offsets.map(plan);
          const state = windowStateFromUses(uses, {
            limit,
            topUpCredits: 0,
            now: NOW,
            windowMs: W,
          });
          const wait = msUntilNextCredit(state, NOW, W);
          const later = windowStateFromUses(uses, {
            limit,
            topUpCredits: 0,
            now: at(wait),
            windowMs: W,
          });
          expect(later.used).toBeLessThan(limit);
          if (wait > 0) {
            const before = windowStateFromUses(uses, {
              limit,
              topUpCredits: 0,
              now: at(wait - 1),
              windowMs: W,
            });
            expect(before.used).toBeGreaterThanOrEqual(limit);
          }
        },
      ),
    );
  });
});
