import { and, eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import type { Db } from "../../src/db/client.ts";
import {
  billingEvents,
  creditReservations,
  creditUses,
  creditWindows,
} from "../../src/db/schema/index.ts";
import { DEFAULT_LIMITS } from "../../src/domain/metering/plans.ts";
import { setBilling } from "../../src/services/billing/set-billing.ts";
import {
  type CreditAdmitInput,
  type CreditAdmitResult,
  pgCreditStore,
  reserveCredits,
  settleReservation,
} from "../../src/services/metering/credit-store.ts";
import {
  type ReservationPolicy,
  ReservingCreditStore,
} from "../../src/services/metering/reserving-credit-store.ts";
import { TEST_NOW, testApp } from "../helpers/api.ts";
import { orgWithKey, tally } from "../helpers/metering.ts";
import { testDriver } from "../helpers/test-db.ts";

/** Small reservations that start after three calls and live until the test ends them. */
const POLICY: ReservationPolicy = {
  want: 8,
  maxWant: 8,
  floor: 4,
  busyCalls: 3,
  busyWindowMs: 60_000,
  holdMs: 60_000,
  expiresAfterMs: 60_000,
  settleEveryMs: 20,
};

const tick = (ms = 0) => new Promise((r) => setTimeout(r, ms));

/** A Pocket organisation whose window holds `allowance` credits (packs of `pack`). */
async function pocket(db: Db, opts: { allowance: number; pack: number; autoTopUp: boolean }) {
  const { org, key } = await orgWithKey(db, { plan: "Pocket" });
  await setBilling(db, { orgId: org.id, status: "active", autoTopUp: opts.autoTopUp }, TEST_NOW);
  let n = 0;
  const input = (atMs = 0): CreditAdmitInput => ({
    userId: org.ownerUserId,
    orgId: org.id,
    keyId: key.id,
    route: "/api/agent/bank-accounts",
    requestId: `req-${++n}`,
    now: new Date(TEST_NOW.getTime() + atMs),
    windowMs: DEFAULT_LIMITS.creditWindowMs,
    allowance: { ...DEFAULT_LIMITS.allowance, Pocket: opts.allowance },
    packs: { ...DEFAULT_LIMITS.topUpPack, Pocket: opts.pack },
  });
  const recorded = async () => {
    const [uses] = await db
      .select({ n: sql<number>`count(*)::int` })
      .from(creditUses)
      .where(eq(creditUses.orgId, org.id));
    const [window] = await db
      .select()
      .from(creditWindows)
      .where(eq(creditWindows.userId, org.ownerUserId));
    const [held] = await db
      .select({ n: sql<number>`count(*)::int` })
      .from(creditReservations)
      .where(eq(creditReservations.orgId, org.id));
    const [packs] = await db
      .select({ n: sql<number>`count(*)::int` })
      .from(billingEvents)
      .where(and(eq(billingEvents.orgId, org.id), eq(billingEvents.kind, "top_up")));
    return { uses: uses?.n, window, reservations: held?.n, packs: packs?.n };
  };
  return { org, input, recorded };
}

const admitted = (r: CreditAdmitResult) => r.decision !== "refuse";

describe(`credit reservations (${testDriver})`, () => {
  it("admits a busy pair from memory and writes every use when it settles", async () => {
    const { db } = await testApp();
    const world = await pocket(db, { allowance: 30, pack: 10, autoTopUp: false });
    const store = new ReservingCreditStore(db, POLICY);
    const results: CreditAdmitResult[] = [];
    for (let i = 0; i < 20; i++) {
      results.push(await store.admit(world.input(i)));
      await tick(); // lets the reservation requested after the third call arrive
    }
    const local = results.filter((r) => r.useId?.startsWith("r"));
    expect(local.length).toBeGreaterThan(0);
    expect(results.every((r) => r.decision === "plan")).toBe(true);
    // The figures count on from the grant: used rises by one per call, as one after another.
    expect(results.map((r) => r.state?.used)).toEqual(results.map((_, i) => i + 1));
    expect(results.map((r) => r.quotaUsed)).toEqual(results.map((_, i) => i + 1));

    await store.close();
    const after = await world.recorded();
    expect(after.uses).toBe(20);
    expect(after.reservations).toBe(0);
    expect(after.window).toMatchObject({ used: 20, reservedPlan: 0, reservedTopUp: 0 });
  });

  it("hands a pair's calls to the next reservation when the current one's instants end", async () => {
    const { db } = await testApp();
    const world = await pocket(db, { allowance: 40, pack: 10, autoTopUp: false });
    // Instants end 1 s after the grant; no idle give-back while the test waits between calls.
    const store = new ReservingCreditStore(db, {
      ...POLICY,
      holdMs: 1_000,
      settleEveryMs: 60_000,
    });
    for (let i = 0; i < 3; i++) await store.admit(world.input(i)); // busy after three calls
    await store.requestsAnswered(); // the reservation granted at the third call's instant (2 ms)
    const early = await store.admit(world.input(100));
    expect(early.useId).toMatch(/^r/);
    // Within the last quarter of its instants, with credits to spare: the next one is asked for.
    const late = await store.admit(world.input(760));
    expect(late.useId).toMatch(/^r/);
    await store.requestsAnswered();
    // Past the first one's instants: admitted from its successor, not by group admission.
    const after = await store.admit(world.input(1_005));
    expect(after.useId).toMatch(/^r/);
    expect(after.useId?.split(".")[0]).not.toBe(late.useId?.split(".")[0]);
    expect(after.state?.used).toBe(6);

    await store.close();
    expect(await world.recorded()).toMatchObject({ uses: 6, reservations: 0 });
  });

  it("does not ask again for a settlement period after a request is granted nothing", async () => {
    const { db } = await testApp();
    const world = await pocket(db, { allowance: 22, pack: 10, autoTopUp: false });
    // Instance A holds 12 of the 22 credits (no idle give-back while the test runs); instance B
    // then finds too few to spare, and waits one settlement period (here 1 s) before asking again.
    const a = new ReservingCreditStore(db, {
      ...POLICY,
      want: 12,
      maxWant: 12,
      settleEveryMs: 60_000,
    });
    const b = new ReservingCreditStore(db, { ...POLICY, settleEveryMs: 1_000 });
    for (let i = 0; i < 3; i++) await a.admit(world.input(i));
    await a.requestsAnswered();
    expect(a.heldCount).toBe(1);

    for (let i = 3; i < 6; i++) await b.admit(world.input(i)); // busy: asks, is granted nothing
    await b.requestsAnswered();
    expect(b.requestsMade).toBe(1);
    expect(b.heldCount).toBe(0);
    // Still busy, and its own figures show room: without the back-off it would ask again here.
    expect((await b.admit(world.input(6))).decision).toBe("plan");
    await b.requestsAnswered();
    expect(b.requestsMade).toBe(1);
    await tick(1_100);
    expect((await b.admit(world.input(7))).decision).toBe("plan");
    await b.requestsAnswered();
    expect(b.requestsMade).toBe(2);

    await a.close();
    await b.close();
    expect(await world.recorded()).toMatchObject({ uses: 8, reservations: 0 });
  });

  it("holds what there is above the floor, and asks again as soon as a pack is bought", async () => {
    const { db } = await testApp();
    // 12 plan credits, packs of 20. The settlement period (and so the back-off after a request
    // granted nothing) outlasts the test: only the pack purchase can end the back-off.
    const world = await pocket(db, { allowance: 12, pack: 20, autoTopUp: true });
    const store = new ReservingCreditStore(db, { ...POLICY, settleEveryMs: 60_000 });
    const results: CreditAdmitResult[] = [];
    const call = async (i: number) => {
      results.push(await store.admit(world.input(i)));
      await store.requestsAnswered();
    };
    for (let i = 0; i < 3; i++) await call(i);
    // Busy with 9 credits left: fewer than a whole reservation and the floor (8 + 4), but 5 above
    // the floor are worth holding.
    expect(store.heldCount).toBe(1);
    expect(store.requestsMade).toBe(1);
    const local = (r: CreditAdmitResult | undefined) => r?.useId?.startsWith("r") ?? false;
    let i = 3;
    for (; local(results.at(-1)) || i === 3; i++) await call(i);
    // The reservation ran out; the request for the next one found only the floor: granted nothing.
    expect(store.heldCount).toBe(0);
    const asked = store.requestsMade;
    expect(asked).toBe(2);
    // Group admission spends the floor, then buys a pack: room for a whole reservation again.
    for (; results.at(-1)?.decision !== "top_up"; i++) await call(i);
    expect((await world.recorded()).packs).toBe(1);
    expect(store.requestsMade).toBe(asked + 1);
    expect(store.heldCount).toBe(1);
    await call(i);
    expect(local(results.at(-1))).toBe(true);

    await store.close();
    expect(results.every(admitted)).toBe(true);
    const after = await world.recorded();
    expect(after).toMatchObject({ uses: results.length, reservations: 0, packs: 1 });
    expect(after.window?.topUpCredits).toBe(20 - (results.length - 12));
  });

  for (const autoTopUp of [false, true]) {
    it(`stays exact across two instances holding reservations (auto top-up ${autoTopUp ? "on" : "off"})`, async () => {
      const { db } = await testApp();
      const allowance = 40;
      const pack = 10;
      const calls = 120;
      const world = await pocket(db, { allowance, pack, autoTopUp });
      const a = new ReservingCreditStore(db, POLICY);
      const b = new ReservingCreditStore(db, POLICY);
      // Each instance first serves calls one at a time until it holds a reservation; then waves
      // of simultaneous calls on both meet reservations held by either, and refusals (or pack
      // purchases) happen while credits are held.
      const results: CreditAdmitResult[] = [];
      for (const store of [a, b]) {
        while (store.heldCount === 0) {
          results.push(await store.admit(world.input(0)));
          await tick(1);
        }
      }
      expect(results.length).toBeLessThan(30);
      for (let wave = 0; results.length < calls; wave++) {
        const size = Math.min(12, calls - results.length);
        const batch = await Promise.all(
          Array.from({ length: size }, (_, i) => (i % 2 ? a : b).admit(world.input(wave))),
        );
        results.push(...batch);
        await tick(1);
      }
      await a.close();
      await b.close();
      const counts = tally(results.map((r) => r.decision));
      const after = await world.recorded();
      if (autoTopUp) {
        // Everything admitted, with exactly the packs one call after another would buy.
        expect(results.every(admitted)).toBe(true);
        expect(after.packs).toBe(Math.ceil((calls - allowance) / pack));
      } else {
        expect(results.filter(admitted)).toHaveLength(allowance);
        expect(counts.get("refuse")).toBe(calls - allowance);
        expect(after.packs).toBe(0);
      }
      expect(after.uses).toBe(results.filter(admitted).length);
      expect(after.reservations).toBe(0);
      expect(after.window).toMatchObject({ used: allowance, reservedPlan: 0, reservedTopUp: 0 });
      expect(results.some((r) => r.useId?.startsWith("r"))).toBe(true);
    });
  }

  it("gives a refunded call's credit back, before and after its use is written", async () => {
    const { db } = await testApp();
    const world = await pocket(db, { allowance: 30, pack: 10, autoTopUp: false });
    const store = new ReservingCreditStore(db, { ...POLICY, settleEveryMs: 60_000 });
    const results: CreditAdmitResult[] = [];
    for (let i = 0; i < 6; i++) {
      results.push(await store.admit(world.input(i)));
      await tick();
    }
    const last = results.at(-1);
    expect(last?.useId?.startsWith("r")).toBe(true);
    const kept = results.find((r) => r.useId?.startsWith("r") && r !== last);
    // Not written yet: dropped, and the credit returns to the reservation.
    expect(await store.refund(last?.useId as string)).toBe(true);
    expect(await store.refund(last?.useId as string)).toBe(false);
    const again = await store.admit(world.input(10));
    expect(again.useId?.startsWith("r")).toBe(true);
    await store.close();
    // Written by close(): refunded through the database, once.
    expect(await store.refund(again.useId as string)).toBe(true);
    expect(await store.refund(again.useId as string)).toBe(false);
    // Another reservation's handle with the sequence of a written, unrefunded use: not a use.
    expect(kept?.useId).toBeDefined();
    const sequence = String(kept?.useId).split(".")[1];
    expect(await store.refund(`r999999999.${sequence}`)).toBe(false);
    const after = await world.recorded();
    expect(after.uses).toBe(5);
    expect(after.window).toMatchObject({ used: 5, reservedPlan: 0 });
  });

  it("gives back a reservation whose holder stopped, once it expires, and no call is refused meanwhile", async () => {
    const { db } = await testApp();
    const world = await pocket(db, { allowance: 10, pack: 10, autoTopUp: false });
    const store = pgCreditStore(db);
    expect((await store.admit(world.input(0))).decision).toBe("plan"); // creates the window
    // A holder that takes 6 credits for 300 ms and is never heard of again.
    const first = world.input(0);
    const held = await reserveCredits(db, {
      ...first,
      want: 6,
      floor: 0,
      expiresAfterMs: 300,
    });
    expect(held.plan).toBe(6);
    const started = performance.now();
    const results: CreditAdmitResult[] = [];
    for (let i = 1; i <= 10; i++) results.push(await store.admit(world.input(i)));
    // 3 credits were free; the 4th call waited for the expiry, then took a given-back credit.
    expect(results.map((r) => r.decision)).toEqual([...Array(9).fill("plan"), "refuse"]);
    expect(performance.now() - started).toBeGreaterThanOrEqual(250);
    const after = await world.recorded();
    expect(after.reservations).toBe(0);
    expect(after.window).toMatchObject({ used: 10, reservedPlan: 0 });
  });

  // Two sessions at once: PGlite has one.
  it.runIf(testDriver === "postgres")(
    "writes a settlement's uses without holding the window row's lock",
    async () => {
      const { db } = await testApp();
      const world = await pocket(db, { allowance: 40, pack: 10, autoTopUp: false });
      const store = pgCreditStore(db);
      expect((await store.admit(world.input(0))).decision).toBe("plan"); // creates the window
      const first = world.input(1);
      const held = await reserveCredits(db, {
        ...first,
        want: 8,
        floor: 4,
        expiresAfterMs: 60_000,
      });
      const account = held.context.account?.id;
      if (!held.id || !account) throw new Error("no reservation granted");

      // Another session holds credit_uses in SHARE mode: the settlement's INSERT waits for its
      // ROW EXCLUSIVE lock, stopped where it starts writing its uses.
      let release = () => {};
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      let blocked = () => {};
      const tableLocked = new Promise<void>((resolve) => {
        blocked = resolve;
      });
      const blocker = db.transaction(async (tx) => {
        await tx.execute(sql`lock table credit_uses in share mode`);
        blocked();
        await released;
      });
      await tableLocked;
      const use = { keyId: first.keyId, route: first.route, requestId: "held-1", at: first.now };
      const settling = settleReservation(
        db,
        { id: held.id, userId: first.userId, billingAccountId: account, orgId: first.orgId },
        [{ ...use, source: "plan" }],
        false,
      );
      try {
        for (let waited = 0; ; waited += 10) {
          const rows = await db.execute(sql`
            select count(*)::int as n from pg_stat_activity
             where datname = current_database()
               and wait_event_type = 'Lock' and query like '%metering_settle_columns(%'
               and query not like '%pg_stat_activity%'`);
          if (Number((rows as unknown as { rows: { n: number }[] }).rows[0]?.n) > 0) break;
          if (waited > 10_000) throw new Error("the settlement never waited on credit_uses");
          await tick(10);
        }
        // Meanwhile every other writer of the pair can take the window row at once.
        const free = await db
          .transaction(async (tx) => {
            await tx.execute(sql`
              select used from credit_windows
               where user_id = ${first.userId} and billing_account_id = ${account}
               for update nowait`);
            return true;
          })
          .catch((err: { code?: string; cause?: { code?: string } }) => {
            if ((err.cause?.code ?? err.code) === "55P03") return false; // lock_not_available
            throw err;
          });
        expect(free).toBe(true);
      } finally {
        release();
        await blocker;
      }
      expect(await settling).toHaveLength(1);
      const after = await world.recorded();
      expect(after.uses).toBe(2);
      expect(after.window).toMatchObject({ used: 2, reservedPlan: 7 });
    },
  );
});
