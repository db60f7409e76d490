import { and, eq, sql } from "drizzle-orm";
import { printable } from "../../connector/errors.ts";
import { createExportFolderSource } from "../../connector/export-folder/export-folder-source.ts";
import type { LedgerSource } from "../../connector/ledger-source.ts";
import type { Db, Tx } from "../../db/client.ts";
import { ledgerConnections, organisations, syncRuns } from "../../db/schema/index.ts";
import { newId } from "../../domain/ids.ts";
import { baselinesAfterImport } from "../baselines/after-import.ts";
import { NotFoundError } from "../errors.ts";
import { recomputeAfterImport } from "../forecast/after-import.ts";
import { analyzeAfterLargeImport } from "./analyze-after-import.ts";
import { projectLedger, type SyncCounts } from "./project-ledger.ts";
import { suppressPurchaseOrders } from "./suppress-purchase-orders.ts";

export type { SyncCounts } from "./project-ledger.ts";

/** The outcome of one import, as recorded in `sync_runs`. */
export interface SyncResult {
  syncRunId: string;
  outcome: "succeeded" | "failed";
  counts: SyncCounts;
  error?: string;
}

/**
 * A failed import. The projection is as it was before (the import is one transaction); the
 * failed run is recorded in `sync_runs` (outcome `failed`, the message in `error`), and
 * `result` carries its id and the counts reached. The message is the cause's message, e.g. a
 * LedgerFormatError's `Invoices.json: Invoices[12] (InvoiceID …): Total: expected a number, …`.
 */
export class LedgerImportError extends Error {
  constructor(
    readonly result: SyncResult & { outcome: "failed"; error: string },
    options?: { cause?: unknown },
  ) {
    super(result.error, options);
    this.name = "LedgerImportError";
  }
}

/** The longest failure text kept in `sync_runs.error` and shown. */
const MAX_ERROR_LENGTH = 1000;

/**
 * What a failed import reports and records: the error's message; for a failed statement the
 * database's own reason, not Drizzle's "Failed query: <SQL> params: <every value>" (which would
 * copy the ledger's names and e-mail addresses into `sync_runs`); control characters escaped
 * (a NUL would make the failure record itself unwritable); at most 1,000 characters.
 */
export function failureText(e: unknown): string {
  let text = e instanceof Error ? e.message : String(e);
  const cause = e instanceof Error ? (e.cause as { message?: unknown } | undefined) : undefined;
  if (text.startsWith("Failed query:") && typeof cause?.message === "string") {
    text = `the database refused a write: ${cause.message}`;
  }
  return printable(text, MAX_ERROR_LENGTH);
}

export interface ImportLedgerInput {
  orgId: string;
  source: LedgerSource;
  /** Recorded as `sync_runs.source`, e.g. `export_folder:/data/ledger`. */
  sourceLabel: string;
  /** The import's instant: run start, lastSyncedAt of changed rows, balanceSyncedAt. */
  now: Date;
  /** The source holds only changed records (see ProjectionInput.partial). */
  partial?: boolean;
  /** More writes in the import's transaction, after the projection (e.g. sync watermarks). */
  afterProjection?: (tx: Tx) => Promise<void>;
  /** Told the run's id once its `sync_runs` row is committed (before the projection starts). */
  onRunStarted?: (syncRunId: string) => void;
}

/**
 * Imports a full snapshot of a ledger into an organisation's projection (ledger accounts, bank
 * accounts, contacts, invoices and bills with lines, credit notes with lines and allocations,
 * purchase orders with lines, payments, bank transactions) and updates the organisation's ledger
 * settings. docs/ledger-export.md describes the rules.
 *
 * - Atomic: one transaction; any failure, a malformed record half-way included, leaves the
 *   previous projection untouched.
 * - Idempotent: unchanged records are not written, so ids, rows and lastSyncedAt stay the same;
 *   records absent from the snapshot are removed; service-owned flags (`isSensitive`,
 *   `suppressedReason`) survive.
 * - Recorded: a `sync_runs` row is written before the transaction and finished inside it on
 *   success, or after the rollback on failure (so the failed run survives), and the
 *   organisation's `ledger_connections` row is created if missing.
 *
 * @returns the succeeded run.
 * @throws NotFoundError when the organisation does not exist (nothing recorded).
 * @throws LedgerImportError when the import failed (the failed run is recorded).
 */
