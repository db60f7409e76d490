import pg from "pg";
import { afterAll, beforeAll, inject } from "vitest";
import { closeTestApps } from "./api.ts";
import { getTestDatabase } from "./test-db.ts";
import { databaseName, workerDatabaseUrl } from "./worker-databases.ts";

/*
 * Runs in each worker before each of its test files. On PostgreSQL, the worker's first file
 * clones the run's template into the worker's own database and points DATABASE_URL at it, so
 * every test (and every process a test starts) of this worker uses it, and files of other
 * workers never share its rows.
 */

const postgres = inject("postgres");
if (postgres) {
  const url = workerDatabaseUrl(postgres.base, process.env.VITEST_POOL_ID ?? "1");
  if (process.env.DATABASE_URL !== url) {
    const admin = new pg.Client({ connectionString: postgres.base });
    await admin.connect();
    try {
      const name = pg.escapeIdentifier(databaseName(url));
      const template = pg.escapeIdentifier(databaseName(postgres.template));
      await admin.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
    } catch (err) {
      // A worker that replaced an earlier one of the same pool id reuses its database.
      if ((err as { code?: string }).code !== "42P04") throw err; // duplicate_database
    } finally {
      await admin.end();
    }
    process.env.DATABASE_URL = url;
  }
}

// The worker's database opens in a hook, never inside a file's first test; later files of the
// worker find it open. Loading the PGlite data directory takes seconds on an idle machine but
// over a minute when every core is busy (seen with the whole suite beside other work), so this
// hook has a longer timeout than hookTimeout.
const OPEN_DATABASE_TIMEOUT_MS = 240_000;
beforeAll(async () => {
  await getTestDatabase();
}, OPEN_DATABASE_TIMEOUT_MS);

afterAll(closeTestApps);
