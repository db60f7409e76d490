/**
 * The whole recompute of the 100,000-invoice bench organisation (`npx tsx bench/recompute.ts`):
 * what an import or the daily job runs (epoch, starting cash, books, model, every scenario,
 * store), on PostgreSQL at BENCH_DATABASE_URL (seeded on the first run, bench/database.ts). Each
 * of RECOMPUTE_RUNS runs times, in this order, the recompute in the cases the kept books
 * (fit-forecast-input.ts, ADR 0008) meet:
 *
 * - `cold`: nothing kept (a new process, or another organisation pushed it out), on BENCH_NOW;
 * - `same-day`: again on the same local date, nothing written since (an import that changed
 *   nothing, a cash override, a scenario edit): the model is reused;
 * - `new-day`: the next local date, nothing written since (the daily job): the rows are reused,
 *   the books rebuilt and the model refitted for the new date;
 * - `cold-next`: the next date with nothing kept, whose output `new-day` must equal;
 * - `sync`: the next date after a sync changed SYNC_DOCUMENTS open invoices (their amount due and
 *   change time, put back after), which moves the data epoch: of the documents only the changed
 *   ones are read again (by row version), the rest of the books whole, and the model refitted;
 * - `sync-cold`: the same books with nothing kept, whose output `sync` must equal.
 *
 * Then, once per run, the steps of a new-day recompute alone, each timed in CPU: the starting
 * cash, reading the rows (`read`, what `new-day` skips), the books from the rows, the books as of
 * the date, the model, the three scenarios.
 *
 * Per case: CPU time of this process (the machine is shared, and wall time is mostly waiting for
 * a core) and wall time; then the digest of what each recompute stored (payload and detail as
 * PostgreSQL prints them) and of what readers get back (`read`: each snapshot's payload and
 * detail as explain reads them, keys sorted). `same-day` must print `cold`'s digests,
 * `new-day` those of `cold-next` and `sync` those of `sync-cold`.
 */
import { createHash } from "node:crypto";
import { sql } from "drizzle-orm";
import { booksAsOf } from "../src/domain/forecasting/books.ts";
import { buildForecastModel, computeForecast } from "../src/domain/forecasting/compute-forecast.ts";
import { localDate } from "../src/domain/timezones.ts";
import { forgetForecastInputs } from "../src/services/forecast/fit-forecast-input.ts";
import {
  booksFromRows,
  loadCash,
  readBookRows,
} from "../src/services/forecast/load-forecast-input.ts";
import { recomputeForecasts } from "../src/services/forecast/recompute-forecasts.ts";
import { listScenarios } from "../src/services/forecast/scenarios.ts";
import { readSnapshots } from "../src/services/forecast/snapshot-detail.ts";
import { BENCH_NOW, ensureBenchOrg, openBenchDatabase } from "./database.ts";

const RUNS = Number(process.env.RECOMPUTE_RUNS ?? 5);
const SYNC_DOCUMENTS = Number(process.env.SYNC_DOCUMENTS ?? 5);
const database = await openBenchDatabase(process.env.BENCH_DRIVER ?? "postgres");
const { orgId, seededSeconds } = await ensureBenchOrg(database);
if (seededSeconds !== undefined) console.log(`seeded in ${seededSeconds.toFixed(1)} s`);
const db = database.db;
const NEXT_DAY = new Date(BENCH_NOW.getTime() + 86_400_000);

/** JSON with every object's keys sorted: the same value gives the same text. */
const canonical = (v: unknown): string =>
  Array.isArray(v)
    ? `[${v.map(canonical).join(",")}]`
    : v !== null && typeof v === "object"
      ? `{${Object.keys(v)
          .sort()
          .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
          .join(",")}}`
      : JSON.stringify(v);

/** The stored and read digests of a recompute's snapshots. */
async function digests(snapshots: { snapshotId: string; kind: string }[]) {
  const stored = (
    (await db.execute(sql`
      SELECT md5(string_agg(payload::text || detail::text, '' ORDER BY s.kind)) AS digest
      FROM forecast_snapshots f JOIN forecast_scenarios s ON s.id = f.scenario_id
      WHERE f.id IN (${sql.join(
        snapshots.map((x) => sql`${x.snapshotId}`),
        sql`, `,
      )})`)) as unknown as { rows: { digest: string }[] }
  ).rows[0]?.digest;
  const read = await readSnapshots(
    db,
    snapshots.map((x) => x.snapshotId),
  );
  const hash = createHash("md5");
  for (const x of [...snapshots].sort((a, b) => (a.kind < b.kind ? -1 : 1))) {
    const snapshot = read.get(x.snapshotId);
    hash.update(canonical(snapshot?.payload ?? null)).update(canonical(snapshot?.detail ?? null));
  }
  return `stored ${stored}, read ${hash.digest("hex")}`;
}

