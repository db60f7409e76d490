/*
 * Names of the PostgreSQL databases of a parallel test run, derived from DATABASE_URL's database
 * `db`: `db_tpl`, the migrated template (global-setup.ts), and `db_w1`, `db_w2`, … one per
 * Vitest worker (VITEST_POOL_ID), cloned from the template (worker-setup.ts).
 */

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

export function databaseName(url: string): string {
  return decodeURIComponent(new URL(url).pathname.slice(1));
}

export function templateDatabaseUrl(url: string): string {
  return withDatabase(url, `${databaseName(url)}_tpl`);
}

export function workerDatabaseUrl(url: string, poolId: string): string {
  return withDatabase(url, `${databaseName(url)}_w${poolId}`);
}

/** A LIKE pattern matching every worker database of `url` (and nothing else). */
export function workerDatabasePattern(url: string): string {
  return `${databaseName(url).replace(/[\\%_]/g, (c) => `\\${c}`)}\\_w%`;
}
