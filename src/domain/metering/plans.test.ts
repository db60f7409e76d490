import { describe, expect, it } from "vitest";
import { PLANS } from "../../db/schema/index.ts";
import { CREDIT_ALLOWANCE, DAILY_QUOTA, DEFAULT_LIMITS, TOP_UP_PACK } from "./plans.ts";
import { dailyQuota, nextUtcMidnight, utcDay } from "./quota.ts";
import { rateLimitField, rateLimitPolicyField } from "./rate-limit-headers.ts";

describe("plans, quota and headers", () => {
  it("has one allowance, pack and daily bucket per database plan, as documented", () => {
    expect(Object.keys(CREDIT_ALLOWANCE)).toEqual([...PLANS]);
    expect(CREDIT_ALLOWANCE).toEqual({
      Free: 10,
      Pocket: 50,
      Wallet: 250,
      Vault: 1000,
      Reserve: 5000,
    });
    for (const p of PLANS) {
      expect(DAILY_QUOTA[p]).toBe((CREDIT_ALLOWANCE[p] * 24) / 5);
      expect(TOP_UP_PACK[p]).toBe(p === "Free" ? null : CREDIT_ALLOWANCE[p] / 2);
    }
    expect(DEFAULT_LIMITS).toMatchObject({
      burstLimit: 60,
      burstWindowMs: 60_000,
      creditWindowMs: 18_000_000,
    });
  });

  it("counts the daily bucket per UTC day", () => {
    const late = new Date("2026-03-02T23:59:59.999Z");
    expect(utcDay(late)).toBe("2026-03-02");
    expect(nextUtcMidnight(late).toISOString()).toBe("2026-03-03T00:00:00.000Z");
    expect(nextUtcMidnight(new Date("2026-03-03T00:00:00.000Z")).toISOString()).toBe(
      "2026-03-04T00:00:00.000Z",
    );
    expect(dailyQuota(48, 50, late)).toEqual({
      limit: 48,
      used: 50,
      remaining: 0,
      resetAt: "2026-03-03T00:00:00.000Z",
    });
  });

  it("writes the IETF RateLimit fields", () => {
    const policies = [
      { name: "burst", quota: 60, windowSeconds: 60, remaining: 59, resetSeconds: 60 },
      { name: "credits", quota: 250, windowSeconds: 18000, remaining: 0, resetSeconds: 42 },
    ];
    expect(rateLimitPolicyField(policies)).toBe('"burst";q=60;w=60, "credits";q=250;w=18000');
    expect(rateLimitField(policies)).toBe('"burst";r=59;t=60, "credits";r=0;t=42');
  });
});
