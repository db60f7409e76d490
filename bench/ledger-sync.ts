/**
 * Live-ledger sync against the contract fake with Xero's real limits (5 concurrent, 60 a
 * minute, 5,000 a day): a first sync of a generated tenant, then an incremental sync after 100
 * changes (edits, payments, voids). Prints seconds, ledger calls and the share of the daily
 * budget, and the process's memory (RSS and heap) before and at its peak during each sync (the
 * fake runs in the same process, so the baseline includes its copy of the tenant). Usage (PGlite
 * unless DATABASE_URL names a database; it is migrated first):
 *   npx tsx bench/ledger-sync.ts [INVOICES]   (default 10,000)
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../src/config.ts";
import { startFakeLedger } from "../src/connector/xero/fake/server.ts";
import { migratePostgres, openPglite, openPostgres } from "../src/db/client.ts";
import { generateDemoLedger } from "../src/demo/generate.ts";
import { completeAuthorization, startAuthorization } from "../src/services/ledger/connect.ts";
import { createLedgerDeps } from "../src/services/ledger/deps.ts";
import { syncLedger } from "../src/services/ledger/sync.ts";
import { createOrganisation } from "../src/services/orgs/create-organisation.ts";

const invoices = Number(process.argv[2] ?? 10_000);
const folder = await mkdtemp(join(tmpdir(), "cr-bench-ledger-"));
await generateDemoLedger({ seed: "bench", now: new Date(), invoices, folder });
const fake = await startFakeLedger();
const tenant = await fake.store.loadTenantFromFolder(folder);
if (process.env.DATABASE_URL) await migratePostgres(process.env.DATABASE_URL);
const database = process.env.DATABASE_URL
  ? openPostgres(process.env.DATABASE_URL)
  : await openPglite(join(folder, "db"));
const deps = createLedgerDeps({
  db: database.db,
  settings: loadConfig(fake.env),
  publicBaseUrl: "http://127.0.0.1:9",
});
const org = await createOrganisation(database.db, { name: `Bench ${Date.now()}` }, new Date());
const { authorizationUrl } = await startAuthorization(deps, {
  orgId: org.id,
  userId: null,
  sessionDigest: "cli",
});
const page = await (await fetch(authorizationUrl)).text();
const back = new URL(/id="allow" href="([^"]+)"/.exec(page)?.[1]?.replaceAll("&#38;", "&") ?? "");
await completeAuthorization(deps, {
  state: back.searchParams.get("state") ?? "",
  code: back.searchParams.get("code") ?? "",
  sessionDigest: null,
});

/** Peak RSS and heap while `fn` runs, sampled every 100 ms (and at its end). */
async function measured<T>(fn: () => Promise<T>): Promise<{ result: T; memory: string }> {
  const mb = (n: number) => `${Math.round(n / 1_048_576)} MB`;
  global.gc?.();
  const before = process.memoryUsage();
  let rss = before.rss;
  let heap = before.heapUsed;
  const sample = () => {
    const m = process.memoryUsage();
    rss = Math.max(rss, m.rss);
    heap = Math.max(heap, m.heapUsed);
  };
  const timer = setInterval(sample, 100);
  try {
    const result = await fn();
    sample();
    return {
      result,
      memory: `RSS ${mb(before.rss)} -> peak ${mb(rss)}, heap ${mb(before.heapUsed)} -> peak ${mb(heap)}`,
    };
  } finally {
    clearInterval(timer);
  }
}

const report = (label: string, seconds: number, calls: number, memory: string) =>
  console.log(
    `${label}: ${seconds.toFixed(1)} s, ${calls} ledger calls (${((calls / 5000) * 100).toFixed(1)}% of 5,000 a day); ${memory}`,
  );

fake.resetStats();
let t = performance.now();
const { result: first, memory: firstMemory } = await measured(() =>
  syncLedger(deps, { orgId: org.id }),
);
if (first.outcome !== "succeeded") throw new Error(first.error);
report(
  `first sync of ${tenant.collections.Invoices.size} invoices and bills`,
  (performance.now() - t) / 1000,
  first.ledgerCalls,
  firstMemory,
);

// 100 changes: 40 edits, 30 payments, 30 voids among open documents.
const open = [...tenant.collections.Invoices.values()]
  .map((r) => r.body)
  .filter((b) => b.Status === "AUTHORISED");
const bank = [...tenant.collections.Accounts.values()].find((a) => a.body.Type === "BANK");
for (const [i, inv] of open.slice(0, 100).entries()) {
  const id = String(inv.InvoiceID);
  if (i < 40) fake.store.edit(tenant.tenantId, "Invoices", id, { Reference: `edit ${i}` });
  else if (i < 70 && bank) {
    fake.store.payInvoice(tenant.tenantId, id, {
      accountId: String(bank.body.AccountID),
      date: new Date().toISOString().slice(0, 10),
    });
  } else fake.store.voidInvoice(tenant.tenantId, id);
}
t = performance.now();
const { result: next, memory: nextMemory } = await measured(() =>
  syncLedger(deps, { orgId: org.id }),
);
if (next.outcome !== "succeeded") throw new Error(next.error);
report(
  `incremental after 100 changes (${next.mode})`,
  (performance.now() - t) / 1000,
  next.ledgerCalls,
  nextMemory,
);

await fake.close();
await database.close();
await rm(folder, { recursive: true, force: true });
