import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { cashItems, contacts, purchaseOrders } from "../../src/db/schema/index.ts";
import {
  type CreditNoteDrillResponse,
  CreditNoteDrillResponseSchema,
  type CreditNotesResponse,
  CreditNotesResponseSchema,
} from "../../src/http/routes/agent/credit-notes/index.ts";
import {
  type PurchaseOrderDrillResponse,
  PurchaseOrderDrillResponseSchema,
  type PurchaseOrdersResponse,
  PurchaseOrdersResponseSchema,
} from "../../src/http/routes/agent/purchase-orders/index.ts";
import { importLedgerFolder } from "../../src/services/sync/import-ledger.ts";
import { createTestKey, getJson } from "../helpers/api.ts";
import { testDriver } from "../helpers/test-db.ts";
import {
  B,
  C,
  CN,
  DOCS_FIXTURE,
  DOCS_NOW,
  type DocsWorld,
  docsWorld,
  I,
  PO,
  qs,
} from "./documents-helpers.ts";

const T = (d: string) => `${d}T00:00:00.000Z`;

async function ok<T>(w: DocsWorld, path: string, key = w.sensitive): Promise<T> {
  const r = await getJson<T>(w.t.app, path, key);
  expect(r.status, r.text).toBe(200);
  return r.body;
}

function creditNotesOf(w: DocsWorld) {
  const acme = { contactId: C(1), contactName: "Acme Corp" };
  const row = (n: number, number: string) => ({
    id: w.ids.creditNote(CN(n)),
    externalId: CN(n),
    creditNoteNumber: number,
  });
  return {
    CN1: {
      ...row(1, "CN-0001"),
      ...acme,
      issueDate: T("2024-02-05"),
      status: "FORECAST",
      ledgerStatus: "AUTHORISED",
      total: "110",
      remainingCredit: "40",
      allocatedAmount: "70",
      currency: "AUD",
    },
    CN2: {
      ...row(2, "CN-0002"),
      ...acme,
      issueDate: T("2024-03-10"),
      status: "FORECAST",
      ledgerStatus: "AUTHORISED",
      total: "30",
      remainingCredit: "30",
      allocatedAmount: "0",
      currency: "USD",
    },
    CN3: {
      ...row(3, "CN-0003"),
      ...acme,
      issueDate: T("2024-04-01"),
      status: "ACTUAL",
      ledgerStatus: "PAID",
      total: "25",
      remainingCredit: "0",
      allocatedAmount: "25",
      currency: "AUD",
    },
    CN4: {
      ...row(4, "CN-0004"),
      contactId: C(5),
      contactName: "Secret Client",
      issueDate: T("2024-03-15"),
      status: "FORECAST",
      ledgerStatus: "AUTHORISED",
      total: "60",
      remainingCredit: "60",
      allocatedAmount: "0",
      currency: "AUD",
    },
    CN6: {
      ...row(6, "CN-0005"),
      ...acme,
      issueDate: T("2024-05-01"),
      status: "FORECAST",
      ledgerStatus: "AUTHORISED",
      total: "15",
      remainingCredit: "15",
      allocatedAmount: "0",
      currency: "AUD",
    },
  };
}

