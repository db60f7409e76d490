import { cpSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inject } from "vitest";
import { type Database, openPglite, openPostgres } from "../../src/db/client.ts";

let shared: Promise<Database> | undefined;

/**
 * This worker's database: real PostgreSQL when DATABASE_URL is set (the worker's own clone of
 * the run's migrated template, see worker-setup.ts), otherwise an in-memory PGlite loaded from
 * the run's migrated template. Files of one worker run one after another and share it; tests
 * never reset it, and each creates its own organisations, so suites cannot see each other's rows.
 */
export function getTestDatabase(): Promise<Database> {
  shared ??= process.env.DATABASE_URL
    ? Promise.resolve(openPostgres(process.env.DATABASE_URL))
    : openPglite(undefined, {
        loadDataDir: new Blob([readFileSync(inject("pgliteTemplate").dump)]),
      });
  return shared;
}

export const testDriver = process.env.DATABASE_URL ? "postgres" : "pglite";

/**
 * A new folder holding a migrated embedded database (a copy of the run's template), for tests of
 * the embedded database on disk and of processes that open it (DATA_DIR). Initialising an empty
 * one costs PGlite about 12 s; copying this one, a fraction of a second. The caller removes it.
 */
export function embeddedDataDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cpSync(inject("pgliteTemplate").dir, dir, { recursive: true });
  return dir;
}