/** A few open invoices, as a sync that changed them would leave them; `undo` puts them back. */
async function syncFewDocuments(): Promise<{ undo: () => Promise<void> }> {
  const picked = (
    (await db.execute(sql`
      SELECT id, amount_due::text AS due, ledger_updated_at AS at FROM cash_items
      WHERE org_id = ${orgId} AND source = 'LEDGER_INVOICE' AND ledger_status = 'AUTHORISED'
        AND amount_due > 1
      ORDER BY id LIMIT ${SYNC_DOCUMENTS}`)) as unknown as {
      rows: { id: string; due: string; at: Date | null }[];
    }
  ).rows;
  for (const d of picked) {
    await db.execute(sql`
      UPDATE cash_items SET amount_due = amount_due - 1, ledger_updated_at = ${BENCH_NOW}
      WHERE org_id = ${orgId} AND id = ${d.id}`);
  }
  return {
    undo: async () => {
      for (const d of picked) {
        await db.execute(sql`
          UPDATE cash_items SET amount_due = ${d.due}::numeric, ledger_updated_at = ${d.at}
          WHERE org_id = ${orgId} AND id = ${d.id}`);
      }
    },
  };
}

const CASES = ["cold", "same-day", "new-day", "cold-next", "sync", "sync-cold"] as const;
const cpuMs = new Map<string, number[]>(CASES.map((c) => [c, []]));
const wallMs = new Map<string, number[]>(CASES.map((c) => [c, []]));

/** One recompute, timed (CPU of this process and wall), with its digests. */
async function timed(name: (typeof CASES)[number], now: Date) {
  const c = process.cpuUsage();
  const t = performance.now();
  const r = await recomputeForecasts(db, { orgId, now });
  const wall = performance.now() - t;
  const u = process.cpuUsage(c);
  const cpu = (u.user + u.system) / 1000;
  cpuMs.get(name)?.push(cpu);
  wallMs.get(name)?.push(wall);
  const steps = Object.entries(r.timings)
    .map(([k, v]) => `${k} ${v.toFixed(0)}`)
    .join(", ");
  console.log(
    `  ${name.padEnd(9)} reuse ${r.reuse.padEnd(5)} CPU ${cpu.toFixed(0).padStart(5)} ms, wall ` +
      `${wall.toFixed(0).padStart(5)} ms (${steps}); ${await digests(r.snapshots)}`,
  );
}

const STEPS = ["cash", "read", "books", "booksAsOf", "model", "scenarios"] as const;
const stepMs = new Map<string, number[]>(STEPS.map((s) => [s, []]));

/** CPU milliseconds of this process spent in `f`, recorded under `step`. */
async function step<T>(name: (typeof STEPS)[number], f: () => Promise<T> | T): Promise<T> {
  const c = process.cpuUsage();
  const value = await f();
  const u = process.cpuUsage(c);
  stepMs.get(name)?.push((u.user + u.system) / 1000);
  return value;
}

/** The steps of a recompute on the next day, each alone (nothing kept). */
async function steps() {
  const org = { id: orgId, baseCurrency: "AUD", timezone: "Australia/Sydney" };
  const today = localDate(NEXT_DAY, org.timezone);
  const { cash, included } = await step("cash", () => loadCash(db, org, NEXT_DAY));
  const rows = await step("read", () =>
    readBookRows(db, org, { cutoff: today, includedBankAccounts: included }),
  );
  const books = await step("books", () => booksFromRows(org, rows, today));
  const input = await step("booksAsOf", () =>
    booksAsOf(books, today, cash.effectiveStartingCash, NEXT_DAY),
  );
  const model = await step("model", () => buildForecastModel(input));
  const scenarios = await listScenarios(db, orgId);
  await step("scenarios", () => {
    for (const s of scenarios) computeForecast({ ...input, scenario: s }, model);
  });
  console.log(
    `  steps CPU: ${STEPS.map((s) => `${s} ${(stepMs.get(s)?.at(-1) ?? 0).toFixed(0)}`).join(", ")} ms`,
  );
}

for (let run = 0; run < RUNS; run++) {
  console.log(`run ${run}:`);
  forgetForecastInputs();
  await timed("cold", BENCH_NOW);
  await timed("same-day", BENCH_NOW);
  await timed("new-day", NEXT_DAY);
  forgetForecastInputs();
  await timed("cold-next", NEXT_DAY);
  const sync = await syncFewDocuments();
  await timed("sync", NEXT_DAY);
  forgetForecastInputs();
  await timed("sync-cold", NEXT_DAY);
  await sync.undo();
  await steps();
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const summary = (xs: number[]) =>
  `${median(xs).toFixed(0)} ms (${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)})`;
console.log(`medians over ${RUNS} runs (min–max):`);
for (const name of CASES) {
  console.log(
    `  ${name.padEnd(9)} CPU ${summary(cpuMs.get(name) ?? [])}, wall ${summary(wallMs.get(name) ?? [])}`,
  );
}
for (const name of STEPS)
  console.log(`  step ${name.padEnd(9)} CPU ${summary(stepMs.get(name) ?? [])}`);
await database.close();
