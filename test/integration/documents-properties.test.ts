import { and, eq, inArray, sql } from "drizzle-orm";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Db } from "../../src/db/client.ts";
import {
  cashItemLines,
  contacts,
  LEDGER_STATUSES,
  ledgerAccounts,
} from "../../src/db/schema/index.ts";
import { money } from "../../src/domain/money.ts";
import { noopMetering } from "../../src/http/pipeline/metering.ts";
import type { ContactsListResponse } from "../../src/http/routes/agent/contacts/index.ts";
import type { Invoice } from "../../src/http/routes/agent/invoices/index.ts";
import { createTestKey, getJson, type TestApp, testApp } from "../helpers/api.ts";
import { createTestOrg } from "../helpers/factories.ts";
import { testDriver } from "../helpers/test-db.ts";
import { ALL_READ, DOCS_NOW, insertItems, qs, type RawItem } from "./documents-helpers.ts";

/*
 * Properties of the document and contact lists over random data inserted directly:
 * - a cursor walk returns exactly the autoPaginate set, in order, without duplicates, whatever
 *   the filters and page size; while rows are added between pages, it still returns every row
 *   that existed at the start exactly once;
 * - totals equal the sums over all pages by status (or say mixedCurrency);
 * - with and without READ_SENSITIVE, pages line up: each page's rows plus redactedItemCount are
 *   the READ_SENSITIVE page's rows, amounts are identical, totalCount and totals are identical.
 */

const NUM_RUNS = Number(process.env.DOCS_PROPERTY_RUNS ?? 20);

type Doc = {
  issueDate: string | null;
  dueDate: string | null;
  status: (typeof LEDGER_STATUSES)[number];
  cents: number;
  currency: string;
  contact: string | null;
  lines: (string | null)[];
};

const DATES = ["2024-01-01", "2024-01-02", "2024-01-03"];
const arbDoc: fc.Arbitrary<Doc> = fc.record({
  // Few distinct dates so that ties (broken by id) are common; some documents without a date.
  issueDate: fc.constantFrom(...DATES, null),
  dueDate: fc.constantFrom("2024-01-02", null),
  status: fc.constantFrom(...LEDGER_STATUSES),
  cents: fc.integer({ min: -50_000, max: 1_000_000 }),
  currency: fc.constantFrom("AUD", "AUD", "AUD", "USD"),
  // `cs` is a sensitive contact; account 900 is sensitive.
  contact: fc.constantFrom("ca", "cb", "cs", null),
  lines: fc.array(fc.constantFrom("200", "900", null), { maxLength: 3 }),
});

/** Mostly sets of 5 to 25 documents, sometimes tiny ones (empty included). */
const arbDocs = (max = 25) =>
  fc.oneof(
    { arbitrary: fc.array(arbDoc, { minLength: 5, maxLength: max }), weight: 4 },
    { arbitrary: fc.array(arbDoc, { maxLength: 4 }), weight: 1 },
  );

// Each filter is absent half of the time (freq 2), so that most runs match several rows.
const arbFilter = fc.record({
  status: fc.option(
    fc.oneof(
      fc.subarray([...LEDGER_STATUSES], { minLength: 1 }).map((s) => s.join(",")),
      fc.constant("BOGUS"),
    ),
    { nil: undefined, freq: 2 },
  ),
  contactId: fc.option(fc.constantFrom("ca", "cs"), { nil: undefined, freq: 2 }),
  dates: fc.option(
    fc
      .tuple(fc.constantFrom(...DATES), fc.constantFrom(...DATES))
      .map(([a, b]) => (a <= b ? [a, b] : [b, a])),
    { nil: undefined, freq: 2 },
  ),
  lines: fc.boolean(),
  limit: fc.integer({ min: 1, max: 6 }),
});
type Filter = typeof arbFilter extends fc.Arbitrary<infer F> ? F : never;

interface World {
  t: TestApp;
  orgId: string;
  plain: string;
  sensitive: string;
  n: number;
}

