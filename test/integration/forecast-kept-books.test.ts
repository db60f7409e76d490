import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { type Db, openPostgres } from "../../src/db/client.ts";
import { readOrgDataEpoch } from "../../src/db/queries/data-epochs.ts";
import { HISTORY_DAYS } from "../../src/domain/forecasting/books.ts";
import { addDays } from "../../src/domain/forecasting/dates.ts";
import { setCashOverride } from "../../src/services/cash-position/set-cash-override.ts";
import { setAccountCategory } from "../../src/services/categories/categories.ts";
import { seedDemo } from "../../src/services/demo/seed-demo.ts";
import { forgetForecastInputs } from "../../src/services/forecast/fit-forecast-input.ts";
import {
  booksFromRows,
  loadBooks,
  loadCash,
  readBookRows,
  refreshBookRows,
} from "../../src/services/forecast/load-forecast-input.ts";
import { addManualItem, removeManualItem } from "../../src/services/forecast/manual-items.ts";
import { recomputeForecasts } from "../../src/services/forecast/recompute-forecasts.ts";
import { readSnapshots } from "../../src/services/forecast/snapshot-detail.ts";
import { createOrganisation } from "../../src/services/orgs/create-organisation.ts";
import { importLedgerFolder } from "../../src/services/sync/import-ledger.ts";
import { getTestDatabase, testDriver } from "../helpers/test-db.ts";

const NOW = new Date("2026-11-22T01:00:00Z"); // Sunday 22 November, Sydney
const NEXT_DAY = new Date(NOW.getTime() + 86_400_000);
const LATER = new Date(NOW.getTime() + 3_600_000); // the same local date

const rows = <T>(result: unknown): T[] => (result as { rows: T[] }).rows;

/**
 * Tables the recompute reads afresh every time, so a write to them needs no epoch: the starting
 * cash (bank accounts, the override) and the organisation (its zone and currency are checked
 * against the kept books).
 */
const READ_AFRESH = ["bank_accounts", "cash_overrides", "organisations"];

