import { spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { UsageError } from "../../src/cli/args.ts";
import { cashCommand } from "../../src/cli/commands/cash.ts";
import { forecastCommand, scenarioCommand } from "../../src/cli/commands/forecast.ts";
import { keysCommand } from "../../src/cli/commands/keys.ts";
import { orgCommand } from "../../src/cli/commands/org.ts";
import { partnerCommand } from "../../src/cli/commands/partner.ts";
import { sensitiveCommand } from "../../src/cli/commands/sensitive.ts";
import { userCommand } from "../../src/cli/commands/user.ts";
import {
  billingAccounts,
  contacts,
  ledgerAccounts,
  memberships,
  organisations,
  partnerLinks,
  seats,
  users,
} from "../../src/db/schema/index.ts";
import { TEST_NOW } from "../helpers/api.ts";
import { runCommand } from "../helpers/cli.ts";
import { createTestOrg } from "../helpers/factories.ts";
import { embeddedDataDir, getTestDatabase, testDriver } from "../helpers/test-db.ts";

describe(`tenancy commands (${testDriver})`, () => {
  it("org create: an organisation, its owner, a billing account on the plan and the owner's seat", async () => {
    const { db } = await getTestDatabase();
    const [out] = await runCommand(orgCommand, [
      "create",
      "--name",
      "Acme Pty Ltd",
      "--currency",
      "nzd",
      "--timezone",
      "Pacific/Auckland",
      "--plan",
      "vault",
    ]);
    expect(out).toMatchObject({
      id: expect.stringMatching(/^org_/),
      ownerUserId: expect.stringMatching(/^usr_/),
    });
    const [org] = await db
      .select()
      .from(organisations)
      .where(eq(organisations.id, String(out?.id)));
    expect(org).toMatchObject({
      name: "Acme Pty Ltd",
      baseCurrency: "NZD",
      timezone: "Pacific/Auckland",
    });
    const [billing] = await db
      .select()
      .from(billingAccounts)
      .where(eq(billingAccounts.id, String(org?.billingAccountId)));
    expect(billing).toMatchObject({
      plan: "Vault",
      subscriptionStatus: "active",
      trialEndsAt: null,
      ownerUserId: out?.ownerUserId,
    });
    const seat = await db
      .select()
      .from(seats)
      .where(eq(seats.billingAccountId, String(billing?.id)));
    expect(seat).toEqual([expect.objectContaining({ userId: out?.ownerUserId, plan: "Vault" })]);
    const owner = await db
      .select()
      .from(memberships)
      .where(eq(memberships.orgId, String(out?.id)));
    expect(owner).toEqual([expect.objectContaining({ userId: out?.ownerUserId, role: "owner" })]);
  });

  it("org create without --plan starts a 14-day Wallet trial, like a new sign-up", async () => {
    const { db } = await getTestDatabase();
    const [out] = await runCommand(orgCommand, ["create", "--name", "Trial Co"]);
    expect(out).toMatchObject({ plan: "Wallet", subscriptionStatus: "trialing" });
    const [billing] = await db
      .select()
      .from(billingAccounts)
      .where(eq(billingAccounts.id, String(out?.billingAccountId)));
    expect(billing?.trialEndsAt?.getTime()).toBe(TEST_NOW.getTime() + 14 * 86_400_000);
  });

  it.each([
    [["create"], /--name is required/],
    [["create", "--name", "X", "--plan", "Gold"], /--plan must be one of/],
    [["create", "--name", "X", "--colour", "red"], /unknown flag --colour/],
    [["delete", "--name", "X"], /unknown subcommand/],
  ])("org %j is refused with a usage error", async (argv, message) => {
    await expect(runCommand(orgCommand, argv)).rejects.toThrow(UsageError);
    await expect(runCommand(orgCommand, argv)).rejects.toThrow(message);
  });

  it("org create refuses a bad currency or timezone without writing anything", async () => {
    const { db } = await getTestDatabase();
    const name = `Bad Zone ${Math.random()}`;
    await expect(
      runCommand(orgCommand, ["create", "--name", name, "--timezone", "Mars/Olympus"]),
    ).rejects.toThrow(/timezone/);
    await expect(
      runCommand(orgCommand, ["create", "--name", name, "--currency", "DOLLARS"]),
    ).rejects.toThrow(/currency/);
    await expect(
      runCommand(orgCommand, ["create", "--name", name, "--currency", "ZZZ"]),
    ).rejects.toThrow(/ISO 4217/);
    expect(await db.select().from(organisations).where(eq(organisations.name, name))).toEqual([]);
  });

  it("user create: an existing email gains the membership instead of a second user", async () => {
    const { db } = await getTestDatabase();
    const org = await createTestOrg(db);
    const email = `Someone.${Math.random().toString(36).slice(2)}@example.com`;
    const [first] = await runCommand(userCommand, ["create", "--email", email]);
    expect(first).toMatchObject({ id: expect.stringMatching(/^usr_/), created: true });
    const [second] = await runCommand(userCommand, [
      "create",
      "--email",
      email.toUpperCase(),
      "--org",
      org.id,
      "--role",
      "admin",
    ]);
    expect(second).toMatchObject({
      id: first?.id,
      created: false,
      membership: { orgId: org.id, role: "admin" },
    });
    const rows = await db
      .select()
      .from(memberships)
      .where(and(eq(memberships.orgId, org.id), eq(memberships.userId, String(first?.id))));
    expect(rows).toEqual([expect.objectContaining({ role: "admin" })]);
    await expect(runCommand(userCommand, ["create", "--email", "not-an-email"])).rejects.toThrow(
      /email/,
    );
    await expect(
      runCommand(userCommand, ["create", "--email", email, "--role", "admin"]),
    ).rejects.toThrow(/--role needs --org/);
    await expect(
      runCommand(userCommand, ["create", "--email", email, "--org", org.id, "--role", "boss"]),
    ).rejects.toThrow(/--role must be one of/);
    // Without --role an existing membership keeps its role.
    const [again] = await runCommand(userCommand, ["create", "--email", email, "--org", org.id]);
    expect(again).toMatchObject({ membership: { orgId: org.id, role: "admin" } });
    // Repeated and empty flags are refused, not read as the last or as absent.
    await expect(
      runCommand(userCommand, ["create", "--email", email, "--org", org.id, "--org", org.id]),
    ).rejects.toThrow(/--org is given more than once/);
    await expect(
      runCommand(userCommand, ["create", "--email", email, "--org", "", "--role", "owner"]),
    ).rejects.toThrow(/--org needs a value/);
  });

  it("user create never leaves an organisation without an owner", async () => {
    const { db } = await getTestDatabase();
    const org = await createTestOrg(db);
    const [owner] = await db
      .select({ userId: memberships.userId })
      .from(memberships)
      .where(and(eq(memberships.orgId, org.id), eq(memberships.role, "owner")));
    const [user] = await db
      .select()
      .from(users)
      .where(eq(users.id, String(owner?.userId)));
    const email = String(user?.email);
    // Without --role: the owner stays owner (it used to become a member).
    const [kept] = await runCommand(userCommand, ["create", "--email", email, "--org", org.id]);
    expect(kept).toMatchObject({ membership: { orgId: org.id, role: "owner" } });
    // The only owner cannot be demoted.
    await expect(
      runCommand(userCommand, ["create", "--email", email, "--org", org.id, "--role", "member"]),
    ).rejects.toThrow(/only owner/);
    // With a second owner, the first may step down.
    const second = `second-owner-${Math.random().toString(36).slice(2)}@example.com`;
    await runCommand(userCommand, [
      "create",
      "--email",
      second,
      "--org",
      org.id,
      "--role",
      "owner",
    ]);
    const [demoted] = await runCommand(userCommand, [
      "create",
      "--email",
      email,
      "--org",
      org.id,
      "--role",
      "admin",
    ]);
    expect(demoted).toMatchObject({ membership: { orgId: org.id, role: "admin" } });
  });

  it("partner create, link and unlink", async () => {
    const { db } = await getTestDatabase();
    const org = await createTestOrg(db);
    const [partner] = await runCommand(partnerCommand, ["create", "--name", "Advisers & Co"]);
    expect(partner).toMatchObject({
      id: expect.stringMatching(/^prt_/),
      ownerUserId: expect.stringMatching(/^usr_/),
    });
    await runCommand(partnerCommand, ["link", "--partner", String(partner?.id), "--org", org.id]);
    await runCommand(partnerCommand, ["link", "--partner", String(partner?.id), "--org", org.id]); // idempotent
    expect(
      await db
        .select()
        .from(partnerLinks)
        .where(eq(partnerLinks.partnerId, String(partner?.id))),
    ).toHaveLength(1);
    await runCommand(partnerCommand, ["unlink", "--partner", String(partner?.id), "--org", org.id]);
    expect(
      await db
        .select()
        .from(partnerLinks)
        .where(eq(partnerLinks.partnerId, String(partner?.id))),
    ).toHaveLength(0);
    await expect(
      runCommand(partnerCommand, ["link", "--partner", "prt_nope", "--org", org.id]),
    ).rejects.toThrow(/not found/);
  });

  it("sensitive flags an account by code and a contact by ledger id, and clears them", async () => {
    const { db } = await getTestDatabase();
    const org = await createTestOrg(db);
    await db.insert(ledgerAccounts).values({
      id: `acc_${org.id}`,
      orgId: org.id,
      externalId: "A-1",
      code: "477",
      name: "Wages",
      type: "EXPENSE",
    });
    await db.insert(contacts).values({
      id: `ctc_${org.id}`,
      orgId: org.id,
      externalId: "C-1",
      name: "Director",
      lastSyncedAt: TEST_NOW,
    });
    const [acc] = await runCommand(sensitiveCommand, ["--org", org.id, "--account", "477", "on"]);
    expect(acc).toMatchObject({ kind: "account", name: "Wages", isSensitive: true });
    const [ctc] = await runCommand(sensitiveCommand, ["--org", org.id, "--contact", "C-1", "on"]);
    expect(ctc).toMatchObject({ kind: "contact", isSensitive: true });
    const flagged = await db.select().from(ledgerAccounts).where(eq(ledgerAccounts.orgId, org.id));
    expect(flagged[0]?.isSensitive).toBe(true);
    await runCommand(sensitiveCommand, ["--org", org.id, "--account", `acc_${org.id}`, "off"]);
    const cleared = await db.select().from(ledgerAccounts).where(eq(ledgerAccounts.orgId, org.id));
    expect(cleared[0]?.isSensitive).toBe(false);
    // Another organisation's account is out of reach: not found, nothing changed.
    const other = await createTestOrg(db);
    await expect(
      runCommand(sensitiveCommand, ["--org", other.id, "--account", "477", "on"]),
    ).rejects.toThrow(/not found/);
    await expect(
      runCommand(sensitiveCommand, ["--org", org.id, "--account", "477", "maybe"]),
    ).rejects.toThrow(UsageError);
    await expect(
      runCommand(sensitiveCommand, ["--org", org.id, "--account", "477", "--contact", "C-1", "on"]),
    ).rejects.toThrow(/exactly one/);
  });
});

describe(`an --org naming no organisation (${testDriver})`, () => {
  it("is refused by the listings and the explainer, not answered with an empty list", async () => {
    const org = await createTestOrg((await getTestDatabase()).db);
    for (const [command, argv] of [
      [keysCommand, ["list", "--org", "org_nope"]],
      [cashCommand, ["item", "list", "--org", "org_nope"]],
      [scenarioCommand, ["list", "--org", "org_nope"]],
      [forecastCommand, ["explain", "--org", "org_nope", "--week", "1"]],
      [sensitiveCommand, ["--org", "org_nope", "--account", "200", "on"]],
    ] as const) {
      await expect(runCommand(command, [...argv]), argv.join(" ")).rejects.toThrow(
        /organisation not found|no organisation "org_nope"/,
      );
    }
    // An organisation that exists still lists (empty).
    expect(await runCommand(keysCommand, ["list", "--org", org.id])).toMatchObject([{ keys: [] }]);
  });
});

describe("the cashrunway executable", () => {
  const bin = join(import.meta.dirname, "../../bin/cashrunway.mjs");
  const run = (args: string[], env: Record<string, string>) =>
    spawnSync(process.execPath, [bin, ...args], {
      env: { ...process.env, ...env },
      encoding: "utf8",
      timeout: 150_000,
    });

  it("prints one JSON object with --json, and one stderr line with a non-zero exit on bad arguments", () => {
    const dataDir = embeddedDataDir("cr-cli-");
    try {
      const env = { DATA_DIR: dataDir, LOG_LEVEL: "silent" };
      const ok = run(["org", "create", "--name", "Spawned Co", "--json"], env);
      expect(ok.status, ok.stderr).toBe(0);
      expect(JSON.parse(ok.stdout)).toMatchObject({
        id: expect.stringMatching(/^org_/),
        ownerUserId: expect.any(String),
      });

      const bad = run(["org", "create", "--json"], env);
      expect(bad.status).toBe(2);
      expect(bad.stdout).toBe("");
      expect(bad.stderr.trim().split("\n")).toEqual(["cashrunway org: --name is required"]);

      const badConfig = run(["org", "create", "--name", "X"], { ...env, PORT: "eighty" });
      expect(badConfig.status).toBe(1);
      expect(badConfig.stderr).toMatch(/PORT="eighty"/);

      // An --org naming no organisation: the same line and exit code from every command, lists
      // included (they answered an empty list before).
      for (const argv of [
        ["keys", "list", "--org", "org_nope"],
        ["billing", "show", "--org", "org_nope"],
        ["scenario", "list", "--org", "org_nope"],
      ]) {
        const missing = run(argv, env);
        expect(missing.status, argv.join(" ")).toBe(2);
        expect(missing.stdout).toBe("");
        expect(missing.stderr).toBe(`cashrunway ${argv[0]}: no organisation "org_nope"\n`);
      }

      const version = run(["--version"], env);
      expect(version.status).toBe(0);
      expect(version.stdout).toMatch(/^cashrunway \d+\.\d+\.\d+\n$/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 180_000);
});
