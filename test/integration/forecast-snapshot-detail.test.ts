import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { cashItems, contacts } from "../../src/db/schema/index.ts";
import { newId } from "../../src/domain/ids.ts";
import { explainForecastItems, explainForecastWeek } from "../../src/services/forecast/explain.ts";
import {
  recomputeForecasts,
  SNAPSHOTS_KEPT,
} from "../../src/services/forecast/recompute-forecasts.ts";
import { readSnapshots } from "../../src/services/forecast/snapshot-detail.ts";
import { createTestOrg } from "../helpers/factories.ts";
import { getTestDatabase, testDriver } from "../helpers/test-db.ts";

const NOW = new Date("2026-03-02T03:04:05.000Z"); // Monday 2 March, Sydney

const rows = <T>(result: unknown): T[] => (result as { rows: T[] }).rows;

/** A customer with a year of monthly invoices (predicted orders) and two open ones. */
async function setUp() {
  const { db } = await getTestDatabase();
  const org = await createTestOrg(db, { timezone: "Australia/Sydney" });
  const externalId = `c-${newId("ci")}`;
  await db.insert(contacts).values({
    id: newId("ci"),
    orgId: org.id,
    externalId,
    name: "Acme Pty",
    isCustomer: true,
    lastSyncedAt: NOW,
  } as typeof contacts.$inferInsert);
  const invoice = (number: string, issue: string, due: string, paid: string | null) =>
    db.insert(cashItems).values({
      id: newId("ci"),
      orgId: org.id,
      source: "LEDGER_INVOICE",
      externalId: newId("ci"),
      invoiceNumber: number,
      contactExternalId: externalId,
      contactName: "Acme Pty",
      status: paid ? "ACTUAL" : "FORECAST",
      ledgerStatus: paid ? "PAID" : "AUTHORISED",
      currency: "AUD",
      amount: "100",
      amountDue: paid ? "0" : "100",
      issueDate: issue,
      dueDate: due,
      expectedDate: due,
      actualDate: paid,
      lastSyncedAt: NOW,
    });
  for (let m = 1; m <= 12; m++) {
    const month = String(m).padStart(2, "0");
    await invoice(`INV-${m}`, `2025-${month}-01`, `2025-${month}-15`, `2025-${month}-20`);
  }
  await invoice("INV-13", "2026-02-01", "2026-03-11", null);
  await invoice("INV-14", "2025-10-01", "2026-09-01", null);
  return { db, org };
}

describe(`forecast snapshot detail storage (${testDriver})`, () => {
  it("stores the predictions once per recompute, keeps only those of kept snapshots, and explains a snapshot stored the old way the same", async () => {
    const { db, org } = await setUp();
    for (let i = 0; i < SNAPSHOTS_KEPT + 2; i++) {
      await recomputeForecasts(db, { orgId: org.id, now: NOW });
    }
    const stored = rows<{ id: string; predictions_id: string | null; format: string | null }>(
      await db.execute(sql`
        SELECT id, predictions_id, detail->>'format' AS format FROM forecast_snapshots
        WHERE org_id = ${org.id}`),
    );
    expect(stored).toHaveLength(3 * SNAPSHOTS_KEPT);
    expect(stored.every((s) => s.format === "2" && s.predictions_id !== null)).toBe(true);
    const kept = new Set(stored.map((s) => s.predictions_id));
    const predictions = rows<{ id: string }>(
      await db.execute(sql`SELECT id FROM forecast_predictions WHERE org_id = ${org.id}`),
    );
    expect(predictions.map((p) => p.id).sort()).toEqual([...kept].sort());
    expect(kept.size).toBe(SNAPSHOTS_KEPT);

    const weeks = async () => {
      const out = [];
      for (let week = 1; week <= 13; week++) {
        out.push(await explainForecastWeek(db, { orgId: org.id, week }));
      }
      return out;
    };
    const before = await weeks();
    const byContact = await explainForecastItems(db, { orgId: org.id, contact: "acme" });
    expect(byContact.lines.map((l) => l.label)).toContain("INV-13");
    expect(before.some((w) => w.predicted.length > 0)).toBe(true);

    // Every snapshot rewritten as it was stored before format 2: the detail whole, its
    // predictions inline. Explain answers the same.
    const read = await readSnapshots(
      db,
      stored.map((s) => s.id),
    );
    for (const s of stored) {
      const detail = read.get(s.id)?.detail;
      expect(detail?.predictions.length).toBeGreaterThan(0);
      await db.execute(sql`
        UPDATE forecast_snapshots SET detail = ${JSON.stringify(detail)}::jsonb, predictions_id = NULL
        WHERE id = ${s.id}`);
    }
    const after = await weeks();
    expect(after).toEqual(before);
    expect(JSON.stringify(after)).toBe(JSON.stringify(before));
    expect(await explainForecastItems(db, { orgId: org.id, contact: "acme" })).toEqual(byContact);
  });
});
