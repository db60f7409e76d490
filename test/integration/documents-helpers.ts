import { fileURLToPath } from "node:url";
import { and, eq, sql } from "drizzle-orm";
import type { Db } from "../../src/db/client.ts";
import {
  cashItemLines,
  cashItems,
  contacts,
  creditNoteLines,
  creditNotes,
  ledgerAccounts,
  purchaseOrderLines,
  purchaseOrders,
} from "../../src/db/schema/index.ts";
import type { Scope } from "../../src/domain/scopes.ts";
import { noopMetering } from "../../src/http/pipeline/metering.ts";
import { importLedgerFolder } from "../../src/services/sync/import-ledger.ts";
import { createTestKey, type TestApp, testApp } from "../helpers/api.ts";
import { createTestOrg } from "../helpers/factories.ts";

/*
 * Shared set-up of the documents suites (test/integration/documents*.test.ts): the hand-made
 * export `test/fixtures/ledger-docs` imported into a fresh organisation, keys with and without
 * READ_SENSITIVE, and id lookups from the fixture's readable ledger ids to the service's ids.
 */

export const DOCS_FIXTURE = fileURLToPath(new URL("../fixtures/ledger-docs", import.meta.url));
/** The instant of the import and of every request: 2024-06-30 in Sydney. */
export const DOCS_NOW = new Date("2024-06-30T02:00:00.000Z");

const gid = (prefix: string, n: number) =>
  `${prefix}-0000-4000-8000-${String(n).padStart(12, "0")}`;
/** Fixture ledger ids (see test/fixtures/ledger-docs/README.md). */
export const A = (n: number) => gid("a0000000", n);
export const C = (n: number) => gid("c0000000", n);
export const I = (n: number) => gid("10000000", n);
export const B = (n: number) => gid("20000000", n);
export const CN = (n: number) => gid("30000000", n);
export const PO = (n: number) => gid("40000000", n);
export const L = (n: number) => gid("70000000", n);

export const ALL_READ: Scope[] = [
  "READ_INVOICES",
  "READ_CONTACTS",
  "READ_PURCHASE_ORDERS",
  "READ_BANK",
];

/** Service ids of the imported rows, by ledger id. */
export interface DocsIds {
  item(externalId: string): string;
  line(externalId: string): string;
  creditNote(externalId: string): string;
  order(externalId: string): string;
  contact(externalId: string): string;
}

export interface DocsWorld {
  t: TestApp;
  orgId: string;
  /** ALL_READ without READ_SENSITIVE. */
  plain: string;
  /** ALL_READ with READ_SENSITIVE. */
  sensitive: string;
  ids: DocsIds;
}

/**
 * A fresh organisation with the docs fixture imported; with `flag`, contact C5 (Secret Client)
 * and account A22 (code 477, Wages and Salaries) are flagged sensitive.
 */
export async function docsWorld(opts: { flag?: boolean } = {}): Promise<DocsWorld> {
  const t = await testApp({ now: DOCS_NOW, metering: noopMetering });
  const org = await createTestOrg(t.db, { name: "Docs Org", now: DOCS_NOW });
  await importLedgerFolder(t.db, { orgId: org.id, folder: DOCS_FIXTURE, now: DOCS_NOW });
  if (opts.flag ?? true) {
    await t.db
      .update(contacts)
      .set({ isSensitive: true })
      .where(and(eq(contacts.orgId, org.id), eq(contacts.externalId, C(5))));
    await t.db
      .update(ledgerAccounts)
      .set({ isSensitive: true })
      .where(and(eq(ledgerAccounts.orgId, org.id), eq(ledgerAccounts.externalId, A(22))));
  }
  const plain = await createTestKey(
    t.db,
    { kind: "ORG", orgId: org.id, label: "plain", scopes: ALL_READ },
    DOCS_NOW,
  );
  const sensitive = await createTestKey(
    t.db,
    { kind: "ORG", orgId: org.id, label: "sensitive", scopes: ALL_READ, sensitive: true },
    DOCS_NOW,
  );
  return {
    t,
    orgId: org.id,
    plain: plain.key,
    sensitive: sensitive.key,
    ids: await idsOf(t.db, org.id),
  };
}

