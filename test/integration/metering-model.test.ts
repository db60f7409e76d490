import { eq } from "drizzle-orm";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Db } from "../../src/db/client.ts";
import { billingAccounts, type Plan } from "../../src/db/schema/index.ts";
import {
  type CreditSource,
  creditUsage,
  decideCredit,
  topUpPackFor,
  windowStateFromUses,
} from "../../src/domain/metering/credit-window.ts";
import { limitsWith, type MeteringLimits } from "../../src/domain/metering/plans.ts";
import { utcDay } from "../../src/domain/metering/quota.ts";
import { createLogger } from "../../src/logger.ts";
import { setBilling, showBilling } from "../../src/services/billing/set-billing.ts";
import type { AuthenticatedKey, OrgRef } from "../../src/services/context.ts";
import { authenticateKey } from "../../src/services/keys/authenticate-key.ts";
import { resolveTargetOrg } from "../../src/services/keys/resolve-target-org.ts";
import { type MeterAdmission, Metering } from "../../src/services/metering/metering.ts";
import { TEST_NOW } from "../helpers/api.ts";
import { orgWithKey } from "../helpers/metering.ts";
import { getTestDatabase, testDriver } from "../helpers/test-db.ts";

/** Small allowances and packs so that runs of a few dozen calls cross every boundary. */
const LIMITS: MeteringLimits = limitsWith({
  burstLimit: 1_000_000,
  allowance: { Free: 2, Pocket: 3, Wallet: 4, Vault: 5, Reserve: 6 },
  topUpPack: { Free: null, Pocket: 2, Wallet: 2, Vault: 3, Reserve: 3 },
});
const WINDOW = LIMITS.creditWindowMs;
const PLANS: Plan[] = ["Free", "Pocket", "Wallet", "Vault", "Reserve"];

/** The reference model: every use ever made (refunds remove theirs) and the top-up balance. */
interface Model {
  now: number;
  plan: Plan;
  autoTopUp: boolean;
  topUp: number;
  uses: { id: number; at: Date; source: CreditSource }[];
  nextId: number;
}

interface Real {
  db: Db;
  metering: Metering;
  key: AuthenticatedKey;
  org: OrgRef;
  /** Model use id -> store use id. */
  ids: Map<number, string>;
}

function expectedUsage(m: Model) {
  const state = windowStateFromUses(m.uses, {
    limit: LIMITS.allowance[m.plan],
    topUpCredits: m.topUp,
    now: new Date(m.now),
    windowMs: WINDOW,
  });
  return creditUsage(state, new Date(m.now), WINDOW);
}

function expectedQuota(m: Model) {
  const day = utcDay(new Date(m.now));
  return m.uses.filter((u) => utcDay(u.at) === day).length;
}

/** Applies one credit-charged call to the model; returns whether it is admitted. */
function modelCall(m: Model): { admitted: boolean; useId: number | null } {
  const state = windowStateFromUses(m.uses, {
    limit: LIMITS.allowance[m.plan],
    topUpCredits: m.topUp,
    now: new Date(m.now),
    windowMs: WINDOW,
  });
  const pack = topUpPackFor({ autoTopUp: m.autoTopUp, status: "active" }, LIMITS.topUpPack[m.plan]);
  const decision = decideCredit(state, pack);
  if (decision === "refuse") return { admitted: false, useId: null };
  if (decision === "top_up") m.topUp -= 1;
  if (decision === "buy_pack") m.topUp = (LIMITS.topUpPack[m.plan] ?? 0) - 1;
  const id = m.nextId++;
  m.uses.push({ id, at: new Date(m.now), source: decision === "plan" ? "plan" : "top_up" });
  return { admitted: true, useId: id };
}

async function realCall(r: Real, m: Model, chargesCredit: boolean) {
  const req = {
    key: r.key,
    org: r.org,
    routeTemplate: "/api/agent/bank-accounts",
    chargesCredit,
    requestId: `model-${m.nextId}`,
    now: new Date(m.now),
  };
  try {
    return { req, admission: await r.metering.admit(req), error: null };
  } catch (e) {
    return { req, admission: null as MeterAdmission | null, error: e as { code?: string } };
  }
}

/**
 * A time step: often none or a few minutes (so windows fill and packs get bought), sometimes
 * hours or exactly a window edge (so uses expire), sometimes a little back (instances whose
 * clocks disagree).
 */
const step = fc.oneof(
  { arbitrary: fc.constant(0), weight: 4 },
  { arbitrary: fc.integer({ min: 1, max: 10 * 60_000 }), weight: 4 },
  { arbitrary: fc.integer({ min: 0, max: 2 * 3_600_000 }), weight: 2 },
  { arbitrary: fc.constantFrom(1, WINDOW - 1, WINDOW, WINDOW + 1), weight: 1 },
  { arbitrary: fc.constantFrom(-1, -60_000), weight: 1 },
  { arbitrary: fc.integer({ min: -300_000, max: 0 }), weight: 1 },
);