let seq = 0;
async function world(opts: { documentContacts?: boolean } = {}): Promise<World> {
  const t = await testApp({ now: DOCS_NOW, metering: noopMetering });
  const org = await createTestOrg(t.db, { now: DOCS_NOW });
  if (opts.documentContacts ?? true)
    await t.db.insert(contacts).values(
      ["ca", "cb", "cs"].map((c) => ({
        id: `ctc_${org.id}_${c}`,
        orgId: org.id,
        externalId: c,
        name: c,
        isCustomer: true,
        isSensitive: c === "cs",
        lastSyncedAt: DOCS_NOW,
      })),
    );
  await t.db.insert(ledgerAccounts).values(
    ["200", "900"].map((code) => ({
      id: `acc_${org.id}_${code}`,
      orgId: org.id,
      externalId: `a-${code}`,
      code,
      name: `Account ${code}`,
      type: "REVENUE",
      isSensitive: code === "900",
    })),
  );
  const plain = await createTestKey(
    t.db,
    { kind: "ORG", orgId: org.id, label: "p", scopes: ALL_READ },
    DOCS_NOW,
  );
  const sensitive = await createTestKey(
    t.db,
    { kind: "ORG", orgId: org.id, label: "s", scopes: ALL_READ, sensitive: true },
    DOCS_NOW,
  );
  return { t, orgId: org.id, plain: plain.key, sensitive: sensitive.key, n: 0 };
}

/** Inserts documents with their lines; ids are random-ish so that id order is not insert order. */
async function insertDocs(db: Db, w: World, docs: readonly Doc[]): Promise<string[]> {
  const rows: RawItem[] = docs.map((d) => {
    seq += 1;
    w.n += 1;
    const id = `ci_${((seq * 2_654_435_761) % 4_294_967_296).toString(36).padStart(7, "0")}_${w.orgId}_${w.n}`;
    return {
      id,
      ledgerStatus: d.status,
      issueDate: d.issueDate,
      dueDate: d.dueDate,
      amount: (d.cents / 100).toFixed(2),
      currency: d.currency,
      contactId: d.contact,
    };
  });
  await insertItems(db, w.orgId, rows);
  const lines = docs.flatMap((d, i) =>
    d.lines.map((code, j) => ({
      id: `cil_${rows[i]?.id}_${j}`,
      orgId: w.orgId,
      cashItemId: rows[i]?.id ?? "",
      lineNumber: j + 1,
      accountCode: code,
      lineAmount: "1",
      quantity: "2",
      unitAmount: "0.5",
    })),
  );
  if (lines.length) await db.insert(cashItemLines).values(lines);
  return rows.map((r) => r.id);
}

function query(f: Filter, extra: Record<string, string | number | boolean | undefined> = {}) {
  return qs({
    status: f.status,
    contactId: f.contactId,
    dateFrom: f.dates?.[0],
    dateTo: f.dates?.[1],
    lines: f.lines ? "true" : undefined,
    ...extra,
  });
}

type Page = {
  invoices: Invoice[];
  nextCursor: string | null;
  totalCount: number;
  redactedItemCount: number;
  totals?: unknown;
};

async function page(w: World, key: string, path: string): Promise<Page> {
  const r = await getJson<Page>(w.t.app, path, key);
  expect(r.status, `${path}: ${r.text}`).toBe(200);
  return r.body;
}

/** Every page of a walk (guarded against a cursor that never ends). */
async function walk(
  w: World,
  key: string,
  f: Filter,
  between?: () => Promise<void>,
): Promise<Page[]> {
  const pages: Page[] = [];
  let cursor: string | undefined;
  do {
    pages.push(
      await page(
        w,
        key,
        `/api/agent/invoices${query(f, { limit: f.limit, cursor, totals: "true" })}`,
      ),
    );
    cursor = pages[pages.length - 1]?.nextCursor ?? undefined;
    if (cursor && between) await between();
    if (pages.length > 200) throw new Error("the walk does not end");
  } while (cursor);
  return pages;
}

