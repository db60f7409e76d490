import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { PGlite } from "@electric-sql/pglite";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";
import { drizzle as drizzlePg } from "drizzle-orm/node-postgres";
import { migrate as migratePg } from "drizzle-orm/node-postgres/migrator";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import pg from "pg";
import { EmbeddedSessionQueue } from "./embedded-session.ts";
import * as schema from "./schema/index.ts";

export type Schema = typeof schema;
/** The one database type the code base sees, whether the driver is node-postgres or PGlite. */
export type Db = PgDatabase<PgQueryResultHKT, Schema>;
/** A transaction handle; queries accept either. */
export type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];
export type DbOrTx = Db | Tx;

export interface Database {
  db: Db;
  /** `postgres`: a pg pool (DATABASE_URL, or the embedded database through its server's socket). */
  kind: "postgres" | "pglite";
  /** Where it lives, for messages: the URL's host/db or the data directory. */
  location: string;
  close(): Promise<void>;
}

export const MIGRATIONS_FOLDER = fileURLToPath(new URL("../../drizzle", import.meta.url));

// Session-level advisory lock key so that several instances starting together migrate once.
const MIGRATION_LOCK_KEY = 7_263_511_042;

const SOCKET_NAME = ".s.PGSQL.5432";
const LOCK_NAME = "cashrunway.lock";

/** Opens PostgreSQL through a pool. */
export function openPostgres(url: string, max = 10): Database {
  const pool = new pg.Pool({ connectionString: url, max });
  // An idle client error (server restart) must not crash the process; the pool reconnects.
  pool.on("error", () => {});
  const db = drizzlePg(pool, { schema }) as unknown as Db;
  const u = new URL(url);
  return { db, kind: "postgres", location: `${u.host}${u.pathname}`, close: () => pool.end() };
}

/** Applies committed migrations on one connection under an advisory lock. */
export async function migratePostgres(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query("SET client_min_messages = warning");
    await client.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK_KEY]);
    await migratePg(drizzlePg(client), { migrationsFolder: MIGRATIONS_FOLDER });
  } finally {
    await client.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK_KEY]).catch(() => {});
    await client.end();
  }
}

/**
 * An in-process PGlite database (in memory when `dataDir` is undefined), migrated. `loadDataDir`
 * starts it from a dump of another instance (`pglite.dumpDataDir()`) instead of an empty one.
 */
export async function openPglite(
  dataDir?: string,
  opts: { loadDataDir?: Blob } = {},
): Promise<Database & { pglite: PGlite }> {
  const pglite = new PGlite(dataDir, opts.loadDataDir ? { loadDataDir: opts.loadDataDir } : {});
  await pglite.waitReady;
  const db = drizzlePglite(pglite, { schema }) as unknown as Db;
  await migratePglite(drizzlePglite(pglite), { migrationsFolder: MIGRATIONS_FOLDER });
  return {
    db,
    pglite,
    kind: "pglite",
    location: dataDir ?? "memory",
    close: () => pglite.close(),
  };
}

function socketAnswers(path: string): Promise<boolean> {
  return new Promise((done) => {
    if (!existsSync(path)) return done(false);
    const s = connect(path);
    s.once("connect", () => {
      s.destroy();
      done(true);
    });
    s.once("error", () => done(false));
  });
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** The embedded database cannot be opened here and now (a message for people, no stack). */
export class DatabaseUnavailableError extends Error {}

/**
 * Opens the embedded database in `dataDir`. PGlite allows one process per data directory, so:
 * when a `serve` process already holds it, we talk to that process through the Postgres socket
 * it exposes in the directory; otherwise we open it ourselves (taking a pid lock), and with
 * `share` we expose the socket so that CLI commands can reach it while we run.
 */
export async function openEmbedded(
  dataDir: string,
  opts: { share?: boolean } = {},
): Promise<Database> {
  const dir = resolve(dataDir);
  try {
    mkdirSync(dir, { recursive: true });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? String(err);
    throw new DatabaseUnavailableError(`DATA_DIR ${dir} cannot be used as a folder (${code}).`);
  }
  const socketPath = join(dir, SOCKET_NAME);
  const lockPath = join(dir, LOCK_NAME);

  if (await socketAnswers(socketPath)) {
    // Another process owns the database: use its socket (one connection; it multiplexes).
    const pool = new pg.Pool({ host: dir, database: "postgres", user: "postgres", max: 1 });
    pool.on("error", () => {});
    const db = drizzlePg(pool, { schema }) as unknown as Db;
    return {
      db,
      kind: "postgres",
      location: `${dir} (via running server)`,
      close: () => pool.end(),
    };
  }

  if (existsSync(lockPath)) {
    const pid = Number(readFileSync(lockPath, "utf8").trim());
    if (Number.isInteger(pid) && pid !== process.pid && pidAlive(pid)) {
      throw new DatabaseUnavailableError(
        `The embedded database in ${dir} is in use by process ${pid}; try again when it ends.`,
      );
    }
  }
  writeFileSync(lockPath, String(process.pid));
  rmSync(socketPath, { force: true }); // stale socket of a process that died

  const embedded = await openPglite(dir);
  let server: PGLiteSocketServer | undefined;
  if (opts.share) {
    server = new PGLiteSocketServer({ db: embedded.pglite, path: socketPath, maxConnections: 8 });
    // One client's batch or transaction at a time on the one session (embedded-session.ts).
    EmbeddedSessionQueue.install(server, embedded.pglite);
    await server.start();
  }
  return {
    db: embedded.db,
    kind: "pglite",
    location: dir,
    close: async () => {
      await server?.stop();
      await embedded.close();
      rmSync(lockPath, { force: true });
      rmSync(socketPath, { force: true });
    },
  };
}

/** The database the configuration names: PostgreSQL with DATABASE_URL, else the embedded one. */
export async function openDatabase(
  config: { DATABASE_URL?: string | undefined; DATA_DIR: string },
  opts: { share?: boolean } = {},
): Promise<Database> {
  if (config.DATABASE_URL) {
    await migratePostgres(config.DATABASE_URL);
    return openPostgres(config.DATABASE_URL);
  }
  return openEmbedded(config.DATA_DIR, opts);
}
