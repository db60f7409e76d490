import { rm } from "node:fs/promises";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type RunningFakeLedger, startFakeLedger } from "../../src/connector/xero/fake/server.ts";
import type { WireRecord } from "../../src/connector/xero/fake/store.ts";
import { resetTenantGates } from "../../src/connector/xero/policy.ts";
import type { Db } from "../../src/db/client.ts";
import { cashItems, contacts, syncRuns } from "../../src/db/schema/index.ts";
import { INTERRUPTED_ERROR, isAbandoned } from "../../src/services/ledger/abandoned-runs.ts";
import { ledgerConnectionView } from "../../src/services/ledger/connect.ts";
import type { LedgerDeps } from "../../src/services/ledger/deps.ts";
import { localSyncProgress } from "../../src/services/ledger/progress.ts";
import { syncLedger, WATERMARK_OVERLAP_MS } from "../../src/services/ledger/sync.ts";
import { getLedgerPanel } from "../../src/services/status/ledger-panel.ts";
import { createTestOrg } from "../helpers/factories.ts";
import { getTestDatabase, testDriver } from "../helpers/test-db.ts";
import { connectThroughFake, demoFolder, depsFor } from "./ledger-helpers.ts";

let db: Db;
let fake: RunningFakeLedger;
let folder: string;
let tenantId: string;

beforeAll(async () => {
  db = (await getTestDatabase()).db;
  folder = await demoFolder(60, "sync");
}, 60_000);

beforeEach(async () => {
  await fake?.close();
  resetTenantGates();
  fake = await startFakeLedger({ limits: { windowMs: 1000, perWindow: 60 } });
  tenantId = (await fake.store.loadTenantFromFolder(folder, { tenantName: "Sync Co" })).tenantId;
});

afterAll(async () => {
  await fake?.close();
  await rm(folder, { recursive: true, force: true });
});

async function connected(): Promise<{ orgId: string; deps: LedgerDeps }> {
  const org = await createTestOrg(db);
  const deps = depsFor(db, fake);
  await connectThroughFake(deps, org.id);
  return { orgId: org.id, deps };
}

async function projectedInvoices(orgId: string) {
  return db
    .select({
      externalId: cashItems.externalId,
      ledgerStatus: cashItems.ledgerStatus,
      reference: cashItems.reference,
    })
    .from(cashItems)
    .where(eq(cashItems.orgId, orgId));
}

const invoicesOf = () =>
  [...fake.store.tenant(tenantId).collections.Invoices.values()].map((r) => r.body);