class Call implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly dt: number,
    /** The handler then fails with a 5xx (the credit is given back). */
    readonly fails: boolean,
  ) {}
  check = () => true;
  async run(m: Model, r: Real) {
    m.now += this.dt;
    const expected = modelCall(m);
    const { req, admission, error } = await realCall(r, m, true);
    expect(error?.code ?? "admitted").toBe(expected.admitted ? "admitted" : "credits_exhausted");
    if (admission) {
      expect(admission.figures?.usage).toEqual(expectedUsage(m));
      expect(admission.figures?.quota.used).toBe(expectedQuota(m));
      if (expected.useId !== null && admission.creditUseId) {
        r.ids.set(expected.useId, admission.creditUseId);
      }
      if (this.fails) {
        await r.metering.settle(req, 500, admission);
        const use = m.uses.find((u) => u.id === expected.useId);
        m.uses = m.uses.filter((u) => u.id !== expected.useId);
        if (use?.source === "top_up") m.topUp += 1;
      }
    }
  }
  toString = () => `call(+${this.dt}${this.fails ? ", 5xx" : ""})`;
}

class Status implements fc.AsyncCommand<Model, Real> {
  constructor(readonly dt: number) {}
  check = () => true;
  async run(m: Model, r: Real) {
    m.now += this.dt;
    const { admission, error } = await realCall(r, m, false);
    expect(error).toBeNull();
    expect(admission?.figures?.usage).toEqual(expectedUsage(m));
    expect(admission?.figures?.quota.used).toBe(expectedQuota(m));
  }
  toString = () => `status(+${this.dt})`;
}

/**
 * setBilling, or for a state it refuses (top-up on a Free plan) the same row written directly, as
 * an account could hold from before that refusal: metering must still buy nothing there.
 */
async function billingState(db: Db, orgId: string, input: { plan?: Plan; autoTopUp: boolean }) {
  const plan = input.plan ?? (await showBilling(db, orgId)).plan;
  if (!(input.autoTopUp && plan === "Free")) {
    await setBilling(db, { orgId, ...input }, TEST_NOW);
    return;
  }
  const { billingAccountId } = await setBilling(db, { orgId, plan, autoTopUp: false }, TEST_NOW);
  await db
    .update(billingAccounts)
    .set({ autoTopUp: true })
    .where(eq(billingAccounts.id, billingAccountId));
}

class ChangeBilling implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly plan: Plan,
    readonly autoTopUp: boolean,
  ) {}
  check = () => true;
  async run(m: Model, r: Real) {
    await billingState(r.db, r.org.id, { plan: this.plan, autoTopUp: this.autoTopUp });
    m.plan = this.plan;
    m.autoTopUp = this.autoTopUp;
  }
  toString = () => `billing(${this.plan}, topup ${this.autoTopUp ? "on" : "off"})`;
}

const commands = fc.commands(
  [
    fc
      .tuple(step, fc.boolean())
      .map(([dt, fails]) => new Call(dt, fails && Math.abs(dt) % 3 === 0)),
    step.map((dt) => new Status(dt)),
    fc.tuple(fc.constantFrom(...PLANS), fc.boolean()).map(([p, a]) => new ChangeBilling(p, a)),
  ],
  { maxCommands: 50, size: "max" },
);

describe(`query credits against a reference model (${testDriver})`, () => {
  it("admits, refuses, refunds, tops up and reports exactly as the model says", async () => {
    const { db } = await getTestDatabase();
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...PLANS),
        fc.boolean(),
        commands,
        async (plan, auto, cmds) => {
          const { key } = await orgWithKey(db, { plan });
          const authenticated = await authenticateKey(db, key.key);
          if (!authenticated) throw new Error("key does not authenticate");
          const org = await resolveTargetOrg(db, authenticated, undefined);
          await billingState(db, org.id, { autoTopUp: auto });
          const model: Model = {
            now: TEST_NOW.getTime(),
            plan,
            autoTopUp: auto,
            topUp: 0,
            uses: [],
            nextId: 1,
          };
          const real: Real = {
            db,
            metering: new Metering({ db, logger: createLogger("silent"), limits: LIMITS }),
            key: authenticated,
            org,
            ids: new Map(),
          };
          await fc.asyncModelRun(() => ({ model, real }), cmds);
        },
      ),
      { numRuns: testDriver === "postgres" ? 100 : 50 },
    );
  }, 180_000);
});
