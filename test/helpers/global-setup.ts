import { migratePostgres } from "../../src/db/client.ts";

/** Migrations run once per test run on PostgreSQL; PGlite migrates when first opened. */
export async function setup() {
  const url = process.env.DATABASE_URL;
  if (url) await migratePostgres(url);
}
