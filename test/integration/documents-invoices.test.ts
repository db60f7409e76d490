import { describe, expect, it } from "vitest";
import { money } from "../../src/domain/money.ts";
import type {
  BillsResponse,
  Invoice,
  InvoicesResponse,
} from "../../src/http/routes/agent/invoices/index.ts";
import {
  BillsResponseSchema,
  InvoicesResponseSchema,
} from "../../src/http/routes/agent/invoices/index.ts";
import { createTestKey, getJson } from "../helpers/api.ts";
import { createTestOrg } from "../helpers/factories.ts";
import { testDriver } from "../helpers/test-db.ts";
import { B, C, type DocsWorld, docsWorld, I, L, qs } from "./documents-helpers.ts";

const T = (d: string) => `${d}T00:00:00.000Z`;
const ACME = { contactId: C(1), contactName: "Acme Corp" };

/** Every field of every fixture invoice, as a READ_SENSITIVE key sees it (lines separately). */
function expectedInvoices(w: DocsWorld): Record<string, Invoice> {
  const id = (n: number) => ({
    id: w.ids.item(I(n)),
    externalId: I(n),
    invoiceNumber: `INV-${String(n).padStart(4, "0")}`,
  });
  return {
    I1: {
      ...id(1),
      reference: "PO 7781",
      amount: "990.11",
      currency: "AUD",
      expectedDate: T("2024-02-15"),
      issueDate: T("2024-01-10"),
      status: "FORECAST",
      ledgerStatus: "AUTHORISED",
      ...ACME,
      category: "200",
    },
    I2: {
      ...id(2),
      amount: "217.8",
      currency: "AUD",
      expectedDate: T("2024-02-14"),
      actualDate: T("2024-02-01"),
      issueDate: T("2024-01-15"),
      status: "ACTUAL",
      ledgerStatus: "PAID",
      ...ACME,
      category: "210",
    },
    I3: {
      ...id(3),
      amount: "1000",
      currency: "USD",
      expectedDate: T("2024-03-02"),
      actualDate: T("2024-03-01"),
      issueDate: T("2024-02-01"),
      status: "ACTUAL",
      ledgerStatus: "PAID",
      contactId: C(2),
      contactName: "Globex Inc",
      category: "200",
    },
    I4: {
      ...id(4),
      amount: "330",
      currency: "AUD",
      expectedDate: T("2024-03-11"),
      actualDate: T("2024-03-05"),
      issueDate: T("2024-02-10"),
      status: "ACTUAL",
      ledgerStatus: "PAID",
      contactId: C(5),
      contactName: "Secret Client",
      category: "200",
    },
    I5: {
      ...id(5),
      amount: "55",
      currency: "AUD",
      expectedDate: T("2024-03-01"),
      issueDate: T("2024-03-01"),
      status: "FORECAST",
      ledgerStatus: "DRAFT",
      ...ACME,
      category: "477",
    },
    I6: {
      ...id(6),
      amount: "100",
      currency: "AUD",
      expectedDate: T("2024-03-31"),
      issueDate: T("2024-03-01"),
      status: "CANCELLED",
      ledgerStatus: "VOIDED",
      contactId: C(4),
      contactName: "Both Ways Ltd",
      category: "200",
    },
    I7: {
      ...id(7),
      amount: "1100",
      currency: "AUD",
      expectedDate: T("2023-07-15"),
      actualDate: T("2023-06-20"),
      issueDate: T("2023-06-15"),
      status: "ACTUAL",
      ledgerStatus: "PAID",
      ...ACME,
      category: "200",
    },
    I8: {
      ...id(8),
      amount: "44",
      currency: "AUD",
      expectedDate: T("2024-06-19"),
      issueDate: T("2024-05-20"),
      status: "FORECAST",
      ledgerStatus: "SUBMITTED",
      ...ACME,
      category: "200",
    },
    I9: {
      ...id(9),
      amount: "500",
      currency: "AUD",
      expectedDate: T("2024-07-01"),
      actualDate: T("2024-06-10"),
      issueDate: T("2024-06-01"),
      status: "ACTUAL",
      ledgerStatus: "PAID",
      ...ACME,
      category: "210",
    },
    I10: {
      ...id(10),
      amount: "10",
      currency: "AUD",
      expectedDate: T("2024-04-05"),
      issueDate: T("2024-04-05"),
      status: "CANCELLED",
      ledgerStatus: "DELETED",
      ...ACME,
    },
    I11: {
      ...id(11),
      amount: "80",
      currency: "AUD",
      expectedDate: T("2024-07-20"),
      actualDate: T("2024-06-25"),
      issueDate: T("2024-06-20"),
      status: "ACTUAL",
      ledgerStatus: "PAID",
      ...ACME,
      category: "477",
    },
  };
}

