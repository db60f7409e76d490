import { describe, expect, it } from "vitest";
import { contacts } from "../../src/db/schema/index.ts";
import { noopMetering } from "../../src/http/pipeline/metering.ts";
import {
  type ContactDrillResponse,
  ContactDrillResponseSchema,
  type ContactsListResponse,
  ContactsListResponseSchema,
} from "../../src/http/routes/agent/contacts/index.ts";
import { createTestKey, getJson, testApp } from "../helpers/api.ts";
import { createTestOrg } from "../helpers/factories.ts";
import { testDriver } from "../helpers/test-db.ts";
import {
  ALL_READ,
  B,
  C,
  DOCS_NOW,
  type DocsWorld,
  docsWorld,
  I,
  insertItems,
  qs,
} from "./documents-helpers.ts";

const T = (d: string) => `${d}T00:00:00.000Z`;
const SYNCED = DOCS_NOW.toISOString();

async function ok<T>(w: DocsWorld, path: string, key = w.sensitive): Promise<T> {
  const r = await getJson<T>(w.t.app, path, key);
  expect(r.status, r.text).toBe(200);
  return r.body;
}

function summaries(w: DocsWorld) {
  const s = (
    n: number,
    name: string,
    isCustomer: boolean,
    isSupplier: boolean,
    isSensitive = false,
  ) => ({
    id: C(n),
    name,
    isCustomer,
    isSupplier,
    isSensitive,
    lastSyncedAt: SYNCED,
    // The contact baselines' figure (docs/insights.md): null or a decimal string.
    ltv: expect.toSatisfy(
      (v: unknown) => v === null || (typeof v === "string" && /^-?\d+(\.\d+)?$/.test(v)),
    ),
  });
  return {
    1: s(1, "Acme Corp", true, false),
    2: s(2, "Globex Inc", true, false),
    3: s(3, "Office Landlord Pty", false, true),
    4: s(4, "Both Ways Ltd", true, true),
    5: s(5, "Secret Client", true, false, true),
    6: s(6, "Neither Co", false, false),
    7: s(7, "Parts Supplier Pty", false, true),
    /** Contact numbers by our id, descending (the tie-break of every sort). */
    byIdDesc: (ns: number[]) =>
      [...ns].sort((a, b) => (w.ids.contact(C(b)) < w.ids.contact(C(a)) ? -1 : 1)),
  };
}

/** The drill fields this issue delivers (the baselines add the analytic ones). */
const OWN_FIELDS = [
  "id",
  "name",
  "isCustomer",
  "isSupplier",
  "isSensitive",
  "lastSyncedAt",
  "availableCredit",
  "revenueTrailing12m",
  "revenueAllTime",
  "lastInvoice",
  "lastBill",
  "recentPaidInvoices",
] as const;
function ownFields(contact: Record<string, unknown>) {
  return Object.fromEntries(OWN_FIELDS.filter((k) => k in contact).map((k) => [k, contact[k]]));
}

