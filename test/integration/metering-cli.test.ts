import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { UsageError } from "../../src/cli/args.ts";
import type { CliContext, Command } from "../../src/cli/command.ts";
import { parseCommandLine } from "../../src/cli/command.ts";
import { billingCommand } from "../../src/cli/commands/billing.ts";
import { COMMANDS } from "../../src/cli/commands/index.ts";
import { ledgerCommand } from "../../src/cli/commands/ledger.ts";
import { ConfigSchema } from "../../src/config.ts";
import { billingEvents, ledgerConnections } from "../../src/db/schema/index.ts";
import { fixedClock } from "../../src/domain/clock.ts";
import { createUser } from "../../src/services/users/create-user.ts";
import { getJson, TEST_NOW } from "../helpers/api.ts";
import { meteredApp, orgWithKey } from "../helpers/metering.ts";
import { getTestDatabase, testDriver } from "../helpers/test-db.ts";

/** Runs a command with --json against the test database; returns the printed objects. */
async function run(command: Command, argv: string[]): Promise<Record<string, unknown>[]> {
  const database = await getTestDatabase();
  const out: Record<string, unknown>[] = [];
  const ctx: CliContext = {
    config: ConfigSchema.parse({}),
    clock: fixedClock(TEST_NOW),
    json: true,
    openDatabase: async () => ({ ...database, close: async () => {} }),
    print: (data) => out.push(data),
  };
  await command.run(parseCommandLine(command, [...argv, "--json"]).args, ctx);
  return out;
}

describe(`billing and ledger commands (${testDriver})`, () => {
  it("are registered", () => {
    expect(COMMANDS).toContain(billingCommand);
    expect(COMMANDS).toContain(ledgerCommand);
  });

  it("billing set changes the account, records events, and the next request sees it", async () => {
    const t = await meteredApp();
    const { org, key } = await orgWithKey(t.db); // Wallet trial
    const [view] = await run(billingCommand, [
      "set",
      "--org",
      org.id,
      "--plan",
      "vault",
      "--status",
      "active",
      "--auto-topup",
      "on",
    ]);
    expect(view).toMatchObject({
      orgId: org.id,
      billingAccountId: org.billingAccountId,
      plan: "Vault",
      status: "active",
      autoTopUp: true,
      seats: [{ userId: org.ownerUserId, plan: "Vault" }],
    });
    const events = await t.db
      .select()
      .from(billingEvents)
      .where(eq(billingEvents.billingAccountId, org.billingAccountId));
    expect(events.map((e) => e.kind).sort()).toEqual([
      "auto_top_up_changed",
      "plan_changed",
      "status_changed",
    ]);
    const s = await getJson<{ subscription: unknown; usage: { limit: number } }>(
      t.app,
      "/api/agent/status",
      key.key,
    );
    expect(s.body.subscription).toEqual({
      status: "active",
      plan: "Vault",
      trialEndsAt: null,
      trialDaysRemaining: null,
      autoTopUp: true,
    });
    expect(s.body.usage.limit).toBe(1000);

    const [trial] = await run(billingCommand, [
      "set",
      "--org",
      org.id,
      "--status",
      "trialing",
      "--trial-ends",
      "2026-03-06",
    ]);
    expect(trial).toMatchObject({ status: "trialing", trialEndsAt: "2026-03-06T00:00:00.000Z" });
    const r = await getJson(t.app, "/api/agent/bank-accounts", key.key);
    expect(r.res.headers.get("x-service-trial-days-remaining")).toBe("4");
    const [shown] = await run(billingCommand, ["show", "--org", org.id]);
    expect(shown?.events).toHaveLength(5);
  });

  it("billing seat gives, changes and removes a user's seat", async () => {
    const t = await meteredApp();
    const { org } = await orgWithKey(t.db, { plan: "Pocket" });
    const user = await createUser(
      t.db,
      { email: `seat-${org.id}@example.com`, orgId: org.id },
      TEST_NOW,
    );
    const [given] = await run(billingCommand, [
      "seat",
      "--org",
      org.id,
      "--user",
      user.id,
      "--plan",
      "Reserve",
    ]);
    expect(given?.seats).toContainEqual({ userId: user.id, plan: "Reserve" });
    const [removed] = await run(billingCommand, [
      "seat",
      "--org",
      org.id,
      "--user",
      user.id,
      "--plan",
      "none",
    ]);
    expect(removed?.seats).not.toContainEqual(expect.objectContaining({ userId: user.id }));
  });

  it("billing refuses bad input", async () => {
    const { db } = await getTestDatabase();
    const { org } = await orgWithKey(db, { plan: "Pocket" });
    const bad: string[][] = [
      ["set", "--org", org.id],
      ["set", "--org", org.id, "--plan", "Gold"],
      ["set", "--org", org.id, "--status", "paused"],
      ["set", "--org", org.id, "--auto-topup", "yes"],
      ["set", "--org", org.id, "--colour", "red"],
      ["frobnicate", "--org", org.id],
    ];
    for (const argv of bad)
      await expect(run(billingCommand, argv), argv.join(" ")).rejects.toThrow(UsageError);
    for (const date of ["2026-02-30", "0001-01-01", "0000-01-01", "1969-12-31", "99999-01-01"]) {
      await expect(
        run(billingCommand, ["set", "--org", org.id, "--trial-ends", date]),
        date,
      ).rejects.toThrow(/YYYY-MM-DD from 1970-01-01/);
    }
    await expect(
      run(billingCommand, ["set", "--org", org.id, "--status", "trialing"]),
    ).rejects.toThrow(/trial end/);
    await expect(
      run(billingCommand, ["set", "--org", "org_missing", "--plan", "Free"]),
    ).rejects.toThrow(/not found/);
  });

  it("ledger set-state moves the connection through every state", async () => {
    const t = await meteredApp();
    const { org, key } = await orgWithKey(t.db, { plan: "Wallet" });
    const [none] = await run(ledgerCommand, ["set-state", "--org", org.id, "none"]);
    expect(none).toEqual({ orgId: org.id, state: "none", provider: null, status: null });
    const expected = {
      healthy: ["active", undefined],
      retrying: ["service_issue", "service_issue"],
      reconnect_required: ["reconnect_required", "reconnect_required"],
      none: ["disconnected", "no_connection"],
    } as const;
    for (const [state, [dbStatus, alert]] of Object.entries(expected)) {
      const [out] = await run(ledgerCommand, ["set-state", "--org", org.id, state]);
      expect(out).toMatchObject({ state, provider: "demo", status: dbStatus });
      const [row] = await t.db
        .select()
        .from(ledgerConnections)
        .where(eq(ledgerConnections.orgId, org.id));
      expect(row?.status).toBe(dbStatus);
      const r = await getJson<{ ledgerAlert?: { kind: string } }>(
        t.app,
        "/api/agent/bank-accounts",
        key.key,
      );
      expect(r.body.ledgerAlert?.kind).toBe(alert);
    }
    await expect(run(ledgerCommand, ["set-state", "--org", org.id, "broken"])).rejects.toThrow(
      UsageError,
    );
    await expect(run(ledgerCommand, ["set-state", "--org", org.id])).rejects.toThrow(UsageError);
  });
});