/** The fixture's invoice lines, every field. */
function expectedInvoiceLines(w: DocsWorld) {
  const line = (n: number, lineNumber: number) => ({ id: w.ids.line(L(n)), lineNumber });
  const nulls = { discountRate: null, discountAmount: null };
  return {
    I1: [
      {
        ...line(11, 1),
        accountCode: "200",
        accountName: "Sales",
        lineAmount: "900",
        taxAmount: "90",
        quantity: "10",
        unitAmount: "100",
        discountRate: "0.1",
        discountAmount: null,
        lineSubtotal: "1000",
        taxType: "OUTPUT",
        currency: "AUD",
        lineDescription: "Widgets",
      },
      {
        ...line(12, 2),
        accountName: "Uncategorised",
        lineAmount: "0",
        taxAmount: "0",
        quantity: null,
        unitAmount: null,
        ...nulls,
        lineSubtotal: null,
        currency: "AUD",
        lineDescription: "Freight included",
      },
      {
        ...line(13, 3),
        accountCode: "210",
        accountName: "Consulting Income",
        lineAmount: "0.1",
        taxAmount: "0.01",
        quantity: "1",
        unitAmount: "0.1",
        ...nulls,
        lineSubtotal: "0.1",
        taxType: "OUTPUT",
        currency: "AUD",
        lineDescription: "Setup fee",
      },
    ],
    I2: [
      {
        ...line(21, 1),
        accountCode: "210",
        accountName: "Consulting Income",
        lineAmount: "198",
        taxAmount: "19.8",
        quantity: "1",
        unitAmount: "220",
        discountRate: null,
        discountAmount: "22",
        lineSubtotal: "220",
        taxType: "OUTPUT",
        currency: "AUD",
        lineDescription: "Consulting day",
      },
    ],
    I3: [
      {
        ...line(31, 1),
        accountCode: "200",
        accountName: "Sales",
        lineAmount: "1000",
        taxAmount: "0",
        quantity: "2",
        unitAmount: "500",
        ...nulls,
        lineSubtotal: "1000",
        taxType: "EXEMPTEXPORT",
        currency: "USD",
        lineDescription: "Roaster parts",
      },
    ],
    I5: [
      // Code 477 is held by an active and an archived account: the active one names it.
      {
        ...line(51, 1),
        accountCode: "477",
        accountName: "Wages and Salaries",
        lineAmount: "50",
        taxAmount: "5",
        quantity: "1",
        unitAmount: "50",
        ...nulls,
        lineSubtotal: "50",
        taxType: "OUTPUT",
        currency: "AUD",
        lineDescription: "Staff hire recharge",
      },
    ],
    I8: [
      {
        ...line(81, 1),
        accountCode: "200",
        accountName: "Sales",
        lineAmount: "40",
        taxAmount: "4",
        quantity: null,
        unitAmount: "20",
        ...nulls,
        lineSubtotal: null,
        taxType: "OUTPUT",
        currency: "AUD",
        lineDescription: "Beans (weight to confirm)",
      },
    ],
    I10: [],
  };
}

/** Keys sorted by their service id, descending (the order's tie-break). */
function idDescending(w: DocsWorld, keys: string[], ledgerId: (k: string) => string): string[] {
  return [...keys].sort((a, b) => (w.ids.item(ledgerId(b)) < w.ids.item(ledgerId(a)) ? -1 : 1));
}

/** Invoice keys in the list's order: document date descending, then id descending. */
function invoiceOrder(w: DocsWorld): string[] {
  const tie = idDescending(w, ["I5", "I6"], (k) => I(Number(k.slice(1))));
  return ["I11", "I9", "I8", "I10", ...tie, "I4", "I3", "I2", "I1", "I7"];
}

