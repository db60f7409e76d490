import { type Database, openPglite, openPostgres } from "../../src/db/client.ts";

let shared: Promise<Database> | undefined;

/**
 * The run's one database: real PostgreSQL when DATABASE_URL is set (migrated in global setup),
 * otherwise an in-memory PGlite migrated on first use. Tests never reset it; each creates its
 * own organisation, so suites cannot see each other's rows.
 */
export function getTestDatabase(): Promise<Database> {
  shared ??= process.env.DATABASE_URL
    ? Promise.resolve(openPostgres(process.env.DATABASE_URL))
    : openPglite();
  return shared;
}

export const testDriver = process.env.DATABASE_URL ? "postgres" : "pglite";
