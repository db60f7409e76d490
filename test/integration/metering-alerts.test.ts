import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { billingAccounts } from "../../src/db/schema/index.ts";
import { BankAccountsResponseSchema } from "../../src/http/routes/agent/bank-accounts/index.ts";
import { OrgsResponseSchema } from "../../src/http/routes/agent/orgs/index.ts";
import {
  type StatusResponse,
  StatusResponseSchema,
} from "../../src/http/routes/agent/status/index.ts";
import { setLedgerState } from "../../src/services/alerts/set-ledger-state.ts";
import { setBilling } from "../../src/services/billing/set-billing.ts";
import { getJson, rowsOf, TEST_NOW } from "../helpers/api.ts";
import { type MeteredTestApp, meteredApp, orgWithKey } from "../helpers/metering.ts";
import { testDriver } from "../helpers/test-db.ts";

const BANK = "/api/agent/bank-accounts";
const STATUS = "/api/agent/status";
const DAY = 86_400_000;
const HOUR = 3_600_000;

/** A healthy ledger, so that only billing alerts show unless a test changes it. */
async function healthyOrg(t: MeteredTestApp, plan?: "Free" | "Pocket" | "Wallet") {
  const made = await orgWithKey(t.db, { plan });
  await setLedgerState(t.db, { orgId: made.org.id, state: "healthy" });
  return made;
}

async function bank(t: MeteredTestApp, key: string) {
  const r = await getJson<Record<string, unknown>>(t.app, BANK, key);
  expect(r.status, r.text).toBe(200);
  expect(BankAccountsResponseSchema.parse(r.body)).toEqual(r.body);
  return r;
}

async function status(t: MeteredTestApp, key: string) {
  const r = await getJson<StatusResponse>(t.app, STATUS, key);
  expect(r.status, r.text).toBe(200);
  expect(StatusResponseSchema.parse(r.body)).toEqual(r.body);
  return r;
}