describe(`GET /api/agent/contacts (${testDriver})`, () => {
  it("lists every contact, every field, by lastSyncedAt then id, with zero-filled totals by type", async () => {
    const w = await docsWorld();
    const s = summaries(w);
    const body = await ok<ContactsListResponse>(w, "/api/agent/contacts?totals=true");
    expect(ContactsListResponseSchema.parse(body)).toEqual(body);
    expect(body).toEqual({
      contacts: s.byIdDesc([1, 2, 3, 4, 5, 6, 7]).map((n) => s[n as 1]),
      nextCursor: null,
      totalCount: 7,
      redactedItemCount: 0,
      totals: {
        byType: { customer: 3, supplier: 2, both: 1, neither: 1 },
        grandTotal: { count: 7 },
      },
    });
  });

  it("filters by type (a contact that is both appears under each) and totals honour it", async () => {
    const w = await docsWorld();
    const s = summaries(w);
    const customers = await ok<ContactsListResponse>(
      w,
      "/api/agent/contacts?type=customer&totals=1",
    );
    expect(customers.contacts.map((c) => c.id)).toEqual(s.byIdDesc([1, 2, 4, 5]).map(C));
    expect(customers.totals).toEqual({
      byType: { customer: 3, supplier: 0, both: 1, neither: 0 },
      grandTotal: { count: 4 },
    });
    const suppliers = await ok<ContactsListResponse>(
      w,
      "/api/agent/contacts?type=supplier&totals=1",
    );
    expect(suppliers.contacts.map((c) => c.id)).toEqual(s.byIdDesc([3, 4, 7]).map(C));
    expect(suppliers.totals).toEqual({
      byType: { customer: 0, supplier: 2, both: 1, neither: 0 },
      grandTotal: { count: 3 },
    });
    expect((await ok<ContactsListResponse>(w, "/api/agent/contacts?type=both")).totalCount).toBe(7);
  });

  it("sorts revenue_desc and spend_desc by cumulative LTV, nulls last, over the whole set", async () => {
    const w = await docsWorld();
    const s = summaries(w);
    // Ties (and the nulls: non-customers, contacts without a baseline) by id, descending.
    const rank = new Map(s.byIdDesc([1, 2, 3, 4, 5, 6, 7]).map((n, i) => [C(n), i]));
    const byLtv = (list: { id: string; ltv: string | null }[]) =>
      [...list]
        .sort((a, b) => {
          if (a.ltv !== null && b.ltv !== null && Number(a.ltv) !== Number(b.ltv)) {
            return Number(b.ltv) - Number(a.ltv);
          }
          if ((a.ltv === null) !== (b.ltv === null)) return a.ltv === null ? 1 : -1;
          return (rank.get(a.id) ?? 0) - (rank.get(b.id) ?? 0);
        })
        .map((c) => c.id);
    const revenue = await ok<ContactsListResponse>(w, "/api/agent/contacts?sort=revenue_desc");
    // Not vacuous: the world's customers have different LTVs, and some contacts have none.
    const values = revenue.contacts.map((c) => c.ltv);
    expect(new Set(values.filter((v) => v !== null)).size).toBeGreaterThan(1);
    expect(values).toContain(null);
    expect(revenue.contacts.map((c) => c.id)).toEqual(byLtv(revenue.contacts));
    // spend_desc sorts on the same key (agent-api.md; gap facts §6.1).
    const spend = await ok<ContactsListResponse>(w, "/api/agent/contacts?sort=spend_desc");
    expect(spend.contacts.map((c) => c.id)).toEqual(revenue.contacts.map((c) => c.id));
    // Across pages, not page by page: a walk of 2-row pages gives the same order.
    const walked: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await ok<ContactsListResponse>(
        w,
        `/api/agent/contacts${qs({ sort: "revenue_desc", limit: 2, cursor })}`,
      );
      walked.push(...page.contacts.map((c) => c.id));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(walked).toEqual(revenue.contacts.map((c) => c.id));
  });

  it("withholds sensitive contacts without READ_SENSITIVE; counts and totals unchanged", async () => {
    const w = await docsWorld();
    const plain = await ok<ContactsListResponse>(
      w,
      "/api/agent/contacts?totals=1&sort=revenue_desc",
      w.plain,
    );
    const full = await ok<ContactsListResponse>(
      w,
      "/api/agent/contacts?totals=1&sort=revenue_desc",
      w.sensitive,
    );
    expect(plain.contacts.map((c) => c.id)).toEqual(
      full.contacts.map((c) => c.id).filter((id) => id !== C(5)),
    );
    expect([plain.redactedItemCount, full.redactedItemCount]).toEqual([1, 0]);
    expect([plain.totalCount, plain.totals]).toEqual([full.totalCount, full.totals]);
    expect(full.contacts.find((c) => c.id === C(5))?.isSensitive).toBe(true);
    expect(JSON.stringify(plain)).not.toContain("Secret");
  });

  it("refuses an unknown type or sort, a bad limit or boolean, and another sort's cursor", async () => {
    const w = await docsWorld({ flag: false });
    for (const [query, parameter] of [
      ["type=vendor", "type"],
      ["sort=ltv_desc", "sort"],
      ["sort=", "sort"],
      ["limit=0", "limit"],
      ["autoPaginate=yes", "autoPaginate"],
      ["totals=2", "totals"],
    ]) {
      const r = await getJson(w.t.app, `/api/agent/contacts?${query}`, w.sensitive);
      expect([r.status, r.body.error, r.body.parameter], query).toEqual([
        400,
        "invalid_parameter",
        parameter,
      ]);
    }
    const first = await ok<ContactsListResponse>(
      w,
      "/api/agent/contacts?limit=2&sort=revenue_desc",
    );
    for (const q of ["sort=spend_desc", "sort=revenue_desc&type=customer", ""]) {
      const r = await getJson(
        w.t.app,
        `/api/agent/contacts?${q}&cursor=${first.nextCursor}`,
        w.sensitive,
      );
      expect([r.status, r.body.error], q).toEqual([400, "invalid_cursor"]);
    }
  });
});

