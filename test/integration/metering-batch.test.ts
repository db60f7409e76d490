import { and, eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import type { Db } from "../../src/db/client.ts";
import { billingEvents, creditUses } from "../../src/db/schema/index.ts";
import { DEFAULT_LIMITS } from "../../src/domain/metering/plans.ts";
import { setBilling } from "../../src/services/billing/set-billing.ts";
import {
  type CreditAdmitInput,
  type CreditAdmitResult,
  pgCreditStore,
} from "../../src/services/metering/credit-store.ts";
import { TEST_NOW, testApp } from "../helpers/api.ts";
import { insertUses, orgWithKey } from "../helpers/metering.ts";
import { testDriver } from "../helpers/test-db.ts";

/** Pocket with a 3-credit window and 2-credit packs: every branch within a few calls. */
const allowance = { ...DEFAULT_LIMITS.allowance, Pocket: 3 };
const packs = { ...DEFAULT_LIMITS.topUpPack, Pocket: 2 };

async function pocketOrg(db: Db, autoTopUp: boolean) {
  const { org, key } = await orgWithKey(db, { plan: "Pocket" });
  await setBilling(db, { orgId: org.id, status: "active", autoTopUp }, TEST_NOW);
  const input = (i: number): CreditAdmitInput => ({
    userId: org.ownerUserId,
    orgId: org.id,
    keyId: key.id,
    route: "/api/agent/bank-accounts",
    requestId: `req-${i}`,
    now: new Date(TEST_NOW.getTime() + i),
    windowMs: DEFAULT_LIMITS.creditWindowMs,
    allowance,
    packs,
  });
  return { org, input, keyId: key.id };
}

const figures = (r: CreditAdmitResult) => ({
  decision: r.decision,
  used: r.state?.used,
  topUp: r.state?.topUpCredits,
  quota: r.quotaUsed,
  recorded: r.useId !== null,
});

describe(`group admission (${testDriver})`, () => {
  for (const autoTopUp of [true, false]) {
    it(`decides a batch exactly as one call after another (auto top-up ${autoTopUp ? "on" : "off"})`, async () => {
      const { db } = await testApp();
      const calls = 9;

      // One after another: each call alone in its statement.
      const one = await pocketOrg(db, autoTopUp);
      const sequentialStore = pgCreditStore(db);
      const sequential: CreditAdmitResult[] = [];
      for (let i = 0; i < calls; i++) sequential.push(await sequentialStore.admit(one.input(i)));

      // All at once on one store: the first goes alone, the other eight share one statement.
      const two = await pocketOrg(db, autoTopUp);
      const batchedStore = pgCreditStore(db);
      const batched = await Promise.all(
        Array.from({ length: calls }, (_, i) => batchedStore.admit(two.input(i))),
      );

      expect(batched.map(figures)).toEqual(sequential.map(figures));
      const decisions = batched.map((r) => r.decision);
      expect(decisions.slice(0, 3)).toEqual(["plan", "plan", "plan"]);
      expect(decisions.slice(3)).toEqual(
        autoTopUp
          ? ["buy_pack", "top_up", "buy_pack", "top_up", "buy_pack", "top_up"]
          : ["refuse", "refuse", "refuse", "refuse", "refuse", "refuse"],
      );

      // What was recorded matches what was decided, for the batched organisation.
      const [uses] = await db
        .select({ n: sql<number>`count(*)::int` })
        .from(creditUses)
        .where(eq(creditUses.orgId, two.org.id));
      expect(uses?.n).toBe(decisions.filter((d) => d !== "refuse").length);
      const [bought] = await db
        .select({
          n: sql<number>`count(*)::int`,
          credits: sql<number>`coalesce(sum(credits), 0)::int`,
        })
        .from(billingEvents)
        .where(and(eq(billingEvents.orgId, two.org.id), eq(billingEvents.kind, "top_up")));
      expect(bought).toEqual(autoTopUp ? { n: 3, credits: 6 } : { n: 0, credits: 0 });
    });
  }

  it("decides each item against its own window as uses age out between them", async () => {
    const { db } = await testApp();
    const window = DEFAULT_LIMITS.creditWindowMs;
    const calls = 6;
    const setUp = async () => {
      const world = await pocketOrg(db, false);
      // A full window whose uses age out one by one during the calls (1 ms apart).
      await insertUses(db, {
        userId: world.org.ownerUserId,
        billingAccountId: world.org.billingAccountId,
        orgId: world.org.id,
        keyId: world.keyId,
        times: [1, 2, 3].map((ms) => new Date(TEST_NOW.getTime() - window + ms)),
      });
      return world;
    };
    // Calls at -1, 0, 1, … ms: the first goes alone, the rest share one statement in which the
    // old uses age out item by item.
    const at = Array.from({ length: calls + 1 }, (_, i) => i - 1);
    const one = await setUp();
    const sequentialStore = pgCreditStore(db);
    const sequential: CreditAdmitResult[] = [];
    for (const ms of at) sequential.push(await sequentialStore.admit(one.input(ms)));

    const two = await setUp();
    const batchedStore = pgCreditStore(db);
    const batched = await Promise.all(at.map((ms) => batchedStore.admit(two.input(ms))));
    expect(batched.map(figures)).toEqual(sequential.map(figures));
    expect(sequential.map((r) => r.decision)).toContain("refuse");
    expect(sequential.map((r) => r.decision)).toContain("plan");
  });

  it("counts a batch's own uses as later items age them out, and back in for an earlier item", async () => {
    const { db } = await testApp();
    const window = DEFAULT_LIMITS.creditWindowMs;
    // The first call goes alone; the rest share one statement. Items at `window` and
    // `window + 1` age out uses this very batch recorded (0 and 1); the last item's instant is
    // earlier than the window's cutoff by then, so those uses count again for it.
    const at = [-1, 0, 1, window, window + 1, 2, window + 2];
    const one = await pocketOrg(db, false);
    const sequentialStore = pgCreditStore(db);
    const sequential: CreditAdmitResult[] = [];
    for (const ms of at) sequential.push(await sequentialStore.admit(one.input(ms)));

    const two = await pocketOrg(db, false);
    const batchedStore = pgCreditStore(db);
    const batched = await Promise.all(at.map((ms) => batchedStore.admit(two.input(ms))));
    expect(batched.map(figures)).toEqual(sequential.map(figures));
    expect(sequential.map((r) => r.decision)).toEqual([
      "plan",
      "plan",
      "plan",
      "plan",
      "plan",
      "refuse",
      "plan",
    ]);
  });

  it("answers every call of a batch for an organisation without a billable seat", async () => {
    const { db } = await testApp();
    const { org, input } = await pocketOrg(db, false);
    const store = pgCreditStore(db);
    const stranger = { ...input(0), userId: "usr_not_a_member_of_anything" };
    const results = await Promise.all(
      [0, 1, 2].map((i) => store.admit({ ...stranger, requestId: `s${i}` })),
    );
    expect(results.map((r) => [r.decision, r.useId])).toEqual([
      ["no_seat", null],
      ["no_seat", null],
      ["no_seat", null],
    ]);
    expect(org.id).toBeTruthy();
  });
});