function ordersOf(w: DocsWorld) {
  const parts = { contactId: C(7), contactName: "Parts Supplier Pty" };
  const row = (n: number) => ({
    id: w.ids.order(PO(n)),
    externalId: PO(n),
    purchaseOrderNumber: `PO-000${n}`,
  });
  const none = { reference: null, deliveryDate: null, expectedArrivalDate: null };
  return {
    PO1: {
      ...row(1),
      reference: "April parts",
      ...parts,
      status: "BILLED",
      issueDate: T("2024-04-01"),
      deliveryDate: T("2024-04-08"),
      expectedArrivalDate: T("2024-04-07"),
      total: "275",
      currency: "AUD",
      suppressedReason: "REFERENCE",
    },
    PO2: {
      ...row(2),
      reference: "Spring stock",
      contactId: C(4),
      contactName: "Both Ways Ltd",
      status: "AUTHORISED",
      issueDate: T("2024-03-25"),
      deliveryDate: T("2024-04-01"),
      expectedArrivalDate: null,
      total: "112.2",
      currency: "AUD",
      suppressedReason: "REFERENCE",
    },
    PO3: {
      ...row(3),
      reference: null,
      ...parts,
      status: "AUTHORISED",
      issueDate: T("2024-04-20"),
      deliveryDate: T("2024-04-30"),
      expectedArrivalDate: null,
      total: "550",
      currency: "AUD",
      suppressedReason: "CONTACT_AMOUNT",
    },
    PO4: {
      ...row(4),
      ...none,
      ...parts,
      status: "AUTHORISED",
      issueDate: T("2024-04-25"),
      total: "330",
      currency: "AUD",
      suppressedReason: "CONTACT_AMOUNT",
    },
    PO5: {
      ...row(5),
      ...none,
      ...parts,
      status: "AUTHORISED",
      issueDate: T("2024-04-28"),
      total: "330",
      currency: "AUD",
      suppressedReason: null,
    },
    PO6: {
      ...row(6),
      ...none,
      ...parts,
      status: "AUTHORISED",
      issueDate: T("2024-03-20"),
      total: "990",
      currency: "AUD",
      suppressedReason: null,
    },
    PO7: {
      ...row(7),
      ...none,
      ...parts,
      status: "SUBMITTED",
      issueDate: T("2024-05-01"),
      total: "120",
      currency: "AUD",
      suppressedReason: null,
    },
    PO8: {
      ...row(8),
      ...none,
      ...parts,
      status: "DELETED",
      issueDate: T("2024-05-15"),
      total: "275",
      currency: "AUD",
      suppressedReason: null,
    },
    PO9: {
      ...row(9),
      ...none,
      contactId: C(3),
      contactName: "Office Landlord Pty",
      status: "DRAFT",
      issueDate: T("2024-06-01"),
      total: "80",
      currency: "NZD",
      suppressedReason: null,
    },
  };
}