async function list<T = InvoicesResponse>(w: DocsWorld, path: string, key = w.sensitive) {
  const r = await getJson<T>(w.t.app, path, key);
  expect(r.status, r.text).toBe(200);
  return r.body;
}

describe(`GET /api/agent/invoices and /bills: known answers (${testDriver})`, () => {
  it("lists every invoice with every field, in documentDate then id order, with a schema-valid body", async () => {
    const w = await docsWorld();
    const body = await list(w, "/api/agent/invoices");
    expect(InvoicesResponseSchema.parse(body)).toEqual(body);
    const want = expectedInvoices(w);
    expect(body).toEqual({
      invoices: invoiceOrder(w).map((k) => want[k]),
      nextCursor: null,
      totalCount: 11,
      redactedItemCount: 0,
    });
    // The nested form answers the same.
    const nested = await list(w, `/api/agent/orgs/${w.orgId}/invoices`);
    expect(nested).toEqual(body);
  });

  it("carries every line field with lines=true, and lines reconcile with their discounts", async () => {
    const w = await docsWorld();
    const body = await list(w, "/api/agent/invoices?lines=true");
    const want = expectedInvoices(w);
    const lines = expectedInvoiceLines(w);
    const byKey = new Map(body.invoices.map((i) => [i.invoiceNumber, i]));
    for (const [k, expected] of Object.entries(lines)) {
      const n = Number(k.slice(1));
      const got = byKey.get(want[k]?.invoiceNumber);
      expect(got, k).toEqual({ ...want[k], lines: expected });
      expect(n).toBeGreaterThan(0);
    }
    // Discount reconciliation on every line of every invoice.
    for (const inv of body.invoices) {
      for (const l of inv.lines ?? []) {
        if (l.lineSubtotal === null) continue;
        const subtotal = money(l.lineSubtotal);
        if (l.discountRate !== null) {
          const billed = subtotal.times(money(1).minus(money(l.discountRate)));
          expect(billed.minus(money(l.lineAmount)).abs().lte("0.01"), JSON.stringify(l)).toBe(true);
        } else if (l.discountAmount !== null) {
          expect(subtotal.minus(money(l.discountAmount)).eq(money(l.lineAmount))).toBe(true);
        } else {
          expect(subtotal.eq(money(l.lineAmount)), JSON.stringify(l)).toBe(true);
        }
      }
    }
  });

  it("lists bills with bill lines whose discounts and subtotal are always null", async () => {
    const w = await docsWorld();
    const body = await list<BillsResponse>(w, "/api/agent/bills?lines=1");
    expect(BillsResponseSchema.parse(body)).toEqual(body);
    expect(body.bills.map((b) => b.invoiceNumber)).toEqual([
      "SUP-80",
      "SUP-78",
      "SUP-77",
      "PO-0001",
      " spring STOCK ",
      "RENT-2024-03",
      "SUP-79",
    ]);
    const rent = body.bills.find((b) => b.externalId === B(1));
    expect(rent).toEqual({
      id: w.ids.item(B(1)),
      externalId: B(1),
      invoiceNumber: "RENT-2024-03",
      reference: "RENT-2024-03",
      amount: "2310",
      currency: "AUD",
      expectedDate: T("2024-03-14"),
      issueDate: T("2024-03-01"),
      status: "FORECAST",
      ledgerStatus: "AUTHORISED",
      contactId: C(3),
      contactName: "Office Landlord Pty",
      category: "469",
      lines: [
        {
          id: w.ids.line(L(201)),
          lineNumber: 1,
          accountCode: "469",
          accountName: "Rent",
          lineAmount: "2000",
          taxAmount: "200",
          quantity: "1",
          unitAmount: "2000",
          discountRate: null,
          discountAmount: null,
          lineSubtotal: null,
          taxType: "INPUT",
          currency: "AUD",
          lineDescription: "Rent March",
        },
        {
          id: w.ids.line(L(202)),
          lineNumber: 2,
          accountCode: "477",
          accountName: "Wages and Salaries",
          lineAmount: "100",
          taxAmount: "10",
          quantity: "1",
          unitAmount: "100",
          discountRate: null,
          discountAmount: null,
          lineSubtotal: null,
          taxType: "INPUT",
          currency: "AUD",
          lineDescription: "Cleaning wages recharge",
        },
      ],
    });
    const paid = body.bills.find((b) => b.externalId === B(2));
    expect(paid).toMatchObject({
      status: "ACTUAL",
      ledgerStatus: "PAID",
      actualDate: T("2024-04-30"),
      expectedDate: T("2024-05-10"),
    });
    for (const b of body.bills) {
      for (const l of b.lines ?? []) {
        expect([l.discountRate, l.discountAmount, l.lineSubtotal]).toEqual([null, null, null]);
      }
    }
  });

  it("filters by status (comma list, repeated, case-insensitive, unknown ignored), contact and date range", async () => {
    const w = await docsWorld();
    const numbers = async (query: string) =>
      (await list(w, `/api/agent/invoices${query}`)).invoices.map((i) => i.invoiceNumber);
    expect(await numbers("?status=PAID")).toEqual([
      "INV-0011",
      "INV-0009",
      "INV-0004",
      "INV-0003",
      "INV-0002",
      "INV-0007",
    ]);
    expect(await numbers("?status=draft,%20submitted,NOPE")).toEqual(["INV-0008", "INV-0005"]);
    const tie = idDescending(w, ["INV-0005", "INV-0006"], (k) => I(Number(k.slice(4))));
    expect(await numbers("?status=DRAFT&status=VOIDED")).toEqual(tie);
    // Only unknown values are no filter, like an empty value.
    expect((await list(w, "/api/agent/invoices?status=UNPAID")).totalCount).toBe(11);
    expect((await list(w, "/api/agent/invoices?status=")).totalCount).toBe(11);
    expect(await numbers(`?contactId=${C(2)}`)).toEqual(["INV-0003"]);
    expect(await numbers("?contactId=nobody")).toEqual([]);
    // Inclusive bounds on the issue date; dateTo covers its whole day.
    expect(await numbers("?dateFrom=2024-03-01&dateTo=2024-05-20")).toEqual([
      "INV-0008",
      "INV-0010",
      ...tie,
    ]);
    expect(await numbers("?dateTo=2024-01-10")).toEqual(["INV-0001", "INV-0007"]);
    expect(await numbers("?dateFrom=2024-06-02")).toEqual(["INV-0011"]);
    expect(await numbers("?dateFrom=2024-06-20&dateTo=2024-06-20")).toEqual(["INV-0011"]);
  });

  it("answers each totals variant: one currency, mixed currencies, empty set", async () => {
    const w = await docsWorld();
    const zero = { count: 0, amount: "0" };
    const acme = await list(w, `/api/agent/invoices?contactId=${C(1)}&totals=true&limit=1`);
    expect(acme.totals).toEqual({
      byStatus: {
        DRAFT: { count: 1, amount: "55" },
        SUBMITTED: { count: 1, amount: "44" },
        AUTHORISED: { count: 1, amount: "990.11" },
        PAID: { count: 4, amount: "1897.8" },
        VOIDED: zero,
        DELETED: { count: 1, amount: "10" },
      },
      grandTotal: { count: 8, amount: "2996.91" },
      currency: "AUD",
    });
    expect(acme.totalCount).toBe(8);
    expect(acme.invoices).toHaveLength(1);
    const all = await list(w, "/api/agent/invoices?totals=true");
    expect(all.totals).toEqual({ byStatus: null, mixedCurrency: true, primaryCurrency: "AUD" });
    expect(all.totalsTruncated).toBeUndefined();
    const none = await list(w, "/api/agent/invoices?totals=true&dateFrom=2099-01-01");
    expect(none.totals).toEqual({
      byStatus: {
        DRAFT: zero,
        SUBMITTED: zero,
        AUTHORISED: zero,
        PAID: zero,
        VOIDED: zero,
        DELETED: zero,
      },
      grandTotal: zero,
    });
    const bills = await list<BillsResponse>(w, "/api/agent/bills?totals=1");
    expect(bills.totals).toEqual({
      byStatus: {
        DRAFT: zero,
        SUBMITTED: zero,
        AUTHORISED: { count: 4, amount: "4180" },
        PAID: { count: 2, amount: "387.2" },
        VOIDED: { count: 1, amount: "120" },
        DELETED: zero,
      },
      grandTotal: { count: 7, amount: "4687.2" },
      currency: "AUD",
    });
    // Totals are absent unless asked for.
    expect("totals" in (await list(w, "/api/agent/bills"))).toBe(false);
  });

  it("drops sensitive contacts' documents (and with lines, documents on sensitive accounts), counting them; totals unchanged", async () => {
    const w = await docsWorld();
    const want = expectedInvoices(w);
    const plain = await list(w, "/api/agent/invoices?totals=true", w.plain);
    const full = await list(w, "/api/agent/invoices?totals=true", w.sensitive);
    // Secret Client's invoice is absent; the category code of a sensitive account is masked.
    const { category: _c5, ...i5 } = want.I5 as Invoice;
    const { category: _c11, ...i11 } = want.I11 as Invoice;
    expect(plain.invoices).toEqual(
      invoiceOrder(w)
        .filter((k) => k !== "I4")
        .map((k) => (k === "I5" ? i5 : k === "I11" ? i11 : want[k])),
    );
    expect(plain.redactedItemCount).toBe(1);
    expect(full.redactedItemCount).toBe(0);
    expect([plain.totalCount, plain.totals]).toEqual([full.totalCount, full.totals]);
    expect(JSON.stringify(plain)).not.toContain("Secret Client");

    const withLines = await list(w, "/api/agent/invoices?lines=true", w.plain);
    expect(withLines.invoices.map((i) => i.invoiceNumber)).toEqual(
      invoiceOrder(w)
        .filter((k) => !["I4", "I5", "I11"].includes(k))
        .map((k) => want[k]?.invoiceNumber),
    );
    expect(withLines.redactedItemCount).toBe(3);
    expect(JSON.stringify(withLines)).not.toContain("Wages");
    const bills = await list<BillsResponse>(w, "/api/agent/bills?lines=true", w.plain);
    expect(bills.bills.map((b) => b.externalId)).not.toContain(B(1));
    expect(bills.redactedItemCount).toBe(1);
    // Without lines, a bill with a sensitive line stays (only its contact counts).
    const billsNoLines = await list<BillsResponse>(w, "/api/agent/bills", w.plain);
    expect(billsNoLines.bills.map((b) => b.externalId)).toContain(B(1));
    expect(billsNoLines.redactedItemCount).toBe(0);
  });

  it("never applies another organisation's flags to rows with the same ledger ids", async () => {
    // The same export imported twice: flagged in one organisation, not in the other.
    await docsWorld({ flag: true });
    const w = await docsWorld({ flag: false });
    const invoices = await list(w, "/api/agent/invoices?lines=true", w.plain);
    expect([invoices.invoices.length, invoices.redactedItemCount]).toEqual([11, 0]);
    const notes = await list<Record<string, unknown>>(w, "/api/agent/credit-notes", w.plain);
    expect(notes.redactedItemCount).toBe(0);
    const drill = await getJson(w.t.app, "/api/agent/credit-notes/CN-0004", w.plain);
    expect(drill.status).toBe(200);
    const orders = await list<Record<string, unknown>>(w, "/api/agent/purchase-orders", w.plain);
    expect(orders.redactedItemCount).toBe(0);
  });

  it("autoPaginate returns the whole set in order, ignores cursor and limit, and never a nextCursor", async () => {
    const w = await docsWorld();
    const body = await list(w, "/api/agent/invoices?autoPaginate=true&limit=2&cursor=garbage!");
    expect(body.invoices.map((i) => i.id)).toEqual(
      invoiceOrder(w).map((k) => expectedInvoices(w)[k]?.id),
    );
    expect(body.nextCursor).toBeNull();
    expect(body.truncated).toBeUndefined();
  });

  it("pages with cursors in the documented order; the last page's nextCursor is null", async () => {
    const w = await docsWorld();
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const body = await list(w, `/api/agent/invoices${qs({ limit: 3, cursor })}`);
      expect(body.invoices.length).toBeLessThanOrEqual(3);
      expect(body.totalCount).toBe(11);
      seen.push(...body.invoices.map((i) => i.id));
      cursor = body.nextCursor ?? undefined;
      pages += 1;
    } while (cursor);
    expect(pages).toBe(4);
    expect(seen).toEqual(invoiceOrder(w).map((k) => expectedInvoices(w)[k]?.id));
    // The default page is 50 rows; a limit above 200 is capped at 200 (not refused).
    expect((await getJson(w.t.app, "/api/agent/invoices?limit=100000", w.sensitive)).status).toBe(
      200,
    );
  });
});

