import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isLosslessNumber, parse } from "lossless-json";
import { describe, expect, it } from "vitest";
import type { RevenueSummaryResponse } from "../../src/contracts/agent/revenue-summary.ts";
import { money, sum } from "../../src/domain/money.ts";
import { ALL_BUT_SENSITIVE } from "../../src/domain/scopes.ts";
import { noopMetering } from "../../src/http/pipeline/metering.ts";
import { seedDemo } from "../../src/services/demo/seed-demo.ts";
import { createTestKey, getJson, testApp } from "../helpers/api.ts";
import { testDriver } from "../helpers/test-db.ts";

/*
 * PAID figures reconcile to the ledger within ±1%: the revenue and expenses summaries of a
 * generated demo ledger against the ledger's own cash-basis figure, computed here straight from
 * the export files (every non-deleted invoice payment in the window, ex-tax in the document's
 * SubTotal/Total proportion, in AUD through BankAmount), independently of the service's SQL.
 */
const NOW = new Date("2026-03-10T01:00:00.000Z");

type Json = Record<string, unknown>;
const text = (v: unknown) => (isLosslessNumber(v) ? v.toString() : String(v ?? "0"));
const read = (folder: string, file: string, key: string) =>
  (parse(readFileSync(join(folder, file), "utf8")) as Json)[key] as Json[];
const isoDate = (v: unknown) => {
  const s = String(v);
  const ms = /\/Date\((\d+)/.exec(s);
  return ms ? new Date(Number(ms[1])).toISOString().slice(0, 10) : s.slice(0, 10);
};

function ledgerCashBasis(folder: string, type: "ACCREC" | "ACCPAY", from: string, to: string) {
  const docs = new Map(
    read(folder, "Invoices.json", "Invoices")
      .filter((d) => d.Type === type)
      .map((d) => [String(d.InvoiceID), d]),
  );
  const amounts = read(folder, "Payments.json", "Payments")
    .filter((p) => p.Status !== "DELETED")
    .flatMap((p) => {
      const doc = docs.get(String((p.Invoice as Json | undefined)?.InvoiceID));
      const date = isoDate(p.Date);
      if (!doc || date < from || date > to) return [];
      const total = money(text(doc.Total));
      const ratio = total.isZero() ? money(1) : money(text(doc.SubTotal)).div(total);
      return [money(text(p.BankAmount ?? p.Amount)).times(ratio)];
    });
  return sum(amounts);
}

describe(`summaries reconcile to the ledger (${testDriver})`, () => {
  it("PAID revenue and expenses are within 1% of the ledger's cash basis", async () => {
    const t = await testApp({ now: NOW, metering: noopMetering });
    const folder = mkdtempSync(join(tmpdir(), "cr-reconcile-"));
    const seeded = await seedDemo(t.db, { seed: "reconcile", now: NOW, folder });
    const k = await createTestKey(
      t.db,
      { kind: "ORG", orgId: seeded.orgId, label: "r", scopes: [...ALL_BUT_SENSITIVE] },
      NOW,
    );
    for (const [path, type] of [
      ["/api/agent/revenue/summary", "ACCREC"],
      ["/api/agent/expenses/summary", "ACCPAY"],
    ] as const) {
      for (const window of [
        { dateFrom: undefined, dateTo: undefined },
        { dateFrom: "2024-07-01", dateTo: "2025-06-30" },
        { dateFrom: "2025-12-01", dateTo: "2025-12-31" },
      ]) {
        const query = window.dateFrom ? `?dateFrom=${window.dateFrom}&dateTo=${window.dateTo}` : "";
        const r = await getJson<RevenueSummaryResponse>(t.app, `${path}${query}`, k.key);
        expect(r.status, r.text).toBe(200);
        const ledger = ledgerCashBasis(folder, type, r.body.window.from, r.body.window.to);
        expect(ledger.gt(0)).toBe(true);
        const ours = money(r.body.grandTotal.amount);
        const gap = ours.minus(ledger).abs().div(ledger).toNumber();
        expect(gap, `${path}${query}: ours ${ours} ledger ${ledger}`).toBeLessThanOrEqual(0.01);
        // The months add up to the total (each rounded to cents).
        const months = sum(r.body.byMonth.map((m) => m.amount));
        expect(months.minus(ours).abs().toNumber()).toBeLessThan(0.01 * r.body.byMonth.length);
      }
    }
  }, 120_000);
});
