import { beforeAll, describe, expect, it } from "vitest";
import { noopMetering } from "../../src/http/pipeline/metering.ts";
import type { ContactsListResponse } from "../../src/http/routes/agent/contacts/index.ts";
import type {
  BillsResponse,
  InvoicesResponse,
} from "../../src/http/routes/agent/invoices/index.ts";
import { createTestKey, getJson, testApp } from "../helpers/api.ts";
import { createTestOrg } from "../helpers/factories.ts";
import { testDriver } from "../helpers/test-db.ts";
import {
  ALL_READ,
  bulkInsertContacts,
  bulkInsertItems,
  DOCS_NOW,
  qs,
} from "./documents-helpers.ts";

/*
 * The caps, at their edges, on rows inserted directly (INSERT … SELECT generate_series):
 * autoPaginate 5,000 / 5,001 matched rows, totals 100,000 / 100,001 matched rows. The rows stay
 * (tests never clean the shared database; deleting 100,000 cash items row by row through the
 * lines' cascade would cost more than the test).
 */

async function bigOrg() {
  const t = await testApp({ now: DOCS_NOW, metering: noopMetering });
  const org = await createTestOrg(t.db, { now: DOCS_NOW });
  const k = await createTestKey(
    t.db,
    { kind: "ORG", orgId: org.id, label: "k", scopes: ALL_READ },
    DOCS_NOW,
  );
  const get = async <T>(path: string) => {
    const r = await getJson<T>(t.app, path, k.key);
    expect(r.status, r.text.slice(0, 300)).toBe(200);
    return r.body;
  };
  return { t, orgId: org.id, get };
}

type BigOrg = Awaited<ReturnType<typeof bigOrg>>;