describe(`GET /api/agent/invoices and /bills: bad input (${testDriver})`, () => {
  const bad: [string, string][] = [
    ["limit=0", "limit"],
    ["limit=-1", "limit"],
    ["limit=1.5", "limit"],
    ["limit=ten", "limit"],
    ["limit=", "limit"],
    ["limit=1&limit=2", "limit"],
    ["lines=yes", "lines"],
    ["lines=TRUE", "lines"],
    ["autoPaginate=2", "autoPaginate"],
    ["totals=", "totals"],
    ["dateFrom=2023-02-29", "dateFrom"],
    ["dateFrom=2024-13-01", "dateFrom"],
    ["dateTo=2024-1-5", "dateTo"],
    ["dateTo=0000-01-01", "dateTo"],
    ["dateFrom=2024-02-02&dateTo=2024-02-01", "dateFrom"],
    ["contactId=a%00b", "contactId"],
  ];
  it.each(bad)(
    "answers 400 invalid_parameter naming the parameter for %s",
    async (query, parameter) => {
      const w = await docsWorld({ flag: false });
      for (const path of ["/api/agent/invoices", "/api/agent/bills"]) {
        const r = await getJson(w.t.app, `${path}?${query}`, w.sensitive);
        expect([r.status, r.body.error, r.body.parameter], r.text).toEqual([
          400,
          "invalid_parameter",
          parameter,
        ]);
      }
    },
  );

  it("answers 400 invalid_cursor for a tampered, foreign, mismatched or other-list cursor", async () => {
    const w = await docsWorld({ flag: false });
    const first = await list(w, "/api/agent/invoices?limit=2&status=PAID");
    const cursor = first.nextCursor as string;
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    const expectInvalid = async (path: string, key = w.sensitive) => {
      const r = await getJson(w.t.app, path, key);
      expect([r.status, r.body.error, r.body.parameter], r.text).toEqual([
        400,
        "invalid_cursor",
        "cursor",
      ]);
    };
    // Tampered: one character changed, truncated, garbage.
    const flipped = cursor.slice(0, 10) + (cursor[10] === "A" ? "B" : "A") + cursor.slice(11);
    await expectInvalid(`/api/agent/invoices?limit=2&status=PAID&cursor=${flipped}`);
    await expectInvalid(`/api/agent/invoices?limit=2&status=PAID&cursor=${cursor.slice(0, -4)}`);
    await expectInvalid("/api/agent/invoices?status=PAID&cursor=not-a-cursor");
    await expectInvalid("/api/agent/invoices?status=PAID&cursor=%E2%9C%93");
    // Mismatched filters, another list.
    await expectInvalid(`/api/agent/invoices?limit=2&status=DRAFT&cursor=${cursor}`);
    await expectInvalid(`/api/agent/invoices?limit=2&cursor=${cursor}`);
    await expectInvalid(`/api/agent/bills?limit=2&status=PAID&cursor=${cursor}`);
    // Foreign: another organisation's key with the same filters.
    const other = await createTestOrg(w.t.db);
    const otherKey = await createTestKey(w.t.db, {
      kind: "ORG",
      orgId: other.id,
      label: "o",
      scopes: ["READ_INVOICES"],
    });
    await expectInvalid(`/api/agent/invoices?limit=2&status=PAID&cursor=${cursor}`, otherKey.key);
    // The genuine cursor works, also with another limit and with lines (same filters).
    const next = await list(
      w,
      `/api/agent/invoices?limit=5&lines=true&status=PAID&cursor=${cursor}`,
    );
    expect(next.invoices).toHaveLength(4);
  });

  it("requires READ_INVOICES", async () => {
    const w = await docsWorld({ flag: false });
    const k = await createTestKey(w.t.db, {
      kind: "ORG",
      orgId: w.orgId,
      label: "b",
      scopes: ["READ_BANK"],
    });
    for (const path of ["/api/agent/invoices", "/api/agent/bills"]) {
      const r = await getJson(w.t.app, path, k.key);
      expect([r.status, r.body.error]).toEqual([403, "insufficient_scope"]);
    }
  });
});
