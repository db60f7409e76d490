/**
 * The benchmark database and organisation, shared by the bench scripts (run.ts, documents.ts,
 * metering.ts): PostgreSQL at BENCH_DATABASE_URL (created and migrated if missing), or PGlite in
 * `.bench/pglite`; and the generated organisation of BENCH_INVOICES invoices, seeded once and
 * reused by every later run.
 */
import { eq } from "drizzle-orm";
import pg from "pg";
import { type Database, migratePostgres, openEmbedded, openPostgres } from "../src/db/client.ts";
import { organisations } from "../src/db/schema/index.ts";
import { seedDemo } from "../src/services/demo/seed-demo.ts";

/** The instant the bench organisation is generated relative to, and its clock starts at. */
export const BENCH_NOW = new Date("2026-06-30T02:00:00Z");
export const BENCH_INVOICES = Number(process.env.BENCH_INVOICES ?? 100_000);
const PG_URL =
  process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/cashrunway_bench";
const ORG_NAME = `Bench ${BENCH_INVOICES}`;

/** `postgres`: the bench database (created and migrated if missing); anything else: PGlite. */
export async function openBenchDatabase(driver: string): Promise<Database> {
  if (driver !== "postgres") return openEmbedded(".bench/pglite");
  const name = new URL(PG_URL).pathname.slice(1);
  const admin = new pg.Client({
    connectionString: Object.assign(new URL(PG_URL), { pathname: "/postgres" }).toString(),
  });
  await admin.connect();
  const exists = await admin.query("select 1 from pg_database where datname = $1", [name]);
  if (exists.rowCount === 0) await admin.query(`create database "${name}"`);
  await admin.end();
  await migratePostgres(PG_URL);
  return openPostgres(PG_URL, 20);
}

/**
 * The generated organisation, seeded on the first run only; `seededSeconds` when this run
 * generated and imported it.
 */
export async function ensureBenchOrg(
  database: Database,
): Promise<{ orgId: string; seededSeconds?: number }> {
  const [existing] = await database.db
    .select({ id: organisations.id })
    .from(organisations)
    .where(eq(organisations.name, ORG_NAME));
  if (existing) return { orgId: existing.id };
  console.log(`seeding ${ORG_NAME} (first run only)…`);
  const started = performance.now();
  const seeded = await seedDemo(database.db, {
    seed: "bench",
    now: BENCH_NOW,
    invoices: BENCH_INVOICES,
    folder: `.bench/ledger-${BENCH_INVOICES}`,
    name: ORG_NAME,
  });
  return { orgId: seeded.orgId, seededSeconds: (performance.now() - started) / 1000 };
}
