import { describe, expect, it } from "vitest";
import { getJson } from "../helpers/api.ts";
import { testDriver } from "../helpers/test-db.ts";
import { type DocsWorld, docsWorld } from "./documents-helpers.ts";

/*
 * The `status` filter of the four document lists, as the spec words it: "Unknown values are
 * ignored." An unknown value is never matched literally; a list with no known value is no filter
 * (docs/documents.md, the `status` parameter's OpenAPI description).
 */

interface ListBody {
  nextCursor: string | null;
  totalCount: number;
  totals?: unknown;
  [rows: string]: unknown;
}

/** Each list, its array, one status of its vocabulary the fixture has rows in, and another. */
const LISTS = [
  { path: "/api/agent/invoices", rows: "invoices", known: "PAID", other: "DRAFT" },
  { path: "/api/agent/bills", rows: "bills", known: "PAID", other: "AUTHORISED" },
  { path: "/api/agent/credit-notes", rows: "creditNotes", known: "PAID", other: "AUTHORISED" },
  { path: "/api/agent/purchase-orders", rows: "purchaseOrders", known: "BILLED", other: "DRAFT" },
] as const;

async function list(w: DocsWorld, path: string): Promise<ListBody> {
  const { status, body, text } = await getJson<ListBody>(w.t.app, path, w.sensitive);
  expect(status, `${path}: ${text}`).toBe(200);
  return body;
}

/** The ids of the whole matched set with its count and totals, for comparing two filters. */
async function matched(w: DocsWorld, l: (typeof LISTS)[number], filter: string) {
  const body = await list(w, `${l.path}?autoPaginate=true&totals=true${filter}`);
  const rows = body[l.rows] as { id: string }[];
  return { ids: rows.map((r) => r.id), totalCount: body.totalCount, totals: body.totals };
}

describe(`status filters on the document lists (${testDriver})`, () => {
  it("ignores unknown values: status=UNPAID is no filter, status=<known>,UNPAID is <known>", async () => {
    const w = await docsWorld();
    for (const l of LISTS) {
      const all = await matched(w, l, "");
      const known = await matched(w, l, `&status=${l.known}`);
      // The fixture has rows in and out of the known status, so each filter is visible.
      expect(known.totalCount, l.path).toBeGreaterThan(0);
      expect(known.totalCount, l.path).toBeLessThan(all.totalCount);

      expect(await matched(w, l, "&status=UNPAID"), l.path).toEqual(all);
      expect(await matched(w, l, "&status=unpaid,%20NOPE,"), l.path).toEqual(all);
      expect(await matched(w, l, "&status=UNPAID&status=nope"), l.path).toEqual(all);
      expect(await matched(w, l, `&status=${l.known},UNPAID`), l.path).toEqual(known);
      expect(await matched(w, l, `&status=UNPAID&status=${l.known.toLowerCase()}`), l.path).toEqual(
        known,
      );
      const two = await matched(w, l, `&status=${l.known},${l.other}`);
      expect(await matched(w, l, `&status=${l.other},UNPAID,${l.known}`), l.path).toEqual(two);
    }
  });

  it("pages an all-unknown filter like no filter: its cursor continues the unfiltered list", async () => {
    const w = await docsWorld();
    for (const l of LISTS) {
      const first = await list(w, `${l.path}?limit=2&status=UNPAID`);
      expect(first.nextCursor, l.path).toEqual(expect.any(String));
      const cursor = encodeURIComponent(first.nextCursor ?? "");
      const next = await list(w, `${l.path}?limit=2&cursor=${cursor}`);
      const plain = await list(w, `${l.path}?limit=4`);
      const ids = (b: ListBody) => (b[l.rows] as { id: string }[]).map((r) => r.id);
      expect([...ids(first), ...ids(next)], l.path).toEqual(ids(plain));
    }
  });
});
