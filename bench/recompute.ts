/**
 * The whole recompute of the 100,000-invoice bench organisation (`npx tsx bench/recompute.ts`):
 * what an import or the daily job runs (load, model, every scenario, store), on PostgreSQL at
 * BENCH_DATABASE_URL (seeded on the first run, bench/database.ts). Each of RECOMPUTE_RUNS runs
 * times the steps alone (CPU time of this process: the machine is shared, and its wall time is
 * mostly waiting for a core), then the recompute itself, and prints the digest of what the
 * recompute stored (payload and detail as PostgreSQL prints them) and the digest of what readers
 * get back from it (`read`: each snapshot's payload and detail as explain reads them, keys
 * sorted): a change that keeps the output keeps the first; one that changes how the detail is
 * stored but not what it says keeps the second.
 */
import { createHash } from "node:crypto";
import { sql } from "drizzle-orm";
import { buildForecastModel, computeForecast } from "../src/domain/forecasting/compute-forecast.ts";
import { loadForecastInput } from "../src/services/forecast/load-forecast-input.ts";
import { recomputeForecasts } from "../src/services/forecast/recompute-forecasts.ts";
import { listScenarios } from "../src/services/forecast/scenarios.ts";
import { readSnapshots } from "../src/services/forecast/snapshot-detail.ts";
import { BENCH_NOW, ensureBenchOrg, openBenchDatabase } from "./database.ts";

const RUNS = Number(process.env.RECOMPUTE_RUNS ?? 5);
const database = await openBenchDatabase(process.env.BENCH_DRIVER ?? "postgres");
const { orgId, seededSeconds } = await ensureBenchOrg(database);
if (seededSeconds !== undefined) console.log(`seeded in ${seededSeconds.toFixed(1)} s`);
const db = database.db;

/** CPU milliseconds of this process spent in `f`. */
async function cpu<T>(f: () => Promise<T> | T): Promise<{ value: T; ms: number }> {
  const c = process.cpuUsage();
  const value = await f();
  const u = process.cpuUsage(c);
  return { value, ms: (u.user + u.system) / 1000 };
}

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

const org = { id: orgId, baseCurrency: "AUD", timezone: "Australia/Sydney" };
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const steps: Record<string, number[]> = { load: [], model: [], scenarios: [], recompute: [] };
for (let run = 0; run < RUNS; run++) {
  const loaded = await cpu(() => loadForecastInput(db, org, BENCH_NOW));
  const model = await cpu(() => buildForecastModel(loaded.value.input));
  const scenarios = await listScenarios(db, orgId);
  const computed = await cpu(() => {
    for (const s of scenarios)
      computeForecast(
        { ...loaded.value.input, scenario: { ...s, assumptions: s.assumptions } },
        model.value,
      );
  });
  const t = performance.now();
  const r = await cpu(() => recomputeForecasts(db, { orgId, now: BENCH_NOW }));
  const wall = performance.now() - t;
  steps.load?.push(loaded.ms);
  steps.model?.push(model.ms);
  steps.scenarios?.push(computed.ms);
  steps.recompute?.push(r.ms);
  const stored = (
    (await db.execute(sql`
      SELECT md5(string_agg(payload::text || detail::text, '' ORDER BY s.kind)) AS digest
      FROM forecast_snapshots f JOIN forecast_scenarios s ON s.id = f.scenario_id
      WHERE f.id IN (${sql.join(
        r.value.snapshots.map((x) => sql`${x.snapshotId}`),
        sql`, `,
      )})`)) as unknown as { rows: { digest: string }[] }
  ).rows[0]?.digest;
  const read = await readSnapshots(
    db,
    r.value.snapshots.map((x) => x.snapshotId),
  );
  const hash = createHash("md5");
  for (const x of [...r.value.snapshots].sort((a, b) => (a.kind < b.kind ? -1 : 1))) {
    const snapshot = read.get(x.snapshotId);
    hash.update(canonical(snapshot?.payload ?? null)).update(canonical(snapshot?.detail ?? null));
  }
  const readDigest = hash.digest("hex");
  console.log(
    `run ${run}: CPU load ${loaded.ms.toFixed(0)} ms, model ${model.ms.toFixed(0)} ms, ` +
      `${scenarios.length} scenarios ${computed.ms.toFixed(0)} ms; recompute CPU ${r.ms.toFixed(0)} ms, ` +
      `wall ${wall.toFixed(0)} ms (${Object.entries(r.value.timings)
        .map(([k, v]) => `${k} ${v.toFixed(0)}`)
        .join(", ")}); stored ${stored}, read ${readDigest}`,
  );
}
console.log(
  `CPU medians over ${RUNS} runs: ${Object.entries(steps)
    .map(
      ([k, xs]) =>
        `${k} ${median(xs).toFixed(0)} ms (${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)})`,
    )
    .join(", ")}`,
);
await database.close();