describe(`GET /api/agent/contacts/{id} (${testDriver})`, () => {
  it("drills into a customer: every field, credit, revenue windows, last invoice and recent paid invoices", async () => {
    const w = await docsWorld();
    const body = await ok<ContactDrillResponse>(w, `/api/agent/contacts/${C(1)}`, w.sensitive);
    expect(ContactDrillResponseSchema.parse(body)).toEqual(body);
    const paid = (
      n: number,
      amount: string,
      paidDate: string,
      issueDate: string,
      accountCode: string,
      accountName: string,
    ) => ({
      id: w.ids.item(I(n)),
      externalId: I(n),
      invoiceNumber: `INV-${String(n).padStart(4, "0")}`,
      amount,
      currency: "AUD",
      paidDate: T(paidDate),
      issueDate: T(issueDate),
      accountCode,
      accountName,
    });
    // The analytic fields (LTVs, margin, lifetime, cadence, ABC, payment delay) come from the
    // contact baselines and are checked by their suite; the rest is this issue's, every field.
    expect(body.contact.expectedLifetimeYears).toBeGreaterThanOrEqual(1);
    expect(body.contact.expectedLifetimeYears).toBeLessThanOrEqual(5);
    expect({ ...body, contact: ownFields(body.contact) }).toEqual({
      contact: {
        id: C(1),
        name: "Acme Corp",
        isCustomer: true,
        isSupplier: false,
        isSensitive: false,
        lastSyncedAt: SYNCED,
        // CN-0001 40 + CN-0005 15; the USD credit and the applied one are excluded.
        availableCredit: "55",
        // Amounts paid: INV-0011 80 + INV-0009 450 (50 was credited) + INV-0002 217.8 …
        revenueTrailing12m: "747.8",
        // … + INV-0007 1100, paid 2023-06-20, more than 365 days before 2024-06-30.
        revenueAllTime: "1847.8",
        lastInvoice: {
          id: w.ids.item(I(11)),
          externalId: I(11),
          invoiceNumber: "INV-0011",
          issueDate: T("2024-06-20"),
          dueDate: T("2024-07-20"),
          amount: "80",
          amountDue: "0",
          currency: "AUD",
          ledgerStatus: "PAID",
          actualDate: T("2024-06-25"),
        },
        recentPaidInvoices: [
          paid(11, "80", "2024-06-25", "2024-06-20", "477", "Wages and Salaries"),
          paid(9, "500", "2024-06-10", "2024-06-01", "210", "Consulting Income"),
          paid(2, "217.8", "2024-02-01", "2024-01-15", "210", "Consulting Income"),
          paid(7, "1100", "2023-06-20", "2023-06-15", "200", "Sales"),
        ],
      },
      redactedItemCount: 0,
    });
    // Without READ_SENSITIVE the sensitive account's entry keeps its place, masked; amounts stay.
    const plain = await ok<ContactDrillResponse>(w, `/api/agent/contacts/${C(1)}`, w.plain);
    expect(plain.contact.recentPaidInvoices[0]).toEqual({
      ...body.contact.recentPaidInvoices[0],
      accountCode: null,
      accountName: "Sensitive account",
    });
    expect(plain.contact.recentPaidInvoices.slice(1)).toEqual(
      body.contact.recentPaidInvoices.slice(1),
    );
    expect(plain.redactedItemCount).toBe(1);
    expect(plain.contact.revenueAllTime).toBe(body.contact.revenueAllTime);
    expect(JSON.stringify(plain)).not.toContain("Wages");
  });

  it("drills into a supplier (last bill: the latest approved one) and a foreign-currency customer", async () => {
    const w = await docsWorld();
    const parts = await ok<ContactDrillResponse>(w, `/api/agent/contacts/${C(7)}`);
    expect(parts.contact).toMatchObject({
      availableCredit: "0",
      revenueTrailing12m: "0",
      revenueAllTime: "0",
      recentPaidInvoices: [],
    });
    expect(parts.contact.lastInvoice).toBeUndefined();
    // SUP-80 (2024-05-10) is voided; SUP-78 (2024-05-03) is the latest approved bill.
    expect(parts.contact.lastBill).toEqual({
      id: w.ids.item(B(4)),
      externalId: B(4),
      invoiceNumber: "SUP-78",
      issueDate: T("2024-05-03"),
      dueDate: T("2024-06-02"),
      amount: "330",
      amountDue: "330",
      currency: "AUD",
      ledgerStatus: "AUTHORISED",
      actualDate: null,
    });
    const globex = await ok<ContactDrillResponse>(w, `/api/agent/contacts/${C(2)}`);
    expect(globex.contact).toMatchObject({
      revenueAllTime: "1538.46",
      revenueTrailing12m: "1538.46",
    });
    expect(globex.contact.recentPaidInvoices.map((p) => [p.amount, p.currency])).toEqual([
      ["1000", "USD"],
    ]);
  });

  it("answers a sensitive contact without READ_SENSITIVE exactly as an unknown id", async () => {
    const w = await docsWorld();
    const hidden = await getJson(w.t.app, `/api/agent/contacts/${C(5)}`, w.plain);
    const unknown = await getJson(w.t.app, `/api/agent/contacts/${C(99)}`, w.plain);
    expect([hidden.status, hidden.body.error]).toEqual([404, "not_found"]);
    expect(hidden.text).toBe(unknown.text);
    const nul = await getJson(w.t.app, "/api/agent/contacts/a%00b", w.plain);
    expect([nul.status, nul.text]).toEqual([404, unknown.text]);
    const shown = await ok<ContactDrillResponse>(w, `/api/agent/contacts/${C(5)}`, w.sensitive);
    expect(shown.contact).toMatchObject({ isSensitive: true, revenueAllTime: "330" });
    // Another organisation's key does not find this organisation's contact.
    const other = await createTestOrg(w.t.db);
    const k = await createTestKey(w.t.db, {
      kind: "ORG",
      orgId: other.id,
      label: "x",
      scopes: ALL_READ,
    });
    const foreign = await getJson(w.t.app, `/api/agent/contacts/${C(1)}`, k.key);
    expect([foreign.status, foreign.body.error]).toEqual([404, "not_found"]);
  });

  it("counts revenue over the 365 days ending the organisation's today, and lists at most 50 paid invoices", async () => {
    // 15:00 UTC on 30 June is 1 July in Sydney: "today" is the organisation's date.
    const now = new Date("2024-06-30T15:00:00.000Z");
    const t = await testApp({ now, metering: noopMetering });
    const org = await createTestOrg(t.db, { timezone: "Australia/Sydney" });
    await t.db.insert(contacts).values({
      id: `ctc_${org.id}`,
      orgId: org.id,
      externalId: "edge",
      name: "Edge",
      isCustomer: true,
      lastSyncedAt: now,
    });
    const paid = (id: string, actualDate: string, amount: string) => ({
      id: `${org.id}-${id}`,
      ledgerStatus: "PAID" as const,
      issueDate: actualDate,
      actualDate,
      amount,
      amountPaid: amount,
      contactId: "edge",
    });
    await insertItems(t.db, org.id, [
      paid("edge-in-first", "2023-07-03", "1"), // today (2024-07-01) − 364 days: inside
      paid("edge-out", "2023-07-02", "10"), // today − 365 days: outside
      paid("edge-today", "2024-07-01", "100"), // today in Sydney (still 30 June in UTC)
      ...Array.from({ length: 52 }, (_, i) =>
        paid(`edge-old-${String(i).padStart(2, "0")}`, "2020-01-01", "1000"),
      ),
    ]);
    const k = await createTestKey(
      t.db,
      { kind: "ORG", orgId: org.id, label: "k", scopes: ["READ_CONTACTS"] },
      now,
    );
    const r = await getJson<ContactDrillResponse>(t.app, "/api/agent/contacts/edge", k.key);
    expect(r.status, r.text).toBe(200);
    expect(r.body.contact.revenueTrailing12m).toBe("101");
    expect(r.body.contact.revenueAllTime).toBe("52111");
    expect(r.body.contact.recentPaidInvoices).toHaveLength(50);
    expect(r.body.contact.recentPaidInvoices.slice(0, 3).map((p) => p.id)).toEqual(
      ["edge-today", "edge-in-first", "edge-out"].map((id) => `${org.id}-${id}`),
    );
    expect(r.body.contact.recentPaidInvoices[3]?.accountName).toBe("Uncategorised");
  });

  it("requires READ_CONTACTS", async () => {
    const w = await docsWorld({ flag: false });
    const k = await createTestKey(w.t.db, {
      kind: "ORG",
      orgId: w.orgId,
      label: "i",
      scopes: ["READ_INVOICES"],
    });
    for (const path of ["/api/agent/contacts", `/api/agent/contacts/${C(1)}`]) {
      const r = await getJson(w.t.app, path, k.key);
      expect([r.status, r.body.error]).toEqual([403, "insufficient_scope"]);
    }
  });
});
