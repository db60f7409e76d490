import { describe, expect, it } from "vitest";
import { createTestKey, getJson, testApp } from "../../../../../test/helpers/api.ts";
import { createTestOrg } from "../../../../../test/helpers/factories.ts";
import { testDriver } from "../../../../../test/helpers/test-db.ts";
import {
  type BankAccountsResponse,
  BankAccountsResponseSchema,
} from "../../../../contracts/agent/bank-accounts.ts";
import type { Db } from "../../../../db/client.ts";
import { bankAccounts, ledgerAccounts } from "../../../../db/schema/index.ts";
import { newId } from "../../../../domain/ids.ts";
import { setSeat } from "../../../../services/billing/set-billing.ts";

async function addBankAccount(
  db: Db,
  orgId: string,
  a: {
    name: string;
    currency?: string;
    reconciled?: string;
    statement?: string;
    source?: "STATEMENT" | "RECONCILED";
    syncedAt?: Date | null;
    sensitive?: boolean;
    active?: boolean;
  },
) {
  const ledgerId = newId("acc");
  const ext = newId("acc");
  await db.insert(ledgerAccounts).values({
    id: ledgerId,
    orgId,
    externalId: ext,
    name: a.name,
    type: "BANK",
    isSensitive: a.sensitive ?? false,
  });
  const id = newId("bank");
  await db.insert(bankAccounts).values({
    id,
    orgId,
    ledgerAccountId: ledgerId,
    externalId: ext,
    name: a.name,
    currency: a.currency ?? "AUD",
    reconciledBalance: a.reconciled ?? "0",
    statementBalance: a.statement ?? a.reconciled ?? "0",
    balanceSource: a.source ?? "RECONCILED",
    balanceSyncedAt: a.syncedAt === undefined ? new Date("2026-03-01T06:00:00Z") : a.syncedAt,
    isActive: a.active ?? true,
  });
  return id;
}