export async function importLedger(db: Db, input: ImportLedgerInput): Promise<SyncResult> {
  const { orgId, source, now } = input;
  const [org] = await db
    .select({
      id: organisations.id,
      baseCurrency: organisations.baseCurrency,
      timezone: organisations.timezone,
      financialYearEndDay: organisations.financialYearEndDay,
      financialYearEndMonth: organisations.financialYearEndMonth,
      ledgerOrganisationId: organisations.ledgerOrganisationId,
    })
    .from(organisations)
    .where(eq(organisations.id, orgId));
  if (!org) throw new NotFoundError("organisation");

  // Outside the transaction: the run row must outlive a rollback, and it references the
  // connection, so a missing connection is created first.
  const connectionId = await ensureConnection(db, orgId, source);
  const syncRunId = newId("syn");
  const startedMs = performance.now();
  // finishedAt follows the injected clock: `now` plus the real time the import took.
  const finishedAt = () => new Date(now.getTime() + Math.round(performance.now() - startedMs));
  await db.insert(syncRuns).values({
    id: syncRunId,
    orgId,
    connectionId,
    source: input.sourceLabel,
    startedAt: now,
    outcome: "running",
  });
  input.onRunStarted?.(syncRunId);

  const counts: SyncCounts = {};
  try {
    await db.transaction(async (tx) => {
      // Two imports of one organisation would interleave their snapshots; serialise them.
      await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext(${`ledger-import:${orgId}`}))`);
      await projectLedger(tx, { org, source, now, counts, partial: input.partial });
      await input.afterProjection?.(tx);
      await suppressPurchaseOrders(tx, { orgId }); // the bill matcher: purchase orders a bill covers
      await tx
        .update(syncRuns)
        .set({ outcome: "succeeded", finishedAt: finishedAt(), counts })
        .where(and(eq(syncRuns.orgId, orgId), eq(syncRuns.id, syncRunId)));
      await tx
        .update(ledgerConnections)
        .set({
          provider: source.provider,
          sourceRef: source.sourceRef,
          status: "active",
          lastSuccessfulSyncAt: now,
          lastError: null,
        })
        .where(and(eq(ledgerConnections.orgId, orgId), eq(ledgerConnections.id, connectionId)));
    });
  } catch (e) {
    const error = failureText(e);
    // Counts are those reached before the failure; their writes were rolled back.
    try {
      await db
        .update(syncRuns)
        .set({ outcome: "failed", finishedAt: finishedAt(), counts, error })
        .where(and(eq(syncRuns.orgId, orgId), eq(syncRuns.id, syncRunId)));
      await db
        .update(ledgerConnections)
        .set({ lastError: error })
        .where(and(eq(ledgerConnections.orgId, orgId), eq(ledgerConnections.id, connectionId)));
    } catch {
      // The database itself may be what failed; the import's own error is the one to report.
    }
    throw new LedgerImportError({ syncRunId, outcome: "failed", counts, error }, { cause: e });
  }
  // The import has committed: statistics that cannot be refreshed now (a lock wait, a timeout)
  // are autovacuum's to catch up, never a failed import.
  await analyzeAfterLargeImport(db, counts).catch((e: unknown) => {
    process.emitWarning(`ANALYZE after import ${syncRunId} failed: ${String(e)}`);
  });
  await recomputeAfterImport(db, { orgId, now, syncRunId }); // forecasts follow every import
  await baselinesAfterImport(db, { orgId, now, syncRunId }); // baselines, insights, summaries
  return { syncRunId, outcome: "succeeded", counts };
}

/**
 * Imports a ledger export folder (docs/ledger-export.md) with `importLedger`; the run's source
 * is `export_folder:<absolute folder path>`.
 */
export async function importLedgerFolder(
  db: Db,
  input: { orgId: string; folder: string; now: Date },
): Promise<SyncResult> {
  const source = createExportFolderSource(input.folder);
  return importLedger(db, {
    orgId: input.orgId,
    source,
    sourceLabel: `export_folder:${source.sourceRef}`,
    now: input.now,
  });
}

/** The organisation's one ledger connection, created (active, for this source) when missing. */
async function ensureConnection(db: Db, orgId: string, source: LedgerSource): Promise<string> {
  await db
    .insert(ledgerConnections)
    .values({
      id: newId("con"),
      orgId,
      provider: source.provider,
      sourceRef: source.sourceRef,
      status: "active",
    })
    .onConflictDoNothing({ target: ledgerConnections.orgId });
  const [row] = await db
    .select({ id: ledgerConnections.id })
    .from(ledgerConnections)
    .where(eq(ledgerConnections.orgId, orgId));
  if (!row) throw new Error("ledger connection missing after insert");
  return row.id;
}