describe("syncing a live ledger", () => {
  it("first sync reads everything into the projection and records the run", async () => {
    const { orgId, deps } = await connected();
    const result = await syncLedger(deps, { orgId });
    expect(result).toMatchObject({ outcome: "succeeded", mode: "full" });
    if (result.outcome !== "succeeded") return;
    expect(result.counts.contacts?.read).toBe(
      fake.store.tenant(tenantId).collections.Contacts.size,
    );
    const projected = await projectedInvoices(orgId);
    expect(projected.length).toBe(invoicesOf().length);
    expect(result.ledgerCalls).toBe(fake.stats.calls - 1); // the consent's GET /connections
    const [run] = await db.select().from(syncRuns).where(eq(syncRuns.id, result.syncRunId));
    expect(run).toMatchObject({ outcome: "succeeded", ledgerCalls: result.ledgerCalls });
    const view = await ledgerConnectionView(deps, orgId);
    expect(view.state).toBe("healthy");
    expect(view.lastSuccessfulSyncAt).not.toBeNull();
  }, 60_000);

  it("an edit, a payment, a void and an archived contact arrive incrementally; nothing else is read", async () => {
    const { orgId, deps } = await connected();
    await syncLedger(deps, { orgId });
    const open = invoicesOf().filter((i) => i.Status === "AUTHORISED");
    const [edited, paid, voided] = open as [WireRecord, WireRecord, WireRecord];
    const bank = [...fake.store.tenant(tenantId).collections.Accounts.values()].find(
      (a) => a.body.Type === "BANK",
    );
    if (!edited || !paid || !voided || !bank) throw new Error("the demo lacks open invoices");
    const contactId = (voided.Contact as { ContactID: string }).ContactID;
    // What an incremental read must return: the changed records, and those the watermark's
    // overlap re-reads (updated shortly before the last sync's latest record).
    const tenant = fake.store.tenant(tenantId);
    const latest = (c: "Invoices" | "Payments" | "Contacts") =>
      Math.max(...[...tenant.collections[c].values()].map((r) => r.updatedMs));
    const overlapped = (c: "Invoices" | "Payments" | "Contacts", from: number) =>
      [...tenant.collections[c].values()].filter((r) => r.updatedMs > from - WATERMARK_OVERLAP_MS)
        .length;
    const marks = {
      Invoices: latest("Invoices"),
      Payments: latest("Payments"),
      Contacts: latest("Contacts"),
    };
    fake.store.edit(tenantId, "Invoices", String(edited.InvoiceID), {
      Reference: "changed in the ledger",
    });
    fake.store.payInvoice(tenantId, String(paid.InvoiceID), {
      accountId: String(bank.body.AccountID),
      date: "2026-06-29",
    });
    fake.store.voidInvoice(tenantId, String(voided.InvoiceID));
    fake.store.archiveContact(tenantId, contactId);
    fake.resetStats();
    const result = await syncLedger(deps, { orgId });
    expect(result).toMatchObject({ outcome: "succeeded", mode: "incremental" });
    if (result.outcome !== "succeeded") return;
    const documentsRead = (result.counts.invoices?.read ?? 0) + (result.counts.bills?.read ?? 0);
    expect(documentsRead).toBe(overlapped("Invoices", marks.Invoices));
    expect(result.counts.payments?.read).toBe(overlapped("Payments", marks.Payments));
    expect(result.counts.contacts?.read).toBe(overlapped("Contacts", marks.Contacts));
    expect(documentsRead).toBeLessThan(invoicesOf().length / 2);
    // One page per resource, plus the organisation, the chart and the two reports.
    expect(fake.stats.calls).toBe(10);
    const byId = new Map((await projectedInvoices(orgId)).map((r) => [r.externalId, r]));
    expect(byId.get(String(edited.InvoiceID))?.reference).toBe("changed in the ledger");
    expect(byId.get(String(paid.InvoiceID))?.ledgerStatus).toBe("PAID");
    expect(byId.get(String(voided.InvoiceID))?.ledgerStatus).toBe("VOIDED");
    expect(byId.size).toBe(invoicesOf().length); // nothing removed by a partial read
    const [contact] = await db
      .select({ status: contacts.contactStatus })
      .from(contacts)
      .where(and(eq(contacts.orgId, orgId), eq(contacts.externalId, contactId)));
    expect(contact?.status).toBe("ARCHIVED");
  }, 60_000);

  it("a malformed record fails the run naming the resource and record; the projection stays", async () => {
    const { orgId, deps } = await connected();
    await syncLedger(deps, { orgId });
    const before = await projectedInvoices(orgId);
    const target = invoicesOf()[2];
    if (!target) throw new Error("no invoice");
    fake.store.edit(tenantId, "Invoices", String(target.InvoiceID), { Reference: "new" });
    fake.faults.malformed = {
      collection: "Invoices",
      id: String(target.InvoiceID),
      field: "Total",
      value: "abc",
    };
    const result = await syncLedger(deps, { orgId, full: true });
    expect(result.outcome).toBe("failed");
    if (result.outcome !== "failed") return;
    expect(result.error).toContain("GET /Invoices page 1");
    expect(result.error).toContain(`InvoiceID ${String(target.InvoiceID)}`);
    expect(result.error).toContain("Total");
    expect(result.state).toBe("retrying");
    expect(await projectedInvoices(orgId)).toEqual(before);
    const [run] = await db
      .select()
      .from(syncRuns)
      .where(eq(syncRuns.id, result.syncRunId ?? ""));
    expect(run?.outcome).toBe("failed");
    expect((await ledgerConnectionView(deps, orgId)).state).toBe("retrying");
  }, 60_000);

  it("repeated 5xx open the breaker: retrying; after recovery the next sync makes it healthy", async () => {
    const { orgId, deps } = await connected();
    fake.faults.serverErrors = 10_000;
    const failed = await syncLedger(deps, { orgId });
    expect(failed).toMatchObject({ outcome: "failed", state: "retrying" });
    const view = await ledgerConnectionView(deps, orgId);
    expect(view.state).toBe("retrying");
    expect(view.nextAttemptAt).not.toBeNull();
    // The ledgerAlert itself says why and when (the settings page shows the same alert).
    const { alert } = await getLedgerPanel(db, orgId);
    expect(alert).toMatchObject({ kind: "service_issue", nextAttemptAt: view.nextAttemptAt });
    expect(alert?.message).toContain("returning errors");
    expect(alert?.message).toMatch(/next attempt (at \d{4}-\d\d-\d\d \d\d:\d\d UTC|due now)/);
    fake.faults.serverErrors = 0;
    await new Promise((r) => setTimeout(r, 400)); // the test policy's half-open delay
    const ok = await syncLedger(deps, { orgId });
    expect(ok.outcome).toBe("succeeded");
    expect((await ledgerConnectionView(deps, orgId)).state).toBe("healthy");
  }, 60_000);

  it("revoked consent: reconnect_required, and reconnecting repairs it", async () => {
    const { orgId, deps } = await connected();
    fake.identity.revokeAll();
    const failed = await syncLedger(deps, { orgId });
    expect(failed).toMatchObject({ outcome: "failed", state: "reconnect_required" });
    expect((await ledgerConnectionView(deps, orgId)).state).toBe("reconnect_required");
    await connectThroughFake(deps, orgId);
    expect((await syncLedger(deps, { orgId })).outcome).toBe("succeeded");
  }, 60_000);

  it("tokens never appear in the run records or the connection's errors", async () => {
    const { orgId, deps } = await connected();
    fake.identity.revokeAll();
    await syncLedger(deps, { orgId });
    const runs = JSON.stringify(await db.select().from(syncRuns).where(eq(syncRuns.orgId, orgId)));
    const view = JSON.stringify(await ledgerConnectionView(deps, orgId));
    for (const grant of fake.identity.grants.values()) expect(grant.revoked).toBe(true);
    expect(runs + view).not.toMatch(/Bearer|access_token|refresh_token/);
  }, 60_000);

  it("a running sync's progress is visible while it runs (committed for other instances on PostgreSQL)", async () => {
    const { orgId, deps } = await connected();
    fake.faults.slowMs = 250;
    const run = syncLedger(deps, { orgId });
    let seen: { records: Record<string, number>; ledgerCalls: number } | null = null;
    let done = false;
    void run.finally(() => {
      done = true;
    });
    while (!done && !seen) {
      await new Promise((r) => setTimeout(r, 100));
      // On PostgreSQL another connection reads what the sync committed; the embedded database's
      // one session is the sync's until it ends, so there the process's own record is read.
      seen =
        testDriver === "postgres"
          ? ((await getLedgerPanel(db, orgId)).lastRun?.progress ?? null)
          : (localSyncProgress(orgId) ?? null);
    }
    fake.faults.slowMs = 0;
    const result = await run;
    expect(result.outcome).toBe("succeeded");
    expect(seen).not.toBeNull();
    expect(Object.values(seen?.records ?? {}).some((n) => n > 0)).toBe(true);
    expect(seen?.ledgerCalls).toBeGreaterThan(0);
    expect(localSyncProgress(orgId)).toBeUndefined();
    // Once finished, the panel shows the run's outcome, not progress.
    expect((await getLedgerPanel(db, orgId)).lastRun).toMatchObject({
      outcome: "succeeded",
      progress: null,
    });
  }, 60_000);
  it("a running row left by a crashed process reads as interrupted and the next sync finishes it", async () => {
    const { orgId, deps } = await connected();
    const beat = (ms: number) => new Date(Date.now() - ms);
    // Crashed: started 20 minutes ago, last heartbeat 16 minutes ago (lease 15 minutes).
    await db.insert(syncRuns).values({
      id: `sync_crashed_${orgId}`,
      orgId,
      source: "xero",
      startedAt: beat(20 * 60_000),
      outcome: "running",
      progress: {
        resource: "invoices",
        records: { invoices: 10 },
        ledgerCalls: 3,
        at: beat(16 * 60_000).toISOString(),
      },
    });
    // Control: a row with a fresh heartbeat is still running.
    const alive = {
      orgId,
      outcome: "running" as const,
      startedAt: beat(20 * 60_000),
      progress: { at: beat(60_000).toISOString() },
    };
    expect(isAbandoned(alive, new Date())).toBe(false);
    const panel = await getLedgerPanel(db, orgId);
    expect(panel.running).toBe(false);
    expect(panel.lastRun).toMatchObject({ outcome: "failed", error: INTERRUPTED_ERROR });
    const view = await ledgerConnectionView(deps, orgId);
    expect(view.runs[0]).toMatchObject({ outcome: "failed", error: INTERRUPTED_ERROR });
    // The next sync is not blocked, and finishes the abandoned row with the error.
    const result = await syncLedger(deps, { orgId });
    expect(result.outcome).toBe("succeeded");
    const [row] = await db
      .select()
      .from(syncRuns)
      .where(eq(syncRuns.id, `sync_crashed_${orgId}`));
    expect(row).toMatchObject({ outcome: "failed", error: INTERRUPTED_ERROR });
    expect(row?.finishedAt).not.toBeNull();
    expect((await getLedgerPanel(db, orgId)).lastRun?.outcome).toBe("succeeded");
  }, 60_000);
});
