import { createHash } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { PGlite } from "@electric-sql/pglite";
import { drizzle } from "drizzle-orm/pglite";
import { migrate } from "drizzle-orm/pglite/migrator";
import pg from "pg";
import type { TestProject } from "vitest/node";
import { MIGRATIONS_FOLDER, migratePostgres } from "../../src/db/client.ts";
import { databaseName, templateDatabaseUrl, workerDatabasePattern } from "./worker-databases.ts";

/*
 * Runs once per `vitest run`, before any worker starts. Test files run in parallel, each worker
 * with its own database, so this prepares what the workers copy:
 *
 * - PGlite: an initialised, migrated data directory (initdb alone costs PGlite about 12 s, so it
 *   is done once, and kept between runs in node_modules/.cache until a migration or PGlite
 *   changes). Each worker loads its in-memory instance from the directory's dump (well under a
 *   second); tests that need an on-disk data directory (the CLI, the embedded socket) copy it.
 * - PostgreSQL (DATABASE_URL): a template database, migrated from scratch; each worker clones
 *   it (`CREATE DATABASE … TEMPLATE`) on its first file (worker-setup.ts). Teardown drops the
 *   template and the workers' databases.
 */

declare module "vitest" {
  export interface ProvidedContext {
    /** The PGlite template: `dump` (a tar of the data directory) and `dir` (the directory). */
    pgliteTemplate: { dump: string; dir: string };
    /**
     * PostgreSQL runs: DATABASE_URL as given (`base`, where databases are created) and the
     * migrated `template` the workers clone. Unset when the run is on PGlite.
     */
    postgres: { base: string; template: string } | undefined;
  }
}

const CACHE = fileURLToPath(new URL("../../node_modules/.cache/cashrunway-tests", import.meta.url));

/** What the template depends on: every migration file and the PGlite version. */
function templateKey(): string {
  const hash = createHash("sha256");
  const pglite = JSON.parse(
    readFileSync(
      new URL("../../node_modules/@electric-sql/pglite/package.json", import.meta.url),
      "utf8",
    ),
  ) as { version: string };
  hash.update(`pglite ${pglite.version}\n`);
  const files = readdirSync(MIGRATIONS_FOLDER, { recursive: true, encoding: "utf8" }).sort();
  for (const file of files) {
    if (!file.endsWith(".sql") && !file.endsWith(".json")) continue;
    hash.update(`${file}\n`).update(readFileSync(join(MIGRATIONS_FOLDER, file)));
  }
  return hash.digest("hex").slice(0, 16);
}

async function pgliteTemplate(): Promise<{ dump: string; dir: string }> {
  const key = templateKey();
  const home = join(CACHE, key);
  const template = { dump: join(home, "pgdata.tar"), dir: join(home, "pgdata") };
  if (existsSync(template.dump) && existsSync(template.dir)) return template;

  // Built beside the cache and renamed into place, so a concurrent or interrupted run never
  // sees half a template.
  const building = join(CACHE, `building-${process.pid}-${Date.now()}`);
  mkdirSync(building, { recursive: true });
  const pglite = new PGlite(join(building, "pgdata"));
  try {
    await pglite.waitReady;
    await migrate(drizzle(pglite), { migrationsFolder: MIGRATIONS_FOLDER });
    const dump = await pglite.dumpDataDir("none");
    writeFileSync(join(building, "pgdata.tar"), Buffer.from(await dump.arrayBuffer()));
  } finally {
    await pglite.close();
  }
  for (const old of readdirSync(CACHE)) {
    if (old !== key && !old.startsWith("building-"))
      rmSync(join(CACHE, old), { recursive: true, force: true });
  }
  try {
    renameSync(building, home);
  } catch {
    rmSync(building, { recursive: true, force: true }); // another run got there first
  }
  return template;
}

async function dropWorkerDatabases(admin: pg.Client, url: string): Promise<void> {
  const { rows } = await admin.query<{ datname: string }>(
    "SELECT datname FROM pg_database WHERE datname LIKE $1",
    [workerDatabasePattern(url)],
  );
  for (const { datname } of rows) {
    await admin.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(datname)} WITH (FORCE)`);
  }
}

async function postgresTemplate(
  url: string,
): Promise<{ url: string; teardown: () => Promise<void> }> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query("SET client_min_messages = warning");
  const template = templateDatabaseUrl(url);
  const name = databaseName(template);
  await dropWorkerDatabases(admin, url);
  await admin.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`);
  await migratePostgres(template);
  return {
    url: template,
    teardown: async () => {
      try {
        await dropWorkerDatabases(admin, url);
        await admin.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`);
      } finally {
        await admin.end();
      }
    },
  };
}

export async function setup(project: TestProject): Promise<() => Promise<void>> {
  const url = process.env.DATABASE_URL;
  const [pglite, postgres] = await Promise.all([
    pgliteTemplate(),
    url ? postgresTemplate(url) : undefined,
  ]);
  project.provide("pgliteTemplate", pglite);
  project.provide("postgres", url && postgres ? { base: url, template: postgres.url } : undefined);
  return async () => {
    await postgres?.teardown();
  };
}