describe(`billing and ledger alerts (${testDriver})`, () => {
  it("warns when a trial has 5 days or fewer left, critically on the last day", async () => {
    const t = await meteredApp();
    const { org, key } = await healthyOrg(t); // trialing
    const cases: [number, number, "warn" | "critical" | null][] = [
      [5 * DAY + 1, 6, null],
      [5 * DAY, 5, "warn"],
      [DAY + 1, 2, "warn"],
      [DAY, 1, "critical"],
      [1, 1, "critical"],
      [-1, 0, "critical"],
    ];
    for (const [left, days, severity] of cases) {
      await t.db
        .update(billingAccounts)
        .set({ trialEndsAt: new Date(TEST_NOW.getTime() + left) })
        .where(eq(billingAccounts.id, org.billingAccountId));
      const r = await bank(t, key.key);
      expect(r.res.headers.get("x-service-trial-days-remaining"), `${left} ms left`).toBe(
        String(days),
      );
      if (severity) {
        expect(r.body.billingAlert, `${left} ms left`).toEqual({
          severity,
          kind: "trial_ending",
          message: expect.stringContaining("trial"),
          cta: { label: "Manage billing", url: "/settings/billing" },
        });
      } else {
        expect(r.body, `${left} ms left`).not.toHaveProperty("billingAlert");
      }
      expect(r.body).not.toHaveProperty("ledgerAlert");
      expect((await status(t, key.key)).body.subscription.trialDaysRemaining).toBe(days);
    }
  });

  it("warns at 90% of the credit window, is critical when it is full, and clears as it frees", async () => {
    const t = await meteredApp();
    const { key } = await healthyOrg(t, "Free");
    for (let i = 1; i <= 8; i++)
      expect((await bank(t, key.key)).body).not.toHaveProperty("billingAlert");
    const ninth = await bank(t, key.key);
    expect(ninth.body.billingAlert).toMatchObject({ severity: "warn", kind: "credits_low" });
    expect(ninth.body.billingAlert).toMatchObject({ message: expect.stringContaining("9 of 10") });
    const tenth = await bank(t, key.key);
    expect(tenth.body.billingAlert).toMatchObject({
      severity: "critical",
      kind: "credits_exhausted",
      message: expect.stringContaining("300 minutes"),
    });
    expect((await status(t, key.key)).body.billingAlert).toMatchObject({
      kind: "credits_exhausted",
    });
    t.clock.advance(5 * HOUR);
    expect((await status(t, key.key)).body).not.toHaveProperty("billingAlert");
    expect((await bank(t, key.key)).body).not.toHaveProperty("billingAlert");
  });

  it("is critical for past_due, canceled and trial_ended, and clears when active", async () => {
    const t = await meteredApp();
    const { org, key } = await healthyOrg(t, "Pocket");
    expect((await bank(t, key.key)).body).not.toHaveProperty("billingAlert");
    for (const s of ["past_due", "canceled", "trial_ended"] as const) {
      await setBilling(t.db, { orgId: org.id, status: s }, TEST_NOW);
      const r = await bank(t, key.key);
      expect(r.res.headers.get("x-service-subscription")).toBe(s);
      expect(r.body.billingAlert).toMatchObject({ severity: "critical", kind: s });
    }
    await setBilling(t.db, { orgId: org.id, status: "active" }, TEST_NOW);
    expect((await bank(t, key.key)).body).not.toHaveProperty("billingAlert");
  });

  it("shows the most severe billing alert when several apply", async () => {
    const t = await meteredApp();
    const { org, key } = await healthyOrg(t, "Free");
    await setBilling(
      t.db,
      { orgId: org.id, status: "trialing", trialEnds: "2026-03-05" },
      TEST_NOW,
    );
    const first = await bank(t, key.key);
    expect(first.body.billingAlert).toMatchObject({ severity: "warn", kind: "trial_ending" });
    for (let i = 0; i < 9; i++) await bank(t, key.key);
    expect((await status(t, key.key)).body.billingAlert).toMatchObject({
      severity: "critical",
      kind: "credits_exhausted",
    });
  });

  it("reflects the ledger connection: none, healthy, retrying, reconnect required", async () => {
    const t = await meteredApp();
    const { org, key } = await orgWithKey(t.db, { plan: "Wallet" });
    const none = await bank(t, key.key);
    expect(none.body.ledgerAlert).toEqual({
      severity: "warn",
      kind: "no_connection",
      message: expect.any(String),
      lastSuccessfulSync: null,
      cta: { label: "Connect a ledger", url: "/settings/ledger" },
    });

    await setLedgerState(t.db, { orgId: org.id, state: "healthy" });
    expect((await bank(t, key.key)).body).not.toHaveProperty("ledgerAlert");

    // Sync history: a success, then failures being retried.
    const [connection] = rowsOf<{ id: string }>(
      await t.db.execute(sql`SELECT id FROM ledger_connections WHERE org_id = ${org.id}`),
    );
    const lastGood = new Date(TEST_NOW.getTime() - 7 * HOUR);
    await t.db.execute(sql`
      INSERT INTO sync_runs (id, org_id, connection_id, source, started_at, finished_at, outcome)
      VALUES (${`syn_a${org.id}`}, ${org.id}, ${connection?.id}, 'test', ${new Date(lastGood.getTime() - 60_000).toISOString()}::timestamptz, ${lastGood.toISOString()}::timestamptz, 'succeeded'),
             (${`syn_b${org.id}`}, ${org.id}, ${connection?.id}, 'test', ${new Date(TEST_NOW.getTime() - HOUR).toISOString()}::timestamptz, ${new Date(TEST_NOW.getTime() - HOUR).toISOString()}::timestamptz, 'failed')`);
    await setLedgerState(t.db, { orgId: org.id, state: "retrying" });
    const retrying = await bank(t, key.key);
    expect(retrying.body.ledgerAlert).toMatchObject({
      severity: "warn",
      kind: "service_issue",
      message: expect.stringContaining("12 hours"),
      lastSuccessfulSync: lastGood.toISOString(),
    });
    expect(retrying.body.ledgerAlert).not.toHaveProperty("nextAttemptAt");

    // A live connection waiting for its daily budget: the alert says why and until when.
    const midnight = new Date(TEST_NOW.getTime() + 5 * HOUR);
    await t.db.execute(sql`
      INSERT INTO ledger_credentials (connection_id, org_id, tenant_id, access_token_sealed,
        access_expires_at, refresh_token_sealed, next_attempt_at, retry_reason)
      VALUES (${connection?.id}, ${org.id}, ${`tenant-${org.id}`}, 'sealed', ${TEST_NOW.toISOString()}::timestamptz,
        'sealed', ${midnight.toISOString()}::timestamptz, 'budget')`);
    for (const r of [await bank(t, key.key), await status(t, key.key)]) {
      expect(r.body.ledgerAlert).toMatchObject({
        kind: "service_issue",
        nextAttemptAt: midnight.toISOString(),
        message: expect.stringContaining(
          `next attempt at ${midnight.toISOString().slice(0, 16).replace("T", " ")} UTC`,
        ),
      });
      expect(JSON.stringify(r.body.ledgerAlert)).toContain("daily call limit");
    }

    await setLedgerState(t.db, { orgId: org.id, state: "reconnect_required" });
    const stale = await status(t, key.key);
    expect(stale.body.ledgerAlert).toMatchObject({
      severity: "critical",
      kind: "reconnect_required",
      lastSuccessfulSync: lastGood.toISOString(),
    });

    await setLedgerState(t.db, { orgId: org.id, state: "none" });
    const orgs = await getJson<Record<string, unknown>>(t.app, "/api/agent/orgs", key.key);
    expect(OrgsResponseSchema.parse(orgs.body)).toEqual(orgs.body);
    expect(orgs.body.ledgerAlert).toMatchObject({
      kind: "no_connection",
      lastSuccessfulSync: lastGood.toISOString(),
    });
  });
});