describe(`caps (${testDriver})`, () => {
  // Each case's organisation and rows are made before the cases run: inserting 200,000 rows
  // is setup (with the hook's own time limit), not part of what a case measures.
  let bills: BigOrg;
  let invoices: BigOrg;
  let contacts: BigOrg;
  let fewContacts: BigOrg;
  beforeAll(async () => {
    [bills, invoices, contacts, fewContacts] = await Promise.all([
      bigOrg(),
      bigOrg(),
      bigOrg(),
      bigOrg(),
    ]);
    // 5,001 bills: 5,000 AUTHORISED and one DRAFT.
    await bulkInsertItems(bills.t.db, bills.orgId, 5_001, {
      prefix: `ap-${bills.orgId}`,
      status: "AUTHORISED",
      source: "LEDGER_BILL",
    });
    await bulkInsertItems(invoices.t.db, invoices.orgId, 100_001, {
      prefix: `ar-${invoices.orgId}`,
      status: "PAID",
    });
    await bulkInsertContacts(contacts.t.db, contacts.orgId, 100_001, `ct-${contacts.orgId}`);
    await bulkInsertContacts(fewContacts.t.db, fewContacts.orgId, 5_001, `cs-${fewContacts.orgId}`);
  }, 300_000);

  it("autoPaginate: 5,000 matched rows come whole; 5,001 give the first 5,000 and truncated", async () => {
    const { orgId, get } = bills;
    const exact = await get<BillsResponse>("/api/agent/bills?autoPaginate=true&status=AUTHORISED");
    expect([exact.bills.length, exact.totalCount, exact.nextCursor, exact.truncated]).toEqual([
      5_000,
      5_000,
      null,
      undefined,
    ]);

    const over = await get<BillsResponse>("/api/agent/bills?autoPaginate=true&lines=true");
    expect([over.bills.length, over.totalCount, over.nextCursor, over.truncated]).toEqual([
      5_000,
      5_001,
      null,
      true,
    ]);
    expect(new Set(over.bills.map((b) => b.id)).size).toBe(5_000);
    // They are the first 5,000 of the order (document date, then id, descending); the bulk
    // rows' dates are 2020-01-01 + (n mod 1800) days.
    const day = (n: number) => n % 1_800;
    const expected = Array.from({ length: 5_001 }, (_, i) => i + 1)
      .sort((a, b) => day(b) - day(a) || b - a)
      .slice(0, 5_000)
      .map((n) => `ap-${orgId}-${String(n).padStart(6, "0")}`);
    expect(over.bills.map((b) => b.id)).toEqual(expected);
    // A cursor page continues the same order.
    const first = await get<BillsResponse>("/api/agent/bills?limit=200");
    expect(first.bills.map((b) => b.id)).toEqual(expected.slice(0, 200));
    const second = await get<BillsResponse>(
      `/api/agent/bills${qs({ limit: 200, cursor: first.nextCursor ?? undefined })}`,
    );
    expect(second.bills.map((b) => b.id)).toEqual(expected.slice(200, 400));
  });

  it("totals: 100,000 matched rows are aggregated; 100,001 omit totals and say totalsTruncated", async () => {
    const { get } = invoices;
    const zero = { count: 0, amount: "0" };

    const exact = await get<InvoicesResponse>(
      "/api/agent/invoices?totals=true&status=PAID&limit=1",
    );
    expect(exact.totalCount).toBe(100_000);
    expect(exact.totalsTruncated).toBeUndefined();
    expect(exact.totals).toEqual({
      byStatus: {
        DRAFT: zero,
        SUBMITTED: zero,
        AUTHORISED: zero,
        PAID: { count: 100_000, amount: "125000" },
        VOIDED: zero,
        DELETED: zero,
      },
      grandTotal: { count: 100_000, amount: "125000" },
      currency: "AUD",
    });
    expect(exact.invoices).toHaveLength(1);

    const over = await get<InvoicesResponse>("/api/agent/invoices?totals=true&limit=1");
    expect([over.totalCount, over.totalsTruncated, "totals" in over]).toEqual([
      100_001,
      true,
      false,
    ]);
    // Without totals, no flag either.
    const plain = await get<InvoicesResponse>("/api/agent/invoices?limit=1");
    expect([plain.totalCount, "totalsTruncated" in plain]).toEqual([100_001, false]);
    // autoPaginate over the same set: 5,000 rows and truncated.
    const auto = await get<InvoicesResponse>("/api/agent/invoices?autoPaginate=1&totals=1");
    expect([auto.invoices.length, auto.truncated, auto.totalsTruncated]).toEqual([
      5_000,
      true,
      true,
    ]);
  });

  it("contacts: autoPaginate at 5,000 / 5,001 and totals at 100,000 / 100,001", async () => {
    const { orgId, get } = contacts;
    const exact = await get<ContactsListResponse>(
      "/api/agent/contacts?type=customer&totals=true&limit=1",
    );
    expect(exact.totalCount).toBe(100_000);
    expect(exact.totals?.grandTotal.count).toBe(100_000);
    expect(exact.totalsTruncated).toBeUndefined();
    const over = await get<ContactsListResponse>("/api/agent/contacts?totals=true&limit=1");
    expect([over.totalCount, over.totalsTruncated, "totals" in over]).toEqual([
      100_001,
      true,
      false,
    ]);
    const auto = await get<ContactsListResponse>("/api/agent/contacts?autoPaginate=true");
    expect([auto.contacts.length, auto.truncated, auto.nextCursor]).toEqual([5_000, true, null]);
    // The first 5,000 by lastSyncedAt (one second apart: contact 1 is the newest).
    expect(auto.contacts[0]?.id).toBe(`ct-${orgId}-ext-1`);
    expect(auto.contacts[4_999]?.id).toBe(`ct-${orgId}-ext-5000`);
  });

  it("contacts: exactly 5,000 matched come whole", async () => {
    const { get } = fewContacts;
    const exact = await get<ContactsListResponse>(
      "/api/agent/contacts?type=customer&autoPaginate=true",
    );
    expect([exact.contacts.length, exact.totalCount, exact.truncated]).toEqual([
      5_000,
      5_000,
      undefined,
    ]);
    const over = await get<ContactsListResponse>(
      "/api/agent/contacts?autoPaginate=true&sort=revenue_desc",
    );
    expect([over.contacts.length, over.totalCount, over.truncated]).toEqual([5_000, 5_001, true]);
  });
});