async function idsOf(db: Db, orgId: string): Promise<DocsIds> {
  const map = async (rows: Promise<{ id: string; externalId: string | null }[]>) =>
    new Map((await rows).map((r) => [r.externalId ?? "", r.id]));
  const items = await map(
    db
      .select({ id: cashItems.id, externalId: cashItems.externalId })
      .from(cashItems)
      .where(eq(cashItems.orgId, orgId)),
  );
  const lines = new Map<string, string>();
  for (const table of [cashItemLines, creditNoteLines, purchaseOrderLines]) {
    const rows = await db
      .select({ id: table.id, externalId: table.externalId })
      .from(table)
      .where(eq(table.orgId, orgId));
    for (const r of rows) lines.set(r.externalId ?? "", r.id);
  }
  const notes = await map(
    db
      .select({ id: creditNotes.id, externalId: creditNotes.externalId })
      .from(creditNotes)
      .where(eq(creditNotes.orgId, orgId)),
  );
  const orders = await map(
    db
      .select({ id: purchaseOrders.id, externalId: purchaseOrders.externalId })
      .from(purchaseOrders)
      .where(eq(purchaseOrders.orgId, orgId)),
  );
  const people = await map(
    db
      .select({ id: contacts.id, externalId: contacts.externalId })
      .from(contacts)
      .where(eq(contacts.orgId, orgId)),
  );
  const get = (m: Map<string, string>, what: string) => (ext: string) => {
    const id = m.get(ext);
    if (!id) throw new Error(`no ${what} ${ext}`);
    return id;
  };
  return {
    item: get(items, "cash item"),
    line: get(lines, "line"),
    creditNote: get(notes, "credit note"),
    order: get(orders, "purchase order"),
    contact: get(people, "contact"),
  };
}

/** Query-string builder that drops undefined values. */
export function qs(params: Record<string, string | number | boolean | undefined>): string {
  const parts = Object.entries(params)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`);
  return parts.length ? `?${parts.join("&")}` : "";
}

/** A cash item inserted directly (for the properties and the caps). */
export interface RawItem {
  id: string;
  source?: "LEDGER_INVOICE" | "LEDGER_BILL";
  ledgerStatus: "DRAFT" | "SUBMITTED" | "AUTHORISED" | "PAID" | "VOIDED" | "DELETED";
  issueDate: string | null;
  dueDate?: string | null;
  amount: string;
  currency?: string;
  contactId?: string | null;
  category?: string | null;
  actualDate?: string | null;
  amountPaid?: string | null;
}

const CASH_STATUS = {
  PAID: "ACTUAL",
  VOIDED: "CANCELLED",
  DELETED: "CANCELLED",
  DRAFT: "FORECAST",
  SUBMITTED: "FORECAST",
  AUTHORISED: "FORECAST",
} as const;

/** Inserts cash items as the import would shape them (without lines). */
export async function insertItems(db: Db, orgId: string, rows: readonly RawItem[]): Promise<void> {
  if (rows.length === 0) return;
  await db.insert(cashItems).values(
    rows.map((r) => ({
      id: r.id,
      orgId,
      source: r.source ?? "LEDGER_INVOICE",
      externalId: `ext-${r.id}`,
      invoiceNumber: `N-${r.id}`,
      contactExternalId: r.contactId ?? null,
      contactName: r.contactId ? `Contact ${r.contactId}` : null,
      status: CASH_STATUS[r.ledgerStatus],
      ledgerStatus: r.ledgerStatus,
      currency: r.currency ?? "AUD",
      amount: r.amount,
      issueDate: r.issueDate,
      dueDate: r.dueDate ?? null,
      expectedDate: r.dueDate ?? r.issueDate ?? "2024-01-01",
      category: r.category ?? null,
      actualDate: r.actualDate ?? null,
      amountPaid: r.amountPaid ?? null,
      lastSyncedAt: DOCS_NOW,
    })),
  );
}

/**
 * Inserts `n` invoices in one statement (INSERT … SELECT generate_series), for the caps: ids
 * `<prefix>-000001…`, amount 1.25 each, dates spread over 2020–2024, status `status` except the
 * last row, which is DRAFT (so a status filter can select exactly n − 1 rows).
 */
export async function bulkInsertItems(
  db: Db,
  orgId: string,
  n: number,
  opts: { prefix: string; status: string; source?: string },
): Promise<void> {
  await db.execute(sql`
    insert into cash_items (id, org_id, source, external_id, status, ledger_status, currency,
                            amount, issue_date, expected_date, last_synced_at)
    select ${opts.prefix} || '-' || lpad(g::text, 6, '0'), ${orgId}, ${opts.source ?? "LEDGER_INVOICE"},
           ${opts.prefix} || '-ext-' || g, 'FORECAST',
           case when g = ${n} then 'DRAFT' else ${opts.status} end, 'AUD', 1.25,
           date '2020-01-01' + (g % 1800), date '2020-01-01' + (g % 1800), ${DOCS_NOW.toISOString()}::timestamptz
      from generate_series(1, ${n}) g`);
}

/**
 * Inserts `n` contacts in one statement, for the contact caps: customers all but the last (which
 * is a supplier only, so `type=customer` selects exactly n − 1), lastSyncedAt one second apart.
 */
export async function bulkInsertContacts(db: Db, orgId: string, n: number, prefix: string) {
  await db.execute(sql`
    insert into contacts (id, org_id, external_id, name, is_customer, is_supplier, last_synced_at)
    select ${prefix} || '-' || lpad(g::text, 6, '0'), ${orgId}, ${prefix} || '-ext-' || g,
           'Contact ' || g, g <> ${n}, g % 3 = 0 or g = ${n},
           ${DOCS_NOW.toISOString()}::timestamptz - (g || ' seconds')::interval
      from generate_series(1, ${n}) g`);
}