describe(`GET /api/agent/credit-notes (${testDriver})`, () => {
  it("lists receivable credit notes only, every field, by issue date", async () => {
    const w = await docsWorld();
    const body = await ok<CreditNotesResponse>(w, "/api/agent/credit-notes");
    expect(CreditNotesResponseSchema.parse(body)).toEqual(body);
    const cn = creditNotesOf(w);
    // The supplier credit SCN-17 (ACCPAYCREDIT) is not listed.
    expect(body).toEqual({
      creditNotes: [cn.CN6, cn.CN3, cn.CN4, cn.CN2, cn.CN1],
      nextCursor: null,
      totalCount: 5,
      redactedItemCount: 0,
    });
  });

  it("filters by status, contact and issue date; totals over total in each variant", async () => {
    const w = await docsWorld();
    const numbers = async (q: string) =>
      (await ok<CreditNotesResponse>(w, `/api/agent/credit-notes${q}`)).creditNotes.map(
        (c) => c.creditNoteNumber,
      );
    expect(await numbers("?status=AUTHORISED")).toEqual([
      "CN-0005",
      "CN-0004",
      "CN-0002",
      "CN-0001",
    ]);
    expect(await numbers("?status=paid,bogus")).toEqual(["CN-0003"]);
    expect(await numbers("?status=bogus")).toEqual(await numbers(""));
    expect(await numbers(`?contactId=${C(5)}`)).toEqual(["CN-0004"]);
    expect(await numbers("?dateFrom=2024-03-10&dateTo=2024-04-01")).toEqual([
      "CN-0003",
      "CN-0004",
      "CN-0002",
    ]);
    const zero = { count: 0, amount: "0" };
    const aud = await ok<CreditNotesResponse>(
      w,
      `/api/agent/credit-notes?totals=true&contactId=${C(1)}&dateFrom=2024-04-01`,
    );
    expect(aud.totals).toEqual({
      byStatus: {
        DRAFT: zero,
        SUBMITTED: zero,
        AUTHORISED: { count: 1, amount: "15" },
        PAID: { count: 1, amount: "25" },
        VOIDED: zero,
        DELETED: zero,
      },
      grandTotal: { count: 2, amount: "40" },
      currency: "AUD",
    });
    const mixed = await ok<CreditNotesResponse>(w, "/api/agent/credit-notes?totals=1");
    expect(mixed.totals).toEqual({ byStatus: null, mixedCurrency: true, primaryCurrency: "AUD" });
    const empty = await ok<CreditNotesResponse>(
      w,
      "/api/agent/credit-notes?totals=1&status=VOIDED",
    );
    expect(empty.totals).toEqual({
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
  });

  it("withholds sensitive contacts' credit notes without READ_SENSITIVE; counts and totals unchanged", async () => {
    const w = await docsWorld();
    const plain = await ok<CreditNotesResponse>(
      w,
      "/api/agent/credit-notes?totals=1&limit=3",
      w.plain,
    );
    const full = await ok<CreditNotesResponse>(
      w,
      "/api/agent/credit-notes?totals=1&limit=3",
      w.sensitive,
    );
    expect(plain.creditNotes.map((c) => c.creditNoteNumber)).toEqual(["CN-0005", "CN-0003"]);
    expect(full.creditNotes.map((c) => c.creditNoteNumber)).toEqual([
      "CN-0005",
      "CN-0003",
      "CN-0004",
    ]);
    expect([plain.redactedItemCount, full.redactedItemCount]).toEqual([1, 0]);
    expect([plain.totalCount, plain.totals]).toEqual([full.totalCount, full.totals]);
    // Both keys continue at the same place.
    const next = await ok<CreditNotesResponse>(
      w,
      `/api/agent/credit-notes?totals=1&limit=3&cursor=${plain.nextCursor}`,
      w.plain,
    );
    expect(next.creditNotes.map((c) => c.creditNoteNumber)).toEqual(["CN-0002", "CN-0001"]);
  });

  it("drills by our id, the ledger id or the number, with allocations and lines", async () => {
    const w = await docsWorld();
    const cn = creditNotesOf(w);
    for (const ref of [w.ids.creditNote(CN(1)), CN(1), "CN-0001"]) {
      const body = await ok<CreditNoteDrillResponse>(
        w,
        `/api/agent/credit-notes/${encodeURIComponent(ref)}`,
      );
      expect(CreditNoteDrillResponseSchema.parse(body)).toEqual(body);
      expect(body).toEqual({
        creditNote: {
          ...cn.CN1,
          reference: "Returned widgets",
          // The deleted allocation is left out; by date.
          allocations: [
            {
              invoiceNumber: "INV-0008",
              invoiceExternalId: I(8),
              amount: "20",
              date: T("2024-05-25"),
            },
            {
              invoiceNumber: "INV-0009",
              invoiceExternalId: I(9),
              amount: "50",
              date: T("2024-06-05"),
            },
          ],
          lineItems: [
            {
              description: "Returned widgets",
              quantity: "1",
              unitAmount: "100",
              lineAmount: "100",
              itemCode: "WIDGET",
              accountCode: "200",
            },
          ],
        },
        redactedItemCount: 0,
      });
    }
    // Lines on sensitive accounts keep their place without the code, counted.
    const masked = await ok<CreditNoteDrillResponse>(w, "/api/agent/credit-notes/CN-0005", w.plain);
    expect(masked.creditNote.lineItems).toEqual([
      { description: "Wage subsidy clawback", quantity: "1", unitAmount: "15", lineAmount: "15" },
      { description: "Note only" },
    ]);
    expect(masked.redactedItemCount).toBe(1);
    const shown = await ok<CreditNoteDrillResponse>(
      w,
      "/api/agent/credit-notes/CN-0005",
      w.sensitive,
    );
    expect(shown.creditNote.lineItems[0]?.accountCode).toBe("477");
    expect(shown.redactedItemCount).toBe(0);
  });

  it("answers 404 not_found alike for unknown ids, supplier credits and (without READ_SENSITIVE) sensitive contacts", async () => {
    const w = await docsWorld();
    const notFound = async (ref: string, key: string) => {
      const r = await getJson(w.t.app, `/api/agent/credit-notes/${encodeURIComponent(ref)}`, key);
      expect([r.status, r.body.error], r.text).toEqual([404, "not_found"]);
      return r.text;
    };
    const unknown = await notFound("CN-9999", w.plain);
    expect(await notFound("CN-0004", w.plain)).toBe(unknown);
    expect(await notFound(CN(4), w.plain)).toBe(unknown);
    await notFound("SCN-17", w.sensitive);
    await notFound("a\u0000b", w.sensitive);
    await ok(w, "/api/agent/credit-notes/CN-0004", w.sensitive);
    // Another organisation's credit note is unknown here.
    const other = await docsWorld({ flag: false });
    await notFound(other.ids.creditNote(CN(1)), w.sensitive);
  });
});

describe(`GET /api/agent/purchase-orders (${testDriver})`, () => {
  it("lists every order with every field and its suppression reason", async () => {
    const w = await docsWorld();
    const body = await ok<PurchaseOrdersResponse>(w, "/api/agent/purchase-orders");
    expect(PurchaseOrdersResponseSchema.parse(body)).toEqual(body);
    const po = ordersOf(w);
    expect(body).toEqual({
      purchaseOrders: [po.PO9, po.PO8, po.PO7, po.PO5, po.PO4, po.PO3, po.PO1, po.PO2, po.PO6],
      nextCursor: null,
      totalCount: 9,
      redactedItemCount: 0,
    });
  });

  it("filters status verbatim, by contact and issue date; totals over total", async () => {
    const w = await docsWorld();
    const numbers = async (q: string) =>
      (await ok<PurchaseOrdersResponse>(w, `/api/agent/purchase-orders${q}`)).purchaseOrders.map(
        (p) => p.purchaseOrderNumber,
      );
    expect(await numbers("?status=BILLED")).toEqual(["PO-0001"]);
    // PAID is an invoice status, not an order status: ignored, so alone it is no filter.
    expect(await numbers("?status=PAID")).toEqual(await numbers(""));
    expect(await numbers("?status=DRAFT,deleted")).toEqual(["PO-0009", "PO-0008"]);
    expect(await numbers(`?contactId=${C(4)}`)).toEqual(["PO-0002"]);
    expect(await numbers("?dateFrom=2024-04-20&dateTo=2024-04-28")).toEqual([
      "PO-0005",
      "PO-0004",
      "PO-0003",
    ]);
    const zero = { count: 0, amount: "0" };
    const parts = await ok<PurchaseOrdersResponse>(
      w,
      `/api/agent/purchase-orders?totals=true&contactId=${C(7)}`,
    );
    expect(parts.totals).toEqual({
      byStatus: {
        DRAFT: zero,
        SUBMITTED: { count: 1, amount: "120" },
        AUTHORISED: { count: 4, amount: "2200" },
        BILLED: { count: 1, amount: "275" },
        DELETED: { count: 1, amount: "275" },
      },
      grandTotal: { count: 7, amount: "2870" },
      currency: "AUD",
    });
    const mixed = await ok<PurchaseOrdersResponse>(w, "/api/agent/purchase-orders?totals=true");
    expect(mixed.totals).toEqual({ byStatus: null, mixedCurrency: true, primaryCurrency: "AUD" });
    const empty = await ok<PurchaseOrdersResponse>(
      w,
      "/api/agent/purchase-orders?totals=true&dateFrom=2099-01-01",
    );
    expect(empty.totals).toEqual({
      byStatus: { DRAFT: zero, SUBMITTED: zero, AUTHORISED: zero, BILLED: zero, DELETED: zero },
      grandTotal: zero,
    });
  });

  it("drills by our id, the ledger id or the number, with lines; sensitive accounts' codes blanked", async () => {
    const w = await docsWorld();
    const po = ordersOf(w);
    for (const ref of [w.ids.order(PO(1)), PO(1), "PO-0001"]) {
      const body = await ok<PurchaseOrderDrillResponse>(w, `/api/agent/purchase-orders/${ref}`);
      expect(PurchaseOrderDrillResponseSchema.parse(body)).toEqual(body);
      expect(body).toEqual({
        purchaseOrder: {
          ...po.PO1,
          lineItems: [
            {
              description: "Part A",
              quantity: "10",
              unitAmount: "25",
              lineAmount: "250",
              itemCode: "PART-A",
              accountCode: "310",
            },
          ],
        },
        redactedItemCount: 0,
      });
    }
    const masked = await ok<PurchaseOrderDrillResponse>(
      w,
      "/api/agent/purchase-orders/PO-0009",
      w.plain,
    );
    expect(masked).toEqual({
      purchaseOrder: {
        ...po.PO9,
        lineItems: [
          { description: "Office wages top-up", quantity: "1", unitAmount: "80", lineAmount: "80" },
          { description: "Delivery note" },
        ],
      },
      redactedItemCount: 1,
    });
    const r = await getJson(w.t.app, "/api/agent/purchase-orders/PO-4040", w.sensitive);
    expect([r.status, r.body.error]).toEqual([404, "not_found"]);
  });

  it("withholds orders of sensitive suppliers and answers their drill as unknown", async () => {
    const w = await docsWorld();
    await w.t.db
      .update(contacts)
      .set({ isSensitive: true })
      .where(and(eq(contacts.orgId, w.orgId), eq(contacts.externalId, C(4))));
    const plain = await ok<PurchaseOrdersResponse>(
      w,
      "/api/agent/purchase-orders?totals=1",
      w.plain,
    );
    const full = await ok<PurchaseOrdersResponse>(
      w,
      "/api/agent/purchase-orders?totals=1",
      w.sensitive,
    );
    expect(plain.purchaseOrders.map((p) => p.purchaseOrderNumber)).not.toContain("PO-0002");
    expect([plain.redactedItemCount, plain.purchaseOrders.length]).toEqual([1, 8]);
    expect([plain.totalCount, plain.totals]).toEqual([full.totalCount, full.totals]);
    const hidden = await getJson(w.t.app, "/api/agent/purchase-orders/PO-0002", w.plain);
    const unknown = await getJson(w.t.app, "/api/agent/purchase-orders/PO-0404", w.plain);
    expect([hidden.status, hidden.text]).toEqual([404, unknown.text]);
  });

  it("requires READ_PURCHASE_ORDERS (READ_INVOICES is not enough)", async () => {
    const w = await docsWorld({ flag: false });
    const k = await createTestKey(w.t.db, {
      kind: "ORG",
      orgId: w.orgId,
      label: "i",
      scopes: ["READ_INVOICES"],
    });
    for (const path of ["/api/agent/purchase-orders", "/api/agent/purchase-orders/PO-0001"]) {
      const r = await getJson(w.t.app, path, k.key);
      expect([r.status, r.body.error, r.body.requiredScope]).toEqual([
        403,
        "insufficient_scope",
        "READ_PURCHASE_ORDERS",
      ]);
    }
  });

  it("pages orders and credit notes with cursors bound to their filters", async () => {
    const w = await docsWorld({ flag: false });
    const walk = async (path: string, field: "purchaseOrders" | "creditNotes") => {
      const ids: string[] = [];
      let cursor: string | undefined;
      do {
        const body = await ok<Record<string, unknown>>(w, `${path}${qs({ limit: 2, cursor })}`);
        ids.push(...(body[field] as { id: string }[]).map((r) => r.id));
        cursor = (body.nextCursor as string | null) ?? undefined;
      } while (cursor);
      return ids;
    };
    const all = await ok<PurchaseOrdersResponse>(w, "/api/agent/purchase-orders?autoPaginate=true");
    expect(await walk("/api/agent/purchase-orders", "purchaseOrders")).toEqual(
      all.purchaseOrders.map((p) => p.id),
    );
    const notes = await ok<CreditNotesResponse>(w, "/api/agent/credit-notes?autoPaginate=1");
    expect(await walk("/api/agent/credit-notes", "creditNotes")).toEqual(
      notes.creditNotes.map((c) => c.id),
    );
    const first = await ok<PurchaseOrdersResponse>(w, "/api/agent/purchase-orders?limit=2");
    const cross = await getJson(
      w.t.app,
      `/api/agent/credit-notes?cursor=${first.nextCursor}`,
      w.sensitive,
    );
    expect([cross.status, cross.body.error]).toEqual([400, "invalid_cursor"]);
  });
});

describe(`suppressedReason at sync (${testDriver})`, () => {
  it("computes each reason at import, releases an order when its bill goes, and writes nothing when unchanged", async () => {
    const w = await docsWorld({ flag: false });
    const reasons = async () =>
      Object.fromEntries(
        (
          await w.t.db
            .select({ n: purchaseOrders.purchaseOrderNumber, r: purchaseOrders.suppressedReason })
            .from(purchaseOrders)
            .where(eq(purchaseOrders.orgId, w.orgId))
        ).map((p) => [p.n, p.r]),
      );
    const expected = {
      "PO-0001": "REFERENCE", // the bill's number is the order's number
      "PO-0002": "REFERENCE", // the bill's number is the order's reference (case, spaces ignored)
      "PO-0003": "CONTACT_AMOUNT", // same supplier and total, 12 days later
      "PO-0004": "CONTACT_AMOUNT", // takes the one bill of 330
      "PO-0005": null, // … which covers one order only
      "PO-0006": null, // the bill of 990 is 75 days earlier: outside the window
      "PO-0007": null, // the bill of 120 is voided
      "PO-0008": null, // deleted orders never match
      "PO-0009": null,
    };
    expect(await reasons()).toEqual(expected);
    // A re-import of the same snapshot changes nothing, not even the orders' sync stamps.
    const again = await importLedgerFolder(w.t.db, {
      orgId: w.orgId,
      folder: DOCS_FIXTURE,
      now: new Date(DOCS_NOW.getTime() + 60_000),
    });
    expect(again.counts.purchaseOrders).toEqual({ read: 9, written: 0 });
    expect(await reasons()).toEqual(expected);
    const stamps = await w.t.db
      .select({ at: purchaseOrders.lastSyncedAt })
      .from(purchaseOrders)
      .where(eq(purchaseOrders.orgId, w.orgId));
    expect(new Set(stamps.map((s) => s.at.toISOString()))).toEqual(
      new Set([DOCS_NOW.toISOString()]),
    );
    // A voided bill releases its order at the next computation (here: the bill row voided in place).
    await w.t.db
      .update(cashItems)
      .set({ ledgerStatus: "VOIDED", status: "CANCELLED" })
      .where(and(eq(cashItems.orgId, w.orgId), eq(cashItems.externalId, B(3))));
    const { suppressPurchaseOrders } = await import(
      "../../src/services/sync/suppress-purchase-orders.ts"
    );
    expect(await suppressPurchaseOrders(w.t.db, { orgId: w.orgId })).toBe(1);
    expect((await reasons())["PO-0003"]).toBeNull();
    expect(await suppressPurchaseOrders(w.t.db, { orgId: w.orgId })).toBe(0);
  });
});