describe(`forecast books kept per data epoch (${testDriver})`, () => {
  let db: Db;
  let orgId: string;
  let org: { id: string; baseCurrency: string; timezone: string };
  let folder: string;

  beforeAll(async () => {
    db = (await getTestDatabase()).db;
    folder = mkdtempSync(join(tmpdir(), "kept-books-"));
    const seeded = await seedDemo(db, {
      seed: "kept-books",
      now: NOW,
      invoices: 400,
      folder,
      name: `Kept books ${Math.random()}`,
    });
    orgId = seeded.orgId;
    org = { id: orgId, baseCurrency: "AUD", timezone: "Australia/Sydney" };
  }, 120_000);

  /** A recompute, and what readers get of each scenario's snapshot (payload and detail). */
  async function served(now: Date) {
    const r = await recomputeForecasts(db, { orgId, now });
    const read = await readSnapshots(
      db,
      r.snapshots.map((s) => s.snapshotId),
    );
    const forecast = Object.fromEntries(
      r.snapshots.map((s) => {
        const snapshot = read.get(s.snapshotId);
        return [s.kind, { payload: snapshot?.payload, detail: snapshot?.detail }];
      }),
    );
    return { reuse: r.reuse, forecast };
  }

  /** A recompute from nothing kept: what a new process serves. */
  async function full(now: Date) {
    forgetForecastInputs();
    return served(now);
  }

  it("reuses the model on the same local date and the rows on the next, serving what a full recompute serves", async () => {
    const cold = await full(NOW);
    expect(cold.reuse).toBe("none");
    const again = await served(LATER);
    expect(again.reuse).toBe("model");
    expect(again.forecast).toEqual(cold.forecast);

    const nextDay = await served(NEXT_DAY);
    expect(nextDay.reuse).toBe("rows");
    const nextDayFull = await full(NEXT_DAY);
    expect(nextDay.forecast).toEqual(nextDayFull.forecast);
    // The next day's forecast is not the first one again (week 1 moved on).
    expect(nextDay.forecast).not.toEqual(cold.forecast);
  });

  it("keeps books by their size, not their count: many small organisations beside a larger one", async () => {
    await full(NOW);
    // Six organisations recomputed after it (a count bound of 4 dropped it): each weighs a row.
    for (let i = 0; i < 6; i++) {
      const small = await createOrganisation(
        db,
        { name: `Kept books, small ${i} ${Math.random()}` },
        NOW,
      );
      expect((await recomputeForecasts(db, { orgId: small.id, now: NOW })).reuse).toBe("none");
    }
    expect((await served(LATER)).reuse).toBe("model");
  });

  it("gives, from the rows read for an earlier cutoff, the books a read for the later one gives", async () => {
    // Row for row, not through the forecast: the engine looks back from its own date too, so a
    // filter that kept a row too many (or the wrong payments) could leave the forecast unchanged
    // here and change it on another ledger. Past cutoffs included: there documents changed after
    // the cutoff are rebuilt from their payments and credits, which the live date seldom has.
    const { included } = await loadCash(db, org, NOW);
    const read = (cutoff: string) =>
      readBookRows(db, org, { cutoff, includedBankAccounts: included });
    const pairs: [string, string][] = [
      ["2026-03-01", "2026-03-02"],
      ["2026-03-01", "2026-06-15"],
      ["2025-12-31", "2026-11-22"],
      ["2026-11-21", "2026-11-22"],
      ["2026-11-22", "2026-12-25"],
    ];
    // Cutoffs whose history window (HISTORY_DAYS) starts on a paid invoice's issue date and on
    // a bank line's date: the rows on the window's edge.
    const [edge] = rows<{ issued: string; banked: string }>(
      await db.execute(sql`
        SELECT (SELECT issue_date::text FROM cash_items WHERE org_id = ${orgId}
                  AND source = 'LEDGER_INVOICE' AND ledger_status = 'PAID'
                ORDER BY issue_date OFFSET 50 LIMIT 1) AS issued,
               (SELECT date::text FROM bank_transactions WHERE org_id = ${orgId}
                ORDER BY date OFFSET 50 LIMIT 1) AS banked`),
    );
    for (const day of [edge?.issued, edge?.banked]) {
      const later = addDays(day ?? "", HISTORY_DAYS);
      pairs.push([addDays(later, -1), later], [addDays(later, -30), addDays(later, 1)]);
    }
    for (const [earlier, later] of pairs) {
      // The books of a read for `later` keep every row its SQL returned (the JavaScript filter
      // passes all of them), and those from the earlier read are the same books.
      const own = await read(later);
      const fresh = booksFromRows(org, own, later);
      expect(fresh.documents.map((d) => d.id)).toEqual(own.documents.map((d) => d.id));
      expect(fresh.bankLines).toHaveLength(own.bank.length);
      expect(fresh).toEqual(
        await loadBooks(db, org, { cutoff: later, includedBankAccounts: included }),
      );
      expect(booksFromRows(org, await read(earlier), later), `${earlier} → ${later}`).toEqual(
        fresh,
      );
    }
    // And a cutoff before the rows' cannot be served from them.
    expect(() => booksFromRows(org, { cutoff: "2026-11-22" } as never, "2026-11-21")).toThrow();
  });

  it("keeps the epoch, and so the model, through an import that changed nothing", async () => {
    await served(NOW);
    const epoch = await readOrgDataEpoch(db, orgId);
    // The import recomputes the forecasts itself (after-import.ts), from the kept model.
    await importLedgerFolder(db, { orgId, folder, now: LATER });
    expect(await readOrgDataEpoch(db, orgId)).toBe(epoch);
    const again = await served(LATER);
    expect(again.reuse).toBe("model");
  });

  /** Writes the forecast reads, each by the writer that makes it (SQL: a sync or another instance). */
  const writes: [string, () => Promise<unknown>][] = [
    [
      "a sync changes an open invoice",
      () =>
        db.execute(sql`
          UPDATE cash_items SET amount_due = amount_due - 10, ledger_updated_at = ${NOW}
          WHERE id = (SELECT id FROM cash_items WHERE org_id = ${orgId} AND source = 'LEDGER_INVOICE'
                        AND ledger_status = 'AUTHORISED' AND amount_due > 10 ORDER BY id LIMIT 1)`),
    ],
    [
      "a sync adds an invoice",
      () =>
        db.execute(sql`
          INSERT INTO cash_items (id, org_id, source, external_id, invoice_number,
            contact_external_id, contact_name, status, ledger_status, currency, amount,
            amount_due, issue_date, due_date, expected_date, category, ledger_updated_at,
            last_synced_at)
          SELECT 'ci_added_' || id, org_id, source, 'added-' || external_id, 'ADDED-1',
            contact_external_id, contact_name, 'FORECAST', 'AUTHORISED', currency, 4321,
            4321, ${"2026-11-20"}::date, ${"2026-12-04"}::date, ${"2026-12-04"}::date, category,
            ${NOW}, ${NOW}
          FROM cash_items WHERE org_id = ${orgId} AND source = 'LEDGER_INVOICE'
          ORDER BY id LIMIT 1`),
    ],
    [
      "a sync deletes an open bill",
      () =>
        db.execute(sql`
          DELETE FROM cash_items
          WHERE id = (SELECT id FROM cash_items WHERE org_id = ${orgId} AND source = 'LEDGER_BILL'
                        AND ledger_status = 'AUTHORISED' AND amount_due > 0 ORDER BY id LIMIT 1)`),
    ],
    [
      "a sync deletes a payment of an invoice rebuilt from its payments",
      async () => {
        // An invoice the ledger changed after today: its state today is rebuilt from its
        // payments (books.ts), so they count. Set up first, then only the payment goes.
        const [paid] = rows<{ id: string; externalId: string }>(
          await db.execute(sql`
            SELECT c.id, c.external_id AS "externalId" FROM cash_items c
            WHERE c.org_id = ${orgId} AND c.source = 'LEDGER_INVOICE' AND c.ledger_status = 'PAID'
              AND c.issue_date > ${"2026-09-01"}::date AND EXISTS (
                SELECT 1 FROM payments p WHERE p.org_id = c.org_id
                  AND p.invoice_external_id = c.external_id AND p.status <> 'DELETED')
            ORDER BY c.id LIMIT 1`),
        );
        await db.execute(sql`
          UPDATE cash_items SET ledger_updated_at = ${new Date(NOW.getTime() + 2 * 86_400_000)}
          WHERE id = ${paid?.id ?? ""}`);
        const before = await served(NOW);
        await db.execute(sql`
          DELETE FROM payments WHERE org_id = ${orgId} AND invoice_external_id = ${paid?.externalId ?? ""}`);
        return before;
      },
    ],
    [
      "a sync suppresses a purchase order",
      () =>
        db.execute(sql`
          UPDATE purchase_orders SET suppressed_reason = 'billed'
          WHERE id = (SELECT id FROM purchase_orders WHERE org_id = ${orgId}
                        AND status = 'AUTHORISED' AND suppressed_reason IS NULL ORDER BY id LIMIT 1)`),
    ],
    [
      "a sync archives the busiest customer",
      () =>
        db.execute(sql`
          UPDATE contacts SET contact_status = 'ARCHIVED'
          WHERE org_id = ${orgId} AND external_id = (
            SELECT contact_external_id FROM cash_items WHERE org_id = ${orgId}
              AND source = 'LEDGER_INVOICE' AND issue_date > ${"2026-06-01"}::date
            GROUP BY contact_external_id ORDER BY count(*) DESC, contact_external_id LIMIT 1)`),
    ],
    [
      "an owner adds a manual item",
      () =>
        addManualItem(db, {
          orgId,
          kind: "MANUAL",
          direction: "out",
          amount: "12345.67",
          date: "2026-12-03",
          now: NOW,
        }),
    ],
    [
      "an owner removes a manual item",
      async () => {
        const [item] = rows<{ id: string }>(
          await db.execute(sql`
            SELECT id FROM cash_items WHERE org_id = ${orgId} AND source = 'MANUAL' LIMIT 1`),
        );
        await removeManualItem(db, { orgId, itemId: item?.id ?? "" });
      },
    ],
    [
      "an owner takes an account out of burn",
      async () => {
        const [account] = rows<{ id: string }>(
          await db.execute(sql`
            SELECT la.id FROM ledger_accounts la
            WHERE la.org_id = ${orgId} AND la.code = (
              SELECT category FROM cash_items WHERE org_id = ${orgId} AND source = 'LEDGER_BILL'
                AND category IS NOT NULL GROUP BY category ORDER BY count(*) DESC, category LIMIT 1)`),
        );
        await setAccountCategory(db, { orgId, accountId: account?.id ?? "", included: false });
      },
    ],
    [
      "an owner overrides the starting cash (read afresh, nothing reloaded)",
      () => setCashOverride(db, { orgId, amount: "250000", now: NOW }),
    ],
  ];

  it.each(writes)("after %s, serves what a full recompute serves", async (name, write) => {
    let before = await served(NOW);
    // A write that needs its own setup returns the forecast served between the two.
    const setUp = await write();
    if (setUp && typeof setUp === "object" && "forecast" in setUp) before = setUp as typeof before;
    const after = await served(NOW);
    const afterFull = await full(NOW);
    expect(after.forecast).toEqual(afterFull.forecast);
    // Each of these writes changes the forecast: a kept model reused after it would be stale.
    expect(after.forecast).not.toEqual(before.forecast);
    expect(after.reuse).toBe(name.includes("afresh") ? "model" : "changed");
  });

  it("after a write and on the next date, reads the changed documents and serves what a full recompute serves", async () => {
    await served(NOW);
    await db.execute(sql`
      UPDATE cash_items SET amount_due = amount_due - 3, ledger_updated_at = ${NOW}
      WHERE id = (SELECT id FROM cash_items WHERE org_id = ${orgId} AND source = 'LEDGER_INVOICE'
                    AND ledger_status = 'AUTHORISED' AND amount_due > 3 ORDER BY id DESC LIMIT 1)`);
    const nextDay = await served(NEXT_DAY);
    expect(nextDay.reuse).toBe("changed");
    expect(nextDay.forecast).toEqual((await full(NEXT_DAY)).forecast);
  });

  it("reads again after a write through another instance's own connections", async () => {
    // Another instance: its own pool on PostgreSQL (PGlite has one connection: the same client).
    const url = process.env.DATABASE_URL;
    const other = url ? openPostgres(url, 2) : null;
    try {
      const before = await served(NOW);
      await (other?.db ?? db).execute(sql`
        UPDATE cash_items SET amount_due = amount_due - 7, ledger_updated_at = ${NOW}
        WHERE id = (SELECT id FROM cash_items WHERE org_id = ${orgId} AND source = 'LEDGER_BILL'
                      AND ledger_status = 'AUTHORISED' AND amount_due > 7 ORDER BY id LIMIT 1)`);
      const after = await served(NOW);
      expect(after.reuse).toBe("changed");
      expect(after.forecast).not.toEqual(before.forecast);
      expect(after.forecast).toEqual((await full(NOW)).forecast);
    } finally {
      await other?.close();
    }
  });

  it("moves the data epoch on every write to every table the forecast's kept books are read from", async () => {
    // The tables the loader reads, as PostgreSQL counts them in its transaction (everything: no
    // cutoff); counted before and after, as PGlite may carry earlier transactions' counts.
    const read = await db.transaction(async (tx) => {
      const scans = async () =>
        new Map(
          rows<{ relname: string; scans: string }>(
            await tx.execute(sql`
              SELECT relname, (coalesce(seq_scan, 0) + coalesce(idx_scan, 0))::text AS scans
              FROM pg_stat_xact_user_tables`),
          ).map((r) => [r.relname, Number(r.scans)]),
        );
      const before = await scans();
      const { included } = await loadCash(tx, org, NOW);
      await readBookRows(tx, org, { cutoff: null, includedBankAccounts: included });
      const after = await scans();
      return [...after].filter(([t, n]) => n > (before.get(t) ?? 0)).map(([t]) => t);
    });
    const kept = read.filter((t) => !READ_AFRESH.includes(t));
    expect(kept).toContain("cash_items");
    expect(kept).toContain("payments");
    for (const table of kept) {
      const triggers = rows<{ tgname: string }>(
        await db.execute(sql`
          SELECT tgname FROM pg_trigger WHERE tgrelid = ${table}::regclass ORDER BY tgname`),
      ).map((t) => t.tgname);
      expect(triggers, table).toEqual(
        expect.arrayContaining(
          ["insert", "update", "delete"].map((op) => `${table}_${op}_bump_data_epoch`),
        ),
      );
      // And the trigger moves this organisation's epoch (the seeded books have rows in each).
      const epoch = await readOrgDataEpoch(db, orgId);
      const touched = await db.execute(
        sql`UPDATE ${sql.identifier(table)} SET org_id = org_id WHERE org_id = ${orgId}`,
      );
      expect((touched as unknown as { rowCount: number }).rowCount, table).toBeGreaterThan(0);
      expect(await readOrgDataEpoch(db, orgId), table).toBeGreaterThan(epoch);
    }
  });
  it("reads again the documents of a write that changed more than a statement's 65,535 parameters", async () => {
    // An organisation of 70,000 open invoices (copies of one of the seeded books'), all changed
    // by one write after they were kept (a bulk update, a full re-import): every one is read
    // again, more ids than one statement can carry as parameters.
    const many = await createOrganisation(db, { name: `Kept books, many ${Math.random()}` }, NOW);
    const columns = rows<{ name: string }>(
      await db.execute(sql`
        SELECT column_name AS name FROM information_schema.columns
        WHERE table_name = 'cash_items' AND is_generated = 'NEVER' ORDER BY ordinal_position`),
    ).map((c) => c.name);
    const copy: Record<string, string> = {
      id: "'ci_many_' || g",
      org_id: `'${many.id}'`,
      external_id: "'many-' || g",
    };
    await db.execute(sql`
      INSERT INTO cash_items (${sql.raw(columns.map((c) => `"${c}"`).join(", "))})
      SELECT ${sql.raw(columns.map((c) => copy[c] ?? `c."${c}"`).join(", "))}
      FROM cash_items c, generate_series(1, 70000) g
      WHERE c.id = (SELECT id FROM cash_items WHERE org_id = ${orgId} AND source = 'LEDGER_INVOICE'
                      AND ledger_status = 'AUTHORISED' ORDER BY id LIMIT 1)`);
    const manyOrg = { ...org, id: many.id };
    const read = { cutoff: "2026-11-22", includedBankAccounts: [] };
    const kept = await readBookRows(db, manyOrg, read);
    expect(kept.documents).toHaveLength(70_000);
    await db.execute(
      sql`UPDATE cash_items SET amount_due = amount_due - 1 WHERE org_id = ${many.id}`,
    );
    const refreshed = await refreshBookRows(db, manyOrg, kept, read);
    const again = await readBookRows(db, manyOrg, read);
    // Compared by the columns a write changes (whole rows: seconds of deep comparison).
    const seen = (r: typeof kept) => r.documents.map((d) => `${d.id} ${d.version} ${d.amountDue}`);
    expect(seen(refreshed)).toEqual(seen(again));
    expect(seen(refreshed)).not.toEqual(seen(kept));
    // A cutoff long past (a clock set back) rebuilds every document from its payments: their
    // 70,000 ids go to the payment and allocation reads.
    const early = await readBookRows(db, manyOrg, {
      cutoff: "2000-01-03",
      includedBankAccounts: [],
    });
    expect(early.documents).toHaveLength(70_000);
    expect(early.documents.every((d) => d.updatedOn !== null && d.updatedOn > "2000-01-03")).toBe(
      true,
    );
  }, 120_000);
});
