import { and, eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { cashItems } from "../../src/db/schema/index.ts";
import { createTestKey, getJson } from "../helpers/api.ts";
import { createTestOrg } from "../helpers/factories.ts";
import { testDriver } from "../helpers/test-db.ts";
import { ALL_READ, DOCS_NOW, type DocsWorld, docsWorld, qs } from "./documents-helpers.ts";

/*
 * totalCount at the edges of the count shortcut (services/lists/paging.ts `loadListPage`): a
 * fetch from the start of a list that holds the whole matched set gives totalCount itself (no
 * count query); otherwise a count query does. Either way the number is the SQL count of the
 * matched rows, before redaction, on every list.
 */

interface ListBody {
  nextCursor: string | null;
  totalCount: number;
  redactedItemCount: number;
  truncated?: true;
  [rows: string]: unknown;
}

/** Each list: its path, its array, and the table and condition of its unfiltered set. */
const LISTS = [
  {
    path: "/api/agent/invoices",
    rows: "invoices",
    from: sql`cash_items`,
    where: sql`source = 'LEDGER_INVOICE'`,
  },
  {
    path: "/api/agent/bills",
    rows: "bills",
    from: sql`cash_items`,
    where: sql`source = 'LEDGER_BILL'`,
  },
  {
    path: "/api/agent/credit-notes",
    rows: "creditNotes",
    from: sql`credit_notes`,
    where: sql`type = 'ACCRECCREDIT'`,
  },
  {
    path: "/api/agent/purchase-orders",
    rows: "purchaseOrders",
    from: sql`purchase_orders`,
    where: sql`true`,
  },
  { path: "/api/agent/contacts", rows: "contacts", from: sql`contacts`, where: sql`true` },
] as const;

/** The SQL count of a list's unfiltered set in the world's organisation. */
async function sqlCount(w: DocsWorld, l: (typeof LISTS)[number]) {
  const result = (await w.t.db.execute(
    sql`select count(*)::int as n from ${l.from} where org_id = ${w.orgId} and ${l.where}`,
  )) as unknown as { rows: { n: number }[] };
  return Number(result.rows[0]?.n);
}

async function list(w: DocsWorld, path: string, key: string): Promise<ListBody> {
  const r = await getJson<ListBody>(w.t.app, path, key);
  expect(r.status, `${path}: ${r.text.slice(0, 300)}`).toBe(200);
  return r.body;
}

/** The rows of a page and the rows withheld from it: the page every key gets. */
const pageSize = (body: ListBody, rows: string) =>
  (body[rows] as unknown[]).length + body.redactedItemCount;

describe(`totalCount with and without a count query (${testDriver})`, () => {
  it("is the SQL count on every list: whole set fetched, first page, pages after a cursor", async () => {
    const w = await docsWorld();
    for (const l of LISTS) {
      const n = await sqlCount(w, l);
      expect(n, l.path).toBeGreaterThan(2);
      for (const key of [w.sensitive, w.plain]) {
        // The whole set in one fetch: autoPaginate, and a first page of exactly n rows, which is
        // also the last page.
        const auto = await list(w, `${l.path}?autoPaginate=true`, key);
        expect([auto.totalCount, pageSize(auto, l.rows), auto.nextCursor], l.path).toEqual([
          n,
          n,
          null,
        ]);
        const whole = await list(w, `${l.path}?limit=${n}`, key);
        expect([whole.totalCount, pageSize(whole, l.rows), whole.nextCursor], l.path).toEqual([
          n,
          n,
          null,
        ]);
        expect(whole).toEqual(auto);
        // One row fewer: a full first page with a cursor (the count query runs), then a last
        // page of one row reached by that cursor (the count runs again).
        const first = await list(w, `${l.path}?limit=${n - 1}`, key);
        expect([first.totalCount, pageSize(first, l.rows)], l.path).toEqual([n, n - 1]);
        expect(first.nextCursor, l.path).toEqual(expect.any(String));
        const last = await list(
          w,
          `${l.path}${qs({ limit: n - 1, cursor: first.nextCursor ?? undefined })}`,
          key,
        );
        expect([last.totalCount, pageSize(last, l.rows), last.nextCursor], l.path).toEqual([
          n,
          1,
          null,
        ]);
      }
    }
  });

  it("is 0 for an empty result, paged or not, with the same body either way", async () => {
    const w = await docsWorld();
    // Every list of an organisation without data, and the document lists of the fixture's
    // organisation through a date range nothing falls in.
    const other = await createTestOrg(w.t.db, { now: DOCS_NOW });
    const otherKey = await createTestKey(
      w.t.db,
      { kind: "ORG", orgId: other.id, label: "empty", scopes: ALL_READ },
      DOCS_NOW,
    );
    const cases = [
      ...LISTS.map((l) => ({ l, key: otherKey.key, filter: "" })),
      ...LISTS.filter((l) => l.rows !== "contacts").map((l) => ({
        l,
        key: w.plain,
        filter: "dateFrom=2099-01-01&",
      })),
    ];
    for (const { l, key, filter } of cases) {
      const empty = { [l.rows]: [], nextCursor: null, totalCount: 0, redactedItemCount: 0 };
      for (const query of [`${filter}autoPaginate=true`, `${filter}limit=50`, `${filter}limit=1`]) {
        expect(await list(w, `${l.path}?${query}`, key), `${l.path}?${query}`).toEqual(empty);
      }
    }
  });

  it("counts rows withheld from the page when the fetch gives the count (before redaction)", async () => {
    const w = await docsWorld();
    // The fixture's sensitive contact C5 has invoices and a credit note; with lines, invoices on
    // the sensitive account are withheld too.
    for (const path of [
      "/api/agent/invoices?autoPaginate=true&lines=true",
      "/api/agent/credit-notes?autoPaginate=true",
      "/api/agent/contacts?autoPaginate=true",
    ]) {
      const plain = await list(w, path, w.plain);
      const full = await list(w, path, w.sensitive);
      expect(plain.redactedItemCount, path).toBeGreaterThan(0);
      expect([plain.totalCount, plain.nextCursor], path).toEqual([full.totalCount, null]);
    }
  });
});

describe(`counts kept per data epoch (${testDriver})`, () => {
  /** A PAID invoice copied from an existing one, written straight to the table (another writer). */
  async function copyInvoice(w: DocsWorld, externalId: string) {
    const [source] = await w.t.db
      .select()
      .from(cashItems)
      .where(and(eq(cashItems.orgId, w.orgId), eq(cashItems.source, "LEDGER_INVOICE")))
      .limit(1);
    if (!source) throw new Error("fixture without invoices");
    const { documentDate: _generated, ...row } = source;
    await w.t.db.insert(cashItems).values({
      ...row,
      id: `itm_copy_${externalId}_${w.orgId}`,
      externalId,
      ledgerStatus: "PAID",
    });
  }
  const epochOf = async (orgId: string, w: DocsWorld) => {
    const r = (await w.t.db.execute(
      sql`select coalesce((select epoch from org_data_epochs where org_id = ${orgId}), 0)::int as e`,
    )) as unknown as { rows: { e: number }[] };
    return Number(r.rows[0]?.e);
  };

  it("serves a count again only until a write to the listed rows moves the epoch", async () => {
    const w = await docsWorld();
    const total = async (query = "") =>
      (await list(w, `/api/agent/invoices?limit=1${query}`, w.sensitive)).totalCount;
    const n = await sqlCount(w, LISTS[0]);
    expect(await total()).toBe(n);
    expect(await total()).toBe(n); // the kept count
    const paid = await total("&status=PAID");
    const voided = await total("&status=VOIDED");

    await copyInvoice(w, "copy-1"); // insert
    expect([await total(), await total("&status=PAID")]).toEqual([n + 1, paid + 1]);

    await w.t.db.execute(sql`
      UPDATE cash_items SET ledger_status = 'VOIDED'
      WHERE org_id = ${w.orgId} AND external_id = 'copy-1'`); // update
    expect([await total("&status=PAID"), await total("&status=VOIDED")]).toEqual([
      paid,
      voided + 1,
    ]);

    await w.t.db.execute(
      sql`DELETE FROM cash_items WHERE org_id = ${w.orgId} AND external_id = 'copy-1'`,
    ); // delete
    expect([await total(), await total("&status=VOIDED")]).toEqual([n, voided]);
  });

  it("moves only the epoch of the organisation written", async () => {
    const w = await docsWorld();
    const other = await docsWorld();
    const before = [await epochOf(w.orgId, w), await epochOf(other.orgId, w)];
    await copyInvoice(w, "copy-2");
    expect(await epochOf(w.orgId, w)).toBeGreaterThan(before[0] ?? 0);
    expect(await epochOf(other.orgId, w)).toBe(before[1]);
  });
});
