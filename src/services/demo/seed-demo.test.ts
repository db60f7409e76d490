import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getTestDatabase, testDriver } from "../../../test/helpers/test-db.ts";
import type { Db } from "../../db/client.ts";
import {
  apiKeys,
  bankAccounts,
  billingAccounts,
  cashItems,
  ledgerAccounts,
  organisations,
  syncRuns,
} from "../../db/schema/index.ts";
import { ALL_BUT_SENSITIVE } from "../../domain/scopes.ts";
import { authenticateKey } from "../keys/authenticate-key.ts";
import { type SeededDemo, seedDemo } from "./seed-demo.ts";

const NOW = new Date("2026-03-10T01:30:00Z");

async function countRows(db: Db, table: string, orgId: string, where = "true"): Promise<number> {
  const result = await db.execute(
    sql.raw(
      `select count(*)::int as n from ${table} where org_id = '${orgId.replace(/'/g, "")}' and ${where}`,
    ),
  );
  const rows = (result as unknown as { rows: { n: number }[] }).rows;
  return rows[0]?.n ?? -1;
}

describe(`seedDemo (${testDriver})`, () => {
  let db: Db;
  let folder: string;
  let demo: SeededDemo;

  beforeAll(async () => {
    db = (await getTestDatabase()).db;
    folder = await mkdtemp(join(tmpdir(), "demo-seed-"));
    demo = await seedDemo(db, { seed: "seed-demo-test", now: NOW, folder });
  }, 120_000);

  afterAll(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  it("creates the organisation on a 14-day Wallet trial in Sydney time", async () => {
    const [org] = await db.select().from(organisations).where(eq(organisations.id, demo.orgId));
    expect(org?.name).toBe("Demo Pty Ltd");
    expect(org?.timezone).toBe("Australia/Sydney");
    expect(org?.baseCurrency).toBe("AUD");
    expect(org?.ledgerOrganisationId).toBe(demo.summary.organisation.id);
    const [billing] = await db
      .select()
      .from(billingAccounts)
      .where(eq(billingAccounts.id, org?.billingAccountId ?? ""));
    expect(billing?.plan).toBe("Wallet");
    expect(billing?.subscriptionStatus).toBe("trialing");
    expect(billing?.trialEndsAt?.toISOString()).toBe("2026-03-24T01:30:00.000Z");
    expect(billing?.ownerUserId).toBe(demo.ownerUserId);
  });

  it("imports the generated folder: every collection's projection count matches the summary", async () => {
    const c = demo.summary.counts;
    const [run] = await db
      .select()
      .from(syncRuns)
      .where(and(eq(syncRuns.orgId, demo.orgId), eq(syncRuns.id, demo.syncRunId)));
    expect(run?.outcome).toBe("succeeded");
    expect(await countRows(db, "cash_items", demo.orgId, "source = 'LEDGER_INVOICE'")).toBe(
      c.invoices,
    );
    expect(await countRows(db, "cash_items", demo.orgId, "source = 'LEDGER_BILL'")).toBe(c.bills);
    const f = demo.summary.features;
    expect(await countRows(db, "cash_item_lines", demo.orgId)).toBe(f.invoiceLines);
    expect(await countRows(db, "credit_note_lines", demo.orgId)).toBe(f.creditNoteLines);
    expect(await countRows(db, "purchase_order_lines", demo.orgId)).toBe(f.purchaseOrderLines);
    expect(await countRows(db, "credit_note_allocations", demo.orgId)).toBe(
      f.creditNoteAllocations,
    );
    expect(await countRows(db, "contacts", demo.orgId)).toBe(c.contacts);
    expect(await countRows(db, "contacts", demo.orgId, "is_customer")).toBe(c.customers);
    expect(await countRows(db, "contacts", demo.orgId, "is_supplier")).toBe(c.suppliers);
    expect(await countRows(db, "ledger_accounts", demo.orgId)).toBe(c.accounts);
    expect(await countRows(db, "bank_accounts", demo.orgId)).toBe(c.bankAccounts);
    expect(await countRows(db, "credit_notes", demo.orgId)).toBe(c.creditNotes);
    expect(await countRows(db, "purchase_orders", demo.orgId)).toBe(c.purchaseOrders);
    expect(await countRows(db, "payments", demo.orgId)).toBe(c.payments);
    expect(await countRows(db, "bank_transactions", demo.orgId)).toBe(c.bankTransactions);
    for (const [status, n] of Object.entries(demo.summary.statuses.invoices)) {
      expect(
        await countRows(
          db,
          "cash_items",
          demo.orgId,
          `source = 'LEDGER_INVOICE' and ledger_status = '${status}'`,
        ),
        status,
      ).toBe(n);
    }
  });

  it("imports the bank balances of the BankSummary report", async () => {
    const rows = await db
      .select({
        externalId: bankAccounts.externalId,
        name: bankAccounts.name,
        balance: bankAccounts.reconciledBalance,
      })
      .from(bankAccounts)
      .where(eq(bankAccounts.orgId, demo.orgId));
    const byId = new Map(rows.map((r) => [r.externalId, r]));
    for (const a of demo.summary.bankSummary.accounts) {
      const row = byId.get(a.accountId);
      expect(row?.name).toBe(a.name);
      expect(Number(row?.balance ?? Number.NaN).toFixed(2)).toBe(a.closingBalance);
    }
  });

  it("flags the wages account and the director's loan account sensitive, and nothing else", async () => {
    const flagged = await db
      .select({ code: ledgerAccounts.code })
      .from(ledgerAccounts)
      .where(and(eq(ledgerAccounts.orgId, demo.orgId), eq(ledgerAccounts.isSensitive, true)));
    expect(flagged.map((r) => r.code).sort()).toEqual(["092", "477"]);
  });

  it("creates an organisation key with every scope but READ_SENSITIVE, and the key authenticates", async () => {
    expect(demo.key.startsWith(`cr_live_${demo.prefix}_`)).toBe(true);
    const key = await authenticateKey(db, demo.key);
    expect(key?.orgId).toBe(demo.orgId);
    expect(key?.kind).toBe("ORG");
    expect([...(key?.scopes ?? [])].sort()).toEqual([...ALL_BUT_SENSITIVE].sort());
    expect(key?.scopes).not.toContain("READ_SENSITIVE");
    const [row] = await db.select().from(apiKeys).where(eq(apiKeys.prefix, demo.prefix));
    // Only the digest is stored.
    expect(JSON.stringify(row)).not.toContain(demo.key.split("_").pop());
  });

  it("projects open receivables falling due after today", async () => {
    const open = await db
      .select({ n: sql<number>`count(*)::int` })
      .from(cashItems)
      .where(
        and(
          eq(cashItems.orgId, demo.orgId),
          eq(cashItems.source, "LEDGER_INVOICE"),
          eq(cashItems.ledgerStatus, "AUTHORISED"),
          sql`${cashItems.dueDate} > ${demo.summary.dateRange.to}`,
        ),
      );
    expect(open[0]?.n).toBeGreaterThan(0);
  });
});