describe(`document list properties (${testDriver})`, () => {
  it("a cursor walk returns exactly the autoPaginate set; totals are the sums over the pages", async () => {
    await fc.assert(
      fc.asyncProperty(arbDocs(), arbFilter, async (docs, f) => {
        const w = await world();
        await insertDocs(w.t.db, w, docs);
        const auto = await page(
          w,
          w.sensitive,
          `/api/agent/invoices${query(f, { autoPaginate: "true" })}`,
        );
        const pages = await walk(w, w.sensitive, f);
        const rows = pages.flatMap((p) => p.invoices);
        expect(rows.map((r) => r.id)).toEqual(auto.invoices.map((r) => r.id));
        expect(new Set(rows.map((r) => r.id)).size).toBe(rows.length);
        expect(rows).toEqual(auto.invoices);
        for (const p of pages) {
          expect(p.invoices.length).toBeLessThanOrEqual(f.limit);
          expect([p.totalCount, p.totals]).toEqual([auto.totalCount, pages[0]?.totals]);
        }
        expect(auto.totalCount).toBe(rows.length);

        // Totals: the sums of the walked rows by status, or mixedCurrency.
        const totals = pages[0]?.totals;
        const currencies = [...new Set(rows.map((r) => r.currency))].sort();
        if (currencies.length > 1) {
          expect(totals).toEqual({
            byStatus: null,
            mixedCurrency: true,
            primaryCurrency: currencies[0],
          });
        } else {
          const byStatus = Object.fromEntries(
            LEDGER_STATUSES.map((s) => {
              const of = rows.filter((r) => r.ledgerStatus === s);
              return [
                s,
                {
                  count: of.length,
                  amount: of.reduce((a, r) => a.plus(money(r.amount)), money(0)),
                },
              ];
            }),
          );
          const grand = rows.reduce((a, r) => a.plus(money(r.amount)), money(0));
          const got = totals as {
            byStatus: Record<string, { count: number; amount: string }>;
            grandTotal: { count: number; amount: string };
            currency?: string;
          };
          for (const s of LEDGER_STATUSES) {
            expect(got.byStatus[s]?.count).toBe(byStatus[s]?.count);
            expect(money(got.byStatus[s]?.amount).eq(byStatus[s]?.amount ?? 0)).toBe(true);
          }
          expect(got.grandTotal.count).toBe(rows.length);
          expect(money(got.grandTotal.amount).eq(grand)).toBe(true);
          expect(got.currency).toBe(currencies[0]);
        }
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it("with and without READ_SENSITIVE, pages line up, amounts and totals are identical", async () => {
    await fc.assert(
      fc.asyncProperty(arbDocs(), arbFilter, async (docs, f) => {
        const w = await world();
        await insertDocs(w.t.db, w, docs);
        const full = await walk(w, w.sensitive, f);
        const plain = await walk(w, w.plain, f);
        expect(plain.length).toBe(full.length);
        for (const [i, p] of plain.entries()) {
          const s = full[i] as Page;
          expect(p.invoices.length + p.redactedItemCount).toBe(s.invoices.length);
          expect(s.redactedItemCount).toBe(0);
          // The plain page is the full page without the withheld rows, every amount unchanged.
          const shown = new Map(s.invoices.map((r) => [r.id, r]));
          for (const r of p.invoices) {
            expect(shown.get(r.id)?.amount).toBe(r.amount);
            expect(r.contactId).not.toBe("cs");
            if (f.lines) expect(r.lines?.some((l) => l.accountCode === "900")).toBe(false);
          }
          expect(p.invoices.map((r) => r.id)).toEqual(
            s.invoices.map((r) => r.id).filter((id) => p.invoices.some((r) => r.id === id)),
          );
          expect([p.totalCount, p.totals]).toEqual([s.totalCount, s.totals]);
          expect(p.nextCursor === null).toBe(s.nextCursor === null);
        }
        // Every withheld row is one the rules withhold.
        const plainIds = new Set(plain.flatMap((p) => p.invoices.map((r) => r.id)));
        for (const r of full.flatMap((p) => p.invoices)) {
          const hidden =
            r.contactId === "cs" ||
            (f.lines && (r.lines ?? []).some((l) => l.accountCode === "900"));
          expect(plainIds.has(r.id)).toBe(!hidden);
        }
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it("a walk with rows added between pages returns every original row exactly once", async () => {
    await fc.assert(
      fc.asyncProperty(
        arbDocs(20),
        fc.array(fc.array(arbDoc, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 6 }),
        arbFilter,
        async (docs, batches, f) => {
          const w = await world();
          await insertDocs(w.t.db, w, docs);
          const before = await page(
            w,
            w.sensitive,
            `/api/agent/invoices${query(f, { autoPaginate: "true" })}`,
          );
          let b = 0;
          const pages = await walk(w, w.sensitive, f, async () => {
            const batch = batches[b++];
            if (batch) await insertDocs(w.t.db, w, batch);
          });
          const after = await page(
            w,
            w.sensitive,
            `/api/agent/invoices${query(f, { autoPaginate: "true" })}`,
          );
          const walked = pages.flatMap((p) => p.invoices.map((r) => r.id));
          expect(new Set(walked).size).toBe(walked.length);
          const walkedSet = new Set(walked);
          for (const r of before.invoices) expect(walkedSet.has(r.id)).toBe(true);
          const afterSet = new Set(after.invoices.map((r) => r.id));
          for (const id of walked) expect(afterSet.has(id)).toBe(true);
          // And the walk keeps the list's order.
          const order = after.invoices.map((r) => r.id).filter((id) => walkedSet.has(id));
          expect(walked).toEqual(order);
        },
      ),
      { numRuns: NUM_RUNS },
    );
  });
});

describe(`contact list properties (${testDriver})`, () => {
  const arbContact = fc.record({
    synced: fc.constantFrom(
      "2024-06-01T00:00:00.000Z",
      "2024-06-02T00:00:00.123Z",
      "2024-06-02T00:00:00.123456Z",
    ),
    isCustomer: fc.boolean(),
    isSupplier: fc.boolean(),
    isSensitive: fc.boolean(),
    revenue: fc.constantFrom(null, "10", "10.5", "200"),
  });
  it("a cursor walk returns the autoPaginate set for every sort and type, aligned across keys", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          { arbitrary: fc.array(arbContact, { minLength: 5, maxLength: 20 }), weight: 4 },
          { arbitrary: fc.array(arbContact, { maxLength: 4 }), weight: 1 },
        ),
        fc.constantFrom("recent_desc", "revenue_desc", "spend_desc"),
        fc.constantFrom("customer", "supplier", "both"),
        fc.integer({ min: 1, max: 5 }),
        async (people, sort, type, limit) => {
          const w = await world({ documentContacts: false });
          if (people.length) {
            await w.t.db.insert(contacts).values(
              people.map((p, i) => ({
                id: `ctc_${w.orgId}_${(i * 7919) % 101}_${i}`,
                orgId: w.orgId,
                externalId: `p${i}`,
                name: `Person ${i}`,
                isCustomer: p.isCustomer,
                isSupplier: p.isSupplier,
                isSensitive: p.isSensitive,
                lastSyncedAt: new Date(p.synced),
              })),
            );
            // Microsecond instants a JS Date cannot hold: cursors must keep them exactly.
            const micro = people.flatMap((p, i) => (p.synced.length > 24 ? [`p${i}`] : []));
            if (micro.length) {
              await w.t.db
                .update(contacts)
                .set({ lastSyncedAt: sql`'2024-06-02T00:00:00.123456Z'::timestamptz` })
                .where(and(eq(contacts.orgId, w.orgId), inArray(contacts.externalId, micro)));
            }
          }
          const paid = people.flatMap((p, i) =>
            p.revenue === null
              ? []
              : [
                  {
                    id: `ci_${w.orgId}_r${i}`,
                    ledgerStatus: "PAID" as const,
                    issueDate: "2024-01-01",
                    amount: p.revenue,
                    amountPaid: p.revenue,
                    contactId: `p${i}`,
                  },
                  {
                    id: `ci_${w.orgId}_s${i}`,
                    source: "LEDGER_BILL" as const,
                    ledgerStatus: "PAID" as const,
                    issueDate: "2024-01-01",
                    amount: p.revenue,
                    amountPaid: p.revenue,
                    contactId: `p${i}`,
                  },
                ],
          );
          await insertItems(w.t.db, w.orgId, paid);
          const get = async (key: string, path: string) => {
            const r = await getJson<ContactsListResponse>(w.t.app, path, key);
            expect(r.status, r.text).toBe(200);
            return r.body;
          };
          const auto = await get(
            w.sensitive,
            `/api/agent/contacts${qs({ sort, type, autoPaginate: "true" })}`,
          );
          const walkKey = async (key: string) => {
            const pages: ContactsListResponse[] = [];
            let cursor: string | undefined;
            do {
              pages.push(
                await get(
                  key,
                  `/api/agent/contacts${qs({ sort, type, limit, cursor, totals: "1" })}`,
                ),
              );
              cursor = pages[pages.length - 1]?.nextCursor ?? undefined;
            } while (cursor && pages.length < 100);
            return pages;
          };
          const full = await walkKey(w.sensitive);
          expect(full.flatMap((p) => p.contacts.map((c) => c.id))).toEqual(
            auto.contacts.map((c) => c.id),
          );
          const plain = await walkKey(w.plain);
          expect(plain.length).toBe(full.length);
          for (const [i, p] of plain.entries()) {
            const s = full[i] as ContactsListResponse;
            expect(p.contacts.length + p.redactedItemCount).toBe(s.contacts.length);
            expect(p.contacts.every((c) => !c.isSensitive)).toBe(true);
            expect([p.totalCount, p.totals]).toEqual([s.totalCount, s.totals]);
          }
          const ids = auto.contacts.map((c) => c.id);
          expect(new Set(ids).size).toBe(ids.length);
          expect(auto.totalCount).toBe(
            people.filter(
              (p) => type === "both" || (type === "customer" ? p.isCustomer : p.isSupplier),
            ).length,
          );
        },
      ),
      { numRuns: NUM_RUNS },
    );
  });
});