describe(`GET /api/agent/bank-accounts (${testDriver})`, () => {
  it("lists active accounts by name then id with canonical decimal balances", async () => {
    const t = await testApp();
    const org = await createTestOrg(t.db, { imported: true });
    const other = await createTestOrg(t.db);
    const everyday = await addBankAccount(t.db, org.id, {
      name: "Everyday",
      reconciled: "48210.5500",
      statement: "48000.10",
      source: "STATEMENT",
    });
    const savings = await addBankAccount(t.db, org.id, {
      name: "Savings",
      currency: "USD",
      reconciled: "-0.000",
      syncedAt: null,
    });
    const card = await addBankAccount(t.db, org.id, { name: "Amex", reconciled: "-1200.5" });
    await addBankAccount(t.db, org.id, { name: "Closed", active: false });
    await addBankAccount(t.db, other.id, { name: "Other org's account" });
    const k = await createTestKey(t.db, {
      kind: "ORG",
      orgId: org.id,
      label: "l",
      scopes: ["READ_BANK"],
    });

    const r = await getJson<BankAccountsResponse>(t.app, "/api/agent/bank-accounts", k.key);
    expect(r.status, r.text).toBe(200);
    expect(BankAccountsResponseSchema.parse(r.body)).toEqual(r.body);
    expect(r.body).toEqual({
      accounts: [
        {
          id: card,
          name: "Amex",
          currency: "AUD",
          reconciledBalance: "-1200.5",
          statementBalance: "-1200.5",
          balanceSource: "RECONCILED",
          balanceSyncedAt: "2026-03-01T06:00:00.000Z",
        },
        {
          id: everyday,
          name: "Everyday",
          currency: "AUD",
          reconciledBalance: "48210.55",
          statementBalance: "48000.1",
          balanceSource: "STATEMENT",
          balanceSyncedAt: "2026-03-01T06:00:00.000Z",
        },
        {
          id: savings,
          name: "Savings",
          currency: "USD",
          reconciledBalance: "0",
          statementBalance: "0",
          balanceSource: "RECONCILED",
        },
      ],
      redactedItemCount: 0,
    });
    // The nested form answers the same, from the same handler.
    const nested = await getJson(t.app, `/api/agent/orgs/${org.id}/bank-accounts`, k.key);
    expect([nested.status, nested.text]).toEqual([200, r.text]);

    // The query is prepared once per database client and reused: the next organisation's call
    // on the same client reads its own accounts only.
    const otherKey = await createTestKey(t.db, {
      kind: "ORG",
      orgId: other.id,
      label: "l",
      scopes: ["READ_BANK"],
    });
    const theirs = await getJson<BankAccountsResponse>(
      t.app,
      "/api/agent/bank-accounts",
      otherKey.key,
    );
    expect(theirs.status, theirs.text).toBe(200);
    expect(theirs.body.accounts.map((a) => a.name)).toEqual(["Other org's account"]);
  });

  it("breaks name ties by id", async () => {
    const t = await testApp();
    const org = await createTestOrg(t.db);
    const ids = [
      await addBankAccount(t.db, org.id, { name: "Same" }),
      await addBankAccount(t.db, org.id, { name: "Same" }),
      await addBankAccount(t.db, org.id, { name: "Same" }),
    ];
    const k = await createTestKey(t.db, {
      kind: "ORG",
      orgId: org.id,
      label: "l",
      scopes: ["READ_BANK"],
    });
    const r = await getJson<BankAccountsResponse>(t.app, "/api/agent/bank-accounts", k.key);
    expect(r.body.accounts.map((a) => a.id)).toEqual([...ids].sort());
  });

  it("drops sensitive accounts without READ_SENSITIVE and counts them", async () => {
    const t = await testApp();
    const org = await createTestOrg(t.db);
    await addBankAccount(t.db, org.id, { name: "Operating", reconciled: "100" });
    await addBankAccount(t.db, org.id, {
      name: "Director loan",
      reconciled: "5000",
      sensitive: true,
    });
    await addBankAccount(t.db, org.id, { name: "Wages", reconciled: "7000", sensitive: true });
    await addBankAccount(t.db, org.id, { name: "Old wages", sensitive: true, active: false });
    const plain = await createTestKey(t.db, {
      kind: "ORG",
      orgId: org.id,
      label: "p",
      scopes: ["READ_BANK"],
    });
    const sensitive = await createTestKey(t.db, {
      kind: "ORG",
      orgId: org.id,
      label: "s",
      scopes: ["READ_BANK"],
      sensitive: true,
    });
    const hidden = await getJson<BankAccountsResponse>(
      t.app,
      "/api/agent/bank-accounts",
      plain.key,
    );
    expect(hidden.body.accounts.map((a) => a.name)).toEqual(["Operating"]);
    expect(hidden.body.redactedItemCount).toBe(2);
    expect(hidden.text).not.toMatch(/Director|Wages/);
    const shown = await getJson<BankAccountsResponse>(
      t.app,
      "/api/agent/bank-accounts",
      sensitive.key,
    );
    expect(shown.body.accounts.map((a) => a.name)).toEqual(["Director loan", "Operating", "Wages"]);
    expect(shown.body.redactedItemCount).toBe(0);
  });

  it("reads the organisation in the path for a partner key", async () => {
    const t = await testApp();
    const org = await createTestOrg(t.db);
    await addBankAccount(t.db, org.id, { name: "Client account", sensitive: true });
    const { createPartner, linkPartner } = await import(
      "../../../../services/partners/partners.ts"
    );
    const partner = await createPartner(t.db, { name: "Practice" }, new Date());
    await linkPartner(t.db, partner.id, org.id, new Date());
    await setSeat(t.db, { orgId: org.id, userId: partner.ownerUserId, plan: "Pocket" }, new Date());
    const k = await createTestKey(t.db, { kind: "PARTNER", partnerId: partner.id, label: "p" });
    const r = await getJson<BankAccountsResponse>(
      t.app,
      `/api/agent/orgs/${org.id}/bank-accounts`,
      k.key,
    );
    // Partner keys carry READ_SENSITIVE.
    expect(r.body).toMatchObject({ accounts: [{ name: "Client account" }], redactedItemCount: 0 });
  });
});
